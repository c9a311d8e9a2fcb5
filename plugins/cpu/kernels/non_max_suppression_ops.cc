// NonMaxSuppressionV2 to V5 on CPU (boxes and scores half or float): greedy selection by
// descending score (the lower index first among equal scores) of boxes whose IOU with every box
// already selected is at most iou_threshold; V3 on drop scores at or below score_threshold, V4 on
// can pad to max_output_size, V5 adds soft-NMS (a Gaussian decay of the scores, soft_nms_sigma).
// Boxes are any two opposite corners; IOU computes in float, scores in their own type, as
// TensorFlow's kernel does.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Intersection over union of boxes i and j (0 when either has no area).
template <typename T>
float Iou(const T* boxes, int64_t i, int64_t j) {
  auto at = [boxes](int64_t box, int k) { return static_cast<float>(boxes[box * 4 + k]); };
  const float ymin_i = std::min(at(i, 0), at(i, 2));
  const float xmin_i = std::min(at(i, 1), at(i, 3));
  const float ymax_i = std::max(at(i, 0), at(i, 2));
  const float xmax_i = std::max(at(i, 1), at(i, 3));
  const float ymin_j = std::min(at(j, 0), at(j, 2));
  const float xmin_j = std::min(at(j, 1), at(j, 3));
  const float ymax_j = std::max(at(j, 0), at(j, 2));
  const float xmax_j = std::max(at(j, 1), at(j, 3));
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float intersection = std::max(std::min(ymax_i, ymax_j) - std::max(ymin_i, ymin_j), 0.0f) *
                             std::max(std::min(xmax_i, xmax_j) - std::max(xmin_i, xmin_j), 0.0f);
  return intersection / (area_i + area_j - intersection);
}

template <typename T>
struct Selection {
  std::vector<int32_t> indices;
  std::vector<T> scores;
};

// The greedy selection. A candidate whose score soft-NMS lowered goes back into the queue with
// its new score; `suppress_begin` remembers which selected boxes already lowered it.
template <typename T>
Selection<T> SelectBoxes(const T* boxes, const T* scores, int64_t num_boxes, int64_t max_output,
                         T iou_threshold, T score_threshold, T soft_nms_sigma) {
  struct Candidate {
    int64_t index;
    T score;
    int64_t suppress_begin;
  };
  auto after = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  for (int64_t i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) queue.push(Candidate{i, scores[i], 0});
  }
  const bool soft = soft_nms_sigma > T(0);
  const T scale = soft ? T(-0.5) / soft_nms_sigma : T(0);
  Selection<T> selected;
  while (static_cast<int64_t>(selected.indices.size()) < max_output && !queue.empty()) {
    Candidate next = queue.top();
    queue.pop();
    const T original = next.score;
    bool suppressed = false;
    for (int64_t j = static_cast<int64_t>(selected.indices.size()) - 1; j >= next.suppress_begin;
         --j) {
      const T iou = static_cast<T>(Iou(boxes, next.index, selected.indices[j]));
      const T weight = Eigen::numext::exp(scale * iou * iou);
      next.score = next.score * (soft || iou <= iou_threshold ? weight : T(0));
      if (!soft && iou > iou_threshold) {
        suppressed = true;
        break;
      }
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin = static_cast<int64_t>(selected.indices.size());
    if (suppressed) continue;
    if (next.score == original) {
      selected.indices.push_back(static_cast<int32_t>(next.index));
      selected.scores.push_back(next.score);
    } else if (next.score > score_threshold) {
      queue.push(next);
    }
  }
  return selected;
}

Status CheckScalar(const TensorView& view, const char* name, bool with_rank) {
  if (view.rank() == 0) return OkStatus();
  if (with_rank) {
    return sdk::InvalidArgument(name, " must be 0-D, got shape ", view.shape().DebugString(),
                                " (Shape must be rank 0 but is rank ", view.rank(), ")");
  }
  return sdk::InvalidArgument(name, " must be 0-D, got shape ", view.shape().DebugString());
}

// A half or float scalar as T.
template <typename T>
T ScalarAs(const TensorView& view) {
  return view.dtype() == TSR_DTYPE_HALF ? static_cast<T>(view.data<const Eigen::half>()[0])
                                        : static_cast<T>(view.data<const float>()[0]);
}

