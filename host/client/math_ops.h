// Typed wrappers of TensorFlow's math ops: element-wise arithmetic, trigonometric and hyperbolic
// functions, IsNan/IsInf/IsFinite, comparisons, logical ops, AddN, Select, MatMul, reductions,
// ArgMax/ArgMin, Cumsum and Cumprod, ClipByValue, CheckNumerics, LinSpace, Bucketize, Cast,
// segment reductions.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its main Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_MATH_OPS_H_
#define TESSERA_HOST_CLIENT_MATH_OPS_H_

#include <initializer_list>
#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {
namespace internal {

// A node with inputs x, y of one type T (attr T) and one output of that type.
Operation BinaryOp(const Scope& scope, absl::string_view op, const Input& x, const Input& y);
// A node with input x (attr T) and one output of its type.
Operation UnaryOp(const Scope& scope, absl::string_view op, const Input& x);
// A node with input x (attr T) and one bool output (IsNan, IsInf, IsFinite).
Operation PredicateOp(const Scope& scope, absl::string_view op, const Input& x);
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
// All, Any: bool input, reduction_indices; attrs Tidx, keep_dims; one bool output.
Operation LogicalReductionOp(const Scope& scope, absl::string_view op, const Input& input,
                             const Input& axis, bool keep_dims);
// Select, SelectV2: bool condition, t and e of one type T; one output of type T.
Operation SelectOp(const Scope& scope, absl::string_view op, const Input& condition, const Input& t,
                   const Input& e);
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

// IsNan, IsInf, IsFinite: like UnaryElementwise, but the output `y` is bool.
template <const char* kOpName>
class FloatPredicate {
 public:
  FloatPredicate(const Scope& scope, Input x)
      : operation(PredicateOp(scope, kOpName, x)), y(FirstOutput(operation)) {}
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
inline constexpr char kDiv[] = "Div";
inline constexpr char kFloorDiv[] = "FloorDiv";
inline constexpr char kFloorMod[] = "FloorMod";
inline constexpr char kTruncateDiv[] = "TruncateDiv";
inline constexpr char kTruncateMod[] = "TruncateMod";
inline constexpr char kMod[] = "Mod";
inline constexpr char kPow[] = "Pow";
inline constexpr char kSquaredDifference[] = "SquaredDifference";
inline constexpr char kSign[] = "Sign";
inline constexpr char kFloor[] = "Floor";
inline constexpr char kCeil[] = "Ceil";
inline constexpr char kRound[] = "Round";
inline constexpr char kLog1p[] = "Log1p";
inline constexpr char kExpm1[] = "Expm1";
inline constexpr char kErf[] = "Erf";
inline constexpr char kReciprocal[] = "Reciprocal";
inline constexpr char kSin[] = "Sin";
inline constexpr char kCos[] = "Cos";
inline constexpr char kTan[] = "Tan";
inline constexpr char kAsin[] = "Asin";
inline constexpr char kAcos[] = "Acos";
inline constexpr char kAtan[] = "Atan";
inline constexpr char kSinh[] = "Sinh";
inline constexpr char kCosh[] = "Cosh";
inline constexpr char kAtan2[] = "Atan2";
inline constexpr char kRint[] = "Rint";
inline constexpr char kIsNan[] = "IsNan";
inline constexpr char kIsInf[] = "IsInf";
inline constexpr char kIsFinite[] = "IsFinite";
inline constexpr char kSelect[] = "Select";
inline constexpr char kSelectV2[] = "SelectV2";
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

// Returns x / y element-wise, with broadcasting; integers truncate toward zero, and an integer
// zero divisor fails the step. Attr T.
using Div = internal::BinaryElementwise<internal::kDiv>;
// Returns floor(x / y) element-wise, with broadcasting (integers round toward negative infinity).
// Attr T.
using FloorDiv = internal::BinaryElementwise<internal::kFloorDiv>;
// Returns the remainder of FloorDiv element-wise (the divisor's sign), with broadcasting. Attr T.
using FloorMod = internal::BinaryElementwise<internal::kFloorMod>;
// Returns x / y rounded toward zero element-wise, with broadcasting (integer types). Attr T.
using TruncateDiv = internal::BinaryElementwise<internal::kTruncateDiv>;
// Returns the remainder of TruncateDiv element-wise (the dividend's sign, C's % and fmod), with
// broadcasting. Attr T.
using TruncateMod = internal::BinaryElementwise<internal::kTruncateMod>;
// Returns C's remainder (% and fmod) element-wise, with broadcasting. Attr T.
using Mod = internal::BinaryElementwise<internal::kMod>;
// Returns x^y element-wise, with broadcasting; a negative integer exponent fails the step.
// Attr T.
using Pow = internal::BinaryElementwise<internal::kPow>;
// Returns (x - y)^2 element-wise, with broadcasting. Attr T.
using SquaredDifference = internal::BinaryElementwise<internal::kSquaredDifference>;

// Returns -1, 0 or 1 by the sign of x element-wise. Attr T.
using Sign = internal::UnaryElementwise<internal::kSign>;
// Returns the largest integer not above x element-wise. Attr T.
using Floor = internal::UnaryElementwise<internal::kFloor>;
// Returns the smallest integer not below x element-wise. Attr T.
using Ceil = internal::UnaryElementwise<internal::kCeil>;
// Returns x rounded to the nearest integer, halves to even, element-wise. Attr T.
using Round = internal::UnaryElementwise<internal::kRound>;
// Returns log(1 + x) element-wise. Attr T.
using Log1p = internal::UnaryElementwise<internal::kLog1p>;
// Returns e^x - 1 element-wise. Attr T.
using Expm1 = internal::UnaryElementwise<internal::kExpm1>;
// Returns the Gauss error function of x element-wise. Attr T.
using Erf = internal::UnaryElementwise<internal::kErf>;
// Returns 1 / x element-wise. Attr T.
using Reciprocal = internal::UnaryElementwise<internal::kReciprocal>;

// Returns sin(x) element-wise. Attr T.
using Sin = internal::UnaryElementwise<internal::kSin>;
// Returns cos(x) element-wise. Attr T.
using Cos = internal::UnaryElementwise<internal::kCos>;
// Returns tan(x) element-wise. Attr T.
using Tan = internal::UnaryElementwise<internal::kTan>;
// Returns arcsin(x) element-wise (NaN outside [-1, 1]). Attr T.
using Asin = internal::UnaryElementwise<internal::kAsin>;
// Returns arccos(x) element-wise (NaN outside [-1, 1]). Attr T.
using Acos = internal::UnaryElementwise<internal::kAcos>;
// Returns arctan(x) element-wise. Attr T.
using Atan = internal::UnaryElementwise<internal::kAtan>;
// Returns the hyperbolic sine of x element-wise. Attr T.
using Sinh = internal::UnaryElementwise<internal::kSinh>;
// Returns the hyperbolic cosine of x element-wise. Attr T.
using Cosh = internal::UnaryElementwise<internal::kCosh>;
// Atan2(scope, y, x): the angle of the point (x, y) in [-pi, pi] element-wise, with
// broadcasting; the first input is y, as in TensorFlow. Attr T.
using Atan2 = internal::BinaryElementwise<internal::kAtan2>;
// Returns x rounded to the nearest integer, halves to even, element-wise (floating types).
// Attr T.
using Rint = internal::UnaryElementwise<internal::kRint>;
// Returns whether each element of x is NaN (bool). Attr T.
using IsNan = internal::FloatPredicate<internal::kIsNan>;
// Returns whether each element of x is +inf or -inf (bool). Attr T.
using IsInf = internal::FloatPredicate<internal::kIsInf>;
// Returns whether each element of x is neither NaN nor an infinity (bool). Attr T.
using IsFinite = internal::FloatPredicate<internal::kIsFinite>;

// The element-wise sum of `inputs`, which must all have one shape and type (no broadcasting).
// Attrs N, T.
class AddN {
 public:
  AddN(const Scope& scope, InputList inputs);
  operator Output() const { return sum; }
  Operation operation;
  Output sum;
};

namespace internal {
template <const char* kOpName>
class Selection {
 public:
  Selection(const Scope& scope, Input condition, Input t, Input e)
      : operation(SelectOp(scope, kOpName, condition, t, e)), output(FirstOutput(operation)) {}
  operator Output() const { return output; }
  Operation operation;
  Output output;
};
}  // namespace internal

// t where `condition` is true, else e. t and e have one shape; condition is a scalar, has that
// shape, or is a vector over their first dimension. Attr T.
using Select = internal::Selection<internal::kSelect>;
// t where `condition` is true, else e, with condition, t and e broadcast together. Attr T.
using SelectV2 = internal::Selection<internal::kSelectV2>;

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

namespace internal {
inline constexpr char kMin[] = "Min";
inline constexpr char kProd[] = "Prod";
inline constexpr char kAll[] = "All";
inline constexpr char kAny[] = "Any";
inline constexpr char kArgMax[] = "ArgMax";
inline constexpr char kArgMin[] = "ArgMin";

// Sum-like reductions of any T (kLogical: All and Any, whose input is bool and have no T).
template <const char* kOpName, bool kLogical>
class Reduction {
 public:
  using Attrs = ReductionAttrs;
  Reduction(const Scope& scope, Input input, Input axis) : Reduction(scope, input, axis, Attrs()) {}
  Reduction(const Scope& scope, Input input, Input axis, const Attrs& attrs)
      : operation(kLogical ? LogicalReductionOp(scope, kOpName, input, axis, attrs.keep_dims_)
                           : ReductionOp(scope, kOpName, input, axis, attrs.keep_dims_)),
        output(FirstOutput(operation)) {}
  static Attrs KeepDims(bool x) { return Attrs().KeepDims(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The attrs of ArgMax and ArgMin.
struct ArgAttrs {
  // The index type of the output: int64 (default) or int32.
  ArgAttrs OutputType(DataType x) const {
    ArgAttrs ret = *this;
    ret.output_type_ = x;
    return ret;
  }
  DataType output_type_ = TSR_DTYPE_INT64;
};

Operation ArgOp(const Scope& scope, absl::string_view op, const Input& input,
                const Input& dimension, const ArgAttrs& attrs);

template <const char* kOpName>
class Arg {
 public:
  using Attrs = ArgAttrs;
  Arg(const Scope& scope, Input input, Input dimension) : Arg(scope, input, dimension, Attrs()) {}
  Arg(const Scope& scope, Input input, Input dimension, const Attrs& attrs)
      : operation(ArgOp(scope, kOpName, input, dimension, attrs)), output(FirstOutput(operation)) {}
  static Attrs OutputType(DataType x) { return Attrs().OutputType(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};
}  // namespace internal

// The minimum of `input` over the dimensions in `axis` (int32 or int64). Attrs T, Tidx,
// keep_dims.
using Min = internal::Reduction<internal::kMin, false>;
// The product of `input` over the dimensions in `axis` (int32 or int64). Attrs T, Tidx,
// keep_dims.
using Prod = internal::Reduction<internal::kProd, false>;
// The logical AND of bool `input` over the dimensions in `axis`. Attrs Tidx, keep_dims.
using All = internal::Reduction<internal::kAll, true>;
// The logical OR of bool `input` over the dimensions in `axis`. Attrs Tidx, keep_dims.
using Any = internal::Reduction<internal::kAny, true>;

// The index of the largest value of `input` along the scalar `dimension` (first index on ties).
// Attrs T, Tidx, output_type (ArgMax::OutputType(DT_INT32); int64 by default).
using ArgMax = internal::Arg<internal::kArgMax>;
// The index of the smallest value of `input` along the scalar `dimension` (first index on ties).
// Attrs T, Tidx, output_type.
using ArgMin = internal::Arg<internal::kArgMin>;

// The running sum of `x` along the scalar `axis`. Attrs T, Tidx, exclusive (each sum leaves out
// its own element), reverse (sums from the end).
class Cumsum {
 public:
  struct Attrs {
    Attrs Exclusive(bool x) const {
      Attrs ret = *this;
      ret.exclusive_ = x;
      return ret;
    }
    Attrs Reverse(bool x) const {
      Attrs ret = *this;
      ret.reverse_ = x;
      return ret;
    }
    bool exclusive_ = false;
    bool reverse_ = false;
  };
  Cumsum(const Scope& scope, Input x, Input axis);
  Cumsum(const Scope& scope, Input x, Input axis, const Attrs& attrs);
  static Attrs Exclusive(bool x) { return Attrs().Exclusive(x); }
  static Attrs Reverse(bool x) { return Attrs().Reverse(x); }
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

// The running product of `x` along the scalar `axis`. Attrs T, Tidx, exclusive (each product
// leaves out its own element), reverse (multiplies from the end).
class Cumprod {
 public:
  using Attrs = Cumsum::Attrs;
  Cumprod(const Scope& scope, Input x, Input axis);
  Cumprod(const Scope& scope, Input x, Input axis, const Attrs& attrs);
  static Attrs Exclusive(bool x) { return Attrs().Exclusive(x); }
  static Attrs Reverse(bool x) { return Attrs().Reverse(x); }
  operator Output() const { return out; }
  Operation operation;
  Output out;
};

// `t` clipped to [clip_value_min, clip_value_max] element-wise; each bound is a scalar or has
// t's shape (checked when the step runs). Attr T.
class ClipByValue {
 public:
  ClipByValue(const Scope& scope, Input t, Input clip_value_min, Input clip_value_max);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `tensor` unchanged, or the step fails with INVALID_ARGUMENT "<message> : Tensor had Inf values"
// (NaN, Inf and NaN) when it holds an infinity or a NaN. Attrs T, message.
class CheckNumerics {
 public:
  CheckNumerics(const Scope& scope, Input tensor, absl::string_view message);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// `num` (a positive int32 or int64 scalar) evenly spaced values from `start` to `stop`, both
// scalars of type T, the last exactly `stop`. Attrs T, Tidx.
class LinSpace {
 public:
  LinSpace(const Scope& scope, Input start, Input stop, Input num);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The int32 index of each element's bucket among the sorted `boundaries`: how many boundaries
// are <= the element. Attrs T, boundaries.
class Bucketize {
 public:
  Bucketize(const Scope& scope, Input input, absl::Span<const float> boundaries);
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

namespace internal {
inline constexpr char kSegmentSum[] = "SegmentSum";
inline constexpr char kSegmentMean[] = "SegmentMean";
inline constexpr char kSegmentMax[] = "SegmentMax";
inline constexpr char kUnsortedSegmentSum[] = "UnsortedSegmentSum";
inline constexpr char kUnsortedSegmentMax[] = "UnsortedSegmentMax";
inline constexpr char kUnsortedSegmentMin[] = "UnsortedSegmentMin";
inline constexpr char kUnsortedSegmentProd[] = "UnsortedSegmentProd";

// A segment reduction: (data, segment_ids) for the sorted ops, (data, segment_ids,
// num_segments) for the unsorted ones (num_segments invalid for the sorted ones).
Operation SegmentOp(const Scope& scope, absl::string_view op, const Input& data,
                    const Input& segment_ids, const Input* num_segments);

// SegmentSum, SegmentMean, SegmentMax(data, segment_ids): rows of `data` reduced by their sorted
// int32/int64 segment id; empty segments give 0. Attrs T, Tindices.
template <const char* kOpName>
class SegmentReduction {
 public:
  SegmentReduction(const Scope& scope, Input data, Input segment_ids)
      : operation(SegmentOp(scope, kOpName, data, segment_ids, nullptr)),
        output(FirstOutput(operation)) {}
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// UnsortedSegmentSum/Max/Min/Prod(data, segment_ids, num_segments): `num_segments` rows, each
// reducing the entries of `data` whose id (any order; negative drops the entry) names it.
// Attrs T, Tindices, Tnumsegments.
template <const char* kOpName>
class UnsortedSegmentReduction {
 public:
  UnsortedSegmentReduction(const Scope& scope, Input data, Input segment_ids, Input num_segments)
      : operation(SegmentOp(scope, kOpName, data, segment_ids, &num_segments)),
        output(FirstOutput(operation)) {}
  operator Output() const { return output; }
  Operation operation;
  Output output;
};
}  // namespace internal

using SegmentSum = internal::SegmentReduction<internal::kSegmentSum>;
using SegmentMean = internal::SegmentReduction<internal::kSegmentMean>;
using SegmentMax = internal::SegmentReduction<internal::kSegmentMax>;
using UnsortedSegmentSum = internal::UnsortedSegmentReduction<internal::kUnsortedSegmentSum>;
using UnsortedSegmentMax = internal::UnsortedSegmentReduction<internal::kUnsortedSegmentMax>;
using UnsortedSegmentMin = internal::UnsortedSegmentReduction<internal::kUnsortedSegmentMin>;
using UnsortedSegmentProd = internal::UnsortedSegmentReduction<internal::kUnsortedSegmentProd>;

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_MATH_OPS_H_
