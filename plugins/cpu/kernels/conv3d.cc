// Conv3DAttrs and Conv3DGeometry (TensorFlow's checks and messages) and the 3-D convolutions on
// the GEMM layer. Work is cut by shapes and the pool's size only, so results repeat bit for bit.
#include "plugins/cpu/kernels/conv3d.h"

#include <algorithm>
#include <memory>

#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/gemm/gemm.h"
#include "plugins/cpu/kernels/gemm/parallel.h"

namespace tessera::cpu {
namespace {

// Elements of the column buffer built before each product.
constexpr int64_t kColumnElements = int64_t{1} << 21;

// The output sizes and paddings of the three spatial dimensions.
Status SpatialGeometry(const Conv3DAttrs& attrs, Conv3DGeometry* g) {
  for (int i = 0; i < 3; ++i) {
    g->stride[i] = attrs.strides[attrs.spatial_dim(i)];
    g->dilation[i] = attrs.dilations[attrs.spatial_dim(i)];
    int64_t pad_after = 0;
    TESSERA_SDK_RETURN_IF_ERROR(WindowedOutputSize(g->in[i], g->filter[i], g->dilation[i],
                                                   g->stride[i], attrs.padding, &g->out[i],
                                                   &g->pad_before[i], &pad_after));
  }
  return OkStatus();
}

// Rows [r0, r1) of the im2col matrix: row r is the window of output pixel r (over all images),
// laid out [tap][in_depth] in the filter's DHWI order, zero where it leaves the input; row r goes
// to dst + (r - r0) * depth.
template <typename T>
void Im2Col(const Conv3DGeometry& g, const T* input, int64_t r0, int64_t r1, T* dst) {
  const int64_t depth = g.gemm_depth();
  const int64_t c = g.in_depth;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / g.out_pixels();
    const int64_t o2 = r % g.out[2];
    const int64_t o1 = (r / g.out[2]) % g.out[1];
    const int64_t o0 = (r / (g.out[2] * g.out[1])) % g.out[0];
    T* cell = dst + (r - r0) * depth;
    for (int64_t k0 = 0; k0 < g.filter[0]; ++k0) {
      const int64_t i0 = o0 * g.stride[0] - g.pad_before[0] + k0 * g.dilation[0];
      for (int64_t k1 = 0; k1 < g.filter[1]; ++k1) {
        const int64_t i1 = o1 * g.stride[1] - g.pad_before[1] + k1 * g.dilation[1];
        for (int64_t k2 = 0; k2 < g.filter[2]; ++k2, cell += c) {
          const int64_t i2 = o2 * g.stride[2] - g.pad_before[2] + k2 * g.dilation[2];
          if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || i2 < 0 || i2 >= g.in[2]) {
            std::fill(cell, cell + c, T(0));
            continue;
          }
          const T* src = input + (((b * g.in[0] + i0) * g.in[1] + i1) * g.in[2] + i2) * c;
          std::copy(src, src + c, cell);
        }
      }
    }
  }
}

// Adds the columns of image `b` (rows of its output pixels, laid out as Im2Col's) into the
// image's input gradient, which the caller has zeroed.
template <typename T>
void Col2Im(const Conv3DGeometry& g, const T* columns, T* image) {
  const int64_t c = g.in_depth;
  const T* cell = columns;
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
        for (int64_t k0 = 0; k0 < g.filter[0]; ++k0) {
          const int64_t i0 = o0 * g.stride[0] - g.pad_before[0] + k0 * g.dilation[0];
          for (int64_t k1 = 0; k1 < g.filter[1]; ++k1) {
            const int64_t i1 = o1 * g.stride[1] - g.pad_before[1] + k1 * g.dilation[1];
            for (int64_t k2 = 0; k2 < g.filter[2]; ++k2, cell += c) {
              const int64_t i2 = o2 * g.stride[2] - g.pad_before[2] + k2 * g.dilation[2];
              if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || i2 < 0 || i2 >= g.in[2]) {
                continue;
              }
              T* dst = image + ((i0 * g.in[1] + i1) * g.in[2] + i2) * c;
              for (int64_t d = 0; d < c; ++d) dst[d] += cell[d];
            }
          }
        }
      }
    }
  }
}

