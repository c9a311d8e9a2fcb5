// LowerFunctionalControlFlow and ExpandFunctions: If and While as v1 control flow around calls.
#include "host/graph/functional_lowering.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/attr_util.h"
#include "host/ops/node_def_util.h"

namespace tessera {
namespace {

bool IsIf(absl::string_view op) { return op == "If" || op == "StatelessIf"; }
bool IsWhile(absl::string_view op) { return op == "While" || op == "StatelessWhile"; }

void SetType(tensorflow::NodeDef* node, const char* name, DataType type) {
  (*node->mutable_attr())[name].set_type(static_cast<tensorflow::DataType>(type));
}

// The node that keeps a construct's name and gives its results: Identity for one, IdentityN for
// several.
void MakeResults(const std::vector<DataType>& types, tensorflow::NodeDef* node) {
  if (types.size() == 1) {
    node->set_op("Identity");
    SetType(node, "T", types[0]);
    return;
  }
  node->set_op("IdentityN");
  tensorflow::AttrValue::ListValue* list = (*node->mutable_attr())["T"].mutable_list();
  for (DataType type : types) list->add_type(static_cast<tensorflow::DataType>(type));
}

std::string Output(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

class Lowerer {
 public:
  Lowerer(const OpRegistry& ops, const tensorflow::GraphDef& def, std::vector<tensorflow::NodeDef>* out)
      : ops_(ops), out_(out) {
    for (const tensorflow::NodeDef& node : def.node()) names_.insert(node.name());
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
    node_ = &checked;
    prefix_ = absl::StrCat(node.name(), "/");
    if (IsIf(node.op())) return LowerIf(data, input_types, output_types);
    return LowerWhile(data, input_types);
  }

 private:
  std::string NewName(const std::string& wanted) {
    if (names_.insert(wanted).second) return wanted;
    for (int& n = next_suffix_[wanted];;) {
      std::string name = absl::StrCat(wanted, "_", ++n);
      if (names_.insert(name).second) return name;
    }
  }

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

  // The function an attr of the construct names, checked to be in the library.
  absl::StatusOr<const tensorflow::NameAttrList*> Function(const char* attr) const {
    const tensorflow::NameAttrList& f = FindNodeAttr(*node_, attr)->func();
    if (!functions_.contains(f.name())) {
      return absl::NotFoundError(absl::StrCat(FormatNodeForError(*node_), " has ", attr, " '",
                                              f.name(),
                                              "', which the graph's library does not define"));
    }
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
    SetType(&cast, "SrcT", type);
    SetType(&cast, "DstT", TSR_DTYPE_BOOL);
    std::string name = cast.name();
    out_->push_back(std::move(cast));
    return name;
  }

  absl::Status LowerIf(const std::vector<std::string>& data, const std::vector<DataType>& in,
                       const std::vector<DataType>& out);
  absl::Status LowerWhile(const std::vector<std::string>& data, const std::vector<DataType>& types);

  const OpRegistry& ops_;
  std::vector<tensorflow::NodeDef>* out_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, int> next_suffix_;
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions_;
  // The construct being lowered.
  const tensorflow::NodeDef* node_ = nullptr;
  std::string prefix_;
  std::vector<std::string> controls_;
};

absl::Status Lowerer::LowerIf(const std::vector<std::string>& data, const std::vector<DataType>& in,
                              const std::vector<DataType>& out) {
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* then_branch, Function("then_branch"));
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* else_branch, Function("else_branch"));
  std::string pred = AsBool(data[0], in[0]);
  // The pivots: live on the taken side only; each branch's call waits for its own.
  tensorflow::NodeDef switch_pred = Make("switch_pred", "Switch", {pred, pred});
  SetType(&switch_pred, "T", TSR_DTYPE_BOOL);
  for (const std::string& control : controls_) switch_pred.add_input(control);
  tensorflow::NodeDef then_pivot = Make("then_pivot", "Identity", {Output(switch_pred.name(), 1)});
  tensorflow::NodeDef else_pivot = Make("else_pivot", "Identity", {switch_pred.name()});
  SetType(&then_pivot, "T", TSR_DTYPE_BOOL);
  SetType(&else_pivot, "T", TSR_DTYPE_BOOL);
  std::vector<std::string> then_inputs;
  std::vector<std::string> else_inputs;
  for (size_t i = 1; i < data.size(); ++i) {
    tensorflow::NodeDef input = Make(absl::StrCat("switch_", i - 1), "Switch", {data[i], pred});
    SetType(&input, "T", in[i]);
    then_inputs.push_back(Output(input.name(), 1));
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
    SetType(&then_done, "T", TSR_DTYPE_BOOL);
    SetType(&else_done, "T", TSR_DTYPE_BOOL);
    tensorflow::NodeDef done = Make("branch_done", "Merge", {then_done.name(), else_done.name()});
    SetType(&done, "T", TSR_DTYPE_BOOL);
    (*done.mutable_attr())["N"].set_i(2);
    result.set_op("NoOp");
    result.add_input("^" + done.name());
    out_->push_back(std::move(then_done));
    out_->push_back(std::move(else_done));
    out_->push_back(std::move(done));
  } else {
    for (size_t k = 0; k < out.size(); ++k) {
      tensorflow::NodeDef merge = Make(absl::StrCat("output_", k), "Merge",
                                       {Output(then_call.name(), static_cast<int>(k)),
                                        Output(else_call.name(), static_cast<int>(k))});
      SetType(&merge, "T", out[k]);
      (*merge.mutable_attr())["N"].set_i(2);
      result.add_input(merge.name());
      out_->push_back(std::move(merge));
    }
    MakeResults(out, &result);
  }
  out_->push_back(std::move(switch_pred));
  out_->push_back(std::move(then_pivot));
  out_->push_back(std::move(else_pivot));
  out_->push_back(std::move(then_call));
  out_->push_back(std::move(else_call));
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
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* cond, Function("cond"));
  ASSIGN_OR_RETURN(const tensorflow::NameAttrList* body, Function("body"));
  // The condition's one result, and its type.
  const tensorflow::OpDef& cond_signature = functions_.at(cond->name())->signature();
  if (cond_signature.output_arg_size() != 1 || !cond_signature.output_arg(0).number_attr().empty() ||
      !cond_signature.output_arg(0).type_list_attr().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": its condition '", cond->name(),
                                                   "' must return one tensor"));
  }
  const tensorflow::OpDef::ArgDef& cond_out = cond_signature.output_arg(0);
  DataType cond_type = static_cast<DataType>(cond_out.type());
  if (!cond_out.type_attr().empty()) {
    cond_type = TSR_DTYPE_BOOL;  // resolved below, when the call or the signature gives it
    auto bound = cond->attr().find(cond_out.type_attr());
    if (bound != cond->attr().end() && bound->second.value_case() == tensorflow::AttrValue::kType) {
      cond_type = static_cast<DataType>(bound->second.type());
    } else {
      for (const tensorflow::OpDef::AttrDef& attr : cond_signature.attr()) {
        if (attr.name() == cond_out.type_attr() && attr.has_default_value() &&
            attr.default_value().value_case() == tensorflow::AttrValue::kType) {
          cond_type = static_cast<DataType>(attr.default_value().type());
        }
      }
    }
  }
  int64_t parallel_iterations = FindNodeAttr(*node_, "parallel_iterations")->i();

  const size_t n = types.size();
  std::vector<std::string> next_names(n);
  for (size_t k = 0; k < n; ++k) next_names[k] = NewName(absl::StrCat(prefix_, "next_iteration_", k));
  std::vector<std::string> merges;
  for (size_t k = 0; k < n; ++k) {
    tensorflow::NodeDef enter = Make(absl::StrCat("enter_", k), "Enter", {data[k]});
    SetType(&enter, "T", types[k]);
    (*enter.mutable_attr())["frame_name"].set_s(node_->name());
    (*enter.mutable_attr())["is_constant"].set_b(false);
    (*enter.mutable_attr())["parallel_iterations"].set_i(parallel_iterations);
    for (const std::string& control : controls_) enter.add_input(control);
    tensorflow::NodeDef merge = Make(absl::StrCat("merge_", k), "Merge", {enter.name(), next_names[k]});
    SetType(&merge, "T", types[k]);
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
    SetType(&sw, "T", types[k]);
    tensorflow::NodeDef exit = Make(absl::StrCat("exit_", k), "Exit", {sw.name()});
    SetType(&exit, "T", types[k]);
    tensorflow::NodeDef identity = Make(absl::StrCat("identity_", k), "Identity", {Output(sw.name(), 1)});
    SetType(&identity, "T", types[k]);
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
    next.add_input(Output(body_call.name(), static_cast<int>(k)));
    SetType(&next, "T", types[k]);
    out_->push_back(std::move(next));
  }
  MakeResults(types, &result);
  out_->push_back(std::move(cond_call));
  out_->push_back(std::move(loop_cond));
  out_->push_back(std::move(body_call));
  out_->push_back(std::move(result));
  return absl::OkStatus();
}

}  // namespace

bool HasFunctionalControlFlow(const tensorflow::GraphDef& def) {
  for (const tensorflow::NodeDef& node : def.node()) {
    if (IsIf(node.op()) || IsWhile(node.op())) return true;
  }
  return false;
}

absl::Status LowerFunctionalControlFlow(tensorflow::GraphDef* def, const OpRegistry& ops) {
  if (!HasFunctionalControlFlow(*def)) return absl::OkStatus();
  std::vector<tensorflow::NodeDef> out;
  Lowerer lowerer(ops, *def, &out);
  for (tensorflow::NodeDef& node : *def->mutable_node()) {
    if (IsIf(node.op()) || IsWhile(node.op())) {
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
    if (lower) RETURN_IF_ERROR(LowerFunctionalControlFlow(def, ops));
    RETURN_IF_ERROR(InlineFunctionCalls(def, ops, limits));
    if (static_cast<int64_t>(def->ByteSizeLong()) > limits.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inlining the graph's function calls makes more than ", limits.max_bytes,
          " bytes of nodes"));
    }
  }
}

}  // namespace tessera
