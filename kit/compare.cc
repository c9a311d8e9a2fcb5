// Element-wise comparison of oracle and plugin outputs.
#include "kit/compare.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kit/kernel_case_values.h"

namespace tessera::plugin_check {
namespace {

bool IsComplex(DataType dtype) {
  return dtype == TSR_DTYPE_COMPLEX64 || dtype == TSR_DTYPE_COMPLEX128;
}

bool IsFloating(DataType dtype) {
  return dtype == TSR_DTYPE_FLOAT || dtype == TSR_DTYPE_DOUBLE || dtype == TSR_DTYPE_HALF ||
         dtype == TSR_DTYPE_BFLOAT16 || IsComplex(dtype);
}

// Scalar `index` of a tensor as a double; complex tensors have two scalars per element.
double Scalar(const Tensor& t, int64_t index) {
  switch (t.dtype()) {
    case TSR_DTYPE_FLOAT: case TSR_DTYPE_COMPLEX64: return t.data<float>()[index];
    case TSR_DTYPE_DOUBLE: case TSR_DTYPE_COMPLEX128: return t.data<double>()[index];
    case TSR_DTYPE_HALF: return HalfToFloat(t.data<uint16_t>()[index]);
    case TSR_DTYPE_BFLOAT16: return BFloat16ToFloat(t.data<uint16_t>()[index]);
    case TSR_DTYPE_BOOL: return t.data<bool>()[index] ? 1 : 0;
    case TSR_DTYPE_INT8: return t.data<int8_t>()[index];
    case TSR_DTYPE_INT16: return t.data<int16_t>()[index];
    case TSR_DTYPE_INT32: return t.data<int32_t>()[index];
    case TSR_DTYPE_INT64: return static_cast<double>(t.data<int64_t>()[index]);
    case TSR_DTYPE_UINT8: return t.data<uint8_t>()[index];
    case TSR_DTYPE_UINT16: return t.data<uint16_t>()[index];
    case TSR_DTYPE_UINT32: return t.data<uint32_t>()[index];
    case TSR_DTYPE_UINT64: return static_cast<double>(t.data<uint64_t>()[index]);
    default: return 0;
  }
}

// Integers compare bit for bit (a double cannot hold every int64).
bool SameBits(const Tensor& a, const Tensor& b, int64_t index) {
  const size_t size = DataTypeSize(a.dtype());
  return std::memcmp(static_cast<const char*>(a.data()) + index * size,
                     static_cast<const char*>(b.data()) + index * size, size) == 0;
}

double Difference(double expected, double actual) {
  if (std::isnan(expected) && std::isnan(actual)) return 0;
  if (std::isnan(expected) || std::isnan(actual)) return std::numeric_limits<double>::infinity();
  if (expected == actual) return 0;  // equal infinities
  return std::fabs(expected - actual);
}

std::string Value(double value) { return absl::StrFormat("%.9g", value); }
std::string Short(double value) { return absl::StrFormat("%.3g", value); }

// " ([1,2])" for element 5 of a [2,3] tensor; "" for rank < 2.
std::string Coordinates(const TensorShape& shape, int64_t index) {
  if (shape.rank() < 2) return "";
  std::vector<int64_t> coordinates(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    coordinates[d] = index % shape.dim(d);
    index /= shape.dim(d);
  }
  return absl::StrCat(" ([", absl::StrJoin(coordinates, ","), "])");
}

}  // namespace

Tolerance ToleranceFor(DataType dtype, double scale) {
  Tolerance t;
  switch (dtype) {
    case TSR_DTYPE_FLOAT: case TSR_DTYPE_COMPLEX64: t = {1e-6, 1e-5}; break;
    case TSR_DTYPE_DOUBLE: case TSR_DTYPE_COMPLEX128: t = {1e-12, 1e-10}; break;
    case TSR_DTYPE_HALF: t = {1e-3, 2e-3}; break;
    case TSR_DTYPE_BFLOAT16: t = {1e-2, 1.6e-2}; break;
    default: return t;  // integers and bool: exact
  }
  if (scale > 1) {
    t.absolute *= scale;
    t.relative *= scale;
  }
  return t;
}

Comparison CompareTensors(const Tensor& expected, const Tensor& actual,
                          const Tolerance& tolerance) {
  if (expected.dtype() != actual.dtype()) {
    return {false, absl::StrCat("dtype ", DataTypeString(actual.dtype()), ", expected ",
                                DataTypeString(expected.dtype()))};
  }
  if (expected.shape() != actual.shape()) {
    return {false, absl::StrCat("shape ", actual.shape().DebugString(), ", expected ",
                                expected.shape().DebugString())};
  }
  const DataType dtype = expected.dtype();
  const int parts = IsComplex(dtype) ? 2 : 1;
  const int64_t count = expected.NumElements() * parts;
  int64_t failing = 0, worst = -1, largest = -1;
  double worst_difference = -1, largest_difference = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double e = Scalar(expected, i), a = Scalar(actual, i);
    double difference = Difference(e, a);
    if (!IsFloating(dtype) && difference == 0 && !SameBits(expected, actual, i)) difference = 1;
    if (difference > largest_difference || largest < 0) {
      largest_difference = difference;
      largest = i;
    }
    const double allowed = tolerance.absolute + tolerance.relative * std::fabs(e);
    if (difference == 0 || (std::isfinite(difference) && difference <= allowed)) continue;
    ++failing;
    if (difference > worst_difference) {
      worst_difference = difference;
      worst = i;
    }
  }
  const std::string tolerance_text =
      tolerance.exact() ? "exact" : absl::StrCat(Short(tolerance.absolute), " + ",
                                                 Short(tolerance.relative), " x |expected|");
  if (failing == 0) {
    if (largest_difference == 0) {
      return {true, count == 0 ? "empty output, shapes match"
                               : absl::StrCat("identical (tolerance ", tolerance_text, ")")};
    }
    return {true, absl::StrCat("largest difference ", Short(largest_difference), " (tolerance ",
                               tolerance_text, ")")};
  }
  const double e = Scalar(expected, worst), a = Scalar(actual, worst);
  const int64_t element = worst / parts;
  return {false,
          absl::StrCat("largest difference ", Short(worst_difference), " at element ", element,
                       Coordinates(expected.shape(), element), parts == 2 ?
                       (worst % 2 == 0 ? " real part" : " imaginary part") : "",
                       " (expected ", Value(e), ", got ", Value(a), "); tolerance ",
                       tolerance.exact() ? "0 (exact)"
                                         : Short(tolerance.absolute +
                                                 tolerance.relative * std::fabs(e)),
                       "; ", failing, " of ", count, parts == 2 ? " parts" : " elements",
                       " differ")};
}

