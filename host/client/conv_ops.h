// Typed wrappers of TensorFlow's convolution ops (Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNative and its two gradients) and of BatchMatMul,
// BatchMatMulV2 and BatchMatMulV3.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_CONV_OPS_H_
#define TESSERA_HOST_CLIENT_CONV_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// The optional attrs of the 2-D convolutions: data_format ("NHWC", the default, or "NCHW"),
// dilations (4 values in the data format's order, default all 1), explicit_paddings (8 values,
// before and after each dimension, for padding "EXPLICIT") and use_cudnn_on_gpu (default true;
// no effect on CPU; DepthwiseConv2dNative has no such attr).
struct Conv2DAttrs {
  Conv2DAttrs DataFormat(std::string x) const {
    Conv2DAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  Conv2DAttrs Dilations(std::vector<int64_t> x) const {
    Conv2DAttrs ret = *this;
    ret.dilations_ = std::move(x);
    return ret;
  }
  Conv2DAttrs ExplicitPaddings(std::vector<int64_t> x) const {
    Conv2DAttrs ret = *this;
    ret.explicit_paddings_ = std::move(x);
    return ret;
  }
  Conv2DAttrs UseCudnnOnGpu(bool x) const {
    Conv2DAttrs ret = *this;
    ret.use_cudnn_on_gpu_ = x;
    return ret;
  }
  std::string data_format_ = "NHWC";
  std::vector<int64_t> dilations_ = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings_;
  bool use_cudnn_on_gpu_ = true;
};

namespace internal {
// The static Attrs setters every convolution wrapper offers (Conv2D::DataFormat("NCHW")).
struct Conv2DAttrSetters {
  static Conv2DAttrs DataFormat(std::string x) { return Conv2DAttrs().DataFormat(std::move(x)); }
  static Conv2DAttrs Dilations(std::vector<int64_t> x) {
    return Conv2DAttrs().Dilations(std::move(x));
  }
  static Conv2DAttrs ExplicitPaddings(std::vector<int64_t> x) {
    return Conv2DAttrs().ExplicitPaddings(std::move(x));
  }
};
}  // namespace internal

// The 2-D convolution of `input` (NHWC or NCHW) with `filter` [rows, cols, in_depth / groups,
// out_depth], moved by `strides` (4 values in the data format's order) with padding "SAME",
// "VALID" or "EXPLICIT". Attrs T, strides, use_cudnn_on_gpu, padding, explicit_paddings,
// data_format, dilations.
class Conv2D : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  Conv2D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
         const std::string& padding)
      : Conv2D(scope, input, filter, strides, padding, Attrs()) {}
  Conv2D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
         const std::string& padding, const Attrs& attrs);
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Conv2D's gradient with respect to its input, whose shape `input_sizes` gives (int32: 4 values,
// or the 2 spatial sizes).
class Conv2DBackpropInput : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
                      const std::vector<int64_t>& strides, const std::string& padding)
      : Conv2DBackpropInput(scope, input_sizes, filter, out_backprop, strides, padding, Attrs()) {}
  Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
                      const std::vector<int64_t>& strides, const std::string& padding,
                      const Attrs& attrs);
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Conv2D's gradient with respect to its filter, whose shape `filter_sizes` gives (int32, 4
// values).
class Conv2DBackpropFilter : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
                       const std::vector<int64_t>& strides, const std::string& padding)
      : Conv2DBackpropFilter(scope, input, filter_sizes, out_backprop, strides, padding, Attrs()) {}
  Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
                       const std::vector<int64_t>& strides, const std::string& padding,
                       const Attrs& attrs);
  static Attrs UseCudnnOnGpu(bool x) { return Attrs().UseCudnnOnGpu(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// One filter [rows, cols, in_depth, multiplier] per input channel: output depth in_depth *
// multiplier. Attrs T, strides, padding, explicit_paddings, data_format, dilations.
class DepthwiseConv2dNative : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  DepthwiseConv2dNative(const Scope& scope, Input input, Input filter,
                        const std::vector<int64_t>& strides, const std::string& padding)
      : DepthwiseConv2dNative(scope, input, filter, strides, padding, Attrs()) {}
  DepthwiseConv2dNative(const Scope& scope, Input input, Input filter,
                        const std::vector<int64_t>& strides, const std::string& padding,
                        const Attrs& attrs);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// DepthwiseConv2dNative's gradient with respect to its input, whose shape `input_sizes` gives
// (int32, 4 values). Attrs as DepthwiseConv2dNative's (use_cudnn_on_gpu is not written).
class DepthwiseConv2dNativeBackpropInput : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  DepthwiseConv2dNativeBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                                     Input out_backprop, const std::vector<int64_t>& strides,
                                     const std::string& padding)
      : DepthwiseConv2dNativeBackpropInput(scope, input_sizes, filter, out_backprop, strides,
                                           padding, Attrs()) {}
  DepthwiseConv2dNativeBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                                     Input out_backprop, const std::vector<int64_t>& strides,
                                     const std::string& padding, const Attrs& attrs);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// DepthwiseConv2dNative's gradient with respect to its filter, whose shape `filter_sizes` gives
