// Typed wrappers of TensorFlow's neural-network ops: activations and their gradients, BiasAdd
// and BiasAddGrad, Softmax/LogSoftmax and the cross-entropy losses, L2Loss, LRN, pooling and
// FusedBatchNormV3 with their gradients, and TopKV2.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does) and keeps its outputs under TensorFlow's names. The
// gradient ops, which TensorFlow's C++ API keeps in ops::internal, are plain ops here.
#ifndef TESSERA_HOST_CLIENT_NN_OPS_H_
#define TESSERA_HOST_CLIENT_NN_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "host/client/math_ops.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {
namespace internal {

// An op with one input `features` (attr T) and one output `activations` of its type.
template <const char* kOpName>
class Activation {
 public:
  Activation(const Scope& scope, Input features)
      : operation(UnaryOp(scope, kOpName, features)), activations(FirstOutput(operation)) {}
  operator Output() const { return activations; }
  Operation operation;
  Output activations;
};

// An activation gradient: inputs `gradients` and a second one of the same type (the forward
// op's features or outputs), output `backprops`.
template <const char* kOpName>
class ActivationGrad {
 public:
  ActivationGrad(const Scope& scope, Input gradients, Input second)
      : operation(BinaryOp(scope, kOpName, gradients, second)), backprops(FirstOutput(operation)) {}
  operator Output() const { return backprops; }
  Operation operation;
  Output backprops;
};

// SigmoidGrad, TanhGrad: inputs y (the forward output) and dy, output z.
template <const char* kOpName>
class UnaryGrad {
 public:
  UnaryGrad(const Scope& scope, Input y, Input dy)
      : operation(BinaryOp(scope, kOpName, y, dy)), z(FirstOutput(operation)) {}
  operator Output() const { return z; }
  Operation operation;
  Output z;
};

inline constexpr char kRelu[] = "Relu";
inline constexpr char kRelu6[] = "Relu6";
inline constexpr char kElu[] = "Elu";
inline constexpr char kSelu[] = "Selu";
inline constexpr char kSoftplus[] = "Softplus";
inline constexpr char kSoftsign[] = "Softsign";
inline constexpr char kReluGrad[] = "ReluGrad";
inline constexpr char kRelu6Grad[] = "Relu6Grad";
inline constexpr char kEluGrad[] = "EluGrad";
inline constexpr char kSeluGrad[] = "SeluGrad";
inline constexpr char kSoftplusGrad[] = "SoftplusGrad";
inline constexpr char kSoftsignGrad[] = "SoftsignGrad";
inline constexpr char kSigmoidGrad[] = "SigmoidGrad";
inline constexpr char kTanhGrad[] = "TanhGrad";

}  // namespace internal

// max(features, 0). Attr T.
using Relu = internal::Activation<internal::kRelu>;
// min(max(features, 0), 6). Attr T.
using Relu6 = internal::Activation<internal::kRelu6>;
// features for features >= 0, exp(features) - 1 otherwise. Attr T.
using Elu = internal::Activation<internal::kElu>;
// scale * features for features >= 0, scale * alpha * (exp(features) - 1) otherwise. Attr T.
using Selu = internal::Activation<internal::kSelu>;
// log(exp(features) + 1), computed without overflow. Attr T.
using Softplus = internal::Activation<internal::kSoftplus>;
// features / (|features| + 1). Attr T.
using Softsign = internal::Activation<internal::kSoftsign>;

// gradients where features > 0, else 0. Attr T.
using ReluGrad = internal::ActivationGrad<internal::kReluGrad>;
// gradients where 0 < features < 6, else 0. Attr T.
using Relu6Grad = internal::ActivationGrad<internal::kRelu6Grad>;
// EluGrad(gradients, outputs): gradients * (outputs + 1) where outputs < 0. Attr T.
using EluGrad = internal::ActivationGrad<internal::kEluGrad>;
// SeluGrad(gradients, outputs). Attr T.
using SeluGrad = internal::ActivationGrad<internal::kSeluGrad>;
// SoftplusGrad(gradients, features) = gradients * sigmoid(features). Attr T.
using SoftplusGrad = internal::ActivationGrad<internal::kSoftplusGrad>;
// SoftsignGrad(gradients, features) = gradients / (|features| + 1)^2. Attr T.
using SoftsignGrad = internal::ActivationGrad<internal::kSoftsignGrad>;
// SigmoidGrad(y, dy) = dy * y * (1 - y) for y = sigmoid(x). Attr T.
using SigmoidGrad = internal::UnaryGrad<internal::kSigmoidGrad>;
// TanhGrad(y, dy) = dy * (1 - y * y) for y = tanh(x). Attr T.
using TanhGrad = internal::UnaryGrad<internal::kTanhGrad>;

