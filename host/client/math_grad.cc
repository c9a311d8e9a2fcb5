// Gradients of TensorFlow's math ops: element-wise arithmetic (with broadcasting reduced back to
// each input's shape), transcendental, trigonometric and rounding functions, Atan2, selection,
// ClipByValue, CheckNumerics, MatMul and BatchMatMul (all three versions), reductions, Cumsum and
// Cumprod, Cast and AddN.
#include <string>

#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/math_ops.h"

namespace tessera {
namespace {

using grad_util::ReduceBinaryGrads;
using grad_util::Scalar;
using Grads = std::vector<Output>;

absl::Status AddGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  out->resize(2);
  ReduceBinaryGrads(s, op.inputs[0], op.inputs[1], g[0], g[0], &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

absl::Status SubGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  out->resize(2);
  ReduceBinaryGrads(s, op.inputs[0], op.inputs[1], g[0], ops::Neg(s, g[0]), &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

absl::Status MulGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  out->resize(2);
  ReduceBinaryGrads(s, x, y, ops::Mul(s, g[0], y), ops::Mul(s, x, g[0]), &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// RealDiv and Div on floating types: d(x/y) = g/y, -g*x/y^2.
absl::Status DivGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  out->resize(2);
  Output gy = ops::Neg(s, ops::RealDiv(s, ops::Mul(s, g[0], x), ops::Square(s, y)));
  ReduceBinaryGrads(s, x, y, ops::RealDiv(s, g[0], y), gy, &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// Unary ops whose gradient is g times a function of x or y.
template <Output (*Factor)(const Scope&, const GradOp&)>
absl::Status ScaledGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::Mul(s, g[0], Factor(s, op))};
  return absl::OkStatus();
}
Output SquareFactor(const Scope& s, const GradOp& op) {
  return ops::Mul(s, Scalar(s, 2, op.inputs[0].type()), op.inputs[0]);
}
Output ExpFactor(const Scope&, const GradOp& op) { return op.outputs[0]; }
Output LogFactor(const Scope& s, const GradOp& op) {
  return ops::RealDiv(s, Scalar(s, 1, op.inputs[0].type()), op.inputs[0]);
}
Output SqrtFactor(const Scope& s, const GradOp& op) {  // 0.5 / y
  return ops::RealDiv(s, Scalar(s, 0.5, op.inputs[0].type()), op.outputs[0]);
}
Output RsqrtFactor(const Scope& s, const GradOp& op) {  // -0.5 * y^3
  const Output& y = op.outputs[0];
  return ops::Mul(s, Scalar(s, -0.5, y.type()), ops::Mul(s, y, ops::Square(s, y)));
}
Output TanhFactor(const Scope& s, const GradOp& op) {  // 1 - y^2
  const Output& y = op.outputs[0];
  return ops::Sub(s, Scalar(s, 1, y.type()), ops::Square(s, y));
}
Output SigmoidFactor(const Scope& s, const GradOp& op) {  // y (1 - y)
  const Output& y = op.outputs[0];
  return ops::Mul(s, y, ops::Sub(s, Scalar(s, 1, y.type()), y));
}
Output AbsFactor(const Scope& s, const GradOp& op) { return ops::Sign(s, op.inputs[0]); }
Output Log1pFactor(const Scope& s, const GradOp& op) {  // 1 / (1 + x)
  const Output& x = op.inputs[0];
  return ops::Reciprocal(s, ops::Add(s, Scalar(s, 1, x.type()), x));
}
Output Expm1Factor(const Scope& s, const GradOp& op) { return ops::Exp(s, op.inputs[0]); }
Output ErfFactor(const Scope& s, const GradOp& op) {  // 2 / sqrt(pi) * exp(-x^2)
  const Output& x = op.inputs[0];
  constexpr double kTwoOverRootPi = 1.12837916709551257390;
  return ops::Mul(s, Scalar(s, kTwoOverRootPi, x.type()),
                  ops::Exp(s, ops::Neg(s, ops::Square(s, x))));
}
Output ReciprocalFactor(const Scope& s, const GradOp& op) {  // -y^2
  return ops::Neg(s, ops::Square(s, op.outputs[0]));
}

Output SinFactor(const Scope& s, const GradOp& op) { return ops::Cos(s, op.inputs[0]); }
Output CosFactor(const Scope& s, const GradOp& op) {  // -sin(x)
  return ops::Neg(s, ops::Sin(s, op.inputs[0]));
}
Output TanFactor(const Scope& s, const GradOp& op) {  // sec(x)^2
  return ops::Square(s, ops::Reciprocal(s, ops::Cos(s, op.inputs[0])));
}
Output AsinFactor(const Scope& s, const GradOp& op) {  // 1 / sqrt(1 - x^2)
  const Output& x = op.inputs[0];
  return ops::Reciprocal(s, ops::Sqrt(s, ops::Sub(s, Scalar(s, 1, x.type()), ops::Square(s, x))));
}
Output AcosFactor(const Scope& s, const GradOp& op) {  // -1 / sqrt(1 - x^2)
  return ops::Neg(s, AsinFactor(s, op));
}
Output AtanFactor(const Scope& s, const GradOp& op) {  // 1 / (1 + x^2)
  const Output& x = op.inputs[0];
  return ops::Reciprocal(s, ops::Add(s, Scalar(s, 1, x.type()), ops::Square(s, x)));
}
Output SinhFactor(const Scope& s, const GradOp& op) { return ops::Cosh(s, op.inputs[0]); }
Output CoshFactor(const Scope& s, const GradOp& op) { return ops::Sinh(s, op.inputs[0]); }

// Atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2), each reduced to its input's
// shape.
absl::Status Atan2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& y = op.inputs[0];
  const Output& x = op.inputs[1];
  Output scaled = ops::RealDiv(s, g[0], ops::Add(s, ops::Square(s, x), ops::Square(s, y)));
  out->resize(2);
  ReduceBinaryGrads(s, y, x, ops::Mul(s, x, scaled), ops::Neg(s, ops::Mul(s, y, scaled)),
                    &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

absl::Status NegGrad(const Scope& s, const GradOp&, const Grads& g, Grads* out) {
  *out = {ops::Neg(s, g[0])};
  return absl::OkStatus();
}

// Pow: d(x^y) = g*y*x^(y-1) for x, g*z*log(x) for y, where log(x) is taken as 0 for x <= 0 (no
// real value makes sense there; TensorFlow's choice, which also avoids a false singularity at 0).
absl::Status PowGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const DataType t = x.type();
  Output gx = ops::Mul(s, ops::Mul(s, g[0], y), ops::Pow(s, x, ops::Sub(s, y, Scalar(s, 1, t))));
  Output positive = ops::Greater(s, x, Scalar(s, 0, t));
  Output safe_x = ops::SelectV2(s, positive, x, grad_util::OnesLike(s, x));
  Output log_x = ops::SelectV2(s, positive, ops::Log(s, safe_x), ops::ZerosLike(s, x));
  Output gy = ops::Mul(s, ops::Mul(s, g[0], op.outputs[0]), log_x);
  out->resize(2);
  ReduceBinaryGrads(s, x, y, gx, gy, &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// (x - y)^2: 2g(x - y) for x, its negation for y.
absl::Status SquaredDifferenceGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  Output gx = ops::Mul(s, ops::Mul(s, Scalar(s, 2, x.type()), g[0]), ops::Sub(s, x, y));
  out->resize(2);
  ReduceBinaryGrads(s, x, y, gx, ops::Neg(s, gx), &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// Maximum and Minimum: the whole gradient goes to the selected input; on ties x is the selected
// one (x >= y for Maximum, x <= y for Minimum), as in TensorFlow.
template <bool kMaximum>
absl::Status MaximumMinimumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  Output x_selected = kMaximum ? Output(ops::GreaterEqual(s, x, y)) : ops::LessEqual(s, x, y);
  Output zeros = ops::ZerosLike(s, g[0]);
  out->resize(2);
  ReduceBinaryGrads(s, x, y, ops::SelectV2(s, x_selected, g[0], zeros),
                    ops::SelectV2(s, x_selected, zeros, g[0]), &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// FloorMod on floating types, x - floor(x/y)*y: g for x, -g*floor(x/y) for y.
absl::Status FloorModGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  Output gy = ops::Mul(s, g[0], ops::Neg(s, ops::FloorDiv(s, x, y)));
  out->resize(2);
  ReduceBinaryGrads(s, x, y, g[0], gy, &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// Select: t and e have the output's shape, so each gets g where it was chosen (Select itself
// applies a vector condition to the first dimension); the condition gets none.
absl::Status SelectGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& condition = op.inputs[0];
  Output zeros = ops::ZerosLike(s, op.inputs[1]);
  *out = {Output(), ops::Select(s, condition, g[0], zeros), ops::Select(s, condition, zeros, g[0])};
  return absl::OkStatus();
}

// SelectV2 broadcasts condition, t and e together: each of t and e gets g where it was chosen,
// summed back to its own shape.
absl::Status SelectV2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& condition = op.inputs[0];
  Output zero = Scalar(s, 0, g[0].type());
  Output gt = ops::SelectV2(s, condition, g[0], zero);
  Output ge = ops::SelectV2(s, condition, zero, g[0]);
  *out = {Output(), grad_util::ReduceToShapeOf(s, gt, op.inputs[1]),
          grad_util::ReduceToShapeOf(s, ge, op.inputs[2])};
  return absl::OkStatus();
}

// Unary ops whose inputs get zeros of their shape (TensorFlow's Sign gradient).
absl::Status ZerosGrad(const Scope& s, const GradOp& op, const Grads&, Grads* out) {
  *out = {ops::ZerosLike(s, op.inputs[0])};
  return absl::OkStatus();
}

absl::Status CumsumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  ops::Cumsum::Attrs attrs = ops::Cumsum::Exclusive(op.BoolAttr("exclusive", false))
                                 .Reverse(!op.BoolAttr("reverse", false));
  *out = {ops::Cumsum(s, g[0], op.inputs[1], attrs), Output()};
  return absl::OkStatus();
}

// Cumprod: the gradient of each product reaches every factor in it, as
// cumsum(prod * g) in the opposite direction divided by x; TensorFlow's div_no_nan, whose zero
// where x is zero is computed here as a select around a safe division.
absl::Status CumprodGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& axis = op.inputs[1];
  const bool exclusive = op.BoolAttr("exclusive", false);
  const bool reverse = op.BoolAttr("reverse", false);
  Output prod = ops::Cumprod(s, x, axis, ops::Cumprod::Exclusive(exclusive).Reverse(reverse));
  Output sums = ops::Cumsum(s, ops::Mul(s, prod, g[0]), axis,
                            ops::Cumsum::Exclusive(exclusive).Reverse(!reverse));
  Output zero = ops::Equal(s, x, Scalar(s, 0, x.type()));
  Output safe_x = ops::SelectV2(s, zero, grad_util::OnesLike(s, x), x);
  *out = {ops::SelectV2(s, zero, ops::ZerosLike(s, x), ops::RealDiv(s, sums, safe_x)), Output()};
  return absl::OkStatus();
}

// ClipByValue: g goes to t where it was inside the bounds, to clip_value_min where t was below
// it and to clip_value_max where t was above it, each summed to its input's shape.
absl::Status ClipByValueGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& t = op.inputs[0];
  const Output& lo = op.inputs[1];
  const Output& hi = op.inputs[2];
  Output below = ops::Less(s, t, lo);
  Output above = ops::Greater(s, t, hi);
  Output zeros = ops::ZerosLike(s, g[0]);
  Output outside = ops::LogicalOr(s, below, above);
  *out = {ops::SelectV2(s, outside, zeros, g[0]),
          grad_util::ReduceToShapeOf(s, ops::SelectV2(s, below, g[0], zeros), lo),
          grad_util::ReduceToShapeOf(s, ops::SelectV2(s, above, g[0], zeros), hi)};
  return absl::OkStatus();
}

// CheckNumerics: the gradient is checked too, with TensorFlow's message around the op's own.
absl::Status CheckNumericsGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const std::string message = "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                              op.StringAttr("message", "");
  *out = {ops::CheckNumerics(s, g[0], message)};
  return absl::OkStatus();
}

absl::Status MatMulGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const bool ta = op.BoolAttr("transpose_a", false);
  const bool tb = op.BoolAttr("transpose_b", false);
  const Output& a = op.inputs[0];
  const Output& b = op.inputs[1];
  auto mm = [&](const Output& x, const Output& y, bool tx, bool ty) -> Output {
    return ops::MatMul(s, x, y, ops::MatMul::TransposeA(tx).TransposeB(ty));
  };
  if (!ta && !tb) {
    *out = {mm(g[0], b, false, true), mm(a, g[0], true, false)};
  } else if (!ta && tb) {
    *out = {mm(g[0], b, false, false), mm(g[0], a, true, false)};
  } else if (ta && !tb) {
    *out = {mm(b, g[0], false, true), mm(a, g[0], false, false)};
  } else {
    *out = {mm(b, g[0], true, true), mm(g[0], a, true, true)};
  }
  return absl::OkStatus();
}

// The shape of a reduction's result with its reduced dimensions kept as 1, computed in the graph
// (the axes may be negative and need not be constants).
Output KeptDimsShape(const Scope& s, const Output& x, const Output& axes) {
  Output shape = ops::Shape(s, x);
  Output rank = grad_util::Size(s, shape);
  Output axes32 = ops::Cast(s, axes, TSR_DTYPE_INT32);
  Output normalized = ops::FloorMod(s, ops::Add(s, axes32, rank), rank);
  Output positions =
      grad_util::Range(s, Scalar(s, 0, TSR_DTYPE_INT32), rank, Scalar(s, 1, TSR_DTYPE_INT32));
  Output matches = ops::Equal(s, ops::ExpandDims(s, positions, Scalar(s, 1, TSR_DTYPE_INT32)),
                              ops::Reshape(s, normalized, grad_util::IntVector(s, {1, -1})));
  Output reduced = ops::Any(s, matches, Scalar(s, 1, TSR_DTYPE_INT32));
  return ops::SelectV2(s, reduced, grad_util::OnesLike(s, shape), shape);
}

// g broadcast back over the reduced dimensions of x.
Output BroadcastReducedGrad(const Scope& s, const GradOp& op, const Output& g) {
  const Output& x = op.inputs[0];
  Output kept =
      op.BoolAttr("keep_dims", false) ? g : ops::Reshape(s, g, KeptDimsShape(s, x, op.inputs[1]));
  return ops::Add(s, kept, ops::ZerosLike(s, x));
}

absl::Status SumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {BroadcastReducedGrad(s, op, g[0]), Output()};
  return absl::OkStatus();
}

absl::Status MeanGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const DataType t = op.inputs[0].type();
  Output count = ops::RealDiv(s, ops::Cast(s, grad_util::Size(s, op.inputs[0]), t),
                              ops::Cast(s, grad_util::Size(s, op.outputs[0]), t));
  *out = {ops::RealDiv(s, BroadcastReducedGrad(s, op, g[0]), count), Output()};
  return absl::OkStatus();
}

