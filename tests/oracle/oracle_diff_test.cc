// The op oracle: every case of cases.json (inputs, attrs and TensorFlow.js's CPU answer, written
// by generate_cases.js) run as one node through a local session on the CPU plugin and compared.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "host/framework/proto/attr_value.pb.h"
#include "host/runtime/tensor.h"
#include "host/runtime/types.h"
#include "host/testing/op_tester.h"
#include "nlohmann/json.hpp"

namespace tessera::oracle {
namespace {

using ::nlohmann::json;

// Cases where Tessera's CPU plugin disagrees with tfjs and tfjs has TensorFlow's answer: Tessera
// defects, each with what differs. A listed case that starts to match fails the test, so the
// list only shrinks as the defects are fixed. Differences where tfjs is not TensorFlow are not
// listed here: generate_cases.js does not generate them (docs/oracle.md).
const std::map<std::string, std::string>& KnownFailures() {
  static const auto* known = new std::map<std::string, std::string>{};
  return *known;
}

constexpr int kFormatVersion = 1;

// Tolerance of float elements: equal within `ulps` units in the last place, or within `atol`.
struct Tolerance {
  int64_t ulps = 0;
  double atol = 0;
};

// A tensor as the JSON holds it; values widened to double (exact for float32, int32 and bool).
struct TensorValue {
  DataType dtype = TSR_DTYPE_INVALID;
  TensorShape shape;
  std::vector<double> values;
};

struct OracleCase {
  std::string name;
  std::string op;
  json attrs;  // as written, for reports
  std::vector<std::pair<std::string, tensorflow::AttrValue>> attr_values;
  std::vector<TensorValue> inputs;
  std::vector<TensorValue> outputs;
  std::optional<std::string> error;  // what tfjs said; TensorFlow refuses these inputs too
  Tolerance tolerance;
};

// ---- Reading cases.json ----------------------------------------------------------------------

double ParseValue(const json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "-0") return -0.0;
    throw std::runtime_error("unknown value '" + text + "'");
  }
  return value.get<double>();
}

tensorflow::AttrValue ToAttrValue(const json& value) {
  tensorflow::AttrValue out;
  if (value.contains("type")) {
    DataType dtype = TSR_DTYPE_INVALID;
    const std::string name = value.at("type").get<std::string>();
    if (!DataTypeFromString(name, &dtype)) throw std::runtime_error("unknown dtype " + name);
    out.set_type(static_cast<tensorflow::DataType>(dtype));
  } else if (value.contains("i")) {
    out.set_i(value.at("i").get<int64_t>());
  } else if (value.contains("f")) {
    out.set_f(value.at("f").get<float>());
  } else if (value.contains("b")) {
    out.set_b(value.at("b").get<bool>());
  } else if (value.contains("s")) {
    out.set_s(value.at("s").get<std::string>());
  } else if (value.contains("list_i")) {
    auto* list = out.mutable_list();
    for (const json& i : value.at("list_i")) list->add_i(i.get<int64_t>());
  } else {
    throw std::runtime_error("unknown attr value " + value.dump());
  }
  return out;
}

TensorValue ParseTensor(const json& tensor) {
  TensorValue out;
  const std::string dtype = tensor.at("dtype").get<std::string>();
  if (!DataTypeFromString(dtype, &out.dtype) ||
      (out.dtype != TSR_DTYPE_FLOAT && out.dtype != TSR_DTYPE_INT32 &&
       out.dtype != TSR_DTYPE_BOOL)) {
    throw std::runtime_error("unsupported dtype " + dtype);
  }
  for (const json& dim : tensor.at("shape")) out.shape.AddDim(dim.get<int64_t>());
  for (const json& value : tensor.at("values")) out.values.push_back(ParseValue(value));
  if (static_cast<int64_t>(out.values.size()) != out.shape.num_elements()) {
    throw std::runtime_error("values do not fill shape " + out.shape.DebugString());
  }
  return out;
}

OracleCase ParseCase(const json& entry) {
  OracleCase c;
  c.name = entry.at("name").get<std::string>();
  c.op = entry.at("op").get<std::string>();
  c.attrs = entry.at("attrs");
  for (const auto& [name, value] : c.attrs.items()) {
    c.attr_values.emplace_back(name, ToAttrValue(value));
  }
  for (const json& input : entry.at("inputs")) c.inputs.push_back(ParseTensor(input));
  if (entry.contains("error")) c.error = entry.at("error").get<std::string>();
  if (entry.contains("outputs")) {
    for (const json& output : entry.at("outputs")) c.outputs.push_back(ParseTensor(output));
  }
  if (entry.contains("tol")) {
    c.tolerance.ulps = entry.at("tol").at("ulps").get<int64_t>();
    c.tolerance.atol = entry.at("tol").at("atol").get<double>();
  }
  return c;
}