// Rows of the column buffer per chunk: at least one, at most `rows`.
int64_t ChunkRows(int64_t depth, int64_t rows) {
  return std::clamp<int64_t>(kColumnElements / std::max<int64_t>(depth, 1), 1,
                             std::max<int64_t>(rows, 1));
}

// Fills rows [r0, r1) of the column buffer over the pool.
template <typename T>
void Im2ColParallel(const Conv3DGeometry& g, const T* input, int64_t r0, int64_t r1, T* columns,
                    TSR_ThreadPool* pool) {
  constexpr int64_t kPiece = 64;
  const int64_t depth = g.gemm_depth();
  const int64_t pieces = (r1 - r0 + kPiece - 1) / kPiece;
  ParallelItems(pool, pieces, static_cast<double>(kPiece * depth), [&](int, int64_t piece) {
    const int64_t p0 = r0 + piece * kPiece;
    const int64_t p1 = std::min(r1, p0 + kPiece);
    Im2Col(g, input, p0, p1, columns + (p0 - r0) * depth);
  });
}

}  // namespace

Shape Conv3DAttrs::MakeShape(int64_t batch, const int64_t spatial[3], int64_t depth) const {
  return ncdhw ? Shape{batch, depth, spatial[0], spatial[1], spatial[2]}
               : Shape{batch, spatial[0], spatial[1], spatial[2], depth};
}

Status ReadConv3DAttrs(KernelConstruction& ctx, Conv3DAttrs* attrs) {
  std::string data_format = "NDHWC";
  if (ctx.HasAttr("data_format")) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  }
  if (data_format != "NDHWC" && data_format != "NCDHW") {
    return sdk::InvalidArgument("Invalid data format");
  }
  attrs->ncdhw = data_format == "NCDHW";
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->strides));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("padding", &attrs->padding));
  if (ctx.HasAttr("dilations")) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("dilations", &attrs->dilations));
  } else {
    attrs->dilations.assign(5, 1);
  }
  if (attrs->padding != "SAME" && attrs->padding != "VALID") {
    return sdk::InvalidArgument("Invalid padding: '", attrs->padding, "'");
  }
  if (attrs->strides.size() != 5) {
    return sdk::InvalidArgument("Sliding window strides field must specify 5 dimensions");
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("strides", attrs->strides));
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("dilations", attrs->dilations));
  const auto& s = attrs->strides;
  if (s[0] != 1 || s[attrs->depth_dim()] != 1) {
    return sdk::InvalidArgument(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  }
  for (int i = 0; i < 3; ++i) {
    if (s[attrs->spatial_dim(i)] <= 0) {
      return sdk::InvalidArgument("Spatial strides should be larger than 0.");
    }
  }
  const auto& d = attrs->dilations;
  if (d.size() != 5) {
    return sdk::InvalidArgument("Dilation rates field must specify 5 dimensions");
  }
  if (d[0] != 1 || d[attrs->depth_dim()] != 1) {
    return sdk::InvalidArgument(
        "Current implementation does not yet support dilation rates in the batch and depth "
        "dimensions.");
  }
  for (int i = 0; i < 3; ++i) {
    if (d[attrs->spatial_dim(i)] <= 0) {
      return sdk::InvalidArgument("Dilated rates should be larger than 0.");
    }
  }
  return OkStatus();
}

Status ComputeConv3DGeometry(const Conv3DAttrs& attrs, const Shape& input, const Shape& filter,
                             Conv3DGeometry* g) {
  if (input.rank() != 5) return sdk::InvalidArgument("input must be 5-dimensional");
  if (filter.rank() != 5) return sdk::InvalidArgument("filter must be 5-dimensional");
  *g = Conv3DGeometry();
  g->batch = input.dim(0);
  g->in_depth = input.dim(attrs.depth_dim());
  const int64_t filter_depth = filter.dim(3);
  g->out_depth = filter.dim(4);
  if (filter_depth == 0) return sdk::InvalidArgument("filter_depth must be non-zero");
  if (g->in_depth % filter_depth != 0) {
    return sdk::InvalidArgument("Input depth must be evenly divisible by filter depth: ",
                                g->in_depth, " vs ", filter_depth);
  }
  if (filter_depth != g->in_depth) {
    return sdk::InvalidArgument("Number of channels in filter (", filter_depth,
                                ") must match the depth of the input (", g->in_depth,
                                "): grouped 3-D convolutions have no CPU kernel");
  }
  for (int i = 0; i < 3; ++i) {
    g->in[i] = input.dim(attrs.spatial_dim(i));
    g->filter[i] = filter.dim(i);
  }
  return SpatialGeometry(attrs, g);
}

