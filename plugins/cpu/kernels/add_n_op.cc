// AddN on CPU (float, double, int32, int64): the element-wise sum of N same-shape inputs, summed
// in input order over shards of the output on the host's pool.
#include <Eigen/Core>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <typename T>
using ConstArray = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Unaligned>;
template <typename T>
using MutableArray = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Unaligned>;

class AddNKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    const int n = ctx.num_inputs();
    if (n < 1) return sdk::InvalidArgument("AddN node '", ctx.node_name(), "' has no inputs");
    std::vector<TensorView> inputs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &inputs[i]));
    const Shape shape = inputs[0].shape();
    for (int i = 1; i < n; ++i) {
      if (inputs[i].shape() != shape) {
        return sdk::InvalidArgument(
            "Inputs to operation ", ctx.node_name(),
            " of type AddN must have the same size and shape.  Input 0: ", shape.DebugString(),
            " != input ", i, ": ", inputs[i].shape().DebugString());
      }
      if (inputs[i].dtype() != inputs[0].dtype()) {
        return sdk::InvalidArgument("node '", ctx.node_name(), "' has inputs of different dtypes: ",
                                    sdk::DataTypeName(inputs[0].dtype()), " vs. ",
                                    sdk::DataTypeName(inputs[i].dtype()));
      }
    }
    if (n == 1) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    // Element k of the output is written after every input's element k is read, so input 0's
    // buffer may be reused.
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, out.dtype(), [&](auto tag) {
      Sum<decltype(tag)>(ctx, inputs, out);
      return OkStatus();
    });
  }

 private:
  template <typename T>
  static void Sum(const KernelContext& ctx, const std::vector<TensorView>& inputs,
                  const TensorView& out) {
    T* dst = out.data<T>();
    const int64_t total = out.num_elements();
    const int64_t cost = static_cast<int64_t>(inputs.size());
    if constexpr (std::is_integral_v<T>) {
      // Integer sums wrap around in two's complement, as TensorFlow's do.
      ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
          T acc = inputs[0].data<const T>()[k];
          for (size_t i = 1; i < inputs.size(); ++i) {
            acc = WrappingAdd(acc, inputs[i].data<const T>()[k]);
          }
          dst[k] = acc;
        }
      });
      return;
    }
    ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
      const Eigen::Index size = static_cast<Eigen::Index>(end - begin);
      MutableArray<T> acc(dst + begin, size);
      acc = ConstArray<T>(inputs[0].data<const T>() + begin, size) +
            ConstArray<T>(inputs[1].data<const T>() + begin, size);
      for (size_t i = 2; i < inputs.size(); ++i) {
        acc += ConstArray<T>(inputs[i].data<const T>() + begin, size);
      }
    });
  }
};

}  // namespace

Status RegisterAddNKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<AddNKernel>(registrar, "AddN", kCpu, {{"T", RealNumberTypes()}});
}

}  // namespace tessera::cpu
