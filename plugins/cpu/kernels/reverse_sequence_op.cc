// ReverseSequence on CPU (every fixed-size dtype; seq_lengths int32/int64): for each batch entry
// b, the first seq_lengths[b] slices along seq_dim are reversed and the rest are copied.
#include <cstdint>
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class ReverseSequenceKernel : public sdk::Kernel {
 public:
  explicit ReverseSequenceKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("seq_dim", &seq_dim_));
    if (ctx.ok()) ctx.SetStatus(ctx.GetAttr("batch_dim", &batch_dim_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView seq_lengths;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &seq_lengths));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, seq_lengths, "seq_lengths"));
    if (seq_lengths.rank() != 1) {
      return sdk::InvalidArgument("seq_lengths must be 1-dim, not ", seq_lengths.rank());
    }
    if (batch_dim_ == seq_dim_) return sdk::InvalidArgument("batch_dim == seq_dim == ", seq_dim_);
    if (seq_dim_ < 0 || batch_dim_ < 0) {
      return sdk::InvalidArgument("seq_dim and batch_dim must be non-negative, got ", seq_dim_,
                                  " and ", batch_dim_);
    }
    if (seq_dim_ >= input.rank()) {
      return sdk::InvalidArgument("seq_dim must be < input rank ( ", seq_dim_, " vs. ",
                                  input.rank(), ")");
    }
    if (batch_dim_ >= input.rank()) {
      return sdk::InvalidArgument("batch_dim must be < input rank ( ", batch_dim_, " vs. ",
                                  input.rank(), ")");
    }
    const int seq = static_cast<int>(seq_dim_);
    const int batch = static_cast<int>(batch_dim_);
    if (seq_lengths.num_elements() != input.dim(batch)) {
      return sdk::InvalidArgument("Length of seq_lengths != input.dims(", batch_dim_, "), (",
                                  seq_lengths.num_elements(), " vs. ", input.dim(batch), ")");
    }
    const std::vector<int64_t> lengths = IntegersOf(seq_lengths);
    for (size_t b = 0; b < lengths.size(); ++b) {
      if (lengths[b] < 0) return sdk::InvalidArgument("seq_lens(", b, ") < 0");
      if (lengths[b] > input.dim(seq)) {
        return sdk::InvalidArgument("seq_lens(", b, ") > input.dims(", seq_dim_, ")");
      }
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &out));
    const int64_t n = input.num_elements();
    if (n == 0) return OkStatus();
    const size_t size = sdk::DataTypeSize(input.dtype());
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    ctx.ParallelFor(n, input.rank() + static_cast<int64_t>(size), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t b = (i / strides[batch]) % input.dim(batch);
        const int64_t s = (i / strides[seq]) % input.dim(seq);
        int64_t from = i;
        if (s < lengths[b]) from += (lengths[b] - 1 - 2 * s) * strides[seq];
        std::memcpy(dst + i * size, src + from * size, size);
      }
    });
    return OkStatus();
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

Status RegisterReverseSequenceKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<ReverseSequenceKernel>(registrar, "ReverseSequence", kCpu,
                                                    {{"T", AllTypes()}, {"Tlen", IndexTypes()}});
}

}  // namespace tessera::cpu
