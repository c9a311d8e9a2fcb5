// The host side of TSR_OpDefBuilder: op definitions built by calls and checked as they are built.
#ifndef TESSERA_REGISTRY_ABI_OP_DEF_BUILDER_H_
#define TESSERA_REGISTRY_ABI_OP_DEF_BUILDER_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

// The host's definition of the ABI's opaque builder.
struct TSR_OpDefBuilder {
  tessera::OpSpec spec;
  absl::Status error;  // the first error of any call; registering the builder then fails
};

namespace tessera {

// The OpDefBuilder_* slots of TSR_HostApi. Each failing call returns its error and also keeps
// it in the builder, so an op whose plugin ignored an error still fails to register.
TSR_OpDefBuilder* OpDefBuilderCreate(const char* op_name);
void OpDefBuilderDestroy(TSR_OpDefBuilder* builder);
TSR_Status* OpDefBuilderAddInput(TSR_OpDefBuilder* builder, const TSR_OpArg* arg);
TSR_Status* OpDefBuilderAddOutput(TSR_OpDefBuilder* builder, const TSR_OpArg* arg);
TSR_Status* OpDefBuilderAddAttr(TSR_OpDefBuilder* builder, const TSR_OpAttr* attr);
void OpDefBuilderSetFlags(TSR_OpDefBuilder* builder, uint32_t flags);
void OpDefBuilderSetShapeFn(TSR_OpDefBuilder* builder, TSR_ShapeFn fn, void* user_data);

// Consumes `builder` (also on failure) and returns its op after the checks that need the whole
// definition: the op name, and that every type_attr / number_attr / type_list_attr names an
// attribute of type `type` / `int` / `list(type)`.
absl::StatusOr<OpSpec> FinishOpDef(TSR_OpDefBuilder* builder);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_ABI_OP_DEF_BUILDER_H_
