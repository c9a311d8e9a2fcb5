// Bucketize on CPU (int32, int64, float, double in; int32 out): the index of the bucket of each
// value among the sorted `boundaries`, i.e. how many boundaries are <= the value.
#include <algorithm>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {
namespace {

class BucketizeKernel : public sdk::Kernel {
 public:
  explicit BucketizeKernel(KernelConstruction& ctx) {
    // The SDK has no typed list(float) getter: the raw value's list_f. An empty list reads as
    // LIST_INT with no elements.
    TSR_AttrValue value;
    Status status = ctx.GetAttrValue("boundaries", &value);
    if (!status.ok()) {
      ctx.SetStatus(std::move(status));
      return;
    }
    if (value.type == TSR_ATTR_TYPE_LIST_FLOAT) {
      boundaries_.assign(value.list_f, value.list_f + value.list_size);
    } else if (value.list_size != 0 || value.type != TSR_ATTR_TYPE_LIST_INT) {
      ctx.SetStatus(sdk::InvalidArgument("attr 'boundaries' of node '", ctx.node_name(),
                                         "' must be a list of floats"));
      return;
    }
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      ctx.SetStatus(sdk::InvalidArgument("Expected sorted boundaries"));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.shape(), &out));
    return DispatchTypes<int32_t, int64_t, float, double>(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<const T>();
      int32_t* o = out.data<int32_t>();
      const float* first = boundaries_.data();
      const float* last = first + boundaries_.size();
      ctx.ParallelFor(out.num_elements(), 20, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          // The first boundary above the value; no boundary is above a NaN, which so lands in
          // the last bucket.
          const T value = in[i];
          const float* it =
              std::upper_bound(first, last, value, [](T v, float b) { return v < b; });
          o[i] = static_cast<int32_t>(it - first);
        }
      });
      return OkStatus();
    });
  }

 private:
  std::vector<float> boundaries_;
};

}  // namespace

Status RegisterBucketizeKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<BucketizeKernel>(
      registrar, "Bucketize", kCpu,
      {{"T", {TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE}}},
      TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
