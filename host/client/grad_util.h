// Building blocks of the gradient functions: a generic node builder for ops without a typed
// wrapper, typed constants, sums of gradients and the reduction of a broadcast gradient back to
// an input's shape.
#ifndef TESSERA_HOST_CLIENT_GRAD_UTIL_H_
#define TESSERA_HOST_CLIENT_GRAD_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "host/client/op_builder.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace grad_util {

// Adds op `op` with `inputs`; `set_attrs` adds its attrs; returns its outputs of `output_types`.
std::vector<Output> Node(const Scope& scope, const std::string& op,
                         const std::vector<Output>& inputs,
                         const std::function<void(OpBuilder&)>& set_attrs,
                         const std::vector<DataType>& output_types);
// The same, for a node with one output whose "T" attr is the first input's type.
Output UnaryT(const Scope& scope, const std::string& op, const std::vector<Output>& inputs);

// A scalar constant of `dtype` (float, double, int32, int64, half and bfloat16 through float).
Output Scalar(const Scope& scope, double value, DataType dtype);
// An int32 vector constant.
Output IntVector(const Scope& scope, const std::vector<int32_t>& values);

Output AddN(const Scope& scope, const std::vector<Output>& values);
// Size(x) as an int32 scalar; Range(start, limit, delta) of int32 scalars.
Output Size(const Scope& scope, const Output& x);
Output Range(const Scope& scope, const Output& start, const Output& limit, const Output& delta);
// Ones of x's shape and type.
Output OnesLike(const Scope& scope, const Output& x);

// The gradient `grad` of a broadcasting binary op's result, summed over the dimensions that
// broadcasting added or stretched for `x` and reshaped to x's shape (TensorFlow's
// BroadcastGradientArgs + Sum + Reshape).
Output ReduceToShapeOf(const Scope& scope, const Output& grad, const Output& x);
// Both reductions of a binary op at once: gx for x and gy for y from grads gx_full, gy_full.
void ReduceBinaryGrads(const Scope& scope, const Output& x, const Output& y, const Output& gx_full,
                       const Output& gy_full, Output* gx, Output* gy);

}  // namespace grad_util
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_GRAD_UTIL_H_
