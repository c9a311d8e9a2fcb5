// Gradients of TensorFlow's array ops (as its python/ops/array_grad.py and data_flow_grad.py): ops
// that reshape, join, cut, permute, slice, pad, tile, gather or stitch pass the gradient back
// through the inverse movement; shape-valued inputs and outputs get none; PreventGradient refuses.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/math_ops.h"

namespace tessera {
namespace {

using Grads = std::vector<Output>;

// `x` as int32 (shape arithmetic is done in int32, as TensorFlow's shape() default).
Output Int32(const Scope& s, const Output& x) {
  return x.type() == DT_INT32 ? x : ops::Cast(s, x, DT_INT32);
}

// An integer vector constant of `dtype` (int32 or int64).
Output IndexConst(const Scope& s, const std::vector<int64_t>& values, DataType dtype) {
  const TensorShape shape{static_cast<int64_t>(values.size())};
  if (dtype == DT_INT64) return ops::Const(s, Tensor::FromVector<int64_t>(shape, values));
  std::vector<int32_t> narrow(values.begin(), values.end());
  return ops::Const(s, Tensor::FromVector<int32_t>(shape, narrow));
}

Output ShapeOf(const Scope& s, const Output& x, DataType dtype) {
  return ops::Shape(s, x, ops::Shape::OutType(dtype));
}

// A scalar as a one-element vector.
Output AsVector(const Scope& s, const Output& scalar) {
  return ops::Reshape(s, scalar, ops::Const(s, {1}));
}

// ConcatV2, ConcatV2 of outputs of Split/SplitV (one output: the gradient itself).
Output Join(const Scope& s, const Grads& parts, const Output& axis) {
  if (parts.size() == 1) return parts[0];
  return ops::Concat(s, parts, axis);
}

absl::Status IdentityGrad(const Scope&, const GradOp& op, const Grads& g, Grads* out) {
  out->assign(op.inputs.size(), Output());
  (*out)[0] = g[0];
  return absl::OkStatus();
}

absl::Status IdentityNGrad(const Scope&, const GradOp&, const Grads& g, Grads* out) {
  *out = g;
  return absl::OkStatus();
}

// Reshape, ExpandDims, Squeeze: the gradient reshaped to the input's shape.
absl::Status ReshapeGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  out->assign(op.inputs.size(), Output());
  (*out)[0] = ops::Reshape(s, g[0], ops::Shape(s, op.inputs[0]));
  return absl::OkStatus();
}

// ConcatV2: the gradient cut along the (possibly negative) axis into the inputs' sizes.
absl::Status ConcatGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const size_t n = op.inputs.size() - 1;
  out->assign(op.inputs.size(), Output());
  if (n == 1) {
    (*out)[0] = g[0];
    return absl::OkStatus();
  }
  const Output axis = ops::FloorMod(s, Int32(s, op.inputs[n]), ops::Rank(s, op.inputs[0]));
  std::vector<Output> shapes;
  for (size_t i = 0; i < n; ++i) shapes.push_back(ops::Shape(s, op.inputs[i]));
  // Row `axis` of the [rank, n] matrix of input shapes: each input's extent along the axis.
  const Output sizes = ops::GatherV2(s, ops::Pack(s, shapes, ops::Pack::Axis(1)), axis, 0);
  ops::SplitV parts(s, g[0], sizes, axis, static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) (*out)[i] = parts[i];
  return absl::OkStatus();
}

absl::Status PackGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::Unstack parts(s, g[0], op.IntAttr("N", 1), ops::Unstack::Axis(op.IntAttr("axis", 0)));
  *out = parts.output;
  return absl::OkStatus();
}

absl::Status UnpackGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::Pack(s, g, ops::Pack::Axis(op.IntAttr("axis", 0)))};
  return absl::OkStatus();
}

// Split(split_dim, value): the output gradients joined again.
absl::Status SplitGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Output(), Join(s, g, op.inputs[0])};
  return absl::OkStatus();
}

// SplitV(value, size_splits, split_dim).
absl::Status SplitVGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Join(s, g, op.inputs[2]), Output(), Output()};
  return absl::OkStatus();
}

absl::Status TransposeGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output inverse = grad_util::UnaryT(s, "InvertPermutation", {op.inputs[1]});
  *out = {ops::Transpose(s, g[0], inverse), Output()};
  return absl::OkStatus();
}