// (int32, 4 values: [rows, cols, in_depth, multiplier]).
class DepthwiseConv2dNativeBackpropFilter : public internal::Conv2DAttrSetters {
 public:
  using Attrs = Conv2DAttrs;
  DepthwiseConv2dNativeBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                                      Input out_backprop, const std::vector<int64_t>& strides,
                                      const std::string& padding)
      : DepthwiseConv2dNativeBackpropFilter(scope, input, filter_sizes, out_backprop, strides,
                                            padding, Attrs()) {}
  DepthwiseConv2dNativeBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                                      Input out_backprop, const std::vector<int64_t>& strides,
                                      const std::string& padding, const Attrs& attrs);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The matrix products of x [..., r, c] and y [..., r, c] (each optionally adjointed), whose batch
// dimensions broadcast. Attrs T, adj_x, adj_y, and grad_x/grad_y (hints that the product is a
// gradient; no effect on the value).
class BatchMatMulV2 {
 public:
  struct Attrs {
    Attrs AdjX(bool x) const {
      Attrs ret = *this;
      ret.adj_x_ = x;
      return ret;
    }
    Attrs AdjY(bool x) const {
      Attrs ret = *this;
      ret.adj_y_ = x;
      return ret;
    }
    Attrs GradX(bool x) const {
      Attrs ret = *this;
      ret.grad_x_ = x;
      return ret;
    }
    Attrs GradY(bool x) const {
      Attrs ret = *this;
      ret.grad_y_ = x;
      return ret;
    }
    bool adj_x_ = false;
    bool adj_y_ = false;
    bool grad_x_ = false;
    bool grad_y_ = false;
  };
  BatchMatMulV2(const Scope& scope, Input x, Input y) : BatchMatMulV2(scope, x, y, Attrs()) {}
  BatchMatMulV2(const Scope& scope, Input x, Input y, const Attrs& attrs);
  static Attrs AdjX(bool x) { return Attrs().AdjX(x); }
  static Attrs AdjY(bool x) { return Attrs().AdjY(x); }
  static Attrs GradX(bool x) { return Attrs().GradX(x); }
  static Attrs GradY(bool x) { return Attrs().GradY(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The matrix products of x [..., r, c] and y [..., r, c] (each optionally adjointed), whose batch
// dimensions are the same (TensorFlow's first version: no broadcasting). Attrs as BatchMatMulV2.
class BatchMatMul {
 public:
  using Attrs = BatchMatMulV2::Attrs;
  BatchMatMul(const Scope& scope, Input x, Input y) : BatchMatMul(scope, x, y, Attrs()) {}
  BatchMatMul(const Scope& scope, Input x, Input y, const Attrs& attrs);
  static Attrs AdjX(bool x) { return Attrs().AdjX(x); }
  static Attrs AdjY(bool x) { return Attrs().AdjY(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// BatchMatMulV2 whose operands and output each have their own type: Ta and Tb from x and y, the
// output's type `Tout`. Attrs Ta, Tb, Tout and those of BatchMatMulV2.
class BatchMatMulV3 {
 public:
  using Attrs = BatchMatMulV2::Attrs;
  BatchMatMulV3(const Scope& scope, Input x, Input y, DataType Tout)
      : BatchMatMulV3(scope, x, y, Tout, Attrs()) {}
  BatchMatMulV3(const Scope& scope, Input x, Input y, DataType Tout, const Attrs& attrs);
  static Attrs AdjX(bool x) { return Attrs().AdjX(x); }
  static Attrs AdjY(bool x) { return Attrs().AdjY(x); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_CONV_OPS_H_
