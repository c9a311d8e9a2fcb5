// BiasAdd on CPU (float, double, int32, int64) for NHWC (bias on the last dimension) and NCHW
// (bias on dimension 1), as rows of the input sharded over the host's pool: in NHWC a row is one
// position's channels plus the bias vector, in NCHW one channel's plane plus one bias value (both
// vectorised loops). BiasAddV1, which has no data_format attr, is the NHWC case.
#include <string>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class BiasAddKernel : public sdk::Kernel {
 public:
  explicit BiasAddKernel(KernelConstruction& ctx) {
    std::string data_format = "NHWC";
    if (ctx.HasAttr("data_format")) ctx.SetStatus(ctx.GetAttr("data_format", &data_format));
    if (data_format == "NCHW") {
      channels_first_ = true;
    } else if (data_format != "NHWC") {
      ctx.SetStatus(
          sdk::InvalidArgument("Invalid data format: '", data_format, "', expected NHWC or NCHW"));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView bias;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &bias));
    if (input.rank() < 2) {
      return sdk::InvalidArgument("Input tensor must be at least 2D: ",
                                  input.shape().DebugString());
    }
    if (bias.rank() != 1) {
      return sdk::InvalidArgument("Biases must be 1D: ", bias.shape().DebugString());
    }
    const int channel_dim = channels_first_ ? 1 : input.rank() - 1;
    const int64_t channels = input.dim(channel_dim);
    if (bias.dim(0) != channels) {
      return sdk::InvalidArgument(
          "Must provide as many biases as the last dimension of the input tensor: ",
          bias.shape().DebugString(), " vs. ", input.shape().DebugString());
    }
    // The input is [outer, channels, inner].
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < input.rank(); ++d) inner *= input.dim(d);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    const int64_t outer = out.num_elements() / channels / inner;
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = input.data<const T>();
      const T* b = bias.data<const T>();
      T* o = out.data<T>();
      if (inner == 1) {
        // Channels last: every row of `channels` values adds the whole bias vector, in long
        // runs of rows. `o` may be `in` (a forwarded input), never a partial overlap.
        ForRowRuns(ctx, b, outer, channels, 1, [&](int64_t first, int64_t count, const T* run) {
          for (int64_t k = 0; k < count; ++k) o[first + k] = WrappingAdd(in[first + k], run[k]);
        });
        return OkStatus();
      }
      // Channels first: each run of `inner` values adds one bias value.
      ctx.ParallelFor(outer * channels, inner, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T value = b[r % channels];
          const T* src = in + r * inner;
          T* dst = o + r * inner;
          for (int64_t k = 0; k < inner; ++k) dst[k] = WrappingAdd(src[k], value);
        }
      });
      return OkStatus();
    });
  }

 private:
  bool channels_first_ = false;
};

}  // namespace

Status RegisterBiasAddKernels(TSR_Registrar* registrar) {
  for (const char* op : {"BiasAdd", "BiasAddV1"}) {
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BiasAddKernel>(
        registrar, op, kCpu, {{"T", RealNumberTypes()}}, TSR_KERNEL_FLAG_CHEAP));
  }
  return OkStatus();
}

}  // namespace tessera::cpu
