// The GPU's element-wise kernels behind the SDK (binary ops with broadcasting, unary ops and
// activation gradients, Cast, Fill, BiasAdd), Const, and the ops whose output shares the input's
// buffer (Identity, Snapshot, StopGradient, Reshape, ExpandDims, Squeeze).
#include "plugins/cuda/gpu_kernels.h"

#include <string>
#include <vector>

#include "plugins/cuda/gpu_device.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

// ---- Binary ops ---------------------------------------------------------------------------

template <BinaryOp OP>
class BinaryKernel : public sdk::Kernel {
 public:
  static constexpr bool kBoolOutput = OP == BinaryOp::kLess || OP == BinaryOp::kLessEqual ||
                                      OP == BinaryOp::kGreater || OP == BinaryOp::kGreaterEqual ||
                                      OP == BinaryOp::kEqual || OP == BinaryOp::kNotEqual;
  // Gradients need equal shapes, as TensorFlow's kernels do.
  static constexpr bool kSameShape = OP == BinaryOp::kReluGrad || OP == BinaryOp::kRelu6Grad ||
                                     OP == BinaryOp::kSigmoidGrad || OP == BinaryOp::kTanhGrad;

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &y));
    if (kSameShape && x.shape() != y.shape()) {
      return sdk::InvalidArgument("the two inputs of node '", ctx.node_name(),
                                  "' must have the same shape: ", x.shape().DebugString(), " vs. ",
                                  y.shape().DebugString());
    }
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(x.dtype(), "the input", &type));
    Shape shape;
    BroadcastPlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(MakeBroadcastPlan(x.shape(), y.shape(), &shape, &plan));
    TensorView out;
    if (kBoolOutput) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    } else {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, shape, &out));
    }
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchBinary(OP, type, x.raw_data(), y.raw_data(), out.raw_data(),
                                     shape.num_elements(), plan, NativeStream(ctx.stream())),
                        ctx);
  }
};

// ---- Unary ops ----------------------------------------------------------------------------

template <UnaryOp OP>
class UnaryKernel : public sdk::Kernel {
 public:
  explicit UnaryKernel(KernelConstruction& ctx) {
    if (OP == UnaryOp::kLeakyRelu) ctx.SetStatus(ctx.GetAttr("alpha", &alpha_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(x.dtype(), "the input", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchUnary(OP, type, x.raw_data(), out.raw_data(), x.num_elements(),
                                    alpha_, NativeStream(ctx.stream())),
                        ctx);
  }

 private:
  float alpha_ = 0.2f;
};

// ---- Cast ---------------------------------------------------------------------------------

class CastKernel : public sdk::Kernel {
 public:
  explicit CastKernel(KernelConstruction& ctx) {
    TSR_DataType src = TSR_DTYPE_INVALID;
    TSR_DataType dst = TSR_DTYPE_INVALID;
    ctx.SetStatus(ctx.GetAttr("SrcT", &src));
    ctx.SetStatus(ctx.GetAttr("DstT", &dst));
    if (ctx.HasAttr("Truncate")) ctx.SetStatus(ctx.GetAttr("Truncate", &truncate_));
    if (!ctx.ok()) return;
    same_ = src == dst;
    ctx.SetStatus(ElementTypeOf(src, "SrcT", &from_));
    ctx.SetStatus(ElementTypeOf(dst, "DstT", &to_));
    if (ctx.ok() && truncate_ && dst == TSR_DTYPE_BFLOAT16 && src != dst) {
      ctx.SetStatus(sdk::Unimplemented("Cast node '", ctx.node_name(),
                                       "': Truncate=true to "
                                       "bfloat16 is not implemented on GPU (it rounds)"));
    }
  }

  Status Compute(KernelContext& ctx) override {
    if (same_) return ctx.SetOutputFromInput(0, 0);
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.shape(), &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchCast(from_, to_, x.raw_data(), out.raw_data(), x.num_elements(),
                                   NativeStream(ctx.stream())),
                        ctx);
  }

 private:
  ElementType from_ = ElementType::kFloat;
  ElementType to_ = ElementType::kFloat;
  bool same_ = false;
  bool truncate_ = false;
};

// ---- Shape arguments in host memory -----------------------------------------------------------

// The int32 or int64 vector `view` (host memory) as dims.
Status ReadDims(const TensorView& view, const char* what, std::vector<int64_t>* dims) {
  if (view.rank() != 1) {
    return sdk::InvalidArgument(what, " must be a vector, not a tensor of shape ",
                                view.shape().DebugString());
  }
  *dims = ReadIndexValues(view);
  return sdk::OkStatus();
}

// ---- Fill ---------------------------------------------------------------------------------

class FillKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView dims_view;
    TensorView value;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &dims_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &value));
    if (value.rank() != 0) {
      return sdk::InvalidArgument("value must be a scalar, got shape ",
                                  value.shape().DebugString());
    }
    std::vector<int64_t> dims;
    TESSERA_SDK_RETURN_IF_ERROR(ReadDims(dims_view, "dims", &dims));
    if (dims.size() > static_cast<size_t>(Shape::kMaxRank)) {
      return sdk::InvalidArgument("dims has ", dims.size(), " entries, more than ",
                                  Shape::kMaxRank);
    }
    Shape shape;
    for (int64_t d : dims) {
      if (d < 0) return sdk::InvalidArgument("dims must be non-negative, got ", d);
      shape.AddDim(d);
    }
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(value.dtype(), "value", &type));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(LaunchFill(type, value.raw_data(), out.raw_data(), shape.num_elements(),
                                   NativeStream(ctx.stream())),
                        ctx);
  }
};

