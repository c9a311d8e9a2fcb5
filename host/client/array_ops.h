// Typed wrappers of TensorFlow's array ops: constants, placeholders, identity and shape ops.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its main Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_ARRAY_OPS_H_
#define TESSERA_HOST_CLIENT_ARRAY_OPS_H_

#include <cstdint>
#include <vector>

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

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_ARRAY_OPS_H_
