// Pooling attributes (ksize, strides, padding, explicit_paddings, data_format) checked as
// TensorFlow checks them, and the window geometry of one 4-D input that the MaxPool, AvgPool and
// gradient kernels share.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_POOLING_H_
#define TESSERA_PLUGINS_CPU_KERNELS_POOLING_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// The attributes of one pooling node, read in the kernel's constructor.
struct PoolAttrs {
  // Reads and checks the attributes; the first error goes to ctx.SetStatus. `allow_explicit`:
  // the op accepts padding "EXPLICIT" (MaxPool, MaxPoolGrad). Without `window_attrs` (MaxPoolV2,
  // MaxPoolGradV2) ksize and strides come later, from SetWindow.
  void Parse(KernelConstruction& ctx, bool allow_explicit, bool window_attrs = true);
  // Sets ksize and strides from the values of int32 tensors and checks them as Parse does.
  Status SetWindow(const TensorView& ksize_values, const TensorView& stride_values);

  // Dimension indices of N, H, W, C in the data format.
  int batch_dim() const { return 0; }
  int rows_dim() const { return channels_first ? 2 : 1; }
  int cols_dim() const { return channels_first ? 3 : 2; }
  int depth_dim() const { return channels_first ? 1 : 3; }

  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string padding;  // "SAME", "VALID" or "EXPLICIT"
  std::vector<int64_t> explicit_paddings;
  bool channels_first = false;  // NCHW
};

// Where each window of a spatial pooling lies over one input, and the element strides of the
// input and output (which differ between NHWC and NCHW).
struct PoolGeometry {
  // TensorFlow's GetWindowedOutputSizeVerbose for rows and columns of `input` (rank 4).
  Status Init(const PoolAttrs& attrs, const Shape& input);

  Shape InputShape(bool channels_first) const;
  Shape OutputShape(bool channels_first) const;

  // First input row of output row `r` (may be negative: padding), and the valid rows [begin,
  // end) of its window; the same for columns.
  int64_t RowStart(int64_t r) const { return r * stride_rows - pad_top; }
  int64_t ColStart(int64_t c) const { return c * stride_cols - pad_left; }
  int64_t RowBegin(int64_t r) const { return std::max<int64_t>(RowStart(r), 0); }
  int64_t RowEnd(int64_t r) const { return std::min(RowStart(r) + window_rows, rows); }
  int64_t ColBegin(int64_t c) const { return std::max<int64_t>(ColStart(c), 0); }
  int64_t ColEnd(int64_t c) const { return std::min(ColStart(c) + window_cols, cols); }
  // The output rows [first, last] whose windows contain input row `r` (empty when last < first);
  // the same for columns.
  int64_t FirstOutputRow(int64_t r) const {
    return FirstCovering(r, pad_top, window_rows, stride_rows);
  }
  int64_t LastOutputRow(int64_t r) const {
    return std::min((r + pad_top) / stride_rows, out_rows - 1);
  }
  int64_t FirstOutputCol(int64_t c) const {
    return FirstCovering(c, pad_left, window_cols, stride_cols);
  }
  int64_t LastOutputCol(int64_t c) const {
    return std::min((c + pad_left) / stride_cols, out_cols - 1);
  }

  // Offsets of element (n, r, c, channel 0) in the input and in the output; channel d adds
  // d * in_depth_stride (out_depth_stride).
  int64_t InputOffset(int64_t n, int64_t r, int64_t c) const {
    return n * in_batch_stride + r * in_row_stride + c * in_col_stride;
  }
  int64_t OutputOffset(int64_t n, int64_t r, int64_t c) const {
    return n * out_batch_stride + r * out_row_stride + c * out_col_stride;
  }

  int64_t batch = 0, rows = 0, cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1, stride_rows = 1, stride_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_rows = 0, out_cols = 0;
  // Element strides; `*_depth_stride` is 1 for NHWC.
  int64_t in_batch_stride = 0, in_row_stride = 0, in_col_stride = 0, in_depth_stride = 0;
  int64_t out_batch_stride = 0, out_row_stride = 0, out_col_stride = 0, out_depth_stride = 0;

 private:
  static int64_t FirstCovering(int64_t i, int64_t pad, int64_t window, int64_t stride) {
    const int64_t reach = i + pad - window;  // the window of output o covers i iff o*s > reach
    return reach < 0 ? 0 : reach / stride + 1;
  }
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_POOLING_H_
