// Placement with colocation groups (union-find), kernel availability and device priorities.
#include "host/placer/placer.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/kernels/kernel_factory.h"
#include "host/runtime/device.h"
#include "host/runtime/device_name.h"

namespace tessera {
namespace {

bool IsRefOrResource(DataType dtype) {
  return static_cast<int>(dtype) >= 100 || dtype == TSR_DTYPE_RESOURCE;
}

// No inputs and one reference or resource output (a variable handle): its request names the
// device that holds the resource, which soft placement never drops.
bool IsResourceGenerator(const Node& n) {
  return n.num_inputs() == 0 && n.num_outputs() == 1 && IsRefOrResource(n.output_type(0));
}

// Heuristic A: no inputs and one plain output (Const, a random generator...).
bool IsGenerator(const Node& n) {
  return n.num_inputs() == 0 && n.num_outputs() == 1 && !IsRefOrResource(n.output_type(0));
}

// Heuristic B: ops that read only their input's metadata.
bool IsMetadata(const Node& n) { return n.op() == "Shape" || n.op() == "Size" || n.op() == "Rank"; }

ParsedDeviceName WithoutTypeAndId(ParsedDeviceName name) {
  name.has_type = false;
  name.has_id = false;
  return name;
}

// TensorFlow's MergeDevNames under soft placement: jobs, replicas and tasks must still agree,
// but conflicting types drop the type and id, and conflicting ids drop the id.
absl::Status SoftMergeDeviceNames(ParsedDeviceName* target, const ParsedDeviceName& other) {
  ParsedDeviceName merged = *target;
  RETURN_IF_ERROR(MergeDeviceNames(&merged, WithoutTypeAndId(other)));
  if (other.has_type) {
    if (merged.has_type && merged.type != other.type) {
      *target = WithoutTypeAndId(merged);
      return absl::OkStatus();
    }
    merged.has_type = true;
    merged.type = other.type;
  }
  if (other.has_id) {
    if (merged.has_id && merged.id != other.id) {
      merged.has_id = false;
      *target = merged;
      return absl::OkStatus();
    }
    merged.has_id = true;
    merged.id = other.id;
  }
  *target = merged;
  return absl::OkStatus();
}

// Sets every field of `target` that `source` sets and `target` does not.
void EnsureSpecification(ParsedDeviceName* target, const ParsedDeviceName& source) {
  if (!target->has_job && source.has_job) {
    target->has_job = true;
    target->job = source.job;
  }
  if (!target->has_replica && source.has_replica) {
    target->has_replica = true;
    target->replica = source.replica;
  }
  if (!target->has_task && source.has_task) {
    target->has_task = true;
    target->task = source.task;
  }
  if (!target->has_type && source.has_type) {
    target->has_type = true;
    target->type = source.type;
  }
  if (!target->has_id && source.has_id) {
    target->has_id = true;
    target->id = source.id;
  }
}

std::string SpecOrNone(const ParsedDeviceName& spec) {
  std::string text = spec.ToString();
  return text.empty() ? "<none>" : text;
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
        if (IsRefOrResource(node->input_type(e->dst_input))) {
          RETURN_IF_ERROR(Union(e->src, node, "a reference or resource edge",
                                /*ignorable_when_soft=*/false));
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
    ParsedDeviceName resource;       // the request of a resource generator in the group
    std::string assigned;            // full device name, when fixed
    std::vector<std::string> types;  // device types with a kernel for every member
    std::vector<std::string> names;  // member node names, for messages
  };

  absl::Status InitMember(Node* node) {
    Member& m = members_[node->id()];
    m.parent = node->id();
    m.names.push_back(node->name());
    std::string what = absl::StrCat("node '", node->name(), "' (", node->op(), ")");
    absl::StatusOr<ParsedDeviceName> requested = ParseDeviceName(node->requested_device());
    if (!requested.ok()) return WithContext(requested.status(), what);
    m.requested = *requested;
    if (IsResourceGenerator(*node)) m.resource = m.requested;
    if (!node->requested_device().empty()) {
      absl::StrAppend(&what, " requested on '", node->requested_device(), "'");
    }
    for (const std::string& type : device_types_) {
      if (kernels_.HasKernel(*node, type)) m.types.push_back(type);
    }
    if (m.types.empty()) {
      std::vector<std::string> with_kernels;
      for (const std::string& type : kernels_.DeviceTypesWithKernelsFor(node->op())) {
        bool present =
            std::find(device_types_.begin(), device_types_.end(), type) != device_types_.end();
        with_kernels.push_back(
            absl::StrCat(type, present ? " (not for the node's types)" : " (no such device)"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a device for ", what,
          ": no kernel for it on any device present "
          "(devices present: ",
          absl::StrJoin(device_types_, ", "), "; device types with a kernel for ", node->op(), ": ",
          with_kernels.empty() ? "none" : absl::StrJoin(with_kernels, ", "), ")"));
    }
    if (!node->assigned_device().empty()) {
      const Device* device = FindDevice(node->assigned_device());
      if (device == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, " is assigned to '", node->assigned_device(),
            "', which is not a device of this session (devices present: ", DeviceList(), ")"));
      }
      if (std::find(m.types.begin(), m.types.end(), device->device_type()) == m.types.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, " is assigned to '", node->assigned_device(), "', but has no kernel for ",
            device->device_type(),
            " (device types with a kernel for it: ", absl::StrJoin(m.types, ", "), ")"));
      }
      m.assigned = node->assigned_device();
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

