// The GPU's reducing kernels behind the SDK: Sum, Mean, Max, Min and Prod over any axes, ArgMax
// and ArgMin, BiasAddGrad, Softmax, LogSoftmax and the two cross-entropy ops. Axes and dimensions
// are host-memory inputs, as TensorFlow's GPU kernels declare them.
#include <string>
#include <vector>

#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

template <ReduceOp OP>
class ReductionKernel : public sdk::Kernel {
 public:
  explicit ReductionKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("keep_dims")) ctx.SetStatus(ctx.GetAttr("keep_dims", &keep_dims_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView axes;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &axes));
    if (axes.rank() > 1) {
      return sdk::InvalidArgument("reduction_indices must be a scalar or a vector, got shape ",
                                  axes.shape().DebugString());
    }
    Shape shape;
    ReducePlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(
        MakeReducePlan(input.shape(), ReadIndexValues(axes), keep_dims_, &shape, &plan));
    // Nothing larger than 1 reduced: the output is the input, reshaped.
    if (plan.reduced == 1) return ctx.SetOutputFromInput(0, 0, shape);
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(input.dtype(), "the input", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(
        LaunchReduce(OP, type, input.raw_data(), out.raw_data(), plan, NativeStream(ctx.stream())),
        ctx);
  }

 private:
  bool keep_dims_ = false;
};

template <ReduceOp OP>
class ArgReduceKernel : public sdk::Kernel {
 public:
  explicit ArgReduceKernel(KernelConstruction& ctx) {
    TSR_DataType output_type = TSR_DTYPE_INT64;
    if (ctx.HasAttr("output_type")) ctx.SetStatus(ctx.GetAttr("output_type", &output_type));
    index_type_ = output_type == TSR_DTYPE_INT32 ? ElementType::kInt32 : ElementType::kInt64;
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView dimension;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &dimension));
    if (dimension.rank() != 0) {
      return sdk::InvalidArgument("dim must be a scalar, but received tensor of shape: ",
                                  dimension.shape().DebugString());
    }
    const int rank = input.rank();
    const int64_t dim = ReadIndexValues(dimension)[0];
    if (dim < -rank || dim >= rank) {
      return sdk::InvalidArgument("Expected dimension in the range [", -rank, ", ", rank,
                                  "), but got ", dim);
    }
    const int64_t axis = dim < 0 ? dim + rank : dim;
    if (input.dim(static_cast<int>(axis)) == 0) {
      return sdk::InvalidArgument("Reduction axis ", dim, " is empty in shape ",
                                  input.shape().DebugString());
    }
    Shape shape;
    ReducePlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(MakeReducePlan(input.shape(), {axis}, false, &shape, &plan));
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(input.dtype(), "the input", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchReduce(OP, type, input.raw_data(), out.raw_data(), plan,
                                 NativeStream(ctx.stream()), index_type_),
                    ctx);
  }

 private:
  ElementType index_type_ = ElementType::kInt64;
};

// BiasAddGrad: the sum over every dimension but the channel's.
class BiasAddGradKernel : public sdk::Kernel {
 public:
  explicit BiasAddGradKernel(KernelConstruction& ctx)
      : channels_first_(ReadChannelsFirst(ctx)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &grad));
    if (grad.rank() < 2) {
      return sdk::InvalidArgument("Input tensor must be at least 2D: ",
                                  grad.shape().DebugString());
    }
    const int channel = channels_first_ ? 1 : grad.rank() - 1;
    std::vector<int64_t> axes;
    for (int d = 0; d < grad.rank(); ++d) {
      if (d != channel) axes.push_back(d);
    }
    Shape shape;
    ReducePlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(MakeReducePlan(grad.shape(), axes, false, &shape, &plan));
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(grad.dtype(), "the input", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchReduce(ReduceOp::kSum, type, grad.raw_data(), out.raw_data(), plan,
                                 NativeStream(ctx.stream())),
                    ctx);
  }

 private:
  bool channels_first_ = false;
};

template <SoftmaxOp OP>
class SoftmaxKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    if (logits.rank() < 1) {
      return sdk::InvalidArgument("logits must have >= 1 dimension, got ",
                                  logits.shape().DebugString());
    }
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(logits.dtype(), "logits", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, logits.shape(), &out));
    const int64_t depth = logits.dim(logits.rank() - 1);
    const int64_t rows = depth == 0 ? 0 : logits.num_elements() / depth;
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    // Each row is read whole before it is written, so the output may be the input's buffer.
    return Enqueued(LaunchSoftmax(OP, type, logits.raw_data(), out.raw_data(), rows, depth,
                                  NativeStream(ctx.stream())),
                    ctx);
  }
};