// Max and Min: the gradient goes to every position equal to the result, shared equally.
absl::Status ExtremumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const DataType t = x.type();
  Output y = op.outputs[0];
  Output g0 = g[0];
  if (!op.BoolAttr("keep_dims", false)) {
    Output kept = KeptDimsShape(s, x, op.inputs[1]);
    y = ops::Reshape(s, y, kept);
    g0 = ops::Reshape(s, g0, kept);
  }
  Output indicators = ops::Cast(s, ops::Equal(s, y, x), t);
  Output count = ops::Sum(s, indicators, op.inputs[1], ops::Sum::KeepDims(true));
  *out = {ops::Mul(s, ops::RealDiv(s, g0, count), indicators), Output()};
  return absl::OkStatus();
}

// Prod: the derivative for each element is the product of the others in its reduced group.
// Instead of TensorFlow's two exclusive cumulative products (this runtime has no Cumprod), the
// groups are told apart by their number of zeros, which keeps the result exact with zeros:
// none: prod / x; exactly one: the product of the nonzero elements at the zero, 0 elsewhere;
// two or more: 0 everywhere.
absl::Status ProdGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& axes = op.inputs[1];
  const DataType t = x.type();
  Output g_kept =
      op.BoolAttr("keep_dims", false) ? g[0] : ops::Reshape(s, g[0], KeptDimsShape(s, x, axes));
  Output zero = Scalar(s, 0, t);
  Output is_zero = ops::Equal(s, x, zero);
  Output safe_x = ops::SelectV2(s, is_zero, grad_util::OnesLike(s, x), x);
  Output nonzero_product = ops::Prod(s, safe_x, axes, ops::Prod::KeepDims(true));
  Output zero_count =
      ops::Sum(s, ops::Cast(s, is_zero, TSR_DTYPE_INT32), axes, ops::Sum::KeepDims(true));
  Output at_zeros = ops::SelectV2(s, ops::Equal(s, zero_count, Scalar(s, 1, TSR_DTYPE_INT32)),
                                  nonzero_product, zero);
  Output elsewhere = ops::SelectV2(s, ops::Equal(s, zero_count, Scalar(s, 0, TSR_DTYPE_INT32)),
                                   ops::Div(s, nonzero_product, safe_x), zero);
  *out = {ops::Mul(s, g_kept, ops::SelectV2(s, is_zero, at_zeros, elsewhere)), Output()};
  return absl::OkStatus();
}

