// InlineFunctionCalls: each call of a library function replaced by the function's body.
#include "host/graph/function_inline.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "host/graph/node_def_builder_util.h"
#include "host/ops/attr_util.h"
#include "host/ops/node_def_util.h"
#include "host/runtime/device_name.h"

namespace tessera {
namespace {

bool IsPartitionedCall(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

std::vector<DataType> TypesOfAttr(const tensorflow::NodeDef& node, absl::string_view name) {
  std::vector<DataType> types;
  if (const tensorflow::AttrValue* value = FindNodeAttr(node, name)) {
    for (int type : value->list().type()) types.push_back(static_cast<DataType>(type));
  }
  return types;
}

std::string Tensors(size_t count) {
  return absl::StrCat(count, count == 1 ? " tensor" : " tensors");
}

// The device of a body node: the call's when the node has none; otherwise the node's, with the
// job, replica and task it leaves out taken from the call's (TensorFlow's multi-device placer).
std::string BodyDevice(const std::string& caller, const std::string& own) {
  if (own.empty()) return caller;
  if (caller.empty()) return own;
  absl::StatusOr<ParsedDeviceName> parsed = ParseDeviceName(own);
  absl::StatusOr<ParsedDeviceName> from = ParseDeviceName(caller);
  if (!parsed.ok() || !from.ok()) return own;  // placement reports a malformed name
  if (!parsed->has_job && from->has_job) {
    parsed->has_job = true;
    parsed->job = from->job;
  }
  if (!parsed->has_replica && from->has_replica) {
    parsed->has_replica = true;
    parsed->replica = from->replica;
  }
  if (!parsed->has_task && from->has_task) {
    parsed->has_task = true;
    parsed->task = from->task;
  }
  return parsed->ToString();
}

// The node of a tensor name ("n", "n:1", "^n" -> "n").
std::string NodeOf(absl::string_view tensor) {
  if (absl::StartsWith(tensor, "^")) tensor.remove_prefix(1);
  return std::string(tensor.substr(0, tensor.find(':')));
}

bool IsListArg(const tensorflow::OpDef::ArgDef& arg) {
  return !arg.number_attr().empty() || !arg.type_list_attr().empty();
}

// A call resolved against its function: the function's signature instantiated with the call's
// attrs (defaults filled in), and the flat types and per-argument sizes that follow.
struct Instantiation {
  const tensorflow::FunctionDef* function = nullptr;
  tensorflow::NodeDef as_op;  // op: the function's name; attrs: the instantiation's
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  std::vector<int> input_arg_sizes;
  std::vector<int> output_arg_sizes;
};

// The outputs of one body node, by output argument: where each argument starts in the node's
// flat outputs and how many tensors it has.
struct OutputLayout {
  std::vector<std::string> arg_names;
  std::vector<int> starts;
  std::vector<int> sizes;
};

class Inliner {
 public:
  Inliner(const OpRegistry& ops, const tensorflow::FunctionDefLibrary& library,
          const InlineLimits& limits, std::vector<tensorflow::NodeDef>* out)
      : ops_(ops), library_(library), limits_(limits), out_(out) {}

  absl::Status Init(const tensorflow::GraphDef& def) {
    for (const tensorflow::FunctionDef& function : library_.function()) {
      const std::string& name = function.signature().name();
      if (name.empty()) {
        return absl::InvalidArgumentError("a function of the graph's library has no name");
      }
      if (!functions_.emplace(name, &function).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("function '", name, "' is defined twice in the graph's library"));
      }
      if (ops_.Find(name) != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", name, "' of the graph's library has the name of a registered op"));
      }
    }
    for (int i = 0; i < def.node_size(); ++i) {
      if (!names_.Reserve(def.node(i).name())) {
        return absl::InvalidArgumentError(
            absl::StrCat("duplicate node name '", def.node(i).name(), "' (node ", i, ")"));
      }
    }
    return absl::OkStatus();
  }

  // The function a call node names, or "" for a node that is no call.
  std::string CalleeName(const tensorflow::NodeDef& node) const {
    if (functions_.contains(node.op())) return node.op();
    if (!IsPartitionedCall(node.op())) return "";
    const tensorflow::AttrValue* f = FindNodeAttr(node, "f");
    return f != nullptr ? f->func().name() : "";
  }

  // A lower bound of the nodes that one call of `name` becomes (its result node, arguments and
  // body, nested calls included), so that a call tree too large to inline is refused before it
  // is built. Saturates past the node limit; a recursive call, or one nested deeper than the
  // depth limit, counts as one node here (Expand reports both).
  int64_t MinInlinedNodes(const std::string& name, int depth = 0) {
    auto known = min_nodes_.find(name);
    if (known != min_nodes_.end()) return known->second;
    auto found = functions_.find(name);
    if (found == functions_.end() || depth > limits_.max_call_depth) return 1;
    min_nodes_[name] = 1;  // in progress
    const tensorflow::FunctionDef& function = *found->second;
    int64_t total = 1 + function.signature().input_arg_size() + function.node_def_size();
    for (const tensorflow::NodeDef& node : function.node_def()) {
      std::string callee = CalleeName(node);
      // The call node itself is replaced by what the call becomes.
      if (!callee.empty()) total += MinInlinedNodes(callee, depth + 1) - 1;
      total = std::min<int64_t>(total, limits_.max_nodes + 1);
    }
    min_nodes_[name] = total;
    return total;
  }

  absl::Status CheckSize(int64_t nodes) const {
    if (nodes <= limits_.max_nodes) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "inlining the graph's function calls makes more than ", limits_.max_nodes, " nodes"));
  }