// The attr of LeakyRelu and LeakyReluGrad.
struct LeakyReluAttrs {
  LeakyReluAttrs Alpha(float x) const {
    LeakyReluAttrs ret = *this;
    ret.alpha_ = x;
    return ret;
  }
  float alpha_ = 0.2f;
};

// features for features > 0, alpha * features otherwise. Attrs alpha (0.2), T.
class LeakyRelu {
 public:
  using Attrs = LeakyReluAttrs;
  LeakyRelu(const Scope& scope, Input features) : LeakyRelu(scope, features, Attrs()) {}
  LeakyRelu(const Scope& scope, Input features, const Attrs& attrs);
  static Attrs Alpha(float x) { return Attrs().Alpha(x); }
  operator Output() const { return activations; }
  Operation operation;
  Output activations;
};

// LeakyReluGrad(gradients, features). Attrs alpha (0.2), T.
class LeakyReluGrad {
 public:
  using Attrs = LeakyReluAttrs;
  LeakyReluGrad(const Scope& scope, Input gradients, Input features)
      : LeakyReluGrad(scope, gradients, features, Attrs()) {}
  LeakyReluGrad(const Scope& scope, Input gradients, Input features, const Attrs& attrs);
  static Attrs Alpha(float x) { return Attrs().Alpha(x); }
  operator Output() const { return backprops; }
  Operation operation;
  Output backprops;
};

