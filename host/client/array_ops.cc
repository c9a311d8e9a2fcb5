// The array op wrappers: each converts its inputs, checks types and adds one node.
#include "host/client/array_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/client/op_builder.h"
#include "host/framework/proto/node_def.pb.h"

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

// Every output of `op` (none when it is invalid).
std::vector<Output> AllOutputs(const Operation& op) {
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

// For inputs whose type the op fixes (Split's split_dim, OneHot's depth).
void CheckFixedType(OpBuilder& builder, absl::string_view name, const Output& input,
                    DataType type) {
  if (input.valid() && input.type() != type) {
    builder.SetError(absl::StrCat("input '", name, "' must be ", DataTypeString(type), ", got ",
                                  DataTypeString(input.type())));
  }
}

// A node with one input and attrs T (the input's type) and `index_attr` (the second input's
// type, int32 or int64): Transpose, ReverseV2, Tile, BroadcastTo, Pad, MirrorPad.
Operation WithIndexInput(const Scope& scope, absl::string_view op, absl::string_view default_name,
                         const Input& input, absl::string_view index_attr, const Input& index) {
  Output in = AsNodeOut(scope, input);
  Output idx = AsNodeOut(scope, index);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op, default_name);
  builder.CheckType(index_attr, idx, kIndexTypes);
  builder.Input(in).Input(idx).AttrType("T", in.type()).AttrType(index_attr, idx.type());
  return builder.Finalize({in.type()});
}

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
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("Const: the initializer has ", value.tensor.NumElements(),
                     " values but shape ", shape.DebugString(), " needs ", shape.num_elements())));
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

Placeholder::Placeholder(const Scope& scope, DataType dtype) : Placeholder(scope, dtype, Attrs()) {}

