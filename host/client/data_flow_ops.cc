// The TensorArray and Stack wrappers: each checks its inputs' types and adds one node.
#include "host/client/data_flow_ops.h"

#include <utility>

#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

Output NthOutput(const Operation& op, int i) { return op.valid() ? op.output(i) : Output(); }

Output Typed(const Scope& scope, OpBuilder& builder, const Input& input, const char* attr,
             DataType type) {
  Output out = AsNodeOut(scope, input);
  if (out.valid()) builder.CheckType(attr, out, {type});
  return out;
}

Output Handle(const Scope& scope, OpBuilder& builder, const Input& input) {
  return Typed(scope, builder, input, "handle", TSR_DTYPE_RESOURCE);
}

Output Flow(const Scope& scope, OpBuilder& builder, const Input& input) {
  return Typed(scope, builder, input, "flow_in", TSR_DTYPE_FLOAT);
}

}  // namespace

TensorArray::TensorArray(const Scope& scope, Input size, DataType dtype)
    : TensorArray(scope, std::move(size), dtype, Attrs()) {}

TensorArray::TensorArray(const Scope& scope, Input size, DataType dtype, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayV3", "TensorArray");
  Output s = Typed(scope, builder, size, "size", TSR_DTYPE_INT32);
  if (!scope.ok()) return;
  builder.Input(s)
      .AttrType("dtype", dtype)
      .AttrShape("element_shape", attrs.element_shape_)
      .AttrBool("dynamic_size", attrs.dynamic_size_)
      .AttrBool("clear_after_read", attrs.clear_after_read_)
      .AttrBool("identical_element_shapes", attrs.identical_element_shapes_)
      .AttrString("tensor_array_name", attrs.tensor_array_name_);
  operation = builder.Finalize({TSR_DTYPE_RESOURCE, TSR_DTYPE_FLOAT});
  handle = NthOutput(operation, 0);
  flow = NthOutput(operation, 1);
}

TensorArrayGrad::TensorArrayGrad(const Scope& scope, Input handle, Input flow_in,
                                 const std::string& source) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayGradV3", "TensorArrayGrad");
  Output h = Handle(scope, builder, handle);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(f).AttrString("source", source);
  operation = builder.Finalize({TSR_DTYPE_RESOURCE, TSR_DTYPE_FLOAT});
  grad_handle = NthOutput(operation, 0);
  flow_out = NthOutput(operation, 1);
}

TensorArrayGradWithShape::TensorArrayGradWithShape(const Scope& scope, Input handle, Input flow_in,
                                                   Input shape_to_prepend,
                                                   const std::string& source) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayGradWithShape");
  Output h = Handle(scope, builder, handle);
  Output f = Flow(scope, builder, flow_in);
  Output s = Typed(scope, builder, shape_to_prepend, "shape_to_prepend", TSR_DTYPE_INT32);
  if (!scope.ok()) return;
  builder.Input(h).Input(f).Input(s).AttrString("source", source);
  operation = builder.Finalize({TSR_DTYPE_RESOURCE, TSR_DTYPE_FLOAT});
  grad_handle = NthOutput(operation, 0);
  flow_out = NthOutput(operation, 1);
}

TensorArrayWrite::TensorArrayWrite(const Scope& scope, Input handle, Input index, Input value,
                                   Input flow_in) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayWriteV3", "TensorArrayWrite");
  Output h = Handle(scope, builder, handle);
  Output i = Typed(scope, builder, index, "index", TSR_DTYPE_INT32);
  Output v = AsNodeOut(scope, value);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(i).Input(v).Input(f).AttrType("T", v.type());
  operation = builder.Finalize({TSR_DTYPE_FLOAT});
  flow_out = NthOutput(operation, 0);
}

TensorArrayRead::TensorArrayRead(const Scope& scope, Input handle, Input index, Input flow_in,
                                 DataType dtype) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayReadV3", "TensorArrayRead");
  Output h = Handle(scope, builder, handle);
  Output i = Typed(scope, builder, index, "index", TSR_DTYPE_INT32);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(i).Input(f).AttrType("dtype", dtype);
  operation = builder.Finalize({dtype});
  value = NthOutput(operation, 0);
}

TensorArrayGather::TensorArrayGather(const Scope& scope, Input handle, Input indices, Input flow_in,
                                     DataType dtype)
    : TensorArrayGather(scope, std::move(handle), std::move(indices), std::move(flow_in), dtype,
                        Attrs()) {}

TensorArrayGather::TensorArrayGather(const Scope& scope, Input handle, Input indices, Input flow_in,
                                     DataType dtype, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayGatherV3", "TensorArrayGather");
  Output h = Handle(scope, builder, handle);
  Output i = Typed(scope, builder, indices, "indices", TSR_DTYPE_INT32);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h)
      .Input(i)
      .Input(f)
      .AttrType("dtype", dtype)
      .AttrShape("element_shape", attrs.element_shape_);
  operation = builder.Finalize({dtype});
  value = NthOutput(operation, 0);
}