  // Counts `count` more input names against the limit before they are made.
  absl::Status AddInputs(int64_t count) {
    inputs_ += count;
    if (inputs_ <= limits_.max_inputs) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "inlining the graph's function calls makes more than ", limits_.max_inputs, " inputs"));
  }

  bool IsCall(const tensorflow::NodeDef& node) const {
    return IsPartitionedCall(node.op()) || functions_.contains(node.op());
  }

  // Appends the nodes that replace `call` (whose inputs are already names of the graph) to the
  // output; `chain` holds the functions whose bodies enclose the call.
  absl::Status Expand(const tensorflow::NodeDef& call, std::vector<std::string>* chain);

 private:
  absl::StatusOr<Instantiation> Resolve(const tensorflow::NodeDef& call) const;
  // A name not taken in the graph, `wanted` when free, else `wanted` + "_<n>".
  std::string NewName(const std::string& wanted) { return names_.NewName(wanted); }
  absl::Status Emit(tensorflow::NodeDef node) {
    RETURN_IF_ERROR(CheckSize(static_cast<int64_t>(out_->size()) + 1));
    bytes_ += static_cast<int64_t>(node.ByteSizeLong());
    if (bytes_ > limits_.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inlining the graph's function calls makes more than ", limits_.max_bytes,
          " bytes of nodes"));
    }
    out_->push_back(std::move(node));
    return absl::OkStatus();
  }

  const OpRegistry& ops_;
  const tensorflow::FunctionDefLibrary& library_;
  const InlineLimits limits_;
  std::vector<tensorflow::NodeDef>* out_;
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions_;
  UniqueNames names_;
  absl::flat_hash_map<std::string, int64_t> min_nodes_;
  int64_t inputs_ = 0;
  int64_t bytes_ = 0;
};

