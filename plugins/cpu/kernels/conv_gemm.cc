// im2col / col2im convolutions on the GEMM layer. Work is cut so that every result depends only
// on the shapes and the pool's size: the same inputs give the same bits on every run.
#include "plugins/cpu/kernels/conv_gemm.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "plugins/cpu/kernels/gemm/gemm.h"
#include "plugins/cpu/kernels/gemm/parallel.h"

namespace tessera::cpu {
namespace {

// Elements of an im2col chunk a worker multiplies at once (fits in a core's L2 for float).
constexpr int64_t kChunkElements = int64_t{1} << 18;
// Elements of the column buffer the gradients fill before each product.
constexpr int64_t kGradientElements = int64_t{1} << 22;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows [r0, r1) of the implicit GEMM's left operand for one group: each row is the window of one
// output pixel, laid out [filter_rows][filter_cols][filter_depth] (the filter's HWI order), with
// zeros where the window leaves the input. Row i goes to dst + (i - r0) * ld.
template <typename T>
void Im2Col(const ConvGeometry& g, const T* input, int64_t group, int64_t r0, int64_t r1, T* dst,
            int64_t ld) {
  const int64_t depth = g.filter_depth;
  const int64_t window_row = g.filter_cols * depth;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / (g.out_rows * g.out_cols);
    const int64_t oy = (r / g.out_cols) % g.out_rows;
    const int64_t ox = r % g.out_cols;
    T* row = dst + (r - r0) * ld;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh, row += window_row) {
      const int64_t iy = g.InputRow(oy, kh);
      if (iy < 0 || iy >= g.in_rows) {
        std::fill(row, row + window_row, T(0));
        continue;
      }
      const T* line = input + (b * g.in_rows + iy) * g.in_cols * g.in_depth + group * depth;
      for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const int64_t ix = g.InputCol(ox, kw);
        T* cell = row + kw * depth;
        if (ix < 0 || ix >= g.in_cols) {
          std::fill(cell, cell + depth, T(0));
        } else {
          std::copy(line + ix * g.in_depth, line + ix * g.in_depth + depth, cell);
        }
      }
    }
  }
}

// The products of a 1x1, stride-1, unpadded convolution: one per group, all of one shape.
template <typename T>
void PointwiseProducts(const GemmArgs<T>& shape, int64_t groups, const T* a, int64_t a_step,
                       const T* b, int64_t b_step, T* c, int64_t c_step, TSR_ThreadPool* pool) {
  std::vector<const T*> as(groups), bs(groups);
  std::vector<T*> cs(groups);
  for (int64_t i = 0; i < groups; ++i) {
    as[i] = a + i * a_step;
    bs[i] = b + i * b_step;
    cs[i] = c + i * c_step;
  }
  BatchGemm(shape, groups, as.data(), bs.data(), cs.data(), pool);
}

}  // namespace

