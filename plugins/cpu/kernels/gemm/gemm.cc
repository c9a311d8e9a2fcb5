// GemmSerial's choice of library, and the blocks that Gemm and BatchGemm spread over the pool.
#include "plugins/cpu/kernels/gemm/gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "plugins/cpu/kernels/gemm/gemm_backends.h"
#include "plugins/cpu/kernels/gemm/parallel.h"

namespace tessera::cpu {
namespace {

// Below this many flops a block is not worth a thread hop (a few microseconds of one core).
constexpr double kMinFlopsPerBlock = 4.0e6;
// Block edges fall on multiples of these (rows, columns of C) so that blocks keep whole
// micro-kernel tiles.
constexpr int64_t kRowAlign = 8;
constexpr int64_t kColAlign = 16;
// With more products than threads, cut them into blocks only until the last round of items
// keeps at least this share of the threads busy.
constexpr double kMinBalance = 0.85;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// A grid of blocks over an m x n output.
struct Grid {
  int64_t row_step = 0;
  int64_t col_step = 0;
  int64_t row_blocks = 1;
  int64_t col_blocks = 1;
  int64_t blocks() const { return row_blocks * col_blocks; }
};

// The grid of at most `target` aligned blocks with the most blocks and, among those, the least
// data per block (each block packs its rows of A and its columns of B).
Grid Cut(int64_t m, int64_t n, int64_t target) {
  for (int64_t t = target; t > 1; --t) {
    Grid best;
    int64_t best_cost = std::numeric_limits<int64_t>::max();
    for (int64_t rows = 1; rows <= t; ++rows) {
      if (t % rows != 0) continue;
      const int64_t cols = t / rows;
      Grid grid;
      grid.row_step = RoundUp(CeilDiv(m, rows), kRowAlign);
      grid.col_step = RoundUp(CeilDiv(n, cols), kColAlign);
      grid.row_blocks = CeilDiv(m, grid.row_step);
      grid.col_blocks = CeilDiv(n, grid.col_step);
      if (grid.blocks() != t) continue;
      const int64_t cost = grid.row_step + grid.col_step;
      if (cost < best_cost) {
        best = grid;
        best_cost = cost;
      }
    }
    if (best_cost != std::numeric_limits<int64_t>::max()) return best;
  }
  return Grid{m, n, 1, 1};
}

// Block `block` of `grid` over the product `args` with matrices a, b, c.
template <typename T>
GemmArgs<T> BlockOf(const GemmArgs<T>& args, const Grid& grid, int64_t block, const T* a,
                    const T* b, T* c) {
  const int64_t r0 = (block / grid.col_blocks) * grid.row_step;
  const int64_t c0 = (block % grid.col_blocks) * grid.col_step;
  GemmArgs<T> sub = args;
  sub.m = std::min(args.m, r0 + grid.row_step) - r0;
  sub.n = std::min(args.n, c0 + grid.col_step) - c0;
  sub.a = args.transpose_a ? a + r0 : a + r0 * args.lda;
  sub.b = args.transpose_b ? b + c0 * args.ldb : b + c0;
  sub.c = c + r0 * args.ldc + c0;
  return sub;
}

// Items per thread for a share of `flops_per_thread`. A pool thread may start late (one that
// was asleep takes tens of microseconds to wake), so work of up to a few milliseconds per thread
// is cut in two per thread: the caller takes the second item of a thread that starts late. Finer
// cuts cost more than they save: each block packs its own panels of A and B, and the last item
// to finish keeps the others waiting (measured at n = 256 on two threads: 2 items per thread
// 0.069 ms, 4 items 0.073 ms).
int64_t ItemsPerThread(double flops_per_thread) { return flops_per_thread < 1e9 ? 2 : 1; }

// How the products of a BatchGemm become items: either `per_item` whole products each, or
// (per_item == 1) each product cut into `grid` blocks.
struct Plan {
  int64_t per_item = 1;
  Grid grid;
  int64_t items = 0;
};

Plan PlanBatch(int64_t m, int64_t n, int64_t k, int64_t batch, int threads) {
  Plan plan;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const double total = flops * static_cast<double>(batch);
  if (threads <= 1 || total < 2 * kMinFlopsPerBlock) {
    plan.per_item = batch;
    plan.items = 1;
    return plan;
  }
  const int64_t max_blocks = std::max<int64_t>(1, static_cast<int64_t>(flops / kMinFlopsPerBlock));
  const int64_t wanted = threads * ItemsPerThread(total / threads);
  if (batch < wanted && max_blocks > 1) {
    // Fewer products than items wanted: cut each one.
    plan.grid = Cut(m, n, std::min<int64_t>(max_blocks, CeilDiv(wanted, batch)));
    plan.items = batch * plan.grid.blocks();
    return plan;
  }
  // Whole products; small ones grouped so that an item is worth its hop.
  const int64_t group = std::max<int64_t>(
      1, std::min<int64_t>(batch / wanted, static_cast<int64_t>(kMinFlopsPerBlock / flops)));
  int64_t blocks = 1;
  if (group == 1 && max_blocks > 1) {
    // Cut products only as far as needed to keep the last round of items balanced.
    for (int64_t candidate = 1; candidate <= std::min<int64_t>(max_blocks, 4 * threads);
         ++candidate) {
      const int64_t items = batch * candidate;
      const double balance =
          static_cast<double>(items) / static_cast<double>(threads * CeilDiv(items, threads));
      if (balance >= kMinBalance) {
        blocks = candidate;
        break;
      }
    }
  }
  plan.per_item = blocks == 1 ? group : 1;
  plan.grid = Cut(m, n, blocks);
  plan.items = plan.grid.blocks() == 1 ? CeilDiv(batch, plan.per_item) : batch * plan.grid.blocks();
  return plan;
}

// Depth slices are at least this deep, so that each keeps the libraries' own blocking.
constexpr int64_t kMinSliceDepth = 256;

template <typename T>
void ScaleOutput(const GemmArgs<T>& args) {
  for (int64_t i = 0; i < args.m; ++i) {
    T* row = args.c + i * args.ldc;
    if (args.beta == T(0)) {
      std::fill(row, row + args.n, T(0));
    } else if (args.beta != T(1)) {
      for (int64_t j = 0; j < args.n; ++j) row[j] *= args.beta;
    }
  }
}

}  // namespace

// GemmSerial in pieces of at most cancellation.flops_between_checks where the shape allows, asking
// `cancellation` before each; false when it said stop. Depth is sliced first: every slice packs
// its own part of A and B, so packing costs the same as one call, and C is read and written once
// more per slice. Rows are cut next, in whole tiles. The pieces depend only on the shape.
namespace {

template <typename T>
bool GemmInPieces(const GemmArgs<T>& args, const GemmCancellation& cancellation) {
  if (cancellation()) return false;
  const double flops =
      2.0 * static_cast<double>(args.m) * static_cast<double>(args.n) * static_cast<double>(args.k);
  if (cancellation.cancelled == nullptr || !(flops > cancellation.flops_between_checks) ||
      args.k <= 0 || args.alpha == T(0)) {
    GemmSerial(args);
    return true;
  }
  const int64_t pieces =
      static_cast<int64_t>(std::min(std::ceil(flops / cancellation.flops_between_checks), 1e12));
  const int64_t k_slices = std::min<int64_t>(pieces, std::max<int64_t>(1, args.k / kMinSliceDepth));
  const int64_t row_panels =
      std::min<int64_t>(CeilDiv(pieces, k_slices), CeilDiv(args.m, kRowAlign));
  const int64_t k_step = CeilDiv(args.k, k_slices);
  const int64_t row_step = RoundUp(CeilDiv(args.m, row_panels), kRowAlign);
  for (int64_t r0 = 0; r0 < args.m; r0 += row_step) {
    for (int64_t k0 = 0; k0 < args.k; k0 += k_step) {
      if (k0 + r0 > 0 && cancellation()) return false;
      GemmArgs<T> piece = args;
      piece.m = std::min(args.m - r0, row_step);
      piece.k = std::min(args.k - k0, k_step);
      piece.beta = k0 == 0 ? args.beta : T(1);
      // op(A) rows r0.., columns k0..; op(B) rows k0..; C rows r0...
      piece.a = args.transpose_a ? args.a + k0 * args.lda + r0 : args.a + r0 * args.lda + k0;
      piece.b = args.transpose_b ? args.b + k0 : args.b + k0 * args.ldb;
      piece.c = args.c + r0 * args.ldc;
      GemmSerial(piece);
    }
  }
  return true;
}

}  // namespace

template <typename T>
void GemmSerial(const GemmArgs<T>& args) {
  if (args.m <= 0 || args.n <= 0) return;
  if (args.k <= 0 || args.alpha == T(0)) {
    ScaleOutput(args);
    return;
  }
  if (internal::OneDnnGemm(args)) return;
  if (internal::OpenBlasGemm(args)) return;
  internal::EigenGemm(args);
}

template <typename T>
bool BatchGemm(const GemmArgs<T>& shape, int64_t batch, const T* const* a, const T* const* b,
               T* const* c, TSR_ThreadPool* pool, const GemmCancellation& cancellation) {
  if (batch <= 0 || shape.m <= 0 || shape.n <= 0) return true;
  const Plan plan = PlanBatch(shape.m, shape.n, shape.k, batch, UsableThreads(pool));
  std::atomic<bool> stopped{false};
  // PlanBatch already sized the items: each is worth a thread.
  ParallelItems(pool, plan.items, kMinFlopsPerBlock, [&](int, int64_t item) {
    if (stopped.load(std::memory_order_relaxed)) return;
    if (plan.grid.blocks() == 1) {
      const int64_t end = std::min(batch, (item + 1) * plan.per_item);
      for (int64_t i = item * plan.per_item; i < end; ++i) {
        GemmArgs<T> one = shape;
        one.a = a[i];
        one.b = b[i];
        one.c = c[i];
        if (!GemmInPieces(one, cancellation)) {
          stopped.store(true, std::memory_order_relaxed);
          return;
        }
      }
      return;
    }
    const int64_t i = item / plan.grid.blocks();
    if (!GemmInPieces(BlockOf(shape, plan.grid, item % plan.grid.blocks(), a[i], b[i], c[i]),
                      cancellation)) {
      stopped.store(true, std::memory_order_relaxed);
    }
  });
  return !stopped.load();
}

template <typename T>
bool Gemm(const GemmArgs<T>& args, TSR_ThreadPool* pool, const GemmCancellation& cancellation) {
  const T* a = args.a;
  const T* b = args.b;
  T* c = args.c;
  return BatchGemm(args, 1, &a, &b, &c, pool, cancellation);
}

template <typename T>
void IntegerGemm(const GemmArgs<T>& s) {
  for (int64_t i = 0; i < s.m; ++i) {
    T* c_row = s.c + i * s.ldc;
    std::fill(c_row, c_row + s.n, T(0));
    for (int64_t p = 0; p < s.k; ++p) {
      const T av = s.transpose_a ? s.a[p * s.lda + i] : s.a[i * s.lda + p];
      // In the unsigned type, where wrapping is defined.
      using U = std::make_unsigned_t<T>;
      const U au = static_cast<U>(av);
      if (s.transpose_b) {
        for (int64_t j = 0; j < s.n; ++j) {
          c_row[j] =
              static_cast<T>(static_cast<U>(c_row[j]) + au * static_cast<U>(s.b[j * s.ldb + p]));
        }
      } else {
        const T* b_row = s.b + p * s.ldb;
        for (int64_t j = 0; j < s.n; ++j) {
          c_row[j] = static_cast<T>(static_cast<U>(c_row[j]) + au * static_cast<U>(b_row[j]));
        }
      }
    }
  }
}

template void IntegerGemm<int32_t>(const GemmArgs<int32_t>&);
template void IntegerGemm<int64_t>(const GemmArgs<int64_t>&);

const char* GemmBackendName(TSR_DataType dtype) {
  if (dtype == TSR_DTYPE_FLOAT && internal::HaveOneDnn()) return "oneDNN";
  return internal::HaveOpenBlas() ? "OpenBLAS" : "Eigen";
}

template void GemmSerial<float>(const GemmArgs<float>&);
template void GemmSerial<double>(const GemmArgs<double>&);
template bool Gemm<float>(const GemmArgs<float>&, TSR_ThreadPool*, const GemmCancellation&);
template bool Gemm<double>(const GemmArgs<double>&, TSR_ThreadPool*, const GemmCancellation&);
template bool BatchGemm<float>(const GemmArgs<float>&, int64_t, const float* const*,
                               const float* const*, float* const*, TSR_ThreadPool*,
                               const GemmCancellation&);
template bool BatchGemm<double>(const GemmArgs<double>&, int64_t, const double* const*,
                                const double* const*, double* const*, TSR_ThreadPool*,
                                const GemmCancellation&);

}  // namespace tessera::cpu
