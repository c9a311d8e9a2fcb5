// The math op wrappers: element-wise ops (IsNan/IsInf/IsFinite among them), comparisons, logical
// ops, AddN, Select, MatMul, reductions, ArgMax/ArgMin, Cumsum and Cumprod, ClipByValue,
// CheckNumerics, LinSpace, Bucketize and Cast.
#include "host/client/math_ops.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace internal {

Operation BinaryOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y) {
  if (!scope.ok()) return Operation();
  Output a = AsNodeOut(scope, x);
  Output b = AsNodeOut(scope, y);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  DataType t = builder.CommonType("T", {a, b});
  builder.Input(a).Input(b).AttrType("T", t);
  return builder.Finalize({t});
}

Operation SegmentOp(const Scope& scope, absl::string_view op, const Input& data,
                    const Input& segment_ids, const Input* num_segments) {
  if (!scope.ok()) return Operation();
  Output d = AsNodeOut(scope, data);
  Output ids = AsNodeOut(scope, segment_ids);
  Output count = num_segments == nullptr ? Output() : AsNodeOut(scope, *num_segments);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType("Tindices", ids, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(d).Input(ids);
  if (num_segments != nullptr) {
    builder.CheckType("Tnumsegments", count, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
    builder.Input(count);
  }
  builder.AttrType("T", d.type()).AttrType("Tindices", ids.type());
  if (num_segments != nullptr) builder.AttrType("Tnumsegments", count.type());
  return builder.Finalize({d.type()});
}

Operation UnaryOp(const Scope& scope, absl::string_view op, const Input& x) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, x);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.Input(in).AttrType("T", in.type());
  return builder.Finalize({in.type()});
}

Operation PredicateOp(const Scope& scope, absl::string_view op, const Input& x) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, x);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.Input(in).AttrType("T", in.type());
  return builder.Finalize({TSR_DTYPE_BOOL});
}

Operation ComparisonOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y,
                       std::optional<bool> incompatible_shape_error) {
  if (!scope.ok()) return Operation();
  Output a = AsNodeOut(scope, x);
  Output b = AsNodeOut(scope, y);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  DataType t = builder.CommonType("T", {a, b});
  builder.Input(a).Input(b).AttrType("T", t);
  if (incompatible_shape_error.has_value()) {
    builder.AttrBool("incompatible_shape_error", *incompatible_shape_error);
  }
  return builder.Finalize({TSR_DTYPE_BOOL});
}

Operation LogicalOp(const Scope& scope, absl::string_view op,
                    std::initializer_list<const Input*> inputs) {
  if (!scope.ok()) return Operation();
  std::vector<Output> outs;
  for (const Input* input : inputs) outs.push_back(AsNodeOut(scope, *input));
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  static constexpr const char* kArgNames[] = {"x", "y"};
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].valid() && outs[i].type() != TSR_DTYPE_BOOL) {
      builder.SetError(absl::StrCat("input '", kArgNames[i], "' must be bool, got ",
                                    DataTypeString(outs[i].type())));
    }
    builder.Input(outs[i]);
  }
  return builder.Finalize({TSR_DTYPE_BOOL});
}

Operation ReductionOp(const Scope& scope, absl::string_view op, const Input& input,
                      const Input& axis, bool keep_dims) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  Output ax = AsNodeOut(scope, axis);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType("Tidx", ax, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(in).Input(ax).AttrType("T", in.type()).AttrType("Tidx", ax.type());
  builder.AttrBool("keep_dims", keep_dims);
  return builder.Finalize({in.type()});
}

Operation LogicalReductionOp(const Scope& scope, absl::string_view op, const Input& input,
                             const Input& axis, bool keep_dims) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  Output ax = AsNodeOut(scope, axis);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  if (in.valid() && in.type() != TSR_DTYPE_BOOL) {
    builder.SetError(absl::StrCat("input 'input' must be bool, got ", DataTypeString(in.type())));
  }
  builder.CheckType("Tidx", ax, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(in).Input(ax).AttrType("Tidx", ax.type()).AttrBool("keep_dims", keep_dims);
  return builder.Finalize({TSR_DTYPE_BOOL});
}

Operation SelectOp(const Scope& scope, absl::string_view op, const Input& condition, const Input& t,
                   const Input& e) {
  if (!scope.ok()) return Operation();
  Output c = AsNodeOut(scope, condition);
  Output a = AsNodeOut(scope, t);
  Output b = AsNodeOut(scope, e);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  if (c.valid() && c.type() != TSR_DTYPE_BOOL) {
    builder.SetError(
        absl::StrCat("input 'condition' must be bool, got ", DataTypeString(c.type())));
  }
  DataType type = builder.CommonType("T", {a, b});
  builder.Input(c).Input(a).Input(b).AttrType("T", type);
  return builder.Finalize({type});
}

Operation ArgOp(const Scope& scope, absl::string_view op, const Input& input,
                const Input& dimension, const ArgAttrs& attrs) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  Output dim = AsNodeOut(scope, dimension);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType("Tidx", dim, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  if (attrs.output_type_ != TSR_DTYPE_INT32 && attrs.output_type_ != TSR_DTYPE_INT64) {
    builder.SetError(absl::StrCat("attr 'output_type' must be int32 or int64, got ",
                                  DataTypeString(attrs.output_type_)));
  }
  builder.Input(in).Input(dim).AttrType("T", in.type()).AttrType("Tidx", dim.type());
  builder.AttrType("output_type", attrs.output_type_);
  return builder.Finalize({attrs.output_type_});
}

}  // namespace internal

