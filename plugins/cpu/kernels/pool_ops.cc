// MaxPool and MaxPoolV2 (float, double, int32, int64) and AvgPool (float, double) on CPU, NHWC and
// NCHW: output rows of each image sharded over the host's pool; AvgPool divides by the number of
// window elements inside the input (SAME padding is not counted), MaxPool also pools over the
// depth dimension alone as TensorFlow's CPU kernel does.
#include <algorithm>
#include <limits>
#include <vector>

#include "plugins/cpu/kernels/pooling.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Spatial pooling: out = reduce over the valid part of each window, per channel. Reducer has
// Init(), Add(acc, value) and Finish(acc, count).
template <typename T, typename Reducer>
void SpatialPool(KernelContext& ctx, const PoolGeometry& g, const T* in, T* out) {
  const int64_t cost =
      CostPerUnit(static_cast<double>(g.out_cols) * static_cast<double>(g.depth) *
                  static_cast<double>(g.window_rows) * static_cast<double>(g.window_cols));
  ctx.ParallelFor(g.batch * g.out_rows, cost, [&](int64_t begin, int64_t end) {
    std::vector<T> acc(static_cast<size_t>(g.depth));
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t n = unit / g.out_rows;
      const int64_t r = unit % g.out_rows;
      for (int64_t c = 0; c < g.out_cols; ++c) {
        std::fill(acc.begin(), acc.end(), Reducer::Init());
        for (int64_t ir = g.RowBegin(r); ir < g.RowEnd(r); ++ir) {
          for (int64_t ic = g.ColBegin(c); ic < g.ColEnd(c); ++ic) {
            const T* src = in + g.InputOffset(n, ir, ic);
            for (int64_t d = 0; d < g.depth; ++d) Reducer::Add(acc[d], src[d * g.in_depth_stride]);
          }
        }
        const int64_t count = (g.RowEnd(r) - g.RowBegin(r)) * (g.ColEnd(c) - g.ColBegin(c));
        T* dst = out + g.OutputOffset(n, r, c);
        for (int64_t d = 0; d < g.depth; ++d) {
          dst[d * g.out_depth_stride] = Reducer::Finish(acc[d], count);
        }
      }
    }
  });
}

template <typename T>
struct MaxReducer {
  static T Init() { return std::numeric_limits<T>::lowest(); }
  // TensorFlow's cwiseMax: a NaN never replaces the running maximum.
  static void Add(T& acc, T value) {
    if (acc < value) acc = value;
  }
  static T Finish(T acc, int64_t) { return acc; }
};

template <typename T>
struct MeanReducer {
  static T Init() { return T(0); }
  static void Add(T& acc, T value) { acc += value; }
  static T Finish(T acc, int64_t count) { return acc / static_cast<T>(count); }
};

// Whether `attrs` pools over the depth dimension alone (TensorFlow's CPU kernel pools over
// depth or over rows and columns, never both).
Status CheckDepthwise(const PoolAttrs& attrs, bool* depthwise) {
  const int64_t depth_window = attrs.ksize[attrs.depth_dim()];
  const int64_t depth_stride = attrs.strides[attrs.depth_dim()];
  *depthwise = depth_window != 1 || depth_stride != 1;
  if (!*depthwise) return OkStatus();
  if (attrs.ksize[attrs.rows_dim()] != 1 || attrs.ksize[attrs.cols_dim()] != 1) {
    return sdk::Unimplemented(
        "MaxPooling supports exactly one of pooling across depth or pooling across "
        "width/height.");
  }
  if (depth_stride != depth_window) {
    return sdk::Unimplemented(
        "Depthwise max pooling requires the depth window to equal the depth stride");
  }
  return OkStatus();
}

