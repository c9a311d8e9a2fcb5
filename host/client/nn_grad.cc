// Gradients of TensorFlow's neural-network ops, through TensorFlow's gradient ops where it has
// them (ReluGrad, BiasAddGrad, ...), and the cheap second-order gradients of those gradient ops.
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/grad_util.h"
#include "host/client/gradients.h"
#include "host/client/image_ops.h"
#include "host/client/math_ops.h"
#include "host/client/nn_ops.h"

namespace tessera {
namespace {

using grad_util::Node;
using grad_util::UnaryT;
using Grads = std::vector<Output>;

absl::Status ReluGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {UnaryT(s, "ReluGrad", {g[0], op.outputs[0]})};
  return absl::OkStatus();
}

absl::Status Relu6Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {UnaryT(s, "Relu6Grad", {g[0], op.inputs[0]})};
  return absl::OkStatus();
}

absl::Status BiasAddGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const std::string format = op.StringAttr("data_format", "NHWC");
  const DataType t = g[0].type();
  Output bias_grad =
      Node(s, "BiasAddGrad", {g[0]},
           [&](OpBuilder& b) { b.AttrType("T", t).AttrString("data_format", format); }, {t})[0];
  *out = {g[0], bias_grad};
  return absl::OkStatus();
}

// d softmax: (g - sum(g * y, last axis)) * y.
absl::Status SoftmaxGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& y = op.outputs[0];
  Output dot = ops::Sum(s, ops::Mul(s, g[0], y), grad_util::Scalar(s, -1, TSR_DTYPE_INT32),
                        ops::Sum::KeepDims(true));
  *out = {ops::Mul(s, ops::Sub(s, g[0], dot), y)};
  return absl::OkStatus();
}

// Copies the forward node's attrs named in `names` (those it has) onto a gradient node.
std::function<void(OpBuilder&)> CopyAttrs(const GradOp& op, std::vector<std::string> names) {
  return [&op, names](OpBuilder& b) {
    for (const std::string& name : names) {
      if (const tensorflow::AttrValue* value = op.attr(name); value != nullptr) {
        b.AttrProto(name, *value);
      }
    }
  };
}

// The loss's gradient scales each row of the saved backprop; labels get none (sparse) or
// -g * log_softmax(logits) (dense), as in TensorFlow.
absl::Status SparseSoftmaxCrossEntropyGrad(const Scope& s, const GradOp& op, const Grads& g,
                                           Grads* out) {
  Output scaled = ops::Mul(s, ops::ExpandDims(s, g[0], grad_util::Scalar(s, -1, TSR_DTYPE_INT32)),
                           op.outputs[1]);
  *out = {scaled, Output()};
  return absl::OkStatus();
}

absl::Status SoftmaxCrossEntropyGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  Output row_grad = ops::ExpandDims(s, g[0], grad_util::Scalar(s, -1, TSR_DTYPE_INT32));
  Output log_softmax = UnaryT(s, "LogSoftmax", {op.inputs[0]});
  *out = {ops::Mul(s, row_grad, op.outputs[1]), ops::Mul(s, row_grad, ops::Neg(s, log_softmax))};
  return absl::OkStatus();
}

// d log_softmax: g - exp(y) * sum(g, last axis).
absl::Status LogSoftmaxGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  Output total =
      ops::Sum(s, g[0], grad_util::Scalar(s, -1, TSR_DTYPE_INT32), ops::Sum::KeepDims(true));
  *out = {ops::Sub(s, g[0], ops::Mul(s, ops::Exp(s, op.outputs[0]), total))};
  return absl::OkStatus();
}

absl::Status L2LossGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::Mul(s, op.inputs[0], g[0])};
  return absl::OkStatus();
}

const std::vector<std::string>& PoolAttrs() {
  static const auto* names =
      new std::vector<std::string>{"T", "ksize", "strides", "padding", "data_format"};
  return *names;
}

absl::Status MaxPoolGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Node(s, "MaxPoolGrad", {op.inputs[0], op.outputs[0], g[0]}, CopyAttrs(op, PoolAttrs()),
               {g[0].type()})[0]};
  return absl::OkStatus();
}