absl::StatusOr<Instantiation> Inliner::Resolve(const tensorflow::NodeDef& call) const {
  Instantiation inst;
  inst.as_op.set_name(call.name());
  const std::string label = FormatNodeForError(call);
  if (IsPartitionedCall(call.op())) {
    ASSIGN_OR_RETURN(const OpRegistration* registration, ops_.LookUp(call.op()));
    tensorflow::NodeDef checked = call;
    AddDefaultsToNodeDef(registration->op_def, &checked);
    RETURN_IF_ERROR(ValidateNodeDefAttrs(checked, registration->op_def));
    const tensorflow::NameAttrList& f = FindNodeAttr(checked, "f")->func();
    inst.as_op.set_op(f.name());
    *inst.as_op.mutable_attr() = f.attr();
  } else {
    inst.as_op.set_op(call.op());
    for (const auto& [name, value] : call.attr()) {
      if (!name.empty() && name[0] != '_') (*inst.as_op.mutable_attr())[name] = value;
    }
  }
  auto found = functions_.find(inst.as_op.op());
  if (found == functions_.end()) {
    return absl::NotFoundError(absl::StrCat(label, " calls function '", inst.as_op.op(),
                                            "', which the graph's library does not define"));
  }
  inst.function = found->second;
  const tensorflow::OpDef& signature = inst.function->signature();
  for (const auto* args : {&signature.input_arg(), &signature.output_arg()}) {
    absl::flat_hash_set<absl::string_view> seen;
    for (const tensorflow::OpDef::ArgDef& arg : *args) {
      if (!seen.insert(arg.name()).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("function '", signature.name(), "' has two ",
                         args == &signature.input_arg() ? "arguments" : "outputs", " named '",
                         arg.name(), "'"));
      }
    }
  }
  AddDefaultsToNodeDef(signature, &inst.as_op);
  absl::Status valid = ValidateNodeDefAttrs(inst.as_op, signature);
  if (valid.ok()) {
    valid = InOutTypesForNode(inst.as_op, signature, &inst.input_types, &inst.output_types);
  }
  if (!valid.ok()) {
    return WithContext(valid, absl::StrCat("while instantiating function '", signature.name(),
                                           "' for ", label));
  }
  ASSIGN_OR_RETURN(inst.input_arg_sizes, InputArgSizes(inst.as_op, signature));
  ASSIGN_OR_RETURN(inst.output_arg_sizes, OutputArgSizes(inst.as_op, signature));
  if (IsPartitionedCall(call.op())) {
    std::vector<DataType> tin = TypesOfAttr(call, "Tin");
    std::vector<DataType> tout = TypesOfAttr(call, "Tout");
    if (tin != inst.input_types) {
      return absl::InvalidArgumentError(absl::StrCat(label, " has Tin ", TypeListString(tin),
                                                     ", but function '", signature.name(),
                                                     "' takes ", TypeListString(inst.input_types)));
    }
    if (tout != inst.output_types) {
      return absl::InvalidArgumentError(absl::StrCat(label, " has Tout ", TypeListString(tout),
                                                     ", but function '", signature.name(),
                                                     "' returns ", TypeListString(inst.output_types)));
    }
  }
  return inst;
}

