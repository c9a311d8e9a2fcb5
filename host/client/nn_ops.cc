// The neural-network op wrappers with attrs or several outputs (the one-input activations and
// gradients are header-only): LeakyRelu(Grad), BiasAdd(Grad), the losses, LRN(Grad), pooling
// and FusedBatchNormV3 with its gradient.
#include "host/client/nn_ops.h"

#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/client/op_builder.h"
#include "host/framework/proto/attr_value.pb.h"

namespace tessera {
namespace ops {
namespace {

void AttrFloat(OpBuilder& builder, absl::string_view name, float value) {
  tensorflow::AttrValue attr;
  attr.set_f(value);
  builder.AttrProto(name, attr);
}

// Records an error unless `value` is one of `allowed` (the op definition's list).
void CheckOneOf(OpBuilder& builder, absl::string_view attr, const std::string& value,
                std::initializer_list<const char*> allowed) {
  for (const char* candidate : allowed) {
    if (value == candidate) return;
  }
  builder.SetError(absl::StrCat("attr '", attr, "' must be one of \"",
                                absl::StrJoin(allowed, "\", \""), "\", got \"", value, "\""));
}

Output NthOutput(const Operation& op, int i) { return op.valid() ? op.output(i) : Output(); }

// ksize, strides, padding and data_format of a pooling op (MaxPool's explicit_paddings too).
void PoolAttrs(OpBuilder& builder, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding,
               const std::string& data_format, const MaxPoolAttrs* max_pool) {
  for (const auto* list : {&ksize, &strides}) {
    if (list->size() < 4) {
      builder.SetError(absl::StrCat("attr '", list == &ksize ? "ksize" : "strides",
                                    "' must have at least 4 values, got ", list->size()));
    }
  }
  builder.AttrIntList("ksize", ksize).AttrIntList("strides", strides);
  builder.AttrString("padding", padding).AttrString("data_format", data_format);
  CheckOneOf(builder, "data_format", data_format, {"NHWC", "NCHW"});
  if (max_pool == nullptr) {
    CheckOneOf(builder, "padding", padding, {"SAME", "VALID"});
    return;
  }
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID", "EXPLICIT"});
  builder.AttrIntList("explicit_paddings", max_pool->explicit_paddings_);
}

void LrnAttrValues(OpBuilder& builder, const LrnAttrs& attrs) {
  builder.AttrInt("depth_radius", attrs.depth_radius_);
  AttrFloat(builder, "bias", attrs.bias_);
  AttrFloat(builder, "alpha", attrs.alpha_);
  AttrFloat(builder, "beta", attrs.beta_);
}

void BatchNormAttrValues(OpBuilder& builder, const FusedBatchNormAttrs& attrs, bool forward) {
  AttrFloat(builder, "epsilon", attrs.epsilon_);
  if (forward) AttrFloat(builder, "exponential_avg_factor", attrs.exponential_avg_factor_);
  builder.AttrString("data_format", attrs.data_format_);
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW", "NDHWC", "NCDHW"});
  builder.AttrBool("is_training", attrs.is_training_);
}

}  // namespace

LeakyRelu::LeakyRelu(const Scope& scope, Input features, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, features);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "LeakyRelu");
  builder.Input(in);
  AttrFloat(builder, "alpha", attrs.alpha_);
  builder.AttrType("T", in.type());
  operation = builder.Finalize({in.type()});
  activations = internal::FirstOutput(operation);
}

LeakyReluGrad::LeakyReluGrad(const Scope& scope, Input gradients, Input features,
                             const Attrs& attrs) {
  if (!scope.ok()) return;
  Output g = AsNodeOut(scope, gradients);
  Output f = AsNodeOut(scope, features);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "LeakyReluGrad");
  DataType t = builder.CommonType("T", {g, f});
  builder.Input(g).Input(f);
  AttrFloat(builder, "alpha", attrs.alpha_);
  builder.AttrType("T", t);
  operation = builder.Finalize({t});
  backprops = internal::FirstOutput(operation);
}

BiasAdd::BiasAdd(const Scope& scope, Input value, Input bias)
    : BiasAdd(scope, value, bias, Attrs()) {}

