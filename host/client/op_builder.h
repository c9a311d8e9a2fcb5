// OpBuilder: assembles one NodeDef (inputs, attrs) for an op wrapper and adds it to a Scope.
#ifndef TESSERA_HOST_CLIENT_OP_BUILDER_H_
#define TESSERA_HOST_CLIENT_OP_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "host/client/output.h"
#include "host/client/scope.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/framework/proto/tensor.pb.h"

namespace tessera {

// TensorFlow's encoding of a tensor-valued attr (SetAttrValue): more than one element goes into
// `tensor_content`, zero or one element into the typed `*_val` field.
void TensorToAttrProto(const Tensor& tensor, tensorflow::TensorProto* proto);

// The Output for `input` in `scope`'s graph: an Output is checked and passed through; a constant
// becomes a Const node in sub-scope "Const" (TensorFlow names it "Const/Const"). Errors (a failed
// initializer, an Output of another graph, an invalid Output) are recorded in the scope and give
// an invalid Output.
Output AsNodeOut(const Scope& scope, const Input& input);
std::vector<Output> AsNodeOutList(const Scope& scope, const InputList& inputs);

class OpBuilder {
 public:
  // A node named scope.GetUniqueNameForOp(default_name) running `op`.
  OpBuilder(const Scope& scope, absl::string_view op, absl::string_view default_name);
  OpBuilder(const Scope& scope, absl::string_view op) : OpBuilder(scope, op, op) {}

  OpBuilder& Input(const Output& input);
  OpBuilder& Inputs(absl::Span<const Output> inputs);

  OpBuilder& AttrType(absl::string_view name, DataType value);
  OpBuilder& AttrBool(absl::string_view name, bool value);
  OpBuilder& AttrInt(absl::string_view name, int64_t value);
  OpBuilder& AttrString(absl::string_view name, absl::string_view value);
  OpBuilder& AttrIntList(absl::string_view name, absl::Span<const int64_t> values);
  OpBuilder& AttrShape(absl::string_view name, const PartialTensorShape& shape);
  OpBuilder& AttrTensor(absl::string_view name, const Tensor& value);
  // Any attr value as is (gradient functions copy their forward node's attrs this way).
  OpBuilder& AttrProto(absl::string_view name, const tensorflow::AttrValue& value);

  // Records an error for this node (the first one wins); Finalize then adds nothing.
  void SetError(absl::string_view message);
  // Checks that every input in `inputs` has the same type, as the op's type attr `attr`
  // requires, and returns it (DT_INVALID after recording an error).
  DataType CommonType(absl::string_view attr, absl::Span<const Output> inputs);
  // Checks that `input` has one of `allowed` types for attr `attr`.
  void CheckType(absl::string_view attr, const Output& input,
                 std::initializer_list<DataType> allowed);

  const std::string& node_name() const { return node_.name(); }

  // Adds the node; its outputs have `output_types`. An invalid Operation when the scope or this
  // builder has an error.
  Operation Finalize(std::vector<DataType> output_types);

 private:
  Scope scope_;
  tensorflow::NodeDef node_;
  absl::Status status_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_OP_BUILDER_H_