Placeholder::Placeholder(const Scope& scope, DataType dtype, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Placeholder");
  if (!IsDenseDataType(dtype)) {
    builder.SetError(
        absl::StrCat("attr 'dtype' must be a dense type, got ", DataTypeString(dtype)));
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

ShapeN::ShapeN(const Scope& scope, InputList input) : ShapeN(scope, input, Attrs()) {}

ShapeN::ShapeN(const Scope& scope, InputList input, const Attrs& attrs) {
  if (!scope.ok()) return;
  std::vector<Output> ins = AsNodeOutList(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ShapeN");
  if (ins.empty()) builder.SetError("attr 'N' must be at least 1, got 0 inputs");
  if (!IsIndexType(attrs.out_type_)) {
    builder.SetError(absl::StrCat("attr 'out_type' must be int32 or int64, got ",
                                  DataTypeString(attrs.out_type_)));
  }
  DataType t = builder.CommonType("T", ins);
  builder.Inputs(ins).AttrInt("N", static_cast<int64_t>(ins.size())).AttrType("T", t);
  builder.AttrType("out_type", attrs.out_type_);
  operation = builder.Finalize(std::vector<DataType>(ins.size(), attrs.out_type_));
  output = AllOutputs(operation);
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

ConcatOffset::ConcatOffset(const Scope& scope, Input concat_dim, InputList shape) {
  if (!scope.ok()) return;
  Output dim = AsNodeOut(scope, concat_dim);
  std::vector<Output> shapes = AsNodeOutList(scope, shape);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ConcatOffset");
  CheckFixedType(builder, "concat_dim", dim, TSR_DTYPE_INT32);
  if (shapes.size() < 2) {
    builder.SetError(absl::StrCat("attr 'N' must be at least 2, got ", shapes.size(), " shapes"));
  }
  DataType t = builder.CommonType("shape_type", shapes);
  if (!shapes.empty()) builder.CheckType("shape_type", shapes[0], kIndexTypes);
  builder.Input(dim).Inputs(shapes).AttrInt("N", static_cast<int64_t>(shapes.size()));
  builder.AttrType("shape_type", t);
  operation = builder.Finalize(std::vector<DataType>(shapes.size(), t));
  offset = AllOutputs(operation);
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

OnesLike::OnesLike(const Scope& scope, Input x)
    : operation(UnaryT(scope, "OnesLike", x)), y(First(operation)) {}

IdentityN::IdentityN(const Scope& scope, InputList input) {
  if (!scope.ok()) return;
  std::vector<Output> ins = AsNodeOutList(scope, input);
  if (!scope.ok()) return;
  // OpBuilder has no list(type) attr setter: the NodeDef is written here.
  tensorflow::NodeDef node;
  node.set_name(scope.GetUniqueNameForOp("IdentityN"));
  node.set_op("IdentityN");
  tensorflow::AttrValue::ListValue* types = (*node.mutable_attr())["T"].mutable_list();
  std::vector<DataType> output_types;
  for (const Output& in : ins) {
    node.add_input(in.InputString());
    types->add_type(static_cast<tensorflow::DataType>(in.type()));
    output_types.push_back(in.type());
  }
  operation = scope.AddNode(std::move(node), std::move(output_types));
  output = AllOutputs(operation);
}

StopGradient::StopGradient(const Scope& scope, Input input)
    : operation(UnaryT(scope, "StopGradient", input)), output(First(operation)) {}

PreventGradient::PreventGradient(const Scope& scope, Input input)
    : PreventGradient(scope, input, Attrs()) {}

PreventGradient::PreventGradient(const Scope& scope, Input input, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "PreventGradient");
  builder.Input(in).AttrType("T", in.type()).AttrString("message", attrs.message_);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Snapshot::Snapshot(const Scope& scope, Input input)
    : operation(UnaryT(scope, "Snapshot", input)), output(First(operation)) {}

Size::Size(const Scope& scope, Input input) : Size(scope, input, Attrs()) {}

Size::Size(const Scope& scope, Input input, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Size");
  if (!IsIndexType(attrs.out_type_)) {
    builder.SetError(absl::StrCat("attr 'out_type' must be int32 or int64, got ",
                                  DataTypeString(attrs.out_type_)));
  }
  builder.Input(in).AttrType("T", in.type()).AttrType("out_type", attrs.out_type_);
  operation = builder.Finalize({attrs.out_type_});
  output = First(operation);
}

Rank::Rank(const Scope& scope, Input input) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Rank");
  builder.Input(in).AttrType("T", in.type());
  operation = builder.Finalize({TSR_DTYPE_INT32});
  output = First(operation);
}

BroadcastGradientArgs::BroadcastGradientArgs(const Scope& scope, Input s0, Input s1) {
  if (!scope.ok()) return;
  Output a = AsNodeOut(scope, s0);
  Output b = AsNodeOut(scope, s1);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "BroadcastGradientArgs");
  DataType t = builder.CommonType("T", {a, b});
  builder.CheckType("T", a, kIndexTypes);
  builder.Input(a).Input(b).AttrType("T", t);
  operation = builder.Finalize({t, t});
  if (operation.valid()) {
    r0 = operation.output(0);
    r1 = operation.output(1);
  }
}

Where::Where(const Scope& scope, Input input) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Where");
  builder.Input(in).AttrType("T", in.type());
  operation = builder.Finalize({TSR_DTYPE_INT64});
  index = First(operation);
}

Range::Range(const Scope& scope, Input start, Input limit, Input delta) {
  if (!scope.ok()) return;
  std::vector<Output> ins = {AsNodeOut(scope, start), AsNodeOut(scope, limit),
                             AsNodeOut(scope, delta)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Range");
  DataType t = builder.CommonType("Tidx", ins);
  builder.CheckType(
      "Tidx", ins[0],
      {TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF, TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT8,
       TSR_DTYPE_INT16, TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_UINT16, TSR_DTYPE_UINT32});
  builder.Inputs(ins).AttrType("Tidx", t);
  operation = builder.Finalize({t});
  output = First(operation);
}

Transpose::Transpose(const Scope& scope, Input x, Input perm) {
  if (!scope.ok()) return;
  operation = WithIndexInput(scope, "Transpose", "Transpose", x, "Tperm", perm);
  y = First(operation);
}

Reverse::Reverse(const Scope& scope, Input tensor, Input axis) {
  if (!scope.ok()) return;
  operation = WithIndexInput(scope, "ReverseV2", "Reverse", tensor, "Tidx", axis);
  output = First(operation);
}

Slice::Slice(const Scope& scope, Input input, Input begin, Input size) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output b = AsNodeOut(scope, begin);
  Output s = AsNodeOut(scope, size);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Slice");
  DataType index = builder.CommonType("Index", {b, s});
  builder.CheckType("Index", b, kIndexTypes);
  builder.Input(in).Input(b).Input(s).AttrType("T", in.type()).AttrType("Index", index);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

StridedSlice::StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides)
    : StridedSlice(scope, input, begin, end, strides, Attrs()) {}

StridedSlice::StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
                           const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  std::vector<Output> indices = {AsNodeOut(scope, begin), AsNodeOut(scope, end),
                                 AsNodeOut(scope, strides)};
  if (!scope.ok()) return;
  OpBuilder builder(scope, "StridedSlice");
  DataType index = builder.CommonType("Index", indices);
  builder.CheckType("Index", indices[0], kIndexTypes);
  builder.Input(in).Inputs(indices).AttrType("T", in.type()).AttrType("Index", index);
  builder.AttrInt("begin_mask", attrs.begin_mask_).AttrInt("end_mask", attrs.end_mask_);
  builder.AttrInt("ellipsis_mask", attrs.ellipsis_mask_);
  builder.AttrInt("new_axis_mask", attrs.new_axis_mask_);
  builder.AttrInt("shrink_axis_mask", attrs.shrink_axis_mask_);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Split::Split(const Scope& scope, Input axis, Input value, int64_t num_split) {
  if (!scope.ok()) return;
  Output dim = AsNodeOut(scope, axis);
  Output in = AsNodeOut(scope, value);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Split");
  CheckFixedType(builder, "split_dim", dim, TSR_DTYPE_INT32);
  if (num_split < 1) {
    builder.SetError(absl::StrCat("attr 'num_split' must be at least 1, got ", num_split));
  }
  builder.Input(dim).Input(in).AttrInt("num_split", num_split).AttrType("T", in.type());
  operation = builder.Finalize(std::vector<DataType>(std::max<int64_t>(num_split, 0), in.type()));
  output = AllOutputs(operation);
}

SplitV::SplitV(const Scope& scope, Input value, Input size_splits, Input axis, int64_t num_split) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, value);
  Output sizes = AsNodeOut(scope, size_splits);
  Output dim = AsNodeOut(scope, axis);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "SplitV");
  builder.CheckType("Tlen", sizes, {TSR_DTYPE_INT8, TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  CheckFixedType(builder, "split_dim", dim, TSR_DTYPE_INT32);
  if (num_split < 1) {
    builder.SetError(absl::StrCat("attr 'num_split' must be at least 1, got ", num_split));
  }
  builder.Input(in).Input(sizes).Input(dim).AttrInt("num_split", num_split);
  builder.AttrType("T", in.type()).AttrType("Tlen", sizes.type());
  operation = builder.Finalize(std::vector<DataType>(std::max<int64_t>(num_split, 0), in.type()));
  output = AllOutputs(operation);
}

Unstack::Unstack(const Scope& scope, Input value, int64_t num)
    : Unstack(scope, value, num, Attrs()) {}

Unstack::Unstack(const Scope& scope, Input value, int64_t num, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, value);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Unpack", "Unstack");
  if (num < 0) builder.SetError(absl::StrCat("attr 'num' must be at least 0, got ", num));
  builder.Input(in).AttrInt("num", num).AttrType("T", in.type()).AttrInt("axis", attrs.axis_);
  operation = builder.Finalize(std::vector<DataType>(std::max<int64_t>(num, 0), in.type()));
  output = AllOutputs(operation);
}