absl::Status ReverseGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::Reverse(s, g[0], op.inputs[1]), Output()};
  return absl::OkStatus();
}

// Slice(input, begin, size): the gradient padded by begin before and the rest after.
absl::Status SliceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& input = op.inputs[0];
  const Output& begin = op.inputs[1];
  const DataType t = begin.type();
  const Output column = ops::Const(s, {-1, 1});
  const Output before = ops::Reshape(s, begin, column);
  const Output rest =
      ops::Sub(s, ops::Sub(s, ShapeOf(s, input, t), ShapeOf(s, op.outputs[0], t)), begin);
  const Output paddings = ops::Concat(s, {before, ops::Reshape(s, rest, column)}, 1);
  *out = {ops::Pad(s, g[0], paddings), Output(), Output()};
  return absl::OkStatus();
}

absl::Status StridedSliceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const DataType index = op.inputs[1].type();
  const DataType t = g[0].type();
  std::vector<Output> inputs = {ShapeOf(s, op.inputs[0], index), op.inputs[1], op.inputs[2],
                                op.inputs[3], g[0]};
  const Output dx =
      grad_util::Node(s, "StridedSliceGrad", inputs,
                      [&](OpBuilder& b) {
                        b.AttrType("T", t).AttrType("Index", index);
                        for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask",
                                                 "new_axis_mask", "shrink_axis_mask"}) {
                          b.AttrInt(mask, op.IntAttr(mask, 0));
                        }
                      },
                      {t})[0];
  *out = {dx, Output(), Output(), Output()};
  return absl::OkStatus();
}

// StridedSliceGrad(shape, begin, end, strides, dy): its gradient is the same slice of g.
absl::Status StridedSliceGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::StridedSlice::Attrs attrs = ops::StridedSlice::BeginMask(op.IntAttr("begin_mask", 0))
                                       .EndMask(op.IntAttr("end_mask", 0))
                                       .EllipsisMask(op.IntAttr("ellipsis_mask", 0))
                                       .NewAxisMask(op.IntAttr("new_axis_mask", 0))
                                       .ShrinkAxisMask(op.IntAttr("shrink_axis_mask", 0));
  const Output dy = ops::StridedSlice(s, g[0], op.inputs[1], op.inputs[2], op.inputs[3], attrs);
  *out = {Output(), Output(), Output(), Output(), dy};
  return absl::OkStatus();
}

// Tile(input, multiples): the gradient seen as [m0, d0, m1, d1, ...] summed over the m's.
absl::Status TileGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& multiples = op.inputs[1];
  const Output input_shape = ShapeOf(s, op.inputs[0], multiples.type());
  const Output split_shape = ops::Reshape(
      s, ops::Transpose(s, ops::Pack(s, {multiples, input_shape}), ops::Const(s, {1, 0})),
      ops::Const(s, {-1}));
  const Output axes = ops::Range(s, 0, grad_util::Size(s, split_shape), 2);
  *out = {ops::Sum(s, ops::Reshape(s, g[0], split_shape), axes), Output()};
  return absl::OkStatus();
}

// Pad and PadV2: the gradient sliced at the pads before each dimension, to the input's shape.
absl::Status PadGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& paddings = op.inputs[1];
  const DataType t = paddings.type();
  const Output before =
      ops::Slice(s, paddings, IndexConst(s, {0, 0}, t), IndexConst(s, {-1, 1}, t));
  const Output begin = ops::Reshape(s, before, ops::Const(s, {-1}));
  out->assign(op.inputs.size(), Output());
  (*out)[0] = ops::Slice(s, g[0], begin, ShapeOf(s, op.inputs[0], t));
  return absl::OkStatus();
}

absl::Status MirrorPadGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const DataType t = g[0].type();
  const DataType pad_type = op.inputs[1].type();
  const std::string mode = op.StringAttr("mode", "REFLECT");
  const Output dx =
      grad_util::Node(s, "MirrorPadGrad", {g[0], op.inputs[1]},
                      [&](OpBuilder& b) {
                        b.AttrType("T", t).AttrType("Tpaddings", pad_type).AttrString("mode", mode);
                      },
                      {t})[0];
  *out = {dx, Output()};
  return absl::OkStatus();
}

absl::Status MirrorPadGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::MirrorPad(s, g[0], op.inputs[1], op.StringAttr("mode", "REFLECT")), Output()};
  return absl::OkStatus();
}