Output BatchMatMul(const Scope& s, const Output& x, const Output& y, bool adj_x, bool adj_y) {
  const DataType t = x.type();
  return grad_util::Node(
      s, "BatchMatMulV2", {x, y},
      [&](OpBuilder& b) { b.AttrType("T", t).AttrBool("adj_x", adj_x).AttrBool("adj_y", adj_y); },
      {t})[0];
}

// The batch dimensions of x's shape (all but the last two), as an int32 vector.
Output BatchShape(const Scope& s, const Output& x) {
  Output shape = ops::Shape(s, x);
  Output batch_rank = ops::Sub(s, grad_util::Size(s, shape), Scalar(s, 2, TSR_DTYPE_INT32));
  return grad_util::Node(
      s, "Slice",
      {shape, grad_util::IntVector(s, {0}),
       ops::Reshape(s, batch_rank, grad_util::IntVector(s, {1}))},
      [](OpBuilder& b) { b.AttrType("T", TSR_DTYPE_INT32).AttrType("Index", TSR_DTYPE_INT32); },
      {TSR_DTYPE_INT32})[0];
}

// MatMul's four cases per matrix (adjoint is transpose for real types): the gradients of x and
// y over the output's batch dimensions.
void BatchMatMulProducts(const Scope& s, const GradOp& op, const Grads& g, Output* gx, Output* gy) {
  const bool adj_x = op.BoolAttr("adj_x", false);
  const bool adj_y = op.BoolAttr("adj_y", false);
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  if (!adj_x && !adj_y) {
    *gx = BatchMatMul(s, g[0], y, false, true);
    *gy = BatchMatMul(s, x, g[0], true, false);
  } else if (!adj_x && adj_y) {
    *gx = BatchMatMul(s, g[0], y, false, false);
    *gy = BatchMatMul(s, g[0], x, true, false);
  } else if (adj_x && !adj_y) {
    *gx = BatchMatMul(s, y, g[0], false, true);
    *gy = BatchMatMul(s, x, g[0], false, false);
  } else {
    *gx = BatchMatMul(s, y, g[0], true, true);
    *gy = BatchMatMul(s, g[0], x, true, true);
  }
}