// Shape checks shared by the two cross-entropy ops; features is [batch, classes].
Status CheckLogits(const TensorView& logits) {
  if (logits.rank() != 2) {
    return sdk::InvalidArgument("logits must be 2-D, but got shape ",
                                logits.shape().DebugString());
  }
  if (logits.dim(0) > 0 && logits.dim(1) == 0) {
    return sdk::InvalidArgument("Must have at least one class, but got logits shape ",
                                logits.shape().DebugString());
  }
  return sdk::OkStatus();
}

class SparseSoftmaxCrossEntropyKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TensorView labels;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &labels));
    TESSERA_SDK_RETURN_IF_ERROR(CheckLogits(logits));
    if (labels.rank() != 1) {
      return sdk::InvalidArgument("labels must be 1-D, but got shape ",
                                  labels.shape().DebugString());
    }
    if (logits.dim(0) != labels.dim(0)) {
      return sdk::InvalidArgument(
          "logits and labels must have the same first dimension, got logits shape ",
          logits.shape().DebugString(), " and labels shape ", labels.shape().DebugString());
    }
    ElementType type;
    ElementType label_type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(logits.dtype(), "logits", &type));
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(labels.dtype(), "labels", &label_type));
    TensorView loss;
    TensorView backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{logits.dim(0)}, &loss));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, logits.shape(), &backprop));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchSparseSoftmaxCrossEntropy(
                        type, label_type, logits.raw_data(), labels.raw_data(), loss.raw_data(),
                        backprop.raw_data(), logits.dim(0), logits.dim(1),
                        NativeStream(ctx.stream())),
                    ctx);
  }
};

class SoftmaxCrossEntropyKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView logits;
    TensorView labels;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &logits));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &labels));
    TESSERA_SDK_RETURN_IF_ERROR(CheckLogits(logits));
    if (labels.shape() != logits.shape()) {
      return sdk::InvalidArgument(
          "logits and labels must be of the same shape on GPU (no broadcasting), got logits "
          "shape ",
          logits.shape().DebugString(), " and labels shape ", labels.shape().DebugString());
    }
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(logits.dtype(), "logits", &type));
    TensorView loss;
    TensorView backprop;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{logits.dim(0)}, &loss));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, logits.shape(), &backprop));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchSoftmaxCrossEntropy(type, logits.raw_data(), labels.raw_data(),
                                              loss.raw_data(), backprop.raw_data(), logits.dim(0),
                                              logits.dim(1), NativeStream(ctx.stream())),
                    ctx);
  }
};

template <ReduceOp OP>
Status RegisterReduction(TSR_Registrar* registrar, const char* op) {
  return sdk::RegisterKernel<ReductionKernel<OP>>(registrar, op, kDeviceType,
                                                  {{"T", NumberTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
                                                  {"reduction_indices"});
}

template <ReduceOp OP>
Status RegisterArgReduction(TSR_Registrar* registrar, const char* op) {
  return sdk::RegisterKernel<ArgReduceKernel<OP>>(
      registrar, op, kDeviceType, {{"T", NumberTypes()}, {"Tidx", IndexTypes()}, {"output_type", IndexTypes()}}, 0,
      0, {"dimension"});
}

}  // namespace

Status RegisterReductionKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ReduceOp::kSum>(registrar, "Sum"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ReduceOp::kMean>(registrar, "Mean"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ReduceOp::kMax>(registrar, "Max"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ReduceOp::kMin>(registrar, "Min"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterReduction<ReduceOp::kProd>(registrar, "Prod"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterArgReduction<ReduceOp::kArgMax>(registrar, "ArgMax"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterArgReduction<ReduceOp::kArgMin>(registrar, "ArgMin"));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BiasAddGradKernel>(
      registrar, "BiasAddGrad", kDeviceType, {{"T", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SoftmaxKernel<SoftmaxOp::kSoftmax>>(
      registrar, "Softmax", kDeviceType, {{"T", FloatingTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SoftmaxKernel<SoftmaxOp::kLogSoftmax>>(
      registrar, "LogSoftmax", kDeviceType, {{"T", FloatingTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SparseSoftmaxCrossEntropyKernel>(
      registrar, "SparseSoftmaxCrossEntropyWithLogits", kDeviceType,
      {{"T", FloatingTypes()}, {"Tlabels", IndexTypes()}}));
  return sdk::RegisterKernel<SoftmaxCrossEntropyKernel>(
      registrar, "SoftmaxCrossEntropyWithLogits", kDeviceType, {{"T", FloatingTypes()}});
}

}  // namespace tessera::gpu
