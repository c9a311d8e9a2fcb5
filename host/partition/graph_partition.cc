// Partition: one GraphDef per location, _Send/_Recv pairs for the edges between them (with Recv
// de-duplication and a dummy value for control edges), and same-device pairs where a device's
// host-memory and device-memory arguments meet.
#include "host/partition/graph_partition.h"

#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/control_flow.h"
#include "host/graph/tensor_id.h"
#include "host/ops/attr_util.h"
#include "host/partition/control_loops.h"

namespace tessera {
namespace {

// Where the arguments of one node live.
struct NodeMemory {
  bool host_device = false;  // on a host-memory device, where everything is host memory
  std::vector<bool> input_on_host;
  std::vector<bool> output_on_host;
};

void AddInput(tensorflow::NodeDef* def, const std::string& node, int index) {
  def->add_input(TensorId{node, index}.ToString());
}

class Partitioner {
 public:
  Partitioner(const PartitionOptions& options, Graph* graph,
              std::map<std::string, tensorflow::GraphDef>* partitions)
      : options_(options), graph_(graph), partitions_(partitions) {}

  absl::Status Run();

 private:
  absl::Status CheckPlacement() const;
  absl::Status AddControlFlow();
  absl::Status ComputeLocations();
  absl::Status ComputeMemoryTypes();
  absl::Status AddNode(const Node& dst);
  // Connects `edge` (into `dst_def`) through a Send/Recv pair, reusing an existing Recv.
  absl::Status AddRecvInput(const Edge& edge, tensorflow::NodeDef* dst_def);
  absl::StatusOr<std::string> AddSendRecv(const Edge& edge, bool same_location);

  bool NeedSameDeviceSendRecv(const Edge& edge) const;
  bool DstInputOnHost(const Edge& edge) const;
  const std::string& Location(const Node& node) const { return locations_[node.id()]; }

  const PartitionOptions& options_;
  Graph* graph_;
  std::map<std::string, tensorflow::GraphDef>* partitions_;
  ControlFlowInfo info_;
  ControlLoopMerges merges_;
  std::vector<std::string> locations_;  // by node id
  std::vector<NodeMemory> memory_;      // by node id
  // (src node id, src output, dst location, recv output on host) -> node the consumers use.
  std::map<std::tuple<int, int, std::string, bool>, std::string> recvs_;
};

absl::Status Partitioner::Run() {
  partitions_->clear();
  RETURN_IF_ERROR(CheckPlacement());
  if (options_.optimize_control_flow_colocation) OptimizeControlFlowColocation(graph_);
  RETURN_IF_ERROR(AddControlFlow());
  RETURN_IF_ERROR(ComputeLocations());
  RETURN_IF_ERROR(ComputeMemoryTypes());
  for (const Node* node : graph_->op_nodes()) RETURN_IF_ERROR(AddNode(*node));
  for (auto& [location, def] : *partitions_) {
    *def.mutable_versions() = graph_->versions;
    *def.mutable_library() = graph_->library;
  }
  return absl::OkStatus();
}

absl::Status Partitioner::CheckPlacement() const {
  for (const Node* node : graph_->op_nodes()) {
    if (node->assigned_device().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          node->DebugString(), " is not assigned to a device; partitioning needs a placed graph"));
    }
  }
  return absl::OkStatus();
}

absl::Status Partitioner::AddControlFlow() {
  ASSIGN_OR_RETURN(info_, BuildControlFlowInfo(*graph_));
  if (!options_.control_flow_added) {
    ASSIGN_OR_RETURN(bool added, AddControlLoops(info_, graph_));
    if (added) {
      ASSIGN_OR_RETURN(info_, BuildControlFlowInfo(*graph_));
    }
  }
  merges_ = FindControlLoopMerges(*graph_, info_);
  return absl::OkStatus();
}

absl::Status Partitioner::ComputeLocations() {
  locations_.assign(graph_->num_node_ids(), std::string());
  for (const Node* node : graph_->op_nodes()) {
    std::string location =
        options_.node_to_loc ? options_.node_to_loc(*node) : node->assigned_device();
    if (location.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("node_to_loc gave no location for ",
                                                     node->DebugString(), " assigned to '",
                                                     node->assigned_device(), "'"));
    }
    locations_[node->id()] = std::move(location);
  }
  return absl::OkStatus();
}