absl::Status AvgPoolGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Node(s, "AvgPoolGrad", {ops::Shape(s, op.inputs[0]), g[0]}, CopyAttrs(op, PoolAttrs()),
               {g[0].type()})[0]};
  return absl::OkStatus();
}

// MaxPoolV2's gradient through MaxPoolGradV2 with the same ksize and strides tensors; the
// tensors themselves get none.
absl::Status MaxPoolV2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Node(s, "MaxPoolGradV2", {op.inputs[0], op.outputs[0], g[0], op.inputs[1], op.inputs[2]},
               CopyAttrs(op, {"T", "padding", "data_format"}), {g[0].type()})[0],
          Output(), Output()};
  return absl::OkStatus();
}

const std::vector<std::string>& Conv3DAttrs() {
  static const auto* names =
      new std::vector<std::string>{"T", "strides", "padding", "data_format", "dilations"};
  return *names;
}

// d input = Conv3DBackpropInputV2(shape(input), filter, g); d filter = Conv3DBackpropFilterV2(
// input, shape(filter), g).
absl::Status Conv3DGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& input = op.inputs[0];
  const Output& filter = op.inputs[1];
  const DataType t = g[0].type();
  auto input_attrs = [&op](OpBuilder& b) {
    CopyAttrs(op, Conv3DAttrs())(b);
    b.AttrType("Tshape", TSR_DTYPE_INT32);
  };
  *out = {
      Node(s, "Conv3DBackpropInputV2", {ops::Shape(s, input), filter, g[0]}, input_attrs, {t})[0],
      Node(s, "Conv3DBackpropFilterV2", {input, ops::Shape(s, filter), g[0]},
           CopyAttrs(op, Conv3DAttrs()), {t})[0]};
  return absl::OkStatus();
}

// The input gradient is linear in filter and out_backprop: d filter =
// Conv3DBackpropFilterV2(g, shape(filter), out_backprop), d out_backprop = Conv3D(g, filter).
absl::Status Conv3DBackpropInputV2Grad(const Scope& s, const GradOp& op, const Grads& g,
                                       Grads* out) {
  const Output& filter = op.inputs[1];
  const Output& dy = op.inputs[2];
  const DataType t = g[0].type();
  *out = {Output(),
          Node(s, "Conv3DBackpropFilterV2", {g[0], ops::Shape(s, filter), dy},
               CopyAttrs(op, Conv3DAttrs()), {t})[0],
          Node(s, "Conv3D", {g[0], filter}, CopyAttrs(op, Conv3DAttrs()), {t})[0]};
  return absl::OkStatus();
}

// d input = Conv3DBackpropInputV2(shape(input), g, out_backprop), d out_backprop =
// Conv3D(input, g).
absl::Status Conv3DBackpropFilterV2Grad(const Scope& s, const GradOp& op, const Grads& g,
                                        Grads* out) {
  const Output& input = op.inputs[0];
  const Output& dy = op.inputs[2];
  const DataType t = g[0].type();
  auto input_attrs = [&op](OpBuilder& b) {
    CopyAttrs(op, Conv3DAttrs())(b);
    b.AttrType("Tshape", TSR_DTYPE_INT32);
  };
  *out = {Node(s, "Conv3DBackpropInputV2", {ops::Shape(s, input), g[0], dy}, input_attrs, {t})[0],
          Output(), Node(s, "Conv3D", {input, g[0]}, CopyAttrs(op, Conv3DAttrs()), {t})[0]};
  return absl::OkStatus();
}

absl::Status MaxPool3DGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  auto attrs = [&op](OpBuilder& b) {
    CopyAttrs(op, PoolAttrs())(b);
    b.AttrType("TInput", op.inputs[0].type());
  };
  *out = {Node(s, "MaxPool3DGrad", {op.inputs[0], op.outputs[0], g[0]}, attrs, {g[0].type()})[0]};
  return absl::OkStatus();
}

