// Kernels the host implements for variables on every device: VariableV2, Assign and
// IsVariableInitialized (ref variables), VarHandleOp, ReadVariableOp, AssignVariableOp and
// VarIsInitializedOp (resource variables). They only move buffers between a node and the
// session's ResourceManager; updates that compute (AssignAdd, Apply*) are plugin kernels, which
// see the variable as storage through VariableAccessKernel.
#ifndef TESSERA_HOST_KERNELS_STATE_KERNELS_H_
#define TESSERA_HOST_KERNELS_STATE_KERNELS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Device;
class Node;
class ResourceManager;

bool IsStateKernelOp(absl::string_view op);

// `resources` holds the session's variables; FAILED_PRECONDITION when it is null (an executor
// built without a session).
absl::StatusOr<std::unique_ptr<OpKernel>> CreateStateKernel(const Node& node, Device* device,
                                                            ResourceManager* resources);

// The initialization flags (IsVariableInitialized, VarIsInitializedOp) are host-memory bools.
void StateKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                            std::vector<bool>* outputs_on_host);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_STATE_KERNELS_H_