// Version 2 to 5 of the op: which inputs and outputs it has.
class NonMaxSuppressionKernel : public sdk::Kernel {
 public:
  NonMaxSuppressionKernel(KernelConstruction& ctx, int version) : version_(version) {
    if (version_ >= 4) ctx.SetStatus(ctx.GetAttr("pad_to_max_output_size", &pad_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView boxes;
    TensorView scores;
    TensorView max_output_size;
    TensorView iou_threshold;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &boxes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &scores));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &max_output_size));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &iou_threshold));
    TESSERA_SDK_RETURN_IF_ERROR(CheckScalar(max_output_size, "max_output_size", version_ == 3));
    TESSERA_SDK_RETURN_IF_ERROR(CheckScalar(iou_threshold, "iou_threshold", version_ == 3));
    if (boxes.dtype() == TSR_DTYPE_HALF) return Run<Eigen::half>(ctx, boxes, scores);
    return Run<float>(ctx, boxes, scores);
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx, const TensorView& boxes, const TensorView& scores) {
    TensorView max_output_size;
    TensorView iou_threshold;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &max_output_size));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &iou_threshold));
    const T iou = ScalarAs<T>(iou_threshold);
    if (!(iou >= T(0) && iou <= T(1))) {
      return sdk::InvalidArgument("iou_threshold must be in [0, 1]");
    }
    T score_threshold = std::numeric_limits<T>::lowest();
    if (version_ >= 3) {
      TensorView view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(4, &view));
      TESSERA_SDK_RETURN_IF_ERROR(CheckScalar(view, "score_threshold", false));
      score_threshold = ScalarAs<T>(view);
    }
    T sigma = T(0);
    if (version_ == 5) {
      TensorView view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(5, &view));
      TESSERA_SDK_RETURN_IF_ERROR(CheckScalar(view, "soft_nms_sigma", false));
      sigma = ScalarAs<T>(view);
      if (!(sigma >= T(0))) return sdk::InvalidArgument("soft_nms_sigma_val must be >= 0");
    }
    if (boxes.rank() != 2) {
      return sdk::InvalidArgument("boxes must be 2-D", boxes.shape().DebugString(),
                                  " (Shape must be rank 2 but is rank ", boxes.rank(), ")");
    }
    const int64_t num_boxes = boxes.dim(0);
    if (boxes.dim(1) != 4) {
      return sdk::InvalidArgument("boxes must have 4 columns (Dimension must be 4 but is ",
                                  boxes.dim(1), ")");
    }
    if (scores.rank() != 1) {
      return sdk::InvalidArgument("scores must be 1-D", scores.shape().DebugString(),
                                  " (Shape must be rank 1 but is rank ", scores.rank(), ")");
    }
    if (scores.dim(0) != num_boxes) {
      return sdk::InvalidArgument(
          "scores has incompatible shape (Dimensions must be equal, but are ", num_boxes, " and ",
          scores.dim(0), ")");
    }
    const int64_t max_output = max_output_size.data<const int32_t>()[0];
    if (max_output < 0) return sdk::InvalidArgument("output size must be non-negative");
    Selection<T> selected = SelectBoxes(boxes.data<const T>(), scores.data<const T>(), num_boxes,
                                        max_output, iou, score_threshold, sigma);
    const int32_t valid = static_cast<int32_t>(selected.indices.size());
    if (pad_) {
      selected.indices.resize(static_cast<size_t>(max_output), 0);
      selected.scores.resize(static_cast<size_t>(max_output), T(0));
    }
    const int64_t length = static_cast<int64_t>(selected.indices.size());
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape({length}), &indices));
    std::copy(selected.indices.begin(), selected.indices.end(), indices.data<int32_t>());
    int valid_output = 1;
    if (version_ == 5) {
      TensorView out_scores;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, Shape({length}), &out_scores));
      std::copy(selected.scores.begin(), selected.scores.end(), out_scores.data<T>());
      valid_output = 2;
    }
    if (version_ >= 4) {
      TensorView count;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(valid_output, Shape({}), &count));
      count.data<int32_t>()[0] = valid;
    }
    return OkStatus();
  }

  int version_;
  bool pad_ = false;
};

template <int kVersion>
class NonMaxSuppressionVersion : public NonMaxSuppressionKernel {
 public:
  explicit NonMaxSuppressionVersion(KernelConstruction& ctx)
      : NonMaxSuppressionKernel(ctx, kVersion) {}
};

}  // namespace

Status RegisterNonMaxSuppressionKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> types = {TSR_DTYPE_HALF, TSR_DTYPE_FLOAT};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<NonMaxSuppressionVersion<2>>(
      registrar, "NonMaxSuppressionV2", kCpu, {{"T", types}, {"T_threshold", types}}, 0, 0,
      {"max_output_size", "iou_threshold"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<NonMaxSuppressionVersion<3>>(
      registrar, "NonMaxSuppressionV3", kCpu, {{"T", types}, {"T_threshold", types}}, 0, 0,
      {"max_output_size", "iou_threshold", "score_threshold"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<NonMaxSuppressionVersion<4>>(
      registrar, "NonMaxSuppressionV4", kCpu, {{"T", types}, {"T_threshold", types}}, 0, 0,
      {"max_output_size", "iou_threshold", "score_threshold"}));
  return sdk::RegisterKernel<NonMaxSuppressionVersion<5>>(
      registrar, "NonMaxSuppressionV5", kCpu, {{"T", types}}, 0, 0,
      {"max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"});
}

}  // namespace tessera::cpu
