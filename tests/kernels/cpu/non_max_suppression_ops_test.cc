// NonMaxSuppressionV2 to V5 against a reference (sort by score, then keep each box whose IOU with
// every kept box is at most the threshold; soft-NMS decays every remaining score after each
// pick) on random boxes with many equal scores; known values; padding; half; every error.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"
#include "tests/kernels/cpu/half_test_util.h"

namespace tessera::cpu::test {
namespace {

double Iou(const std::vector<float>& b, int i, int j) {
  auto box = [&](int k) {
    return std::vector<double>{
        std::min(b[k * 4], b[k * 4 + 2]), std::min(b[k * 4 + 1], b[k * 4 + 3]),
        std::max(b[k * 4], b[k * 4 + 2]), std::max(b[k * 4 + 1], b[k * 4 + 3])};
  };
  const std::vector<double> p = box(i);
  const std::vector<double> q = box(j);
  const double area_p = (p[2] - p[0]) * (p[3] - p[1]);
  const double area_q = (q[2] - q[0]) * (q[3] - q[1]);
  if (area_p <= 0 || area_q <= 0) return 0;
  const double inter = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0])) *
                       std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
  return inter / (area_p + area_q - inter);
}

struct Picked {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

Picked Reference(const std::vector<float>& boxes, const std::vector<float>& scores, int max_output,
                 float iou_threshold, float score_threshold, float sigma) {
  const int n = static_cast<int>(scores.size());
  std::vector<double> current(scores.begin(), scores.end());
  std::vector<bool> alive(n);
  for (int i = 0; i < n; ++i) alive[i] = scores[i] > score_threshold;
  Picked picked;
  while (static_cast<int>(picked.indices.size()) < max_output) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      if (alive[i] && (best < 0 || current[i] > current[best])) best = i;
    }
    if (best < 0) break;
    alive[best] = false;
    picked.indices.push_back(best);
    picked.scores.push_back(static_cast<float>(current[best]));
    for (int i = 0; i < n; ++i) {
      if (!alive[i]) continue;
      const double iou = Iou(boxes, i, best);
      if (sigma > 0) {
        current[i] *= std::exp(-0.5 * iou * iou / sigma);
        if (current[i] <= score_threshold) alive[i] = false;
      } else if (iou > iou_threshold) {
        alive[i] = false;
      }
    }
  }
  return picked;
}

OpTester Nms(int version, const std::vector<float>& boxes, const std::vector<float>& scores,
             int max_output, float iou, float score_threshold = 0, float sigma = 0,
             bool pad = false) {
  OpTester tester("NonMaxSuppressionV" + std::to_string(version));
  const int64_t n = static_cast<int64_t>(scores.size());
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Make<float>(Shape({n, 4}), boxes))
      .Input(Make<float>(Shape({n}), scores))
      .Input(Tensor::Scalar<int32_t>(max_output))
      .Input(Tensor::Scalar<float>(iou));
  if (version >= 3) tester.Input(Tensor::Scalar<float>(score_threshold));
  if (version == 5) tester.Input(Tensor::Scalar<float>(sigma));
  if (version >= 4) tester.Attr("pad_to_max_output_size", pad);
  return tester;
}