Comparison CompareOutputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual,
                          double tolerance_scale) {
  if (expected.size() != actual.size()) {
    return {false, absl::StrCat(actual.size(), " outputs, expected ", expected.size())};
  }
  std::vector<std::string> details;
  for (size_t k = 0; k < expected.size(); ++k) {
    Comparison c = CompareTensors(expected[k], actual[k],
                                  ToleranceFor(expected[k].dtype(), tolerance_scale));
    if (expected.size() > 1) c.message = absl::StrCat("output ", k, ": ", c.message);
    if (!c.ok) return c;
    details.push_back(std::move(c.message));
  }
  return {true, absl::StrJoin(details, "; ")};
}

Comparison CompareFailures(const absl::Status& oracle, const absl::Status& plugin) {
  if (!oracle.ok() && !plugin.ok()) {
    if (oracle.code() == plugin.code()) {
      return {true, absl::StrCat("both failed with ", absl::StatusCodeToString(oracle.code()),
                                 ": ", oracle.message())};
    }
    return {false, absl::StrCat("the plugin failed with ", plugin.ToString(),
                                "; the CPU oracle failed with ", oracle.ToString())};
  }
  if (!plugin.ok()) {
    return {false, absl::StrCat("the plugin failed with ", plugin.ToString(),
                                "; the CPU oracle succeeded")};
  }
  return {false, absl::StrCat("the plugin succeeded where the CPU oracle failed with ",
                              oracle.ToString())};
}

}  // namespace tessera::plugin_check
