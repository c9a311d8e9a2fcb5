// Saver: TensorFlow 1.x's tf.train.Saver for the C++ API. It adds save and restore nodes for a
// set of variables to a graph and runs them in a session, writing and reading checkpoints in
// TensorFlow's V2 format that TensorFlow's own Saver reads and writes.
#ifndef TESSERA_HOST_TRAINING_SAVER_H_
#define TESSERA_HOST_TRAINING_SAVER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/client/output.h"
#include "host/client/scope.h"
#include "host/session/session.h"

namespace tessera {

class Saver {
 public:
  // Adds, in a name scope "save" of `scope` ("save_1" when that is taken), the nodes TensorFlow
  // 1.x's Saver adds, named as it names them:
  //   save/filename/input, save/filename, save/Const  the prefix: a string PlaceholderWithDefault
  //                                                  ("model") that Save and Restore feed
  //   save/SaveV2 (+ /tensor_names, /shape_and_slices), save/control_dependency
  //   save/RestoreV2 (+ /tensor_names, /shape_and_slices), then per variable save/Assign,
  //   save/Assign_1, ... (ref variables) or save/AssignVariableOp, ... (resource variables)
  //   save/restore_all                               a NoOp after every assignment
  // `variables` are ref variables (VariableV2 outputs) and resource variables (VarHandleOp
  // outputs), saved under their node names, in name order. Ref variables are saved by value and
  // restored with Assign (validate_shape); resource variables are read with ReadVariableOp and
  // restored with AssignVariableOp.
  //
  // INVALID_ARGUMENT when `variables` is empty ("No variables to save"), when one is invalid, of
  // another graph or not a variable, or when two have the same name; the scope's error when it
  // has one.
  static absl::StatusOr<Saver> Create(const Scope& scope, const std::vector<Output>& variables);

  // Writes PREFIX.index and PREFIX.data-00000-of-00001, creating PREFIX's missing directories.
  // Errors are the step's (an uninitialized variable is FAILED_PRECONDITION; an unwritable
  // location PERMISSION_DENIED or NOT_FOUND).
  absl::Status Save(Session* session, const std::string& prefix) const;
  // Assigns every variable its value in the checkpoint PREFIX: NOT_FOUND for a missing
  // checkpoint or variable ("Key w not found in checkpoint"), INVALID_ARGUMENT for a dtype or
  // shape that differs, DATA_LOSS for corrupt files.
  absl::Status Restore(Session* session, const std::string& prefix) const;

  // TensorFlow's SaverDef fields, for running the nodes by hand: feed the prefix to
  // filename_tensor_name(), fetch save_tensor_name() to save, run restore_op_name() to restore.
  const std::string& filename_tensor_name() const { return filename_tensor_name_; }
  const std::string& save_tensor_name() const { return save_tensor_name_; }
  const std::string& restore_op_name() const { return restore_op_name_; }
  // The names the variables are saved under, in the order they are saved.
  const std::vector<std::string>& saved_names() const { return saved_names_; }

 private:
  Saver() = default;

  std::string filename_tensor_name_;
  std::string save_tensor_name_;
  std::string restore_op_name_;
  std::vector<std::string> saved_names_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_TRAINING_SAVER_H_