ReverseSequence::ReverseSequence(const Scope& scope, Input input, Input seq_lengths,
                                 int64_t seq_dim)
    : ReverseSequence(scope, input, seq_lengths, seq_dim, Attrs()) {}

ReverseSequence::ReverseSequence(const Scope& scope, Input input, Input seq_lengths,
                                 int64_t seq_dim, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output lengths = AsNodeOut(scope, seq_lengths);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ReverseSequence");
  builder.CheckType("Tlen", lengths, kIndexTypes);
  builder.Input(in).Input(lengths).AttrInt("seq_dim", seq_dim);
  builder.AttrInt("batch_dim", attrs.batch_dim_).AttrType("T", in.type());
  builder.AttrType("Tlen", lengths.type());
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

Tile::Tile(const Scope& scope, Input input, Input multiples) {
  if (!scope.ok()) return;
  operation = WithIndexInput(scope, "Tile", "Tile", input, "Tmultiples", multiples);
  output = First(operation);
}

BroadcastTo::BroadcastTo(const Scope& scope, Input input, Input shape) {
  if (!scope.ok()) return;
  operation = WithIndexInput(scope, "BroadcastTo", "BroadcastTo", input, "Tidx", shape);
  output = First(operation);
}

Pad::Pad(const Scope& scope, Input input, Input paddings) {
  if (!scope.ok()) return;
  operation = WithIndexInput(scope, "Pad", "Pad", input, "Tpaddings", paddings);
  output = First(operation);
}

PadV2::PadV2(const Scope& scope, Input input, Input paddings, Input constant_values) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output pads = AsNodeOut(scope, paddings);
  Output constant = AsNodeOut(scope, constant_values);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "PadV2");
  DataType t = builder.CommonType("T", {in, constant});
  builder.CheckType("Tpaddings", pads, kIndexTypes);
  builder.Input(in).Input(pads).Input(constant).AttrType("T", t);
  builder.AttrType("Tpaddings", pads.type());
  operation = builder.Finalize({t});
  output = First(operation);
}