absl::Status Partitioner::ComputeMemoryTypes() {
  memory_.assign(graph_->num_node_ids(), NodeMemory());
  for (const Node* node : graph_->op_nodes()) {
    NodeMemory& memory = memory_[node->id()];
    const std::string& device = node->assigned_device();
    memory.host_device = options_.is_host_memory_device && options_.is_host_memory_device(device);
    memory.input_on_host.assign(node->num_inputs(), memory.host_device);
    memory.output_on_host.assign(node->num_outputs(), memory.host_device);
    if (memory.host_device || !options_.memory_types) continue;
    absl::StatusOr<MemoryTypes> types = options_.memory_types(*node);
    if (!types.ok()) {
      return WithContext(types.status(), absl::StrCat("while computing the memory types of ",
                                                      node->DebugString(), " on '", device, "'"));
    }
    if (types->inputs.size() != memory.input_on_host.size() ||
        types->outputs.size() != memory.output_on_host.size()) {
      return absl::InternalError(
          absl::StrCat("the memory types of ", node->DebugString(), " on '", device, "' list ",
                       types->inputs.size(), " inputs and ", types->outputs.size(),
                       " outputs, expected ", node->num_inputs(), " and ", node->num_outputs()));
    }
    for (size_t i = 0; i < types->inputs.size(); ++i) {
      memory.input_on_host[i] = types->inputs[i] == MemoryType::kHost;
    }
    for (size_t i = 0; i < types->outputs.size(); ++i) {
      memory.output_on_host[i] = types->outputs[i] == MemoryType::kHost;
    }
  }
  return absl::OkStatus();
}

bool Partitioner::NeedSameDeviceSendRecv(const Edge& edge) const {
  if (edge.IsControlEdge() || edge.src->assigned_device() != edge.dst->assigned_device()) {
    return false;
  }
  const NodeMemory& src = memory_[edge.src->id()];
  if (src.host_device) return false;
  return src.output_on_host[edge.src_output] !=
         memory_[edge.dst->id()].input_on_host[edge.dst_input];
}

bool Partitioner::DstInputOnHost(const Edge& edge) const {
  const NodeMemory& dst = memory_[edge.dst->id()];
  if (dst.host_device) return true;
  return !edge.IsControlEdge() && dst.input_on_host[edge.dst_input];
}

absl::Status Partitioner::AddNode(const Node& dst) {
  tensorflow::NodeDef* dst_def = (*partitions_)[Location(dst)].add_node();
  *dst_def = dst.def();
  dst_def->clear_input();
  dst_def->set_device(dst.assigned_device());

  // Data inputs in slot order, then control inputs.
  std::vector<const Edge*> inputs(dst.num_inputs(), nullptr);
  for (const Edge* edge : dst.in_edges()) {
    if (!edge->IsControlEdge()) inputs[edge->dst_input] = edge;
  }
  for (int i = 0; i < dst.num_inputs(); ++i) {
    if (inputs[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(dst.DebugString(), " has no edge into input ",
                                                     i, " (of ", dst.num_inputs(), ")"));
    }
  }
  for (const Edge* edge : dst.in_edges()) {
    if (edge->IsControlEdge() && edge->src->IsOp()) inputs.push_back(edge);
  }
  for (const Edge* edge : inputs) {
    if (Location(*edge->src) == Location(dst) && !NeedSameDeviceSendRecv(*edge)) {
      AddInput(dst_def, edge->src->name(), edge->src_output);
    } else {
      RETURN_IF_ERROR(AddRecvInput(*edge, dst_def));
    }
  }
  return absl::OkStatus();
}