// Replaces attr placeholders ("$T") in `value`, also inside func attrs, by the instantiation's.
absl::Status SubstitutePlaceholders(const tensorflow::NodeDef& instantiation,
                                    tensorflow::AttrValue* value) {
  switch (value->value_case()) {
    case tensorflow::AttrValue::kPlaceholder: {
      const tensorflow::AttrValue* bound = FindNodeAttr(instantiation, value->placeholder());
      if (bound == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("refers to attr '$", value->placeholder(),
                                                       "', which the function does not have"));
      }
      *value = *bound;
      return absl::OkStatus();
    }
    case tensorflow::AttrValue::kFunc:
      for (auto& [name, nested] : *value->mutable_func()->mutable_attr()) {
        RETURN_IF_ERROR(SubstitutePlaceholders(instantiation, &nested));
      }
      return absl::OkStatus();
    case tensorflow::AttrValue::kList:
      for (tensorflow::NameAttrList& func : *value->mutable_list()->mutable_func()) {
        for (auto& [name, nested] : *func.mutable_attr()) {
          RETURN_IF_ERROR(SubstitutePlaceholders(instantiation, &nested));
        }
      }
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

// One node of a function body on its way into the graph.
struct BodyNode {
  tensorflow::NodeDef def;  // renamed, attrs instantiated; inputs still the body's
  OutputLayout outputs;
  bool is_call = false;
  bool stateful = false;  // a call of a function counts as stateful, but for PartitionedCall
};

absl::Status Inliner::Expand(const tensorflow::NodeDef& call, std::vector<std::string>* chain) {
  ASSIGN_OR_RETURN(Instantiation inst, Resolve(call));
  const tensorflow::FunctionDef& function = *inst.function;
  const tensorflow::OpDef& signature = function.signature();
  const std::string& fname = signature.name();
  const std::string label = FormatNodeForError(call);
  for (size_t i = 0; i < chain->size(); ++i) {
    if ((*chain)[i] != fname) continue;
    std::vector<std::string> cycle(chain->begin() + i, chain->end());
    cycle.push_back(fname);
    return absl::InvalidArgumentError(
        absl::StrCat("function '", fname, "' calls itself: ", absl::StrJoin(cycle, " -> "),
                     " (recursive functions cannot be inlined)"));
  }
  if (static_cast<int>(chain->size()) >= limits_.max_call_depth) {
    return absl::InvalidArgumentError(absl::StrCat(label, " calls function '", fname,
                                                   "' more than ", limits_.max_call_depth,
                                                   " calls deep: ", absl::StrJoin(*chain, " -> ")));
  }
  std::vector<std::string> data_inputs;
  std::vector<std::string> control_inputs;
  for (const std::string& input : call.input()) {
    (absl::StartsWith(input, "^") ? control_inputs : data_inputs).push_back(input);
  }
  if (data_inputs.size() != inst.input_types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, " has ", data_inputs.size(), " data inputs, but function '", fname,
                     "' takes ", inst.input_types.size(), " ", TypeListString(inst.input_types)));
  }
  const std::string prefix = absl::StrCat(call.name(), "/");
  const std::string& device = call.device();
  auto context = [&](absl::string_view what) {
    return absl::StrCat(what, " of function '", fname, "' called by ", label);
  };

  // The call's control inputs gate the body: every argument waits for them.
  std::string input_control;
  if (!control_inputs.empty()) {
    tensorflow::NodeDef noop;
    input_control = NewName(prefix + "input_control_node");
    noop.set_name(input_control);
    noop.set_op("NoOp");
    noop.set_device(device);
    for (const std::string& input : control_inputs) noop.add_input(input);
    RETURN_IF_ERROR(Emit(std::move(noop)));
  }

  // Arguments: one Identity per tensor, fed by the call's inputs. Resource and variant handles
  // pass straight through (no Identity kernel takes them).
  absl::flat_hash_map<std::string, std::vector<std::string>> args;
  absl::flat_hash_set<std::string> gated_args;  // the Identity nodes
  std::vector<std::string> ready_inputs;        // what "every argument is ready" waits for
  int flat = 0;
  for (int a = 0; a < signature.input_arg_size(); ++a) {
    const tensorflow::OpDef::ArgDef& arg = signature.input_arg(a);
    bool list = IsListArg(arg);
    std::vector<std::string>& tensors = args[arg.name()];
    for (int k = 0; k < inst.input_arg_sizes[a]; ++k, ++flat) {
      DataType type = inst.input_types[flat];
      if (type == TSR_DTYPE_RESOURCE || type == TSR_DTYPE_VARIANT) {
        tensors.push_back(data_inputs[flat]);
        ready_inputs.push_back("^" + NodeOf(data_inputs[flat]));
        continue;
      }
      tensorflow::NodeDef identity;
      identity.set_name(NewName(list ? absl::StrCat(prefix, arg.name(), "_", k)
                                     : absl::StrCat(prefix, arg.name())));
      identity.set_op("Identity");
      identity.set_device(device);
      identity.add_input(data_inputs[flat]);
      if (!input_control.empty()) identity.add_input(absl::StrCat("^", input_control));
      SetTypeAttr(&identity, "T", type);
      tensors.push_back(identity.name());
      gated_args.insert(identity.name());
      ready_inputs.push_back("^" + identity.name());
      RETURN_IF_ERROR(Emit(std::move(identity)));
    }
  }
  if (!input_control.empty()) ready_inputs.push_back("^" + input_control);
  std::sort(ready_inputs.begin(), ready_inputs.end());
  ready_inputs.erase(std::unique(ready_inputs.begin(), ready_inputs.end()), ready_inputs.end());

  // Body nodes: renamed, attrs instantiated, output layouts known.
  std::vector<BodyNode> body(function.node_def_size());
  absl::flat_hash_map<std::string, int> body_index;
  for (int i = 0; i < function.node_def_size(); ++i) {
    const tensorflow::NodeDef& original = function.node_def(i);
    if (args.contains(original.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat(context("a node and an argument"), " are both named '", original.name(),
                       "'"));
    }
    if (!body_index.emplace(original.name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(context("two nodes"), " are named '", original.name(), "'"));
    }
    BodyNode& node = body[i];
    node.def = original;
    node.def.set_name(NewName(prefix + original.name()));
    node.def.set_device(BodyDevice(device, node.def.device()));
    for (auto& [name, value] : *node.def.mutable_attr()) {
      absl::Status substituted = SubstitutePlaceholders(inst.as_op, &value);
      if (!substituted.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("attr '", name, "' of node '", original.name(), "' ",
                         substituted.message(), " (", context("body"), ")"));
      }
    }
    const tensorflow::OpDef* op_def = nullptr;
    tensorflow::NodeDef layout_def;
    const std::vector<int>* sizes = nullptr;
    absl::StatusOr<std::vector<int>> computed;
    Instantiation nested;
    if (IsCall(node.def)) {
      node.is_call = true;
      node.stateful = node.def.op() != "PartitionedCall";
      absl::StatusOr<Instantiation> resolved = Resolve(node.def);
      if (!resolved.ok()) return WithContext(resolved.status(), context("in the body"));
      nested = *std::move(resolved);
      if (IsPartitionedCall(node.def.op())) {
        op_def = &ops_.Find(node.def.op())->op_def;
        layout_def = node.def;
        AddDefaultsToNodeDef(*op_def, &layout_def);
        computed = OutputArgSizes(layout_def, *op_def);
      } else {
        op_def = &nested.function->signature();
        computed = nested.output_arg_sizes;
      }
    } else {
      const OpRegistration* registration = ops_.Find(node.def.op());
      if (registration == nullptr) {
        return absl::NotFoundError(absl::StrCat(
            "node '", original.name(), "' has op '", node.def.op(),
            "', which is neither a registered op nor a function of the graph's library (",
            context("body"), ")"));
      }
      op_def = &registration->op_def;
      node.stateful = op_def->is_stateful();
      AddDefaultsToNodeDef(*op_def, &node.def);
      absl::Status valid = ValidateNodeDefAttrs(node.def, *op_def);
      if (valid.ok()) {
        computed = OutputArgSizes(node.def, *op_def);
      } else {
        computed = valid;
      }
    }
    if (!computed.ok()) return WithContext(computed.status(), context("in the body"));
    sizes = &*computed;
    int start = 0;
    for (int a = 0; a < op_def->output_arg_size(); ++a) {
      node.outputs.arg_names.push_back(op_def->output_arg(a).name());
      node.outputs.starts.push_back(start);
      node.outputs.sizes.push_back((*sizes)[a]);
      start += (*sizes)[a];
    }
  }

  // A body tensor name ("arg", "arg:k", "node:output", "node:output:k") as graph tensors.
  auto resolve = [&](const std::string& name,
                     std::vector<std::string>* tensors) -> absl::Status {
    std::vector<std::string> parts = absl::StrSplit(name, ':');
    auto bad = [&]() {
      return absl::InvalidArgumentError(
          "names no argument and no node output (expected 'arg', 'arg:index', 'node:output' or "
          "'node:output:index')");
    };
    if (parts.size() > 3 || parts[0].empty()) return bad();
    if (auto arg = args.find(parts[0]); arg != args.end()) {
      if (parts.size() == 1) {
        tensors->insert(tensors->end(), arg->second.begin(), arg->second.end());
        return absl::OkStatus();
      }
      int k = 0;
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &k)) return bad();
      if (k < 0 || k >= static_cast<int>(arg->second.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument '", parts[0], "' has ", Tensors(arg->second.size())));
      }
      tensors->push_back(arg->second[k]);
      return absl::OkStatus();
    }
    auto found = body_index.find(parts[0]);
    if (found == body_index.end() || parts.size() == 1) return bad();
    const BodyNode& node = body[found->second];
    const OutputLayout& layout = node.outputs;
    int a = 0;
    while (a < static_cast<int>(layout.arg_names.size()) && layout.arg_names[a] != parts[1]) ++a;
    if (a == static_cast<int>(layout.arg_names.size())) {
      return absl::InvalidArgumentError(absl::StrCat("node '", parts[0], "' (", node.def.op(),
                                                     ") has no output named '", parts[1], "'"));
    }
    int first = layout.starts[a];
    int count = layout.sizes[a];
    if (parts.size() == 3) {
      int k = 0;
      if (!absl::SimpleAtoi(parts[2], &k)) return bad();
      if (k < 0 || k >= count) {
        return absl::InvalidArgumentError(absl::StrCat("output '", parts[1], "' of node '",
                                                       parts[0], "' has ", Tensors(count)));
      }
      first += k;
      count = 1;
    }
    for (int k = first; k < first + count; ++k) {
      tensors->push_back(OutputName(node.def.name(), k));
    }
    return absl::OkStatus();
  };

  // Body nodes none of whose inputs waits for the call's inputs (constants, nodes fed only by
  // handles) wait for every argument, as the call itself would (a NoOp "arguments_ready"); this
  // also keeps them in the call's frame when the call is inside a loop.
  absl::flat_hash_set<std::string> body_names;
  for (const BodyNode& node : body) body_names.insert(node.def.name());
  std::string arguments_ready;
  std::vector<bool> consumed(body.size(), false);
  for (int i = 0; i < static_cast<int>(body.size()); ++i) {
    BodyNode& node = body[i];
    const std::string& original = function.node_def(i).name();
    std::vector<std::string> data;
    std::vector<std::string> controls;
    for (const std::string& input : function.node_def(i).input()) {
      if (absl::StartsWith(input, "^")) {
        std::string source = input.substr(1);
        if (auto arg = args.find(source); arg != args.end()) {
          for (const std::string& tensor : arg->second) controls.push_back("^" + NodeOf(tensor));
        } else if (auto found = body_index.find(source); found != body_index.end()) {
          controls.push_back("^" + body[found->second].def.name());
          consumed[found->second] = true;
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("control input '", input, "' of node '", original,
                           "' names no node of the body (", context("body"), ")"));
        }
        continue;
      }
      size_t before = data.size();
      absl::Status resolved = resolve(input, &data);
      if (!resolved.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("input '", input, "' of node '", original,
                                                       "' (", context("body"), "): ",
                                                       resolved.message()));
      }
      RETURN_IF_ERROR(AddInputs(static_cast<int64_t>(data.size() - before)));
      std::string source = input.substr(0, input.find(':'));
      if (auto found = body_index.find(source); found != body_index.end()) {
        consumed[found->second] = true;
      }
    }
    bool gated = false;
    for (const std::vector<std::string>* inputs : {&data, &controls}) {
      for (const std::string& input : *inputs) {
        std::string source = NodeOf(input);
        gated = gated || body_names.contains(source) || gated_args.contains(source);
      }
    }
    if (!gated && !ready_inputs.empty()) {
      if (arguments_ready.empty()) {
        arguments_ready = NewName(prefix + "arguments_ready");
        tensorflow::NodeDef noop;
        noop.set_name(arguments_ready);
        noop.set_op("NoOp");
        noop.set_device(device);
        for (const std::string& input : ready_inputs) noop.add_input(input);
        RETURN_IF_ERROR(Emit(std::move(noop)));
      }
      controls.push_back(absl::StrCat("^", arguments_ready));
    }
    node.def.clear_input();
    for (std::string& input : data) node.def.add_input(std::move(input));
    for (std::string& input : controls) node.def.add_input(std::move(input));
  }

  // Results and control outputs, gathered on the node that keeps the call's name.
  tensorflow::NodeDef result;
  result.set_name(call.name());
  result.set_device(device);
  for (int a = 0; a < signature.output_arg_size(); ++a) {
    const std::string& out_name = signature.output_arg(a).name();
    auto ret = function.ret().find(out_name);
    if (ret == function.ret().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(context("output '" + out_name + "'"), " has no entry in the ret map"));
    }
    std::vector<std::string> tensors;
    absl::Status resolved = resolve(ret->second, &tensors);
    if (!resolved.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("result '", ret->second, "' of ",
                                                     context("output '" + out_name + "'"), ": ",
                                                     resolved.message()));
    }
    RETURN_IF_ERROR(AddInputs(static_cast<int64_t>(tensors.size())));
    if (static_cast<int>(tensors.size()) != inst.output_arg_sizes[a]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "result '", ret->second, "' is ", Tensors(tensors.size()), ", but ",
          context("output '" + out_name + "'"), " has ", inst.output_arg_sizes[a]));
    }
    std::string source = ret->second.substr(0, ret->second.find(':'));
    if (auto found = body_index.find(source); found != body_index.end()) {
      consumed[found->second] = true;
    }
    for (std::string& tensor : tensors) result.add_input(std::move(tensor));
  }
  // The call's node also waits for every argument, so that "^c" never runs ahead of the call's
  // inputs (a body without outputs, results that are handles passed through).
  std::vector<std::string> result_controls = ready_inputs;
  for (const auto& [output, node_name] : function.control_ret()) {
    auto found = body_index.find(node_name);
    if (found == body_index.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(context("control output '" + output + "'"), " names node '", node_name,
                       "', which the body does not have"));
    }
    result_controls.push_back("^" + body[found->second].def.name());
  }
  if (function.control_ret().empty()) {
    // Without control outputs (TensorFlow 1 functions), the side effects nothing in the body
    // waits for.
    for (int i = 0; i < static_cast<int>(body.size()); ++i) {
      if (!consumed[i] && body[i].stateful) result_controls.push_back("^" + body[i].def.name());
    }
  }
  std::sort(result_controls.begin(), result_controls.end());
  result_controls.erase(std::unique(result_controls.begin(), result_controls.end()),
                        result_controls.end());
  for (std::string& control : result_controls) result.add_input(std::move(control));
  SetResultsOp(inst.output_types, &result);

  chain->push_back(fname);
  for (BodyNode& node : body) {
    if (node.is_call) {
      RETURN_IF_ERROR(Expand(node.def, chain));
    } else {
      RETURN_IF_ERROR(Emit(std::move(node.def)));
    }
  }
  chain->pop_back();
  return Emit(std::move(result));
}

}  // namespace

