// Size, Rank and BroadcastGradientArgs on CPU: results computed from shapes alone, written to
// host-memory outputs.
#include <algorithm>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class SizeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{}, &out));
    const int64_t size = input.num_elements();
    if (out.dtype() == TSR_DTYPE_INT32) {
      if (size > INT32_MAX) {
        return sdk::InvalidArgument(
            "Number of elements was larger than representable by 32-bit output type");
      }
      *out.data<int32_t>() = static_cast<int32_t>(size);
    } else if (out.dtype() == TSR_DTYPE_INT64) {
      *out.data<int64_t>() = size;
    } else {
      return UnsupportedType(ctx, out.dtype());
    }
    return OkStatus();
  }
};

class RankKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{}, &out));
    *out.data<int32_t>() = input.rank();
    return OkStatus();
  }
};

std::string ShapeVectorString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

// For shapes s0 and s1 that broadcast together: r0 and r1 list the dimensions (of the broadcast
// result) that each input's gradient must be summed over, i.e. where that input, padded with
// leading ones, has size 1.
class BroadcastGradientArgsKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      TensorView in;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &in));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, in, "shape"));
      if (in.rank() != 1) {
        return sdk::InvalidArgument("In[", i, "] must be a vector.", in.shape().DebugString());
      }
      shapes[i] = IntegersOf(in);
    }
    const size_t rank = std::max(shapes[0].size(), shapes[1].size());
    std::vector<int64_t> padded[2];
    for (int i = 0; i < 2; ++i) {
      padded[i].assign(rank - shapes[i].size(), 1);
      padded[i].insert(padded[i].end(), shapes[i].begin(), shapes[i].end());
    }
    for (size_t d = 0; d < rank; ++d) {
      const int64_t a = padded[0][d];
      const int64_t b = padded[1][d];
      if (a != b && a != 1 && b != 1) {
        return sdk::InvalidArgument("Incompatible shapes: ", ShapeVectorString(shapes[0]), " vs. ",
                                    ShapeVectorString(shapes[1]));
      }
    }
    for (int i = 0; i < 2; ++i) {
      std::vector<int64_t> reduce;
      for (size_t d = 0; d < rank; ++d) {
        if (padded[i][d] == 1) reduce.push_back(static_cast<int64_t>(d));
      }
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(
          ctx.AllocateOutput(i, Shape{static_cast<int64_t>(reduce.size())}, &out));
      for (size_t k = 0; k < reduce.size(); ++k) {
        if (out.dtype() == TSR_DTYPE_INT32) {
          out.data<int32_t>()[k] = static_cast<int32_t>(reduce[k]);
        } else {
          out.data<int64_t>()[k] = reduce[k];
        }
      }
    }
    return OkStatus();
  }
};

}  // namespace

Status RegisterMetadataKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SizeKernel>(
      registrar, "Size", kCpu, {{"T", AllTypes()}, {"out_type", IndexTypes()}}, kCheap, 0,
      {"output"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<RankKernel>(
      registrar, "Rank", kCpu, {{"T", AllTypes()}}, kCheap, 0, {"output"}));
  return sdk::RegisterKernel<BroadcastGradientArgsKernel>(registrar, "BroadcastGradientArgs", kCpu,
                                                          {{"T", IndexTypes()}}, kCheap, 0,
                                                          {"s0", "s1", "r0", "r1"});
}

}  // namespace tessera::cpu
