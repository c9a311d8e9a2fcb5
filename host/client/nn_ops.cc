// The BiasAdd wrapper (the other neural-network ops are header-only unary ops).
#include "host/client/nn_ops.h"

#include "absl/strings/str_cat.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {

BiasAdd::BiasAdd(const Scope& scope, Input value, Input bias)
    : BiasAdd(scope, value, bias, Attrs()) {}

BiasAdd::BiasAdd(const Scope& scope, Input value, Input bias, const Attrs& attrs) {
  if (!scope.ok()) return;
  Output v = AsNodeOut(scope, value);
  Output b = AsNodeOut(scope, bias);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "BiasAdd");
  if (attrs.data_format_ != "NHWC" && attrs.data_format_ != "NCHW") {
    builder.SetError(absl::StrCat("attr 'data_format' must be \"NHWC\" or \"NCHW\", got \"",
                                  attrs.data_format_, "\""));
  }
  DataType t = builder.CommonType("T", {v, b});
  builder.Input(v).Input(b).AttrType("T", t).AttrString("data_format", attrs.data_format_);
  operation = builder.Finalize({t});
  output = internal::FirstOutput(operation);
}

}  // namespace ops
}  // namespace tessera
