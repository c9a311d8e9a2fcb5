// LowerFunctionalControlFlow and ExpandFunctions: If, Case and While as v1 control flow around
// calls.
#include "host/graph/functional_lowering.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/control_flow.h"
#include "host/graph/node_def_builder_util.h"
#include "host/graph/tensor_id.h"
#include "host/ops/attr_util.h"
#include "host/ops/node_def_util.h"

namespace tessera {
namespace {

bool IsIf(absl::string_view op) { return op == "If" || op == "StatelessIf"; }
bool IsWhile(absl::string_view op) { return op == "While" || op == "StatelessWhile"; }
bool IsCase(absl::string_view op) { return op == "Case" || op == "StatelessCase"; }
bool IsFunctional(absl::string_view op) { return IsIf(op) || IsWhile(op) || IsCase(op); }

// The types a condition may have: those Cast turns into bool (non-zero is true), and bool.
bool IsConditionType(DataType type) {
  switch (type) {
    case TSR_DTYPE_BOOL:
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_INT8:
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_UINT32:
    case TSR_DTYPE_UINT64:
      return true;
    default:
      return false;
  }
}



class Lowerer {
 public:
  Lowerer(const OpRegistry& ops, const tensorflow::GraphDef& def, const InlineLimits& limits,
          std::vector<tensorflow::NodeDef>* out)
      : ops_(ops), limits_(limits), out_(out) {
    nodes_ = def.node_size();
    for (const tensorflow::NodeDef& node : def.node()) {
      names_.Reserve(node.name());
      if (node.op() == "Enter" || node.op() == "RefEnter") {
        if (const tensorflow::AttrValue* frame = FindNodeAttr(node, "frame_name")) {
          frames_.insert(frame->s());
        }
      }
    }
    for (const tensorflow::FunctionDef& function : def.library().function()) {
      functions_.emplace(function.signature().name(), &function);
    }
  }

  absl::Status Lower(const tensorflow::NodeDef& node) {
    ASSIGN_OR_RETURN(const OpRegistration* registration, ops_.LookUp(node.op()));
    tensorflow::NodeDef checked = node;
    AddDefaultsToNodeDef(registration->op_def, &checked);
    RETURN_IF_ERROR(ValidateNodeDefAttrs(checked, registration->op_def));
    std::vector<DataType> input_types;
    std::vector<DataType> output_types;
    RETURN_IF_ERROR(
        InOutTypesForNode(checked, registration->op_def, &input_types, &output_types));
    std::vector<std::string> data;
    controls_.clear();
    for (const std::string& input : node.input()) {
      (absl::StartsWith(input, "^") ? controls_ : data).push_back(input);
    }
    if (data.size() != input_types.size()) {
      return absl::InvalidArgumentError(absl::StrCat(FormatNodeForError(node), " has ",
                                                     data.size(), " data inputs, but its attrs "
                                                     "make it take ",
                                                     input_types.size()));
    }
    // What the construct makes, counted before it is built: an If makes 11 nodes and 2 per input
    // and result, a While 7 and 6 per loop variable, a Case of N branches 5 per branch, one per
    // input and branch, and one per result.
    const auto inputs = static_cast<int64_t>(input_types.size());
    const auto outputs = static_cast<int64_t>(output_types.size());
    int64_t made = 0;
    if (IsIf(node.op())) {
      made = 11 + 2 * (inputs + outputs);
    } else if (IsWhile(node.op())) {
      made = 7 + 6 * inputs;
    } else {
      const tensorflow::AttrValue* branches = FindNodeAttr(checked, "branches");
      const int64_t n = branches == nullptr ? 0 : branches->list().func_size();
      made = 2 + 5 * n + n * inputs + outputs;
    }
    nodes_ += made - 1;
    if (nodes_ > limits_.max_nodes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lowering If and While makes more than ", limits_.max_nodes, " nodes"));
    }
    node_ = &checked;
    prefix_ = absl::StrCat(node.name(), "/");
    if (IsIf(node.op())) return LowerIf(data, input_types, output_types);
    if (IsCase(node.op())) return LowerCase(data, input_types, output_types);
    return LowerWhile(data, input_types);
  }

 private:
  std::string NewName(const std::string& wanted) { return names_.NewName(wanted); }

