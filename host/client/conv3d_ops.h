// Typed wrappers of TensorFlow's 3-D convolution and pooling ops: Conv3D,
// Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D, AvgPool3D, MaxPool3DGrad and
// AvgPool3DGrad.
//
// Each wrapper adds one node with TensorFlow's op name, input order and attrs (defaults written
// out, as TensorFlow's NodeBuilder does), converts to its Output, and keeps `operation`.
#ifndef TESSERA_HOST_CLIENT_CONV3D_OPS_H_
#define TESSERA_HOST_CLIENT_CONV3D_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// The optional attrs of the 3-D convolutions: data_format ("NDHWC", the default, or "NCDHW")
// and dilations (5 values in the data format's order, default all 1).
struct Conv3DAttrs {
  Conv3DAttrs DataFormat(std::string x) const {
    Conv3DAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  Conv3DAttrs Dilations(std::vector<int64_t> x) const {
    Conv3DAttrs ret = *this;
    ret.dilations_ = std::move(x);
    return ret;
  }
  std::string data_format_ = "NDHWC";
  std::vector<int64_t> dilations_ = {1, 1, 1, 1, 1};
};

// The data_format attr of the 3-D poolings: "NDHWC" (the default) or "NCDHW".
struct Pool3DAttrs {
  Pool3DAttrs DataFormat(std::string x) const {
    Pool3DAttrs ret = *this;
    ret.data_format_ = std::move(x);
    return ret;
  }
  std::string data_format_ = "NDHWC";
};

// The 3-D convolution of `input` (NDHWC or NCDHW) with `filter` [planes, rows, cols, in_depth,
// out_depth], moved by `strides` (5 values in the data format's order) with padding "SAME" or
// "VALID". Attrs T, strides, padding, data_format, dilations.
class Conv3D {
 public:
  using Attrs = Conv3DAttrs;
  Conv3D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
         const std::string& padding)
      : Conv3D(scope, input, filter, strides, padding, Attrs()) {}
  Conv3D(const Scope& scope, Input input, Input filter, const std::vector<int64_t>& strides,
         const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs Dilations(std::vector<int64_t> x) { return Attrs().Dilations(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Conv3D's gradient with respect to its input, whose shape `input_sizes` gives (int32 or
// int64, 5 values). Attrs T, strides, padding, data_format, dilations, Tshape.
class Conv3DBackpropInputV2 {
 public:
  using Attrs = Conv3DAttrs;
  Conv3DBackpropInputV2(const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
                        const std::vector<int64_t>& strides, const std::string& padding)
      : Conv3DBackpropInputV2(scope, input_sizes, filter, out_backprop, strides, padding, Attrs()) {
  }
  Conv3DBackpropInputV2(const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
                        const std::vector<int64_t>& strides, const std::string& padding,
                        const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs Dilations(std::vector<int64_t> x) { return Attrs().Dilations(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// Conv3D's gradient with respect to its filter, whose shape `filter_sizes` gives (int32, 5
// values).
class Conv3DBackpropFilterV2 {
 public:
  using Attrs = Conv3DAttrs;
  Conv3DBackpropFilterV2(const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
                         const std::vector<int64_t>& strides, const std::string& padding)
      : Conv3DBackpropFilterV2(scope, input, filter_sizes, out_backprop, strides, padding,
                               Attrs()) {}
  Conv3DBackpropFilterV2(const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
                         const std::vector<int64_t>& strides, const std::string& padding,
                         const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  static Attrs Dilations(std::vector<int64_t> x) { return Attrs().Dilations(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// The maximum (MaxPool3D) or mean (AvgPool3D) over windows of `ksize` moved by `strides` (5
// values each, in the data format's order) with padding "SAME" or "VALID". Attrs ksize,
// strides, padding, data_format, T.
class MaxPool3D {
 public:
  using Attrs = Pool3DAttrs;
  MaxPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
            const std::vector<int64_t>& strides, const std::string& padding)
      : MaxPool3D(scope, input, ksize, strides, padding, Attrs()) {}
  MaxPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
            const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

class AvgPool3D {
 public:
  using Attrs = Pool3DAttrs;
  AvgPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
            const std::vector<int64_t>& strides, const std::string& padding)
      : AvgPool3D(scope, input, ksize, strides, padding, Attrs()) {}
  AvgPool3D(const Scope& scope, Input input, const std::vector<int64_t>& ksize,
            const std::vector<int64_t>& strides, const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// MaxPool3D's gradient: each window's `grad` goes to the elements of orig_input within 1e-5 of
// its maximum (TensorFlow's CPU rule). Attrs ksize, strides, padding, data_format, T, TInput.
class MaxPool3DGrad {
 public:
  using Attrs = Pool3DAttrs;
  MaxPool3DGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                const std::string& padding)
      : MaxPool3DGrad(scope, orig_input, orig_output, grad, ksize, strides, padding, Attrs()) {}
  MaxPool3DGrad(const Scope& scope, Input orig_input, Input orig_output, Input grad,
                const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// AvgPool3D's gradient for an input of shape `orig_input_shape` (int32, 5 values).
class AvgPool3DGrad {
 public:
  using Attrs = Pool3DAttrs;
  AvgPool3DGrad(const Scope& scope, Input orig_input_shape, Input grad,
                const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                const std::string& padding)
      : AvgPool3DGrad(scope, orig_input_shape, grad, ksize, strides, padding, Attrs()) {}
  AvgPool3DGrad(const Scope& scope, Input orig_input_shape, Input grad,
                const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                const std::string& padding, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_CONV3D_OPS_H_
