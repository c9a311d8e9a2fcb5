// RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt on CPU: TensorFlow's
// stateful Philox kernels, value for value.
//
// Each kernel object owns a generator seeded from its `seed`/`seed2` attributes and, like
// TensorFlow's GuardedPhiloxRandom, hands every step its own stretch of the stream: a step of n
// outputs takes the current generator and moves the shared one 256 * n blocks on. Inside a step
// the outputs are filled in groups on the intra-op pool, each shard skipping ahead to its first
// group, so the values never depend on the thread count.
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/philox.h"
#include "plugins/cpu/kernels/philox_distributions.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// 64 bits from a process-wide generator seeded by the OS, for kernels with seed = seed2 = 0.
uint64_t NondeterministicSeed() {
  static std::mutex* mu = new std::mutex;
  static std::mt19937_64* source = new std::mt19937_64(std::random_device()());
  std::lock_guard<std::mutex> lock(*mu);
  return (*source)();
}

// The generator a kernel keeps across steps. Steps may run concurrently, so the state is the one
// member a kernel shares between them, behind a mutex.
class GuardedPhilox {
 public:
  // Seeds from the `seed` and `seed2` attributes; a failure is recorded in `ctx`.
  void Init(KernelConstruction& ctx) {
    int64_t seed = 0;
    int64_t seed2 = 0;
    Status status = ctx.GetAttr("seed", &seed);
    if (status.ok()) status = ctx.GetAttr("seed2", &seed2);
    if (!status.ok()) {
      ctx.SetStatus(std::move(status));
      return;
    }
    if (seed == 0 && seed2 == 0) {
      // TensorFlow's reading of "no seed": a fresh, unpredictable stream per kernel.
      generator_ = Philox4x32(NondeterministicSeed(), NondeterministicSeed());
    } else {
      generator_ = Philox4x32(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    }
  }

  // The generator for a step of `outputs` outputs.
  Philox4x32 Reserve(int64_t outputs) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox4x32 reserved = generator_;
    generator_.Skip(static_cast<uint64_t>(outputs) * kReservedBlocksPerOutput);
    return reserved;
  }

 private:
  std::mutex mu_;
  Philox4x32 generator_;
};

// The output shape from the host-memory `shape` input, with TensorFlow's checks and messages.
Status ShapeFromTensor(const TensorView& tensor, Shape* shape) {
  if (tensor.rank() != 1) {
    return sdk::InvalidArgument("shape must be a vector of {int32,int64}, got shape ",
                                tensor.shape().DebugString());
  }
  if (tensor.dtype() != TSR_DTYPE_INT32 && tensor.dtype() != TSR_DTYPE_INT64) {
    return sdk::InvalidArgument("shape must be a vector of {int32,int64}.");
  }
  const int64_t rank = tensor.dim(0);
  if (rank > Shape::kMaxRank) {
    return sdk::InvalidArgument("shape has ", rank, " entries, more than the maximum rank ",
                                Shape::kMaxRank);
  }
  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = IndexAt(tensor, d);
    if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
    shape->AddDim(size);
    if (size != 0 && elements > std::numeric_limits<int64_t>::max() / size) {
      std::string dims;
      for (int64_t i = 0; i < rank; ++i) {
        dims += (i > 0 ? "," : "") + std::to_string(IndexAt(tensor, i));
      }
      return sdk::InvalidArgument("Shape [", dims, "] would have more than 2**63 - 1 elements");
    }
    elements *= size;
  }
  return OkStatus();
}

// Fills `size` outputs from `base` on the intra-op pool, sharded by groups.
template <typename Distribution>
void Fill(const KernelContext& ctx, const Philox4x32& base, typename Distribution::Element* data,
          int64_t size, const Distribution& distribution) {
  const int64_t cost_per_group =
      Philox4x32::kBlockSize * (10 + Distribution::kElementCost);  // TensorFlow's estimate
  ctx.ParallelFor(NumGroups<Distribution>(size), cost_per_group, [&](int64_t begin, int64_t end) {
    FillGroups(base, data, size, begin, end, distribution);
  });
}

