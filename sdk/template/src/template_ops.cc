// TemplateScale's definition through the host's op builder: its input, output, attributes and
// shape function.
#include "template_ops.h"

#include "tessera/sdk/host_api.h"

namespace template_plugin {
namespace {

using tessera::sdk::HostApi;
using tessera::sdk::Status;

// y has x's shape (unknown dimensions stay unknown). Runs on the host's thread while a graph is
// imported; the context is valid only during the call.
TSR_Status* SameShapeAsInput(void* /*user_data*/, TSR_ShapeContext* ctx) {
  int32_t rank = 0;
  const int64_t* dims = nullptr;
  TSR_Status* status = HostApi()->ShapeContext_GetInputShape(ctx, 0, &rank, &dims);
  if (status != nullptr) return status;
  return HostApi()->ShapeContext_SetOutputShape(ctx, 0, rank, dims);
}

}  // namespace

Status RegisterOps(TSR_Registrar* registrar) {
  const TSR_HostApi* host = HostApi();
  TSR_OpDefBuilder* builder = host->OpDefBuilder_Create(kScaleOp);
  if (builder == nullptr) return tessera::sdk::Internal("OpDefBuilder_Create failed for ", kScaleOp);

  TSR_OpArg x{};
  x.struct_size = sizeof(TSR_OpArg);
  x.name = "x";
  x.dtype = TSR_DTYPE_INVALID;
  x.type_attr = "T";
  TSR_OpArg y = x;
  y.name = "y";

  static constexpr TSR_DataType kAllowed[] = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE};
  TSR_OpAttr t{};
  t.struct_size = sizeof(TSR_OpAttr);
  t.name = "T";
  t.type = TSR_ATTR_TYPE_TYPE;
  t.allowed_types = kAllowed;
  t.num_allowed_types = 2;

  TSR_AttrValue one{};
  one.struct_size = sizeof(TSR_AttrValue);
  one.type = TSR_ATTR_TYPE_FLOAT;
  one.f = 1.0f;
  TSR_OpAttr scale{};
  scale.struct_size = sizeof(TSR_OpAttr);
  scale.name = "scale";
  scale.type = TSR_ATTR_TYPE_FLOAT;
  scale.default_value = &one;  // copied by the host during the call

  Status status(host->OpDefBuilder_AddInput(builder, &x));
  if (status.ok()) status = Status(host->OpDefBuilder_AddOutput(builder, &y));
  if (status.ok()) status = Status(host->OpDefBuilder_AddAttr(builder, &t));
  if (status.ok()) status = Status(host->OpDefBuilder_AddAttr(builder, &scale));
  if (!status.ok()) {
    host->OpDefBuilder_Destroy(builder);  // a builder not registered is ours to destroy
    return status;
  }
  host->OpDefBuilder_SetShapeFn(builder, &SameShapeAsInput, nullptr);
  return Status(host->Registrar_RegisterOp(registrar, builder));
}

}  // namespace template_plugin
