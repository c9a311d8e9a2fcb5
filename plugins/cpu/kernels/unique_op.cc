// Unique on CPU (the real types and bool; idx int32 or int64): `y` holds the distinct elements of
// the vector `x` in order of first appearance and idx[i] is the position of x[i] in `y`. Values
// compare as numbers, as in TensorFlow: 0.0 and -0.0 are one element, every NaN is its own.
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T, typename Index>
Status UniqueOf(KernelContext& ctx, const TensorView& x) {
  const int64_t n = x.num_elements();
  const T* in = x.data<const T>();
  TensorView idx;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, x.shape(), &idx));
  Index* positions = idx.data<Index>();
  std::unordered_map<T, Index> first_seen;
  first_seen.reserve(static_cast<size_t>(n));
  std::vector<T> distinct;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, inserted] = first_seen.emplace(in[i], static_cast<Index>(distinct.size()));
    if (inserted) distinct.push_back(in[i]);
    positions[i] = it->second;
  }
  TensorView y;
  TESSERA_SDK_RETURN_IF_ERROR(
      ctx.AllocateOutput(0, Shape{static_cast<int64_t>(distinct.size())}, &y));
  T* out = y.data<T>();
  for (size_t k = 0; k < distinct.size(); ++k) out[k] = distinct[k];
  return OkStatus();
}

class UniqueKernel : public sdk::Kernel {
 public:
  explicit UniqueKernel(KernelConstruction& ctx) : index_type_(ctx.output_type(1)) {}

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    if (x.rank() != 1) {
      return sdk::InvalidArgument("unique expects a 1D vector, got shape ",
                                  x.shape().DebugString());
    }
    if (index_type_ != TSR_DTYPE_INT32 && index_type_ != TSR_DTYPE_INT64) {
      return UnsupportedType(ctx, index_type_);
    }
    if (index_type_ == TSR_DTYPE_INT32 &&
        x.num_elements() > std::numeric_limits<int32_t>::max()) {
      return sdk::InvalidArgument("unique does not support input tensors larger than ",
                                  std::numeric_limits<int32_t>::max(), " elements");
    }
    return DispatchTypes<float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                         int64_t, uint64_t, bool>(ctx, x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if (index_type_ == TSR_DTYPE_INT64) return UniqueOf<T, int64_t>(ctx, x);
      return UniqueOf<T, int32_t>(ctx, x);
    });
  }

 private:
  TSR_DataType index_type_;  // out_idx
};

}  // namespace

Status RegisterUniqueKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<UniqueKernel>(
      registrar, "Unique", kCpu,
      {{"T",
        {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT8, TSR_DTYPE_UINT8, TSR_DTYPE_INT16,
         TSR_DTYPE_UINT16, TSR_DTYPE_INT32, TSR_DTYPE_UINT32, TSR_DTYPE_INT64, TSR_DTYPE_UINT64,
         TSR_DTYPE_BOOL}},
       {"out_idx", IndexTypes()}});
}

}  // namespace tessera::cpu
