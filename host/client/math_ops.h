// Typed wrappers of TensorFlow's math ops: element-wise arithmetic, comparisons, logical ops,
// MatMul, reductions, Cast.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its main Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_MATH_OPS_H_
#define TESSERA_HOST_CLIENT_MATH_OPS_H_

#include <initializer_list>
#include <optional>

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
// A comparison: inputs x, y of one type T (attr T) and one bool output; when
// `incompatible_shape_error` has a value the attr is written too (Equal, NotEqual).
Operation ComparisonOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y,
                       std::optional<bool> incompatible_shape_error);
// A logical op: `inputs` (x, or x and y) must be bool; no attrs; one bool output.
Operation LogicalOp(const Scope& scope, absl::string_view op,
                    std::initializer_list<const Input*> inputs);
inline Output FirstOutput(const Operation& op) { return op.valid() ? op.output(0) : Output(); }


// Element-wise ops share one shape: a node with TensorFlow's op name whose inputs are of one type
// (attr T), converting to its single output (`z` for binary ops, `y` for unary ones, as
// TensorFlow names them).
template <const char* kOpName>
class BinaryElementwise {
 public:
  BinaryElementwise(const Scope& scope, Input x, Input y)
      : operation(BinaryOp(scope, kOpName, x, y)), z(FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

template <const char* kOpName>
class UnaryElementwise {
 public:
  UnaryElementwise(const Scope& scope, Input x)
      : operation(UnaryOp(scope, kOpName, x)), y(FirstOutput(operation)) {}
  operator Output() const { return y; }
  Operation operation;
  Output y;
};

// Less, LessEqual, Greater, GreaterEqual: like BinaryElementwise, but the output `z` is bool.
template <const char* kOpName>
class Comparison {
 public:
  Comparison(const Scope& scope, Input x, Input y)
      : operation(ComparisonOp(scope, kOpName, x, y, std::nullopt)), z(FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// The attrs of Equal and NotEqual.
struct EqualityAttrs {
  // When false, shapes that do not broadcast give a scalar (false for Equal, true for NotEqual)
  // instead of an error.
  EqualityAttrs IncompatibleShapeError(bool x) const {
    EqualityAttrs ret = *this;
    ret.incompatible_shape_error_ = x;
    return ret;
  }
  bool incompatible_shape_error_ = true;
};

// Equal, NotEqual: any T, bool output `z`, attr incompatible_shape_error.
template <const char* kOpName>
class EqualityComparison {
 public:
  using Attrs = EqualityAttrs;
  EqualityComparison(const Scope& scope, Input x, Input y)
      : EqualityComparison(scope, x, y, Attrs()) {}
  EqualityComparison(const Scope& scope, Input x, Input y, const Attrs& attrs)
      : operation(ComparisonOp(scope, kOpName, x, y, attrs.incompatible_shape_error_)),
        z(FirstOutput(operation)) {}
  static Attrs IncompatibleShapeError(bool x) { return Attrs().IncompatibleShapeError(x); }
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

// LogicalAnd, LogicalOr: bool x and y, bool output `z`.
template <const char* kOpName>
class BinaryLogical {
 public:
  BinaryLogical(const Scope& scope, Input x, Input y)
      : operation(LogicalOp(scope, kOpName, {&x, &y})), z(FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

inline constexpr char kLess[] = "Less";
inline constexpr char kLessEqual[] = "LessEqual";
inline constexpr char kGreater[] = "Greater";
inline constexpr char kGreaterEqual[] = "GreaterEqual";
inline constexpr char kEqual[] = "Equal";
inline constexpr char kNotEqual[] = "NotEqual";
inline constexpr char kLogicalAnd[] = "LogicalAnd";
inline constexpr char kLogicalOr[] = "LogicalOr";
inline constexpr char kAdd[] = "Add";
inline constexpr char kAddV2[] = "AddV2";
inline constexpr char kSub[] = "Sub";
inline constexpr char kMul[] = "Mul";
inline constexpr char kRealDiv[] = "RealDiv";
inline constexpr char kMaximum[] = "Maximum";
inline constexpr char kMinimum[] = "Minimum";
inline constexpr char kNeg[] = "Neg";
inline constexpr char kAbs[] = "Abs";
inline constexpr char kExp[] = "Exp";
inline constexpr char kLog[] = "Log";
inline constexpr char kSqrt[] = "Sqrt";
inline constexpr char kRsqrt[] = "Rsqrt";
inline constexpr char kSquare[] = "Square";
inline constexpr char kTanh[] = "Tanh";
inline constexpr char kSigmoid[] = "Sigmoid";
}  // namespace internal

// Returns x + y element-wise, with broadcasting (also string concatenation in TensorFlow). Attr T.
using Add = internal::BinaryElementwise<internal::kAdd>;
// Returns x + y element-wise, with broadcasting. Attr T.
using AddV2 = internal::BinaryElementwise<internal::kAddV2>;
// Returns x - y element-wise, with broadcasting. Attr T.
using Sub = internal::BinaryElementwise<internal::kSub>;
// Returns x * y element-wise, with broadcasting. Attr T.
using Mul = internal::BinaryElementwise<internal::kMul>;
// Returns x / y element-wise for real types, with broadcasting. Attr T.
using RealDiv = internal::BinaryElementwise<internal::kRealDiv>;
// Returns max(x, y) element-wise, with broadcasting. Attr T.
using Maximum = internal::BinaryElementwise<internal::kMaximum>;
// Returns min(x, y) element-wise, with broadcasting. Attr T.
using Minimum = internal::BinaryElementwise<internal::kMinimum>;

// Returns -x element-wise. Attr T.
using Neg = internal::UnaryElementwise<internal::kNeg>;
// Returns |x| element-wise. Attr T.
using Abs = internal::UnaryElementwise<internal::kAbs>;
// Returns e^x element-wise. Attr T.
using Exp = internal::UnaryElementwise<internal::kExp>;
// Returns the natural logarithm of x element-wise. Attr T.
using Log = internal::UnaryElementwise<internal::kLog>;
// Returns the square root of x element-wise. Attr T.
using Sqrt = internal::UnaryElementwise<internal::kSqrt>;
// Returns 1 / sqrt(x) element-wise. Attr T.
using Rsqrt = internal::UnaryElementwise<internal::kRsqrt>;
// Returns x * x element-wise. Attr T.
using Square = internal::UnaryElementwise<internal::kSquare>;
// Returns the hyperbolic tangent of x element-wise. Attr T.
using Tanh = internal::UnaryElementwise<internal::kTanh>;
// Returns 1 / (1 + e^-x) element-wise. Attr T.
using Sigmoid = internal::UnaryElementwise<internal::kSigmoid>;

// Returns x < y element-wise (bool), with broadcasting. Attr T (real number types).
using Less = internal::Comparison<internal::kLess>;
// Returns x <= y element-wise (bool), with broadcasting. Attr T (real number types).
using LessEqual = internal::Comparison<internal::kLessEqual>;
// Returns x > y element-wise (bool), with broadcasting. Attr T (real number types).
using Greater = internal::Comparison<internal::kGreater>;
// Returns x >= y element-wise (bool), with broadcasting. Attr T (real number types).
using GreaterEqual = internal::Comparison<internal::kGreaterEqual>;
// Returns x == y element-wise (bool), with broadcasting. Attrs T (any type) and
// incompatible_shape_error (Equal::IncompatibleShapeError(false): scalar false for shapes that
// do not broadcast).
using Equal = internal::EqualityComparison<internal::kEqual>;
// Returns x != y element-wise (bool), with broadcasting. Attrs T (any type) and
// incompatible_shape_error (NotEqual::IncompatibleShapeError(false): scalar true for shapes that
// do not broadcast).
using NotEqual = internal::EqualityComparison<internal::kNotEqual>;
// Returns x AND y element-wise for bool tensors, with broadcasting.
using LogicalAnd = internal::BinaryLogical<internal::kLogicalAnd>;
// Returns x OR y element-wise for bool tensors, with broadcasting.
using LogicalOr = internal::BinaryLogical<internal::kLogicalOr>;
// Returns NOT x element-wise for a bool tensor.
class LogicalNot {
 public:
  LogicalNot(const Scope& scope, Input x)
      : operation(internal::LogicalOp(scope, "LogicalNot", {&x})),
        y(internal::FirstOutput(operation)) {}
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