// ---- BiasAdd ------------------------------------------------------------------------------

class BiasAddKernel : public sdk::Kernel {
 public:
  explicit BiasAddKernel(KernelConstruction& ctx) : channels_first_(ReadChannelsFirst(ctx)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView bias;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &bias));
    if (x.rank() < 2) {
      return sdk::InvalidArgument("Input tensor must be at least 2D: ", x.shape().DebugString());
    }
    if (bias.rank() != 1) {
      return sdk::InvalidArgument("Biases must be 1D: ", bias.shape().DebugString());
    }
    const int channel_dim = channels_first_ ? 1 : x.rank() - 1;
    if (x.dim(channel_dim) != bias.dim(0)) {
      return sdk::InvalidArgument(
          "Must provide as many biases as the channel dimension of the "
          "input tensor: ",
          bias.shape().DebugString(), " vs. ", x.shape().DebugString());
    }
    // The bias as a broadcast operand: [C] for NHWC, [C, 1, ..., 1] for NCHW.
    Shape bias_shape;
    bias_shape.AddDim(bias.dim(0));
    for (int d = channel_dim + 1; d < x.rank(); ++d) bias_shape.AddDim(1);
    ElementType type;
    TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(x.dtype(), "the input", &type));
    Shape shape;
    BroadcastPlan plan;
    TESSERA_SDK_RETURN_IF_ERROR(MakeBroadcastPlan(x.shape(), bias_shape, &shape, &plan));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    return Enqueued(
        LaunchBinary(BinaryOp::kAdd, type, x.raw_data(), bias.raw_data(), out.raw_data(),
                     shape.num_elements(), plan, NativeStream(ctx.stream())),
        ctx);
  }

 private:
  bool channels_first_ = false;
};

// ---- Const --------------------------------------------------------------------------------

// Runs once per executor (constant outputs): the value goes to the device before Compute
// returns, so nothing queued refers to the kernel's own copy of the attribute.
class ConstKernel : public sdk::Kernel {
 public:
  explicit ConstKernel(KernelConstruction& ctx) {
    TSR_DataType dtype = TSR_DTYPE_INVALID;
    ctx.SetStatus(ctx.GetAttr("value", &value_));
    ctx.SetStatus(ctx.GetAttr("dtype", &dtype));
    if (ctx.ok() && value_.dtype() != dtype) {
      ctx.SetStatus(sdk::InvalidArgument("Type mismatch between value (",
                                         sdk::DataTypeName(value_.dtype()), ") and dtype (",
                                         sdk::DataTypeName(dtype), ")"));
    }
    if (!ctx.ok()) return;
    const auto* bytes = static_cast<const char*>(value_.raw_data());
    bytes_.assign(bytes, bytes + value_.byte_size());
    shape_ = value_.shape();
  }