// BatchMatMul: x, y and the output share their batch dimensions, so the products are the
// gradients.
absl::Status BatchMatMulGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  out->resize(2);
  BatchMatMulProducts(s, op, g, &(*out)[0], &(*out)[1]);
  return absl::OkStatus();
}

// BatchMatMulV2 and BatchMatMulV3 (whose CPU kernels take one type for x, y and the output): each
// gradient summed over the batch dimensions that broadcasting stretched for its input.
absl::Status BatchMatMulV2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  Output gx;
  Output gy;
  BatchMatMulProducts(s, op, g, &gx, &gy);
  std::vector<Output> reduce = grad_util::Node(
      s, "BroadcastGradientArgs", {BatchShape(s, x), BatchShape(s, y)},
      [](OpBuilder& b) { b.AttrType("T", TSR_DTYPE_INT32); }, {TSR_DTYPE_INT32, TSR_DTYPE_INT32});
  *out = {ops::Reshape(s, ops::Sum(s, gx, reduce[0]), ops::Shape(s, x)),
          ops::Reshape(s, ops::Sum(s, gy, reduce[1]), ops::Shape(s, y))};
  return absl::OkStatus();
}

absl::Status CastGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  auto floating = [](DataType t) {
    return t == TSR_DTYPE_FLOAT || t == TSR_DTYPE_DOUBLE || t == TSR_DTYPE_HALF ||
           t == TSR_DTYPE_BFLOAT16;
  };
  const DataType src = op.TypeAttr("SrcT");
  if (floating(src) && floating(op.TypeAttr("DstT"))) {
    *out = {ops::Cast(s, g[0], src)};
  } else {
    *out = {Output()};
  }
  return absl::OkStatus();
}

