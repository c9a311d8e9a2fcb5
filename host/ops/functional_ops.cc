// TensorFlow's function-call ops, PartitionedCall and StatefulPartitionedCall. Graph import
// inlines every call (host/graph/function_inline.h), so they have no kernels: the definitions
// give the calls' attrs, defaults and validation.
#include "base/status_macros.h"
#include "host/ops/standard_ops.h"

namespace tessera {

absl::Status RegisterFunctionalOps(OpRegistry* registry) {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    tensorflow::OpDef::AttrDef f;
    f.set_name("f");
    f.set_type("func");
    OpDefBuilder builder(op);
    builder.InputTypeList("args", "Tin")
        .OutputTypeList("output", "Tout")
        .TypeListAttr("Tin", {}, 0)
        .TypeListAttr("Tout", {}, 0)
        .Attr(f)
        .StringAttr("config", "")
        .StringAttr("config_proto", "")
        .StringAttr("executor_type", "");
    if (std::string(op) == "StatefulPartitionedCall") builder.SetIsStateful();
    RETURN_IF_ERROR(RegisterOp(registry, builder));
  }
  return absl::OkStatus();
}

}  // namespace tessera
