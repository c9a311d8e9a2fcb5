// TemplateScale (float, double) and AddV2 (float, with numpy broadcasting) on TEMPLATE devices.
// Kernels are built with the SDK's Kernel class: Compute may run concurrently for different
// steps, so per-step data lives on the stack, never in members; exceptions become statuses.
#include "template_kernels.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "tessera/sdk/kernel.h"
#include "tessera/sdk/kernel_context.h"
#include "tessera/sdk/shape.h"
#include "template_device.h"
#include "template_ops.h"

namespace template_plugin {
namespace {

using tessera::sdk::InvalidArgument;
using tessera::sdk::Kernel;
using tessera::sdk::KernelConstruction;
using tessera::sdk::KernelContext;
using tessera::sdk::OkStatus;
using tessera::sdk::Shape;
using tessera::sdk::Status;
using tessera::sdk::TensorView;

// Estimated cycles per element, for the host's ParallelFor to size its shards.
constexpr int64_t kCyclesPerElement = 2;

// y = x * scale. The attribute is read once, when the kernel is created for a node.
template <typename T>
class ScaleKernel : public Kernel {
 public:
  explicit ScaleKernel(KernelConstruction& ctx) { ctx.SetStatus(ctx.GetAttr("scale", &scale_)); }

  Status Compute(KernelContext& ctx) override {
    const TensorView x = ctx.input(0);
    TensorView y;
    // Writes in place when the host says x's buffer is not used by anything else.
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &y));
    const T* in = x.data<T>();
    T* out = y.data<T>();
    const T scale = static_cast<T>(scale_);
    ctx.ParallelFor(x.num_elements(), kCyclesPerElement, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = in[i] * scale;
    });
    return OkStatus();
  }

 private:
  float scale_ = 1.0f;
};

// numpy's rule: dimensions aligned from the right must be equal or 1.
Status BroadcastShape(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out) {
  const int rank = std::max(a.rank(), b.rank());
  *out = Shape();
  for (int i = 0; i < rank; ++i) {
    const int from_right = rank - 1 - i;
    const int64_t da = from_right < a.rank() ? a.dim(a.rank() - 1 - from_right) : 1;
    const int64_t db = from_right < b.rank() ? b.dim(b.rank() - 1 - from_right) : 1;
    if (da != db && da != 1 && db != 1) {
      return InvalidArgument("AddV2 node '", ctx.node_name(), "' on ", kDeviceType,
                             ": incompatible shapes ", a.DebugString(), " and ", b.DebugString());
    }
    out->AddDim(da == 1 ? db : da);
  }
  return OkStatus();
}

// Element strides of `in` seen through the broadcast shape `out`: 0 along broadcast dimensions.
std::array<int64_t, Shape::kMaxRank> BroadcastStrides(const Shape& in, const Shape& out) {
  std::array<int64_t, Shape::kMaxRank> strides{};
  int64_t stride = 1;
  for (int i = out.rank() - 1, j = in.rank() - 1; i >= 0; --i, --j) {
    const int64_t dim = j >= 0 ? in.dim(j) : 1;
    strides[i] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  return strides;
}

template <typename T>
class AddKernel : public Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    const TensorView a = ctx.input(0);
    const TensorView b = ctx.input(1);
    Shape shape;
    TESSERA_SDK_RETURN_IF_ERROR(BroadcastShape(ctx, a.shape(), b.shape(), &shape));
    TensorView z;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0, 1}, 0, shape, &z));
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* pz = z.data<T>();
    const int64_t n = shape.num_elements();
    if (a.shape() == b.shape()) {  // the common case, in parallel
      ctx.ParallelFor(n, kCyclesPerElement, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) pz[i] = pa[i] + pb[i];
      });
      return OkStatus();
    }
    // Walks the output in order, carrying an index per dimension. The host forwards an input
    // only when it has the output's byte size, so it holds one element per output element and
    // is read at the element being written: working in place is safe.
    const auto stride_a = BroadcastStrides(a.shape(), shape);
    const auto stride_b = BroadcastStrides(b.shape(), shape);
    std::array<int64_t, Shape::kMaxRank> index{};
    int64_t offset_a = 0;
    int64_t offset_b = 0;
    for (int64_t i = 0; i < n; ++i) {
      pz[i] = pa[offset_a] + pb[offset_b];
      for (int d = shape.rank() - 1; d >= 0; --d) {
        offset_a += stride_a[d];
        offset_b += stride_b[d];
        if (++index[d] < shape.dim(d)) break;
        offset_a -= stride_a[d] * shape.dim(d);
        offset_b -= stride_b[d] * shape.dim(d);
        index[d] = 0;
      }
    }
    return OkStatus();
  }
};

}  // namespace

Status RegisterKernels(TSR_Registrar* registrar) {
  using tessera::sdk::RegisterKernel;
  TESSERA_SDK_RETURN_IF_ERROR(RegisterKernel<ScaleKernel<float>>(registrar, kScaleOp, kDeviceType,
                                                             {{"T", {TSR_DTYPE_FLOAT}}}));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterKernel<ScaleKernel<double>>(registrar, kScaleOp, kDeviceType,
                                                              {{"T", {TSR_DTYPE_DOUBLE}}}));
  return RegisterKernel<AddKernel<float>>(registrar, "AddV2", kDeviceType,
                                          {{"T", {TSR_DTYPE_FLOAT}}});
}

}  // namespace template_plugin