  // Joins the groups of `a` and `b`. Under soft placement, a colocation that cannot be honoured
  // is dropped when `ignorable_when_soft` (TensorFlow's rule for `_class` groups; reference and
  // resource edges must always hold).
  absl::Status Union(Node* a, Node* b, absl::string_view why, bool ignorable_when_soft) {
    int ra = Find(a->id());
    int rb = Find(b->id());
    if (ra == rb) return absl::OkStatus();
    absl::Status status = TryUnion(ra, rb);
    if (status.ok()) return status;
    if (ignorable_when_soft && options_.allow_soft_placement) return absl::OkStatus();
    return WithContext(status, absl::StrCat("cannot colocate nodes '", a->name(), "' and '",
                                            b->name(), "' (joined by ", why, ")"));
  }

  // Dry run first: nothing changes unless the requests, resource devices, assignments and kernel
  // types are all compatible.
  absl::Status TryUnion(int ra, int rb) {
    Member& ma = members_[ra];
    Member& mb = members_[rb];
    ParsedDeviceName resource = ma.resource;
    absl::Status merge = MergeDeviceNames(&resource, mb.resource);
    if (!merge.ok()) return WithContext(merge, "their resources live on different devices");
    ParsedDeviceName requested = ma.requested;
    RETURN_IF_ERROR(options_.allow_soft_placement ? SoftMergeDeviceNames(&requested, mb.requested)
                                                  : MergeDeviceNames(&requested, mb.requested));
    EnsureSpecification(&requested, resource);
    if (!ma.assigned.empty() && !mb.assigned.empty() && ma.assigned != mb.assigned) {
      return absl::InvalidArgumentError(
          absl::StrCat("they are already assigned to '", ma.assigned, "' and '", mb.assigned, "'"));
    }
    std::vector<std::string> types;
    for (const std::string& t : ma.types) {
      if (std::find(mb.types.begin(), mb.types.end(), t) != mb.types.end()) types.push_back(t);
    }
    if (types.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no device type supports both (group [", absl::StrJoin(ma.names, ", "),
                       "]: ", absl::StrJoin(ma.types, ", "), "; group [",
                       absl::StrJoin(mb.names, ", "), "]: ", absl::StrJoin(mb.types, ", "), ")"));
    }
    const std::string& assigned = ma.assigned.empty() ? mb.assigned : ma.assigned;
    if (!assigned.empty()) {
      const std::string& type = FindDevice(assigned)->device_type();
      if (std::find(types.begin(), types.end(), type) == types.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "one is already assigned to '", assigned,
            "', but not every node of the joined group "
            "has a kernel for ",
            type, " (device types with a kernel for all: ", absl::StrJoin(types, ", "), ")"));
      }
    }
    int root = ra, child = rb;
    if (ma.rank < mb.rank) std::swap(root, child);
    Member& r = members_[root];
    Member& c = members_[child];
    if (r.rank == c.rank) ++r.rank;
    c.parent = root;
    r.requested = requested;
    r.resource = resource;
    r.types = types;
    if (r.assigned.empty()) r.assigned = c.assigned;
    r.names.insert(r.names.end(), c.names.begin(), c.names.end());
    return absl::OkStatus();
  }

  // `_class: ["loc:@x"]` joins the node to x (when x exists) and to every node naming group x.
  absl::Status ColocateClassGroups(const std::vector<Node*>& nodes) {
    absl::flat_hash_map<std::string, Node*> group_first;
    for (Node* node : nodes) {
      const tensorflow::AttrValue* cls = node->attr("_class");
      if (cls == nullptr) continue;
      for (const std::string& entry : cls->list().s()) {
        if (!absl::StartsWith(entry, "loc:@")) continue;
        std::string group = entry.substr(5);
        std::string why = absl::StrCat("colocation group 'loc:@", group, "'");
        Node* anchor = graph_->FindNode(group);
        if (anchor != nullptr && anchor->IsOp()) {
          RETURN_IF_ERROR(Union(anchor, node, why, /*ignorable_when_soft=*/true));
          continue;
        }
        auto [it, inserted] = group_first.emplace(group, node);
        if (!inserted) RETURN_IF_ERROR(Union(it->second, node, why, /*ignorable_when_soft=*/true));
      }
    }
    return absl::OkStatus();
  }

  // Inputs before consumers, so that the metadata heuristic sees its input placed. Loop back
  // edges (out of NextIteration) are not waited for, or no node of a loop would ever be ready.
  std::vector<Node*> TopologicalOrder(const std::vector<Node*>& nodes) {
    auto counts = [](const Edge* e) { return e->src->IsOp() && !IsNextIteration(*e->src); };
    std::vector<int> pending(graph_->num_node_ids(), 0);
    std::deque<Node*> ready;
    for (Node* n : nodes) {
      for (const Edge* e : n->in_edges()) pending[n->id()] += counts(e) ? 1 : 0;
      if (pending[n->id()] == 0) ready.push_back(n);
    }
    std::vector<Node*> order;
    std::vector<bool> ordered(graph_->num_node_ids(), false);
    while (!ready.empty()) {
      Node* n = ready.front();
      ready.pop_front();
      order.push_back(n);
      ordered[n->id()] = true;
      for (const Edge* e : n->out_edges()) {
        if (e->dst->IsOp() && counts(e) && --pending[e->dst->id()] == 0) ready.push_back(e->dst);
      }
    }
    // Import rejects other cycles; should one get here, its nodes are still placed.
    for (Node* n : nodes) {
      if (!ordered[n->id()]) order.push_back(n);
    }
    return order;
  }

  // Devices matching `spec` whose type has a kernel for the whole group, best first: device-type
  // priority, then name.
  std::vector<Device*> Matching(const Member& group, const ParsedDeviceName& spec) const {
    std::vector<Device*> out;
    for (Device* d : devices_) {
      if (!DeviceNameMatches(spec, d->parsed_name())) continue;
      if (std::find(group.types.begin(), group.types.end(), d->device_type()) ==
          group.types.end()) {
        continue;
      }
      out.push_back(d);
    }
    const std::string& preferred = options_.preferred_task;
    std::stable_sort(out.begin(), out.end(), [&preferred](Device* a, Device* b) {
      if (a->type_priority() != b->type_priority()) return a->type_priority() > b->type_priority();
      if (!preferred.empty()) {
        bool a_preferred = absl::StartsWith(a->name(), absl::StrCat(preferred, "/"));
        bool b_preferred = absl::StartsWith(b->name(), absl::StrCat(preferred, "/"));
        if (a_preferred != b_preferred) return a_preferred;
      }
      return a->name() < b->name();
    });
    return out;
  }

  // The devices the group of `node` may use, best first. Under soft placement an unsatisfiable
  // request is retried without its type and id, first keeping the group's resource device.
  absl::StatusOr<std::vector<Device*>> DevicesForGroup(Node* node, int root) const {
    const Member& group = members_[root];
    std::vector<Device*> devices = Matching(group, group.requested);
    if (devices.empty() && options_.allow_soft_placement) {
      ParsedDeviceName relaxed = WithoutTypeAndId(group.requested);
      ParsedDeviceName with_resource = relaxed;
      EnsureSpecification(&with_resource, group.resource);
      devices = Matching(group, with_resource);
      if (devices.empty()) devices = Matching(group, relaxed);
    }
    if (devices.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot assign a device for node '", node->name(), "' (", node->op(),
          "): could not satisfy the device specification '", SpecOrNone(group.requested),
          "'; colocation group: [", absl::StrJoin(group.names, ", "),
          "]; device types with a kernel for the whole group: ", absl::StrJoin(group.types, ", "),
          "; devices present: ", DeviceList(),
          options_.allow_soft_placement ? " (even without the device type and id)"
                                        : " (soft placement is off)"));
    }
    return devices;
  }

  // Places the group of `node` (unless it already is) on `preferred` when the group may use it,
  // otherwise on its best device; records the node's device.
  absl::Status PlaceNode(Node* node, const std::string& preferred) {
    int root = Find(node->id());
    Member& group = members_[root];
    if (group.assigned.empty()) {
      ASSIGN_OR_RETURN(std::vector<Device*> devices, DevicesForGroup(node, root));
      group.assigned = devices.front()->name();
      for (Device* d : devices) {
        if (d->name() == preferred) group.assigned = preferred;
      }
    }
    node->set_assigned_device(group.assigned);
    return absl::OkStatus();
  }

  // The one device all consumers of `node` went to, or "".
  static std::string ConsumersDevice(const Node& node) {
    std::string common;
    for (const Edge* e : node.out_edges()) {
      if (!e->dst->IsOp()) continue;
      const std::string& d = e->dst->assigned_device();
      if (d.empty() || (!common.empty() && d != common)) return "";
      common = d;
    }
    return common;
  }

  std::string DeviceList() const {
    std::vector<std::string> names;
    for (Device* d : devices_) names.push_back(d->name());
    return absl::StrJoin(names, ", ");
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
      if (IsGenerator(*node) && members_[Find(node->id())].assigned.empty()) {
        generators.push_back(node);  // placed once their consumers are
        continue;
      }
      std::string preferred;
      if (IsMetadata(*node) && node->num_inputs() > 0 && node->input_edge(0) != nullptr) {
        preferred = node->input_edge(0)->src->assigned_device();
      }
      RETURN_IF_ERROR(PlaceNode(node, preferred));
    }
    for (Node* node : generators) RETURN_IF_ERROR(PlaceNode(node, ConsumersDevice(*node)));
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