  // A new node "<construct>/<name>" (made unique) on the construct's device.
  tensorflow::NodeDef Make(const std::string& name, const std::string& op,
                           const std::vector<std::string>& inputs) {
    tensorflow::NodeDef node;
    node.set_name(NewName(prefix_ + name));
    node.set_op(op);
    node.set_device(node_->device());
    for (const std::string& input : inputs) node.add_input(input);
    return node;
  }

  // The function an attr of the construct names, checked to be in the library, to take `in`
  // and, unless `out` is null, to return `*out`; `returns` receives what it returns.
  absl::StatusOr<const tensorflow::NameAttrList*> Function(const char* attr,
                                                          const std::vector<DataType>& in,
                                                          const std::vector<DataType>* out,
                                                          std::vector<DataType>* returns) const {
    return CheckFunction(FindNodeAttr(*node_, attr)->func(), attr, in, out, returns);
  }

  // The same for a function `f` the construct names, `attr` saying where ("branch 2").
  absl::StatusOr<const tensorflow::NameAttrList*> CheckFunction(
      const tensorflow::NameAttrList& f, const std::string& attr, const std::vector<DataType>& in,
      const std::vector<DataType>* out, std::vector<DataType>* returns) const {
    const std::string label = FormatNodeForError(*node_);
    auto found = functions_.find(f.name());
    if (found == functions_.end()) {
      return absl::NotFoundError(absl::StrCat(label, " has ", attr, " '", f.name(),
                                              "', which the graph's library does not define"));
    }
    const tensorflow::OpDef& signature = found->second->signature();
    tensorflow::NodeDef instance;
    instance.set_name(node_->name());
    instance.set_op(f.name());
    *instance.mutable_attr() = f.attr();
    AddDefaultsToNodeDef(signature, &instance);
    std::vector<DataType> takes;
    std::vector<DataType> gives;
    absl::Status valid = ValidateNodeDefAttrs(instance, signature);
    if (valid.ok()) valid = InOutTypesForNode(instance, signature, &takes, &gives);
    if (!valid.ok()) {
      return WithContext(valid, absl::StrCat("while instantiating ", attr, " '", f.name(),
                                             "' of ", label));
    }
    if (takes != in || (out != nullptr && gives != *out)) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": its ", attr, " '", f.name(), "' takes ", TypeListString(takes), " and returns ",
          TypeListString(gives), ", but it must take ", TypeListString(in),
          out != nullptr ? absl::StrCat(" and return ", TypeListString(*out)) : std::string()));
    }
    if (returns != nullptr) *returns = std::move(gives);
    return &f;
  }

  // A call of `f` (by its name, with its attrs) on `inputs`.
  tensorflow::NodeDef Call(const std::string& name, const tensorflow::NameAttrList& f,
                           const std::vector<std::string>& inputs) {
    tensorflow::NodeDef call = Make(name, f.name(), inputs);
    *call.mutable_attr() = f.attr();
    return call;
  }

  // `tensor` as a bool: itself, or a Cast (non-zero is true) for another type.
  std::string AsBool(const std::string& tensor, DataType type) {
    if (type == TSR_DTYPE_BOOL) return tensor;
    tensorflow::NodeDef cast = Make("cond_as_bool", "Cast", {tensor});
    SetTypeAttr(&cast, "SrcT", type);
    SetTypeAttr(&cast, "DstT", TSR_DTYPE_BOOL);
    std::string name = cast.name();
    out_->push_back(std::move(cast));
    return name;
  }

  absl::Status LowerIf(const std::vector<std::string>& data, const std::vector<DataType>& in,
                       const std::vector<DataType>& out);
  absl::Status LowerCase(const std::vector<std::string>& data, const std::vector<DataType>& in,
                         const std::vector<DataType>& out);
  // The results of a construct whose branches are `calls`, exactly one of which runs: a Merge per
  // result, or with none a Merge of one Identity per branch of its pivot (of `pivot_type`) after
  // its call.
  void MergeBranches(const std::vector<tensorflow::NodeDef>& calls,
                     const std::vector<std::string>& pivots, DataType pivot_type,
                     const std::vector<DataType>& out, tensorflow::NodeDef* result);
  absl::Status LowerWhile(const std::vector<std::string>& data, const std::vector<DataType>& types);

  const OpRegistry& ops_;
  const InlineLimits limits_;
  std::vector<tensorflow::NodeDef>* out_;
  int64_t nodes_ = 0;  // of the graph once lowered, counted as constructs are
  UniqueNames names_;
  absl::flat_hash_set<std::string> frames_;  // frame names taken by Enter nodes
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions_;
  // The construct being lowered.
  const tensorflow::NodeDef* node_ = nullptr;
  std::string prefix_;
  std::vector<std::string> controls_;
};

