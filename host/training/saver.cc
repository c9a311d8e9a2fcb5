// Saver: builds TensorFlow 1.x's save and restore nodes and runs them.
#include "host/training/saver.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/op_builder.h"
#include "host/client/state_ops.h"

namespace tessera {
namespace {

// One variable to save: its name, dtype and whether it is a resource variable.
struct SaveableVariable {
  std::string name;
  Output handle;
  DataType dtype = TSR_DTYPE_INVALID;
  bool resource = false;
};

absl::StatusOr<SaveableVariable> Describe(const Scope& scope, const Output& variable, size_t i) {
  if (!variable.valid()) {
    return absl::InvalidArgumentError(absl::StrCat("variable ", i, " is an invalid Output"));
  }
  if (variable.graph() != scope.graph_id()) {
    return absl::InvalidArgumentError(
        absl::StrCat("variable '", variable.name(), "' belongs to another graph than the scope"));
  }
  const tensorflow::NodeDef* node = scope.FindNode(variable.node_name());
  if (node == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("variable '", variable.name(), "' is not a node of the scope's graph"));
  }
  SaveableVariable saveable;
  saveable.name = variable.node_name();
  saveable.handle = variable;
  if ((node->op() == "VariableV2" || node->op() == "Variable") && variable.is_ref()) {
    saveable.dtype = variable.type();
    return saveable;
  }
  if (node->op() == "VarHandleOp" && variable.type() == TSR_DTYPE_RESOURCE) {
    auto it = node->attr().find("dtype");
    if (it == node->attr().end() || it->second.value_case() != tensorflow::AttrValue::kType) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource variable '", saveable.name, "' has no dtype attr"));
    }
    saveable.dtype = static_cast<DataType>(it->second.type());
    saveable.resource = true;
    return saveable;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot save '", variable.name(), "': it is the output of a ", node->op(),
                   " node, not a variable (VariableV2 or VarHandleOp)"));
}

// A Const of strings (the client's Const wrapper takes only fixed-size types).
Output StringConst(const Scope& scope, const std::string& name,
                   const std::vector<std::string>& values, bool scalar) {
  tensorflow::AttrValue value;
  tensorflow::TensorProto* tensor = value.mutable_tensor();
  tensor->set_dtype(tensorflow::DT_STRING);
  if (!scalar) tensor->mutable_tensor_shape()->add_dim()->set_size(values.size());
  for (const std::string& v : values) tensor->add_string_val(v);
  Operation op = OpBuilder(scope.WithOpName(name), "Const")
                     .AttrType("dtype", TSR_DTYPE_STRING)
                     .AttrProto("value", value)
                     .Finalize({TSR_DTYPE_STRING});
  return op.valid() ? op.output(0) : Output();
}

tensorflow::AttrValue TypeList(const std::vector<SaveableVariable>& variables) {
  tensorflow::AttrValue list;
  list.mutable_list();
  for (const SaveableVariable& v : variables) {
    list.mutable_list()->add_type(static_cast<tensorflow::DataType>(v.dtype));
  }
  return list;
}

}  // namespace

