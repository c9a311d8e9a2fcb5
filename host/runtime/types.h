// Data types (TensorFlow's DataType numbering, shared with the C ABI) and their names and sizes.
#ifndef TESSERA_HOST_RUNTIME_TYPES_H_
#define TESSERA_HOST_RUNTIME_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "tessera/plugin_api/common.h"

namespace tessera {

using DataType = TSR_DataType;

// Bytes per element of a fixed-size type; 0 for types without a flat layout (string, resource,
// variant) and for DT_INVALID.
size_t DataTypeSize(DataType dtype);

// TensorFlow's name for the type without the "DT_" prefix, lowercase: "float", "int32", "bool".
std::string DataTypeString(DataType dtype);

// Parses the names DataTypeString produces, TensorFlow's "DT_FLOAT" spelling and numpy-ish
// aliases ("float32", "float64"). Returns false for anything else.
bool DataTypeFromString(absl::string_view name, DataType* dtype);

// TensorFlow's reference types (DT_FLOAT_REF = DT_FLOAT + 100 ...): the type of an edge that
// carries a ref variable (VariableV2's output, Assign's `ref` input). They appear only in graphs;
// a tensor never has one (the edge's value is a resource handle to the variable).
inline constexpr int kDataTypeRefOffset = 100;
inline bool IsRefType(DataType dtype) { return static_cast<int>(dtype) > kDataTypeRefOffset; }
inline DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(static_cast<int>(dtype) - kDataTypeRefOffset)
                          : dtype;
}
inline DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype
                          : static_cast<DataType>(static_cast<int>(dtype) + kDataTypeRefOffset);
}

// True for the types the runtime can hold in a dense tensor (fixed-size types).
inline bool IsDenseDataType(DataType dtype) { return DataTypeSize(dtype) != 0; }

// Maps a C++ element type to its DataType.
template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = TSR_DTYPE_FLOAT;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = TSR_DTYPE_DOUBLE;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = TSR_DTYPE_INT32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = TSR_DTYPE_INT64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = TSR_DTYPE_BOOL;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = TSR_DTYPE_UINT8;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = TSR_DTYPE_INT8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = TSR_DTYPE_INT16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = TSR_DTYPE_UINT16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = TSR_DTYPE_UINT32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = TSR_DTYPE_UINT64;
};
// String tensors hold std::string elements and live in host memory only (see Tensor).
template <>
struct DataTypeOf<std::string> {
  static constexpr DataType value = TSR_DTYPE_STRING;
};

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_TYPES_H_