BiasAdd::BiasAdd(const Scope& scope, Input value, Input bias, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output v = AsNodeOut(scope, value);
  Output b = AsNodeOut(scope, bias);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "BiasAdd");
  if (attrs.data_format_ != "NHWC" && attrs.data_format_ != "NCHW") {
    builder.SetError(absl::StrCat("attr 'data_format' must be \"NHWC\" or \"NCHW\", got \"",
                                  attrs.data_format_, "\""));
  }
  DataType t = builder.CommonType("T", {v, b});
  builder.Input(v).Input(b).AttrType("T", t).AttrString("data_format", attrs.data_format_);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

BiasAddV1::BiasAddV1(const Scope& scope, Input value, Input bias) {
  if (!scope.ok()) return;
  Output v = AsNodeOut(scope, value);
  Output b = AsNodeOut(scope, bias);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "BiasAddV1");
  DataType t = builder.CommonType("T", {v, b});
  builder.Input(v).Input(b).AttrType("T", t);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

BiasAddGrad::BiasAddGrad(const Scope& scope, Input out_backprop, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, out_backprop);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "BiasAddGrad");
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  builder.Input(in).AttrType("T", in.type()).AttrString("data_format", attrs.data_format_);
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

SoftmaxCrossEntropyWithLogits::SoftmaxCrossEntropyWithLogits(const Scope& scope, Input features,
                                                             Input labels) {
  if (!scope.ok()) return;
  Output f = AsNodeOut(scope, features);
  Output l = AsNodeOut(scope, labels);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "SoftmaxCrossEntropyWithLogits");
  DataType t = builder.CommonType("T", {f, l});
  builder.Input(f).Input(l).AttrType("T", t);
  operation = builder.Finalize({t, t});
  loss = NthOutput(operation, 0);
  backprop = NthOutput(operation, 1);
}

SparseSoftmaxCrossEntropyWithLogits::SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                                         Input features,
                                                                         Input labels) {
  if (!scope.ok()) return;
  Output f = AsNodeOut(scope, features);
  Output l = AsNodeOut(scope, labels);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "SparseSoftmaxCrossEntropyWithLogits");
  builder.CheckType("Tlabels", l, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(f).Input(l).AttrType("T", f.type()).AttrType("Tlabels", l.type());
  operation = builder.Finalize({f.type(), f.type()});
  loss = NthOutput(operation, 0);
  backprop = NthOutput(operation, 1);
}

LRN::LRN(const Scope& scope, Input input, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "LRN");
  builder.Input(in);
  LrnAttrValues(builder, attrs);
  builder.AttrType("T", in.type());
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

LRNGrad::LRNGrad(const Scope& scope, Input input_grads, Input input_image, Input output_image,
                 const Attrs& attrs) {
  if (!scope.ok()) return;
  Output grads = AsNodeOut(scope, input_grads);
  Output image = AsNodeOut(scope, input_image);
  Output out = AsNodeOut(scope, output_image);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "LRNGrad");
  DataType t = builder.CommonType("T", {grads, image, out});
  builder.Input(grads).Input(image).Input(out);
  LrnAttrValues(builder, attrs);
  builder.AttrType("T", t);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

MaxPool::MaxPool(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
                 const std::vector<int64_t>& strides, const std::string& padding,
                 const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPool");
  builder.Input(in).AttrType("T", in.type());
  PoolAttrs(builder, ksize, strides, padding, attrs.data_format_, &attrs);
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

MaxPoolGrad::MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                         const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                         const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, orig_input);
  Output out = AsNodeOut(scope, orig_output);
  Output g = AsNodeOut(scope, grad);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPoolGrad");
  DataType t = builder.CommonType("T", {in, out, g});
  builder.Input(in).Input(out).Input(g).AttrType("T", t);
  PoolAttrs(builder, ksize, strides, padding, attrs.data_format_, &attrs);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

