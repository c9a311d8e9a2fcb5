// The table of case generators, keyed by op name, and the generic generator for ops whose inputs
// all take one type attribute.
#include "kit/kernel_cases.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/kernel_case_generators.h"

namespace tessera::plugin_check {

tensorflow::AttrValue BoolAttr(bool value) {
  tensorflow::AttrValue attr;
  attr.set_b(value);
  return attr;
}

tensorflow::AttrValue StringAttr(const std::string& value) {
  tensorflow::AttrValue attr;
  attr.set_s(value);
  return attr;
}

tensorflow::AttrValue IntsAttr(const std::vector<int64_t>& values) {
  tensorflow::AttrValue attr;
  for (int64_t v : values) attr.mutable_list()->add_i(v);
  return attr;
}

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue attr;
  attr.set_type(static_cast<tensorflow::DataType>(dtype));
  return attr;
}

DataType InputType(const CaseRequest& request, int index) {
  const tensorflow::OpDef::ArgDef& arg = request.op_def->input_arg(index);
  if (!arg.type_attr().empty()) {
    auto it = request.types.find(arg.type_attr());
    return it == request.types.end() ? TSR_DTYPE_INVALID : it->second;
  }
  return static_cast<DataType>(arg.type());
}

Tensor In(const CaseRequest& request, int index, const TensorShape& shape, ValueDomain domain) {
  return RandomValues(InputType(request, index), shape, domain, request.random);
}

namespace {

using Generator = std::function<std::vector<KernelCase>(const CaseRequest&)>;

// ---- Element-wise ops --------------------------------------------------------------------------

// Binary ops: same shapes, scalars, numpy broadcasting on either side, empty and size-1 shapes.
std::vector<KernelCase> BinaryCases(const CaseRequest& request, ValueDomain x_domain,
                                    ValueDomain y_domain) {
  const std::vector<std::pair<std::string, std::pair<TensorShape, TensorShape>>> shapes = {
      {"same", {{2, 3}, {2, 3}}},        {"scalar", {{}, {2, 3}}},
      {"scalar", {{2, 3}, {}}},          {"scalar", {{}, {}}},
      {"broadcast", {{3, 1}, {4}}},      {"broadcast", {{2, 1, 3}, {1, 4, 1}}},
      {"empty", {{0, 3}, {3}}},          {"ones", {{1}, {1, 1}}},
      {"large", {{5, 67}, {5, 67}}},
  };
  std::vector<KernelCase> cases;
  for (const auto& [kind, pair] : shapes) {
    KernelCase c;
    c.inputs = {In(request, 0, pair.first, x_domain), In(request, 1, pair.second, y_domain)};
    c.variant = kind + ShapesName(c.inputs);
    cases.push_back(std::move(c));
  }
  return cases;
}

Generator Binary(ValueDomain x_domain = ValueDomain::kAny,
                 ValueDomain y_domain = ValueDomain::kAny) {
  return [=](const CaseRequest& request) { return BinaryCases(request, x_domain, y_domain); };
}

// Ops whose inputs all take one type attribute get inputs of one shape each (a list input
// gets three elements).
std::vector<KernelCase> SameShapeCases(const CaseRequest& request, ValueDomain domain) {
  const tensorflow::OpDef& op = *request.op_def;
  std::vector<KernelCase> cases;
  for (const TensorShape& shape : {TensorShape{2, 3}, TensorShape{}, TensorShape{0, 4},
                                   TensorShape{1, 1, 5}, TensorShape{3, 67}}) {
    KernelCase c;
    for (int i = 0; i < op.input_arg_size(); ++i) {
      const std::string& number_attr = op.input_arg(i).number_attr();
      const int copies = number_attr.empty() ? 1 : 3;
      if (!number_attr.empty()) c.attrs[number_attr].set_i(copies);
      for (int k = 0; k < copies; ++k) c.inputs.push_back(In(request, i, shape, domain));
    }
    c.variant = shape.rank() == 0 ? "scalar" : shape.DebugString();
    cases.push_back(std::move(c));
  }
  return cases;
}

// Ops that want four dimensions (LRN and its gradient).
std::vector<KernelCase> FourDimensionalCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const TensorShape& shape : {TensorShape{1, 3, 4, 5}, TensorShape{2, 2, 2, 7}}) {
    KernelCase c;
    for (int i = 0; i < request.op_def->input_arg_size(); ++i) {
      c.inputs.push_back(In(request, i, shape, ValueDomain::kPositive));
    }
    c.variant = shape.DebugString();
    c.tolerance_scale = 5;  // a window of depth_radius 5 by default
    cases.push_back(std::move(c));
  }
  return cases;
}

