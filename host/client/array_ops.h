// Typed wrappers of TensorFlow's array ops: constants, placeholders, identity and shape ops,
// slicing, splitting, transposing, tiling, padding, gathering and scattering, index sequences,
// Unique and the stitching of rows by index.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its main Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_ARRAY_OPS_H_
#define TESSERA_HOST_CLIENT_ARRAY_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// A constant: attrs dtype and value. Numbers, nested initializer lists or a Tensor.
Output Const(const Scope& scope, const Input::Initializer& value);
// The initializer's values laid out in `shape`.
Output Const(const Scope& scope, const Input::Initializer& value, const TensorShape& shape);

// Returns its input unchanged. Attr T.
class Identity {
 public:
  Identity(const Scope& scope, Input input);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Does nothing; used as a target and as a control dependency.
class NoOp {
 public:
  explicit NoOp(const Scope& scope);
  operator Operation() const { return operation; }
  Operation operation;
};

// A value fed at run time. Attrs dtype and shape (default: unknown rank).
class Placeholder {
 public:
  struct Attrs {
    Attrs Shape(const PartialTensorShape& x) const {
      Attrs ret = *this;
      ret.shape_ = x;
      return ret;
    }
    PartialTensorShape shape_;
  };
  Placeholder(const Scope& scope, DataType dtype);
  Placeholder(const Scope& scope, DataType dtype, const Attrs& attrs);
  static Attrs Shape(const PartialTensorShape& x) { return Attrs().Shape(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `input` unless a value is fed. Attrs dtype (of input) and shape.
class PlaceholderWithDefault {
 public:
  PlaceholderWithDefault(const Scope& scope, Input input, const PartialTensorShape& shape);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `tensor` with the shape given by the int32/int64 vector `shape` (one -1 allowed). Attrs T,
// Tshape.
class Reshape {
 public:
  Reshape(const Scope& scope, Input tensor, Input shape);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The shape of `input` as a vector. Attrs T, out_type (default int32).
class Shape {
 public:
  struct Attrs {
    Attrs OutType(DataType x) const {
      Attrs ret = *this;
      ret.out_type_ = x;
      return ret;
    }
    DataType out_type_ = TSR_DTYPE_INT32;
  };
  Shape(const Scope& scope, Input input);
  Shape(const Scope& scope, Input input, const Attrs& attrs);
  static Attrs OutType(DataType x) { return Attrs().OutType(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The shape of each of `input` as a vector. Attrs N, T, out_type (default int32).
class ShapeN {
 public:
  struct Attrs {
    Attrs OutType(DataType x) const {
      Attrs ret = *this;
      ret.out_type_ = x;
      return ret;
    }
    DataType out_type_ = TSR_DTYPE_INT32;
  };
  ShapeN(const Scope& scope, InputList input);
  ShapeN(const Scope& scope, InputList input, const Attrs& attrs);
  static Attrs OutType(DataType x) { return Attrs().OutType(x); }
  Output operator[](size_t index) const { return output[index]; }
  Operation operation;
  std::vector<Output> output;
};

// `input` with a dimension of size 1 inserted at `axis`. Attrs T, Tdim.
class ExpandDims {
 public:
  ExpandDims(const Scope& scope, Input input, Input axis);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `input` without the dimensions of size 1 (only those in Axis when given). Attrs T,
// squeeze_dims (default []).
class Squeeze {
 public:
  struct Attrs {
    Attrs Axis(std::vector<int64_t> x) const {
      Attrs ret = *this;
      ret.axis_ = std::move(x);
      return ret;
    }
    std::vector<int64_t> axis_;
  };
  Squeeze(const Scope& scope, Input input);
  Squeeze(const Scope& scope, Input input, const Attrs& attrs);
  static Attrs Axis(std::vector<int64_t> x) { return Attrs().Axis(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The op ConcatV2 (TensorFlow's C++ class name is Concat, and so is its default node name):
// `values` (two or more) joined along `axis`. Attrs N, T, Tidx.
class Concat {
 public:
  Concat(const Scope& scope, InputList values, Input axis);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};
using ConcatV2 = Concat;

// The offsets at which ConcatV2 along `concat_dim` (an int32 scalar) places inputs of the
// shapes `shape` (int32 or int64 vectors): zero but along the axis. Attrs N (at least 2),
// shape_type.
class ConcatOffset {
 public:
  ConcatOffset(const Scope& scope, Input concat_dim, InputList shape);
  Output operator[](size_t index) const { return offset[index]; }
  Operation operation;
  std::vector<Output> offset;
};

// A tensor of shape `dims` filled with the scalar `value`. Attrs T, index_type.
class Fill {
 public:
  Fill(const Scope& scope, Input dims, Input value);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Zeros with the shape and type of `x`. Attr T.
class ZerosLike {
 public:
  ZerosLike(const Scope& scope, Input x);
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Stacks `values` (one or more, same shape) along a new dimension `axis`. Attrs N, T, axis.
class Pack {
 public:
  struct Attrs {
    Attrs Axis(int64_t x) const {
      Attrs ret = *this;
      ret.axis_ = x;
      return ret;
    }
    int64_t axis_ = 0;
  };
  Pack(const Scope& scope, InputList values);
  Pack(const Scope& scope, InputList values, const Attrs& attrs);
  static Attrs Axis(int64_t x) { return Attrs().Axis(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Ones with the shape and type of `x`. Attr T.
class OnesLike {
 public:
  OnesLike(const Scope& scope, Input x);
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns each input unchanged. Attr T (the list of input types).
class IdentityN {
 public:
  IdentityN(const Scope& scope, InputList input);
  Output operator[](size_t index) const { return output[index]; }
  Operation operation;
  std::vector<Output> output;
};

// Its input, with no gradient flowing back through it. Attr T.
class StopGradient {
 public:
  StopGradient(const Scope& scope, Input input);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Its input; asking for its gradient is an error that quotes `message`. Attrs T, message
// (default "").
class PreventGradient {
 public:
  struct Attrs {
    Attrs Message(absl::string_view x) const {
      Attrs ret = *this;
      ret.message_ = std::string(x);
      return ret;
    }
    std::string message_;
  };
  PreventGradient(const Scope& scope, Input input);
  PreventGradient(const Scope& scope, Input input, const Attrs& attrs);
  static Attrs Message(absl::string_view x) { return Attrs().Message(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// A copy of its input (never an alias of a buffer another node still uses). Attr T.
class Snapshot {
 public:
  Snapshot(const Scope& scope, Input input);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The number of elements of `input` as a scalar. Attrs T, out_type (default int32).
class Size {
 public:
  struct Attrs {
    Attrs OutType(DataType x) const {
      Attrs ret = *this;
      ret.out_type_ = x;
      return ret;
    }
    DataType out_type_ = TSR_DTYPE_INT32;
  };
  Size(const Scope& scope, Input input);
  Size(const Scope& scope, Input input, const Attrs& attrs);
  static Attrs OutType(DataType x) { return Attrs().OutType(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The rank of `input` as an int32 scalar. Attr T.
class Rank {
 public:
  Rank(const Scope& scope, Input input);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The reduction indices of the gradients of a broadcasting binary op whose inputs have shapes s0
// and s1 (int32/int64 vectors). Attr T.
class BroadcastGradientArgs {
 public:
  BroadcastGradientArgs(const Scope& scope, Input s0, Input s1);
  Operation operation;
  Output r0;
  Output r1;
};

// The int64 coordinates ([num_true, rank]) of the true (non-zero) elements of `input`. Attr T.
class Where {
 public:
  Where(const Scope& scope, Input input);
  operator Output() const { return index; }
  Operation operation;
  Output index;
};

// [start, start + delta, ...) up to but excluding `limit`. Attr Tidx.
class Range {
 public:
  Range(const Scope& scope, Input start, Input limit, Input delta);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `x` with its dimensions permuted: output dimension i is input dimension perm[i]. Attrs T,
// Tperm.
class Transpose {
 public:
  Transpose(const Scope& scope, Input x, Input perm);
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// The op ReverseV2 (TensorFlow's C++ class name is Reverse): `tensor` with the dimensions in
// the int32/int64 vector `axis` reversed. Attrs T, Tidx.
class Reverse {
 public:
  Reverse(const Scope& scope, Input tensor, Input axis);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};
using ReverseV2 = Reverse;

// `input` with the first seq_lengths[b] slices along `seq_dim` reversed in each entry b of
// `batch_dim`. Attrs seq_dim, batch_dim (default 0), T, Tlen (seq_lengths' type, int32/int64).
class ReverseSequence {
 public:
  struct Attrs {
    Attrs BatchDim(int64_t x) const {
      Attrs ret = *this;
      ret.batch_dim_ = x;
      return ret;
    }
    int64_t batch_dim_ = 0;
  };
  ReverseSequence(const Scope& scope, Input input, Input seq_lengths, int64_t seq_dim);
  ReverseSequence(const Scope& scope, Input input, Input seq_lengths, int64_t seq_dim,
                  const Attrs& attrs);
  static Attrs BatchDim(int64_t x) { return Attrs().BatchDim(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The block of `input` starting at `begin` with extent `size` (-1: to the end). Attrs T, Index.
class Slice {
 public:
  Slice(const Scope& scope, Input input, Input begin, Input size);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// numpy-style basic indexing: begin/end/strides plus the five masks. Attrs T, Index,
// begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask (defaults 0).
class StridedSlice {
 public:
  struct Attrs {
    Attrs BeginMask(int64_t x) const {
      Attrs ret = *this;
      ret.begin_mask_ = x;
      return ret;
    }
    Attrs EndMask(int64_t x) const {
      Attrs ret = *this;
      ret.end_mask_ = x;
      return ret;
    }
    Attrs EllipsisMask(int64_t x) const {
      Attrs ret = *this;
      ret.ellipsis_mask_ = x;
      return ret;
    }
    Attrs NewAxisMask(int64_t x) const {
      Attrs ret = *this;
      ret.new_axis_mask_ = x;
      return ret;
    }
    Attrs ShrinkAxisMask(int64_t x) const {
      Attrs ret = *this;
      ret.shrink_axis_mask_ = x;
      return ret;
    }
    int64_t begin_mask_ = 0;
    int64_t end_mask_ = 0;
    int64_t ellipsis_mask_ = 0;
    int64_t new_axis_mask_ = 0;
    int64_t shrink_axis_mask_ = 0;
  };
  StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides);
  StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
               const Attrs& attrs);
  static Attrs BeginMask(int64_t x) { return Attrs().BeginMask(x); }
  static Attrs EndMask(int64_t x) { return Attrs().EndMask(x); }
  static Attrs EllipsisMask(int64_t x) { return Attrs().EllipsisMask(x); }
  static Attrs NewAxisMask(int64_t x) { return Attrs().NewAxisMask(x); }
  static Attrs ShrinkAxisMask(int64_t x) { return Attrs().ShrinkAxisMask(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `value` cut into `num_split` equal pieces along the int32 scalar `axis`. Attrs num_split, T.
class Split {
 public:
  Split(const Scope& scope, Input axis, Input value, int64_t num_split);
  Output operator[](size_t index) const { return output[index]; }
  Operation operation;
  std::vector<Output> output;
};

// `value` cut along `axis` into pieces of the sizes in `size_splits` (one may be -1). Attrs
// num_split, T, Tlen.
class SplitV {
 public:
  SplitV(const Scope& scope, Input value, Input size_splits, Input axis, int64_t num_split);
  Output operator[](size_t index) const { return output[index]; }
  Operation operation;
  std::vector<Output> output;
};

// The op Unpack (TensorFlow's C++ class name is Unstack): the `num` slices of `value` along
// `axis`. Attrs num, T, axis (default 0).
class Unstack {
 public:
  struct Attrs {
    Attrs Axis(int64_t x) const {
      Attrs ret = *this;
      ret.axis_ = x;
      return ret;
    }
    int64_t axis_ = 0;
  };
  Unstack(const Scope& scope, Input value, int64_t num);
  Unstack(const Scope& scope, Input value, int64_t num, const Attrs& attrs);
  static Attrs Axis(int64_t x) { return Attrs().Axis(x); }
  Output operator[](size_t index) const { return output[index]; }
  Operation operation;
  std::vector<Output> output;
};
using Unpack = Unstack;

// `input` repeated multiples[i] times along dimension i. Attrs T, Tmultiples.
class Tile {
 public:
  Tile(const Scope& scope, Input input, Input multiples);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `input` broadcast (numpy's rules) to the shape given by the vector `shape`. Attrs T, Tidx.
class BroadcastTo {
 public:
  BroadcastTo(const Scope& scope, Input input, Input shape);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `input` with zeros added before and after each dimension, as the [rank, 2] matrix `paddings`
// says. Attrs T, Tpaddings.
class Pad {
 public:
  Pad(const Scope& scope, Input input, Input paddings);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Pad with the scalar `constant_values` instead of zeros. Attrs T, Tpaddings.
class PadV2 {
 public:
  PadV2(const Scope& scope, Input input, Input paddings, Input constant_values);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Pad with mirrored values; `mode` is "REFLECT" (edges not repeated) or "SYMMETRIC". Attrs T,
// Tpaddings, mode.
class MirrorPad {
 public:
  MirrorPad(const Scope& scope, Input input, Input paddings, const std::string& mode);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Slices of `params` along `axis` picked by `indices`. Attrs Tparams, Tindices, Taxis,
// batch_dims (default 0).
class GatherV2 {
 public:
  struct Attrs {
    Attrs BatchDims(int64_t x) const {
      Attrs ret = *this;
      ret.batch_dims_ = x;
      return ret;
    }
    int64_t batch_dims_ = 0;
  };
  GatherV2(const Scope& scope, Input params, Input indices, Input axis);
  GatherV2(const Scope& scope, Input params, Input indices, Input axis, const Attrs& attrs);
  static Attrs BatchDims(int64_t x) { return Attrs().BatchDims(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The op Gather (TensorFlow's first version): rows of `params` (along axis 0) picked by
// `indices` (int32/int64). Attrs validate_indices (default true; indices are always checked),
// Tparams, Tindices.
class Gather {
 public:
  struct Attrs {
    Attrs ValidateIndices(bool x) const {
      Attrs ret = *this;
      ret.validate_indices_ = x;
      return ret;
    }
    bool validate_indices_ = true;
  };
  Gather(const Scope& scope, Input params, Input indices);
  Gather(const Scope& scope, Input params, Input indices, const Attrs& attrs);
  static Attrs ValidateIndices(bool x) { return Attrs().ValidateIndices(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Each innermost matrix of `input` with everything outside the band of `num_lower` diagonals
// below and `num_upper` above the main one zeroed (a negative count keeps that whole triangle).
// Attrs T, Tindex (int32/int64).
class MatrixBandPart {
 public:
  MatrixBandPart(const Scope& scope, Input input, Input num_lower, Input num_upper);
  operator Output() const { return band; }
  Operation operation;
  Output band;
};

// A one-hot encoding of `indices` with `depth` (int32) entries of `on_value`/`off_value` along a
// new dimension `axis` (default -1, the last). Attrs T, TI, axis.
class OneHot {
 public:
  struct Attrs {
    Attrs Axis(int64_t x) const {
      Attrs ret = *this;
      ret.axis_ = x;
      return ret;
    }
    int64_t axis_ = -1;
  };
  OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value);
  OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
         const Attrs& attrs);
  static Attrs Axis(int64_t x) { return Attrs().Axis(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The slices of `params` named by the rows of the innermost dimension of `indices`
// (int16/int32/int64). Attrs Tparams, Tindices.
class GatherNd {
 public:
  GatherNd(const Scope& scope, Input params, Input indices);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Zeros of `shape` with each of `updates` added at the slice its row of `indices` names
// (repeated rows add up); `indices` and `shape` share one int16/int32/int64 type. Attrs T,
// Tindices.
class ScatterNd {
 public:
  ScatterNd(const Scope& scope, Input indices, Input updates, Input shape);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The distinct elements `y` of the vector `x` in order of first appearance, and for each
// element of `x` its position `idx` in `y`. Attrs T, out_idx (default int32).
class Unique {
 public:
  struct Attrs {
    Attrs OutIdx(DataType x) const {
      Attrs ret = *this;
      ret.out_idx_ = x;
      return ret;
    }
    DataType out_idx_ = TSR_DTYPE_INT32;
  };
  Unique(const Scope& scope, Input x);
  Unique(const Scope& scope, Input x, const Attrs& attrs);
  static Attrs OutIdx(DataType x) { return Attrs().OutIdx(x); }
  Operation operation;
  Output y;
  Output idx;
};

// merged[indices[k][j], ...] = data[k][j, ...]: rows interleaved by int32 `indices`, the last
// input winning where an index repeats. Attrs N, T.
class DynamicStitch {
 public:
  DynamicStitch(const Scope& scope, InputList indices, InputList data);
  operator Output() const { return merged; }
  Operation operation;
  Output merged;
};

// DynamicStitch where the winner among repeated indices is left unspecified. Attrs N, T.
class ParallelDynamicStitch {
 public:
  ParallelDynamicStitch(const Scope& scope, InputList indices, InputList data);
  operator Output() const { return merged; }
  Operation operation;
  Output merged;
};

// SpaceToBatch for N-D tensors: spatial dimensions 1..M of `input`, zero-padded by the [M, 2]
// `paddings`, cut into blocks of `block_shape` whose offsets join the batch dimension
// (offset-major). Attrs T, Tblock_shape, Tpaddings (int32/int64).
class SpaceToBatchND {
 public:
  SpaceToBatchND(const Scope& scope, Input input, Input block_shape, Input paddings);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The inverse of SpaceToBatchND: batch blocks of `block_shape` moved back into spatial dimensions
// 1..M, then cropped by the [M, 2] `crops`. Attrs T, Tblock_shape, Tcrops (int32/int64).
class BatchToSpaceND {
 public:
  BatchToSpaceND(const Scope& scope, Input input, Input block_shape, Input crops);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// SpaceToBatchND of a 4-D input with block_shape [block_size, block_size]. Attrs T, Tpaddings,
// block_size (>= 2).
class SpaceToBatch {
 public:
  SpaceToBatch(const Scope& scope, Input input, Input paddings, int64_t block_size);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// BatchToSpaceND of a 4-D input with block_shape [block_size, block_size]. Attrs T, block_size
// (>= 2), Tidx.
class BatchToSpace {
 public:
  BatchToSpace(const Scope& scope, Input input, Input crops, int64_t block_size);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The data_format attr of SpaceToDepth and DepthToSpace ("NHWC", the default, or "NCHW").
struct SpaceDepthAttrs {
  SpaceDepthAttrs DataFormat(std::string x) const {
    SpaceDepthAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  std::string data_format_ = "NHWC";
};

// Each block_size x block_size block of height and width moved into the depth, the block's rows
// outermost. Attrs T, block_size (>= 2), data_format.
class SpaceToDepth {
 public:
  using Attrs = SpaceDepthAttrs;
  SpaceToDepth(const Scope& scope, Input input, int64_t block_size);
  SpaceToDepth(const Scope& scope, Input input, int64_t block_size, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The inverse of SpaceToDepth. Attrs T, block_size (>= 2), data_format.
class DepthToSpace {
 public:
  using Attrs = SpaceDepthAttrs;
  DepthToSpace(const Scope& scope, Input input, int64_t block_size);
  DepthToSpace(const Scope& scope, Input input, int64_t block_size, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The main diagonal of `diagonal` ([..., n]) placed in [..., n, n] matrices of zeros. Attr T.
class MatrixDiag {
 public:
  MatrixDiag(const Scope& scope, Input diagonal);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The main diagonal of each innermost matrix: [..., m, n] -> [..., min(m, n)]. Attr T.
class MatrixDiagPart {
 public:
  MatrixDiagPart(const Scope& scope, Input input);
  operator Output() const { return diagonal; }
  Operation operation;
  Output diagonal;
};

// `input` with the main diagonal of each innermost matrix replaced by `diagonal`. Attr T.
class MatrixSetDiag {
 public:
  MatrixSetDiag(const Scope& scope, Input input, Input diagonal);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The `align` attr of the V3 diagonal ops: how diagonals shorter than the longest are packed
// (superdiagonals first, subdiagonals second; default "RIGHT_LEFT").
struct DiagAlignAttrs {
  DiagAlignAttrs Align(std::string x) const {
    DiagAlignAttrs ret = *this;
    ret.align_ = std::move(x);
    return ret;
  }
  std::string align_ = "RIGHT_LEFT";
};

// The diagonals k (an int32 scalar, or [lower, upper]) of `diagonal` placed in [..., num_rows,
// num_cols] matrices of `padding_value` (num_rows / num_cols -1: the smallest that fits). Attrs T,
// align.
class MatrixDiagV3 {
 public:
  using Attrs = DiagAlignAttrs;
  MatrixDiagV3(const Scope& scope, Input diagonal, Input k, Input num_rows, Input num_cols,
               Input padding_value, const Attrs& attrs = Attrs());
  static Attrs Align(std::string x) { return Attrs().Align(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The diagonals k of each innermost matrix, [..., num_diags, max_diag_len] (no num_diags
// dimension for one diagonal), `padding_value` where a diagonal is shorter. Attrs T, align.
class MatrixDiagPartV3 {
 public:
  using Attrs = DiagAlignAttrs;
  MatrixDiagPartV3(const Scope& scope, Input input, Input k, Input padding_value,
                   const Attrs& attrs = Attrs());
  static Attrs Align(std::string x) { return Attrs().Align(std::move(x)); }
  operator Output() const { return diagonal; }
  Operation operation;
  Output diagonal;
};

// `input` with its diagonals k replaced by `diagonal` (packed as MatrixDiagPartV3 returns them).
// Attrs T, align.
class MatrixSetDiagV3 {
 public:
  using Attrs = DiagAlignAttrs;
  MatrixSetDiagV3(const Scope& scope, Input input, Input diagonal, Input k,
                  const Attrs& attrs = Attrs());
  static Attrs Align(std::string x) { return Attrs().Align(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_ARRAY_OPS_H_
