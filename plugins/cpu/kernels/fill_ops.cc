// Fill and ZerosLike on CPU (every fixed-size dtype): element-size copies of one value.
#include <cstring>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename Word>
void FillWords(const KernelContext& ctx, void* out, int64_t n, const void* value) {
  Word word;
  std::memcpy(&word, value, sizeof(Word));
  Word* dst = static_cast<Word*>(out);
  ctx.ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = word;
  });
}

// Writes `n` copies of the `element_size`-byte value at `value` to `out`.
void FillElements(const KernelContext& ctx, void* out, int64_t n, size_t element_size,
                  const void* value) {
  switch (element_size) {
    case 1:
      FillWords<uint8_t>(ctx, out, n, value);
      return;
    case 2:
      FillWords<uint16_t>(ctx, out, n, value);
      return;
    case 4:
      FillWords<uint32_t>(ctx, out, n, value);
      return;
    case 8:
      FillWords<uint64_t>(ctx, out, n, value);
      return;
    default: {
      char* dst = static_cast<char*>(out);
      ctx.ParallelFor(n, static_cast<int64_t>(element_size), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          std::memcpy(dst + i * element_size, value, element_size);
      });
    }
  }
}

class FillKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView dims;
    TensorView value;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &dims));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &value));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, dims, "dims"));
    if (dims.rank() != 1) {
      return sdk::InvalidArgument("dims must be a vector, got shape ", dims.shape().DebugString());
    }
    if (value.rank() != 0) {
      return sdk::InvalidArgument("value must be a scalar, got shape ",
                                  value.shape().DebugString());
    }
    if (dims.dim(0) > Shape::kMaxRank) {
      return sdk::InvalidArgument("dims has ", dims.dim(0), " entries, more than the maximum rank ",
                                  Shape::kMaxRank);
    }
    Shape shape;
    for (int d = 0; d < dims.dim(0); ++d) {
      const int64_t size = IndexAt(dims, d);
      if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
      shape.AddDim(size);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    FillElements(ctx, out.raw_data(), out.num_elements(), sdk::DataTypeSize(out.dtype()),
                 value.raw_data());
    return OkStatus();
  }
};

class ZerosLikeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out));
    if (out.byte_size() != 0) std::memset(out.raw_data(), 0, out.byte_size());
    return OkStatus();
  }
};

}  // namespace

Status RegisterFillKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FillKernel>(
      registrar, "Fill", kCpu, {{"T", AllTypes()}, {"index_type", IndexTypes()}},
      TSR_KERNEL_FLAG_CHEAP, 0, {"dims"}));
  return sdk::RegisterKernel<ZerosLikeKernel>(registrar, "ZerosLike", kCpu, {{"T", AllTypes()}},
                                              TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