Generator SameShape(ValueDomain domain) {
  return [=](const CaseRequest& request) { return SameShapeCases(request, domain); };
}

// ---- Reductions --------------------------------------------------------------------------------

std::vector<KernelCase> ReductionCases(const CaseRequest& request, ValueDomain domain) {
  struct Variant { TensorShape shape; std::vector<int64_t> axes; bool keep_dims; };
  const std::vector<Variant> variants = {
      {{3, 4}, {1}, false}, {{3, 4}, {0}, true},       {{3, 4}, {0, 1}, false},
      {{3, 4}, {-1}, true}, {{3, 4}, {}, false},       {{2, 3, 4}, {0, 2}, false},
      {{2, 0, 3}, {1}, false}, {{}, {}, false},        {{4, 67}, {1}, false},
  };
  const DataType axes_type = InputType(request, 1);
  std::vector<KernelCase> cases;
  for (const Variant& v : variants) {
    KernelCase c;
    c.inputs = {In(request, 0, v.shape, domain), IntVector(axes_type, v.axes)};
    c.attrs["keep_dims"] = BoolAttr(v.keep_dims);
    int64_t reduced = 1;
    for (int64_t axis : v.axes) reduced *= v.shape.dim(axis < 0 ? axis + v.shape.rank() : axis);
    c.tolerance_scale = static_cast<double>(std::max<int64_t>(reduced, 1));
    c.variant = absl::StrCat(v.shape.rank() == 0 ? "scalar" : v.shape.DebugString(), "/axes[",
                             absl::StrJoin(v.axes, ","), "]", v.keep_dims ? "/keep_dims" : "");
    cases.push_back(std::move(c));
  }
  return cases;
}

Generator Reduction(ValueDomain domain = ValueDomain::kAny) {
  return [=](const CaseRequest& request) { return ReductionCases(request, domain); };
}