AddN::AddN(const Scope& scope, InputList inputs) {
  if (!scope.ok()) return;
  std::vector<Output> ins = AsNodeOutList(scope, inputs);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AddN");
  if (ins.empty()) builder.SetError("attr 'N' must be at least 1, got 0 inputs");
  DataType t = builder.CommonType("T", ins);
  builder.Inputs(ins).AttrInt("N", static_cast<int64_t>(ins.size())).AttrType("T", t);
  operation = builder.Finalize({t});
  sum = internal::FirstOutput(operation);
}

namespace {

// Cumsum, Cumprod: x, axis; attrs T, Tidx, exclusive, reverse.
Operation ScanOp(const Scope& scope, absl::string_view op, const Input& x, const Input& axis,
                 const Cumsum::Attrs& attrs) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, x);
  Output ax = AsNodeOut(scope, axis);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType("Tidx", ax, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(in).Input(ax).AttrType("T", in.type()).AttrType("Tidx", ax.type());
  builder.AttrBool("exclusive", attrs.exclusive_).AttrBool("reverse", attrs.reverse_);
  return builder.Finalize({in.type()});
}

}  // namespace

Cumsum::Cumsum(const Scope& scope, Input x, Input axis) : Cumsum(scope, x, axis, Attrs()) {}

Cumsum::Cumsum(const Scope& scope, Input x, Input axis, const Attrs& attrs)
    : operation(ScanOp(scope, "Cumsum", x, axis, attrs)), out(internal::FirstOutput(operation)) {}

Cumprod::Cumprod(const Scope& scope, Input x, Input axis) : Cumprod(scope, x, axis, Attrs()) {}

Cumprod::Cumprod(const Scope& scope, Input x, Input axis, const Attrs& attrs)
    : operation(ScanOp(scope, "Cumprod", x, axis, attrs)), out(internal::FirstOutput(operation)) {}

ClipByValue::ClipByValue(const Scope& scope, Input t, Input clip_value_min, Input clip_value_max) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, t);
  Output lo = AsNodeOut(scope, clip_value_min);
  Output hi = AsNodeOut(scope, clip_value_max);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ClipByValue");
  DataType type = builder.CommonType("T", {in, lo, hi});
  builder.Input(in).Input(lo).Input(hi).AttrType("T", type);
  operation = builder.Finalize({type});
  output = internal::FirstOutput(operation);
}

CheckNumerics::CheckNumerics(const Scope& scope, Input tensor, absl::string_view message) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, tensor);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "CheckNumerics");
  builder.Input(in).AttrType("T", in.type()).AttrString("message", message);
  operation = builder.Finalize({in.type()});
  output = internal::FirstOutput(operation);
}

LinSpace::LinSpace(const Scope& scope, Input start, Input stop, Input num) {
  if (!scope.ok()) return;
  Output a = AsNodeOut(scope, start);
  Output b = AsNodeOut(scope, stop);
  Output n = AsNodeOut(scope, num);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "LinSpace");
  DataType type = builder.CommonType("T", {a, b});
  builder.CheckType("Tidx", n, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(a).Input(b).Input(n).AttrType("T", type).AttrType("Tidx", n.type());
  operation = builder.Finalize({type});
  output = internal::FirstOutput(operation);
}

Bucketize::Bucketize(const Scope& scope, Input input, absl::Span<const float> boundaries) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Bucketize");
  tensorflow::AttrValue list;
  list.mutable_list();  // an empty list is still a list
  for (float b : boundaries) list.mutable_list()->add_f(b);
  builder.Input(in).AttrType("T", in.type()).AttrProto("boundaries", list);
  operation = builder.Finalize({TSR_DTYPE_INT32});
  output = internal::FirstOutput(operation);
}

MatMul::MatMul(const Scope& scope, Input a, Input b) : MatMul(scope, a, b, Attrs()) {}

MatMul::MatMul(const Scope& scope, Input a, Input b, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output x = AsNodeOut(scope, a);
  Output y = AsNodeOut(scope, b);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MatMul");
  DataType t = builder.CommonType("T", {x, y});
  builder.Input(x).Input(y).AttrType("T", t);
  builder.AttrBool("transpose_a", attrs.transpose_a_).AttrBool("transpose_b", attrs.transpose_b_);
  builder.AttrBool("grad_a", attrs.grad_a_).AttrBool("grad_b", attrs.grad_b_);
  operation = builder.Finalize({t});
  product = internal::FirstOutput(operation);
}

Cast::Cast(const Scope& scope, Input x, DataType DstT) : Cast(scope, x, DstT, Attrs()) {}

Cast::Cast(const Scope& scope, Input x, DataType DstT, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, x);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Cast");
  if (!IsDenseDataType(DstT)) {
    builder.SetError(absl::StrCat("attr 'DstT' must be a dense type, got ", DataTypeString(DstT)));
  }
  builder.Input(in).AttrType("SrcT", in.type()).AttrType("DstT", DstT);
  builder.AttrBool("Truncate", attrs.truncate_);
  operation = builder.Finalize({DstT});
  y = internal::FirstOutput(operation);
}

}  // namespace ops
}  // namespace tessera