absl::Status BroadcastToGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {grad_util::ReduceToShapeOf(s, g[0], op.inputs[0]), Output()};
  return absl::OkStatus();
}

// Fill(dims, value): every element came from the value.
absl::Status FillGrad(const Scope& s, const GradOp&, const Grads& g, Grads* out) {
  const Output all = grad_util::Range(s, ops::Const(s, 0), ops::Rank(s, g[0]), ops::Const(s, 1));
  *out = {Output(), ops::Sum(s, g[0], all)};
  return absl::OkStatus();
}

Output SegmentSum(const Scope& s, const Output& data, const Output& ids, const Output& count) {
  const DataType t = data.type();
  const DataType index = ids.type();
  return grad_util::Node(
      s, "UnsortedSegmentSum", {data, ids, count},
      [&](OpBuilder& b) {
        b.AttrType("T", t).AttrType("Tindices", index).AttrType("Tnumsegments", DT_INT32);
      },
      {t})[0];
}

// The offsets that make batch-local `indices` (shape [batch dims..., rest...]) index the rows of
// a [prod(batch dims) * gather_size, ...] tensor: batch b (flattened) adds b * gather_size.
Output BatchOffsets(const Scope& s, const Output& indices, const Output& batch_shape,
                    const Output& batch_dims, const Output& gather_size) {
  const Output batch_size = ops::Prod(s, batch_shape, 0);
  const Output starts = ops::Mul(s, ops::Range(s, 0, batch_size, 1), gather_size);  // [batch_size]
  const Output ones = ops::Fill(s, AsVector(s, ops::Sub(s, ops::Rank(s, indices), batch_dims)), 1);
  const Output offsets = ops::Reshape(s, starts, ops::Concat(s, {batch_shape, ones}, 0));
  return indices.type() == DT_INT32 ? offsets : ops::Cast(s, offsets, indices.type());
}

// GatherV2(params, indices, axis): the gradient rows summed into the rows they were gathered
// from, after moving the gathered axis to the front of the non-batch dimensions and back.
absl::Status GatherV2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& params = op.inputs[0];
  const Output& indices = op.inputs[1];
  const int64_t batch_attr = op.IntAttr("batch_dims", 0);
  const Output params_shape = ops::Shape(s, params);
  const Output rank = ops::Rank(s, params);
  const Output axis = ops::FloorMod(s, Int32(s, op.inputs[2]), rank);
  const Output batch_dims =
      batch_attr >= 0 ? ops::Const(s, static_cast<int32_t>(batch_attr))
                      : ops::Add(s, ops::Rank(s, indices), static_cast<int32_t>(batch_attr));
  const Output after_axis = ops::Add(s, axis, 1);
  const Output outer_shape = ops::Slice(s, params_shape, {0}, AsVector(s, axis));
  const Output inner_shape = ops::Slice(s, params_shape, AsVector(s, after_axis), {-1});
  // The gradient as [params[:axis], (gathered index dims flattened), params[axis+1:]].
  const Output values =
      ops::Reshape(s, g[0], ops::Concat(s, {outer_shape, ops::Const(s, {-1}), inner_shape}, 0));
  // Move the gathered dimension to position batch_dims.
  const Output batch_range = ops::Range(s, 0, batch_dims, 1);
  const Output between = ops::Range(s, batch_dims, axis, 1);
  const Output inner_range = ops::Range(s, after_axis, rank, 1);
  const Output to_front = ops::Concat(s, {batch_range, AsVector(s, axis), between, inner_range}, 0);
  const Output back = ops::Concat(
      s, {batch_range, ops::Add(s, between, 1), AsVector(s, batch_dims), inner_range}, 0);
  const Output moved = ops::Transpose(s, values, to_front);
  const Output gather_size = ops::Reshape(s, ops::Slice(s, params_shape, AsVector(s, axis), {1}),
                                          ops::Const(s, Tensor(DT_INT32, TensorShape{0})));
  Output grad;
  if (batch_attr == 0) {
    grad = SegmentSum(s, moved, ops::Reshape(s, indices, ops::Const(s, {-1})), gather_size);
  } else {
    const Output moved_shape = ops::Shape(s, moved);
    const Output batch_shape = ops::Slice(s, moved_shape, {0}, AsVector(s, batch_dims));
    const Output rest_shape =
        ops::Slice(s, moved_shape, AsVector(s, ops::Add(s, batch_dims, 1)), {-1});
    const Output flat_shape = ops::Concat(s, {ops::Const(s, {-1}), rest_shape}, 0);
    const Output ids =
        ops::Add(s, indices, BatchOffsets(s, indices, batch_shape, batch_dims, gather_size));
    const Output count = ops::Mul(s, gather_size, ops::Prod(s, batch_shape, 0));
    grad = SegmentSum(s, ops::Reshape(s, moved, flat_shape),
                      ops::Reshape(s, ids, ops::Const(s, {-1})), count);
    grad = ops::Reshape(s, grad, ops::Concat(s, {batch_shape, ops::Const(s, {-1}), rest_shape}, 0));
  }
  grad = ops::Transpose(s, grad, back);
  *out = {ops::Reshape(s, grad, params_shape), Output(), Output()};
  return absl::OkStatus();
}

