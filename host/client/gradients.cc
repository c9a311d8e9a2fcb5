// AddSymbolicGradients: TensorFlow's backward pass over the nodes that lie on a path from an input
// to an output, in reverse topological order, summing the gradients that reach each output.
#include "host/client/gradients.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/grad_util.h"

namespace tessera {

const tensorflow::AttrValue* GradOp::attr(const std::string& name) const {
  auto it = node->attr().find(name);
  return it == node->attr().end() ? nullptr : &it->second;
}
bool GradOp::BoolAttr(const std::string& name, bool fallback) const {
  const tensorflow::AttrValue* a = attr(name);
  return a == nullptr ? fallback : a->b();
}
int64_t GradOp::IntAttr(const std::string& name, int64_t fallback) const {
  const tensorflow::AttrValue* a = attr(name);
  return a == nullptr ? fallback : a->i();
}
float GradOp::FloatAttr(const std::string& name, float fallback) const {
  const tensorflow::AttrValue* a = attr(name);
  return a == nullptr ? fallback : a->f();
}
std::string GradOp::StringAttr(const std::string& name, const std::string& fallback) const {
  const tensorflow::AttrValue* a = attr(name);
  return a == nullptr ? fallback : a->s();
}
std::vector<int64_t> GradOp::IntListAttr(const std::string& name) const {
  const tensorflow::AttrValue* a = attr(name);
  if (a == nullptr) return {};
  return std::vector<int64_t>(a->list().i().begin(), a->list().i().end());
}
DataType GradOp::TypeAttr(const std::string& name) const {
  const tensorflow::AttrValue* a = attr(name);
  return a == nullptr ? TSR_DTYPE_INVALID : static_cast<DataType>(a->type());
}

const GradientRegistry& GradientRegistry::Standard() {
  static const GradientRegistry* registry = [] {
    auto* r = new GradientRegistry();
    for (auto group : {&RegisterMathGradients, &RegisterNnGradients, &RegisterArrayGradients,
                       &RegisterDataFlowGradients}) {
      absl::Status status = group(r);
      TESSERA_CHECK(status.ok(), std::string(status.message()).c_str());
    }
    return r;
  }();
  return *registry;
}

absl::Status GradientRegistry::Register(const std::string& op, GradFunction fn) {
  if (!functions_.emplace(op, std::move(fn)).second) {
    return absl::AlreadyExistsError(absl::StrCat("op '", op, "' already has a gradient"));
  }
  return absl::OkStatus();
}

absl::Status GradientRegistry::RegisterNoGradient(const std::string& op) {
  return Register(op, [](const Scope&, const GradOp& node, const std::vector<Output>&,
                         std::vector<Output>* grad_inputs) {
    grad_inputs->assign(node.inputs.size(), Output());
    return absl::OkStatus();
  });
}

absl::Status GradientRegistry::Lookup(const std::string& op, const GradFunction** fn) const {
  auto it = functions_.find(op);
  if (it == functions_.end()) {
    return absl::NotFoundError(absl::StrCat("no gradient is defined for op '", op, "'"));
  }
  *fn = &it->second;
  return absl::OkStatus();
}

std::vector<std::string> GradientRegistry::Ops() const {
  std::vector<std::string> ops;
  for (const auto& entry : functions_) ops.push_back(entry.first);
  std::sort(ops.begin(), ops.end());
  return ops;
}

namespace {

struct NodeState {
  GradOp op;
  bool relevant = false;  // on a path from an input to an output
  bool has_relevant_input = false;
  int pending = 0;                         // relevant consumers not yet processed
  std::vector<std::vector<Output>> grads;  // contributions per output
  std::vector<Output> summed;              // per output, once processed
};

// "node:3" -> ("node", 3); "node" -> ("node", 0). False for control inputs.
bool ParseInput(const std::string& input, std::string* node, int* index) {
  if (!input.empty() && input[0] == '^') return false;
  const size_t colon = input.rfind(':');
  if (colon != std::string::npos && absl::SimpleAtoi(input.substr(colon + 1), index)) {
    *node = input.substr(0, colon);
  } else {
    *node = input;
    *index = 0;
  }
  return true;
}

class Backprop {
 public:
  Backprop(const Scope& scope, const GradientRegistry& registry)
      : scope_(scope), grad_scope_(scope.NewSubScope("gradients")), registry_(registry) {}