absl::Status AvgPool3DGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Node(s, "AvgPool3DGrad", {ops::Shape(s, op.inputs[0]), g[0]}, CopyAttrs(op, PoolAttrs()),
               {g[0].type()})[0]};
  return absl::OkStatus();
}

// AvgPool3DGrad is linear in grad: its gradient is AvgPool3D of the incoming one.
absl::Status AvgPool3DGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {Output(), Node(s, "AvgPool3D", {g[0]}, CopyAttrs(op, PoolAttrs()), {g[0].type()})[0]};
  return absl::OkStatus();
}

const std::vector<std::string>& ConvAttrs() {
  static const auto* names = new std::vector<std::string>{
      "T",           "strides",   "padding",         "explicit_paddings",
      "data_format", "dilations", "use_cudnn_on_gpu"};
  return *names;
}

absl::Status Conv2DGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& input = op.inputs[0];
  const Output& filter = op.inputs[1];
  const DataType t = g[0].type();
  Output input_grad = Node(s, "Conv2DBackpropInput", {ops::Shape(s, input), filter, g[0]},
                           CopyAttrs(op, ConvAttrs()), {t})[0];
  Output filter_grad = Node(s, "Conv2DBackpropFilter", {input, ops::Shape(s, filter), g[0]},
                            CopyAttrs(op, ConvAttrs()), {t})[0];
  *out = {input_grad, filter_grad};
  return absl::OkStatus();
}

// As Conv2D's, through the depthwise gradient ops (ConvAttrs' use_cudnn_on_gpu is absent here).
absl::Status DepthwiseConv2dNativeGrad(const Scope& s, const GradOp& op, const Grads& g,
                                       Grads* out) {
  const Output& input = op.inputs[0];
  const Output& filter = op.inputs[1];
  const DataType t = g[0].type();
  Output input_grad =
      Node(s, "DepthwiseConv2dNativeBackpropInput", {ops::Shape(s, input), filter, g[0]},
           CopyAttrs(op, ConvAttrs()), {t})[0];
  Output filter_grad =
      Node(s, "DepthwiseConv2dNativeBackpropFilter", {input, ops::Shape(s, filter), g[0]},
           CopyAttrs(op, ConvAttrs()), {t})[0];
  *out = {input_grad, filter_grad};
  return absl::OkStatus();
}

absl::Status EluGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::EluGrad(s, g[0], op.outputs[0])};
  return absl::OkStatus();
}

absl::Status SeluGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SeluGrad(s, g[0], op.outputs[0])};
  return absl::OkStatus();
}

absl::Status LeakyReluGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const float alpha = op.FloatAttr("alpha", 0.2f);
  *out = {ops::LeakyReluGrad(s, g[0], op.inputs[0], ops::LeakyReluGrad::Alpha(alpha))};
  return absl::OkStatus();
}

absl::Status SoftplusGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SoftplusGrad(s, g[0], op.inputs[0])};
  return absl::OkStatus();
}

absl::Status SoftsignGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::SoftsignGrad(s, g[0], op.inputs[0])};
  return absl::OkStatus();
}

absl::Status LrnGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const ops::LRNGrad::Attrs attrs = ops::LRNGrad::Attrs()
                                        .DepthRadius(op.IntAttr("depth_radius", 5))
                                        .Bias(op.FloatAttr("bias", 1.0f))
                                        .Alpha(op.FloatAttr("alpha", 1.0f))
                                        .Beta(op.FloatAttr("beta", 0.5f));
  *out = {ops::LRNGrad(s, g[0], op.inputs[0], op.outputs[0], attrs)};
  return absl::OkStatus();
}