// ReverseSequence reverses its gradient the same way.
absl::Status ReverseSequenceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::ReverseSequence(s, g[0], op.inputs[1], op.IntAttr("seq_dim", 0),
                               ops::ReverseSequence::BatchDim(op.IntAttr("batch_dim", 0))),
          Output()};
  return absl::OkStatus();
}

// GatherNd(params, indices): the gradient scattered (and summed) back into params' shape.
absl::Status GatherNdGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& indices = op.inputs[1];
  *out = {ops::ScatterNd(s, indices, g[0], ShapeOf(s, op.inputs[0], indices.type())), Output()};
  return absl::OkStatus();
}

// ScatterNd(indices, updates, shape): each update's gradient is read back from where it went.
absl::Status ScatterNdGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Output(), ops::GatherNd(s, g[0], op.inputs[0]), Output()};
  return absl::OkStatus();
}

// Gather (v1): rows of the gradient summed into the rows of params their indices name.
absl::Status GatherGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& params = op.inputs[0];
  const Output& indices = op.inputs[1];
  const Output params_shape = ops::Shape(s, params);
  const Output count = AsVector(s, ops::Size(s, indices));
  const Output row_shape = ops::Slice(s, params_shape, ops::Const(s, {1}), ops::Const(s, {-1}));
  const Output rows = ops::Reshape(s, g[0], ops::Concat(s, {count, row_shape}, 0));
  const Output flat = ops::Reshape(s, indices, ops::Const(s, {-1}));
  const Output size = ops::GatherV2(s, params_shape, 0, 0);
  *out = {SegmentSum(s, rows, flat, size), Output()};
  return absl::OkStatus();
}

// Reverse (v1): the gradient reversed along the same dimensions.
absl::Status ReverseV1Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {grad_util::UnaryT(s, "Reverse", {g[0], op.inputs[1]}), Output()};
  return absl::OkStatus();
}

// Concat (v1): ConcatV2's gradient with the axis taken from the first input.
absl::Status ConcatV1Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const size_t n = op.inputs.size() - 1;
  out->assign(op.inputs.size(), Output());
  if (n == 1) {
    (*out)[1] = g[0];
    return absl::OkStatus();
  }
  const Output axis = ops::FloorMod(s, op.inputs[0], ops::Rank(s, op.inputs[1]));
  std::vector<Output> shapes;
  for (size_t i = 1; i <= n; ++i) shapes.push_back(ops::Shape(s, op.inputs[i]));
  const Output sizes = ops::GatherV2(s, ops::Pack(s, shapes, ops::Pack::Axis(1)), axis, 0);
  ops::SplitV parts(s, g[0], sizes, axis, static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) (*out)[i + 1] = parts[i];
  return absl::OkStatus();
}

// MatrixBandPart: the gradient keeps the same band.
absl::Status MatrixBandPartGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::MatrixBandPart(s, g[0], op.inputs[1], op.inputs[2]), Output(), Output()};
  return absl::OkStatus();
}

// SpaceToBatchND and BatchToSpaceND are each other's gradient, the paddings serving as crops and
// the crops as paddings; likewise SpaceToBatch and BatchToSpace.
absl::Status SpaceToBatchNdGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::BatchToSpaceND(s, g[0], op.inputs[1], op.inputs[2]), Output(), Output()};
  return absl::OkStatus();
}

absl::Status BatchToSpaceNdGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SpaceToBatchND(s, g[0], op.inputs[1], op.inputs[2]), Output(), Output()};
  return absl::OkStatus();
}

absl::Status SpaceToBatchGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::BatchToSpace(s, g[0], op.inputs[1], op.IntAttr("block_size", 2)), Output()};
  return absl::OkStatus();
}