std::vector<int32_t> Ints(const Tensor& t) {
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

TEST(NonMaxSuppressionOpsTest, MatchesAReference) {
  for (int trial = 0; trial < 80; ++trial) {
    const int n = trial % 10 == 0 ? 0 : 1 + static_cast<int>(Rng()() % 12);
    std::vector<float> boxes;
    std::vector<float> scores;
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 4; ++k) boxes.push_back(static_cast<float>(Rng()() % 40) / 8.0f);
      // Few distinct scores: many ties.
      scores.push_back(static_cast<float>(Rng()() % 5) / 4.0f);
    }
    const int max_output = static_cast<int>(Rng()() % 8);
    const float iou = static_cast<float>(Rng()() % 5) / 4.0f;
    const float score_threshold = trial % 3 == 0 ? 0.3f : -1.0f;
    const bool soft = trial % 4 == 3;
    const float sigma = soft ? 0.5f : 0.0f;
    const bool pad = trial % 2 == 0;
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Picked expected =
        Reference(boxes, scores, max_output, iou, soft ? score_threshold : score_threshold, sigma);
    const int valid = static_cast<int>(expected.indices.size());
    std::vector<int32_t> padded = expected.indices;
    std::vector<float> padded_scores = expected.scores;
    if (pad) {
      padded.resize(max_output, 0);
      padded_scores.resize(max_output, 0.0f);
    }
    OpTester v5 = Nms(5, boxes, scores, max_output, iou, score_threshold, sigma, pad);
    absl::StatusOr<std::vector<Tensor>> out = v5.Run(3);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Ints((*out)[0]), padded);
    ExpectTensorNear<float>((*out)[1], TSR_DTYPE_FLOAT,
                            Shape({static_cast<int64_t>(padded.size())}), padded_scores, 1e-5);
    EXPECT_EQ(Ints((*out)[2]), std::vector<int32_t>{valid});
    if (soft) continue;
    OpTester v4 = Nms(4, boxes, scores, max_output, iou, score_threshold, 0, pad);
    out = v4.Run(2);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Ints((*out)[0]), padded);
    EXPECT_EQ(Ints((*out)[1]), std::vector<int32_t>{valid});
    OpTester v3 = Nms(3, boxes, scores, max_output, iou, score_threshold);
    EXPECT_EQ(Ints(RunOk(v3)), expected.indices);
    OpTester v2 = Nms(2, boxes, scores, max_output, iou);
    EXPECT_EQ(
        Ints(RunOk(v2)),
        Reference(boxes, scores, max_output, iou, -std::numeric_limits<float>::max(), 0).indices);
  }
}

// Three clusters of boxes, each given by different corners.
const std::vector<float> kBoxes = {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                   0, 10, 1, 11, 1, 10.1f, 0, 11.1f, 1, 101,   0, 100};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

TEST(NonMaxSuppressionOpsTest, KnownValues) {
  OpTester three = Nms(3, kBoxes, kScores, 3, 0.5f, 0.0f);
  EXPECT_EQ(Ints(RunOk(three)), (std::vector<int32_t>{3, 0, 5}));
  OpTester thresholded = Nms(3, kBoxes, kScores, 3, 0.5f, 0.4f);
  EXPECT_EQ(Ints(RunOk(thresholded)), (std::vector<int32_t>{3, 0}));
  OpTester all = Nms(2, kBoxes, kScores, 100, 0.5f);
  EXPECT_EQ(Ints(RunOk(all)), (std::vector<int32_t>{3, 0, 5}));
  OpTester padded = Nms(4, kBoxes, kScores, 5, 0.5f, 0.4f, 0, true);
  absl::StatusOr<std::vector<Tensor>> out = padded.Run(2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ints((*out)[0]), (std::vector<int32_t>{3, 0, 0, 0, 0}));
  EXPECT_EQ(Ints((*out)[1]), std::vector<int32_t>{2});
  // Soft-NMS: every box comes back, its score decayed by its overlaps with earlier picks.
  OpTester soft = Nms(5, kBoxes, kScores, 6, 0.5f, 0.0f, 0.5f);
  out = soft.Run(3);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ints((*out)[0]), (std::vector<int32_t>{3, 0, 1, 5, 4, 2}));
  ExpectTensorNear<float>((*out)[1], TSR_DTYPE_FLOAT, Shape({6}),
                          {0.95f, 0.9f, 0.384f, 0.3f, 0.256f, 0.197f}, 2e-3);
  // Equal scores: the lower index first.
  OpTester ties = Nms(3, {0, 0, 1, 1, 0, 5, 1, 6, 0, 0, 1, 1}, {0.5f, 0.5f, 0.5f}, 3, 0.5f, 0.0f);
  EXPECT_EQ(Ints(RunOk(ties)), (std::vector<int32_t>{0, 1}));
  // An IOU exactly at the threshold keeps the box (only larger overlaps suppress).
  OpTester at = Nms(3, {0, 0, 1, 2, 0, 1, 1, 3}, {0.9f, 0.8f}, 2, 1.0f / 3, 0.0f);
  EXPECT_EQ(Ints(RunOk(at)), (std::vector<int32_t>{0, 1}));
  OpTester zero = Nms(3, kBoxes, kScores, 0, 0.5f, 0.0f);
  EXPECT_EQ(Ints(RunOk(zero)), std::vector<int32_t>{});
}

