// The attributes and geometry shared by the 2-D convolution kernels (Conv2D, its two gradients,
// DepthwiseConv2dNative), checked with TensorFlow's rules and messages, and the NCHW <-> NHWC
// transposes that let every kernel compute in NHWC.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
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

  // The window taps, one spatial dimension at a time. Output row `oy` reads input row
  // InputRow(oy, kh) through filter row `kh` (outside [0, in_rows) where it reads padding);
  // OutputRow(iy, kh) is the output row whose tap `kh` reads input row `iy`, or -1 when none
  // does. The same for columns.
  int64_t InputRow(int64_t oy, int64_t kh) const {
    return oy * stride_rows - pad_top + kh * dilation_rows;
  }
  int64_t InputCol(int64_t ox, int64_t kw) const {
    return ox * stride_cols - pad_left + kw * dilation_cols;
  }
  int64_t OutputRow(int64_t iy, int64_t kh) const {
    return TapSource(iy + pad_top - kh * dilation_rows, stride_rows, out_rows);
  }
  int64_t OutputCol(int64_t ix, int64_t kw) const {
    return TapSource(ix + pad_left - kw * dilation_cols, stride_cols, out_cols);
  }
  // The output rows [*begin, *end) whose tap `kh` reads an input row, not padding; the same for
  // columns.
  void OutputRowsReading(int64_t kh, int64_t* begin, int64_t* end) const {
    TapRange(kh * dilation_rows - pad_top, stride_rows, in_rows, out_rows, begin, end);
  }
  void OutputColsReading(int64_t kw, int64_t* begin, int64_t* end) const {
    TapRange(kw * dilation_cols - pad_left, stride_cols, in_cols, out_cols, begin, end);
  }

 private:
  static int64_t TapSource(int64_t offset, int64_t stride, int64_t outputs) {
    if (offset < 0 || offset % stride != 0 || offset / stride >= outputs) return -1;
    return offset / stride;
  }
  // The outputs o in [0, outputs) whose tap o * stride + offset lies in [0, inputs).
  static void TapRange(int64_t offset, int64_t stride, int64_t inputs, int64_t outputs,
                       int64_t* begin, int64_t* end) {
    *begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    *end = inputs - offset <= 0 ? 0 : std::min(outputs, (inputs - offset + stride - 1) / stride);
    *end = std::max(*begin, *end);
  }
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

// NHWC copies of NCHW operands and results, or the tensors themselves for NHWC.
template <typename T>
class NhwcBuffers {
 public:
  explicit NhwcBuffers(bool nchw, TSR_ThreadPool* pool) : nchw_(nchw), pool_(pool) {}
  // `data` ([batch, depth, rows, cols] when NCHW) as NHWC.
  const T* In(const T* data, int64_t batch, int64_t rows, int64_t cols, int64_t depth) {
    if (!nchw_) return data;
    inputs_.emplace_back(new T[static_cast<size_t>(batch * rows * cols * depth)]);
    NchwToNhwc(data, batch, depth, rows, cols, inputs_.back().get(), pool_);
    return inputs_.back().get();
  }
  // Where to compute an NHWC result destined for `data`.
  T* Out(T* data, int64_t size) {
    if (!nchw_) return data;
    output_.reset(new T[static_cast<size_t>(size)]);
    return output_.get();
  }
  // Moves the result computed in Out() into `data` ([batch, depth, rows, cols] when NCHW).
  void Finish(T* data, int64_t batch, int64_t rows, int64_t cols, int64_t depth) {
    if (nchw_) NhwcToNchw(output_.get(), batch, rows, cols, depth, data, pool_);
  }

 private:
  bool nchw_;
  TSR_ThreadPool* pool_;
  std::vector<std::unique_ptr<T[]>> inputs_;
  std::unique_ptr<T[]> output_;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CONV_PARAMS_H_