absl::Status Lowerer::LowerIf(const std::vector<std::string>& data, const std::vector<DataType>& in,
                              const std::vector<DataType>& out) {
  if (!IsConditionType(in[0])) {
    return absl::InvalidArgumentError(absl::StrCat(FormatNodeForError(*node_),
                                                   ": a condition of type ",
                                                   DataTypeString(in[0]),
                                                   " is not supported (bool or a number)"));
  }
  std::vector<DataType> branch_in(in.begin() + 1, in.end());
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* then_branch,
                   Function("then_branch", branch_in, &out, nullptr));
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* else_branch,
                   Function("else_branch", branch_in, &out, nullptr));
  std::string pred = AsBool(data[0], in[0]);
  // The pivots: live on the taken side only; each branch's call waits for its own.
  tensorflow::NodeDef switch_pred = Make("switch_pred", "Switch", {pred, pred});
  SetTypeAttr(&switch_pred, "T", TSR_DTYPE_BOOL);
  for (const std::string& control : controls_) switch_pred.add_input(control);
  tensorflow::NodeDef then_pivot = Make("then_pivot", "Identity", {OutputName(switch_pred.name(), 1)});
  tensorflow::NodeDef else_pivot = Make("else_pivot", "Identity", {switch_pred.name()});
  SetTypeAttr(&then_pivot, "T", TSR_DTYPE_BOOL);
  SetTypeAttr(&else_pivot, "T", TSR_DTYPE_BOOL);
  std::vector<std::string> then_inputs;
  std::vector<std::string> else_inputs;
  for (size_t i = 1; i < data.size(); ++i) {
    tensorflow::NodeDef input = Make(absl::StrCat("switch_", i - 1), "Switch", {data[i], pred});
    SetTypeAttr(&input, "T", in[i]);
    then_inputs.push_back(OutputName(input.name(), 1));
    else_inputs.push_back(input.name());
    out_->push_back(std::move(input));
  }
  then_inputs.push_back("^" + then_pivot.name());
  else_inputs.push_back("^" + else_pivot.name());
  tensorflow::NodeDef then_call = Call("then", *then_branch, then_inputs);
  tensorflow::NodeDef else_call = Call("else", *else_branch, else_inputs);

  tensorflow::NodeDef result;
  result.set_name(node_->name());
  result.set_device(node_->device());
  if (out.empty()) {
    // Nothing to merge: the node waits for whichever branch ran.
    tensorflow::NodeDef then_done =
        Make("then_done", "Identity", {then_pivot.name(), "^" + then_call.name()});
    tensorflow::NodeDef else_done =
        Make("else_done", "Identity", {else_pivot.name(), "^" + else_call.name()});
    SetTypeAttr(&then_done, "T", TSR_DTYPE_BOOL);
    SetTypeAttr(&else_done, "T", TSR_DTYPE_BOOL);
    tensorflow::NodeDef done = Make("branch_done", "Merge", {then_done.name(), else_done.name()});
    SetTypeAttr(&done, "T", TSR_DTYPE_BOOL);
    (*done.mutable_attr())["N"].set_i(2);
    result.add_input("^" + done.name());
    out_->push_back(std::move(then_done));
    out_->push_back(std::move(else_done));
    out_->push_back(std::move(done));
  } else {
    for (size_t k = 0; k < out.size(); ++k) {
      tensorflow::NodeDef merge = Make(absl::StrCat("output_", k), "Merge",
                                       {OutputName(then_call.name(), static_cast<int>(k)),
                                        OutputName(else_call.name(), static_cast<int>(k))});
      SetTypeAttr(&merge, "T", out[k]);
      (*merge.mutable_attr())["N"].set_i(2);
      result.add_input(merge.name());
      out_->push_back(std::move(merge));
    }
  }
  SetResultsOp(out, &result);
  out_->push_back(std::move(switch_pred));
  out_->push_back(std::move(then_pivot));
  out_->push_back(std::move(else_pivot));
  out_->push_back(std::move(then_call));
  out_->push_back(std::move(else_call));
  out_->push_back(std::move(result));
  return absl::OkStatus();
}