  absl::Status Run(const std::vector<Output>& outputs, const std::vector<Output>& inputs,
                   const std::vector<Output>& grad_inputs, std::vector<Output>* grad_outputs) {
    RETURN_IF_ERROR(CollectBackward(outputs));
    MarkRelevant(inputs);
    for (auto& [name, state] : nodes_) {
      if (!state.relevant) continue;
      for (const Output& in : state.op.inputs) {
        NodeState* src = Find(in.node_name());
        if (src != nullptr && src->relevant) {
          state.has_relevant_input = true;
          ++src->pending;
        }
      }
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      NodeState* state = Find(outputs[i].node_name());
      state->grads[outputs[i].index()].push_back(grad_inputs[i]);
    }
    std::deque<NodeState*> ready;
    for (auto& [name, state] : nodes_) {
      if (state.relevant && state.pending == 0) ready.push_back(&state);
    }
    while (!ready.empty()) {
      NodeState* state = ready.front();
      ready.pop_front();
      RETURN_IF_ERROR(Process(state, &ready));
    }
    grad_outputs->clear();
    for (const Output& input : inputs) {
      NodeState* state = Find(input.node_name());
      Output grad;
      if (state != nullptr && state->relevant && !state->summed.empty()) {
        grad = state->summed[input.index()];
      }
      if (!grad.valid()) grad = ops::ZerosLike(grad_scope_, input);
      grad_outputs->push_back(grad);
    }
    return grad_scope_.status();
  }

 private:
  NodeState* Find(const std::string& name) {
    auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : &it->second;
  }

  // Every node an output depends on through data edges.
  absl::Status CollectBackward(const std::vector<Output>& outputs) {
    std::vector<std::string> stack;
    for (const Output& out : outputs) stack.push_back(out.node_name());
    while (!stack.empty()) {
      std::string name = stack.back();
      stack.pop_back();
      if (nodes_.contains(name)) continue;
      std::vector<DataType> types;
      const tensorflow::NodeDef* def = scope_.FindNode(name, &types);
      if (def == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", name, "' is not in the scope's graph"));
      }
      NodeState& state = nodes_[name];
      state.op.node = def;
      for (int k = 0; k < static_cast<int>(types.size()); ++k) {
        state.op.outputs.push_back(Output(scope_.graph_id(), name, k, types[k]));
      }
      state.grads.resize(types.size());
      for (const std::string& input : def->input()) {
        std::string src;
        int index = 0;
        if (!ParseInput(input, &src, &index)) continue;
        std::vector<DataType> src_types;
        if (scope_.FindNode(src, &src_types) == nullptr ||
            index >= static_cast<int>(src_types.size())) {
          return absl::InvalidArgumentError(
              absl::StrCat("input '", input, "' of node '", name, "' is not in the graph"));
        }
        state.op.inputs.push_back(Output(scope_.graph_id(), src, index, src_types[index]));
        stack.push_back(src);
      }
    }
    return absl::OkStatus();
  }

  // Nodes reachable forward from an input, among those the outputs depend on.
  void MarkRelevant(const std::vector<Output>& inputs) {
    absl::flat_hash_map<std::string, std::vector<std::string>> consumers;
    for (auto& [name, state] : nodes_) {
      for (const Output& in : state.op.inputs) consumers[in.node_name()].push_back(name);
    }
    std::vector<std::string> stack;
    for (const Output& in : inputs) {
      if (nodes_.contains(in.node_name())) stack.push_back(in.node_name());
    }
    while (!stack.empty()) {
      std::string name = stack.back();
      stack.pop_back();
      NodeState& state = nodes_[name];
      if (state.relevant) continue;
      state.relevant = true;
      for (const std::string& consumer : consumers[name]) stack.push_back(consumer);
    }
  }

