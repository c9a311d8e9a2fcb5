// DepthwiseConv2dNative on CPU (float, double): a direct loop per output row on the host's pool,
// any strides (equal in rows and columns, as TensorFlow requires), dilations and paddings; NCHW
// through transposes to NHWC.
#include <algorithm>
#include <memory>

#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/gemm/parallel.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// output[b, oy, ox, c * multiplier + q] = sum over the window of
// input[b, iy, ix, c] * filter[kh, kw, c, q], summed in (kh, kw) order.
template <typename T>
void DepthwiseConvolve(const ConvGeometry& g, const T* input, const T* filter, T* output,
                       TSR_ThreadPool* pool) {
  const int64_t depth = g.in_depth;
  const int64_t out_depth = g.out_depth;
  const int64_t multiplier = depth == 0 ? 0 : out_depth / depth;
  const double work =
      2.0 * static_cast<double>(g.out_cols * g.filter_rows * g.filter_cols * out_depth);
  ParallelItems(pool, g.batch * g.out_rows, work, [&](int, int64_t item) {
    const int64_t b = item / g.out_rows;
    const int64_t oy = item % g.out_rows;
    T* out_row = output + item * g.out_cols * out_depth;
    std::fill(out_row, out_row + g.out_cols * out_depth, T(0));
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t iy = oy * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (iy < 0 || iy >= g.in_rows) continue;
      const T* in_line = input + (b * g.in_rows + iy) * g.in_cols * depth;
      for (int64_t ox = 0; ox < g.out_cols; ++ox) {
        T* out = out_row + ox * out_depth;
        for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
          const int64_t ix = ox * g.stride_cols - g.pad_left + kw * g.dilation_cols;
          if (ix < 0 || ix >= g.in_cols) continue;
          const T* in = in_line + ix * depth;
          const T* f = filter + (kh * g.filter_cols + kw) * out_depth;
          if (multiplier == 1) {
            for (int64_t c = 0; c < depth; ++c) out[c] += in[c] * f[c];
          } else {
            for (int64_t c = 0; c < depth; ++c) {
              const T v = in[c];
              for (int64_t q = 0; q < multiplier; ++q) {
                out[c * multiplier + q] += v * f[c * multiplier + q];
              }
            }
          }
        }
      }
    }
  });
}

class DepthwiseConv2dNativeKernel : public sdk::Kernel {
 public:
  explicit DepthwiseConv2dNativeKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadConvAttrs(ctx, /*depthwise=*/true, &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView filter;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &filter));
    ConvGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(ComputeDepthwiseGeometry(attrs_, input.shape(), filter.shape(), &g));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(
        0, attrs_.MakeShape(g.batch, g.out_rows, g.out_cols, g.out_depth), &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      TSR_ThreadPool* pool = ctx.thread_pool();
      const T* in = input.data<const T>();
      T* out = output.data<T>();
      std::unique_ptr<T[]> in_nhwc;
      std::unique_ptr<T[]> out_nhwc;
      if (attrs_.nchw) {
        in_nhwc.reset(new T[static_cast<size_t>(input.num_elements())]);
        out_nhwc.reset(new T[static_cast<size_t>(output.num_elements())]);
        NchwToNhwc(in, g.batch, g.in_depth, g.in_rows, g.in_cols, in_nhwc.get(), pool);
        in = in_nhwc.get();
        out = out_nhwc.get();
      }
      DepthwiseConvolve(g, in, filter.data<const T>(), out, pool);
      if (attrs_.nchw) {
        NhwcToNchw(out, g.batch, g.out_rows, g.out_cols, g.out_depth, output.data<T>(), pool);
      }
      return OkStatus();
    });
  }

 private:
  ConvAttrs attrs_;
};

}  // namespace

Status RegisterDepthwiseConvKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<DepthwiseConv2dNativeKernel>(registrar, "DepthwiseConv2dNative", kCpu,
                                                          {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