MirrorPad::MirrorPad(const Scope& scope, Input input, Input paddings, const std::string& mode) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output pads = AsNodeOut(scope, paddings);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MirrorPad");
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    builder.SetError(absl::StrCat("attr 'mode' must be REFLECT or SYMMETRIC, got '", mode, "'"));
  }
  builder.CheckType("Tpaddings", pads, kIndexTypes);
  builder.Input(in).Input(pads).AttrType("T", in.type()).AttrType("Tpaddings", pads.type());
  builder.AttrString("mode", mode);
  operation = builder.Finalize({in.type()});
  output = First(operation);
}

GatherV2::GatherV2(const Scope& scope, Input params, Input indices, Input axis)
    : GatherV2(scope, params, indices, axis, Attrs()) {}

GatherV2::GatherV2(const Scope& scope, Input params, Input indices, Input axis,
                   const Attrs& attrs) {
  if (!scope.ok()) return;
  Output p = AsNodeOut(scope, params);
  Output i = AsNodeOut(scope, indices);
  Output a = AsNodeOut(scope, axis);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "GatherV2");
  builder.CheckType("Tindices", i, kIndexTypes);
  builder.CheckType("Taxis", a, kIndexTypes);
  builder.Input(p).Input(i).Input(a).AttrInt("batch_dims", attrs.batch_dims_);
  builder.AttrType("Tparams", p.type()).AttrType("Tindices", i.type()).AttrType("Taxis", a.type());
  operation = builder.Finalize({p.type()});
  output = First(operation);
}

Gather::Gather(const Scope& scope, Input params, Input indices)
    : Gather(scope, params, indices, Attrs()) {}

Gather::Gather(const Scope& scope, Input params, Input indices, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output p = AsNodeOut(scope, params);
  Output i = AsNodeOut(scope, indices);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Gather");
  builder.CheckType("Tindices", i, kIndexTypes);
  builder.Input(p).Input(i).AttrBool("validate_indices", attrs.validate_indices_);
  builder.AttrType("Tparams", p.type()).AttrType("Tindices", i.type());
  operation = builder.Finalize({p.type()});
  output = First(operation);
}