absl::Status AddNGrad(const Scope&, const GradOp& op, const Grads& g, Grads* out) {
  out->assign(op.inputs.size(), g[0]);
  return absl::OkStatus();
}

// SegmentSum: each row's gradient is its segment's.
absl::Status SegmentSumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::GatherV2(s, g[0], op.inputs[1], 0), Output()};
  return absl::OkStatus();
}

// `values` (one per segment) shaped to broadcast over rows of `data` ([segments, 1, ..., 1]).
Output PerRow(const Scope& s, const Output& values, const Output& data) {
  const Output ones = ops::Fill(s, ops::Reshape(s, ops::Sub(s, ops::Rank(s, data), 1), {1}), 1);
  return ops::Reshape(s, values, ops::Concat(s, {ops::Shape(s, values), ones}, 0));
}

// SegmentMean: each row's gradient is its segment's, divided by the segment's size.
absl::Status SegmentMeanGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& data = op.inputs[0];
  const Output& ids = op.inputs[1];
  const Output ones = ops::Fill(s, ops::Shape(s, ids), Scalar(s, 1, data.type()));
  const Output sizes = ops::SegmentSum(s, ones, ids);
  *out = {ops::GatherV2(s, ops::Div(s, g[0], PerRow(s, sizes, g[0])), ids, 0), Output()};
  return absl::OkStatus();
}

