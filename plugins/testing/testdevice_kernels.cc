// Kernels on TESTDEV: Const, Identity, AddV2, Sub, Mul, MatMul, Less and Greater. They check their
// arguments and allocate their outputs at once, then queue the work on the device's compute
// stream (they read inputs unscrambled and write outputs scrambled there), and refuse any input
// that is not memory of their own device (a host that hands a device kernel host memory is caught
// here).
#include "plugins/testing/testdevice_kernels.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "plugins/testing/testdevice_device.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::testdevice {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

const std::vector<TSR_DataType>& ArithmeticTypes() {
  static const auto* types =
      new std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

// The CPU plugin's Const and Identity types.
const std::vector<TSR_DataType>& AllTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT,    TSR_DTYPE_DOUBLE,    TSR_DTYPE_INT32,     TSR_DTYPE_INT64,
      TSR_DTYPE_BOOL,     TSR_DTYPE_UINT8,     TSR_DTYPE_INT8,      TSR_DTYPE_INT16,
      TSR_DTYPE_UINT16,   TSR_DTYPE_UINT32,    TSR_DTYPE_UINT64,    TSR_DTYPE_HALF,
      TSR_DTYPE_BFLOAT16, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};
  return *types;
}

// Input `index`, which must lie in the memory of the kernel's own device.
Status GetDeviceInput(KernelContext& ctx, int index, TensorView* view) {
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(index, view));
  TSR_Device* device = ctx.device();
  if (device == nullptr) {
    return sdk::Internal("node '", ctx.node_name(), "' runs on TESTDEV without a device");
  }
  Status in_memory = device->memory.CheckRange("kernel input", view->raw_data(), view->byte_size());
  if (!in_memory.ok()) {
    return sdk::InvalidArgument("input ", index, " of node '", ctx.node_name(),
                                "' is not in the memory of its device: ", in_memory.message());
  }
  return sdk::OkStatus();
}

// ---- Const and Identity ------------------------------------------------------------------------

class ConstKernel : public sdk::Kernel {
 public:
  explicit ConstKernel(KernelConstruction& ctx) {
    TensorView value;
    TSR_DataType dtype = TSR_DTYPE_INVALID;
    ctx.SetStatus(ctx.GetAttr("value", &value));
    ctx.SetStatus(ctx.GetAttr("dtype", &dtype));
    if (!ctx.ok()) return;
    if (value.dtype() != dtype) {
      ctx.SetStatus(sdk::InvalidArgument("Type mismatch between value (",
                                         sdk::DataTypeName(value.dtype()), ") and dtype (",
                                         sdk::DataTypeName(dtype), ")"));
      return;
    }
    if (value.rank() > Shape::kMaxRank) {
      ctx.SetStatus(sdk::InvalidArgument("value of Const node '", ctx.node_name(), "' has rank ",
                                         value.rank(), ", more than ", Shape::kMaxRank));
      return;
    }
    shape_ = value.shape();
    const size_t expected =
        static_cast<size_t>(shape_.num_elements()) * sdk::DataTypeSize(value.dtype());
    if (value.byte_size() != expected) {
      ctx.SetStatus(sdk::InvalidArgument("value of Const node '", ctx.node_name(), "' holds ",
                                         value.byte_size(), " bytes, expected ", expected));
      return;
    }
    // The attribute is plain host memory; the device gets it scrambled.
    const auto* bytes = static_cast<const char*>(value.raw_data());
    bytes_ = std::make_shared<const std::vector<char>>(bytes, bytes + expected);
  }

  Status Compute(KernelContext& ctx) override {
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape_, &out));
    void* dst = out.raw_data();
    // The queued copy may run after this kernel is gone (a plan that fails after computing its
    // constants): it holds the bytes itself.
    return RunOn(ctx.stream(), [bytes = bytes_, dst] {
      ScrambleCopy(dst, bytes->data(), bytes->size());
      return sdk::OkStatus();
    });
  }

 private:
  Shape shape_;
  std::shared_ptr<const std::vector<char>> bytes_ = std::make_shared<const std::vector<char>>();
};

class IdentityKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(GetDeviceInput(ctx, 0, &input));
    return ctx.SetOutputFromInput(0, 0);
  }
};

// ---- Element-wise binary ops with TensorFlow (numpy) broadcasting ------------------------------

// The broadcast output shape and, per output dimension, the element strides of x and y (0 where
// that input is broadcast).
struct Broadcast {
  Shape out;
  int64_t x_strides[Shape::kMaxRank] = {};
  int64_t y_strides[Shape::kMaxRank] = {};

  static Status Make(const Shape& x, const Shape& y, Broadcast* b) {
    const int rank = std::max(x.rank(), y.rank());
    int64_t x_stride = 1;
    int64_t y_stride = 1;
    int64_t dims[Shape::kMaxRank] = {};
    for (int d = rank - 1; d >= 0; --d) {
      const int xd = d - (rank - x.rank());
      const int yd = d - (rank - y.rank());
      const int64_t xs = xd < 0 ? 1 : x.dim(xd);
      const int64_t ys = yd < 0 ? 1 : y.dim(yd);
      if (xs != ys && xs != 1 && ys != 1) {
        return sdk::InvalidArgument("Incompatible shapes: ", x.DebugString(), " vs. ",
                                    y.DebugString());
      }
      dims[d] = xs == 1 ? ys : xs;
      b->x_strides[d] = xs == 1 ? 0 : x_stride;
      b->y_strides[d] = ys == 1 ? 0 : y_stride;
      x_stride *= xs;
      y_stride *= ys;
    }
    for (int d = 0; d < rank; ++d) b->out.AddDim(dims[d]);
    return sdk::OkStatus();
  }

  // Element offsets of x and y for output element `index`.
  void Offsets(int64_t index, int64_t* x_offset, int64_t* y_offset) const {
    *x_offset = 0;
    *y_offset = 0;
    for (int d = out.rank() - 1; d >= 0; --d) {
      const int64_t i = index % out.dim(d);
      index /= out.dim(d);
      *x_offset += i * x_strides[d];
      *y_offset += i * y_strides[d];
    }
  }
};

// Integer arithmetic wraps (two's complement) instead of overflowing.
template <typename T, typename Op>
T Wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(op(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return op(a, b);
  }
}

struct AddFn {
  template <typename T>
  T operator()(T a, T b) const {
    return Wrapping(a, b, [](auto x, auto y) { return x + y; });
  }
};
struct SubFn {
  template <typename T>
  T operator()(T a, T b) const {
    return Wrapping(a, b, [](auto x, auto y) { return x - y; });
  }
};
struct MulFn {
  template <typename T>
  T operator()(T a, T b) const {
    return Wrapping(a, b, [](auto x, auto y) { return x * y; });
  }
};
struct LessFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct GreaterFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};

template <typename Fn>
class BinaryKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView y;
    TESSERA_SDK_RETURN_IF_ERROR(GetDeviceInput(ctx, 0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(GetDeviceInput(ctx, 1, &y));
    Broadcast broadcast;
    TESSERA_SDK_RETURN_IF_ERROR(Broadcast::Make(x.shape(), y.shape(), &broadcast));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, broadcast.out, &out));
    const void* xd = x.raw_data();
    const void* yd = y.raw_data();
    void* od = out.raw_data();
    switch (x.dtype()) {
      case TSR_DTYPE_FLOAT:
        return RunOn(ctx.stream(), [=] { return Run<float>(broadcast, xd, yd, od); });
      case TSR_DTYPE_INT32:
        return RunOn(ctx.stream(), [=] { return Run<int32_t>(broadcast, xd, yd, od); });
      case TSR_DTYPE_INT64:
        return RunOn(ctx.stream(), [=] { return Run<int64_t>(broadcast, xd, yd, od); });
      default:
        return sdk::InvalidArgument("node '", ctx.node_name(), "': TESTDEV has no kernel for ",
                                    sdk::DataTypeName(x.dtype()));
    }
  }

 private:
  // Runs on the device's compute stream: it sees only the copied broadcast and raw pointers.
  template <typename T>
  static Status Run(const Broadcast& broadcast, const void* x, const void* y, void* out) {
    using Out = decltype(Fn()(T(), T()));
    const int64_t n = broadcast.out.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      int64_t xi;
      int64_t yi;
      broadcast.Offsets(i, &xi, &yi);
      const Out value = Fn()(LoadScrambled<T>(x, xi), LoadScrambled<T>(y, yi));
      StoreScrambled<Out>(out, i, value);
    }
    return sdk::OkStatus();
  }
};