std::vector<KernelCase> ArgMinMaxCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, axis] : std::vector<std::pair<TensorShape, int64_t>>{
           {{3, 4}, 0}, {{3, 4}, 1}, {{2, 3, 4}, -1}, {{5}, 0}, {{0, 4}, 1}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), IntScalar(InputType(request, 1), axis)};
    c.variant = absl::StrCat(shape.DebugString(), "/axis", axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

// ---- The table ---------------------------------------------------------------------------------

const std::map<std::string, Generator>& Generators() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, Generator>();
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference",
                           "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                           "LogicalAnd", "LogicalOr"}) {
      (*t)[op] = Binary();
    }
    for (const char* op : {"RealDiv", "Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv",
                           "TruncateMod", "DivNoNan"}) {
      (*t)[op] = Binary(ValueDomain::kAny, ValueDomain::kNonZero);
    }
    (*t)["Pow"] = Binary(ValueDomain::kPositive, ValueDomain::kUnit);
    for (const char* op : {"Log", "Sqrt", "Rsqrt", "Log1p", "Lgamma", "Digamma"}) {
      (*t)[op] = SameShape(ValueDomain::kPositive);
    }
    for (const char* op : {"Reciprocal", "Inv"}) (*t)[op] = SameShape(ValueDomain::kNonZero);
    (*t)["MatMul"] = MatMulCases;
    (*t)["BatchMatMulV2"] = BatchMatMulCases;
    // The first version does not broadcast: BatchMatMulV2's cases without the broadcast one.
    (*t)["BatchMatMul"] = [](const CaseRequest& r) {
      std::vector<KernelCase> cases = BatchMatMulCases(r);
      cases.erase(std::remove_if(
                      cases.begin(), cases.end(),
                      [](const KernelCase& c) { return absl::StartsWith(c.variant, "broadcast"); }),
                  cases.end());
      return cases;
    };
    (*t)["Conv2D"] = [](const CaseRequest& r) { return ConvolutionCases(r, /*depthwise=*/false); };
    (*t)["DepthwiseConv2dNative"] = [](const CaseRequest& r) {
      return ConvolutionCases(r, /*depthwise=*/true);
    };
    (*t)["MaxPool"] = PoolCases;
    (*t)["AvgPool"] = PoolCases;
    (*t)["Conv3D"] = Conv3DCases;
    (*t)["MaxPool3D"] = Pool3DCases;
    (*t)["AvgPool3D"] = Pool3DCases;
    (*t)["BiasAdd"] = BiasAddCases;
    (*t)["ResizeBilinear"] = ResizeCases;
    (*t)["ResizeNearestNeighbor"] = ResizeCases;
    (*t)["ResizeBilinearGrad"] = [](const CaseRequest& r) { return ResizeGradCases(r, true); };
    (*t)["ResizeNearestNeighborGrad"] = [](const CaseRequest& r) {
      return ResizeGradCases(r, false);
    };
    (*t)["CropAndResize"] = CropAndResizeCases;
    for (int version : {2, 3, 4, 5}) {
      (*t)[absl::StrCat("NonMaxSuppressionV", version)] = [version](const CaseRequest& r) {
        return NonMaxSuppressionCases(r, version);
      };
    }
    for (const char* op : {"Sum", "Mean", "Max", "Min", "All", "Any"}) (*t)[op] = Reduction();
    (*t)["Prod"] = Reduction(ValueDomain::kUnit);
    (*t)["ArgMax"] = ArgMinMaxCases;
    (*t)["ArgMin"] = ArgMinMaxCases;
    (*t)["Const"] = ConstCases;
    (*t)["Cast"] = CastCases;
    (*t)["Transpose"] = TransposeCases;
    (*t)["ConcatV2"] = ConcatCases;
    (*t)["LRN"] = FourDimensionalCases;
    (*t)["LRNGrad"] = FourDimensionalCases;
    (*t)["Range"] = RangeCases;
    (*t)["InvertPermutation"] = InvertPermutationCases;
    (*t)["ConcatOffset"] = ConcatOffsetCases;
    (*t)["Unique"] = UniqueCases;
    (*t)["DynamicStitch"] = DynamicStitchCases;
    (*t)["ParallelDynamicStitch"] = DynamicStitchCases;
    (*t)["ReverseSequence"] = ReverseSequenceCases;
    (*t)["GatherNd"] = GatherNdCases;
    (*t)["ScatterNd"] = ScatterNdCases;
    (*t)["TopKV2"] = TopKCases;
    (*t)["Gather"] = GatherV1Cases;
    (*t)["Reverse"] = ReverseV1Cases;
    (*t)["Concat"] = ConcatV1Cases;
    (*t)["MatrixBandPart"] = MatrixBandPartCases;
    (*t)["SpaceToBatchND"] = SpaceToBatchNdCases;
    (*t)["BatchToSpaceND"] = BatchToSpaceNdCases;
    (*t)["SpaceToDepth"] = SpaceToDepthCases;
    (*t)["DepthToSpace"] = DepthToSpaceCases;
    (*t)["MatrixDiagPartV3"] = MatrixDiagPartV3Cases;
    (*t)["MatrixSetDiagV3"] = MatrixSetDiagV3Cases;
    (*t)["MatrixDiagV3"] = MatrixDiagV3Cases;
    for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax"}) (*t)[op] = SegmentCases;
    for (const char* op : {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                           "UnsortedSegmentProd"}) {
      (*t)[op] = UnsortedSegmentCases;
    }
    (*t)["Fill"] = FillCases;
    (*t)["Reshape"] = ReshapeCases;
    (*t)["ExpandDims"] = ExpandDimsCases;
    (*t)["Tile"] = TileCases;
    (*t)["Pad"] = PadCases;
    (*t)["PadV2"] = PadCases;
    (*t)["Slice"] = SliceCases;
    (*t)["GatherV2"] = GatherCases;
    (*t)["Cumsum"] = CumsumCases;
    (*t)["Cumprod"] = CumsumCases;
    (*t)["Select"] = [](const CaseRequest& r) { return SelectCases(r, /*v2=*/false); };
    (*t)["SelectV2"] = [](const CaseRequest& r) { return SelectCases(r, /*v2=*/true); };
    return t;
  }();
  return *table;
}

