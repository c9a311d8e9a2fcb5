// Formatting of fetched tensors for the terminal.
#include "host/tools/tensor_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "host/client/npy.h"

namespace tessera {
namespace cli {
namespace {

// 4 decimals without trailing zeros ("0.9786", "0.25", "3"), or 4 significant digits with an
// exponent when `scientific` (for tensors whose values fixed notation would hide).
std::string FormatFloat(double value, bool scientific) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  if (scientific) {
    std::snprintf(buffer, sizeof(buffer), "%.4g", value);
    return buffer;
  }
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

bool IsFloatingType(DataType dtype) {
  return dtype == TSR_DTYPE_FLOAT || dtype == TSR_DTYPE_DOUBLE || dtype == TSR_DTYPE_HALF ||
         dtype == TSR_DTYPE_BFLOAT16 || dtype == TSR_DTYPE_COMPLEX64 ||
         dtype == TSR_DTYPE_COMPLEX128;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

float Bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

std::string FormatValue(const Tensor& t, int64_t i, bool sci) {
  switch (t.dtype()) {
    case TSR_DTYPE_FLOAT: return FormatFloat(t.data<float>()[i], sci);
    case TSR_DTYPE_DOUBLE: return FormatFloat(t.data<double>()[i], sci);
    case TSR_DTYPE_HALF: return FormatFloat(HalfToFloat(t.data<uint16_t>()[i]), sci);
    case TSR_DTYPE_BFLOAT16: return FormatFloat(Bfloat16ToFloat(t.data<uint16_t>()[i]), sci);
    case TSR_DTYPE_INT8: return absl::StrCat(static_cast<int>(t.data<int8_t>()[i]));
    case TSR_DTYPE_QINT8: return absl::StrCat(static_cast<int>(t.data<int8_t>()[i]));
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_QUINT8: return absl::StrCat(static_cast<int>(t.data<uint8_t>()[i]));
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_QINT16: return absl::StrCat(t.data<int16_t>()[i]);
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_QUINT16: return absl::StrCat(t.data<uint16_t>()[i]);
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_QINT32: return absl::StrCat(t.data<int32_t>()[i]);
    case TSR_DTYPE_UINT32: return absl::StrCat(t.data<uint32_t>()[i]);
    case TSR_DTYPE_INT64: return absl::StrCat(t.data<int64_t>()[i]);
    case TSR_DTYPE_UINT64: return absl::StrCat(t.data<uint64_t>()[i]);
    case TSR_DTYPE_BOOL: return t.data<bool>()[i] ? "true" : "false";
    case TSR_DTYPE_COMPLEX64: {
      const float* p = t.data<float>() + 2 * i;
      return absl::StrCat(FormatFloat(p[0], sci), p[1] < 0 ? "" : "+", FormatFloat(p[1], sci), "j");
    }
    case TSR_DTYPE_COMPLEX128: {
      const double* p = t.data<double>() + 2 * i;
      return absl::StrCat(FormatFloat(p[0], sci), p[1] < 0 ? "" : "+", FormatFloat(p[1], sci), "j");
    }
    default: return "?";
  }
}

// |value| of a floating-point element (the larger part's for complex numbers).
double Magnitude(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case TSR_DTYPE_FLOAT: return std::fabs(t.data<float>()[i]);
    case TSR_DTYPE_DOUBLE: return std::fabs(t.data<double>()[i]);
    case TSR_DTYPE_HALF: return std::fabs(HalfToFloat(t.data<uint16_t>()[i]));
    case TSR_DTYPE_BFLOAT16: return std::fabs(Bfloat16ToFloat(t.data<uint16_t>()[i]));
    case TSR_DTYPE_COMPLEX64:
      return std::max(std::fabs(t.data<float>()[2 * i]), std::fabs(t.data<float>()[2 * i + 1]));
    case TSR_DTYPE_COMPLEX128:
      return std::max(std::fabs(t.data<double>()[2 * i]), std::fabs(t.data<double>()[2 * i + 1]));
    default: return 0;
  }
}

}  // namespace

std::string CanonicalTensorName(absl::string_view name) {
  if (name.find(':') != absl::string_view::npos) return std::string(name);
  return absl::StrCat(name, ":0");
}

std::string OutputFileName(absl::string_view tensor_name) {
  return absl::StrCat(absl::StrReplaceAll(tensor_name, {{"/", "_"}, {":", "_"}}), ".npy");
}

std::string TypeName(DataType dtype) {
  std::string numpy = NumpyTypeName(dtype);
  return numpy.empty() ? DataTypeString(dtype) : numpy;
}

std::string FormatValues(const Tensor& tensor, int max_values) {
  if (!tensor.IsInitialized()) return "(uninitialized)";
  if (!tensor.host_accessible()) return "(in device memory)";
  if (!IsDenseDataType(tensor.dtype())) return "(values not shown)";
  int64_t n = tensor.NumElements();
  int64_t row = tensor.shape().rank() >= 2 ? tensor.shape().dim(tensor.shape().rank() - 1) : 0;
  int64_t shown = std::min<int64_t>(n, max_values);
  if (row > 0 && shown < n && shown >= row) shown = shown / row * row;  // whole rows only
  // Fixed notation unless it would show every value as 0 or needs too many digits.
  bool scientific = false;
  if (IsFloatingType(tensor.dtype())) {
    double largest = 0;
    for (int64_t i = 0; i < shown; ++i) {
      double v = Magnitude(tensor, i);
      if (std::isfinite(v)) largest = std::max(largest, v);
    }
    scientific = largest >= 1e5 || (largest > 0 && largest < 1e-3);
  }
  std::string out;
  for (int64_t i = 0; i < shown; ++i) {
    if (i > 0) out += (row > 0 && i % row == 0) ? " | " : " ";
    out += FormatValue(tensor, i, scientific);
  }
  if (n > shown) absl::StrAppend(&out, " ... (", n, " values)");
  return out;
}

std::string FormatFetches(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, int max_values,
                          bool tensor_names) {
  size_t name_width = 0, type_width = 0, shape_width = 0;
  std::vector<std::string> types, shapes, shown;
  for (size_t i = 0; i < tensors.size(); ++i) {
    types.push_back(TypeName(tensors[i].dtype()));
    shapes.push_back(tensors[i].shape().DebugString());
    shown.push_back(tensor_names ? CanonicalTensorName(names[i]) : names[i]);
    name_width = std::max(name_width, shown.back().size());
    type_width = std::max(type_width, types.back().size());
    shape_width = std::max(shape_width, shapes.back().size());
  }
  std::string out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string& name = shown[i];
    absl::StrAppend(&out, name, std::string(name_width - name.size() + 2, ' '), types[i],
                    std::string(type_width - types[i].size() + 2, ' '), shapes[i],
                    std::string(shape_width - shapes[i].size() + 2, ' '),
                    FormatValues(tensors[i], max_values), "\n");
  }
  return out;
}

}  // namespace cli
}  // namespace tessera
