// The variable wrappers: each checks its inputs' kinds (ref, resource, value) and adds one node.
#include "host/client/state_ops.h"

#include "absl/strings/str_cat.h"
#include "host/client/math_ops.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

// `input` must be a ref edge (a Variable's output, or an op that forwards one).
Output RefInput(const Scope& scope, OpBuilder& builder, const Input& input) {
  Output out = AsNodeOut(scope, input);
  if (out.valid() && !out.is_ref()) {
    builder.SetError(absl::StrCat("input '", out.name(), "' of ", builder.node_name(),
                                  " must be a ref variable, got ", DataTypeString(out.type())));
  }
  return out;
}

Output ResourceInput(const Scope& scope, OpBuilder& builder, const Input& input) {
  Output out = AsNodeOut(scope, input);
  builder.CheckType("resource", out, {TSR_DTYPE_RESOURCE});
  return out;
}

Operation RefUpdate(const Scope& scope, const char* op, const Input& ref, const Input& value,
                    const VariableAttrs* attrs, bool use_locking) {
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  Output r = RefInput(scope, builder, ref);
  Output v = AsNodeOut(scope, value);
  if (!scope.ok()) return Operation();
  const DataType t = builder.CommonType("T", {r, v});
  builder.Input(r).Input(v).AttrType("T", t).AttrBool("use_locking", use_locking);
  if (attrs != nullptr) builder.AttrBool("validate_shape", attrs->validate_shape_);
  return builder.Finalize({MakeRefType(t)});
}

Operation ResourceUpdate(const Scope& scope, const char* op, const Input& resource,
                         const Input& value) {
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  Output r = ResourceInput(scope, builder, resource);
  Output v = AsNodeOut(scope, value);
  if (!scope.ok()) return Operation();
  builder.Input(r).Input(v).AttrType("dtype", v.type());
  return builder.Finalize({});
}

}  // namespace

Variable::Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                   const VariableAttrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "VariableV2", "Variable");
  builder.AttrShape("shape", shape)
      .AttrType("dtype", dtype)
      .AttrString("container", attrs.container_)
      .AttrString("shared_name", attrs.shared_name_);
  operation = builder.Finalize({MakeRefType(dtype)});
  ref = internal::FirstOutput(operation);
}

Assign::Assign(const Scope& scope, Input ref, Input value, const VariableAttrs& attrs)
    : operation(RefUpdate(scope, "Assign", ref, value, &attrs, attrs.use_locking_)),
      output_ref(internal::FirstOutput(operation)) {}

AssignAdd::AssignAdd(const Scope& scope, Input ref, Input value, bool use_locking)
    : operation(RefUpdate(scope, "AssignAdd", ref, value, nullptr, use_locking)),
      output_ref(internal::FirstOutput(operation)) {}

AssignSub::AssignSub(const Scope& scope, Input ref, Input value, bool use_locking)
    : operation(RefUpdate(scope, "AssignSub", ref, value, nullptr, use_locking)),
      output_ref(internal::FirstOutput(operation)) {}

IsVariableInitialized::IsVariableInitialized(const Scope& scope, Input ref) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "IsVariableInitialized");
  Output r = RefInput(scope, builder, ref);
  if (!scope.ok()) return;
  builder.Input(r).AttrType("dtype", r.type());
  operation = builder.Finalize({TSR_DTYPE_BOOL});
  is_initialized = internal::FirstOutput(operation);
}

VarHandleOp::VarHandleOp(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
                         const VariableAttrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "VarHandleOp");
  builder.AttrType("dtype", dtype)
      .AttrShape("shape", shape)
      .AttrString("container", attrs.container_)
      .AttrString("shared_name", attrs.shared_name_);
  operation = builder.Finalize({TSR_DTYPE_RESOURCE});
  resource = internal::FirstOutput(operation);
}

