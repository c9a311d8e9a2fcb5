// BiasAddGrad on CPU (float, double, int32, int64): the sum of out_backprop over every dimension
// but the channel one (the last for NHWC, dimension 1 for NCHW).
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class BiasAddGradKernel : public sdk::Kernel {
 public:
  explicit BiasAddGradKernel(KernelConstruction& ctx) {
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
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &grad));
    if (grad.rank() < 2) {
      return sdk::InvalidArgument("Input tensor must be at least 2D: ", grad.shape().DebugString());
    }
    const int channel_dim = channels_first_ ? 1 : grad.rank() - 1;
    const int64_t channels = grad.dim(channel_dim);
    // The input is [outer, channels, inner].
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < grad.rank(); ++d) inner *= grad.dim(d);
    const int64_t outer = channels == 0 || inner == 0 ? 0 : grad.num_elements() / channels / inner;
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape({channels}), &out));
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, grad.dtype(), [&](auto tag) {
      using T = decltype(tag);
      // Floating sums accumulate in double; integer sums wrap as TensorFlow's do.
      using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
      const T* in = grad.data<const T>();
      T* o = out.data<T>();
      if (inner > 1) {
        // NCHW: each channel sums `outer` contiguous runs of `inner` values.
        ctx.ParallelFor(channels, outer * inner, [&](int64_t begin, int64_t end) {
          for (int64_t c = begin; c < end; ++c) {
            Acc sum = 0;
            for (int64_t n = 0; n < outer; ++n) {
              const T* run = in + (n * channels + c) * inner;
              for (int64_t k = 0; k < inner; ++k) sum = WrappingAdd(sum, static_cast<Acc>(run[k]));
            }
            o[c] = static_cast<T>(sum);
          }
        });
        return OkStatus();
      }
      // NHWC: blocks of rows sum into their own partial vectors, added up at the end.
      const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(outer, 4 * ctx.NumThreads()));
      std::vector<Acc> partial(static_cast<size_t>(blocks * channels), Acc(0));
      ctx.ParallelFor(blocks, (outer / blocks + 1) * channels, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          Acc* sums = partial.data() + b * channels;
          for (int64_t r = outer * b / blocks; r < outer * (b + 1) / blocks; ++r) {
            const T* row = in + r * channels;
            for (int64_t c = 0; c < channels; ++c) {
              sums[c] = WrappingAdd(sums[c], static_cast<Acc>(row[c]));
            }
          }
        }
      });
      for (int64_t c = 0; c < channels; ++c) {
        Acc sum = 0;
        for (int64_t b = 0; b < blocks; ++b) sum = WrappingAdd(sum, partial[b * channels + c]);
        o[c] = static_cast<T>(sum);
      }
      return OkStatus();
    });
  }

 private:
  bool channels_first_ = false;
};

}  // namespace

Status RegisterBiasAddGradKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<BiasAddGradKernel>(registrar, "BiasAddGrad", kCpu,
                                                {{"T", RealNumberTypes()}});
}

}  // namespace tessera::cpu
