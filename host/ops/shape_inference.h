// ShapeInferenceContext: what a shape function sees of one node (attrs, input shapes, constant
// inputs) and where it records the output shapes.
#ifndef TESSERA_HOST_OPS_SHAPE_INFERENCE_H_
#define TESSERA_HOST_OPS_SHAPE_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/ops/attr_util.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/tensor.h"

namespace tessera {

class ShapeInferenceContext {
 public:
  // `node` has its default attrs filled in; `input_tensors[i]` is the value of input i when it
  // is a known constant, else nullptr (missing entries count as nullptr). Every pointer must
  // outlive the context. Outputs start as unknown shapes.
  ShapeInferenceContext(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                        std::vector<DataType> input_types, std::vector<DataType> output_types,
                        std::vector<PartialShape> input_shapes,
                        std::vector<const Tensor*> input_tensors);

  const tensorflow::NodeDef& node_def() const { return node_; }
  const tensorflow::OpDef& op_def() const { return op_def_; }
  const std::string& node_name() const { return node_.name(); }
  const std::string& op() const { return node_.op(); }

  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const PartialShape& input(int i) const { return input_shapes_[i]; }
  const std::vector<PartialShape>& input_shapes() const { return input_shapes_; }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  // The value of input `i` when it is a known constant (host memory), else nullptr.
  const Tensor* input_tensor(int i) const {
    return i < static_cast<int>(input_tensors_.size()) ? input_tensors_[i] : nullptr;
  }

  const tensorflow::AttrValue* attr(absl::string_view name) const {
    return FindNodeAttr(node_, name);
  }
  // Typed attr getters (see attr_util.h for the supported types).
  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(node_, name, value);
  }

  void set_output(int i, PartialShape shape) { outputs_[i] = std::move(shape); }
  const PartialShape& output(int i) const { return outputs_[i]; }
  const std::vector<PartialShape>& outputs() const { return outputs_; }

  // ---- Helpers for shape functions. Errors come from Error() below. ----

  // INVALID_ARGUMENT "<Op>: <message> for '<node>' with input shapes: [2,3], [4,5]".
  absl::Status Error(absl::string_view message) const;
  // Input `i` checked to have exactly / at least / at most `rank` dimensions (an unknown rank
  // becomes a shape of that rank with unknown dimensions for WithRank).
  absl::StatusOr<PartialShape> WithRank(int i, int rank) const;
  absl::StatusOr<PartialShape> WithRankAtLeast(int i, int rank) const;
  absl::StatusOr<PartialShape> WithRankAtMost(int i, int rank) const;
  // Merges two dimensions: "dimensions must be equal, but are 3 and 4".
  absl::StatusOr<int64_t> MergeDims(int64_t a, int64_t b) const;
  // Merges two shapes with this node's context in the error.
  absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a, const PartialShape& b) const;
  // True and the values when input `i` is a constant int32/int64 tensor; false when unknown.
  // INVALID_ARGUMENT when the constant has another dtype.
  absl::StatusOr<bool> ConstantInputAsInt64s(int i, std::vector<int64_t>* values) const;
  // A shape from a 1-D shape tensor (input `i`): its values when constant (-1 is an unknown
  // dimension), else its length as the rank when that is known, else an unknown shape.
  absl::StatusOr<PartialShape> MakeShapeFromShapeTensor(int i) const;
  // "[2,3], [4,5]".
  std::string InputShapesString() const;

 private:
  const tensorflow::NodeDef& node_;
  const tensorflow::OpDef& op_def_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialShape> outputs_;
};

// A shape function: reads the context and sets every output (unset outputs stay unknown).
using ShapeFn = std::function<absl::Status(ShapeInferenceContext&)>;

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_SHAPE_INFERENCE_H_
