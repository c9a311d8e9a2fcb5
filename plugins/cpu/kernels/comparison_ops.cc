// Less, LessEqual, Greater, GreaterEqual, Equal and NotEqual on CPU (float, double and the 8- to
// 64-bit integer types; Equal and NotEqual also bool). IEEE semantics: every comparison with a
// NaN is false except NotEqual, which is true.
#include <cstdint>
#include <vector>

#include "plugins/cpu/kernels/bool_binary_op.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

struct LessFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};
struct LessEqualFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct GreaterFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};
struct GreaterEqualFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};
struct EqualFn {
  static constexpr bool kIncompatibleShapesResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x == y;
  }
};
struct NotEqualFn {
  static constexpr bool kIncompatibleShapesResult = true;
  template <typename T>
  bool operator()(T x, T y) const {
    return x != y;
  }
};

// TensorFlow's CPU registrations of the ordering comparisons, restricted to what Tessera ships
// (no half or bfloat16).
const std::vector<TSR_DataType>& OrderedTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32,  TSR_DTYPE_INT64,  TSR_DTYPE_UINT8,
      TSR_DTYPE_INT8,  TSR_DTYPE_INT16,  TSR_DTYPE_UINT16, TSR_DTYPE_UINT32, TSR_DTYPE_UINT64};
  return *types;
}
// ... and of Equal and NotEqual, which also take bool.
const std::vector<TSR_DataType>& EqualityTypes() {
  static const auto* types = [] {
    auto* list = new std::vector<TSR_DataType>(OrderedTypes());
    list->push_back(TSR_DTYPE_BOOL);
    return list;
  }();
  return *types;
}

template <typename Fn>
Status RegisterOrdered(TSR_Registrar* registrar, const char* op_name) {
  return RegisterBoolBinaryKernel<Fn, float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                                  uint16_t, uint32_t, uint64_t>(registrar, op_name, OrderedTypes());
}

template <typename Fn>
Status RegisterEquality(TSR_Registrar* registrar, const char* op_name) {
  return RegisterBoolBinaryKernel<Fn, float, double, int32_t, int64_t, uint8_t, int8_t, int16_t,
                                  uint16_t, uint32_t, uint64_t, bool>(registrar, op_name,
                                                                      EqualityTypes());
}

}  // namespace

Status RegisterComparisonKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterOrdered<LessFn>(registrar, "Less"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterOrdered<LessEqualFn>(registrar, "LessEqual"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterOrdered<GreaterFn>(registrar, "Greater"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterOrdered<GreaterEqualFn>(registrar, "GreaterEqual"));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterEquality<EqualFn>(registrar, "Equal"));
  return RegisterEquality<NotEqualFn>(registrar, "NotEqual");
}

}  // namespace tessera::cpu
