// The array op wrappers: each converts its inputs, checks types and adds one node.
#include "host/client/array_ops.h"

#include "absl/strings/str_cat.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

constexpr std::initializer_list<DataType> kIndexTypes = {TSR_DTYPE_INT32, TSR_DTYPE_INT64};

bool IsIndexType(DataType t) { return t == TSR_DTYPE_INT32 || t == TSR_DTYPE_INT64; }

// A node whose only attr is T, from its single input.
Operation UnaryT(const Scope& scope, absl::string_view op, const Input& x) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, x);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.Input(in).AttrType("T", in.type());
  return builder.Finalize({in.type()});
}

Output First(const Operation& op) { return op.valid() ? op.output(0) : Output(); }

}  // namespace

Output Const(const Scope& scope, const Input::Initializer& value) {
  if (!scope.ok()) return Output();
  if (!value.status.ok()) {
    scope.UpdateStatus(value.status);
    return Output();
  }
  OpBuilder builder(scope, "Const");
  builder.AttrTensor("value", value.tensor).AttrType("dtype", value.tensor.dtype());
  return First(builder.Finalize({value.tensor.dtype()}));
}

Output Const(const Scope& scope, const Input::Initializer& value, const TensorShape& shape) {
  if (!scope.ok()) return Output();
  if (value.status.ok() && value.tensor.NumElements() != shape.num_elements()) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "Const: the initializer has ", value.tensor.NumElements(), " values but shape ",
        shape.DebugString(), " needs ", shape.num_elements())));
    return Output();
  }
  return Const(scope, Input::Initializer(value.tensor.Reshaped(shape)));
}

Identity::Identity(const Scope& scope, Input input)
    : operation(UnaryT(scope, "Identity", input)), output(First(operation)) {}

NoOp::NoOp(const Scope& scope) {
  if (!scope.ok()) return;
  operation = OpBuilder(scope, "NoOp").Finalize({});
}

Placeholder::Placeholder(const Scope& scope, DataType dtype)
    : Placeholder(scope, dtype, Attrs()) {}

Placeholder::Placeholder(const Scope& scope, DataType dtype, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Placeholder");
  if (!IsDenseDataType(dtype)) {
    builder.SetError(absl::StrCat("attr 'dtype' must be a dense type, got ",
                                  DataTypeString(dtype)));
  }
  builder.AttrType("dtype", dtype).AttrShape("shape", attrs.shape_);
  operation = builder.Finalize({dtype});
  output = First(operation);
}

PlaceholderWithDefault::PlaceholderWithDefault(const Scope& scope, Input input,
                                               const PartialTensorShape& shape) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "PlaceholderWithDefault");
  builder.Input(in).AttrType("dtype", in.type()).AttrShape("shape", shape);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Reshape::Reshape(const Scope& scope, Input tensor, Input shape) {
  if (!scope.ok()) return;
  Output t = AsNodeOut(scope, tensor);
  Output s = AsNodeOut(scope, shape);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Reshape");
  builder.CheckType("Tshape", s, kIndexTypes);
  builder.Input(t).Input(s).AttrType("T", t.type()).AttrType("Tshape", s.type());
  operation = builder.Finalize({t.type()});
  output = First(operation);
}

Shape::Shape(const Scope& scope, Input input) : Shape(scope, input, Attrs()) {}

Shape::Shape(const Scope& scope, Input input, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Shape");
  if (!IsIndexType(attrs.out_type_)) {
    builder.SetError(absl::StrCat("attr 'out_type' must be int32 or int64, got ",
                                  DataTypeString(attrs.out_type_)));
  }
  builder.Input(in).AttrType("T", in.type()).AttrType("out_type", attrs.out_type_);
  operation = builder.Finalize({attrs.out_type_});
  output = First(operation);
}

ExpandDims::ExpandDims(const Scope& scope, Input input, Input axis) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output dim = AsNodeOut(scope, axis);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ExpandDims");
  builder.CheckType("Tdim", dim, kIndexTypes);
  builder.Input(in).Input(dim).AttrType("T", in.type()).AttrType("Tdim", dim.type());
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Squeeze::Squeeze(const Scope& scope, Input input) : Squeeze(scope, input, Attrs()) {}

Squeeze::Squeeze(const Scope& scope, Input input, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Squeeze");
  builder.Input(in).AttrType("T", in.type()).AttrIntList("squeeze_dims", attrs.axis_);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Concat::Concat(const Scope& scope, InputList values, Input axis) {
  if (!scope.ok()) return;
  std::vector<Output> ins = AsNodeOutList(scope, values);
  Output ax = AsNodeOut(scope, axis);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ConcatV2", "Concat");
  if (ins.size() < 2) {
    builder.SetError(absl::StrCat("attr 'N' must be at least 2, got ", ins.size(), " values"));
  }
  DataType t = builder.CommonType("T", ins);
  builder.CheckType("Tidx", ax, kIndexTypes);
  builder.Inputs(ins).Input(ax);
  builder.AttrInt("N", static_cast<int64_t>(ins.size())).AttrType("T", t);
  builder.AttrType("Tidx", ax.type());
  operation = builder.Finalize({t});
  output = First(operation);
}

Fill::Fill(const Scope& scope, Input dims, Input value) {
  if (!scope.ok()) return;
  Output d = AsNodeOut(scope, dims);
  Output v = AsNodeOut(scope, value);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Fill");
  builder.CheckType("index_type", d, kIndexTypes);
  builder.Input(d).Input(v).AttrType("T", v.type()).AttrType("index_type", d.type());
  operation = builder.Finalize({v.type()});
  output = First(operation);
}

ZerosLike::ZerosLike(const Scope& scope, Input x)
    : operation(UnaryT(scope, "ZerosLike", x)), y(First(operation)) {}

Pack::Pack(const Scope& scope, InputList values) : Pack(scope, std::move(values), Attrs()) {}

Pack::Pack(const Scope& scope, InputList values, const Attrs& attrs) {
  if (!scope.ok()) return;
  std::vector<Output> ins = AsNodeOutList(scope, values);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Pack");
  if (ins.empty()) builder.SetError("attr 'N' must be at least 1, got 0 values");
  DataType t = builder.CommonType("T", ins);
  builder.Inputs(ins).AttrInt("N", static_cast<int64_t>(ins.size())).AttrType("T", t);
  builder.AttrInt("axis", attrs.axis_);
  operation = builder.Finalize({t});
  output = First(operation);
}

}  // namespace ops
}  // namespace tessera
