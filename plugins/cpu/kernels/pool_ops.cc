// MaxPool and MaxPoolV2 (float, double, int32, int64) and AvgPool (float, double) on CPU, NHWC and
// NCHW: output rows sharded over the host's pool (NHWC: vectorised over the channels; NCHW: per
// channel plane); AvgPool divides by the number of window elements inside the input (SAME padding
// is not counted), MaxPool also pools over the depth dimension alone as TensorFlow's CPU kernel
// does.
#include <algorithm>
#include <limits>
#include <vector>

#include "plugins/cpu/kernels/pooling.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Spatial pooling: out = reduce over the valid part of each window, per channel. Reducer has
// Init(), Add(acc, value) and Finish(acc, count).
//
// NHWC: a shard unit is one output row of one image; each output position reduces the window's
// channel vectors, which are contiguous, into the output's (a vectorised loop per window element).
template <typename T, typename Reducer>
void SpatialPoolChannelsLast(KernelContext& ctx, const PoolGeometry& g, const T* in, T* out) {
  const int64_t depth = g.depth;
  const int64_t cost =
      CostPerUnit(static_cast<double>(g.out_cols) * static_cast<double>(depth) *
                  static_cast<double>(g.window_rows) * static_cast<double>(g.window_cols));
  ctx.ParallelFor(g.batch * g.out_rows, cost, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t n = unit / g.out_rows;
      const int64_t r = unit % g.out_rows;
      for (int64_t c = 0; c < g.out_cols; ++c) {
        T* dst = out + g.OutputOffset(n, r, c);
        std::fill(dst, dst + depth, Reducer::Init());
        for (int64_t ir = g.RowBegin(r); ir < g.RowEnd(r); ++ir) {
          for (int64_t ic = g.ColBegin(c); ic < g.ColEnd(c); ++ic) {
            const T* src = in + g.InputOffset(n, ir, ic);
            for (int64_t d = 0; d < depth; ++d) dst[d] = Reducer::Add(dst[d], src[d]);
          }
        }
        const int64_t count = (g.RowEnd(r) - g.RowBegin(r)) * (g.ColEnd(c) - g.ColBegin(c));
        for (int64_t d = 0; d < depth; ++d) dst[d] = Reducer::Finish(dst[d], count);
      }
    }
  });
}

// NCHW: a shard unit is one output row of one channel's plane. Each window row and column
// offset is one pass over the output columns whose windows reach inside the input, so the inner
// loop is a strided sweep without bounds checks.
template <typename T, typename Reducer>
void SpatialPoolChannelsFirst(KernelContext& ctx, const PoolGeometry& g, const T* in, T* out) {
  const int64_t cost = CostPerUnit(static_cast<double>(g.out_cols) *
                                   static_cast<double>(g.window_rows) *
                                   static_cast<double>(g.window_cols));
  const int64_t in_plane = g.rows * g.cols;
  const int64_t out_plane = g.out_rows * g.out_cols;
  // Only window column offsets k that some output column's window places inside the input are
  // visited (at most cols + pad_left of them, however wide the window): k in [k_begin, k_end).
  const int64_t k_begin =
      std::max<int64_t>(0, g.pad_left - (g.out_cols - 1) * g.stride_cols);
  const int64_t k_end = std::min(g.window_cols, g.cols + g.pad_left);
  // Per output column, its window's valid width.
  std::vector<int64_t> widths(static_cast<size_t>(g.out_cols));
  for (int64_t c = 0; c < g.out_cols; ++c) widths[c] = g.ColEnd(c) - g.ColBegin(c);
  ctx.ParallelFor(g.batch * g.depth * g.out_rows, cost, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t plane = unit / g.out_rows;
      const int64_t r = unit % g.out_rows;
      const T* src = in + plane * in_plane;
      T* dst = out + plane * out_plane + r * g.out_cols;
      std::fill(dst, dst + g.out_cols, Reducer::Init());
      const int64_t row_begin = g.RowBegin(r);
      const int64_t row_end = g.RowEnd(r);
      for (int64_t ir = row_begin; ir < row_end; ++ir) {
        for (int64_t k = k_begin; k < k_end; ++k) {
          // Output columns [first, last) read input column c * stride + shift, inside the input.
          const T* row = src + ir * g.cols;
          const int64_t stride = g.stride_cols;
          const int64_t shift = k - g.pad_left;
          const int64_t lo = -shift;                 // c * stride >= lo
          const int64_t hi = g.cols - 1 - shift;     // c * stride <= hi
          const int64_t first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
          const int64_t last = hi < 0 ? 0 : std::min(g.out_cols, hi / stride + 1);
          for (int64_t c = first; c < last; ++c) {
            dst[c] = Reducer::Add(dst[c], row[c * stride + shift]);
          }
        }
      }
      const int64_t height = row_end - row_begin;
      for (int64_t c = 0; c < g.out_cols; ++c) dst[c] = Reducer::Finish(dst[c], height * widths[c]);
    }
  });
}

template <typename T, typename Reducer>
void SpatialPool(KernelContext& ctx, const PoolGeometry& g, const T* in, T* out) {
  // Channels contiguous in input and output (NHWC; or NCHW with one pixel in and out).
  if (g.in_depth_stride == 1 && g.out_depth_stride == 1) {
    SpatialPoolChannelsLast<T, Reducer>(ctx, g, in, out);
  } else {
    SpatialPoolChannelsFirst<T, Reducer>(ctx, g, in, out);
  }
}

template <typename T>
struct MaxReducer {
  static T Init() { return std::numeric_limits<T>::lowest(); }
  // TensorFlow's cwiseMax: a NaN never replaces the running maximum.
  static T Add(T acc, T value) { return acc < value ? value : acc; }
  static T Finish(T acc, int64_t) { return acc; }
};

template <typename T>
struct MeanReducer {
  static T Init() { return T(0); }
  static T Add(T acc, T value) { return acc + value; }
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
              acc = MaxReducer<T>::Add(
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