absl::Status BatchToSpaceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SpaceToBatch(s, g[0], op.inputs[1], op.IntAttr("block_size", 2)), Output()};
  return absl::OkStatus();
}

// SpaceToDepth and DepthToSpace are each other's gradient, with the same block_size and layout.
absl::Status SpaceToDepthGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::DepthToSpace(s, g[0], op.IntAttr("block_size", 2),
                            ops::DepthToSpace::DataFormat(op.StringAttr("data_format", "NHWC")))};
  return absl::OkStatus();
}

absl::Status DepthToSpaceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SpaceToDepth(s, g[0], op.IntAttr("block_size", 2),
                            ops::SpaceToDepth::DataFormat(op.StringAttr("data_format", "NHWC")))};
  return absl::OkStatus();
}

// The diagonal ops: MatrixDiag's gradient is the same diagonals of the gradient, MatrixDiagPart's
// the gradient placed on those diagonals of zeros, and MatrixSetDiag's the gradient with those
// diagonals zeroed (for the input) and read back (for the diagonal). Version 2 packs LEFT_LEFT.
ops::DiagAlignAttrs AlignOf(const GradOp& op) {
  return ops::DiagAlignAttrs().Align(op.op().back() == '3' ? op.StringAttr("align", "RIGHT_LEFT")
                                                           : "LEFT_LEFT");
}

absl::Status MatrixDiagGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  if (op.op() == "MatrixDiag") {
    *out = {ops::MatrixDiagPart(s, g[0])};
  } else {
    const Output zero = grad_util::Scalar(s, 0, op.inputs[0].type());
    *out = {ops::MatrixDiagPartV3(s, g[0], op.inputs[1], zero, AlignOf(op)), Output(), Output(),
            Output(), Output()};
  }
  return absl::OkStatus();
}

absl::Status MatrixDiagPartGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output zeros = ops::ZerosLike(s, op.inputs[0]);
  if (op.op() == "MatrixDiagPart") {
    *out = {ops::MatrixSetDiag(s, zeros, g[0])};
  } else {
    *out = {ops::MatrixSetDiagV3(s, zeros, g[0], op.inputs[1], AlignOf(op)), Output(), Output()};
  }
  return absl::OkStatus();
}

absl::Status MatrixSetDiagGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output zeros = ops::ZerosLike(s, op.inputs[1]);
  if (op.op() == "MatrixSetDiag") {
    *out = {ops::MatrixSetDiag(s, g[0], zeros), ops::MatrixDiagPart(s, g[0])};
  } else {
    const Output zero = grad_util::Scalar(s, 0, op.inputs[0].type());
    *out = {ops::MatrixSetDiagV3(s, g[0], zeros, op.inputs[2], AlignOf(op)),
            ops::MatrixDiagPartV3(s, g[0], op.inputs[2], zero, AlignOf(op)), Output()};
  }
  return absl::OkStatus();
}

// PreventGradient: asking for the gradient is the error, quoting the node's message.
absl::Status PreventGradientGrad(const Scope&, const GradOp& op, const Grads&, Grads*) {
  return absl::InvalidArgumentError(
      absl::StrCat("Gradient explicitly disabled. Reason: ", op.StringAttr("message", "")));
}

