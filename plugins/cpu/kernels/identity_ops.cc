// IdentityN, StopGradient, PreventGradient, Snapshot and OnesLike on CPU (every fixed-size
// dtype): outputs that share their input's buffer, a copy into a buffer of its own, and a fill
// with the dtype's one.
#include <cstdint>
#include <cstring>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class IdentityNKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    if (ctx.num_inputs() != ctx.num_outputs()) {
      return sdk::InvalidArgument("IdentityN node '", ctx.node_name(), "' has ", ctx.num_inputs(),
                                  " inputs but ", ctx.num_outputs(), " outputs");
    }
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.SetOutputFromInput(i, i));
    }
    return OkStatus();
  }
};

class StopGradientKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override { return ctx.SetOutputFromInput(0, 0); }
};

// The output may not alias a buffer anyone else still reads: it reuses the input only when the
// host hands it over, and copies it otherwise.
class SnapshotKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    int forwarded = -1;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out, &forwarded));
    if (forwarded != 0 && out.byte_size() > 0) {
      std::memcpy(out.raw_data(), input.raw_data(), out.byte_size());
    }
    return OkStatus();
  }
};

// The bytes of the value one in `dtype` (false for bool is zero, true is one).
bool OneOf(TSR_DataType dtype, unsigned char* bytes) {
  std::memset(bytes, 0, 16);
  switch (dtype) {
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_COMPLEX64: {
      const float one = 1.0f;
      std::memcpy(bytes, &one, sizeof(one));
      return true;
    }
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_COMPLEX128: {
      const double one = 1.0;
      std::memcpy(bytes, &one, sizeof(one));
      return true;
    }
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16: {
      const uint16_t one = dtype == TSR_DTYPE_HALF ? 0x3C00 : 0x3F80;
      std::memcpy(bytes, &one, sizeof(one));
      return true;
    }
    case TSR_DTYPE_BOOL:
    case TSR_DTYPE_INT8:
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_UINT32:
    case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT64: {
      const uint64_t one = 1;  // little-endian: the low byte comes first for every width
      std::memcpy(bytes, &one, sizeof(one));
      return true;
    }
    default:
      return false;
  }
}

class OnesLikeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    alignas(16) unsigned char one[16];
    if (!OneOf(input.dtype(), one)) return UnsupportedType(ctx, input.dtype());
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out));
    FillWithElement(ctx, out.raw_data(), out.num_elements(), sdk::DataTypeSize(out.dtype()), one);
    return OkStatus();
  }
};

}  // namespace

Status RegisterIdentityKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<IdentityNKernel>(registrar, "IdentityN", kCpu,
                                                               {{"T", AllTypes()}}, kCheap));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<StopGradientKernel>(registrar, "StopGradient", kCpu,
                                                                  {{"T", AllTypes()}}, kCheap));
  // PreventGradient differs from StopGradient only in its gradient (an error).
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<StopGradientKernel>(
      registrar, "PreventGradient", kCpu, {{"T", AllTypes()}}, kCheap));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<SnapshotKernel>(registrar, "Snapshot", kCpu, {{"T", AllTypes()}}));
  return sdk::RegisterKernel<OnesLikeKernel>(registrar, "OnesLike", kCpu, {{"T", AllTypes()}});
}

}  // namespace tessera::cpu
