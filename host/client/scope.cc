// Scope: unique names, sub-scopes, devices, control dependencies and the shared graph state.
#include "host/client/scope.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"

namespace tessera {

struct Scope::Graph {
  tensorflow::GraphDef def;
  absl::flat_hash_set<std::string> node_names;
  // By node name: the index in `def` and the output types.
  absl::flat_hash_map<std::string, std::pair<int, std::vector<DataType>>> nodes;
  absl::Status status;
};

namespace {

// TensorFlow's node name rule: [A-Za-z0-9.][A-Za-z0-9_>./-]*
bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (!absl::ascii_isalnum(first) && first != '.') return false;
  for (char c : name.substr(1)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!absl::ascii_isalnum(u) && c != '_' && c != '>' && c != '.' && c != '/' &&
        c != '-') return false;
  }
  return true;
}

}  // namespace

Scope Scope::NewRootScope() {
  Scope scope;
  scope.graph_ = std::make_shared<Graph>();
  scope.graph_->def.mutable_versions()->set_producer(kGraphDefProducerVersion);
  scope.name_map_ = std::make_shared<NameMap>();
  scope.root_name_map_ = scope.name_map_;
  return scope;
}

Scope Scope::NewSubScope(const std::string& child_scope_name) const {
  Scope child = *this;
  child.op_name_.clear();
  if (child_scope_name.empty()) return child;
  std::string unique = UniqueName(child_scope_name);
  child.name_ = name_.empty() ? unique : absl::StrCat(name_, "/", unique);
  child.name_map_ = std::make_shared<NameMap>();
  return child;
}

Scope Scope::WithOpNameImpl(const std::string& op_name) const {
  Scope scope = *this;
  scope.op_name_ = op_name;
  return scope;
}

Scope Scope::WithDevice(const std::string& device) const {
  Scope scope = *this;
  scope.device_ = device;
  return scope;
}

Scope Scope::WithControlDependencies(const std::vector<Operation>& control_deps) const {
  Scope scope = *this;
  scope.control_deps_.insert(scope.control_deps_.end(), control_deps.begin(), control_deps.end());
  return scope;
}

Scope Scope::WithControlDependencies(const Output& control_dep) const {
  std::vector<DataType> types;
  return WithControlDependencies(
      {Operation(control_dep.graph(), control_dep.node_name(), std::move(types))});
}

Scope Scope::WithNoControlDependencies() const {
  Scope scope = *this;
  scope.control_deps_.clear();
  return scope;
}

Scope Scope::Root() const {
  Scope root = *this;
  root.name_.clear();
  root.op_name_.clear();
  root.device_.clear();
  root.control_deps_.clear();
  root.name_map_ = root_name_map_;
  return root;
}

std::string Scope::UniqueName(const std::string& prefix) const {
  auto it = name_map_->find(prefix);
  if (it == name_map_->end()) {
    name_map_->emplace(prefix, 0);
    return prefix;
  }
  std::string unique;
  do {
    unique = absl::StrCat(prefix, "_", ++it->second);
  } while (name_map_->contains(unique));
  name_map_->emplace(unique, 0);
  return unique;
}

std::string Scope::GetUniqueNameForOp(const std::string& default_name) const {
  std::string unique = UniqueName(op_name_.empty() ? default_name : op_name_);
  return name_.empty() ? unique : absl::StrCat(name_, "/", unique);
}

void Scope::UpdateStatus(const absl::Status& status) const {
  if (graph_->status.ok()) graph_->status = status;
}

bool Scope::ok() const { return graph_->status.ok(); }

absl::Status Scope::status() const { return graph_->status; }

GraphId Scope::graph_id() const { return graph_.get(); }

absl::StatusOr<tensorflow::GraphDef> Scope::ToGraphDef() const {
  if (!graph_->status.ok()) return graph_->status;
  return graph_->def;
}

Operation Scope::AddNode(tensorflow::NodeDef node, std::vector<DataType> output_types) const {
  if (!ok()) return Operation();
  const std::string context = absl::StrCat("while adding node '", node.name(), "' (", node.op(), ")");
  if (!IsValidNodeName(node.name())) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("invalid node name '", node.name(),
                     "': names match [A-Za-z0-9.][A-Za-z0-9_>./-]*")));
    return Operation();
  }
  if (graph_->node_names.contains(node.name())) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("node name '", node.name(), "' is already used in this graph")));
    return Operation();
  }
  if (node.device().empty()) node.set_device(device_);
  // TensorFlow writes each control input once, sorted by name, after the data inputs.
  std::vector<std::string> controls;
  for (const Operation& op : control_deps_) {
    if (!op.valid()) {
      UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          context, ": a control dependency is an invalid Operation (of an op that failed)")));
      return Operation();
    }
    if (op.graph() != graph_.get()) {
      UpdateStatus(absl::InvalidArgumentError(
          absl::StrCat(context, ": control dependency '", op.node_name(),
                       "' belongs to another graph (built from a different root scope)")));
      return Operation();
    }
    controls.push_back(op.node_name());
  }
  std::sort(controls.begin(), controls.end());
  controls.erase(std::unique(controls.begin(), controls.end()), controls.end());
  for (const std::string& control : controls) node.add_input(absl::StrCat("^", control));

  graph_->node_names.insert(node.name());
  std::string name = node.name();
  graph_->nodes[name] = {graph_->def.node_size(), output_types};
  *graph_->def.add_node() = std::move(node);
  return Operation(graph_.get(), std::move(name), std::move(output_types));
}

const tensorflow::NodeDef* Scope::FindNode(const std::string& name,
                                           std::vector<DataType>* output_types) const {
  auto it = graph_->nodes.find(name);
  if (it == graph_->nodes.end()) return nullptr;
  if (output_types != nullptr) *output_types = it->second.second;
  return &graph_->def.node(it->second.first);
}

}  // namespace tessera