// The data_format attr of BiasAdd, BiasAddGrad, AvgPool and AvgPoolGrad: "NHWC" (the default)
// or "NCHW".
struct DataFormatAttrs {
  DataFormatAttrs DataFormat(std::string x) const {
    DataFormatAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  std::string data_format_ = "NHWC";
};

// `value` plus the vector `bias` along the channel dimension. Attrs T, data_format ("NHWC", the
// default: the last dimension; "NCHW": dimension 1).
class BiasAdd {
 public:
  using Attrs = DataFormatAttrs;
  BiasAdd(const Scope& scope, Input value, Input bias);
  BiasAdd(const Scope& scope, Input value, Input bias, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// value + bias, the bias (a vector) added along the last dimension: BiasAdd without data_format.
// Attr T.
class BiasAddV1 {
 public:
  BiasAddV1(const Scope& scope, Input value, Input bias);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The sum of `out_backprop` over every dimension but the channel one (BiasAdd's gradient with
// respect to the bias). Attrs T, data_format.
class BiasAddGrad {
 public:
  using Attrs = DataFormatAttrs;
  BiasAddGrad(const Scope& scope, Input out_backprop) : BiasAddGrad(scope, out_backprop, Attrs()) {}
  BiasAddGrad(const Scope& scope, Input out_backprop, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// exp(logits) / sum(exp(logits)) over the last dimension. Attr T.
class Softmax {
 public:
  Softmax(const Scope& scope, Input logits)
      : operation(internal::UnaryOp(scope, "Softmax", logits)),
        softmax(internal::FirstOutput(operation)) {}
  operator Output() const { return softmax; }
  Operation operation;
  Output softmax;
};

// logits - log(sum(exp(logits))) over the last dimension. Attr T.
class LogSoftmax {
 public:
  LogSoftmax(const Scope& scope, Input logits)
      : operation(internal::UnaryOp(scope, "LogSoftmax", logits)),
        logsoftmax(internal::FirstOutput(operation)) {}
  operator Output() const { return logsoftmax; }
  Operation operation;
  Output logsoftmax;
};

// Cross entropy of softmax(features) against the distributions `labels` ([batch, classes], or
// shapes that broadcast to it): `loss` [batch] and `backprop` = softmax - labels. Attr T.
class SoftmaxCrossEntropyWithLogits {
 public:
  SoftmaxCrossEntropyWithLogits(const Scope& scope, Input features, Input labels);
  Operation operation;
  Output loss;
  Output backprop;
};

// As SoftmaxCrossEntropyWithLogits with class indices `labels` ([batch], int32 or int64; values
// in [0, classes)). Attrs T, Tlabels.
class SparseSoftmaxCrossEntropyWithLogits {
 public:
  SparseSoftmaxCrossEntropyWithLogits(const Scope& scope, Input features, Input labels);
  Operation operation;
  Output loss;
  Output backprop;
};

// sum(t ** 2) / 2, a scalar. Attr T.
class L2Loss {
 public:
  L2Loss(const Scope& scope, Input t)
      : operation(internal::UnaryOp(scope, "L2Loss", t)),
        output(internal::FirstOutput(operation)) {}
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The attrs of LRN and LRNGrad.
struct LrnAttrs {
  LrnAttrs DepthRadius(int64_t x) const {
    LrnAttrs ret = *this;
    ret.depth_radius_ = x;
    return ret;
  }
  LrnAttrs Bias(float x) const {
    LrnAttrs ret = *this;
    ret.bias_ = x;
    return ret;
  }
  LrnAttrs Alpha(float x) const {
    LrnAttrs ret = *this;
    ret.alpha_ = x;
    return ret;
  }
  LrnAttrs Beta(float x) const {
    LrnAttrs ret = *this;
    ret.beta_ = x;
    return ret;
  }
  int64_t depth_radius_ = 5;
  float bias_ = 1.0f;
  float alpha_ = 1.0f;
  float beta_ = 0.5f;
};

// Local response normalization over the last dimension of a 4-D `input`:
// input / (bias + alpha * sum(input^2 over depth_radius neighbours))^beta. Attrs depth_radius,
// bias, alpha, beta, T.
class LRN {
 public:
  using Attrs = LrnAttrs;
  LRN(const Scope& scope, Input input) : LRN(scope, input, Attrs()) {}
  LRN(const Scope& scope, Input input, const Attrs& attrs);
  static Attrs DepthRadius(int64_t x) { return Attrs().DepthRadius(x); }
  static Attrs Bias(float x) { return Attrs().Bias(x); }
  static Attrs Alpha(float x) { return Attrs().Alpha(x); }
  static Attrs Beta(float x) { return Attrs().Beta(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// LRN's gradient from input_grads, input_image and output_image (LRN's output). Attrs as LRN.
class LRNGrad {
 public:
  using Attrs = LrnAttrs;
  LRNGrad(const Scope& scope, Input input_grads, Input input_image, Input output_image)
      : LRNGrad(scope, input_grads, input_image, output_image, Attrs()) {}
  LRNGrad(const Scope& scope, Input input_grads, Input input_image, Input output_image,
          const Attrs& attrs);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The optional attrs of MaxPool and MaxPoolGrad: data_format and, for padding "EXPLICIT", the
// explicit_paddings (before and after each of the 4 dimensions).
struct MaxPoolAttrs {
  MaxPoolAttrs DataFormat(std::string x) const {
    MaxPoolAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  MaxPoolAttrs ExplicitPaddings(std::vector<int64_t> x) const {
    MaxPoolAttrs ret = *this;
    ret.explicit_paddings_ = std::move(x);
    return ret;
  }
  std::string data_format_ = "NHWC";
  std::vector<int64_t> explicit_paddings_;
};

// The maximum over windows of `ksize` moved by `strides` (4 values each, in the data format's
// dimension order) with padding "SAME", "VALID" or "EXPLICIT". Attrs T, ksize, strides,
// padding, explicit_paddings, data_format.
class MaxPool {
 public:
  using Attrs = MaxPoolAttrs;
  MaxPool(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
          const std::vector<int64_t>& strides, const std::string& padding)
      : MaxPool(scope, input, ksize, strides, padding, Attrs()) {}
  MaxPool(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
          const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs ExplicitPaddings(std::vector<int64_t> x) {
    return Attrs().ExplicitPaddings(std::move(x));
  }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// MaxPool's gradient: `grad` goes to the first maximum of each window of orig_input.
class MaxPoolGrad {
 public:
  using Attrs = MaxPoolAttrs;
  MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
              const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
              const std::string& padding)
      : MaxPoolGrad(scope, orig_input, orig_output, grad, ksize, strides, padding, Attrs()) {}
  MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
              const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
              const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs ExplicitPaddings(std::vector<int64_t> x) {
    return Attrs().ExplicitPaddings(std::move(x));
  }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// MaxPool with ksize and strides given as int32 tensors (4 values each, in the data format's
// order), padding "SAME" or "VALID". Attrs T, padding, data_format.
class MaxPoolV2 {
 public:
  using Attrs = DataFormatAttrs;
  MaxPoolV2(const Scope& scope, Input input, Input ksize, Input strides, const std::string& padding)
      : MaxPoolV2(scope, input, ksize, strides, padding, Attrs()) {}
  MaxPoolV2(const Scope& scope, Input input, Input ksize, Input strides, const std::string& padding,
            const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// MaxPoolV2's gradient: `grad` goes to the first maximum of each window of orig_input. Attrs
// padding, data_format, T.
class MaxPoolGradV2 {
 public:
  using Attrs = DataFormatAttrs;
  MaxPoolGradV2(const Scope& scope, Input orig_input, Input orig_output, Input grad, Input ksize,
                Input strides, const std::string& padding)
      : MaxPoolGradV2(scope, orig_input, orig_output, grad, ksize, strides, padding, Attrs()) {}
  MaxPoolGradV2(const Scope& scope, Input orig_input, Input orig_output, Input grad, Input ksize,
                Input strides, const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The mean over windows (padding "SAME" or "VALID"; padded positions are not counted). Attrs
// T, ksize, strides, padding, data_format.
class AvgPool {
 public:
  using Attrs = DataFormatAttrs;
  AvgPool(const Scope& scope, Input value, const std::vector<int64_t>& ksize,
          const std::vector<int64_t>& strides, const std::string& padding)
      : AvgPool(scope, value, ksize, strides, padding, Attrs()) {}
  AvgPool(const Scope& scope, Input value, const std::vector<int64_t>& ksize,
          const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// AvgPool's gradient for an input of shape `orig_input_shape` (int32, 4 values).
class AvgPoolGrad {
 public:
  using Attrs = DataFormatAttrs;
  AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
              const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
              const std::string& padding)
      : AvgPoolGrad(scope, orig_input_shape, grad, ksize, strides, padding, Attrs()) {}
  AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
              const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
              const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The attrs of FusedBatchNormV3 and FusedBatchNormGradV3 (exponential_avg_factor: the
// forward op's only).
struct FusedBatchNormAttrs {
  FusedBatchNormAttrs Epsilon(float x) const {
    FusedBatchNormAttrs ret = *this;
    ret.epsilon_ = x;
    return ret;
  }
  FusedBatchNormAttrs ExponentialAvgFactor(float x) const {
    FusedBatchNormAttrs ret = *this;
    ret.exponential_avg_factor_ = x;
    return ret;
  }
  FusedBatchNormAttrs DataFormat(std::string x) const {
    FusedBatchNormAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  FusedBatchNormAttrs IsTraining(bool x) const {
    FusedBatchNormAttrs ret = *this;
    ret.is_training_ = x;
    return ret;
  }
  float epsilon_ = 0.0001f;
  float exponential_avg_factor_ = 1.0f;
  std::string data_format_ = "NHWC";
  bool is_training_ = true;
};

// Batch normalization of x (4-D, or 5-D with NDHWC/NCDHW) per channel. In training (the
// default) it normalizes with the batch's statistics and returns them averaged into mean and
// variance by exponential_avg_factor (batch_variance Bessel-corrected); reserve_space_1/2 hold
// the batch mean and biased variance for the gradient. Attrs T, U, epsilon,
// exponential_avg_factor, data_format, is_training.
class FusedBatchNormV3 {
 public:
  using Attrs = FusedBatchNormAttrs;
  FusedBatchNormV3(const Scope& scope, Input x, Input scale, Input offset, Input mean,
                   Input variance)
      : FusedBatchNormV3(scope, x, scale, offset, mean, variance, Attrs()) {}
  FusedBatchNormV3(const Scope& scope, Input x, Input scale, Input offset, Input mean,
                   Input variance, const Attrs& attrs);
  static Attrs Epsilon(float x) { return Attrs().Epsilon(x); }
  static Attrs ExponentialAvgFactor(float x) { return Attrs().ExponentialAvgFactor(x); }
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs IsTraining(bool x) { return Attrs().IsTraining(x); }
  Operation operation;
  Output y;
  Output batch_mean;
  Output batch_variance;
  Output reserve_space_1;
  Output reserve_space_2;
  Output reserve_space_3;
};

// FusedBatchNormV3's gradient: x_backprop, scale_backprop, offset_backprop (reserve_space_4/5
// are empty). `scale` is float. Attrs T, U, epsilon, data_format, is_training.
class FusedBatchNormGradV3 {
 public:
  using Attrs = FusedBatchNormAttrs;
  FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x, Input scale,
                       Input reserve_space_1, Input reserve_space_2, Input reserve_space_3)
      : FusedBatchNormGradV3(scope, y_backprop, x, scale, reserve_space_1, reserve_space_2,
                             reserve_space_3, Attrs()) {}
  FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x, Input scale,
                       Input reserve_space_1, Input reserve_space_2, Input reserve_space_3,
                       const Attrs& attrs);
  static Attrs Epsilon(float x) { return Attrs().Epsilon(x); }
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs IsTraining(bool x) { return Attrs().IsTraining(x); }
  Operation operation;
  Output x_backprop;
  Output scale_backprop;
  Output offset_backprop;
  Output reserve_space_4;
  Output reserve_space_5;
};

// FusedBatchNorm (every tensor float) and FusedBatchNormV2 (statistics float): FusedBatchNormV3
// without reserve_space_3, for 4-D x (data_format NHWC or NCHW), as TensorFlow 1 graphs use them.
class FusedBatchNormV1V2 {
 public:
  using Attrs = FusedBatchNormAttrs;
  Operation operation;
  Output y;
  Output batch_mean;
  Output batch_variance;
  Output reserve_space_1;
  Output reserve_space_2;

 protected:
  FusedBatchNormV1V2(const Scope& scope, const char* op, const Input& x, const Input& scale,
                     const Input& offset, const Input& mean, const Input& variance,
                     const Attrs& attrs);
};
class FusedBatchNorm : public FusedBatchNormV1V2 {
 public:
  FusedBatchNorm(const Scope& scope, Input x, Input scale, Input offset, Input mean,
                 Input variance, const Attrs& attrs = Attrs())
      : FusedBatchNormV1V2(scope, "FusedBatchNorm", x, scale, offset, mean, variance, attrs) {}
};
class FusedBatchNormV2 : public FusedBatchNormV1V2 {
 public:
  FusedBatchNormV2(const Scope& scope, Input x, Input scale, Input offset, Input mean,
                   Input variance, const Attrs& attrs = Attrs())
      : FusedBatchNormV1V2(scope, "FusedBatchNormV2", x, scale, offset, mean, variance, attrs) {}
};

// Their gradients: x_backprop, scale_backprop, offset_backprop (reserve_space_3/4 are empty).
class FusedBatchNormGradV1V2 {
 public:
  using Attrs = FusedBatchNormAttrs;
  Operation operation;
  Output x_backprop;
  Output scale_backprop;
  Output offset_backprop;
  Output reserve_space_3;
  Output reserve_space_4;

 protected:
  FusedBatchNormGradV1V2(const Scope& scope, const char* op, const Input& y_backprop,
                         const Input& x, const Input& scale, const Input& reserve_space_1,
                         const Input& reserve_space_2, const Attrs& attrs);
};
class FusedBatchNormGrad : public FusedBatchNormGradV1V2 {
 public:
  FusedBatchNormGrad(const Scope& scope, Input y_backprop, Input x, Input scale,
                     Input reserve_space_1, Input reserve_space_2, const Attrs& attrs = Attrs())
      : FusedBatchNormGradV1V2(scope, "FusedBatchNormGrad", y_backprop, x, scale,
                               reserve_space_1, reserve_space_2, attrs) {}
};
class FusedBatchNormGradV2 : public FusedBatchNormGradV1V2 {
 public:
  FusedBatchNormGradV2(const Scope& scope, Input y_backprop, Input x, Input scale,
                       Input reserve_space_1, Input reserve_space_2, const Attrs& attrs = Attrs())
      : FusedBatchNormGradV1V2(scope, "FusedBatchNormGradV2", y_backprop, x, scale,
                               reserve_space_1, reserve_space_2, attrs) {}
};

// The op TopKV2 (TensorFlow's C++ class name is TopK, and so is its default node name): the `k`
// largest entries of each row of the last dimension (`values`) and their positions
// (`indices`), largest first, the lower index first among equals. Attrs sorted (default true),
// T, Tk (k's type: int16/int32/int64), index_type (default int32).
class TopK {
 public:
  struct Attrs {
    Attrs Sorted(bool x) const {
      Attrs ret = *this;
      ret.sorted_ = x;
      return ret;
    }
    Attrs IndexType(DataType x) const {
      Attrs ret = *this;
      ret.index_type_ = x;
      return ret;
    }
    bool sorted_ = true;
    DataType index_type_ = TSR_DTYPE_INT32;
  };
  TopK(const Scope& scope, Input input, Input k);
  TopK(const Scope& scope, Input input, Input k, const Attrs& attrs);
  static Attrs Sorted(bool x) { return Attrs().Sorted(x); }
  static Attrs IndexType(DataType x) { return Attrs().IndexType(x); }
  Operation operation;
  Output values;
  Output indices;
};
using TopKV2 = TopK;

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_NN_OPS_H_