MaxPoolV2::MaxPoolV2(const Scope& scope, Input input, Input ksize, Input strides,
                     const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output k = AsNodeOut(scope, ksize);
  Output s = AsNodeOut(scope, strides);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPoolV2");
  builder.CheckType("ksize", k, {DT_INT32});
  builder.CheckType("strides", s, {DT_INT32});
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID"});
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  builder.AttrType("T", in.type())
      .Input(in)
      .Input(k)
      .Input(s)
      .AttrString("padding", padding)
      .AttrString("data_format", attrs.data_format_);
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

MaxPoolGradV2::MaxPoolGradV2(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                             Input ksize, Input strides, const std::string& padding,
                             const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, orig_input);
  Output out = AsNodeOut(scope, orig_output);
  Output g = AsNodeOut(scope, grad);
  Output k = AsNodeOut(scope, ksize);
  Output s = AsNodeOut(scope, strides);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MaxPoolGradV2");
  DataType t = builder.CommonType("T", {in, out, g});
  builder.CheckType("ksize", k, {DT_INT32});
  builder.CheckType("strides", s, {DT_INT32});
  CheckOneOf(builder, "padding", padding, {"SAME", "VALID"});
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  builder.AttrString("padding", padding)
      .AttrString("data_format", attrs.data_format_)
      .Input(in)
      .Input(out)
      .Input(g)
      .Input(k)
      .Input(s)
      .AttrType("T", t);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

AvgPool::AvgPool(const Scope& scope, Input value, const std::vector<int64_t>& ksize,
                 const std::vector<int64_t>& strides, const std::string& padding,
                 const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, value);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AvgPool");
  builder.Input(in).AttrType("T", in.type());
  PoolAttrs(builder, ksize, strides, padding, attrs.data_format_, nullptr);
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

AvgPoolGrad::AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
                         const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                         const std::string& padding, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output shape = AsNodeOut(scope, orig_input_shape);
  Output g = AsNodeOut(scope, grad);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AvgPoolGrad");
  if (shape.valid() && shape.type() != TSR_DTYPE_INT32) {
    builder.SetError(
        absl::StrCat("input 'orig_input_shape' must be int32, got ", DataTypeString(shape.type())));
  }
  builder.Input(shape).Input(g).AttrType("T", g.type());
  PoolAttrs(builder, ksize, strides, padding, attrs.data_format_, nullptr);
  operation = builder.Finalize({g.type()});
  output = internal::FirstOutput(operation);
}

FusedBatchNormV3::FusedBatchNormV3(const Scope& scope, Input x, Input scale, Input offset,
                                   Input mean, Input variance, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, x);
  std::vector<Output> stats = {AsNodeOut(scope, scale), AsNodeOut(scope, offset),
                               AsNodeOut(scope, mean), AsNodeOut(scope, variance)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, "FusedBatchNormV3");
  const DataType u = builder.CommonType("U", stats);
  builder.Input(in).Inputs(stats).AttrType("T", in.type()).AttrType("U", u);
  BatchNormAttrValues(builder, attrs, /*forward=*/true);
  operation = builder.Finalize({in.type(), u, u, u, u, u});
  y = NthOutput(operation, 0);
  batch_mean = NthOutput(operation, 1);
  batch_variance = NthOutput(operation, 2);
  reserve_space_1 = NthOutput(operation, 3);
  reserve_space_2 = NthOutput(operation, 4);
  reserve_space_3 = NthOutput(operation, 5);
}

FusedBatchNormGradV3::FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x,
                                           Input scale, Input reserve_space_1,
                                           Input reserve_space_2, Input reserve_space_3,
                                           const Attrs& attrs) {
  if (!scope.ok()) return;
  Output dy = AsNodeOut(scope, y_backprop);
  Output in = AsNodeOut(scope, x);
  Output s = AsNodeOut(scope, scale);
  std::vector<Output> reserves = {AsNodeOut(scope, reserve_space_1),
                                  AsNodeOut(scope, reserve_space_2),
                                  AsNodeOut(scope, reserve_space_3)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, "FusedBatchNormGradV3");
  const DataType t = builder.CommonType("T", {dy, in});
  if (s.valid() && s.type() != TSR_DTYPE_FLOAT) {
    builder.SetError(absl::StrCat("input 'scale' must be float, got ", DataTypeString(s.type())));
  }
  const DataType u = builder.CommonType("U", reserves);
  builder.Input(dy).Input(in).Input(s).Inputs(reserves).AttrType("T", t).AttrType("U", u);
  BatchNormAttrValues(builder, attrs, /*forward=*/false);
  operation = builder.Finalize({t, u, u, u, u});
  x_backprop = NthOutput(operation, 0);
  scale_backprop = NthOutput(operation, 1);
  offset_backprop = NthOutput(operation, 2);
  reserve_space_4 = NthOutput(operation, 3);
  reserve_space_5 = NthOutput(operation, 4);
}

