// kit_fake_wrong_kernel: a correct device (KITWRONG, host memory) and an AddV2 kernel on it that
// computes x + y with broadcasting, then adds 1 to element 0: the kernel suite must catch it.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

#include "kit/fakes/fake_device.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/plugin.h"

namespace tessera::kit_fakes {
namespace {

constexpr char kDeviceType[] = "KITWRONG";

// NumPy broadcasting of two shapes; false when they do not broadcast.
bool BroadcastShape(const sdk::TensorView& x, const sdk::TensorView& y, std::vector<int64_t>* out) {
  const int rank = std::max(x.rank(), y.rank());
  out->assign(rank, 1);
  for (int i = 0; i < rank; ++i) {
    const int64_t a = i < rank - x.rank() ? 1 : x.dim(i - (rank - x.rank()));
    const int64_t b = i < rank - y.rank() ? 1 : y.dim(i - (rank - y.rank()));
    if (a != b && a != 1 && b != 1) return false;
    (*out)[i] = a == 1 ? b : a;
  }
  return true;
}

// The flat index into `view` of the output element at `index` (dims of `shape`).
int64_t SourceIndex(const sdk::TensorView& view, const std::vector<int64_t>& shape, int64_t index) {
  int64_t source = 0;
  int64_t stride = 1;
  const int offset = static_cast<int>(shape.size()) - view.rank();
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    const int64_t coordinate = index % shape[i];
    index /= shape[i];
    if (i < offset) continue;
    const int64_t dim = view.dim(i - offset);
    if (dim != 1) source += coordinate * stride;
    stride *= dim;
  }
  return source;
}

template <typename T>
void Add(const sdk::TensorView& x, const sdk::TensorView& y, const std::vector<int64_t>& shape,
         const sdk::TensorView& z) {
  const int64_t n = z.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    z.data<T>()[i] = x.data<T>()[SourceIndex(x, shape, i)] + y.data<T>()[SourceIndex(y, shape, i)];
  }
  if (n > 0) z.data<T>()[0] += T(1);  // the wrong result the kernel suite must find
}

class WrongAddV2 : public sdk::Kernel {
 public:
  sdk::Status Compute(sdk::KernelContext& ctx) override {
    const sdk::TensorView x = ctx.input(0);
    const sdk::TensorView y = ctx.input(1);
    std::vector<int64_t> shape;
    if (!BroadcastShape(x, y, &shape)) {
      return sdk::InvalidArgument("AddV2: shapes of ", ctx.node_name(), " do not broadcast");
    }
    sdk::TensorView z;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, sdk::Shape(static_cast<int>(shape.size()), shape.data()), &z));
    switch (x.dtype()) {
      case TSR_DTYPE_FLOAT:
        Add<float>(x, y, shape, z);
        break;
      case TSR_DTYPE_DOUBLE:
        Add<double>(x, y, shape, z);
        break;
      case TSR_DTYPE_INT32:
        Add<int32_t>(x, y, shape, z);
        break;
      case TSR_DTYPE_INT64:
        Add<int64_t>(x, y, shape, z);
        break;
      default:
        return sdk::Unimplemented("AddV2 on ", kDeviceType, ": dtype ", x.dtype());
    }
    return sdk::OkStatus();
  }
};

}  // namespace
}  // namespace tessera::kit_fakes

extern "C" TSR_PLUGIN_EXPORT TSR_Status* TSR_Plugin_Init(const TSR_Plugin_Init_Args* args) {
  namespace fakes = tessera::kit_fakes;
  const tessera::sdk::PluginInitResult init =
      tessera::sdk::InitializePlugin(args, {"kit_fake_wrong_kernel", "0.1.0", 0});
  if (!init.proceed) return init.status;
  try {
    tessera::sdk::Status status = fakes::RegisterFakeDevice(args->registrar, fakes::kDeviceType,
                                                            fakes::Defect::kNone,
                                                            /*host_memory=*/true);
    if (!status.ok()) return status.Release();
    return tessera::sdk::RegisterKernel<fakes::WrongAddV2>(
               args->registrar, "AddV2", fakes::kDeviceType,
               {{"T", {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64}}})
        .Release();
  } catch (const std::exception& e) {
    return tessera::sdk::Internal("kit_fake_wrong_kernel initialization threw: ", e.what())
        .Release();
  }
}
