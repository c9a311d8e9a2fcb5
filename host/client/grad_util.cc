// Gradient building blocks over OpBuilder and the typed wrappers.
#include "host/client/grad_util.h"

#include "absl/strings/str_cat.h"
#include "host/client/array_ops.h"
#include "host/client/math_ops.h"

namespace tessera {
namespace grad_util {

std::vector<Output> Node(const Scope& scope, const std::string& op,
                         const std::vector<Output>& inputs,
                         const std::function<void(OpBuilder&)>& set_attrs,
                         const std::vector<DataType>& output_types) {
  std::vector<Output> outputs(output_types.size());
  if (!scope.ok()) return outputs;
  OpBuilder builder(scope, op);
  for (const Output& input : inputs) builder.Input(input);
  if (set_attrs) set_attrs(builder);
  Operation operation = builder.Finalize(output_types);
  if (!operation.valid()) return outputs;
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = operation.output(static_cast<int>(i));
  return outputs;
}

Output UnaryT(const Scope& scope, const std::string& op, const std::vector<Output>& inputs) {
  const DataType t = inputs.empty() ? TSR_DTYPE_INVALID : inputs[0].type();
  return Node(
      scope, op, inputs, [t](OpBuilder& b) { b.AttrType("T", t); }, {t})[0];
}

Output Scalar(const Scope& scope, double value, DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_DOUBLE:
      return ops::Const(scope, value);
    case TSR_DTYPE_INT32:
      return ops::Const(scope, static_cast<int32_t>(value));
    case TSR_DTYPE_INT64:
      return ops::Const(scope, static_cast<int64_t>(value));
    case TSR_DTYPE_FLOAT:
      return ops::Const(scope, static_cast<float>(value));
    default:
      return ops::Cast(scope, ops::Const(scope, static_cast<float>(value)), dtype);
  }
}

Output IntVector(const Scope& scope, const std::vector<int32_t>& values) {
  return ops::Const(scope,
                    Tensor::FromVector<int32_t>(
                        TensorShape{static_cast<int64_t>(values.size())}, values));
}

Output AddN(const Scope& scope, const std::vector<Output>& values) {
  if (values.size() == 1) return values[0];
  const DataType t = values.empty() ? TSR_DTYPE_INVALID : values[0].type();
  const int64_t n = static_cast<int64_t>(values.size());
  return Node(
      scope, "AddN", values, [t, n](OpBuilder& b) { b.AttrInt("N", n).AttrType("T", t); },
      {t})[0];
}

Output Size(const Scope& scope, const Output& x) {
  const DataType t = x.type();
  return Node(
      scope, "Size", {x},
      [t](OpBuilder& b) { b.AttrType("T", t).AttrType("out_type", TSR_DTYPE_INT32); },
      {TSR_DTYPE_INT32})[0];
}

Output Range(const Scope& scope, const Output& start, const Output& limit, const Output& delta) {
  return Node(
      scope, "Range", {start, limit, delta},
      [](OpBuilder& b) { b.AttrType("Tidx", TSR_DTYPE_INT32); }, {TSR_DTYPE_INT32})[0];
}

Output OnesLike(const Scope& scope, const Output& x) {
  return ops::Fill(scope, ops::Shape(scope, x), Scalar(scope, 1, x.type()));
}

void ReduceBinaryGrads(const Scope& scope, const Output& x, const Output& y, const Output& gx_full,
                       const Output& gy_full, Output* gx, Output* gy) {
  Output sx = ops::Shape(scope, x);
  Output sy = ops::Shape(scope, y);
  std::vector<Output> r = Node(
      scope, "BroadcastGradientArgs", {sx, sy},
      [](OpBuilder& b) { b.AttrType("T", TSR_DTYPE_INT32); }, {TSR_DTYPE_INT32, TSR_DTYPE_INT32});
  if (gx != nullptr) *gx = ops::Reshape(scope, ops::Sum(scope, gx_full, r[0]), sx);
  if (gy != nullptr) *gy = ops::Reshape(scope, ops::Sum(scope, gy_full, r[1]), sy);
}

Output ReduceToShapeOf(const Scope& scope, const Output& grad, const Output& x) {
  Output gx;
  ReduceBinaryGrads(scope, x, grad, grad, grad, &gx, nullptr);
  return gx;
}

}  // namespace grad_util
}  // namespace tessera