// ---- MatMul (float) -----------------------------------------------------------------------------

class MatMulKernel : public sdk::Kernel {
 public:
  explicit MatMulKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("transpose_a", &transpose_a_));
    ctx.SetStatus(ctx.GetAttr("transpose_b", &transpose_b_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView a;
    TensorView b;
    TESSERA_SDK_RETURN_IF_ERROR(GetDeviceInput(ctx, 0, &a));
    TESSERA_SDK_RETURN_IF_ERROR(GetDeviceInput(ctx, 1, &b));
    if (a.rank() != 2 || b.rank() != 2) {
      return sdk::InvalidArgument("In[0] and In[1] must be matrices: In[0]: ",
                                  a.shape().DebugString(), ", In[1]: ", b.shape().DebugString());
    }
    const int64_t m = a.dim(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim(transpose_a_ ? 0 : 1);
    const int64_t k_b = b.dim(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim(transpose_b_ ? 0 : 1);
    if (k != k_b) {
      return sdk::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                  ", In[1]: ", b.shape().DebugString());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{m, n}, &out));
    const void* ad = a.raw_data();
    const void* bd = b.raw_data();
    void* od = out.raw_data();
    const bool transpose_a = transpose_a_;
    const bool transpose_b = transpose_b_;
    return RunOn(ctx.stream(), [=] {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          float sum = 0;
          for (int64_t p = 0; p < k; ++p) {
            const int64_t a_index = transpose_a ? p * m + i : i * k + p;
            const int64_t b_index = transpose_b ? j * k + p : p * n + j;
            sum += LoadScrambled<float>(ad, a_index) * LoadScrambled<float>(bd, b_index);
          }
          StoreScrambled<float>(od, i * n + j, sum);
        }
      }
      return sdk::OkStatus();
    });
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

}  // namespace

sdk::Status RegisterTestDeviceKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<ConstKernel>(registrar, "Const", kDeviceType, {{"dtype", AllTypes()}},
                                       kCheap | TSR_KERNEL_FLAG_CONSTANT_OUTPUTS));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<IdentityKernel>(registrar, "Identity", kDeviceType,
                                                              {{"T", AllTypes()}}, kCheap));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BinaryKernel<AddFn>>(registrar, "AddV2", kDeviceType,
                                                                   {{"T", ArithmeticTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BinaryKernel<SubFn>>(registrar, "Sub", kDeviceType,
                                                                   {{"T", ArithmeticTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BinaryKernel<MulFn>>(registrar, "Mul", kDeviceType,
                                                                   {{"T", ArithmeticTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BinaryKernel<LessFn>>(registrar, "Less", kDeviceType,
                                                                    {{"T", ArithmeticTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BinaryKernel<GreaterFn>>(
      registrar, "Greater", kDeviceType, {{"T", ArithmeticTypes()}}));
  return sdk::RegisterKernel<MatMulKernel>(registrar, "MatMul", kDeviceType,
                                           {{"T", {TSR_DTYPE_FLOAT}}});
}

}  // namespace tessera::testdevice
