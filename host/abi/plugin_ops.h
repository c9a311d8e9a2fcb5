// Plugin-defined ops: OpSpecs from the plugin registry become OpRegistrations whose shape
// function calls the plugin's C callback, and the host side of the ABI's shape context.
#ifndef TESSERA_HOST_ABI_PLUGIN_OPS_H_
#define TESSERA_HOST_ABI_PLUGIN_OPS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/ops/op_registry.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// The OpDef a plugin's spec describes. INVALID_ARGUMENT for an attr of unspecified type or a
// default the spec cannot express; ValidateOpDef runs at registration.
absl::StatusOr<tensorflow::OpDef> OpDefFromSpec(const OpSpec& spec);

// Registers every spec with origin "plugin '<name>'". A spec's C shape function is called with a
// TSR_ShapeContext over the node's ShapeInferenceContext; its TSR_Status (created and destroyed
// through `host`) becomes the error "shape function of op 'X' from plugin 'p': <message>".
// Registers as many specs as it can and returns the first failure (e.g. ALREADY_EXISTS when a
// plugin redefines a standard op). `host` must outlive `registry`.
absl::Status RegisterPluginOps(const std::vector<OpSpec>& specs, const TSR_HostApi& host,
                               OpRegistry* registry);

// Sets the ShapeContext_* slots of `table` to the functions that serve RegisterPluginOps'
// contexts. Errors they return are created with the Status_Create of the table the shape
// function was registered with.
void FillShapeContextSlots(TSR_HostApi* table);

}  // namespace tessera

#endif  // TESSERA_HOST_ABI_PLUGIN_OPS_H_
