// The 3-D convolution and pooling wrappers: inputs, type checks and attrs of each node.
#include "host/client/conv3d_ops.h"

#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/client/math_ops.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

void CheckOneOf(OpBuilder& builder, absl::string_view attr, const std::string& value,
                std::initializer_list<const char*> allowed) {
  for (const char* candidate : allowed) {
    if (value == candidate) return;
  }
  builder.SetError(absl::StrCat("attr '", attr, "' must be one of \"",
                                absl::StrJoin(allowed, "\", \""), "\", got \"", value, "\""));
}

void CheckLength(OpBuilder& builder, absl::string_view attr, const std::vector<int64_t>& values,
                 size_t length) {
  if (values.size() != length) {
    builder.SetError(
        absl::StrCat("attr '", attr, "' must have ", length, " values, got ", values.size()));
  }
}

// strides, padding, data_format and dilations.
void Conv3DAttrValues(OpBuilder& builder, const std::vector<int64_t>& strides,
                      const std::string& padding, const Conv3DAttrs& attrs) {
  CheckLength(builder, "strides", strides, 5);
  CheckLength(builder, "dilations", attrs.dilations_, 5);
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID"});
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NDHWC", "NCDHW"});
  builder.AttrIntList("strides", strides)
      .AttrString("padding", padding)
      .AttrString("data_format", attrs.data_format_)
      .AttrIntList("dilations", attrs.dilations_);
}

// ksize, strides, padding and data_format.
void Pool3DAttrValues(OpBuilder& builder, const std::vector<int64_t>& ksize,
                      const std::vector<int64_t>& strides, const std::string& padding,
                      const Pool3DAttrs& attrs) {
  CheckLength(builder, "ksize", ksize, 5);
  CheckLength(builder, "strides", strides, 5);
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID"});
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NDHWC", "NCDHW"});
  builder.AttrIntList("ksize", ksize)
      .AttrIntList("strides", strides)
      .AttrString("padding", padding)
      .AttrString("data_format", attrs.data_format_);
}

}  // namespace

Conv3D::Conv3D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
               const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output f = AsNodeOut(scope, filter);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv3D");
  DataType t = builder.CommonType("T", {in, f});
  builder.Input(in).Input(f).AttrType("T", t);
  Conv3DAttrValues(builder, strides, padding, attrs);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

Conv3DBackpropInputV2::Conv3DBackpropInputV2(const Scope& scope, Input input_sizes, Input filter,
                                             Input out_backprop,
                                             const std::vector<int64_t>& strides,
                                             const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output sizes = AsNodeOut(scope, input_sizes);
  Output f = AsNodeOut(scope, filter);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv3DBackpropInputV2");
  builder.CheckType("input_sizes", sizes, {DT_INT32, DT_INT64});
  DataType t = builder.CommonType("T", {f, dy});
  builder.Input(sizes).Input(f).Input(dy).AttrType("T", t);
  Conv3DAttrValues(builder, strides, padding, attrs);
  builder.AttrType("Tshape", sizes.type());
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

Conv3DBackpropFilterV2::Conv3DBackpropFilterV2(const Scope& scope, Input input, Input filter_sizes,
                                               Input out_backprop,
                                               const std::vector<int64_t>& strides,
                                               const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output sizes = AsNodeOut(scope, filter_sizes);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv3DBackpropFilterV2");
  builder.CheckType("filter_sizes", sizes, {DT_INT32});
  DataType t = builder.CommonType("T", {in, dy});
  builder.Input(in).Input(sizes).Input(dy).AttrType("T", t);
  Conv3DAttrValues(builder, strides, padding, attrs);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

MaxPool3D::MaxPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
                     const std::vector<int64_t>& strides, const std::string& padding,
                     const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPool3D");
  builder.Input(in);
  Pool3DAttrValues(builder, ksize, strides, padding, attrs);
  builder.AttrType("T", in.type());
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

AvgPool3D::AvgPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
                     const std::vector<int64_t>& strides, const std::string& padding,
                     const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AvgPool3D");
  builder.Input(in);
  Pool3DAttrValues(builder, ksize, strides, padding, attrs);
  builder.AttrType("T", in.type());
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

MaxPool3DGrad::MaxPool3DGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                             const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                             const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, orig_input);
  Output out = AsNodeOut(scope, orig_output);
  Output g = AsNodeOut(scope, grad);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPool3DGrad");
  DataType input_type = builder.CommonType("TInput", {in, out});
  builder.Input(in).Input(out).Input(g);
  Pool3DAttrValues(builder, ksize, strides, padding, attrs);
  builder.AttrType("T", g.type()).AttrType("TInput", input_type);
  operation = builder.Finalize({g.type()});
  output = internal::FirstOutput(operation);
}

AvgPool3DGrad::AvgPool3DGrad(const Scope& scope, Input orig_input_shape, Input grad,
                             const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                             const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output shape = AsNodeOut(scope, orig_input_shape);
  Output g = AsNodeOut(scope, grad);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AvgPool3DGrad");
  builder.CheckType("orig_input_shape", shape, {DT_INT32});
  builder.Input(shape).Input(g);
  Pool3DAttrValues(builder, ksize, strides, padding, attrs);
  builder.AttrType("T", g.type());
  operation = builder.Finalize({g.type()});
  output = internal::FirstOutput(operation);
}

}  // namespace ops
}  // namespace tessera