Status ComputeConv3DBackpropGeometry(const char* label, const Conv3DAttrs& attrs,
                                     const Shape& input, const Shape& filter,
                                     const Shape& out_backprop, Conv3DGeometry* g) {
  if (input.rank() != 5) return sdk::InvalidArgument(label, ": input must be 5-dimensional");
  if (filter.rank() != 5) return sdk::InvalidArgument(label, ": filter must be 5-dimensional");
  if (out_backprop.rank() != 5) {
    return sdk::InvalidArgument(label, ": out_backprop must be 5-dimensional");
  }
  *g = Conv3DGeometry();
  g->batch = input.dim(0);
  if (g->batch != out_backprop.dim(0)) {
    return sdk::InvalidArgument(label, ": input and out_backprop must have the same batch size.",
                                " Input batch: ", g->batch,
                                ", outbackprop batch: ", out_backprop.dim(0), ", batch_dim: 0");
  }
  g->in_depth = input.dim(attrs.depth_dim());
  const int64_t filter_depth = filter.dim(3);
  g->out_depth = filter.dim(4);
  if (filter_depth <= 0) {
    return sdk::InvalidArgument(label, ": filter depth must be strictly greated than zero");
  }
  if (g->in_depth % filter_depth != 0) {
    return sdk::InvalidArgument(label, ": input depth must be evenly divisible by filter depth");
  }
  if (g->out_depth != out_backprop.dim(attrs.depth_dim())) {
    return sdk::InvalidArgument(label, ": filter and out_backprop must have the same out_depth");
  }
  if (filter_depth != g->in_depth) {
    return sdk::InvalidArgument(label, ": number of channels in filter (", filter_depth,
                                ") must match the depth of the input (", g->in_depth,
                                "): grouped 3-D convolutions have no CPU kernel");
  }
  for (int i = 0; i < 3; ++i) {
    g->in[i] = input.dim(attrs.spatial_dim(i));
    g->filter[i] = filter.dim(i);
  }
  TESSERA_SDK_RETURN_IF_ERROR(SpatialGeometry(attrs, g));
  for (int i = 0; i < 3; ++i) {
    const int64_t actual = out_backprop.dim(attrs.spatial_dim(i));
    if (actual != g->out[i]) {
      return sdk::InvalidArgument(
          label, ": Size of out_backprop doesn't match computed: ", "actual = ", actual,
          ", computed = ", g->out[i], " spatial_dim: ", attrs.spatial_dim(i), " input: ", g->in[i],
          " filter: ", g->filter[i], " output: ", actual, " stride: ", g->stride[i],
          " dilation: ", g->dilation[i]);
    }
  }
  return OkStatus();
}

Status Conv3DShapeFromSizes(const char* label, const TensorView& sizes, Shape* shape) {
  if (sizes.rank() != 1) {
    return sdk::InvalidArgument(label, ": shape must be a vector of {int32,int64}, got shape ",
                                sizes.shape().DebugString());
  }
  *shape = Shape();
  for (int64_t i = 0; i < sizes.num_elements(); ++i) {
    const int64_t size = IndexAt(sizes, i);
    if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
    shape->AddDim(size);
  }
  return OkStatus();
}

template <typename T>
void Conv3DForward(const Conv3DGeometry& g, const T* input, const T* filter, T* output,
                   TSR_ThreadPool* pool) {
  const int64_t rows = g.batch * g.out_pixels();
  const int64_t depth = g.gemm_depth();
  if (rows == 0 || g.out_depth == 0) return;
  GemmArgs<T> args;
  args.n = g.out_depth;
  args.k = depth;
  args.b = filter;
  args.ldb = g.out_depth;
  args.ldc = g.out_depth;
  const int64_t chunk = ChunkRows(depth, rows);
  std::unique_ptr<T[]> columns(new T[static_cast<size_t>(chunk * std::max<int64_t>(depth, 1))]);
  for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
    const int64_t r1 = std::min(rows, r0 + chunk);
    Im2ColParallel(g, input, r0, r1, columns.get(), pool);
    args.m = r1 - r0;
    args.a = columns.get();
    args.lda = std::max<int64_t>(depth, 1);
    args.c = output + r0 * g.out_depth;
    Gemm(args, pool);
  }
}