// MaxPool, or MaxPoolV2 (`kV2`: ksize and strides are inputs 1 and 2).
template <bool kV2>
class MaxPoolKernel : public sdk::Kernel {
 public:
  explicit MaxPoolKernel(KernelConstruction& ctx) {
    attrs_.Parse(ctx, /*allow_explicit=*/!kV2, /*window_attrs=*/!kV2);
    if (!ctx.ok() || kV2) return;
    ctx.SetStatus(CheckDepthwise(attrs_, &depthwise_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    PoolAttrs attrs = attrs_;
    bool depthwise = depthwise_;
    if constexpr (kV2) {
      TensorView ksize;
      TensorView strides;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &ksize));
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &strides));
      TESSERA_SDK_RETURN_IF_ERROR(attrs.SetWindow(ksize, strides));
      TESSERA_SDK_RETURN_IF_ERROR(CheckDepthwise(attrs, &depthwise));
    }
    PoolGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs, input.shape()));
    if (depthwise) return DepthwiseMaxPool(ctx, attrs, input, g);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, g.OutputShape(attrs.channels_first), &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      SpatialPool<T, MaxReducer<T>>(ctx, g, input.data<const T>(), out.data<T>());
      return OkStatus();
    });
  }

 private:
  // ksize is 1 over rows and columns: each output channel is the maximum of `depth_window`
  // consecutive input channels at the same position.
  static Status DepthwiseMaxPool(KernelContext& ctx, const PoolAttrs& attrs,
                                 const TensorView& input, const PoolGeometry& g) {
    const int64_t window = attrs.ksize[attrs.depth_dim()];
    if (g.depth % window != 0) {
      return sdk::Unimplemented(
          "Depthwise max pooling requires the depth window to evenly divide the input depth");
    }
    PoolGeometry out_g = g;
    out_g.depth = g.depth / window;
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, out_g.InputShape(attrs.channels_first), &out));
    if (out.num_elements() == 0) return OkStatus();
    const int64_t positions = g.batch * g.rows * g.cols;
    const int64_t spatial = g.rows * g.cols;
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = input.data<const T>();
      T* o = out.data<T>();
      ctx.ParallelFor(positions, g.depth, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const int64_t n = p / spatial;
          const int64_t s = p % spatial;
          for (int64_t od = 0; od < out_g.depth; ++od) {
            T acc = MaxReducer<T>::Init();
            for (int64_t k = 0; k < window; ++k) {
              const int64_t d = od * window + k;
              MaxReducer<T>::Add(
                  acc,
                  in[attrs.channels_first ? (n * g.depth + d) * spatial + s : p * g.depth + d]);
            }
            o[attrs.channels_first ? (n * out_g.depth + od) * spatial + s : p * out_g.depth + od] =
                acc;
          }
        }
      });
      return OkStatus();
    });
  }

  PoolAttrs attrs_;
  bool depthwise_ = false;
};

class AvgPoolKernel : public sdk::Kernel {
 public:
  explicit AvgPoolKernel(KernelConstruction& ctx) {
    attrs_.Parse(ctx, /*allow_explicit=*/false);
    if (!ctx.ok()) return;
    if (attrs_.ksize[attrs_.depth_dim()] != 1 || attrs_.strides[attrs_.depth_dim()] != 1) {
      ctx.SetStatus(sdk::Unimplemented("Non-spatial pooling is not yet supported. Volunteers? :)"));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    PoolGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs_, input.shape()));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, g.OutputShape(attrs_.channels_first), &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      SpatialPool<T, MeanReducer<T>>(ctx, g, input.data<const T>(), out.data<T>());
      return OkStatus();
    });
  }

 private:
  PoolAttrs attrs_;
};

}  // namespace

Status RegisterPoolKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MaxPoolKernel<false>>(
      registrar, "MaxPool", kCpu, {{"T", RealNumberTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MaxPoolKernel<true>>(
      registrar, "MaxPoolV2", kCpu, {{"T", RealNumberTypes()}}, 0, 0, {"ksize", "strides"}));
  return sdk::RegisterKernel<AvgPoolKernel>(registrar, "AvgPool", kCpu, {{"T", FloatingTypes()}});
}

}  // namespace tessera::cpu