TEST(NonMaxSuppressionOpsTest, HalfBoxesAndScores) {
  OpTester tester("NonMaxSuppressionV5");
  tester.Attr("T", TSR_DTYPE_HALF)
      .Input(HalfTensor(Shape({6, 4}), kBoxes))
      .Input(HalfTensor(Shape({6}), kScores))
      .Input(Tensor::Scalar<int32_t>(3))
      .Input(HalfTensor(Shape({}), {0.5f}))
      .Input(HalfTensor(Shape({}), {0.0f}))
      .Input(HalfTensor(Shape({}), {0.0f}));
  absl::StatusOr<std::vector<Tensor>> out = tester.Run(3);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ints((*out)[0]), (std::vector<int32_t>{3, 0, 5}));
  ASSERT_EQ((*out)[1].dtype(), TSR_DTYPE_HALF);
  EXPECT_EQ((*out)[1].data<uint16_t>()[0], HalfBits(0.95f));
}

TEST(NonMaxSuppressionOpsTest, RejectsBadArguments) {
  OpTester iou = Nms(3, kBoxes, kScores, 3, 1.5f, 0.0f);
  ExpectRunError(iou, absl::StatusCode::kInvalidArgument, "iou_threshold must be in [0, 1]");
  OpTester negative = Nms(4, kBoxes, kScores, -1, 0.5f, 0.0f);
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "output size must be non-negative");
  OpTester sigma = Nms(5, kBoxes, kScores, 3, 0.5f, 0.0f, -1.0f);
  ExpectRunError(sigma, absl::StatusCode::kInvalidArgument, "soft_nms_sigma_val must be >= 0");
  OpTester columns("NonMaxSuppressionV3");
  columns.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 3})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(columns, absl::StatusCode::kInvalidArgument,
                 "boxes must have 4 columns (Dimension must be 4 but is 3)");
  OpTester boxes_rank("NonMaxSuppressionV3");
  boxes_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({8})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(boxes_rank, absl::StatusCode::kInvalidArgument,
                 "boxes must be 2-D[8] (Shape must be rank 2 but is rank 1)");
  OpTester scores("NonMaxSuppressionV3");
  scores.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({3})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(scores, absl::StatusCode::kInvalidArgument,
                 "scores has incompatible shape (Dimensions must be equal, but are 2 and 3)");
  OpTester scores_rank("NonMaxSuppressionV4");
  scores_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({2, 1})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(scores_rank, absl::StatusCode::kInvalidArgument,
                 "scores must be 1-D[2,1] (Shape must be rank 1 but is rank 2)");
  OpTester max_rank("NonMaxSuppressionV3");
  max_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Vector<int32_t>({1}))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(max_rank, absl::StatusCode::kInvalidArgument,
                 "max_output_size must be 0-D, got shape [1] (Shape must be rank 0 but is rank 1)");
  OpTester threshold_rank("NonMaxSuppressionV5");
  threshold_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Vector<float>({0.0f}))
      .Input(Tensor::Scalar<float>(0.0f));
  ExpectRunError(threshold_rank, absl::StatusCode::kInvalidArgument,
                 "score_threshold must be 0-D, got shape [1]");
  OpTester sigma_rank("NonMaxSuppressionV5");
  sigma_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Scalar<float>(0.5f))
      .Input(Tensor::Scalar<float>(0.0f))
      .Input(Tensor::Vector<float>({0.0f}));
  ExpectRunError(sigma_rank, absl::StatusCode::kInvalidArgument,
                 "soft_nms_sigma must be 0-D, got shape [1]");
  OpTester iou_rank("NonMaxSuppressionV2");
  iou_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 4})))
      .Input(Random<float>(Shape({2})))
      .Input(Tensor::Scalar<int32_t>(1))
      .Input(Tensor::Vector<float>({0.5f}));
  ExpectRunError(iou_rank, absl::StatusCode::kInvalidArgument,
                 "iou_threshold must be 0-D, got shape [1]");
}

}  // namespace
}  // namespace tessera::cpu::test