void Lowerer::MergeBranches(const std::vector<tensorflow::NodeDef>& calls,
                             const std::vector<std::string>& pivots, DataType pivot_type,
                             const std::vector<DataType>& out, tensorflow::NodeDef* result) {
  const int n = static_cast<int>(calls.size());
  if (out.empty()) {
    tensorflow::NodeDef done = Make("branch_done", "Merge", {});
    for (int b = 0; b < n; ++b) {
      tensorflow::NodeDef branch_done = Make(absl::StrCat("branch_", b, "_done"), "Identity",
                                             {pivots[b], "^" + calls[b].name()});
      SetTypeAttr(&branch_done, "T", pivot_type);
      done.add_input(branch_done.name());
      out_->push_back(std::move(branch_done));
    }
    SetTypeAttr(&done, "T", pivot_type);
    (*done.mutable_attr())["N"].set_i(n);
    result->add_input("^" + done.name());
    out_->push_back(std::move(done));
    return;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    tensorflow::NodeDef merge = Make(absl::StrCat("output_", k), "Merge", {});
    for (const tensorflow::NodeDef& call : calls) {
      merge.add_input(OutputName(call.name(), static_cast<int>(k)));
    }
    SetTypeAttr(&merge, "T", out[k]);
    (*merge.mutable_attr())["N"].set_i(n);
    result->add_input(merge.name());
    out_->push_back(std::move(merge));
  }
}

// Case "c" with N branches: a cascade of two-way switches. Level b < N-1 compares the index
// ("c/index", an Identity of it) with b ("c/is_branch_b", Equal against a Const that waits on
// "c/index", so that it lives in the index's frame); its Switch of what reached the level sends the inputs to branch b
// when equal and on to level b+1 otherwise. The last branch takes what reaches the end, so an
// index out of [0, N) runs it, as TensorFlow's Case does. Exactly one branch runs; the results
// merge as an If's do.
absl::Status Lowerer::LowerCase(const std::vector<std::string>& data,
                                const std::vector<DataType>& in,
                                const std::vector<DataType>& out) {
  const std::string label = FormatNodeForError(*node_);
  // The op's definition requires at least one branch.
  const auto& branches = FindNodeAttr(*node_, "branches")->list().func();
  const std::vector<DataType> branch_in(in.begin() + 1, in.end());
  std::vector<const tensorflow::NameAttrList*> functions;
  for (int b = 0; b < branches.size(); ++b) {
    ASSIGN_OR_RETURN(const tensorflow::NameAttrList* f,
                     CheckFunction(branches[b], absl::StrCat("branch ", b), branch_in, &out,
                                   nullptr));
    functions.push_back(f);
  }
  const int n = branches.size();
  // The index through an Identity of the construct: the levels' constants wait on it (not on the
  // index's producer, which a feed of the index must leave unrun), and it lives in the index's
  // loop frame.
  tensorflow::NodeDef index_node = Make("index", "Identity", {data[0]});
  SetTypeAttr(&index_node, "T", TSR_DTYPE_INT32);
  const std::string index = index_node.name();
  out_->push_back(std::move(index_node));
  std::vector<std::string> reaching(data.begin() + 1, data.end());  // inputs reaching the level
  std::string live;  // a bool live only on the path that reaches the level (none at level 0)
  std::vector<tensorflow::NodeDef> calls;
  std::vector<std::string> pivots;
  const DataType pivot_type = n == 1 ? TSR_DTYPE_INT32 : TSR_DTYPE_BOOL;
  for (int b = 0; b < n; ++b) {
    std::vector<std::string> call_inputs;
    tensorflow::NodeDef pivot;
    if (b < n - 1) {
      tensorflow::NodeDef value =
          Make(absl::StrCat("branch_index_", b), "Const", {absl::StrCat("^", index)});
      SetTypeAttr(&value, "dtype", TSR_DTYPE_INT32);
      tensorflow::TensorProto* tensor = (*value.mutable_attr())["value"].mutable_tensor();
      tensor->set_dtype(tensorflow::DT_INT32);
      tensor->mutable_tensor_shape();
      tensor->add_int_val(b);
      tensorflow::NodeDef equal =
          Make(absl::StrCat("is_branch_", b), "Equal", {index, value.name()});
      SetTypeAttr(&equal, "T", TSR_DTYPE_INT32);
      const std::string pred = equal.name();
      tensorflow::NodeDef switch_pred = Make(absl::StrCat("switch_pred_", b), "Switch",
                                             {b == 0 ? pred : live, pred});
      SetTypeAttr(&switch_pred, "T", TSR_DTYPE_BOOL);
      if (b == 0) {
        for (const std::string& control : controls_) switch_pred.add_input(control);
      }
      pivot = Make(absl::StrCat("branch_", b, "_pivot"), "Identity",
                   {OutputName(switch_pred.name(), 1)});
      live = switch_pred.name();
      for (size_t k = 0; k < reaching.size(); ++k) {
        tensorflow::NodeDef input =
            Make(absl::StrCat("switch_", b, "_", k), "Switch", {reaching[k], pred});
        SetTypeAttr(&input, "T", branch_in[k]);
        call_inputs.push_back(OutputName(input.name(), 1));
        reaching[k] = input.name();
        out_->push_back(std::move(input));
      }
      out_->push_back(std::move(value));
      out_->push_back(std::move(equal));
      out_->push_back(std::move(switch_pred));
    } else {
      // The last branch: what passed every level. With a single branch, the index stands for
      // the path (and carries the node's control inputs).
      pivot = Make(absl::StrCat("branch_", b, "_pivot"), "Identity", {n == 1 ? index : live});
      if (n == 1) {
        for (const std::string& control : controls_) pivot.add_input(control);
      }
      call_inputs = reaching;
    }
    SetTypeAttr(&pivot, "T", pivot_type);
    call_inputs.push_back("^" + pivot.name());
    pivots.push_back(pivot.name());
    calls.push_back(Call(absl::StrCat("branch_", b), *functions[b], call_inputs));
    out_->push_back(std::move(pivot));
  }
  tensorflow::NodeDef result;
  result.set_name(node_->name());
  result.set_device(node_->device());
  MergeBranches(calls, pivots, pivot_type, out, &result);
  SetResultsOp(out, &result);
  for (tensorflow::NodeDef& call : calls) out_->push_back(std::move(call));
  out_->push_back(std::move(result));
  return absl::OkStatus();
}