  absl::Status Process(NodeState* state, std::deque<NodeState*>* ready) {
    const GradOp& op = state->op;
    state->summed.resize(op.outputs.size());
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      std::vector<Output>& parts = state->grads[k];
      if (parts.size() == 1) {
        state->summed[k] = parts[0];
      } else if (parts.size() > 1) {
        state->summed[k] = grad_util::AddN(grad_scope_, parts);
      }
    }
    if (!state->has_relevant_input) return absl::OkStatus();
    const GradFunction* fn = nullptr;
    absl::Status found = registry_.Lookup(op.op(), &fn);
    if (!found.ok()) {
      return WithContext(
          found, absl::StrCat("while computing the gradient through node '", op.name(), "'"));
    }
    std::vector<Output> grad_outputs = state->summed;
    for (size_t k = 0; k < grad_outputs.size(); ++k) {
      if (!grad_outputs[k].valid()) grad_outputs[k] = ops::ZerosLike(grad_scope_, op.outputs[k]);
    }
    std::vector<Output> grad_inputs;
    Scope node_scope = grad_scope_.NewSubScope(op.name() + "_grad");
    absl::Status status = (*fn)(node_scope, op, grad_outputs, &grad_inputs);
    if (status.ok()) status = node_scope.status();
    if (!status.ok()) {
      return WithContext(status, absl::StrCat("while computing the gradient of node '", op.name(),
                                              "' (", op.op(), ")"));
    }
    if (grad_inputs.size() != op.inputs.size()) {
      return absl::InternalError(absl::StrCat("the gradient of ", op.op(), " gave ",
                                              grad_inputs.size(), " input gradients for ",
                                              op.inputs.size(), " inputs"));
    }
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      NodeState* src = Find(op.inputs[i].node_name());
      if (src == nullptr || !src->relevant) continue;
      if (grad_inputs[i].valid()) src->grads[op.inputs[i].index()].push_back(grad_inputs[i]);
      if (--src->pending == 0) ready->push_back(src);
    }
    return absl::OkStatus();
  }

  Scope scope_;
  Scope grad_scope_;
  const GradientRegistry& registry_;
  absl::flat_hash_map<std::string, NodeState> nodes_;
};

}  // namespace

absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  const std::vector<Output>& grad_inputs,
                                  std::vector<Output>* grad_outputs,
                                  const GradientRegistry& registry) {
  RETURN_IF_ERROR(scope.status());
  if (outputs.size() != grad_inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("got ", outputs.size(), " outputs but ",
                                                   grad_inputs.size(), " output gradients"));
  }
  for (const std::vector<Output>* list : {&outputs, &inputs, &grad_inputs}) {
    for (const Output& out : *list) {
      if (!out.valid() || out.graph() != scope.graph_id()) {
        return absl::InvalidArgumentError(
            absl::StrCat("'", out.name(), "' is not a valid output of this scope's graph"));
      }
    }
  }
  Backprop backprop(scope, registry);
  return backprop.Run(outputs, inputs, grad_inputs, grad_outputs);
}

absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& outputs,
                                  const std::vector<Output>& inputs,
                                  std::vector<Output>* grad_outputs) {
  std::vector<Output> ones;
  Scope grad_scope = scope.NewSubScope("gradients");
  for (const Output& out : outputs) ones.push_back(grad_util::OnesLike(grad_scope, out));
  RETURN_IF_ERROR(scope.status());
  return AddSymbolicGradients(scope, outputs, inputs, ones, grad_outputs);
}

}  // namespace tessera
