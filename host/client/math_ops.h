// Typed wrappers of TensorFlow's math ops: element-wise arithmetic, MatMul, reductions, Cast.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its main Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_MATH_OPS_H_
#define TESSERA_HOST_CLIENT_MATH_OPS_H_

#include "absl/strings/string_view.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {
namespace internal {

// A node with inputs x, y of one type T (attr T) and one output of that type.
Operation BinaryOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y);
// A node with input x (attr T) and one output of its type.
Operation UnaryOp(const Scope& scope, absl::string_view op, const Input& x);
// A reduction: input, reduction_indices; attrs T, Tidx, keep_dims.
Operation ReductionOp(const Scope& scope, absl::string_view op, const Input& input,
                      const Input& axis, bool keep_dims);
inline Output FirstOutput(const Operation& op) { return op.valid() ? op.output(0) : Output(); }

}  // namespace internal

// Returns x + y element-wise, with broadcasting (also string concatenation in TensorFlow). Attr T.
class Add {
 public:
  Add(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "Add", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns x + y element-wise, with broadcasting. Attr T.
class AddV2 {
 public:
  AddV2(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "AddV2", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns x - y element-wise, with broadcasting. Attr T.
class Sub {
 public:
  Sub(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "Sub", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns x * y element-wise, with broadcasting. Attr T.
class Mul {
 public:
  Mul(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "Mul", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns x / y element-wise for real types, with broadcasting. Attr T.
class RealDiv {
 public:
  RealDiv(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "RealDiv", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns max(x, y) element-wise, with broadcasting. Attr T.
class Maximum {
 public:
  Maximum(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "Maximum", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns min(x, y) element-wise, with broadcasting. Attr T.
class Minimum {
 public:
  Minimum(const Scope& scope, Input x, Input y)
      : operation(internal::BinaryOp(scope, "Minimum", x, y)), z(internal::FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// Returns -x element-wise. Attr T.
class Neg {
 public:
  Neg(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Neg", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns |x| element-wise. Attr T.
class Abs {
 public:
  Abs(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Abs", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns e^x element-wise. Attr T.
class Exp {
 public:
  Exp(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Exp", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns the natural logarithm of x element-wise. Attr T.
class Log {
 public:
  Log(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Log", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns the square root of x element-wise. Attr T.
class Sqrt {
 public:
  Sqrt(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Sqrt", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns 1 / sqrt(x) element-wise. Attr T.
class Rsqrt {
 public:
  Rsqrt(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Rsqrt", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns x * x element-wise. Attr T.
class Square {
 public:
  Square(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Square", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns the hyperbolic tangent of x element-wise. Attr T.
class Tanh {
 public:
  Tanh(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Tanh", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Returns 1 / (1 + e^-x) element-wise. Attr T.
class Sigmoid {
 public:
  Sigmoid(const Scope& scope, Input x)
      : operation(internal::UnaryOp(scope, "Sigmoid", x)), y(internal::FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// The matrix product of a and b (each optionally transposed). Attrs T, transpose_a,
// transpose_b, and grad_a/grad_b (hints that the product is a gradient; no effect on the value).
class MatMul {
 public:
  struct Attrs {
    Attrs TransposeA(bool x) const {
      Attrs ret = *this;
      ret.transpose_a_ = x;
      return ret;
    }
    Attrs TransposeB(bool x) const {
      Attrs ret = *this;
      ret.transpose_b_ = x;
      return ret;
    }
    Attrs GradA(bool x) const {
      Attrs ret = *this;
      ret.grad_a_ = x;
      return ret;
    }
    Attrs GradB(bool x) const {
      Attrs ret = *this;
      ret.grad_b_ = x;
      return ret;
    }
    bool transpose_a_ = false;
    bool transpose_b_ = false;
    bool grad_a_ = false;
    bool grad_b_ = false;
  };
  MatMul(const Scope& scope, Input a, Input b);
  MatMul(const Scope& scope, Input a, Input b, const Attrs& attrs);
  static Attrs TransposeA(bool x) { return Attrs().TransposeA(x); }
  static Attrs TransposeB(bool x) { return Attrs().TransposeB(x); }
  static Attrs GradA(bool x) { return Attrs().GradA(x); }
  static Attrs GradB(bool x) { return Attrs().GradB(x); }
  operator Output() const { return product; }
  Operation operation;
  Output product;
};

// The attrs of the reductions Sum, Mean and Max.
struct ReductionAttrs {
  ReductionAttrs KeepDims(bool x) const {
    ReductionAttrs ret = *this;
    ret.keep_dims_ = x;
    return ret;
  }
  bool keep_dims_ = false;
};

// The sum of `input` over the dimensions in `axis` (int32 or int64). Attrs T,
// Tidx, keep_dims.
class Sum {
 public:
  using Attrs = ReductionAttrs;
  Sum(const Scope& scope, Input input, Input axis) : Sum(scope, input, axis, Attrs()) {}
  Sum(const Scope& scope, Input input, Input axis, const Attrs& attrs)
      : operation(internal::ReductionOp(scope, "Sum", input, axis, attrs.keep_dims_)),
        output(internal::FirstOutput(operation)) {}
  static Attrs KeepDims(bool x) { return Attrs().KeepDims(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The mean of `input` over the dimensions in `axis` (int32 or int64). Attrs T,
// Tidx, keep_dims.
class Mean {
 public:
  using Attrs = ReductionAttrs;
  Mean(const Scope& scope, Input input, Input axis) : Mean(scope, input, axis, Attrs()) {}
  Mean(const Scope& scope, Input input, Input axis, const Attrs& attrs)
      : operation(internal::ReductionOp(scope, "Mean", input, axis, attrs.keep_dims_)),
        output(internal::FirstOutput(operation)) {}
  static Attrs KeepDims(bool x) { return Attrs().KeepDims(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The maximum of `input` over the dimensions in `axis` (int32 or int64). Attrs T,
// Tidx, keep_dims.
class Max {
 public:
  using Attrs = ReductionAttrs;
  Max(const Scope& scope, Input input, Input axis) : Max(scope, input, axis, Attrs()) {}
  Max(const Scope& scope, Input input, Input axis, const Attrs& attrs)
      : operation(internal::ReductionOp(scope, "Max", input, axis, attrs.keep_dims_)),
        output(internal::FirstOutput(operation)) {}
  static Attrs KeepDims(bool x) { return Attrs().KeepDims(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `x` converted to `DstT`. Attrs SrcT, DstT, Truncate.
class Cast {
 public:
  struct Attrs {
    Attrs Truncate(bool x) const {
      Attrs ret = *this;
      ret.truncate_ = x;
      return ret;
    }
    bool truncate_ = false;
  };
  Cast(const Scope& scope, Input x, DataType DstT);
  Cast(const Scope& scope, Input x, DataType DstT, const Attrs& attrs);
  static Attrs Truncate(bool x) { return Attrs().Truncate(x); }
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_MATH_OPS_H_