// SegmentMax, UnsortedSegmentMax/Min: the gradient goes to the entries equal to their segment's
// result, split evenly among ties (TensorFlow's rule); entries with a negative id get none.
absl::Status SegmentExtremumGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& data = op.inputs[0];
  const Output& ids = op.inputs[1];
  const bool sorted = op.inputs.size() == 2;
  const Output kept_ids = sorted ? ids : ops::Maximum(s, ids, ops::Cast(s, 0, ids.type()));
  // The ids' shape followed by ones, so that a per-entry mask broadcasts over data's rows.
  const Output extra = ops::Sub(s, ops::Rank(s, data), ops::Rank(s, ids));
  const Output mask_shape =
      ops::Concat(s, {ops::Shape(s, ids), ops::Fill(s, ops::Reshape(s, extra, {1}), 1)}, 0);
  Output selected = ops::Equal(s, data, ops::GatherV2(s, op.outputs[0], kept_ids, 0));
  if (!sorted) {
    const Output valid = ops::GreaterEqual(s, ids, ops::Cast(s, 0, ids.type()));
    selected = ops::LogicalAnd(s, selected, ops::Reshape(s, valid, mask_shape));
  }
  const Output counted = ops::Cast(s, selected, data.type());
  const Output ties = sorted ? Output(ops::SegmentSum(s, counted, ids))
                             : Output(ops::UnsortedSegmentSum(s, counted, ids, op.inputs[2]));
  const Output shares = ops::GatherV2(s, ops::Div(s, g[0], ties), kept_ids, 0);
  const Output zeros = ops::ZerosLike(s, data);
  *out = {ops::SelectV2(s, selected, shares, zeros), Output()};
  if (!sorted) out->push_back(Output());
  return absl::OkStatus();
}