template <typename T>
void ConvForwardGemm(const ConvGeometry& g, const T* input, const T* filter, T* output,
                     TSR_ThreadPool* pool) {
  const int64_t rows = g.gemm_rows();
  const int64_t depth = g.gemm_depth();
  const int64_t groups = g.groups();
  const int64_t group_out = g.out_depth / groups;
  if (rows == 0 || g.out_depth == 0) return;
  GemmArgs<T> shape;
  shape.m = rows;
  shape.n = group_out;
  shape.k = depth;
  shape.ldb = g.out_depth;
  shape.ldc = g.out_depth;
  if (g.IsPointwise()) {
    shape.lda = g.in_depth;
    PointwiseProducts(shape, groups, input, g.filter_depth, filter, group_out, output, group_out,
                      pool);
    return;
  }
  // Chunks of output pixels, a multiple of the threads when there are few of them.
  const int threads = UsableThreads(pool);
  int64_t chunk_rows = std::clamp<int64_t>(kChunkElements / std::max<int64_t>(depth, 1), 64, rows);
  int64_t chunks = CeilDiv(rows, chunk_rows);
  if (chunks < 4 * threads && chunks >= threads) {
    chunks = CeilDiv(chunks, threads) * threads;
    chunk_rows = CeilDiv(rows, chunks);
    chunks = CeilDiv(rows, chunk_rows);
  }
  if (chunks >= threads) {
    // Each worker builds its own chunk and multiplies it on its thread.
    const double flops = 2.0 * static_cast<double>(chunk_rows * depth * g.out_depth);
    const int workers = ParallelWorkers(pool, chunks, flops);
    std::unique_ptr<T[]> buffers(new T[static_cast<size_t>(workers * chunk_rows * depth)]);
    ParallelItems(pool, chunks, flops, [&](int worker, int64_t chunk) {
      T* buffer = buffers.get() + worker * chunk_rows * depth;
      const int64_t r0 = chunk * chunk_rows;
      const int64_t r1 = std::min(rows, r0 + chunk_rows);
      for (int64_t group = 0; group < groups; ++group) {
        Im2Col(g, input, group, r0, r1, buffer, depth);
        GemmArgs<T> args = shape;
        args.m = r1 - r0;
        args.a = buffer;
        args.lda = depth;
        args.b = filter + group * group_out;
        args.c = output + r0 * g.out_depth + group * group_out;
        GemmSerial(args);
      }
    });
    return;
  }
  // Few pixels: build all of them, then let the GEMM layer cut the product over the pool.
  std::unique_ptr<T[]> buffer(new T[static_cast<size_t>(rows * depth)]);
  for (int64_t group = 0; group < groups; ++group) {
    ParallelItems(pool, chunks, static_cast<double>(chunk_rows * depth), [&](int, int64_t chunk) {
      const int64_t r0 = chunk * chunk_rows;
      const int64_t r1 = std::min(rows, r0 + chunk_rows);
      Im2Col(g, input, group, r0, r1, buffer.get() + r0 * depth, depth);
    });
    GemmArgs<T> args = shape;
    args.a = buffer.get();
    args.lda = depth;
    args.b = filter + group * group_out;
    args.c = output + group * group_out;
    Gemm(args, pool);
  }
}

template <typename T>
void ConvBackpropInputGemm(const ConvGeometry& g, const T* filter, const T* out_backprop,
                           T* in_backprop, TSR_ThreadPool* pool) {
  const int64_t groups = g.groups();
  const int64_t group_out = g.out_depth / groups;
  const int64_t depth = g.gemm_depth();
  const int64_t total_depth = depth * groups;
  const int64_t pixels = g.out_rows * g.out_cols;
  const int64_t input_size = g.batch * g.in_rows * g.in_cols * g.in_depth;
  if (input_size == 0) return;
  if (pixels == 0 || g.out_depth == 0 || depth == 0) {
    std::fill(in_backprop, in_backprop + input_size, T(0));
    return;
  }
  // d(input pixels) = d(output) x filter^T, per group.
  GemmArgs<T> shape;
  shape.transpose_b = true;
  shape.k = group_out;
  shape.lda = g.out_depth;
  shape.ldb = g.out_depth;
  if (g.IsPointwise()) {
    shape.m = g.gemm_rows();
    shape.n = g.filter_depth;
    shape.ldc = g.in_depth;
    PointwiseProducts(shape, groups, out_backprop, group_out, filter, group_out, in_backprop,
                      g.filter_depth, pool);
    return;
  }
  // Whole images at a time: their columns (one row per output pixel, one column per filter tap
  // and input channel), then each input pixel gathers the columns that read it.
  const int64_t images =
      std::clamp<int64_t>(kGradientElements / (pixels * total_depth), 1, g.batch);
  std::unique_ptr<T[]> columns(new T[static_cast<size_t>(images * pixels * total_depth)]);
  shape.n = depth;
  shape.ldc = total_depth;
  for (int64_t b0 = 0; b0 < g.batch; b0 += images) {
    const int64_t count = std::min(images, g.batch - b0);
    GemmArgs<T> chunk = shape;
    chunk.m = count * pixels;
    PointwiseProducts(chunk, groups, out_backprop + b0 * pixels * g.out_depth, group_out, filter,
                      group_out, columns.get(), depth, pool);
    const double work = static_cast<double>(g.in_cols * g.filter_rows * g.filter_cols * g.in_depth);
    ParallelItems(pool, count * g.in_rows, work, [&](int, int64_t item) {
      const int64_t b = item / g.in_rows;
      const int64_t iy = item % g.in_rows;
      T* line = in_backprop + ((b0 + b) * g.in_rows + iy) * g.in_cols * g.in_depth;
      std::fill(line, line + g.in_cols * g.in_depth, T(0));
      for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
        const int64_t oy = g.OutputRow(iy, kh);
        if (oy < 0) continue;
        for (int64_t ix = 0; ix < g.in_cols; ++ix) {
          T* pixel = line + ix * g.in_depth;
          for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
            const int64_t ox = g.OutputCol(ix, kw);
            if (ox < 0) continue;
            const int64_t row = (b * g.out_rows + oy) * g.out_cols + ox;
            const T* tap =
                columns.get() + row * total_depth + (kh * g.filter_cols + kw) * g.filter_depth;
            for (int64_t group = 0; group < groups; ++group) {
              const T* src = tap + group * depth;
              T* dst = pixel + group * g.filter_depth;
              for (int64_t c = 0; c < g.filter_depth; ++c) dst[c] += src[c];
            }
          }
        }
      }
    });
  }
}