// RandomUniform, RandomStandardNormal and TruncatedNormal for one output dtype.
template <typename Distribution>
class PhiloxRandomKernel : public sdk::Kernel {
 public:
  explicit PhiloxRandomKernel(KernelConstruction& ctx) { generator_.Init(ctx); }

  Status Compute(KernelContext& ctx) override {
    TensorView shape_tensor;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &shape_tensor));
    Shape shape;
    TESSERA_SDK_RETURN_IF_ERROR(ShapeFromTensor(shape_tensor, &shape));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const int64_t size = out.num_elements();
    Fill(ctx, generator_.Reserve(size), out.data<typename Distribution::Element>(), size,
         Distribution());
    return OkStatus();
  }

 private:
  GuardedPhilox generator_;
};

template <typename T>
class RandomUniformIntKernel : public sdk::Kernel {
 public:
  explicit RandomUniformIntKernel(KernelConstruction& ctx) { generator_.Init(ctx); }

  Status Compute(KernelContext& ctx) override {
    TensorView shape_tensor;
    TensorView minval;
    TensorView maxval;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &shape_tensor));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &minval));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &maxval));
    if (minval.rank() != 0) {
      return sdk::InvalidArgument("minval must be 0-D, got shape ", minval.shape().DebugString());
    }
    if (maxval.rank() != 0) {
      return sdk::InvalidArgument("maxval must be 0-D, got shape ", maxval.shape().DebugString());
    }
    Shape shape;
    TESSERA_SDK_RETURN_IF_ERROR(ShapeFromTensor(shape_tensor, &shape));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const int64_t size = out.num_elements();
    // An empty output needs no valid range (TensorFlow checks the bounds after this exit).
    if (size == 0) return OkStatus();
    const T lo = *minval.data<const T>();
    const T hi = *maxval.data<const T>();
    if (!(lo < hi)) return sdk::InvalidArgument("Need minval < maxval, got ", lo, " >= ", hi);
    Fill(ctx, generator_.Reserve(size), out.data<T>(), size, UniformIntDistribution<T>(lo, hi));
    return OkStatus();
  }

 private:
  GuardedPhilox generator_;
};

// Registers `Op` for the float dtypes with the distribution template `Dist`.
template <template <typename> class Dist>
Status RegisterFloatingKernels(TSR_Registrar* registrar, const char* op) {
  const std::vector<TSR_DataType>& index = IndexTypes();
  const std::vector<std::string> host_memory = {"shape"};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PhiloxRandomKernel<Dist<float>>>(
      registrar, op, kCpu, {{"dtype", {TSR_DTYPE_FLOAT}}, {"T", index}}, 0, 0, host_memory));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PhiloxRandomKernel<Dist<double>>>(
      registrar, op, kCpu, {{"dtype", {TSR_DTYPE_DOUBLE}}, {"T", index}}, 0, 0, host_memory));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PhiloxRandomKernel<Dist<Half>>>(
      registrar, op, kCpu, {{"dtype", {TSR_DTYPE_HALF}}, {"T", index}}, 0, 0, host_memory));
  return sdk::RegisterKernel<PhiloxRandomKernel<Dist<Bfloat16>>>(
      registrar, op, kCpu, {{"dtype", {TSR_DTYPE_BFLOAT16}}, {"T", index}}, 0, 0, host_memory);
}

}  // namespace

Status RegisterRandomKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterFloatingKernels<UniformDistribution>(registrar, "RandomUniform"));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterFloatingKernels<NormalDistribution>(registrar, "RandomStandardNormal"));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterFloatingKernels<TruncatedNormalDistribution>(registrar, "TruncatedNormal"));
  const std::vector<std::string> host_memory = {"shape"};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<RandomUniformIntKernel<int32_t>>(
      registrar, "RandomUniformInt", kCpu, {{"Tout", {TSR_DTYPE_INT32}}, {"T", IndexTypes()}}, 0, 0,
      host_memory));
  return sdk::RegisterKernel<RandomUniformIntKernel<int64_t>>(
      registrar, "RandomUniformInt", kCpu, {{"Tout", {TSR_DTYPE_INT64}}, {"T", IndexTypes()}}, 0, 0,
      host_memory);
}

}  // namespace tessera::cpu
