// The tiled matrix product: each 16 x 16 block of threads computes one 16 x 16 tile of an output
// matrix, walking k through tiles of x and y staged in shared memory. Batches are the grid's z.
#include "plugins/cuda/elementwise_common.cuh"
#include "plugins/cuda/gemm_kernels.h"

namespace tessera::gpu {
namespace {

constexpr int kTile = 16;
// The most batches and row tiles one launch takes (the grid's z and y dimensions); more are
// launched in turn.
constexpr int64_t kMaxGridZ = 65535;
constexpr int64_t kMaxGridY = 65535;

template <typename T>
__global__ void TiledGemmKernel(const T* x, const T* y, T* out, GemmProduct p, int64_t first,
                                int64_t first_row_tile) {
  using Tr = Traits<T>;
  // +1: the columns of a tile fall in different shared-memory banks.
  __shared__ float x_tile[kTile][kTile + 1];
  __shared__ float y_tile[kTile][kTile + 1];
  const int64_t b = first + static_cast<int64_t>(blockIdx.z);
  const T* xb = x + b * p.x_stride;
  const T* yb = y + b * p.y_stride;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int64_t row = (first_row_tile + static_cast<int64_t>(blockIdx.y)) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float sum = 0.0f;
  for (int64_t k0 = 0; k0 < p.k; k0 += kTile) {
    const int64_t kx = k0 + tx;  // x(row, kx)
    const int64_t ky = k0 + ty;  // y(ky, col)
    float xv = 0.0f;
    float yv = 0.0f;
    if (row < p.m && kx < p.k) {
      xv = static_cast<float>(
          Tr::Load(p.transpose_x ? xb[kx * p.x_cols + row] : xb[row * p.x_cols + kx]));
    }
    if (ky < p.k && col < p.n) {
      yv = static_cast<float>(
          Tr::Load(p.transpose_y ? yb[col * p.y_cols + ky] : yb[ky * p.y_cols + col]));
    }
    x_tile[ty][tx] = xv;
    y_tile[ty][tx] = yv;
    __syncthreads();
    TESSERA_GPU_UNROLL
    for (int t = 0; t < kTile; ++t) sum += x_tile[ty][t] * y_tile[t][tx];
    __syncthreads();
  }
  if (row < p.m && col < p.n) {
    out[b * p.m * p.n + row * p.n + col] = Tr::Store(static_cast<typename Tr::Math>(sum));
  }
}

}  // namespace

gpuError_t LaunchTiledGemm(ElementType type, const GemmProduct& product, const void* x,
                           const void* y, void* out, gpuStream_t stream) {
  if (product.m == 0 || product.n == 0 || product.batch == 0) return gpuSuccess;
  auto launch = [&](auto zero) -> gpuError_t {
    using T = decltype(zero);
    const dim3 threads(kTile, kTile);
    const int64_t row_tiles = (product.m + kTile - 1) / kTile;
    for (int64_t first = 0; first < product.batch; first += kMaxGridZ) {
      const int64_t count = product.batch - first < kMaxGridZ ? product.batch - first : kMaxGridZ;
      for (int64_t tile = 0; tile < row_tiles; tile += kMaxGridY) {
        const int64_t tiles = row_tiles - tile < kMaxGridY ? row_tiles - tile : kMaxGridY;
        const dim3 blocks(static_cast<unsigned>((product.n + kTile - 1) / kTile),
                          static_cast<unsigned>(tiles), static_cast<unsigned>(count));
        const gpuError_t error =
            Launch(TiledGemmKernel<T>, blocks, threads, stream, static_cast<const T*>(x),
                   static_cast<const T*>(y), static_cast<T*>(out), product, first, tile);
        if (error != gpuSuccess) return error;
      }
    }
    return gpuSuccess;
  };
  switch (type) {
    case ElementType::kFloat:
      return launch(float{});
    case ElementType::kHalf:
      return launch(__half{});
    case ElementType::kBFloat16:
      return launch(gpu_bfloat16{});
    default:
      return gpuErrorInvalidValue;
  }
}

}  // namespace tessera::gpu