MatrixBandPart::MatrixBandPart(const Scope& scope, Input input, Input num_lower,
                               Input num_upper) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, input);
  Output lower = AsNodeOut(scope, num_lower);
  Output upper = AsNodeOut(scope, num_upper);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "MatrixBandPart");
  DataType t = builder.CommonType("Tindex", {lower, upper});
  builder.CheckType("Tindex", lower, kIndexTypes);
  builder.Input(in).Input(lower).Input(upper).AttrType("T", in.type()).AttrType("Tindex", t);
  operation = builder.Finalize({in.type()});
  band = First(operation);
}

OneHot::OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value)
    : OneHot(scope, indices, depth, on_value, off_value, Attrs()) {}

OneHot::OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
               const Attrs& attrs) {
  if (!scope.ok()) return;
  Output i = AsNodeOut(scope, indices);
  Output d = AsNodeOut(scope, depth);
  Output on = AsNodeOut(scope, on_value);
  Output off = AsNodeOut(scope, off_value);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "OneHot");
  builder.CheckType("TI", i, {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  CheckFixedType(builder, "depth", d, TSR_DTYPE_INT32);
  DataType t = builder.CommonType("T", {on, off});
  builder.Input(i).Input(d).Input(on).Input(off).AttrInt("axis", attrs.axis_);
  builder.AttrType("T", t).AttrType("TI", i.type());
  operation = builder.Finalize({t});
  output = First(operation);
}

namespace {

constexpr std::initializer_list<DataType> kNdIndexTypes = {TSR_DTYPE_INT16, TSR_DTYPE_INT32,
                                                           TSR_DTYPE_INT64};

}  // namespace

GatherNd::GatherNd(const Scope& scope, Input params, Input indices) {
  if (!scope.ok()) return;
  Output p = AsNodeOut(scope, params);
  Output i = AsNodeOut(scope, indices);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "GatherNd");
  builder.CheckType("Tindices", i, kNdIndexTypes);
  builder.Input(p).Input(i).AttrType("Tparams", p.type()).AttrType("Tindices", i.type());
  operation = builder.Finalize({p.type()});
  output = First(operation);
}

ScatterNd::ScatterNd(const Scope& scope, Input indices, Input updates, Input shape) {
  if (!scope.ok()) return;
  Output i = AsNodeOut(scope, indices);
  Output u = AsNodeOut(scope, updates);
  Output sh = AsNodeOut(scope, shape);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ScatterNd");
  DataType t = builder.CommonType("Tindices", {i, sh});
  builder.CheckType("Tindices", i, kNdIndexTypes);
  builder.Input(i).Input(u).Input(sh).AttrType("T", u.type()).AttrType("Tindices", t);
  operation = builder.Finalize({u.type()});
  output = First(operation);
}

Unique::Unique(const Scope& scope, Input x) : Unique(scope, x, Attrs()) {}

Unique::Unique(const Scope& scope, Input x, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output in = AsNodeOut(scope, x);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "Unique");
  if (!IsIndexType(attrs.out_idx_)) {
    builder.SetError(absl::StrCat("attr 'out_idx' must be int32 or int64, got ",
                                  DataTypeString(attrs.out_idx_)));
  }
  builder.Input(in).AttrType("T", in.type()).AttrType("out_idx", attrs.out_idx_);
  operation = builder.Finalize({in.type(), attrs.out_idx_});
  if (!operation.valid()) return;
  y = operation.output(0);
  idx = operation.output(1);
}

