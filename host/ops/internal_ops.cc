// Ops the runtime itself inserts or schedules specially: NoOp, _Arg/_Retval (function and
// callable arguments), _Send/_Recv and their host-memory twins (partitioning), and the control
// flow primitives Switch/Merge/Enter/Exit/NextIteration/LoopCond/ControlTrigger.
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/common_shape_fns.h"
#include "host/ops/standard_ops.h"

namespace tessera {
namespace {

constexpr DataType kBool = TSR_DTYPE_BOOL;
constexpr DataType kInt32 = TSR_DTYPE_INT32;

absl::Status NoOutputs(ShapeInferenceContext& ctx) { return absl::OkStatus(); }

OpDefBuilder Send(const char* name) {
  OpDefBuilder builder(name);
  builder.Input("tensor", "T")
      .TypeAttr("T")
      .StringAttr("tensor_name")
      .StringAttr("send_device")
      .IntAttr("send_device_incarnation")
      .StringAttr("recv_device")
      .BoolAttr("client_terminated", false)
      .SetIsStateful()
      .SetIsDistributedCommunication()
      .SetShapeFn(NoOutputs);
  return builder;
}

OpDefBuilder Recv(const char* name) {
  OpDefBuilder builder(name);
  builder.Output("tensor", "tensor_type")
      .TypeAttr("tensor_type")
      .StringAttr("tensor_name")
      .StringAttr("send_device")
      .IntAttr("send_device_incarnation")
      .StringAttr("recv_device")
      .BoolAttr("client_terminated", false)
      .SetIsStateful()
      .SetIsDistributedCommunication()
      .SetShapeFn(UnknownShape);
  return builder;
}

absl::Status SwitchShape(ShapeInferenceContext& ctx) {
  RETURN_IF_ERROR(ctx.WithRank(1, 0).status());
  ctx.set_output(0, ctx.input(0));
  ctx.set_output(1, ctx.input(0));
  return absl::OkStatus();
}

// Merge's output is any one of its inputs: the most specific shape they all fit.
absl::Status MergeShape(ShapeInferenceContext& ctx) {
  PartialShape out = ctx.input(0);
  for (int i = 1; i < ctx.num_inputs() && out.rank_known(); ++i) {
    const PartialShape& in = ctx.input(i);
    if (!in.rank_known() || in.rank() != out.rank()) {
      out = PartialShape::Unknown();
      break;
    }
    for (int d = 0; d < out.rank(); ++d) {
      if (out.dim(d) != in.dim(d)) out.set_dim(d, kUnknownDim);
    }
  }
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status LoopCondShape(ShapeInferenceContext& ctx) {
  PartialShape out;
  ASSIGN_OR_RETURN(out, ctx.WithRank(0, 0));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterInternalOps(OpRegistry* registry) {
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("NoOp").SetShapeFn(NoOutputs)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("_Arg")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .IntAttr("index", std::nullopt, 0)
                                           .SetIsStateful()
                                           .SetShapeFn(UnknownShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("_Retval")
                                           .Input("input", "T")
                                           .TypeAttr("T")
                                           .IntAttr("index", std::nullopt, 0)
                                           .SetIsStateful()
                                           .SetShapeFn(NoOutputs)));
  RETURN_IF_ERROR(RegisterOp(registry, Send("_Send")));
  RETURN_IF_ERROR(RegisterOp(registry, Recv("_Recv")));
  RETURN_IF_ERROR(RegisterOp(registry, Send("_HostSend")));
  RETURN_IF_ERROR(RegisterOp(registry, Recv("_HostRecv")));

  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Switch")
                                           .Input("data", "T")
                                           .Input("pred", kBool)
                                           .Output("output_false", "T")
                                           .Output("output_true", "T")
                                           .TypeAttr("T")
                                           .SetShapeFn(SwitchShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Merge")
                                           .InputList("inputs", "N", "T")
                                           .Output("output", "T")
                                           .Output("value_index", kInt32)
                                           .TypeAttr("T")
                                           .IntAttr("N", std::nullopt, 1)
                                           .SetShapeFn(MergeShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Enter")
                                           .Input("data", "T")
                                           .Output("output", "T")
                                           .TypeAttr("T")
                                           .StringAttr("frame_name")
                                           .BoolAttr("is_constant", false)
                                           .IntAttr("parallel_iterations", 10)
                                           .SetShapeFn(UnchangedShape)));
  for (const char* name : {"Exit", "NextIteration"}) {
    RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder(name)
                                             .Input("data", "T")
                                             .Output("output", "T")
                                             .TypeAttr("T")
                                             .SetShapeFn(UnchangedShape)));
  }
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("LoopCond")
                                           .Input("input", kBool)
                                           .Output("output", kBool)
                                           .SetShapeFn(LoopCondShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("ControlTrigger").SetShapeFn(NoOutputs)));
  // The ref forms TensorFlow 1 writes where control flow passes a ref variable on (a tf.cond or
  // tf.while_loop reading a Variable): the same kernels, moving the variable instead of a value.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("RefSwitch")
                                           .RefInput("data", "T")
                                           .Input("pred", kBool)
                                           .RefOutput("output_false", "T")
                                           .RefOutput("output_true", "T")
                                           .TypeAttr("T")
                                           .SetAllowsUninitializedInput()
                                           .SetShapeFn(SwitchShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("RefEnter")
                                           .RefInput("data", "T")
                                           .RefOutput("output", "T")
                                           .TypeAttr("T")
                                           .StringAttr("frame_name")
                                           .BoolAttr("is_constant", false)
                                           .IntAttr("parallel_iterations", 10)
                                           .SetShapeFn(UnchangedShape)));
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("RefIdentity")
                                           .RefInput("input", "T")
                                           .RefOutput("output", "T")
                                           .TypeAttr("T")
                                           .SetAllowsUninitializedInput()
                                           .SetShapeFn(UnchangedShape)));
  // Assert: fails the step with the summarized data when the condition is false.
  RETURN_IF_ERROR(RegisterOp(registry, OpDefBuilder("Assert")
                                           .Input("condition", kBool)
                                           .InputTypeList("data", "T")
                                           .TypeListAttr("T", {}, 1)
                                           .IntAttr("summarize", 3)
                                           .SetIsStateful()
                                           .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace tessera