  Status Compute(KernelContext& ctx) override {
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape_, &out));
    if (out.byte_size() != bytes_.size()) {
      return sdk::InvalidArgument("value of Const node '", ctx.node_name(), "' holds ",
                                  bytes_.size(), " bytes, expected ", out.byte_size());
    }
    if (bytes_.empty()) return sdk::OkStatus();
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    gpuStream_t stream = NativeStream(ctx.stream());
    gpuError_t error =
        gpuMemcpyAsync(out.raw_data(), bytes_.data(), bytes_.size(), gpuMemcpyHostToDevice, stream);
    if (error == gpuSuccess) error = gpuStreamSynchronize(stream);
    return Enqueued(error, ctx);
  }

 private:
  TensorView value_;
  Shape shape_;
  std::vector<char> bytes_;
};

// ---- Buffer-sharing ops -----------------------------------------------------------------------

class IdentityKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override { return ctx.SetOutputFromInput(0, 0); }
};

class ReshapeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView shape_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &shape_view));
    std::vector<int64_t> dims;
    TESSERA_SDK_RETURN_IF_ERROR(ReadDims(shape_view, "shape", &dims));
    if (dims.size() > static_cast<size_t>(Shape::kMaxRank)) {
      return sdk::InvalidArgument("shape has ", dims.size(), " entries, more than ",
                                  Shape::kMaxRank);
    }
    int unknown = -1;
    int64_t product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        if (unknown >= 0) {
          return sdk::InvalidArgument("Only one input size may be -1, not both ", unknown, " and ",
                                      i);
        }
        unknown = static_cast<int>(i);
      } else if (dims[i] < 0) {
        return sdk::InvalidArgument("Size ", i, " must be non-negative, not ", dims[i]);
      } else {
        product *= dims[i];
      }
    }
    const int64_t n = x.num_elements();
    if (unknown >= 0) {
      if (product == 0 || n % product != 0) {
        return sdk::InvalidArgument("Input to reshape is a tensor with ", n,
                                    " values, but the requested shape requires a multiple of ",
                                    product);
      }
      dims[unknown] = n / product;
    } else if (product != n) {
      return sdk::InvalidArgument("Input to reshape is a tensor with ", n,
                                  " values, but the requested shape has ", product);
    }
    Shape shape;
    for (int64_t d : dims) shape.AddDim(d);
    return ctx.SetOutputFromInput(0, 0, shape);
  }
};

class ExpandDimsKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView dim_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &dim_view));
    if (dim_view.num_elements() != 1) {
      return sdk::InvalidArgument("'dim' must be a tensor with a single value");
    }
    int64_t dim = ReadIndexValues(dim_view)[0];
    const int rank = x.rank();
    if (dim < -1 - rank || dim > rank) {
      return sdk::InvalidArgument("Tried to expand dim index ", dim, " for tensor with ", rank,
                                  " dimensions.");
    }
    if (rank >= Shape::kMaxRank) {
      return sdk::InvalidArgument("cannot expand a tensor of rank ", rank, " past rank ",
                                  Shape::kMaxRank);
    }
    if (dim < 0) dim += rank + 1;
    Shape shape = x.shape();
    shape.InsertDim(static_cast<int>(dim), 1);
    return ctx.SetOutputFromInput(0, 0, shape);
  }
};

class SqueezeKernel : public sdk::Kernel {
 public:
  explicit SqueezeKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("squeeze_dims")) ctx.SetStatus(ctx.GetAttr("squeeze_dims", &axes_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    const int rank = x.rank();
    std::vector<bool> drop(rank, false);
    for (int64_t axis : axes_) {
      if (axis < -rank || axis >= rank) {
        return sdk::InvalidArgument("Tried to squeeze dim index ", axis, " for tensor with ", rank,
                                    " dimensions.");
      }
      const int64_t d = axis < 0 ? axis + rank : axis;
      if (x.dim(static_cast<int>(d)) != 1) {
        return sdk::InvalidArgument("Can not squeeze dim[", d, "], expected a dimension of 1, got ",
                                    x.dim(static_cast<int>(d)));
      }
      drop[d] = true;
    }
    Shape shape;
    for (int d = 0; d < rank; ++d) {
      const bool squeezed = axes_.empty() ? x.dim(d) == 1 : drop[d];
      if (!squeezed) shape.AddDim(x.dim(d));
    }
    return ctx.SetOutputFromInput(0, 0, shape);
  }

 private:
  std::vector<int64_t> axes_;
};