// UnsortedSegmentProd (TensorFlow's rule): an entry's gradient is its segment's, times the
// product of the other entries of the segment; a segment with two zeros or more passes none.
absl::Status UnsortedSegmentProdGrad(const Scope& s, const GradOp& op, const Grads& g,
                                     Grads* out) {
  const Output& data = op.inputs[0];
  const Output& ids = op.inputs[1];
  const Output& count = op.inputs[2];
  const Output zeros = ops::ZerosLike(s, data);
  const Output is_zero = ops::Equal(s, data, zeros);
  const Output zeros_per_segment =
      ops::UnsortedSegmentSum(s, ops::Cast(s, is_zero, DT_INT32), ids, count);
  const Output grad = ops::SelectV2(s, ops::Greater(s, zeros_per_segment, 1),
                                    ops::ZerosLike(s, g[0]), g[0]);
  const Output non_zero = ops::SelectV2(s, is_zero, ops::OnesLike(s, data), data);
  const Output non_zero_prod = ops::UnsortedSegmentProd(s, non_zero, ids, count);
  const Output kept_ids = ops::Maximum(s, ids, ops::Cast(s, 0, ids.type()));
  const Output others = ops::SelectV2(
      s, is_zero, ops::GatherV2(s, non_zero_prod, kept_ids, 0),
      ops::Div(s, ops::GatherV2(s, op.outputs[0], kept_ids, 0), data));
  // Entries with a negative id get none.
  const Output extra = ops::Sub(s, ops::Rank(s, data), ops::Rank(s, ids));
  const Output mask_shape =
      ops::Concat(s, {ops::Shape(s, ids), ops::Fill(s, ops::Reshape(s, extra, {1}), 1)}, 0);
  const Output valid = ops::Reshape(s, ops::GreaterEqual(s, ids, ops::Cast(s, 0, ids.type())),
                                    mask_shape);
  const Output gathered = ops::SelectV2(s, valid, ops::GatherV2(s, grad, kept_ids, 0), zeros);
  *out = {ops::Mul(s, gathered, others), Output(), Output()};
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterMathGradients(GradientRegistry* r) {
  RETURN_IF_ERROR(r->Register("Add", AddGrad));
  RETURN_IF_ERROR(r->Register("AddV2", AddGrad));
  RETURN_IF_ERROR(r->Register("Sub", SubGrad));
  RETURN_IF_ERROR(r->Register("Mul", MulGrad));
  RETURN_IF_ERROR(r->Register("RealDiv", DivGrad));
  RETURN_IF_ERROR(r->Register("Neg", NegGrad));
  RETURN_IF_ERROR(r->Register("Square", ScaledGrad<SquareFactor>));
  RETURN_IF_ERROR(r->Register("Exp", ScaledGrad<ExpFactor>));
  RETURN_IF_ERROR(r->Register("Log", ScaledGrad<LogFactor>));
  RETURN_IF_ERROR(r->Register("Sqrt", ScaledGrad<SqrtFactor>));
  RETURN_IF_ERROR(r->Register("Rsqrt", ScaledGrad<RsqrtFactor>));
  RETURN_IF_ERROR(r->Register("Tanh", ScaledGrad<TanhFactor>));
  RETURN_IF_ERROR(r->Register("Sigmoid", ScaledGrad<SigmoidFactor>));
  RETURN_IF_ERROR(r->Register("MatMul", MatMulGrad));
  RETURN_IF_ERROR(r->Register("Sum", SumGrad));
  RETURN_IF_ERROR(r->Register("Mean", MeanGrad));
  RETURN_IF_ERROR(r->Register("Max", ExtremumGrad));
  RETURN_IF_ERROR(r->Register("Min", ExtremumGrad));
  RETURN_IF_ERROR(r->Register("Cast", CastGrad));
  RETURN_IF_ERROR(r->Register("AddN", AddNGrad));
  RETURN_IF_ERROR(r->Register("Div", DivGrad));
  RETURN_IF_ERROR(r->Register("Pow", PowGrad));
  RETURN_IF_ERROR(r->Register("SquaredDifference", SquaredDifferenceGrad));
  RETURN_IF_ERROR(r->Register("Maximum", MaximumMinimumGrad<true>));
  RETURN_IF_ERROR(r->Register("Minimum", MaximumMinimumGrad<false>));
  RETURN_IF_ERROR(r->Register("FloorMod", FloorModGrad));
  RETURN_IF_ERROR(r->Register("Select", SelectGrad));
  RETURN_IF_ERROR(r->Register("SelectV2", SelectV2Grad));
  RETURN_IF_ERROR(r->Register("Prod", ProdGrad));
  RETURN_IF_ERROR(r->Register("Cumsum", CumsumGrad));
  RETURN_IF_ERROR(r->Register("BatchMatMul", BatchMatMulGrad));
  RETURN_IF_ERROR(r->Register("SegmentSum", SegmentSumGrad));
  RETURN_IF_ERROR(r->Register("SegmentMean", SegmentMeanGrad));
  RETURN_IF_ERROR(r->Register("SegmentMax", SegmentExtremumGrad));
  RETURN_IF_ERROR(r->Register("UnsortedSegmentMax", SegmentExtremumGrad));
  RETURN_IF_ERROR(r->Register("UnsortedSegmentMin", SegmentExtremumGrad));
  RETURN_IF_ERROR(r->Register("UnsortedSegmentProd", UnsortedSegmentProdGrad));
  RETURN_IF_ERROR(r->Register("BatchMatMulV2", BatchMatMulV2Grad));
  RETURN_IF_ERROR(r->Register("BatchMatMulV3", BatchMatMulV2Grad));
  RETURN_IF_ERROR(r->Register("Abs", ScaledGrad<AbsFactor>));
  RETURN_IF_ERROR(r->Register("Log1p", ScaledGrad<Log1pFactor>));
  RETURN_IF_ERROR(r->Register("Expm1", ScaledGrad<Expm1Factor>));
  RETURN_IF_ERROR(r->Register("Erf", ScaledGrad<ErfFactor>));
  RETURN_IF_ERROR(r->Register("Reciprocal", ScaledGrad<ReciprocalFactor>));
  RETURN_IF_ERROR(r->Register("Sign", ZerosGrad));
  RETURN_IF_ERROR(r->Register("Sin", ScaledGrad<SinFactor>));
  RETURN_IF_ERROR(r->Register("Cos", ScaledGrad<CosFactor>));
  RETURN_IF_ERROR(r->Register("Tan", ScaledGrad<TanFactor>));
  RETURN_IF_ERROR(r->Register("Asin", ScaledGrad<AsinFactor>));
  RETURN_IF_ERROR(r->Register("Acos", ScaledGrad<AcosFactor>));
  RETURN_IF_ERROR(r->Register("Atan", ScaledGrad<AtanFactor>));
  RETURN_IF_ERROR(r->Register("Sinh", ScaledGrad<SinhFactor>));
  RETURN_IF_ERROR(r->Register("Cosh", ScaledGrad<CoshFactor>));
  RETURN_IF_ERROR(r->Register("Atan2", Atan2Grad));
  RETURN_IF_ERROR(r->Register("Cumprod", CumprodGrad));
  RETURN_IF_ERROR(r->Register("ClipByValue", ClipByValueGrad));
  RETURN_IF_ERROR(r->Register("CheckNumerics", CheckNumericsGrad));
  // As in TensorFlow: rounding and integer division give no gradient, and Mod and TruncateMod
  // have none registered at all (asking for one is NOT_FOUND).
  for (const char* op : {"Floor", "Ceil", "Round", "Rint", "FloorDiv", "TruncateDiv"}) {
    RETURN_IF_ERROR(r->RegisterNoGradient(op));
  }
  for (const char* op :
       {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
        "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "IsNan", "IsInf", "IsFinite", "Bucketize"}) {
    RETURN_IF_ERROR(r->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace tessera
