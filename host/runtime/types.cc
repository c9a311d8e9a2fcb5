// Names and sizes of data types.
#include "host/runtime/types.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace tessera {
namespace {

struct TypeInfo {
  DataType dtype;
  const char* name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {
    {TSR_DTYPE_FLOAT, "float", 4},       {TSR_DTYPE_DOUBLE, "double", 8},
    {TSR_DTYPE_INT32, "int32", 4},       {TSR_DTYPE_UINT8, "uint8", 1},
    {TSR_DTYPE_INT16, "int16", 2},       {TSR_DTYPE_INT8, "int8", 1},
    {TSR_DTYPE_STRING, "string", 0},     {TSR_DTYPE_COMPLEX64, "complex64", 8},
    {TSR_DTYPE_INT64, "int64", 8},       {TSR_DTYPE_BOOL, "bool", 1},
    {TSR_DTYPE_QINT8, "qint8", 1},       {TSR_DTYPE_QUINT8, "quint8", 1},
    {TSR_DTYPE_QINT32, "qint32", 4},     {TSR_DTYPE_BFLOAT16, "bfloat16", 2},
    {TSR_DTYPE_QINT16, "qint16", 2},     {TSR_DTYPE_QUINT16, "quint16", 2},
    {TSR_DTYPE_UINT16, "uint16", 2},     {TSR_DTYPE_COMPLEX128, "complex128", 16},
    {TSR_DTYPE_HALF, "half", 2},         {TSR_DTYPE_RESOURCE, "resource", 0},
    {TSR_DTYPE_VARIANT, "variant", 0},   {TSR_DTYPE_UINT32, "uint32", 4},
    {TSR_DTYPE_UINT64, "uint64", 8},
};

const TypeInfo* Find(DataType dtype) {
  for (const TypeInfo& info : kTypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

size_t DataTypeSize(DataType dtype) {
  const TypeInfo* info = Find(dtype);
  return info == nullptr ? 0 : info->size;
}

std::string DataTypeString(DataType dtype) {
  if (IsRefType(dtype)) return DataTypeString(BaseType(dtype)) + "_ref";
  const TypeInfo* info = Find(dtype);
  if (info == nullptr) return "invalid(" + std::to_string(static_cast<int>(dtype)) + ")";
  return info->name;
}

bool DataTypeFromString(absl::string_view name, DataType* dtype) {
  std::string lower = absl::AsciiStrToLower(name);
  absl::string_view n = lower;
  if (absl::StartsWith(n, "dt_")) n.remove_prefix(3);
  if (n == "float32") n = "float";
  if (n == "float64") n = "double";
  if (n == "float16") n = "half";
  for (const TypeInfo& info : kTypes) {
    if (n == info.name) {
      *dtype = info.dtype;
      return true;
    }
  }
  return false;
}

}  // namespace tessera