bool HasFunctionCalls(const tensorflow::GraphDef& def) {
  absl::flat_hash_set<absl::string_view> functions;
  for (const tensorflow::FunctionDef& function : def.library().function()) {
    functions.insert(function.signature().name());
  }
  for (const tensorflow::NodeDef& node : def.node()) {
    if (IsPartitionedCall(node.op()) || functions.contains(node.op())) return true;
  }
  return false;
}

absl::Status InlineFunctionCalls(tensorflow::GraphDef* def, const OpRegistry& ops,
                                 const InlineLimits& limits) {
  if (!HasFunctionCalls(*def)) return absl::OkStatus();
  std::vector<tensorflow::NodeDef> out;
  Inliner inliner(ops, def->library(), limits, &out);
  RETURN_IF_ERROR(inliner.Init(*def));
  int64_t min_nodes = def->node_size();
  for (const tensorflow::NodeDef& node : def->node()) {
    std::string callee = inliner.CalleeName(node);
    if (!callee.empty()) min_nodes += inliner.MinInlinedNodes(callee) - 1;
    RETURN_IF_ERROR(inliner.CheckSize(min_nodes));
  }
  std::vector<std::string> chain;
  for (tensorflow::NodeDef& node : *def->mutable_node()) {
    if (inliner.IsCall(node)) {
      RETURN_IF_ERROR(inliner.Expand(node, &chain));
    } else {
      out.push_back(std::move(node));
    }
  }
  def->clear_node();
  def->mutable_node()->Reserve(static_cast<int>(out.size()));
  for (tensorflow::NodeDef& node : out) *def->add_node() = std::move(node);
  return absl::OkStatus();
}

}  // namespace tessera
