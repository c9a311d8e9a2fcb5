// The losses on CPU (float, double): SoftmaxCrossEntropyWithLogits (with TensorFlow's
// broadcasting of features and labels), SparseSoftmaxCrossEntropyWithLogits (int32/int64 labels)
// and L2Loss. Rows of the batch are sharded over the host's pool.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "plugins/cpu/kernels/broadcast.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Element (row, col) of a tensor of rank <= 2 broadcast to a [rows, cols] matrix: the strides
// of its two (right-aligned) dimensions, 0 where the dimension is broadcast.
struct MatrixStrides {
  explicit MatrixStrides(const Shape& shape) {
    const int64_t d1 = shape.rank() >= 1 ? shape.dim(shape.rank() - 1) : 1;
    const int64_t d0 = shape.rank() >= 2 ? shape.dim(shape.rank() - 2) : 1;
    col = d1 == 1 ? 0 : 1;
    row = d0 == 1 ? 0 : d1;
  }
  int64_t At(int64_t r, int64_t c) const { return r * row + c * col; }
  int64_t row;
  int64_t col;
};

class SoftmaxCrossEntropyKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TensorView labels;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &labels));
    Shape shape = logits.shape();
    if (logits.shape() != labels.shape()) {
      BroadcastPlan plan;
      if (!plan.Init(logits.shape(), labels.shape())) {
        return sdk::InvalidArgument(
            "logits and labels must be broadcastable: logits_size=", logits.shape().DebugString(),
            " labels_size=", labels.shape().DebugString());
      }
      shape = plan.output_shape();
    }
    if (shape.rank() != 2) {
      return sdk::InvalidArgument(
          "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional");
    }
    const int64_t batch = shape.dim(0);
    const int64_t classes = shape.dim(1);
    TensorView loss;
    TensorView backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape({batch}), &loss));
    // The backprop may take over the logits' buffer: each row reads its logits before writing.
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 1, shape, &backprop));
    const MatrixStrides x_at(logits.shape());
    const MatrixStrides y_at(labels.shape());
    return DispatchTypes<float, double>(ctx, logits.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = logits.data<const T>();
      const T* y = labels.data<const T>();
      T* l = loss.data<T>();
      T* b = backprop.data<T>();
      ctx.ParallelFor(batch, classes * 30, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          T max = -std::numeric_limits<T>::infinity();
          for (int64_t c = 0; c < classes; ++c) max = std::max(max, x[x_at.At(r, c)]);
          T sum = 0;
          for (int64_t c = 0; c < classes; ++c) sum += std::exp(x[x_at.At(r, c)] - max);
          const T log_sum = std::log(sum);
          T row_loss = 0;
          for (int64_t c = 0; c < classes; ++c) {
            row_loss += y[y_at.At(r, c)] * (log_sum - (x[x_at.At(r, c)] - max));
          }
          l[r] = row_loss;
          for (int64_t c = 0; c < classes; ++c) {
            b[r * classes + c] = std::exp(x[x_at.At(r, c)] - max) / sum - y[y_at.At(r, c)];
          }
        }
      });
      return OkStatus();
    });
  }
};

// TensorFlow's message lists every label: "1 7 -2".
template <typename Index>
Status CheckLabels(const TensorView& labels, int64_t classes) {
  const Index* values = labels.data<const Index>();
  const int64_t n = labels.num_elements();
  Index min = 0;
  Index max = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || values[i] < min) min = values[i];
    if (i == 0 || values[i] > max) max = values[i];
  }
  if (n == 0 || (min >= 0 && max < classes)) return OkStatus();
  std::string all;
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) all += ' ';
    all += std::to_string(values[i]);
  }
  return sdk::InvalidArgument("Received a label value of ", min < 0 ? min : max,
                              " which is outside the valid range of [0, ", classes,
                              ").  Label values: ", all);
}

class SparseSoftmaxCrossEntropyKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TensorView labels;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &labels));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, labels, "labels"));
    if (logits.rank() != 2) {
      return sdk::InvalidArgument("logits must be 2-D, but got shape ",
                                  logits.shape().DebugString());
    }
    if (labels.rank() != 1) {
      return sdk::InvalidArgument("labels must be 1-D, but got shape ",
                                  labels.shape().DebugString());
    }
    if (logits.dim(0) != labels.dim(0)) {
      return sdk::InvalidArgument(
          "logits and labels must have the same first dimension, got logits shape ",
          logits.shape().DebugString(), " and labels shape ", labels.shape().DebugString());
    }
    if (logits.dim(1) == 0) {
      return sdk::InvalidArgument("Must have at least one class, but got logits shape ",
                                  logits.shape().DebugString());
    }
    const int64_t batch = logits.dim(0);
    const int64_t classes = logits.dim(1);
    TESSERA_SDK_RETURN_IF_ERROR(labels.dtype() == TSR_DTYPE_INT32
                                ? CheckLabels<int32_t>(labels, classes)
                                : CheckLabels<int64_t>(labels, classes));
    TensorView loss;
    TensorView backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape({batch}), &loss));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 1, logits.shape(), &backprop));
    return DispatchTypes<float, double>(ctx, logits.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = logits.data<const T>();
      T* l = loss.data<T>();
      T* b = backprop.data<T>();
      ctx.ParallelFor(batch, classes * 30, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* row = x + r * classes;
          const int64_t label = IndexAt(labels, r);
          T max = row[0];
          for (int64_t c = 1; c < classes; ++c) max = std::max(max, row[c]);
          T sum = 0;
          for (int64_t c = 0; c < classes; ++c) sum += std::exp(row[c] - max);
          l[r] = std::log(sum) - (row[label] - max);
          T* out = b + r * classes;
          for (int64_t c = 0; c < classes; ++c) {
            out[c] = std::exp(row[c] - max) / sum - (c == label ? T(1) : T(0));
          }
        }
      });
      return OkStatus();
    });
  }
};

// sum(t * t) / 2, accumulated in double.
class L2LossKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView t;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &t));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape(), &out));
    return DispatchTypes<float, double>(ctx, t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = t.data<const T>();
      double sum = 0;
      for (int64_t i = 0, n = t.num_elements(); i < n; ++i) sum += double(in[i]) * double(in[i]);
      *out.data<T>() = static_cast<T>(sum / 2);
      return OkStatus();
    });
  }
};

}  // namespace

Status RegisterLossKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SoftmaxCrossEntropyKernel>(
      registrar, "SoftmaxCrossEntropyWithLogits", kCpu, {{"T", FloatingTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SparseSoftmaxCrossEntropyKernel>(
      registrar, "SparseSoftmaxCrossEntropyWithLogits", kCpu,
      {{"T", FloatingTypes()}, {"Tlabels", IndexTypes()}}));
  return sdk::RegisterKernel<L2LossKernel>(registrar, "L2Loss", kCpu, {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