// DynamicStitch(indices_0..N-1, data_0..N-1): data_k's gradient gathers the rows its indices
// name. Where an index repeats, every copy gets the row's gradient, as in TensorFlow.
absl::Status DynamicStitchGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const size_t n = op.inputs.size() / 2;
  out->assign(op.inputs.size(), Output());
  for (size_t k = 0; k < n; ++k) (*out)[n + k] = ops::GatherV2(s, g[0], op.inputs[k], 0);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayGradients(GradientRegistry* r) {
  RETURN_IF_ERROR(r->Register("Identity", IdentityGrad));
  RETURN_IF_ERROR(r->Register("Snapshot", IdentityGrad));
  // A resource variable's reads pass their gradients to its handle.
  RETURN_IF_ERROR(r->Register("ReadVariableOp", IdentityGrad));
  RETURN_IF_ERROR(r->Register("PlaceholderWithDefault", IdentityGrad));
  RETURN_IF_ERROR(r->Register("IdentityN", IdentityNGrad));
  RETURN_IF_ERROR(r->Register("Reshape", ReshapeGrad));
  RETURN_IF_ERROR(r->Register("ExpandDims", ReshapeGrad));
  RETURN_IF_ERROR(r->Register("Squeeze", ReshapeGrad));
  RETURN_IF_ERROR(r->Register("ConcatV2", ConcatGrad));
  RETURN_IF_ERROR(r->Register("Pack", PackGrad));
  RETURN_IF_ERROR(r->Register("Unpack", UnpackGrad));
  RETURN_IF_ERROR(r->Register("Split", SplitGrad));
  RETURN_IF_ERROR(r->Register("SplitV", SplitVGrad));
  RETURN_IF_ERROR(r->Register("Transpose", TransposeGrad));
  RETURN_IF_ERROR(r->Register("ReverseV2", ReverseGrad));
  RETURN_IF_ERROR(r->Register("Slice", SliceGrad));
  RETURN_IF_ERROR(r->Register("StridedSlice", StridedSliceGrad));
  RETURN_IF_ERROR(r->Register("StridedSliceGrad", StridedSliceGradGrad));
  RETURN_IF_ERROR(r->Register("Tile", TileGrad));
  RETURN_IF_ERROR(r->Register("Pad", PadGrad));
  RETURN_IF_ERROR(r->Register("PadV2", PadGrad));
  RETURN_IF_ERROR(r->Register("MirrorPad", MirrorPadGrad));
  RETURN_IF_ERROR(r->Register("MirrorPadGrad", MirrorPadGradGrad));
  RETURN_IF_ERROR(r->Register("BroadcastTo", BroadcastToGrad));
  RETURN_IF_ERROR(r->Register("GatherV2", GatherV2Grad));
  RETURN_IF_ERROR(r->Register("Fill", FillGrad));
  RETURN_IF_ERROR(r->Register("PreventGradient", PreventGradientGrad));
  RETURN_IF_ERROR(r->Register("DynamicStitch", DynamicStitchGrad));
  RETURN_IF_ERROR(r->Register("ParallelDynamicStitch", DynamicStitchGrad));
  RETURN_IF_ERROR(r->Register("ReverseSequence", ReverseSequenceGrad));
  RETURN_IF_ERROR(r->Register("GatherNd", GatherNdGrad));
  RETURN_IF_ERROR(r->Register("ScatterNd", ScatterNdGrad));
  RETURN_IF_ERROR(r->Register("Gather", GatherGrad));
  RETURN_IF_ERROR(r->Register("Reverse", ReverseV1Grad));
  RETURN_IF_ERROR(r->Register("Concat", ConcatV1Grad));
  RETURN_IF_ERROR(r->Register("MatrixBandPart", MatrixBandPartGrad));
  RETURN_IF_ERROR(r->Register("SpaceToBatchND", SpaceToBatchNdGrad));
  RETURN_IF_ERROR(r->Register("BatchToSpaceND", BatchToSpaceNdGrad));
  RETURN_IF_ERROR(r->Register("SpaceToBatch", SpaceToBatchGrad));
  RETURN_IF_ERROR(r->Register("BatchToSpace", BatchToSpaceGrad));
  RETURN_IF_ERROR(r->Register("SpaceToDepth", SpaceToDepthGrad));
  RETURN_IF_ERROR(r->Register("DepthToSpace", DepthToSpaceGrad));
  for (const char* version : {"", "V2", "V3"}) {
    RETURN_IF_ERROR(r->Register(std::string("MatrixDiag") + version, MatrixDiagGrad));
    RETURN_IF_ERROR(r->Register(std::string("MatrixDiagPart") + version, MatrixDiagPartGrad));
    RETURN_IF_ERROR(r->Register(std::string("MatrixSetDiag") + version, MatrixSetDiagGrad));
  }
  for (const char* op : {"Const", "Shape", "Size", "Rank", "ZerosLike", "OnesLike", "StopGradient",
                         "BroadcastGradientArgs", "VariableV2", "VarHandleOp", "Placeholder",
                         "OneHot", "Range", "Where", "InvertPermutation", "ShapeN",
                         "ConcatOffset"}) {
    RETURN_IF_ERROR(r->RegisterNoGradient(op));
  }
  // The first ref variable and the sparse variable updates, as in TensorFlow.
  for (const char* op : {"Variable", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul",
                         "ScatterDiv", "ScatterMin", "ScatterMax"}) {
    RETURN_IF_ERROR(r->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace tessera