// The file named by TESSERA_ORACLE_CASES in the environment (a freshly generated one), else the
// committed tests/oracle/cases.json.
std::string CasesPath() {
  const char* path = std::getenv("TESSERA_ORACLE_CASES");
  return path != nullptr && *path != '\0' ? path : TESSERA_ORACLE_CASES_JSON;
}

struct LoadedCases {
  std::vector<OracleCase> cases;
  std::string error;  // why loading failed; empty on success
};

const LoadedCases& Loaded() {
  static const LoadedCases* loaded = [] {
    auto* result = new LoadedCases;
    const std::string path = CasesPath();
    std::ifstream file(path);
    if (!file) {
      result->error = "cannot open " + path;
      return result;
    }
    try {
      const json document = json::parse(file);
      const int format = document.at("format").get<int>();
      if (format != kFormatVersion) {
        result->error =
            absl::StrCat(path, " has format ", format, ", this test reads ", kFormatVersion);
        return result;
      }
      for (const json& entry : document.at("cases")) result->cases.push_back(ParseCase(entry));
    } catch (const std::exception& e) {
      result->cases.clear();
      result->error = absl::StrCat("cannot read ", path, ": ", e.what());
    }
    return result;
  }();
  return *loaded;
}

// ---- Building and running a case --------------------------------------------------------------

Tensor ToTensor(const TensorValue& value) {
  Tensor tensor(value.dtype, value.shape);
  for (size_t i = 0; i < value.values.size(); ++i) {
    switch (value.dtype) {
      case TSR_DTYPE_FLOAT:
        tensor.data<float>()[i] = static_cast<float>(value.values[i]);
        break;
      case TSR_DTYPE_INT32:
        tensor.data<int32_t>()[i] = static_cast<int32_t>(value.values[i]);
        break;
      case TSR_DTYPE_BOOL:
        tensor.data<bool>()[i] = value.values[i] != 0;
        break;
      default:  // ParseTensor admits no other dtype
        break;
    }
  }
  return tensor;
}