ReadVariableOp::ReadVariableOp(const Scope& scope, Input resource, DataType dtype) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ReadVariableOp");
  Output r = ResourceInput(scope, builder, resource);
  if (!scope.ok()) return;
  builder.Input(r).AttrType("dtype", dtype);
  operation = builder.Finalize({dtype});
  value = internal::FirstOutput(operation);
}

AssignVariableOp::AssignVariableOp(const Scope& scope, Input resource, Input value,
                                   bool validate_shape) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "AssignVariableOp");
  Output r = ResourceInput(scope, builder, resource);
  Output v = AsNodeOut(scope, value);
  if (!scope.ok()) return;
  builder.Input(r).Input(v).AttrType("dtype", v.type()).AttrBool("validate_shape", validate_shape);
  operation = builder.Finalize({});
}

AssignAddVariableOp::AssignAddVariableOp(const Scope& scope, Input resource, Input value)
    : operation(ResourceUpdate(scope, "AssignAddVariableOp", resource, value)) {}

AssignSubVariableOp::AssignSubVariableOp(const Scope& scope, Input resource, Input value)
    : operation(ResourceUpdate(scope, "AssignSubVariableOp", resource, value)) {}

VarIsInitializedOp::VarIsInitializedOp(const Scope& scope, Input resource) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "VarIsInitializedOp");
  Output r = ResourceInput(scope, builder, resource);
  if (!scope.ok()) return;
  builder.Input(r);
  operation = builder.Finalize({TSR_DTYPE_BOOL});
  is_initialized = internal::FirstOutput(operation);
}

namespace {

Operation ScatterOp(const Scope& scope, const char* op, const Input& ref, const Input& indices,
                    const Input& updates, bool use_locking) {
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op);
  Output r = RefInput(scope, builder, ref);
  Output i = AsNodeOut(scope, indices);
  Output u = AsNodeOut(scope, updates);
  if (!scope.ok()) return Operation();
  builder.CheckType("Tindices", i, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  const DataType t = builder.CommonType("T", {r, u});
  builder.Input(r)
      .Input(i)
      .Input(u)
      .AttrType("T", t)
      .AttrType("Tindices", i.type())
      .AttrBool("use_locking", use_locking);
  return builder.Finalize({MakeRefType(t)});
}

}  // namespace

ScatterUpdate::ScatterUpdate(const Scope& scope, Input ref, Input indices, Input updates,
                             bool use_locking)
    : operation(ScatterOp(scope, "ScatterUpdate", ref, indices, updates, use_locking)),
      output_ref(internal::FirstOutput(operation)) {}

ScatterArithmetic::ScatterArithmetic(const Scope& scope, const char* op, const Input& ref,
                                     const Input& indices, const Input& updates, bool use_locking)
    : operation(ScatterOp(scope, op, ref, indices, updates, use_locking)),
      output_ref(internal::FirstOutput(operation)) {}

ResourceScatter::ResourceScatter(const Scope& scope, const std::string& op, Input resource,
                                 Input indices, Input updates) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ResourceScatter" + op);
  Output r = ResourceInput(scope, builder, resource);
  Output i = AsNodeOut(scope, indices);
  Output u = AsNodeOut(scope, updates);
  if (!scope.ok()) return;
  builder.CheckType("Tindices", i, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(r).Input(i).Input(u).AttrType("dtype", u.type()).AttrType("Tindices", i.type());
  operation = builder.Finalize({});
}

ResourceGather::ResourceGather(const Scope& scope, Input resource, Input indices, DataType dtype) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "ResourceGather");
  Output r = ResourceInput(scope, builder, resource);
  Output i = AsNodeOut(scope, indices);
  if (!scope.ok()) return;
  builder.CheckType("Tindices", i, {TSR_DTYPE_INT32, TSR_DTYPE_INT64});
  builder.Input(r)
      .Input(i)
      .AttrType("dtype", dtype)
      .AttrType("Tindices", i.type())
      .AttrInt("batch_dims", 0)
      .AttrBool("validate_indices", true);
  operation = builder.Finalize({dtype});
  output = internal::FirstOutput(operation);
}

}  // namespace ops
}  // namespace tessera