absl::Status Partitioner::AddRecvInput(const Edge& edge, tensorflow::NodeDef* dst_def) {
  const std::string& location = Location(*edge.dst);
  auto key = std::make_tuple(edge.src->id(), edge.src_output, location, DstInputOnHost(edge));
  auto it = recvs_.find(key);
  if (it == recvs_.end()) {
    ASSIGN_OR_RETURN(std::string recv, AddSendRecv(edge, Location(*edge.src) == location));
    it = recvs_.emplace(std::move(key), std::move(recv)).first;
  }
  AddInput(dst_def, it->second, edge.IsControlEdge() ? kControlSlot : 0);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Partitioner::AddSendRecv(const Edge& edge, bool same_location) {
  const Node& src = *edge.src;
  const Node& dst = *edge.dst;
  const bool control = edge.IsControlEdge();
  tensorflow::GraphDef& src_graph = (*partitions_)[Location(src)];
  tensorflow::GraphDef& dst_graph = (*partitions_)[Location(dst)];

  // A control edge sends an empty float tensor made after src.
  TensorId send_from{src.name(), edge.src_output};
  const DataType dtype = control ? TSR_DTYPE_FLOAT : BaseType(dst.input_type(edge.dst_input));
  if (control) {
    tensorflow::NodeDef* dummy = src_graph.add_node();
    *dummy = EmptyConstNodeDef(graph_->NewName(absl::StrCat(src.name(), "/ctrl")),
                               src.assigned_device());
    AddInput(dummy, src.name(), kControlSlot);
    send_from = TensorId{dummy->name(), 0};
  }

  auto set_common_attrs = [&](tensorflow::NodeDef* def) {
    auto& attrs = *def->mutable_attr();
    attrs["tensor_name"] = StringAttrValue(absl::StrCat("edge_", edge.id, "_", src.name()));
    attrs["send_device"] = StringAttrValue(src.assigned_device());
    const uint64_t incarnation =
        options_.get_incarnation ? options_.get_incarnation(src.assigned_device()) : 0;
    attrs["send_device_incarnation"] = IntAttrValue(static_cast<int64_t>(incarnation));
    attrs["recv_device"] = StringAttrValue(dst.assigned_device());
    attrs["client_terminated"] = BoolAttrValue(false);
    attrs["_src"] = StringAttrValue(src.name());
    attrs["_dst"] = StringAttrValue(dst.name());
  };

  const NodeMemory& src_memory = memory_[src.id()];
  const bool send_on_host =
      !control && !src_memory.host_device && src_memory.output_on_host[edge.src_output];
  tensorflow::NodeDef* send = src_graph.add_node();
  send->set_name(graph_->NewName(src.name()));
  send->set_op(send_on_host ? "_HostSend" : "_Send");
  send->set_device(src.assigned_device());
  AddInput(send, send_from.node, send_from.index);
  (*send->mutable_attr())["T"] = TypeAttrValue(dtype);
  set_common_attrs(send);

  const NodeMemory& dst_memory = memory_[dst.id()];
  const bool recv_on_host =
      !control && !dst_memory.host_device && dst_memory.input_on_host[edge.dst_input];
  tensorflow::NodeDef* recv = dst_graph.add_node();
  recv->set_name(graph_->NewName(src.name()));
  recv->set_op(recv_on_host ? "_HostRecv" : "_Recv");
  recv->set_device(dst.assigned_device());
  (*recv->mutable_attr())["tensor_type"] = TypeAttrValue(dtype);
  set_common_attrs(recv);

  if (same_location) {
    // A same-device pair: the Recv must not be scheduled before its Send has its value.
    AddInput(recv, send->name(), kControlSlot);
  } else {
    // Inside a loop the Recv runs once per iteration, driven by its device's control loop.
    const int frame = info_.node_frame[dst.id()];
    if (frame > 0 && src.assigned_device() != dst.assigned_device()) {
      auto merge = merges_.find({frame, dst.assigned_device()});
      if (merge == merges_.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "no control loop for frame '", info_.frames[frame].name, "' on '",
            dst.assigned_device(), "', needed by the Recv for edge '", src.name(), "' -> '",
            dst.name(), "' (control_flow_added is set, but the graph has no such loop)"));
      }
      AddInput(recv, merge->second->name(), kControlSlot);
    }
  }
  if (!control) return recv->name();

  // The consumers of a control edge wait on an Identity of the received dummy.
  tensorflow::NodeDef* identity = dst_graph.add_node();
  identity->set_name(graph_->NewName(src.name()));
  identity->set_op("Identity");
  identity->set_device(dst.assigned_device());
  AddInput(identity, recv->name(), 0);
  (*identity->mutable_attr())["T"] = TypeAttrValue(TSR_DTYPE_FLOAT);
  return identity->name();
}

}  // namespace

absl::Status Partition(const PartitionOptions& options, Graph* graph,
                       std::map<std::string, tensorflow::GraphDef>* partitions) {
  return Partitioner(options, graph, partitions).Run();
}

}  // namespace tessera