template <typename T>
void ConvBackpropFilterGemm(const ConvGeometry& g, const T* input, const T* out_backprop,
                            T* filter_backprop, TSR_ThreadPool* pool) {
  const int64_t groups = g.groups();
  const int64_t group_out = g.out_depth / groups;
  const int64_t depth = g.gemm_depth();
  const int64_t total_depth = depth * groups;
  const int64_t rows = g.gemm_rows();
  const int64_t filter_size = depth * g.out_depth;
  if (filter_size == 0) return;
  if (rows == 0) {
    std::fill(filter_backprop, filter_backprop + filter_size, T(0));
    return;
  }
  // d(filter) = columns^T x d(output), per group, summed over chunks of output pixels.
  GemmArgs<T> shape;
  shape.transpose_a = true;
  shape.m = depth;
  shape.n = group_out;
  shape.ldb = g.out_depth;
  shape.ldc = g.out_depth;
  if (g.IsPointwise()) {
    shape.k = rows;
    shape.lda = g.in_depth;
    PointwiseProducts(shape, groups, input, g.filter_depth, out_backprop, group_out,
                      filter_backprop, group_out, pool);
    return;
  }
  const int64_t chunk_rows = std::clamp<int64_t>(kGradientElements / total_depth, 256, rows);
  std::unique_ptr<T[]> columns(new T[static_cast<size_t>(chunk_rows * total_depth)]);
  const int64_t pieces = CeilDiv(chunk_rows, 64);
  for (int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
    const int64_t r1 = std::min(rows, r0 + chunk_rows);
    ParallelItems(pool, pieces, static_cast<double>(64 * total_depth), [&](int, int64_t piece) {
      const int64_t p0 = r0 + piece * 64;
      const int64_t p1 = std::min(r1, p0 + 64);
      for (int64_t group = 0; group < groups && p0 < p1; ++group) {
        Im2Col(g, input, group, p0, p1, columns.get() + (p0 - r0) * total_depth + group * depth,
               total_depth);
      }
    });
    GemmArgs<T> chunk = shape;
    chunk.k = r1 - r0;
    chunk.lda = total_depth;
    chunk.beta = r0 == 0 ? T(0) : T(1);
    PointwiseProducts(chunk, groups, columns.get(), depth, out_backprop + r0 * g.out_depth,
                      group_out, filter_backprop, group_out, pool);
  }
}

template void ConvForwardGemm<float>(const ConvGeometry&, const float*, const float*, float*,
                                     TSR_ThreadPool*);
template void ConvForwardGemm<double>(const ConvGeometry&, const double*, const double*, double*,
                                      TSR_ThreadPool*);
template void ConvBackpropInputGemm<float>(const ConvGeometry&, const float*, const float*, float*,
                                           TSR_ThreadPool*);
template void ConvBackpropInputGemm<double>(const ConvGeometry&, const double*, const double*,
                                            double*, TSR_ThreadPool*);
template void ConvBackpropFilterGemm<float>(const ConvGeometry&, const float*, const float*, float*,
                                            TSR_ThreadPool*);
template void ConvBackpropFilterGemm<double>(const ConvGeometry&, const double*, const double*,
                                             double*, TSR_ThreadPool*);

}  // namespace tessera::cpu