double ElementAsDouble(const Tensor& tensor, int64_t i) {
  switch (tensor.dtype()) {
    case TSR_DTYPE_FLOAT:
      return tensor.data<float>()[i];
    case TSR_DTYPE_INT32:
      return tensor.data<int32_t>()[i];
    case TSR_DTYPE_BOOL:
      return tensor.data<bool>()[i] ? 1 : 0;
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

absl::StatusOr<std::vector<Tensor>> RunCase(const OracleCase& c) {
  testing::OpTester tester(c.op);
  for (const auto& [name, value] : c.attr_values) tester.Attr(name, value);
  for (const TensorValue& input : c.inputs) tester.Input(ToTensor(input));
  return tester.Run(c.outputs.empty() ? 1 : static_cast<int>(c.outputs.size()));
}

// ---- Comparing ----------------------------------------------------------------------------------

// Distance in representable floats (both finite).
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    int32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    // Negative floats count down from zero, so adjacent floats are adjacent integers.
    return bits < 0 ? static_cast<int64_t>(std::numeric_limits<int32_t>::min()) - bits
                    : static_cast<int64_t>(bits);
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// NaN equals NaN; infinities must be equal; zeros of either sign are equal.
bool FloatMatches(float actual, float expected, const Tolerance& tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  if (actual == expected) return true;
  if (std::fabs(static_cast<double>(actual) - expected) <= tolerance.atol) return true;
  return UlpDistance(actual, expected) <= tolerance.ulps;
}

std::string FormatValue(DataType dtype, double value) {
  if (dtype != TSR_DTYPE_FLOAT) return absl::StrCat(static_cast<int64_t>(value));
  if (std::isnan(value)) return "nan";
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

std::string Describe(DataType dtype, const TensorShape& shape, const std::vector<double>& values) {
  constexpr size_t kMaxShown = 256;
  std::string out = absl::StrCat(DataTypeString(dtype), shape.DebugString(), " {");
  for (size_t i = 0; i < values.size() && i < kMaxShown; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", FormatValue(dtype, values[i]));
  }
  if (values.size() > kMaxShown) absl::StrAppend(&out, ", ... (", values.size(), " values)");
  return out + "}";
}

std::string Describe(const TensorValue& value) {
  return Describe(value.dtype, value.shape, value.values);
}

std::string Describe(const Tensor& tensor) {
  std::vector<double> values;
  for (int64_t i = 0; i < tensor.NumElements(); ++i) values.push_back(ElementAsDouble(tensor, i));
  return Describe(tensor.dtype(), tensor.shape(), values);
}

// Empty when output `actual` matches `expected`; else the first difference.
std::string CompareOutput(const Tensor& actual, const TensorValue& expected,
                          const Tolerance& tolerance) {
  if (actual.dtype() != expected.dtype) {
    return absl::StrCat("dtype ", DataTypeString(actual.dtype()), ", expected ",
                        DataTypeString(expected.dtype));
  }
  if (actual.shape() != expected.shape) {
    return absl::StrCat("shape ", actual.shape().DebugString(), ", expected ",
                        expected.shape.DebugString());
  }
  for (size_t i = 0; i < expected.values.size(); ++i) {
    const double a = ElementAsDouble(actual, static_cast<int64_t>(i));
    const double e = expected.values[i];
    const bool match = expected.dtype == TSR_DTYPE_FLOAT
                           ? FloatMatches(static_cast<float>(a), static_cast<float>(e), tolerance)
                           : a == e;
    if (!match) {
      return absl::StrCat("element ", i, " is ", FormatValue(expected.dtype, a), ", expected ",
                          FormatValue(expected.dtype, e), " (tolerance ", tolerance.ulps,
                          " ulps or ", tolerance.atol, ")");
    }
  }
  return "";
}

// Empty when Tessera agrees with tfjs; else a report naming the case, its op, attrs, inputs and
// both answers.
std::string Difference(const OracleCase& c, const absl::StatusOr<std::vector<Tensor>>& result) {
  std::string what;
  if (c.error.has_value()) {
    if (!result.ok()) return "";
    what = "Tessera accepted inputs that tfjs (and TensorFlow) refuse";
  } else if (!result.ok()) {
    what = absl::StrCat("Tessera failed: ", result.status().ToString());
  } else if (result->size() != c.outputs.size()) {
    what = absl::StrCat("Tessera gave ", result->size(), " outputs, expected ", c.outputs.size());
  } else {
    for (size_t i = 0; i < c.outputs.size() && what.empty(); ++i) {
      const std::string diff = CompareOutput((*result)[i], c.outputs[i], c.tolerance);
      if (!diff.empty()) what = absl::StrCat("output ", i, ": ", diff);
    }
    if (what.empty()) return "";
  }
  std::string report =
      absl::StrCat("case ", c.name, ": op ", c.op, " attrs ", c.attrs.dump(), "\n  ", what);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    absl::StrAppend(&report, "\n  input ", i, ":   ", Describe(c.inputs[i]));
  }
  if (c.error.has_value()) absl::StrAppend(&report, "\n  tfjs:      error: ", *c.error);
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    absl::StrAppend(&report, "\n  tfjs ", i, ":    ", Describe(c.outputs[i]));
  }
  if (result.ok()) {
    for (size_t i = 0; i < result->size(); ++i) {
      absl::StrAppend(&report, "\n  Tessera ", i, ": ", Describe((*result)[i]));
    }
  }
  return report;
}

// ---- Tests --------------------------------------------------------------------------------------

TEST(OracleCasesTest, LoadsEveryCase) {
  ASSERT_TRUE(Loaded().error.empty()) << Loaded().error;
  EXPECT_GT(Loaded().cases.size(), 0u) << CasesPath() << " has no cases";
}

TEST(OracleCasesTest, EveryKnownFailureIsACase) {
  for (const auto& [name, reason] : KnownFailures()) {
    bool found = false;
    for (const OracleCase& c : Loaded().cases) found = found || c.name == name;
    EXPECT_TRUE(found) << "known failure " << name << " is not a case of " << CasesPath();
  }
}

class OracleDiffTest : public ::testing::TestWithParam<size_t> {};

TEST_P(OracleDiffTest, MatchesTensorFlowJs) {
  const OracleCase& c = Loaded().cases[GetParam()];
  absl::StatusOr<std::vector<Tensor>> result = RunCase(c);
  const std::string difference = Difference(c, result);
  const auto known = KnownFailures().find(c.name);
  if (known != KnownFailures().end()) {
    ASSERT_FALSE(difference.empty())
        << "case " << c.name << " now matches tfjs: remove it from KnownFailures() ("
        << known->second << ")";
    GTEST_SKIP() << "known Tessera defect: " << known->second << "\n" << difference;
  }
  EXPECT_TRUE(difference.empty()) << difference;
}

INSTANTIATE_TEST_SUITE_P(Cases, OracleDiffTest, ::testing::Range<size_t>(0, Loaded().cases.size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return Loaded().cases[info.param].name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OracleDiffTest);

}  // namespace
}  // namespace tessera::oracle
