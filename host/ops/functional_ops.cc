// TensorFlow's function-call ops (PartitionedCall, StatefulPartitionedCall) and functional control
// flow (If, StatelessIf, Case, StatelessCase, While, StatelessWhile). Graph import inlines every
// call and lowers every If, Case and While to v1 control flow (host/graph/function_inline.h,
// functional_lowering.h), so they have no kernels: the definitions give their attrs, defaults and
// validation.
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
  auto func_attr = [](const char* name) {
    tensorflow::OpDef::AttrDef attr;
    attr.set_name(name);
    attr.set_type("func");
    return attr;
  };
  tensorflow::OpDef::AttrDef output_shapes;
  output_shapes.set_name("output_shapes");
  output_shapes.set_type("list(shape)");
  output_shapes.mutable_default_value()->mutable_list();
  for (const char* op : {"If", "StatelessIf"}) {
    OpDefBuilder builder(op);
    builder.Input("cond", "Tcond")
        .InputTypeList("input", "Tin")
        .OutputTypeList("output", "Tout")
        .TypeAttr("Tcond")
        .TypeListAttr("Tin", {}, 0)
        .TypeListAttr("Tout", {}, 0)
        .Attr(func_attr("then_branch"))
        .Attr(func_attr("else_branch"))
        .Attr(output_shapes);
    if (std::string(op) == "If") builder.SetIsStateful();
    RETURN_IF_ERROR(RegisterOp(registry, builder));
  }
  for (const char* op : {"Case", "StatelessCase"}) {
    tensorflow::OpDef::AttrDef branches;
    branches.set_name("branches");
    branches.set_type("list(func)");
    branches.set_has_minimum(true);
    branches.set_minimum(1);
    OpDefBuilder builder(op);
    builder.Input("branch_index", TSR_DTYPE_INT32)
        .InputTypeList("input", "Tin")
        .OutputTypeList("output", "Tout")
        .TypeListAttr("Tin", {}, 0)
        .TypeListAttr("Tout", {}, 0)
        .Attr(branches)
        .Attr(output_shapes);
    if (std::string(op) == "Case") builder.SetIsStateful();
    RETURN_IF_ERROR(RegisterOp(registry, builder));
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    OpDefBuilder builder(op);
    builder.InputTypeList("input", "T")
        .OutputTypeList("output", "T")
        .TypeListAttr("T", {}, 0)
        .Attr(func_attr("cond"))
        .Attr(func_attr("body"))
        .Attr(output_shapes)
        .IntAttr("parallel_iterations", 10);
    if (std::string(op) == "While") builder.SetIsStateful();
    RETURN_IF_ERROR(RegisterOp(registry, builder));
  }
  return absl::OkStatus();
}

}  // namespace tessera