template <BinaryOp OP>
Status RegisterBinary(TSR_Registrar* registrar, const char* op,
                      const std::vector<TSR_DataType>& types) {
  return sdk::RegisterKernel<BinaryKernel<OP>>(registrar, op, kDeviceType, {{"T", types}});
}

template <UnaryOp OP>
Status RegisterUnary(TSR_Registrar* registrar, const char* op,
                     const std::vector<TSR_DataType>& types) {
  return sdk::RegisterKernel<UnaryKernel<OP>>(registrar, op, kDeviceType, {{"T", types}});
}

}  // namespace

Status RegisterElementwiseKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kAdd>(registrar, "AddV2", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kAdd>(registrar, "Add", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kSub>(registrar, "Sub", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kMul>(registrar, "Mul", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kDiv>(registrar, "RealDiv", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kMaximum>(registrar, "Maximum", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kMinimum>(registrar, "Minimum", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kSquaredDifference>(registrar, "SquaredDifference", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kLess>(registrar, "Less", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kLessEqual>(registrar, "LessEqual", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kGreater>(registrar, "Greater", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kGreaterEqual>(registrar, "GreaterEqual", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kEqual>(registrar, "Equal", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterBinary<BinaryOp::kNotEqual>(registrar, "NotEqual", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kReluGrad>(registrar, "ReluGrad", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kRelu6Grad>(registrar, "Relu6Grad", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kSigmoidGrad>(registrar, "SigmoidGrad", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterBinary<BinaryOp::kTanhGrad>(registrar, "TanhGrad", FloatingTypes()));

  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kNeg>(registrar, "Neg", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kAbs>(registrar, "Abs", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kSquare>(registrar, "Square", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kSqrt>(registrar, "Sqrt", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kRsqrt>(registrar, "Rsqrt", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterUnary<UnaryOp::kReciprocal>(registrar, "Reciprocal", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kExp>(registrar, "Exp", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kLog>(registrar, "Log", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kTanh>(registrar, "Tanh", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kSigmoid>(registrar, "Sigmoid", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kRelu>(registrar, "Relu", NumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kRelu6>(registrar, "Relu6", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kElu>(registrar, "Elu", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kSelu>(registrar, "Selu", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterUnary<UnaryOp::kLeakyRelu>(registrar, "LeakyRelu", FloatingTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterUnary<UnaryOp::kSoftplus>(registrar, "Softplus", FloatingTypes()));

  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<CastKernel>(registrar, "Cast", kDeviceType,
                                                              {{"SrcT", ElementTypes()}, {"DstT", ElementTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FillKernel>(
      registrar, "Fill", kDeviceType, {{"T", ElementTypes()}, {"index_type", IndexTypes()}}, 0, 0, {"dims"}));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<BiasAddKernel>(registrar, "BiasAdd", kDeviceType, {{"T", NumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<ConstKernel>(registrar, "Const", kDeviceType, {{"dtype", ElementTypes()}},
                                       kCheap | TSR_KERNEL_FLAG_CONSTANT_OUTPUTS));
  for (const char* op : {"Identity", "Snapshot", "StopGradient"}) {
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<IdentityKernel>(registrar, op, kDeviceType,
                                                                    {{"T", FixedSizeTypes()}}, kCheap));
  }
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ReshapeKernel>(
      registrar, "Reshape", kDeviceType, {{"T", FixedSizeTypes()}, {"Tshape", IndexTypes()}}, kCheap, 0,
      {"shape"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ExpandDimsKernel>(
      registrar, "ExpandDims", kDeviceType, {{"T", FixedSizeTypes()}, {"Tdim", IndexTypes()}}, kCheap, 0,
      {"dim"}));
  return sdk::RegisterKernel<SqueezeKernel>(registrar, "Squeeze", kDeviceType, {{"T", FixedSizeTypes()}},
                                            kCheap);
}

}  // namespace tessera::gpu