absl::Status Lowerer::LowerWhile(const std::vector<std::string>& data,
                                 const std::vector<DataType>& types) {
  const std::string label = FormatNodeForError(*node_);
  if (types.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, " has no loop variables, which is not supported"));
  }
  std::vector<DataType> cond_out;
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* cond,
                   Function("cond", types, nullptr, &cond_out));
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* body, Function("body", types, &types, nullptr));
  if (cond_out.size() != 1 || !IsConditionType(cond_out[0])) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": its condition '", cond->name(), "' returns ", TypeListString(cond_out),
        "; it must return one bool or number"));
  }
  DataType cond_type = cond_out[0];
  int64_t parallel_iterations = FindNodeAttr(*node_, "parallel_iterations")->i();
  if (parallel_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(label, " has parallel_iterations ",
                                                   parallel_iterations, "; it must be at least 1"));
  }
  parallel_iterations = std::min<int64_t>(parallel_iterations, kMaxParallelIterations);
  // The loop's frame: the node's name, made unique against the frames of v1 loops.
  std::string frame = node_->name();
  for (int k = 1; frames_.contains(frame); ++k) frame = absl::StrCat(node_->name(), "_", k);
  frames_.insert(frame);

  const size_t n = types.size();
  std::vector<std::string> next_names(n);
  for (size_t k = 0; k < n; ++k) next_names[k] = NewName(absl::StrCat(prefix_, "next_iteration_", k));
  std::vector<std::string> merges;
  for (size_t k = 0; k < n; ++k) {
    tensorflow::NodeDef enter = Make(absl::StrCat("enter_", k), "Enter", {data[k]});
    SetTypeAttr(&enter, "T", types[k]);
    (*enter.mutable_attr())["frame_name"].set_s(frame);
    (*enter.mutable_attr())["is_constant"].set_b(false);
    (*enter.mutable_attr())["parallel_iterations"].set_i(parallel_iterations);
    for (const std::string& control : controls_) enter.add_input(control);
    tensorflow::NodeDef merge = Make(absl::StrCat("merge_", k), "Merge", {enter.name(), next_names[k]});
    SetTypeAttr(&merge, "T", types[k]);
    (*merge.mutable_attr())["N"].set_i(2);
    merges.push_back(merge.name());
    out_->push_back(std::move(enter));
    out_->push_back(std::move(merge));
  }
  tensorflow::NodeDef cond_call = Call("cond", *cond, merges);
  std::string pred = AsBool(cond_call.name(), cond_type);
  tensorflow::NodeDef loop_cond = Make("loop_cond", "LoopCond", {pred});
  std::vector<std::string> body_inputs;
  tensorflow::NodeDef result;
  result.set_name(node_->name());
  result.set_device(node_->device());
  for (size_t k = 0; k < n; ++k) {
    tensorflow::NodeDef sw = Make(absl::StrCat("switch_", k), "Switch", {merges[k], loop_cond.name()});
    SetTypeAttr(&sw, "T", types[k]);
    tensorflow::NodeDef exit = Make(absl::StrCat("exit_", k), "Exit", {sw.name()});
    SetTypeAttr(&exit, "T", types[k]);
    tensorflow::NodeDef identity = Make(absl::StrCat("identity_", k), "Identity", {OutputName(sw.name(), 1)});
    SetTypeAttr(&identity, "T", types[k]);
    result.add_input(exit.name());
    body_inputs.push_back(identity.name());
    out_->push_back(std::move(sw));
    out_->push_back(std::move(exit));
    out_->push_back(std::move(identity));
  }
  tensorflow::NodeDef body_call = Call("body", *body, body_inputs);
  for (size_t k = 0; k < n; ++k) {
    tensorflow::NodeDef next;
    next.set_name(next_names[k]);
    next.set_op("NextIteration");
    next.set_device(node_->device());
    next.add_input(OutputName(body_call.name(), static_cast<int>(k)));
    SetTypeAttr(&next, "T", types[k]);
    out_->push_back(std::move(next));
  }
  SetResultsOp(types, &result);
  out_->push_back(std::move(cond_call));
  out_->push_back(std::move(loop_cond));
  out_->push_back(std::move(body_call));
  out_->push_back(std::move(result));
  return absl::OkStatus();
}

}  // namespace

