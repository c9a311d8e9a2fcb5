// Test helper: runs an op's shape function on a node built from text-format attrs.
#ifndef TESSERA_HOST_OPS_TESTING_INFER_SHAPES_H_
#define TESSERA_HOST_OPS_TESTING_INFER_SHAPES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/text_format.h"
#include "host/ops/node_def_util.h"
#include "host/ops/op_registry.h"
#include "host/ops/shape_inference.h"

namespace tessera {
namespace testing {

// Builds node `name` of `op` with `attrs` (NodeDef text format, e.g.
// `attr { key: "T" value { type: DT_FLOAT } }`), fills defaults, validates, then runs the shape
// function with `inputs` and the constant values `tensors` (nullptr or missing: unknown).
inline absl::StatusOr<std::vector<PartialShape>> InferShapes(
    const OpRegistry& ops, const std::string& op, const std::string& attrs,
    std::vector<PartialShape> inputs, std::vector<const Tensor*> tensors = {}) {
  tensorflow::NodeDef node;
  if (!google::protobuf::TextFormat::ParseFromString(attrs, &node)) {
    return absl::InvalidArgumentError(absl::StrCat("bad test attrs: ", attrs));
  }
  node.set_name("n");
  node.set_op(op);
  const OpRegistration* registration;
  ASSIGN_OR_RETURN(registration, ops.LookUp(op));
  AddDefaultsToNodeDef(registration->op_def, &node);
  RETURN_IF_ERROR(ValidateNodeDefAttrs(node, registration->op_def));
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  RETURN_IF_ERROR(InOutTypesForNode(node, registration->op_def, &input_types, &output_types));
  if (inputs.size() != input_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "test gives ", inputs.size(), " input shapes for ", input_types.size(), " inputs"));
  }
  ShapeInferenceContext ctx(node, registration->op_def, input_types, output_types,
                            std::move(inputs), std::move(tensors));
  if (registration->shape_fn) RETURN_IF_ERROR(registration->shape_fn(ctx));
  return ctx.outputs();
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_HOST_OPS_TESTING_INFER_SHAPES_H_
