// Placement with colocation groups (union-find), kernel availability and device priorities.
#include "host/placer/placer.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/executor/kernel_factory.h"
#include "host/graph/graph.h"
#include "host/runtime/device.h"
#include "host/runtime/device_name.h"
#include "registry/status_macros.h"

namespace tessera {
namespace {

bool IsRefOrResource(DataType dtype) {
  return static_cast<int>(dtype) >= 100 || dtype == TSR_DTYPE_RESOURCE;
}

class ColocationGraph {
 public:
  ColocationGraph(Graph* graph, const std::vector<Device*>& devices, const KernelFactory& kernels,
                  const PlacerOptions& options)
      : graph_(graph), devices_(devices), kernels_(kernels), options_(options) {
    for (Device* d : devices_) {
      if (std::find(device_types_.begin(), device_types_.end(), d->device_type()) ==
          device_types_.end()) {
        device_types_.push_back(d->device_type());
      }
    }
  }

  absl::Status Run() {
    members_.resize(graph_->num_node_ids());
    std::vector<Node*> nodes = graph_->op_nodes();
    for (Node* node : nodes) RETURN_IF_ERROR(InitMember(node));
    for (Node* node : nodes) {
      for (const Edge* e : node->in_edges()) {
        if (e->IsControlEdge() || !e->src->IsOp()) continue;
        if (IsRefOrResource(e->src->output_type(e->src_output))) {
          RETURN_IF_ERROR(Union(e->src, node, "a reference or resource edge"));
        }
      }
    }
    RETURN_IF_ERROR(ColocateClassGroups(nodes));
    return Assign(TopologicalOrder(nodes));
  }

 private:
  struct Member {
    int parent = -1;
    int rank = 0;
    ParsedDeviceName requested;
    std::string assigned;           // full device name, when fixed
    std::vector<std::string> types;  // device types with a kernel for every member
    std::vector<std::string> names;  // member node names, for messages
  };

  absl::Status InitMember(Node* node) {
    Member& m = members_[node->id()];
    m.parent = node->id();
    m.names.push_back(node->name());
    absl::StatusOr<ParsedDeviceName> requested = ParseDeviceName(node->requested_device());
    if (!requested.ok()) {
      return WithContext(requested.status(),
                         absl::StrCat("node '", node->name(), "' (", node->op(), ")"));
    }
    m.requested = *requested;
    if (!node->assigned_device().empty()) m.assigned = node->assigned_device();
    for (const std::string& type : device_types_) {
      if (kernels_.HasKernel(*node, type)) m.types.push_back(type);
    }
    if (m.types.empty()) {
      std::vector<std::string> with_kernels = kernels_.DeviceTypesWithKernelsFor(node->op());
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a device for node '", node->name(), "' (", node->op(),
          "): no kernel for it on any device present (devices present: ",
          absl::StrJoin(device_types_, ", "), "; device types with a kernel for ", node->op(),
          ": ", with_kernels.empty() ? "none" : absl::StrJoin(with_kernels, ", "),
          with_kernels.empty() ? "" : ", none matching the node's types", ")"));
    }
    return absl::OkStatus();
  }

  int Find(int id) {
    while (members_[id].parent != id) {
      members_[id].parent = members_[members_[id].parent].parent;
      id = members_[id].parent;
    }
    return id;
  }

