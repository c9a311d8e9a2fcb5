// A detection-style graph built with the client API and run as a GraphDef through a local
// session: anchor boxes decoded with predicted offsets, NonMaxSuppressionV5 over the sigmoid
// scores, the selected boxes gathered and CropAndResize'd out of a feature map. The test computes
// the same pipeline itself (decoding, greedy selection, bilinear sampling) and compares.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "host/client/ops.h"
#include "host/session/session.h"

namespace tessera {
namespace {

constexpr int kAnchors = 6;
constexpr int kHeight = 8;
constexpr int kWidth = 8;
constexpr int kDepth = 2;
constexpr int kCrop = 3;

// Anchors (ymin, xmin, ymax, xmax), normalized; the first two and the last two overlap.
const std::vector<float> kAnchorBoxes = {0.1f, 0.1f, 0.5f, 0.5f, 0.15f, 0.12f, 0.55f, 0.5f,
                                         0.5f, 0.5f, 0.9f, 0.9f, 0.0f,  0.6f,  0.3f,  1.0f,
                                         0.6f, 0.0f, 1.0f, 0.4f, 0.62f, 0.05f, 1.0f,  0.45f};
// Offsets: centre (dy, dx) in anchor sizes, then log size factors (dh, dw).
const std::vector<float> kDeltas = {0.1f,  0.0f, 0.0f,  0.1f,  0.0f,  -0.1f, 0.1f, 0.0f,
                                    -0.2f, 0.1f, -0.1f, 0.2f,  0.05f, 0.05f, 0.0f, 0.0f,
                                    0.0f,  0.0f, 0.2f,  -0.2f, 0.1f,  0.1f,  0.1f, 0.1f};
const std::vector<float> kLogits = {2.0f, 1.5f, 0.5f, -3.0f, 1.0f, 1.2f};

float FeatureAt(int y, int x, int c) { return static_cast<float>(y * kWidth + x + 100 * c); }

struct Expected {
  std::vector<int> indices;
  std::vector<float> scores;
  std::vector<float> crops;
};

double Iou(const std::vector<double>& a, const std::vector<double>& b) {
  const double area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const double area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const double h = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double w = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  return h * w / (area_a + area_b - h * w);
}

Expected Compute(int max_output, double iou_threshold, double score_threshold) {
  std::vector<std::vector<double>> boxes;
  std::vector<double> scores;
  for (int i = 0; i < kAnchors; ++i) {
    const float* a = &kAnchorBoxes[i * 4];
    const float* d = &kDeltas[i * 4];
    const double h = a[2] - a[0];
    const double w = a[3] - a[1];
    const double cy = (a[0] + a[2]) / 2 + d[0] * h;
    const double cx = (a[1] + a[3]) / 2 + d[1] * w;
    const double nh = std::exp(d[2]) * h;
    const double nw = std::exp(d[3]) * w;
    boxes.push_back({cy - nh / 2, cx - nw / 2, cy + nh / 2, cx + nw / 2});
    scores.push_back(1 / (1 + std::exp(-kLogits[i])));
  }
  std::vector<int> order(kAnchors);
  for (int i = 0; i < kAnchors; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  Expected out;
  for (int i : order) {
    if (static_cast<int>(out.indices.size()) == max_output || scores[i] <= score_threshold) break;
    bool keep = true;
    for (int j : out.indices) keep = keep && Iou(boxes[i], boxes[j]) <= iou_threshold;
    if (!keep) continue;
    out.indices.push_back(i);
    out.scores.push_back(static_cast<float>(scores[i]));
  }
  for (int i : out.indices) {
    const std::vector<double>& b = boxes[i];
    for (int y = 0; y < kCrop; ++y) {
      const double py = (b[0] + (b[2] - b[0]) * y / (kCrop - 1)) * (kHeight - 1);
      for (int x = 0; x < kCrop; ++x) {
        const double px = (b[1] + (b[3] - b[1]) * x / (kCrop - 1)) * (kWidth - 1);
        for (int c = 0; c < kDepth; ++c) {
          if (py < 0 || py > kHeight - 1 || px < 0 || px > kWidth - 1) {
            out.crops.push_back(0);
            continue;
          }
          const int y0 = static_cast<int>(std::floor(py));
          const int x0 = static_cast<int>(std::floor(px));
          const int y1 = std::min(y0 + 1, kHeight - 1);
          const int x1 = std::min(x0 + 1, kWidth - 1);
          const double fy = py - y0;
          const double fx = px - x0;
          out.crops.push_back(static_cast<float>(
              FeatureAt(y0, x0, c) * (1 - fy) * (1 - fx) + FeatureAt(y0, x1, c) * (1 - fy) * fx +
              FeatureAt(y1, x0, c) * fy * (1 - fx) + FeatureAt(y1, x1, c) * fy * fx));
        }
      }
    }
  }
  return out;
}

TEST(DetectionGraphTest, DecodesSelectsAndCropsLikeTheReference) {
  Scope root = Scope::NewRootScope();
  std::vector<float> feature;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      for (int c = 0; c < kDepth; ++c) feature.push_back(FeatureAt(y, x, c));
    }
  }
  auto features =
      ops::Const(root.WithOpName("features"),
                 Tensor::FromVector<float>(TensorShape{1, kHeight, kWidth, kDepth}, feature));
  auto anchors = ops::Const(root.WithOpName("anchors"),
                            Tensor::FromVector<float>(TensorShape{kAnchors, 4}, kAnchorBoxes));
  auto deltas = ops::Placeholder(root.WithOpName("deltas"), DT_FLOAT);
  auto logits = ops::Placeholder(root.WithOpName("logits"), DT_FLOAT);
  // Decoding: centres move by the offsets times the anchor sizes, sizes scale by exp.
  Scope decode = root.NewSubScope("decode");
  auto lower = ops::Slice(decode, anchors, {0, 0}, {-1, 2});
  auto upper = ops::Slice(decode, anchors, {0, 2}, {-1, 2});
  auto sizes = ops::Sub(decode, upper, lower);
  auto centres = ops::Mul(decode, ops::Add(decode, lower, upper), 0.5f);
  auto new_centres = ops::Add(
      decode, ops::Mul(decode, ops::Slice(decode, deltas, {0, 0}, {-1, 2}), sizes), centres);
  auto half_sizes = ops::Mul(
      decode,
      ops::Mul(decode, ops::Exp(decode, ops::Slice(decode, deltas, {0, 2}, {-1, 2})), sizes), 0.5f);
  auto boxes = ops::Concat(
      decode.WithOpName("boxes"),
      {ops::Sub(decode, new_centres, half_sizes), ops::Add(decode, new_centres, half_sizes)}, 1);
  auto scores = ops::Sigmoid(root.WithOpName("scores"), logits);
  ops::NonMaxSuppressionV5 nms(root.WithOpName("nms"), boxes, scores, 3, 0.3f, 0.6f, 0.0f);
  auto selected = ops::GatherV2(root.WithOpName("selected_boxes"), boxes, nms.selected_indices, 0);
  auto crops = ops::CropAndResize(root.WithOpName("crops"), features, selected,
                                  ops::ZerosLike(root, nms.selected_indices), {kCrop, kCrop});
  absl::StatusOr<tensorflow::GraphDef> def = root.ToGraphDef();
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status =
      (*session)->Run({{"deltas", Tensor::FromVector<float>(TensorShape{kAnchors, 4}, kDeltas)},
                       {"logits", Tensor::FromVector<float>(TensorShape{kAnchors}, kLogits)}},
                      {"nms:0", "nms:1", "nms:2", "crops:0"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  const Expected expected = Compute(3, 0.3, 0.6);
  // Box 1 overlaps box 0 and box 4 overlaps box 5 too much; box 3 scores too low: 0, 5, 2.
  ASSERT_EQ(expected.indices, (std::vector<int>{0, 5, 2}));
  ASSERT_EQ(out[0].NumElements(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[0].data<int32_t>()[i], expected.indices[i]) << i;
    EXPECT_NEAR(out[1].data<float>()[i], expected.scores[i], 1e-6) << i;
  }
  EXPECT_EQ(out[2].data<int32_t>()[0], 3);
  ASSERT_EQ(out[3].shape(), (TensorShape{3, kCrop, kCrop, kDepth}));
  for (size_t i = 0; i < expected.crops.size(); ++i) {
    EXPECT_NEAR(out[3].data<float>()[i], expected.crops[i], 1e-3) << i;
  }
}

}  // namespace
}  // namespace tessera