// Only y's gradient flows back (the statistics outputs are not differentiated, as in
// TensorFlow), and the mean and variance inputs get none. In training the gradient op reads the
// batch statistics the forward op saved; in inference the population statistics it was given.
// TensorFlow transposes channels-first inference gradients to NHWC because its CPU kernel takes
// only NHWC there; the kernels here take every format, so the data format is passed through.
absl::Status FusedBatchNormV3Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const bool is_training = op.BoolAttr("is_training", true);
  const ops::FusedBatchNormGradV3::Attrs attrs =
      ops::FusedBatchNormGradV3::Attrs()
          .Epsilon(op.FloatAttr("epsilon", 0.0001f))
          .DataFormat(op.StringAttr("data_format", "NHWC"))
          .IsTraining(is_training);
  const Output& mean = is_training ? op.outputs[3] : op.inputs[3];
  const Output& variance = is_training ? op.outputs[4] : op.inputs[4];
  ops::FusedBatchNormGradV3 grad(s, g[0], op.inputs[0], op.inputs[1], mean, variance, op.outputs[5],
                                 attrs);
  *out = {grad.x_backprop, grad.scale_backprop, grad.offset_backprop, Output(), Output()};
  return absl::OkStatus();
}

// FusedBatchNorm and FusedBatchNormV2: as V3, with their own gradient ops (no reserve_space_3).
template <typename GradOpT>
absl::Status FusedBatchNormV1V2Grad(const Scope& s, const GradOp& op, const Grads& g,
                                    Grads* out) {
  const bool is_training = op.BoolAttr("is_training", true);
  const ops::FusedBatchNormAttrs attrs = ops::FusedBatchNormAttrs()
                                             .Epsilon(op.FloatAttr("epsilon", 0.0001f))
                                             .DataFormat(op.StringAttr("data_format", "NHWC"))
                                             .IsTraining(is_training);
  const Output& mean = is_training ? op.outputs[3] : op.inputs[3];
  const Output& variance = is_training ? op.outputs[4] : op.inputs[4];
  GradOpT grad(s, g[0], op.inputs[0], op.inputs[1], mean, variance, attrs);
  *out = {grad.x_backprop, grad.scale_backprop, grad.offset_backprop, Output(), Output()};
  return absl::OkStatus();
}

// ---- Second-order gradients: the gradient ops' own gradients -----------------------------

// ReluGrad(g, x) and Relu6Grad(g, x) mask g by x: linear in g, piecewise constant in x.
absl::Status ReluGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::ReluGrad(s, g[0], op.inputs[1]), ops::ZerosLike(s, op.inputs[1])};
  return absl::OkStatus();
}

absl::Status Relu6GradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::Relu6Grad(s, g[0], op.inputs[1]), ops::ZerosLike(s, op.inputs[1])};
  return absl::OkStatus();
}

absl::Status LeakyReluGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const float alpha = op.FloatAttr("alpha", 0.2f);
  *out = {ops::LeakyReluGrad(s, g[0], op.inputs[1], ops::LeakyReluGrad::Alpha(alpha)),
          ops::ZerosLike(s, op.inputs[1])};
  return absl::OkStatus();
}

// EluGrad(dy, y) and SeluGrad(dy, y) are dy * (y + c) where y < 0 and dy elsewhere: d/dy is dy
// where y < 0.
template <typename GradOpType>
absl::Status ExponentialUnitGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& y = op.inputs[1];
  Output negative = ops::Less(s, y, grad_util::Scalar(s, 0, y.type()));
  *out = {GradOpType(s, g[0], y),
          ops::SelectV2(s, negative, ops::Mul(s, g[0], op.inputs[0]), ops::ZerosLike(s, y))};
  return absl::OkStatus();
}

// SoftplusGrad(dy, x) = dy * sigmoid(x); d/dx = dy * sigmoid'(x) = dy / (exp(-x) + 2 + exp(x)).
absl::Status SoftplusGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& dy = op.inputs[0];
  const Output& x = op.inputs[1];
  Output denominator =
      ops::Add(s, ops::Add(s, ops::Exp(s, ops::Neg(s, x)), grad_util::Scalar(s, 2, x.type())),
               ops::Exp(s, x));
  *out = {ops::SoftplusGrad(s, g[0], x), ops::Div(s, ops::Mul(s, g[0], dy), denominator)};
  return absl::OkStatus();
}