  absl::Status Union(Node* a, Node* b, absl::string_view why) {
    int ra = Find(a->id());
    int rb = Find(b->id());
    if (ra == rb) return absl::OkStatus();
    Member& ma = members_[ra];
    Member& mb = members_[rb];
    // Dry run first: nothing changes unless both the requests and the types are compatible.
    ParsedDeviceName merged = ma.requested;
    absl::Status merge = MergeDeviceNames(&merged, mb.requested);
    std::vector<std::string> types;
    for (const std::string& t : ma.types) {
      if (std::find(mb.types.begin(), mb.types.end(), t) != mb.types.end()) types.push_back(t);
    }
    std::string context = absl::StrCat("cannot colocate nodes '", a->name(), "' and '",
                                       b->name(), "' (joined by ", why, ")");
    if (!merge.ok()) {
      if (!options_.allow_soft_placement) return WithContext(merge, context);
      merged = ma.requested;  // soft placement: the first group's request wins
    }
    if (types.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          context, ": no device type supports both (", a->name(), ": ",
          absl::StrJoin(ma.types, ", "), "; ", b->name(), ": ", absl::StrJoin(mb.types, ", "),
          ")"));
    }
    if (!ma.assigned.empty() && !mb.assigned.empty() && ma.assigned != mb.assigned) {
      return absl::InvalidArgumentError(absl::StrCat(context, ": they are already assigned to '",
                                                     ma.assigned, "' and '", mb.assigned, "'"));
    }
    int root = ra, child = rb;
    if (ma.rank < mb.rank) std::swap(root, child);
    Member& r = members_[root];
    Member& c = members_[child];
    if (r.rank == c.rank) ++r.rank;
    c.parent = root;
    r.requested = merged;
    r.types = types;
    if (r.assigned.empty()) r.assigned = c.assigned;
    r.names.insert(r.names.end(), c.names.begin(), c.names.end());
    return absl::OkStatus();
  }

  absl::Status ColocateClassGroups(const std::vector<Node*>& nodes) {
    absl::flat_hash_map<std::string, Node*> group_first;
    for (Node* node : nodes) {
      const tensorflow::AttrValue* cls = node->attr("_class");
      if (cls == nullptr) continue;
      for (const std::string& entry : cls->list().s()) {
        if (!absl::StartsWith(entry, "loc:@")) continue;
        std::string group = entry.substr(5);
        Node* anchor = graph_->FindNode(group);
        if (anchor != nullptr && anchor->IsOp()) {
          RETURN_IF_ERROR(Union(anchor, node, absl::StrCat("colocation group 'loc:@", group, "'")));
          continue;
        }
        auto [it, inserted] = group_first.emplace(group, node);
        if (!inserted) {
          RETURN_IF_ERROR(
              Union(it->second, node, absl::StrCat("colocation group 'loc:@", group, "'")));
        }
      }
    }
    return absl::OkStatus();
  }

  std::vector<Node*> TopologicalOrder(const std::vector<Node*>& nodes) {
    std::vector<int> pending(graph_->num_node_ids(), 0);
    std::deque<Node*> ready;
    for (Node* n : nodes) {
      for (const Edge* e : n->in_edges()) {
        if (e->src->IsOp()) ++pending[n->id()];
      }
      if (pending[n->id()] == 0) ready.push_back(n);
    }
    std::vector<Node*> order;
    while (!ready.empty()) {
      Node* n = ready.front();
      ready.pop_front();
      order.push_back(n);
      for (const Edge* e : n->out_edges()) {
        if (e->dst->IsOp() && --pending[e->dst->id()] == 0) ready.push_back(e->dst);
      }
    }
    return order;  // the graph was checked acyclic at import
  }

  // Devices a group may use, best first.
  std::vector<Device*> Candidates(const Member& group, const ParsedDeviceName& spec) {
    std::vector<Device*> out;
    for (Device* d : devices_) {
      if (!DeviceNameMatches(spec, d->parsed_name())) continue;
      if (std::find(group.types.begin(), group.types.end(), d->device_type()) ==
          group.types.end()) {
        continue;
      }
      out.push_back(d);
    }
    std::stable_sort(out.begin(), out.end(), [](Device* a, Device* b) {
      if (a->type_priority() != b->type_priority()) return a->type_priority() > b->type_priority();
      return a->name() < b->name();
    });
    return out;
  }

  absl::StatusOr<std::string> ChooseForGroup(Node* node, int root) {
    Member& group = members_[root];
    if (!group.assigned.empty()) return group.assigned;
    std::vector<Device*> candidates = Candidates(group, group.requested);
    if (candidates.empty() && options_.allow_soft_placement) {
      ParsedDeviceName relaxed = group.requested;
      relaxed.has_type = false;
      relaxed.has_id = false;
      candidates = Candidates(group, relaxed);
    }
    if (candidates.empty()) {
      std::string request = group.requested.ToString();
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a device for node '", node->name(), "' (", node->op(),
          "): could not satisfy the device specification '", request.empty() ? "<none>" : request,
          "'; colocation group: [", absl::StrJoin(group.names, ", "),
          "]; device types with a kernel for the whole group: ",
          absl::StrJoin(group.types, ", "), "; devices present: ", DeviceList(),
          options_.allow_soft_placement ? "" : " (soft placement is off)"));
    }
    return candidates.front()->name();
  }

  std::string DeviceList() const {
    std::vector<std::string> names;
    for (Device* d : devices_) names.push_back(d->name());
    return absl::StrJoin(names, ", ");
  }

  bool IsGenerator(const Node* n) const {
    if (n->num_outputs() != 1 || IsRefOrResource(n->output_type(0))) return false;
    for (const Edge* e : n->in_edges()) {
      if (e->src->IsOp() && !e->IsControlEdge()) return false;
    }
    return n->num_inputs() == 0;
  }

  bool IsMetadata(const Node* n) const {
    return n->op() == "Shape" || n->op() == "Size" || n->op() == "Rank";
  }

  bool Unconstrained(int root) {
    const Member& m = members_[root];
    return m.names.size() == 1 && m.assigned.empty() && m.requested.ToString().empty();
  }

  bool TypeAllowed(int root, const std::string& device_name) {
    const Device* d = FindDevice(device_name);
    if (d == nullptr) return false;
    const std::vector<std::string>& types = members_[root].types;
    return std::find(types.begin(), types.end(), d->device_type()) != types.end();
  }

  const Device* FindDevice(const std::string& name) const {
    for (const Device* d : devices_) {
      if (d->name() == name) return d;
    }
    return nullptr;
  }

  absl::Status Assign(const std::vector<Node*>& order) {
    std::vector<Node*> generators;
    for (Node* node : order) {
      int root = Find(node->id());
      if (Unconstrained(root) && IsGenerator(node)) {
        generators.push_back(node);
        continue;
      }
      if (Unconstrained(root) && IsMetadata(node)) {
        const Edge* in = node->input_edge(0);
        if (in != nullptr && !in->src->assigned_device().empty() &&
            TypeAllowed(root, in->src->assigned_device())) {
          members_[root].assigned = in->src->assigned_device();
        }
      }
      ASSIGN_OR_RETURN(std::string device, ChooseForGroup(node, root));
      members_[root].assigned = device;
      node->set_assigned_device(device);
    }
    // Generators go where all their consumers went, when they may.
    for (Node* node : generators) {
      int root = Find(node->id());
      std::string common;
      bool same = true;
      for (const Edge* e : node->out_edges()) {
        if (!e->dst->IsOp()) continue;
        const std::string& d = e->dst->assigned_device();
        if (common.empty()) {
          common = d;
        } else if (d != common) {
          same = false;
        }
      }
      if (same && !common.empty() && TypeAllowed(root, common)) {
        members_[root].assigned = common;
      }
      ASSIGN_OR_RETURN(std::string device, ChooseForGroup(node, root));
      members_[root].assigned = device;
      node->set_assigned_device(device);
    }
    if (options_.log_device_placement) {
      for (Node* node : order) {
        std::fprintf(stderr, "%s (%s): %s\n", node->name().c_str(), node->op().c_str(),
                     node->assigned_device().c_str());
      }
    }
    return absl::OkStatus();
  }

  Graph* graph_;
  const std::vector<Device*>& devices_;
  const KernelFactory& kernels_;
  PlacerOptions options_;
  std::vector<std::string> device_types_;
  std::vector<Member> members_;
};

}  // namespace

absl::Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices,
                        const KernelFactory& kernels, const PlacerOptions& options) {
  if (devices.empty()) {
    return absl::FailedPreconditionError(
        "no devices to place on: no device plugin loaded (run 'tessera plugins' to see why)");
  }
  return ColocationGraph(graph, devices, kernels, options).Run();
}

}  // namespace tessera
