// The attributes and geometry shared by the 2-D convolution kernels (Conv2D, its two gradients,
// DepthwiseConv2dNative), checked with TensorFlow's rules and messages, and the NCHW <-> NHWC
// transposes that let every kernel compute in NHWC.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// strides, dilations, padding, explicit_paddings and data_format of one node.
struct ConvAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::string padding;  // "SAME", "VALID" or "EXPLICIT"
  std::vector<int64_t> explicit_paddings;
  bool nchw = false;

  int batch_dim() const { return 0; }
  int rows_dim() const { return nchw ? 2 : 1; }
  int cols_dim() const { return nchw ? 3 : 2; }
  int depth_dim() const { return nchw ? 1 : 3; }
  // A 4-D shape in this data format's order.
  Shape MakeShape(int64_t batch, int64_t rows, int64_t cols, int64_t depth) const;
};

// Reads and checks the attributes as TensorFlow's InitConv2DParameters does. DepthwiseConv2dNative
// (`depthwise`) also requires equal row and column strides, as TensorFlow's kernel does.
Status ReadConvAttrs(KernelConstruction& ctx, bool depthwise, ConvAttrs* attrs);

// One convolution in NHWC terms: input [batch, in_rows, in_cols, in_depth], filter
// [filter_rows, filter_cols, filter_depth, out_depth] (HWIO; for depthwise filter_depth is
// in_depth and out_depth is in_depth * multiplier), output [batch, out_rows, out_cols, out_depth].
// Paddings are the resolved ones (SAME split as TensorFlow does: the extra row at the end).
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, filter_depth = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  int64_t groups() const { return in_depth / filter_depth; }
  // Whether the convolution is a plain product: 1x1 window, unit strides, no padding.
  bool IsPointwise() const;
  // Rows of the implicit GEMM (batch * out_rows * out_cols) and its depth per group
  // (filter_rows * filter_cols * filter_depth).
  int64_t gemm_rows() const { return batch * out_rows * out_cols; }
  int64_t gemm_depth() const { return filter_rows * filter_cols * filter_depth; }
};

// TensorFlow's GetWindowedOutputSizeVerboseV2 for one spatial dimension: the output size and
// the paddings before and after (given for EXPLICIT, computed for SAME, zero for VALID).
Status WindowedOutputSize(int64_t input, int64_t filter, int64_t dilation, int64_t stride,
                          const std::string& padding, int64_t* output, int64_t* pad_before,
                          int64_t* pad_after);

// Conv2D's geometry from its input and filter shapes (TensorFlow's ComputeConv2DDimension),
// grouped when the input depth is a multiple of the filter depth.
Status ComputeConv2DGeometry(const ConvAttrs& attrs, const Shape& input, const Shape& filter,
                             ConvGeometry* geometry);

// DepthwiseConv2dNative's geometry from input [.., in_depth] and filter [rows, cols, in_depth,
// multiplier]: a convolution with one group per input channel (filter_depth 1, out_depth
// in_depth * multiplier), whose filter is laid out as the grouped HWIO filter would be.
Status ComputeDepthwiseGeometry(const ConvAttrs& attrs, const Shape& input, const Shape& filter,
                                ConvGeometry* geometry);

// The gradients' geometry (TensorFlow's ConvBackpropComputeDimensionsV2); `label` starts every
// message ("Conv2DCustomBackpropInput").
Status ComputeConvBackpropGeometry(const char* label, const ConvAttrs& attrs, const Shape& input,
                                   const Shape& filter, const Shape& out_backprop,
                                   ConvGeometry* geometry);

// 4-D layout changes between NCHW and NHWC, spread over the pool.
template <typename T>
void NchwToNhwc(const T* in, int64_t batch, int64_t depth, int64_t rows, int64_t cols, T* out,
                TSR_ThreadPool* pool);
template <typename T>
void NhwcToNchw(const T* in, int64_t batch, int64_t rows, int64_t cols, int64_t depth, T* out,
                TSR_ThreadPool* pool);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_