// BiasAddGrad sums over every dimension but the channel one, so its gradient broadcasts the
// channel vector back over the input's shape: [C] aligns with the last dimension as it is, and
// is reshaped to [C, 1, ...] for NCHW.
absl::Status BiasAddGradGrad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& input = op.inputs[0];
  Output bias_grad = g[0];
  if (op.StringAttr("data_format", "NHWC") == "NCHW") {
    Output trailing = ops::Sub(s, ops::Rank(s, input), grad_util::Scalar(s, 2, TSR_DTYPE_INT32));
    Output ones =
        ops::Fill(s, ops::ExpandDims(s, trailing, grad_util::Scalar(s, 0, TSR_DTYPE_INT32)),
                  grad_util::Scalar(s, 1, TSR_DTYPE_INT32));
    bias_grad = ops::Reshape(
        s, bias_grad,
        ops::Concat(s, {ops::Shape(s, bias_grad), ones}, grad_util::Scalar(s, 0, TSR_DTYPE_INT32)));
  }
  *out = {ops::BroadcastTo(s, bias_grad, ops::Shape(s, input))};
  return absl::OkStatus();
}

// TopKV2: each output gradient goes back to the input position its index names (zeros
// elsewhere): the row-local indices become flat ones and ScatterNd places the gradient.
absl::Status TopKV2Grad(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  const Output& input = op.inputs[0];
  Output indices = op.outputs[1];
  if (indices.type() != DT_INT32) indices = ops::Cast(s, indices, DT_INT32);
  const Output in_shape = ops::Shape(s, input);
  const Output in_last = ops::GatherV2(s, in_shape, ops::Sub(s, ops::Size(s, in_shape), 1), 0);
  const Output ind_shape = ops::Shape(s, indices);
  const Output ind_last = ops::GatherV2(s, ind_shape, ops::Sub(s, ops::Size(s, ind_shape), 1), 0);
  const Output ind_2d = ops::Reshape(s, indices, ops::Pack(s, {ops::Const(s, -1), ind_last}));
  const Output rows = ops::GatherV2(s, ops::Shape(s, ind_2d), 0, 0);
  // Row r's indices move by r * (the input's last dimension).
  const Output starts = ops::ExpandDims(
      s, ops::Range(s, 0, ops::Mul(s, rows, in_last), in_last), -1);
  const Output flat = ops::Reshape(s, ops::Add(s, ind_2d, starts), ops::Const(s, {-1}));
  const Output size = ops::Reshape(s, ops::Prod(s, in_shape, 0), ops::Const(s, {1}));
  const Output scattered = ops::ScatterNd(s, ops::ExpandDims(s, flat, -1),
                                          ops::Reshape(s, g[0], ops::Const(s, {-1})), size);
  *out = {ops::Reshape(s, scattered, in_shape), Output()};
  return absl::OkStatus();
}

// The resize attrs of a forward resize node.
ops::ResizeAttrs ResizeAttrsOf(const GradOp& op) {
  return ops::ResizeAttrs()
      .AlignCorners(op.BoolAttr("align_corners", false))
      .HalfPixelCenters(op.BoolAttr("half_pixel_centers", false));
}

// ResizeBilinear: ResizeBilinearGrad spreads each gradient over the four pixels it blended.
absl::Status ResizeBilinearGradient(const Scope& s, const GradOp& op, const Grads& g, Grads* out) {
  *out = {ops::ResizeBilinearGrad(s, g[0], op.inputs[0], ResizeAttrsOf(op)), Output()};
  return absl::OkStatus();
}