absl::StatusOr<Saver> Saver::Create(const Scope& scope, const std::vector<Output>& variables) {
  RETURN_IF_ERROR(scope.status());
  if (variables.empty()) return absl::InvalidArgumentError("No variables to save");
  std::vector<SaveableVariable> saveables;
  for (size_t i = 0; i < variables.size(); ++i) {
    ASSIGN_OR_RETURN(SaveableVariable saveable, Describe(scope, variables[i], i));
    saveables.push_back(std::move(saveable));
  }
  // TensorFlow's Saver sorts a list of variables by name.
  std::sort(saveables.begin(), saveables.end(),
            [](const SaveableVariable& a, const SaveableVariable& b) { return a.name < b.name; });
  for (size_t i = 1; i < saveables.size(); ++i) {
    if (saveables[i].name == saveables[i - 1].name) {
      return absl::InvalidArgumentError(
          absl::StrCat("At least two variables have the same name: ", saveables[i].name));
    }
  }

  const Scope save = scope.WithNoControlDependencies().NewSubScope("save");
  Saver saver;
  for (const SaveableVariable& v : saveables) saver.saved_names_.push_back(v.name);
  const std::vector<std::string> whole(saveables.size(), "");

  // The prefix: fed by Save and Restore; "model" when nothing is fed, as in TensorFlow.
  Output default_name = StringConst(save, "filename/input", {"model"}, /*scalar=*/true);
  Output filename =
      ops::PlaceholderWithDefault(save.WithOpName("filename"), default_name, TensorShape{});
  Output prefix = ops::PlaceholderWithDefault(save.WithOpName("Const"), filename, TensorShape{});

  // Save: the variables' values (a ref variable's edge reads it; a resource variable is read).
  std::vector<Output> values;
  for (const SaveableVariable& v : saveables) {
    values.push_back(v.resource ? Output(ops::ReadVariableOp(save, v.handle, v.dtype)) : v.handle);
  }
  Output names = StringConst(save, "SaveV2/tensor_names", saver.saved_names_, false);
  Output slices = StringConst(save, "SaveV2/shape_and_slices", whole, false);
  Operation save_op = OpBuilder(save.WithOpName("SaveV2"), "SaveV2")
                          .Input(prefix)
                          .Input(names)
                          .Input(slices)
                          .Inputs(values)
                          .AttrProto("dtypes", TypeList(saveables))
                          .Finalize({});
  Output saved = ops::Identity(
      save.WithOpName("control_dependency").WithControlDependencies({save_op}), prefix);

  // Restore: one RestoreV2 for every variable, then an assignment each.
  Output restore_names = StringConst(save, "RestoreV2/tensor_names", saver.saved_names_, false);
  Output restore_slices = StringConst(save, "RestoreV2/shape_and_slices", whole, false);
  std::vector<DataType> dtypes;
  for (const SaveableVariable& v : saveables) dtypes.push_back(v.dtype);
  Operation restore = OpBuilder(save.WithOpName("RestoreV2"), "RestoreV2")
                          .Input(prefix)
                          .Input(restore_names)
                          .Input(restore_slices)
                          .AttrProto("dtypes", TypeList(saveables))
                          .Finalize(dtypes);
  std::vector<Operation> assignments;
  for (size_t i = 0; i < saveables.size() && restore.valid(); ++i) {
    const SaveableVariable& v = saveables[i];
    if (v.resource) {
      assignments.push_back(
          ops::AssignVariableOp(save, v.handle, restore.output(i), /*validate_shape=*/true)
              .operation);
    } else {
      assignments.push_back(ops::Assign(save, v.handle, restore.output(i)).operation);
    }
  }
  ops::NoOp restore_all(save.WithOpName("restore_all").WithControlDependencies(assignments));
  RETURN_IF_ERROR(scope.status());

  saver.filename_tensor_name_ = prefix.name();
  saver.save_tensor_name_ = saved.name();
  saver.restore_op_name_ = restore_all.operation.node_name();
  return saver;
}

absl::Status Saver::Save(Session* session, const std::string& prefix) const {
  std::vector<Tensor> out;
  absl::Status status = session->Run({{filename_tensor_name_, Tensor::Scalar<std::string>(prefix)}},
                                     {save_tensor_name_}, {}, &out);
  return WithContext(status, absl::StrCat("while saving checkpoint '", prefix, "'"));
}

absl::Status Saver::Restore(Session* session, const std::string& prefix) const {
  std::vector<Tensor> out;
  absl::Status status = session->Run({{filename_tensor_name_, Tensor::Scalar<std::string>(prefix)}},
                                     {}, {restore_op_name_}, &out);
  return WithContext(status, absl::StrCat("while restoring checkpoint '", prefix, "'"));
}

}  // namespace tessera