TensorArrayScatter::TensorArrayScatter(const Scope& scope, Input handle, Input indices, Input value,
                                       Input flow_in) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayScatterV3", "TensorArrayScatter");
  Output h = Handle(scope, builder, handle);
  Output i = Typed(scope, builder, indices, "indices", TSR_DTYPE_INT32);
  Output v = AsNodeOut(scope, value);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(i).Input(v).Input(f).AttrType("T", v.type());
  operation = builder.Finalize({TSR_DTYPE_FLOAT});
  flow_out = NthOutput(operation, 0);
}

TensorArrayConcat::TensorArrayConcat(const Scope& scope, Input handle, Input flow_in,
                                     DataType dtype)
    : TensorArrayConcat(scope, std::move(handle), std::move(flow_in), dtype, Attrs()) {}

TensorArrayConcat::TensorArrayConcat(const Scope& scope, Input handle, Input flow_in,
                                     DataType dtype, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayConcatV3", "TensorArrayConcat");
  Output h = Handle(scope, builder, handle);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h)
      .Input(f)
      .AttrType("dtype", dtype)
      .AttrShape("element_shape_except0", attrs.element_shape_except0_);
  operation = builder.Finalize({dtype, TSR_DTYPE_INT64});
  value = NthOutput(operation, 0);
  lengths = NthOutput(operation, 1);
}

TensorArraySplit::TensorArraySplit(const Scope& scope, Input handle, Input value, Input lengths,
                                   Input flow_in) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArraySplitV3", "TensorArraySplit");
  Output h = Handle(scope, builder, handle);
  Output v = AsNodeOut(scope, value);
  Output l = Typed(scope, builder, lengths, "lengths", TSR_DTYPE_INT64);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(v).Input(l).Input(f).AttrType("T", v.type());
  operation = builder.Finalize({TSR_DTYPE_FLOAT});
  flow_out = NthOutput(operation, 0);
}

TensorArraySize::TensorArraySize(const Scope& scope, Input handle, Input flow_in) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArraySizeV3", "TensorArraySize");
  Output h = Handle(scope, builder, handle);
  Output f = Flow(scope, builder, flow_in);
  if (!scope.ok()) return;
  builder.Input(h).Input(f);
  operation = builder.Finalize({TSR_DTYPE_INT32});
  size = NthOutput(operation, 0);
}

TensorArrayClose::TensorArrayClose(const Scope& scope, Input handle) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "TensorArrayCloseV3", "TensorArrayClose");
  Output h = Handle(scope, builder, handle);
  if (!scope.ok()) return;
  builder.Input(h);
  operation = builder.Finalize({});
}

Stack::Stack(const Scope& scope, Input max_size, DataType elem_type)
    : Stack(scope, std::move(max_size), elem_type, Attrs()) {}

Stack::Stack(const Scope& scope, Input max_size, DataType elem_type, const Attrs& attrs) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "StackV2", "Stack");
  Output m = Typed(scope, builder, max_size, "max_size", TSR_DTYPE_INT32);
  if (!scope.ok()) return;
  builder.Input(m).AttrType("elem_type", elem_type).AttrString("stack_name", attrs.stack_name_);
  operation = builder.Finalize({TSR_DTYPE_RESOURCE});
  handle = NthOutput(operation, 0);
}

StackPush::StackPush(const Scope& scope, Input handle, Input elem, bool swap_memory) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "StackPushV2", "StackPush");
  Output h = Handle(scope, builder, handle);
  Output e = AsNodeOut(scope, elem);
  if (!scope.ok()) return;
  builder.Input(h).Input(e).AttrType("T", e.type()).AttrBool("swap_memory", swap_memory);
  operation = builder.Finalize({e.type()});
  output = NthOutput(operation, 0);
}

StackPop::StackPop(const Scope& scope, Input handle, DataType elem_type) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "StackPopV2", "StackPop");
  Output h = Handle(scope, builder, handle);
  if (!scope.ok()) return;
  builder.Input(h).AttrType("elem_type", elem_type);
  operation = builder.Finalize({elem_type});
  elem = NthOutput(operation, 0);
}

StackClose::StackClose(const Scope& scope, Input handle) {
  if (!scope.ok()) return;
  OpBuilder builder(scope, "StackCloseV2", "StackClose");
  Output h = Handle(scope, builder, handle);
  if (!scope.ok()) return;
  builder.Input(h);
  operation = builder.Finalize({});
}

}  // namespace ops
}  // namespace tessera