// ResizeNearestNeighbor: ResizeNearestNeighborGrad sums each gradient into the pixel it copied;
// the image's height and width come from its shape at run time.
absl::Status ResizeNearestNeighborGradient(const Scope& s, const GradOp& op, const Grads& g,
                                           Grads* out) {
  const Output size = ops::Slice(s, ops::Shape(s, op.inputs[0]), {1}, {2});
  *out = {ops::ResizeNearestNeighborGrad(s, g[0], size, ResizeAttrsOf(op)), Output()};
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterNnGradients(GradientRegistry* r) {
  RETURN_IF_ERROR(
      r->Register("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyGrad));
  RETURN_IF_ERROR(r->Register("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyGrad));
  RETURN_IF_ERROR(r->Register("LogSoftmax", LogSoftmaxGrad));
  RETURN_IF_ERROR(r->Register("L2Loss", L2LossGrad));
  RETURN_IF_ERROR(r->Register("MaxPool", MaxPoolGrad));
  RETURN_IF_ERROR(r->Register("AvgPool", AvgPoolGrad));
  RETURN_IF_ERROR(r->Register("Conv2D", Conv2DGrad));
  RETURN_IF_ERROR(r->Register("MaxPoolV2", MaxPoolV2Grad));
  RETURN_IF_ERROR(r->Register("Conv3D", Conv3DGrad));
  RETURN_IF_ERROR(r->Register("Conv3DBackpropInputV2", Conv3DBackpropInputV2Grad));
  RETURN_IF_ERROR(r->Register("Conv3DBackpropFilterV2", Conv3DBackpropFilterV2Grad));
  RETURN_IF_ERROR(r->Register("MaxPool3D", MaxPool3DGrad));
  RETURN_IF_ERROR(r->Register("AvgPool3D", AvgPool3DGrad));
  RETURN_IF_ERROR(r->Register("AvgPool3DGrad", AvgPool3DGradGrad));
  RETURN_IF_ERROR(r->Register("DepthwiseConv2dNative", DepthwiseConv2dNativeGrad));
  RETURN_IF_ERROR(r->Register("Relu", ReluGrad));
  RETURN_IF_ERROR(r->Register("Relu6", Relu6Grad));
  RETURN_IF_ERROR(r->Register("BiasAdd", BiasAddGrad));
  // BiasAddV1 is BiasAdd in NHWC, which is the attr lookup's fallback.
  RETURN_IF_ERROR(r->Register("BiasAddV1", BiasAddGrad));
  RETURN_IF_ERROR(r->Register("Softmax", SoftmaxGrad));
  RETURN_IF_ERROR(r->Register("Elu", EluGrad));
  RETURN_IF_ERROR(r->Register("Selu", SeluGrad));
  RETURN_IF_ERROR(r->Register("LeakyRelu", LeakyReluGrad));
  RETURN_IF_ERROR(r->Register("Softplus", SoftplusGrad));
  RETURN_IF_ERROR(r->Register("Softsign", SoftsignGrad));
  RETURN_IF_ERROR(r->Register("LRN", LrnGrad));
  RETURN_IF_ERROR(r->Register("FusedBatchNormV3", FusedBatchNormV3Grad));
  RETURN_IF_ERROR(
      r->Register("FusedBatchNorm", FusedBatchNormV1V2Grad<ops::FusedBatchNormGrad>));
  RETURN_IF_ERROR(
      r->Register("FusedBatchNormV2", FusedBatchNormV1V2Grad<ops::FusedBatchNormGradV2>));
  RETURN_IF_ERROR(r->Register("ReluGrad", ReluGradGrad));
  RETURN_IF_ERROR(r->Register("Relu6Grad", Relu6GradGrad));
  RETURN_IF_ERROR(r->Register("LeakyReluGrad", LeakyReluGradGrad));
  RETURN_IF_ERROR(r->Register("EluGrad", ExponentialUnitGradGrad<ops::EluGrad>));
  RETURN_IF_ERROR(r->Register("SeluGrad", ExponentialUnitGradGrad<ops::SeluGrad>));
  RETURN_IF_ERROR(r->Register("SoftplusGrad", SoftplusGradGrad));
  RETURN_IF_ERROR(r->Register("BiasAddGrad", BiasAddGradGrad));
  RETURN_IF_ERROR(r->Register("TopKV2", TopKV2Grad));
  RETURN_IF_ERROR(r->Register("ResizeBilinear", ResizeBilinearGradient));
  RETURN_IF_ERROR(r->Register("ResizeNearestNeighbor", ResizeNearestNeighborGradient));
  return absl::OkStatus();
}

}  // namespace tessera