bool HasFunctionalControlFlow(const tensorflow::GraphDef& def) {
  for (const tensorflow::NodeDef& node : def.node()) {
    if (IsFunctional(node.op())) return true;
  }
  return false;
}

absl::Status LowerFunctionalControlFlow(tensorflow::GraphDef* def, const OpRegistry& ops,
                                        const InlineLimits& limits) {
  if (!HasFunctionalControlFlow(*def)) return absl::OkStatus();
  std::vector<tensorflow::NodeDef> out;
  Lowerer lowerer(ops, *def, limits, &out);
  for (tensorflow::NodeDef& node : *def->mutable_node()) {
    if (IsFunctional(node.op())) {
      RETURN_IF_ERROR(lowerer.Lower(node));
    } else {
      out.push_back(std::move(node));
    }
  }
  def->clear_node();
  def->mutable_node()->Reserve(static_cast<int>(out.size()));
  for (tensorflow::NodeDef& node : out) *def->add_node() = std::move(node);
  return absl::OkStatus();
}

absl::Status ExpandFunctions(tensorflow::GraphDef* def, const OpRegistry& ops,
                             const InlineLimits& limits) {
  for (int round = 0;; ++round) {
    bool lower = HasFunctionalControlFlow(*def);
    if (!lower && !HasFunctionCalls(*def)) return absl::OkStatus();
    if (round >= limits.max_call_depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function calls and functional control flow still nested after ",
          limits.max_call_depth,
          " rounds of inlining (a function that reaches itself through If or While?)"));
    }
    if (lower) RETURN_IF_ERROR(LowerFunctionalControlFlow(def, ops, limits));
    RETURN_IF_ERROR(InlineFunctionCalls(def, ops, limits));
    if (static_cast<int64_t>(def->ByteSizeLong()) > limits.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inlining the graph's function calls makes a graph of more than ", limits.max_bytes,
          " bytes"));
    }
  }
}

}  // namespace tessera
