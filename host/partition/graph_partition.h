// Partition: splits a placed graph into one GraphDef per device, joining the pieces with
// _Send/_Recv pairs and giving every device that takes part in a loop its own control loop
// (TensorFlow's graph_partition.cc).
#ifndef TESSERA_HOST_PARTITION_GRAPH_PARTITION_H_
#define TESSERA_HOST_PARTITION_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/framework/proto/graph.pb.h"
#include "host/graph/graph.h"
#include "host/partition/memory_types.h"

namespace tessera {

struct PartitionOptions {
  // Partition key (location) of a node; by default node.assigned_device(). The master may key by
  // task instead; edges between two devices of one location then stay plain edges.
  std::function<std::string(const Node&)> node_to_loc;
  // Incarnation of a device, written into send_device_incarnation. Null: 0 for every device.
  std::function<uint64_t(const std::string& device)> get_incarnation;
  // Memory types of a node's inputs and outputs on its device. Null: every argument in device
  // memory. Not called for nodes on host-memory devices, where everything is host memory.
  std::function<absl::StatusOr<MemoryTypes>(const Node&)> memory_types;
  // Whether `device` (a full device name) is a host-memory device (the CPU kind): on such a
  // device an edge never needs a same-device Send/Recv and Send/Recv are never the _Host kind.
  // Null: none is.
  std::function<bool(const std::string& device)> is_host_memory_device;
  // Set when `graph` already has its control loops (it is a piece of an earlier Partition, as
  // when a worker re-partitions by device what the master cut by task): no control loops are
  // added, and new Recvs inside a loop hang off the existing control-loop Merge nodes.
  bool control_flow_added = false;
  // TensorFlow's control-flow colocation tweak, applied before the control loops: a Switch moves
  // to the device of its data input, an Exit to that of its input, an Enter or NextIteration to
  // that of its first data consumer. Off by default: it overrides the placer's choice and may
  // move a node to a device without a kernel for it.
  bool optimize_control_flow_colocation = false;
};

// Partitions the placed graph `graph` into one GraphDef per location (keyed by node_to_loc).
// First adds TensorFlow's per-device control loops for every loop frame that spans devices
// (which modifies `graph`), then splits every cross-location edge with a _Send/_Recv pair.
// Every NodeDef in the output has `device` set to its assigned device; original nodes keep their
// names and attrs; inputs are ordered data inputs first, then "^control" inputs.
//
// Errors: INVALID_ARGUMENT for an unplaced node, an empty location, an unconnected data input,
// a loop frame spanning devices without a LoopCond, and the frame errors of
// BuildControlFlowInfo; the memory_types callback's own error with the node as context, or
// INTERNAL when its lists have the wrong lengths; FAILED_PRECONDITION when control_flow_added is
// set but a device in a loop has no control loop.
absl::Status Partition(const PartitionOptions& options, Graph* graph,
                       std::map<std::string, tensorflow::GraphDef>* partitions);

}  // namespace tessera

#endif  // TESSERA_HOST_PARTITION_GRAPH_PARTITION_H_