namespace {

// DynamicStitch and ParallelDynamicStitch: N int32 indices, then N data of one type.
Operation Stitch(const Scope& scope, absl::string_view op, const InputList& indices,
                 const InputList& data) {
  if (!scope.ok()) return Operation();
  std::vector<Output> ids = AsNodeOutList(scope, indices);
  std::vector<Output> values = AsNodeOutList(scope, data);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  if (ids.empty() || ids.size() != values.size()) {
    builder.SetError(absl::StrCat("needs as many data inputs as indices inputs (at least 1), got ",
                                  ids.size(), " indices and ", values.size(), " data"));
  }
  for (const Output& id : ids) CheckFixedType(builder, "indices", id, TSR_DTYPE_INT32);
  DataType t = builder.CommonType("T", values);
  builder.Inputs(ids).Inputs(values).AttrInt("N", static_cast<int64_t>(ids.size()));
  builder.AttrType("T", t);
  return builder.Finalize({t});
}

}  // namespace

DynamicStitch::DynamicStitch(const Scope& scope, InputList indices, InputList data)
    : operation(Stitch(scope, "DynamicStitch", indices, data)), merged(First(operation)) {}

ParallelDynamicStitch::ParallelDynamicStitch(const Scope& scope, InputList indices,
                                             InputList data)
    : operation(Stitch(scope, "ParallelDynamicStitch", indices, data)),
      merged(First(operation)) {}

namespace {

// SpaceToBatchND or BatchToSpaceND: input, int32/int64 block_shape, int32/int64 `amounts_attr`.
Operation SpaceBatchNd(const Scope& scope, absl::string_view op, const Input& input,
                       const Input& block_shape, absl::string_view amounts_attr,
                       const Input& amounts) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  Output block = AsNodeOut(scope, block_shape);
  Output amount = AsNodeOut(scope, amounts);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType("Tblock_shape", block, kIndexTypes);
  builder.CheckType(amounts_attr, amount, kIndexTypes);
  builder.Input(in).Input(block).Input(amount).AttrType("T", in.type());
  builder.AttrType("Tblock_shape", block.type()).AttrType(amounts_attr, amount.type());
  return builder.Finalize({in.type()});
}

// SpaceToBatch or BatchToSpace: input, int32/int64 `amounts_attr`, block_size.
Operation SpaceBatchV1(const Scope& scope, absl::string_view op, const Input& input,
                       absl::string_view amounts_attr, const Input& amounts, int64_t block_size) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  Output amount = AsNodeOut(scope, amounts);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.CheckType(amounts_attr, amount, kIndexTypes);
  builder.Input(in).Input(amount).AttrType("T", in.type());
  builder.AttrType(amounts_attr, amount.type()).AttrInt("block_size", block_size);
  return builder.Finalize({in.type()});
}

Operation SpaceDepth(const Scope& scope, absl::string_view op, const Input& input,
                     int64_t block_size, const SpaceDepthAttrs& attrs) {
  if (!scope.ok()) return Operation();
  Output in = AsNodeOut(scope, input);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  builder.Input(in).AttrType("T", in.type()).AttrInt("block_size", block_size);
  builder.AttrString("data_format", attrs.data_format_);
  return builder.Finalize({in.type()});
}

}  // namespace

SpaceToBatchND::SpaceToBatchND(const Scope& scope, Input input, Input block_shape, Input paddings)
    : operation(SpaceBatchNd(scope, "SpaceToBatchND", input, block_shape, "Tpaddings", paddings)),
      output(First(operation)) {}

BatchToSpaceND::BatchToSpaceND(const Scope& scope, Input input, Input block_shape, Input crops)
    : operation(SpaceBatchNd(scope, "BatchToSpaceND", input, block_shape, "Tcrops", crops)),
      output(First(operation)) {}

SpaceToBatch::SpaceToBatch(const Scope& scope, Input input, Input paddings, int64_t block_size)
    : operation(SpaceBatchV1(scope, "SpaceToBatch", input, "Tpaddings", paddings, block_size)),
      output(First(operation)) {}

BatchToSpace::BatchToSpace(const Scope& scope, Input input, Input crops, int64_t block_size)
    : operation(SpaceBatchV1(scope, "BatchToSpace", input, "Tidx", crops, block_size)),
      output(First(operation)) {}

SpaceToDepth::SpaceToDepth(const Scope& scope, Input input, int64_t block_size)
    : SpaceToDepth(scope, input, block_size, Attrs()) {}

