// Const, Identity, NoOp, Placeholder and PlaceholderWithDefault on CPU.
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Copies the `value` attr at construction (the attr view lives only until then) and writes it
// to a fresh output; the host may run it once per executor (TSR_KERNEL_FLAG_CONSTANT_OUTPUTS).
class ConstKernel : public sdk::Kernel {
 public:
  explicit ConstKernel(KernelConstruction& ctx) {
    TensorView value;
    TSR_DataType dtype = TSR_DTYPE_INVALID;
    ctx.SetStatus(ctx.GetAttr("value", &value));
    ctx.SetStatus(ctx.GetAttr("dtype", &dtype));
    if (!ctx.ok()) return;
    if (value.dtype() != dtype) {
      ctx.SetStatus(sdk::InvalidArgument("Type mismatch between value (",
                                         sdk::DataTypeName(value.dtype()), ") and dtype (",
                                         sdk::DataTypeName(dtype), ")"));
      return;
    }
    if (value.rank() > Shape::kMaxRank) {
      ctx.SetStatus(sdk::InvalidArgument("value of Const node '", ctx.node_name(), "' has rank ",
                                         value.rank(), ", more than the maximum ",
                                         Shape::kMaxRank));
      return;
    }
    shape_ = value.shape();
    const size_t expected =
        static_cast<size_t>(shape_.num_elements()) * sdk::DataTypeSize(value.dtype());
    if (value.byte_size() != expected) {
      ctx.SetStatus(sdk::InvalidArgument("value of Const node '", ctx.node_name(), "' holds ",
                                         value.byte_size(), " bytes, expected ", expected, " for ",
                                         sdk::DataTypeName(dtype), " ", shape_.DebugString()));
      return;
    }
    const auto* bytes = static_cast<const char*>(value.raw_data());
    if (expected != 0) bytes_.assign(bytes, bytes + expected);
  }

  Status Compute(KernelContext& ctx) override {
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape_, &out));
    if (!bytes_.empty()) std::memcpy(out.raw_data(), bytes_.data(), bytes_.size());
    return OkStatus();
  }

 private:
  Shape shape_;
  std::vector<char> bytes_;
};

// Identity and PlaceholderWithDefault: the output is the input's buffer.
class ForwardKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override { return ctx.SetOutputFromInput(0, 0); }
};

class NoOpKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& /*ctx*/) override { return OkStatus(); }
};

// Fed placeholders never run; one that runs was not fed (TensorFlow's message).
class PlaceholderKernel : public sdk::Kernel {
 public:
  explicit PlaceholderKernel(KernelConstruction& ctx) {
    TSR_DataType dtype = TSR_DTYPE_INVALID;
    if (!ctx.GetAttr("dtype", &dtype).ok()) dtype = ctx.output_type(0);
    message_ = sdk::StrCat("You must feed a value for placeholder tensor '", ctx.node_name(),
                           "' with dtype ", sdk::DataTypeName(dtype));
    TSR_AttrValue shape;
    if (ctx.GetAttrValue("shape", &shape).ok() && shape.type == TSR_ATTR_TYPE_SHAPE &&
        shape.shape_rank > 0) {
      std::string dims = "[";
      for (int32_t i = 0; i < shape.shape_rank; ++i) {
        if (i > 0) dims += ",";
        dims += shape.shape_dims[i] < 0 ? std::string("?") : std::to_string(shape.shape_dims[i]);
      }
      message_ += sdk::StrCat(" and shape ", dims, "]");
    }
  }

  Status Compute(KernelContext& /*ctx*/) override { return sdk::InvalidArgument(message_); }

 private:
  std::string message_;
};

}  // namespace

Status RegisterConstantKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<ConstKernel>(registrar, "Const", kCpu, {{"dtype", AllTypes()}},
                                       kCheap | TSR_KERNEL_FLAG_CONSTANT_OUTPUTS));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<ForwardKernel>(registrar, "Identity", kCpu, {{"T", AllTypes()}}, kCheap));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ForwardKernel>(
      registrar, "PlaceholderWithDefault", kCpu, {{"dtype", AllTypes()}}, kCheap));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<NoOpKernel>(registrar, "NoOp", kCpu, {}, kCheap));
  return sdk::RegisterKernel<PlaceholderKernel>(registrar, "Placeholder", kCpu,
                                                {{"dtype", AllTypes()}}, kCheap);
}

}  // namespace tessera::cpu
