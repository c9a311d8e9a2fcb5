// The convolution and BatchMatMulV2 wrappers: inputs, type checks and attrs of each node.
#include "host/client/conv_ops.h"

#include <initializer_list>
#include <optional>

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

// strides, [use_cudnn_on_gpu,] padding, explicit_paddings, data_format and dilations.
void ConvAttrValues(OpBuilder& builder, const std::vector<int64_t>& strides,
                    const std::string& padding, const Conv2DAttrs& attrs, bool use_cudnn_on_gpu) {
  CheckLength(builder, "strides", strides, 4);
  CheckLength(builder, "dilations", attrs.dilations_, 4);
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID", "EXPLICIT"});
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  builder.AttrIntList("strides", strides);
  if (use_cudnn_on_gpu) builder.AttrBool("use_cudnn_on_gpu", attrs.use_cudnn_on_gpu_);
  builder.AttrString("padding", padding)
      .AttrIntList("explicit_paddings", attrs.explicit_paddings_)
      .AttrString("data_format", attrs.data_format_)
      .AttrIntList("dilations", attrs.dilations_);
}

}  // namespace

Conv2D::Conv2D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
               const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output f = AsNodeOut(scope, filter);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv2D");
  DataType t = builder.CommonType("T", {in, f});
  builder.Input(in).Input(f).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/true);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

Conv2DBackpropInput::Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                                         Input out_backprop, const std::vector<int64_t>& strides,
                                         const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output sizes = AsNodeOut(scope, input_sizes);
  Output f = AsNodeOut(scope, filter);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv2DBackpropInput");
  builder.CheckType("input_sizes", sizes, {DT_INT32});
  DataType t = builder.CommonType("T", {f, dy});
  builder.Input(sizes).Input(f).Input(dy).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/true);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

Conv2DBackpropFilter::Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                                           Input out_backprop, const std::vector<int64_t>& strides,
                                           const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output sizes = AsNodeOut(scope, filter_sizes);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Conv2DBackpropFilter");
  builder.CheckType("filter_sizes", sizes, {DT_INT32});
  DataType t = builder.CommonType("T", {in, dy});
  builder.Input(in).Input(sizes).Input(dy).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/true);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

DepthwiseConv2dNative::DepthwiseConv2dNative(const Scope& scope, Input input, Input filter,
                                             const std::vector<int64_t>& strides,
                                             const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output f = AsNodeOut(scope, filter);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "DepthwiseConv2dNative");
  DataType t = builder.CommonType("T", {in, f});
  builder.Input(in).Input(f).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/false);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

DepthwiseConv2dNativeBackpropInput::DepthwiseConv2dNativeBackpropInput(
    const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
    const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output sizes = AsNodeOut(scope, input_sizes);
  Output f = AsNodeOut(scope, filter);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "DepthwiseConv2dNativeBackpropInput");
  builder.CheckType("input_sizes", sizes, {DT_INT32});
  DataType t = builder.CommonType("T", {f, dy});
  builder.Input(sizes).Input(f).Input(dy).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/false);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

DepthwiseConv2dNativeBackpropFilter::DepthwiseConv2dNativeBackpropFilter(
    const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
    const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output sizes = AsNodeOut(scope, filter_sizes);
  Output dy = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "DepthwiseConv2dNativeBackpropFilter");
  builder.CheckType("filter_sizes", sizes, {DT_INT32});
  DataType t = builder.CommonType("T", {in, dy});
  builder.Input(in).Input(sizes).Input(dy).AttrType("T", t);
  ConvAttrValues(builder, strides, padding, attrs, /*use_cudnn_on_gpu=*/false);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

namespace {

// BatchMatMul, BatchMatMulV2 (x and y of one type T), BatchMatMulV3 (Ta, Tb, and `tout`).
Operation BatchMatMulOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y,
                        const BatchMatMulV2::Attrs& attrs, std::optional<DataType> tout) {
  if (!scope.ok()) return Operation();
  Output a = AsNodeOut(scope, x);
  Output b = AsNodeOut(scope, y);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  DataType out_type;
  if (tout.has_value()) {
    builder.Input(a).Input(b).AttrType("Ta", a.type()).AttrType("Tb", b.type());
    builder.AttrType("Tout", *tout);
    out_type = *tout;
  } else {
    out_type = builder.CommonType("T", {a, b});
    builder.Input(a).Input(b).AttrType("T", out_type);
  }
  builder.AttrBool("adj_x", attrs.adj_x_).AttrBool("adj_y", attrs.adj_y_);
  builder.AttrBool("grad_x", attrs.grad_x_).AttrBool("grad_y", attrs.grad_y_);
  return builder.Finalize({out_type});
}

}  // namespace

BatchMatMulV2::BatchMatMulV2(const Scope& scope, Input x, Input y, const Attrs& attrs)
    : operation(BatchMatMulOp(scope, "BatchMatMulV2", x, y, attrs, std::nullopt)),
      output(internal::FirstOutput(operation)) {}

BatchMatMul::BatchMatMul(const Scope& scope, Input x, Input y, const Attrs& attrs)
    : operation(BatchMatMulOp(scope, "BatchMatMul", x, y, attrs, std::nullopt)),
      output(internal::FirstOutput(operation)) {}

BatchMatMulV3::BatchMatMulV3(const Scope& scope, Input x, Input y, DataType Tout,
                             const Attrs& attrs)
    : operation(BatchMatMulOp(scope, "BatchMatMulV3", x, y, attrs, Tout)),
      output(internal::FirstOutput(operation)) {}

}  // namespace ops
}  // namespace tessera