SpaceToDepth::SpaceToDepth(const Scope& scope, Input input, int64_t block_size, const Attrs& attrs)
    : operation(SpaceDepth(scope, "SpaceToDepth", input, block_size, attrs)),
      output(First(operation)) {}

DepthToSpace::DepthToSpace(const Scope& scope, Input input, int64_t block_size)
    : DepthToSpace(scope, input, block_size, Attrs()) {}

DepthToSpace::DepthToSpace(const Scope& scope, Input input, int64_t block_size, const Attrs& attrs)
    : operation(SpaceDepth(scope, "DepthToSpace", input, block_size, attrs)),
      output(First(operation)) {}

namespace {

// A diagonal op: `values` of type T, then the int32 `k`, `num_rows`, `num_cols` inputs named in
// `int_inputs`, then `padding` (type T) when given; `align` for the V3 forms.
Operation DiagOp(const Scope& scope, absl::string_view op, const std::vector<Input>& values,
                 const std::vector<std::pair<const char*, Input>>& int_inputs, const Input* padding,
                 const std::string* align) {
  if (!scope.ok()) return Operation();
  std::vector<Output> ts;
  for (const Input& value : values) ts.push_back(AsNodeOut(scope, value));
  std::vector<std::pair<const char*, Output>> ints;
  for (const auto& [name, value] : int_inputs) ints.emplace_back(name, AsNodeOut(scope, value));
  Output pad;
  if (padding != nullptr) pad = AsNodeOut(scope, *padding);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  std::vector<Output> typed = ts;
  if (padding != nullptr) typed.push_back(pad);
  const DataType t = builder.CommonType("T", typed);
  builder.Inputs(ts);
  for (const auto& [name, value] : ints) {
    CheckFixedType(builder, name, value, TSR_DTYPE_INT32);
    builder.Input(value);
  }
  if (padding != nullptr) builder.Input(pad);
  builder.AttrType("T", t);
  if (align != nullptr) builder.AttrString("align", *align);
  return builder.Finalize({t});
}

}  // namespace

MatrixDiag::MatrixDiag(const Scope& scope, Input diagonal)
    : operation(DiagOp(scope, "MatrixDiag", {diagonal}, {}, nullptr, nullptr)),
      output(First(operation)) {}

MatrixDiagPart::MatrixDiagPart(const Scope& scope, Input input)
    : operation(DiagOp(scope, "MatrixDiagPart", {input}, {}, nullptr, nullptr)),
      diagonal(First(operation)) {}

MatrixSetDiag::MatrixSetDiag(const Scope& scope, Input input, Input diagonal)
    : operation(DiagOp(scope, "MatrixSetDiag", {input, diagonal}, {}, nullptr, nullptr)),
      output(First(operation)) {}

MatrixDiagV3::MatrixDiagV3(const Scope& scope, Input diagonal, Input k, Input num_rows,
                           Input num_cols, Input padding_value, const Attrs& attrs)
    : operation(DiagOp(scope, "MatrixDiagV3", {diagonal},
                       {{"k", k}, {"num_rows", num_rows}, {"num_cols", num_cols}}, &padding_value,
                       &attrs.align_)),
      output(First(operation)) {}

MatrixDiagPartV3::MatrixDiagPartV3(const Scope& scope, Input input, Input k, Input padding_value,
                                   const Attrs& attrs)
    : operation(
          DiagOp(scope, "MatrixDiagPartV3", {input}, {{"k", k}}, &padding_value, &attrs.align_)),
      diagonal(First(operation)) {}

MatrixSetDiagV3::MatrixSetDiagV3(const Scope& scope, Input input, Input diagonal, Input k,
                                 const Attrs& attrs)
    : operation(
          DiagOp(scope, "MatrixSetDiagV3", {input, diagonal}, {{"k", k}}, nullptr, &attrs.align_)),
      output(First(operation)) {}

}  // namespace ops
}  // namespace tessera