template <typename T>
void Conv3DBackpropInput(const Conv3DGeometry& g, const T* filter, const T* out_backprop,
                         T* in_backprop, TSR_ThreadPool* pool) {
  const int64_t image_size = g.in_pixels() * g.in_depth;
  const int64_t input_size = g.batch * image_size;
  if (input_size == 0) return;
  std::fill(in_backprop, in_backprop + input_size, T(0));
  const int64_t pixels = g.out_pixels();
  const int64_t depth = g.gemm_depth();
  if (pixels == 0 || g.out_depth == 0 || depth == 0) return;
  // Whole images at a time: columns = d(output) x filter^T, then each image gathers its columns.
  const int64_t images = std::clamp<int64_t>(kColumnElements / (pixels * depth), 1, g.batch);
  std::unique_ptr<T[]> columns(new T[static_cast<size_t>(images * pixels * depth)]);
  GemmArgs<T> args;
  args.transpose_b = true;
  args.n = depth;
  args.k = g.out_depth;
  args.b = filter;
  args.ldb = g.out_depth;
  args.lda = g.out_depth;
  args.c = columns.get();
  args.ldc = depth;
  for (int64_t b0 = 0; b0 < g.batch; b0 += images) {
    const int64_t count = std::min(images, g.batch - b0);
    args.m = count * pixels;
    args.a = out_backprop + b0 * pixels * g.out_depth;
    Gemm(args, pool);
    ParallelItems(pool, count, static_cast<double>(pixels * depth), [&](int, int64_t b) {
      Col2Im(g, columns.get() + b * pixels * depth, in_backprop + (b0 + b) * image_size);
    });
  }
}

template <typename T>
void Conv3DBackpropFilter(const Conv3DGeometry& g, const T* input, const T* out_backprop,
                          T* filter_backprop, TSR_ThreadPool* pool) {
  const int64_t depth = g.gemm_depth();
  const int64_t filter_size = depth * g.out_depth;
  if (filter_size == 0) return;
  const int64_t rows = g.batch * g.out_pixels();
  if (rows == 0) {
    std::fill(filter_backprop, filter_backprop + filter_size, T(0));
    return;
  }
  // d(filter) = columns^T x d(output), summed over chunks of output pixels.
  const int64_t chunk = ChunkRows(depth, rows);
  std::unique_ptr<T[]> columns(new T[static_cast<size_t>(chunk * depth)]);
  GemmArgs<T> args;
  args.transpose_a = true;
  args.m = depth;
  args.n = g.out_depth;
  args.a = columns.get();
  args.lda = depth;
  args.ldb = g.out_depth;
  args.c = filter_backprop;
  args.ldc = g.out_depth;
  for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
    const int64_t r1 = std::min(rows, r0 + chunk);
    Im2ColParallel(g, input, r0, r1, columns.get(), pool);
    args.k = r1 - r0;
    args.b = out_backprop + r0 * g.out_depth;
    args.beta = r0 == 0 ? T(0) : T(1);
    Gemm(args, pool);
  }
}

template void Conv3DForward<float>(const Conv3DGeometry&, const float*, const float*, float*,
                                   TSR_ThreadPool*);
template void Conv3DForward<double>(const Conv3DGeometry&, const double*, const double*, double*,
                                    TSR_ThreadPool*);
template void Conv3DBackpropInput<float>(const Conv3DGeometry&, const float*, const float*, float*,
                                         TSR_ThreadPool*);
template void Conv3DBackpropInput<double>(const Conv3DGeometry&, const double*, const double*,
                                          double*, TSR_ThreadPool*);
template void Conv3DBackpropFilter<float>(const Conv3DGeometry&, const float*, const float*, float*,
                                          TSR_ThreadPool*);
template void Conv3DBackpropFilter<double>(const Conv3DGeometry&, const double*, const double*,
                                           double*, TSR_ThreadPool*);

}  // namespace tessera::cpu
