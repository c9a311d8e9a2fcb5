// Placer: assigns every node of a graph to a device with TensorFlow's rules: existing assignments
// are kept; requested (partial) device specs are honoured; nodes joined by reference or resource
// edges, or sharing a `_class: loc:@x` group, go to one device; only devices whose type has a
// kernel for every node of a group qualify; among those, the highest device-type priority wins,
// then the device name. A resource handle's requested device is kept by its group even under soft
// placement. Generators follow their consumers; Shape, Size and Rank follow their input.
#ifndef TESSERA_HOST_PLACER_PLACER_H_
#define TESSERA_HOST_PLACER_PLACER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {

class Device;
class Graph;
class KernelFactory;

struct PlacerOptions {
  // When a request cannot be met, drop its device type and id (keeping job, replica and task) and
  // retry, first keeping the device of a resource the group uses. Conflicting types or ids inside
  // a colocation group then drop the type or id instead of failing, and a `_class` colocation
  // that still cannot be honoured is ignored; reference and resource edges always hold.
  bool allow_soft_placement = false;
  // Print "node (op): device" for every node to stderr.
  bool log_device_placement = false;
  // Among devices of equal type priority, those whose name starts with this prefix come first
  // (the master's task "/job:worker/replica:0/task:0": nodes without a request run there, as in
  // TensorFlow's distributed master). Empty: names decide.
  std::string preferred_task;
};

// Sets the assigned device of every op node of `graph` (loops included: NextIteration back edges
// are not waited for). Errors are INVALID_ARGUMENT and name the node, its op, its request, its
// colocation group and the device types that have a kernel for it; FAILED_PRECONDITION when
// `devices` is empty. A node that already has an assigned device keeps it (it must be one of
// `devices`, of a type with a kernel for the node) and pins its colocation group there.
absl::Status PlaceGraph(Graph* graph, const std::vector<Device*>& devices,
                        const KernelFactory& kernels, const PlacerOptions& options);

}  // namespace tessera

#endif  // TESSERA_HOST_PLACER_PLACER_H_
