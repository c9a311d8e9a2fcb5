// Data type names and sizes for plugins (the host's own helpers are not linked into plugins).
#ifndef TESSERA_SDK_TYPES_H_
#define TESSERA_SDK_TYPES_H_

#include <cstddef>
#include <cstdint>

#include "tessera/plugin_api/common.h"

namespace tessera::sdk {

// TensorFlow's lowercase name without "DT_": "float", "int32", "bool"; "unknown" otherwise.
inline const char* DataTypeName(TSR_DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_FLOAT:
      return "float";
    case TSR_DTYPE_DOUBLE:
      return "double";
    case TSR_DTYPE_INT32:
      return "int32";
    case TSR_DTYPE_UINT8:
      return "uint8";
    case TSR_DTYPE_INT16:
      return "int16";
    case TSR_DTYPE_INT8:
      return "int8";
    case TSR_DTYPE_STRING:
      return "string";
    case TSR_DTYPE_COMPLEX64:
      return "complex64";
    case TSR_DTYPE_INT64:
      return "int64";
    case TSR_DTYPE_BOOL:
      return "bool";
    case TSR_DTYPE_QINT8:
      return "qint8";
    case TSR_DTYPE_QUINT8:
      return "quint8";
    case TSR_DTYPE_QINT32:
      return "qint32";
    case TSR_DTYPE_BFLOAT16:
      return "bfloat16";
    case TSR_DTYPE_QINT16:
      return "qint16";
    case TSR_DTYPE_QUINT16:
      return "quint16";
    case TSR_DTYPE_UINT16:
      return "uint16";
    case TSR_DTYPE_COMPLEX128:
      return "complex128";
    case TSR_DTYPE_HALF:
      return "half";
    case TSR_DTYPE_RESOURCE:
      return "resource";
    case TSR_DTYPE_VARIANT:
      return "variant";
    case TSR_DTYPE_UINT32:
      return "uint32";
    case TSR_DTYPE_UINT64:
      return "uint64";
    case TSR_DTYPE_INVALID:
    case TSR_DTYPE_MAX_ENUM:  // not a type
      return "invalid";
  }
  return "unknown";
}

// Bytes per element of a fixed-size type; 0 for string, resource, variant and invalid.
inline size_t DataTypeSize(TSR_DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_BOOL:
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_INT8:
    case TSR_DTYPE_QINT8:
    case TSR_DTYPE_QUINT8:
      return 1;
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_QINT16:
    case TSR_DTYPE_QUINT16:
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:
      return 2;
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_UINT32:
    case TSR_DTYPE_QINT32:
      return 4;
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT64:
    case TSR_DTYPE_COMPLEX64:
      return 8;
    case TSR_DTYPE_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

// Maps a C++ element type to its TSR_DataType.
template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr TSR_DataType value = TSR_DTYPE_FLOAT;
};
template <>
struct DataTypeOf<double> {
  static constexpr TSR_DataType value = TSR_DTYPE_DOUBLE;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_INT32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_INT64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr TSR_DataType value = TSR_DTYPE_BOOL;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_UINT8;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_INT8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_INT16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_UINT16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_UINT32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr TSR_DataType value = TSR_DTYPE_UINT64;
};

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_TYPES_H_