FusedBatchNormV1V2::FusedBatchNormV1V2(const Scope& scope, const char* op, const Input& x,
                                       const Input& scale, const Input& offset, const Input& mean,
                                       const Input& variance, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, x);
  std::vector<Output> stats = {AsNodeOut(scope, scale), AsNodeOut(scope, offset),
                               AsNodeOut(scope, mean), AsNodeOut(scope, variance)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, op);
  const bool v2 = std::string(op) == "FusedBatchNormV2";
  DataType u;
  if (v2) {
    u = builder.CommonType("U", stats);
    builder.Input(in).Inputs(stats).AttrType("T", in.type()).AttrType("U", u);
  } else {
    std::vector<Output> all = {in};
    all.insert(all.end(), stats.begin(), stats.end());
    u = builder.CommonType("T", all);
    builder.Input(in).Inputs(stats).AttrType("T", u);
  }
  BatchNormAttrValues(builder, attrs, /*forward=*/true);
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  operation = builder.Finalize({in.type(), u, u, u, u});
  y = NthOutput(operation, 0);
  batch_mean = NthOutput(operation, 1);
  batch_variance = NthOutput(operation, 2);
  reserve_space_1 = NthOutput(operation, 3);
  reserve_space_2 = NthOutput(operation, 4);
}

FusedBatchNormGradV1V2::FusedBatchNormGradV1V2(const Scope& scope, const char* op,
                                               const Input& y_backprop, const Input& x,
                                               const Input& scale, const Input& reserve_space_1,
                                               const Input& reserve_space_2, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output dy = AsNodeOut(scope, y_backprop);
  Output in = AsNodeOut(scope, x);
  Output s = AsNodeOut(scope, scale);
  std::vector<Output> reserves = {AsNodeOut(scope, reserve_space_1),
                                  AsNodeOut(scope, reserve_space_2)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, op);
  const bool v2 = std::string(op) == "FusedBatchNormGradV2";
  DataType t;
  DataType u;
  if (v2) {
    t = builder.CommonType("T", {dy, in});
    if (s.valid() && s.type() != TSR_DTYPE_FLOAT) {
      builder.SetError(absl::StrCat("input 'scale' must be float, got ", DataTypeString(s.type())));
    }
    u = builder.CommonType("U", reserves);
    builder.Input(dy).Input(in).Input(s).Inputs(reserves).AttrType("T", t).AttrType("U", u);
  } else {
    t = builder.CommonType("T", {dy, in, s, reserves[0], reserves[1]});
    u = t;
    builder.Input(dy).Input(in).Input(s).Inputs(reserves).AttrType("T", t);
  }
  BatchNormAttrValues(builder, attrs, /*forward=*/false);
  CheckOneOf(builder, "data_format", attrs.data_format_, {"NHWC", "NCHW"});
  operation = builder.Finalize({t, u, u, u, u});
  x_backprop = NthOutput(operation, 0);
  scale_backprop = NthOutput(operation, 1);
  offset_backprop = NthOutput(operation, 2);
  reserve_space_3 = NthOutput(operation, 3);
  reserve_space_4 = NthOutput(operation, 4);
}

TopK::TopK(const Scope& scope, Input input, Input k) : TopK(scope, input, k, Attrs()) {}

TopK::TopK(const Scope& scope, Input input, Input k, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output count = AsNodeOut(scope, k);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TopKV2", "TopK");
  const std::initializer_list<DataType> index_types = {TSR_DTYPE_INT16, TSR_DTYPE_INT32,
                                                       TSR_DTYPE_INT64};
  builder.CheckType("Tk", count, index_types);
  if (attrs.index_type_ != TSR_DTYPE_INT16 && attrs.index_type_ != TSR_DTYPE_INT32 &&
      attrs.index_type_ != TSR_DTYPE_INT64) {
    builder.SetError(absl::StrCat("attr 'index_type' must be int16, int32 or int64, got ",
                                  DataTypeString(attrs.index_type_)));
  }
  builder.Input(in).Input(count).AttrBool("sorted", attrs.sorted_).AttrType("T", in.type());
  builder.AttrType("Tk", count.type()).AttrType("index_type", attrs.index_type_);
  operation = builder.Finalize({in.type(), attrs.index_type_});
  values = NthOutput(operation, 0);
  indices = NthOutput(operation, 1);
}

}  // namespace ops
}  // namespace tessera