// Why the generic generator cannot build inputs for `op`, or "" when it can: every input takes
// the same type attribute (a list input through a number attribute) or the same fixed type, and
// every attribute without a default is that type or that number.
std::string GenericUnsupportedReason(const tensorflow::OpDef& op) {
  if (op.input_arg_size() == 0) return "it has no inputs";
  std::string type;  // the type attribute's name, or the fixed type's
  std::set<std::string> provided;
  for (const tensorflow::OpDef::ArgDef& arg : op.input_arg()) {
    const bool fixed = arg.type_attr().empty() && arg.type_list_attr().empty() &&
                       arg.type() != tensorflow::DT_INVALID;
    if ((arg.type_attr().empty() && !fixed) || arg.is_ref()) {
      return absl::StrCat("input '", arg.name(), "' does not take a type attribute");
    }
    const std::string arg_type =
        fixed ? DataTypeString(static_cast<DataType>(arg.type())) : arg.type_attr();
    if (!type.empty() && arg_type != type) return "its inputs take different types";
    type = arg_type;
    provided.insert(type);
    if (!arg.number_attr().empty()) provided.insert(arg.number_attr());
  }
  for (const tensorflow::OpDef::AttrDef& attr : op.attr()) {
    if (!attr.has_default_value() && attr.type() != "type" && !provided.count(attr.name())) {
      return absl::StrCat("attribute '", attr.name(), "' has no default");
    }
  }
  return "";
}

}  // namespace

bool HasOwnCaseGenerator(const std::string& op_name) { return Generators().count(op_name) > 0; }

absl::Status CheckCaseGenerator(const tensorflow::OpDef& op) {
  if (op.is_stateful()) {
    return absl::FailedPreconditionError(
        absl::StrCat("op ", op.name(), " is stateful: its results depend on more than its "
                     "inputs, so they are not compared"));
  }
  if (op.output_arg_size() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("op ", op.name(), " has no outputs to compare"));
  }
  if (HasOwnCaseGenerator(op.name())) return absl::OkStatus();
  const std::string reason = GenericUnsupportedReason(op);
  if (reason.empty()) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("no input generator for op ", op.name(), " (", reason, ")"));
}

absl::StatusOr<std::vector<KernelCase>> GenerateKernelCases(const CaseRequest& request) {
  const tensorflow::OpDef& op = *request.op_def;
  for (const auto& [attr, dtype] : request.types) {
    if (!CanGenerateValues(dtype)) {
      return absl::UnimplementedError(absl::StrCat("no input generator for op ", op.name(),
                                                   " with ", attr, "=", DataTypeString(dtype)));
    }
  }
  auto it = Generators().find(op.name());
  if (it != Generators().end()) return it->second(request);
  return SameShapeCases(request, ValueDomain::kAny);
}

std::string ShapesName(const std::vector<Tensor>& inputs) {
  std::vector<std::string> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape().DebugString());
  return absl::StrJoin(shapes, "x");
}

}  // namespace tessera::plugin_check
