// Reference loops for the convolution kernel tests: forward, input and filter gradients and
// depthwise convolution of NHWC tensors in double precision, TensorFlow's SAME split, and the
// NCHW <-> NHWC conversions of test tensors.
#ifndef TESSERA_TESTS_KERNELS_CPU_CONV_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_CONV_TEST_UTIL_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {

// One convolution: NHWC input [batch, rows, cols, depth], HWIO filter [filter_rows, filter_cols,
// depth / groups, out_depth] (for depthwise: [.., depth, multiplier]).
struct ConvCase {
  int64_t batch = 1, rows = 5, cols = 5, depth = 3;
  int64_t filter_rows = 3, filter_cols = 3, out_depth = 4;
  int64_t groups = 1;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  std::string padding = "SAME";
  // For EXPLICIT: top, bottom, left, right.
  std::vector<int64_t> pads = {0, 0, 0, 0};
  bool nchw = false;

  std::string Name() const {
    return absl::StrCat("n", batch, " ", rows, "x", cols, "x", depth, " f", filter_rows, "x",
                        filter_cols, "x", out_depth, " g", groups, " s", stride_rows, ",",
                        stride_cols, " d", dilation_rows, ",", dilation_cols, " ", padding,
                        nchw ? " NCHW" : " NHWC");
  }
  int64_t FilterDepth() const { return depth / groups; }
  // Output size and padding before of one dimension, as TensorFlow computes them.
  void Window(int64_t input, int64_t filter, int64_t stride, int64_t dilation, int64_t pad_before,
              int64_t pad_after, int64_t* output, int64_t* before) const {
    const int64_t effective = (filter - 1) * dilation + 1;
    if (padding == "VALID") {
      *output = (input - effective + stride) / stride;
      *before = 0;
    } else if (padding == "EXPLICIT") {
      *output = (input + pad_before + pad_after - effective + stride) / stride;
      *before = pad_before;
    } else {
      *output = (input + stride - 1) / stride;
      *before = std::max<int64_t>(0, (*output - 1) * stride + effective - input) / 2;
    }
  }
  int64_t OutRows() const {
    int64_t out, before;
    Window(rows, filter_rows, stride_rows, dilation_rows, pads[0], pads[1], &out, &before);
    return out;
  }
  int64_t OutCols() const {
    int64_t out, before;
    Window(cols, filter_cols, stride_cols, dilation_cols, pads[2], pads[3], &out, &before);
    return out;
  }
  int64_t PadTop() const {
    int64_t out, before;
    Window(rows, filter_rows, stride_rows, dilation_rows, pads[0], pads[1], &out, &before);
    return before;
  }
  int64_t PadLeft() const {
    int64_t out, before;
    Window(cols, filter_cols, stride_cols, dilation_cols, pads[2], pads[3], &out, &before);
    return before;
  }
  // Shapes in the case's data format.
  TensorShape Format(int64_t n, int64_t h, int64_t w, int64_t c) const {
    return nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c});
  }
  std::vector<int64_t> Strides() const {
    return nchw ? std::vector<int64_t>{1, 1, stride_rows, stride_cols}
                : std::vector<int64_t>{1, stride_rows, stride_cols, 1};
  }
  std::vector<int64_t> Dilations() const {
    return nchw ? std::vector<int64_t>{1, 1, dilation_rows, dilation_cols}
                : std::vector<int64_t>{1, dilation_rows, dilation_cols, 1};
  }
  std::vector<int64_t> ExplicitPaddings() const {
    if (padding != "EXPLICIT") return {};
    return nchw ? std::vector<int64_t>{0, 0, 0, 0, pads[0], pads[1], pads[2], pads[3]}
                : std::vector<int64_t>{0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0};
  }
  // Sets strides, dilations, padding, explicit_paddings and data_format on `tester`.
  void SetAttrs(OpTester& tester) const {
    tester.Attr("strides", Strides())
        .Attr("dilations", Dilations())
        .Attr("padding", padding)
        .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"));
    if (padding == "EXPLICIT") tester.Attr("explicit_paddings", ExplicitPaddings());
  }

  // Calls fn(b, oy, ox, iy, ix, kh, kw) for every window tap that reads the input.
  template <typename Fn>
  void ForEachTap(Fn fn) const {
    const int64_t top = PadTop(), left = PadLeft();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t oy = 0; oy < OutRows(); ++oy) {
        for (int64_t ox = 0; ox < OutCols(); ++ox) {
          for (int64_t kh = 0; kh < filter_rows; ++kh) {
            const int64_t iy = oy * stride_rows - top + kh * dilation_rows;
            if (iy < 0 || iy >= rows) continue;
            for (int64_t kw = 0; kw < filter_cols; ++kw) {
              const int64_t ix = ox * stride_cols - left + kw * dilation_cols;
              if (ix < 0 || ix >= cols) continue;
              fn(b, oy, ox, iy, ix, kh, kw);
            }
          }
        }
      }
    }
  }
};

// NHWC <-> NCHW copies of a 4-D test tensor.
template <typename T>
Tensor ToNchw(const Tensor& nhwc) {
  const TensorShape& s = nhwc.shape();
  Tensor out(nhwc.dtype(), TensorShape({s.dim(0), s.dim(3), s.dim(1), s.dim(2)}));
  for (int64_t b = 0; b < s.dim(0); ++b)
    for (int64_t y = 0; y < s.dim(1); ++y)
      for (int64_t x = 0; x < s.dim(2); ++x)
        for (int64_t c = 0; c < s.dim(3); ++c)
          out.data<T>()[((b * s.dim(3) + c) * s.dim(1) + y) * s.dim(2) + x] =
              nhwc.data<T>()[((b * s.dim(1) + y) * s.dim(2) + x) * s.dim(3) + c];
  return out;
}
template <typename T>
std::vector<T> NhwcValuesToNchw(const std::vector<T>& nhwc, int64_t n, int64_t h, int64_t w,
                                int64_t c) {
  std::vector<T> out(nhwc.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t d = 0; d < c; ++d)
          out[((b * c + d) * h + y) * w + x] = nhwc[((b * h + y) * w + x) * c + d];
  return out;
}

// Forward convolution (grouped when groups > 1) of NHWC input and HWIO filter.
template <typename T>
std::vector<T> ReferenceConv(const ConvCase& k, const Tensor& input, const Tensor& filter) {
  const int64_t fd = k.FilterDepth(), group_out = k.out_depth / k.groups;
  std::vector<double> out(static_cast<size_t>(k.batch * k.OutRows() * k.OutCols() * k.out_depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        double* o = &out[((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth];
        const T* in = input.data<T>() + ((b * k.rows + iy) * k.cols + ix) * k.depth;
        const T* f = filter.data<T>() + (kh * k.filter_cols + kw) * fd * k.out_depth;
        for (int64_t oc = 0; oc < k.out_depth; ++oc) {
          const int64_t g = oc / group_out;
          for (int64_t c = 0; c < fd; ++c) {
            o[oc] += static_cast<double>(in[g * fd + c]) * f[c * k.out_depth + oc];
          }
        }
      });
  return std::vector<T>(out.begin(), out.end());
}

// d(input) of ReferenceConv for out_backprop `dy` (NHWC).
template <typename T>
std::vector<T> ReferenceConvInputGrad(const ConvCase& k, const Tensor& filter, const Tensor& dy) {
  const int64_t fd = k.FilterDepth(), group_out = k.out_depth / k.groups;
  std::vector<double> dx(static_cast<size_t>(k.batch * k.rows * k.cols * k.depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        const T* g_out = dy.data<T>() + ((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth;
        double* d = &dx[((b * k.rows + iy) * k.cols + ix) * k.depth];
        const T* f = filter.data<T>() + (kh * k.filter_cols + kw) * fd * k.out_depth;
        for (int64_t oc = 0; oc < k.out_depth; ++oc) {
          const int64_t g = oc / group_out;
          for (int64_t c = 0; c < fd; ++c) {
            d[g * fd + c] += static_cast<double>(g_out[oc]) * f[c * k.out_depth + oc];
          }
        }
      });
  return std::vector<T>(dx.begin(), dx.end());
}

// d(filter) of ReferenceConv for input `input` and out_backprop `dy` (NHWC).
template <typename T>
std::vector<T> ReferenceConvFilterGrad(const ConvCase& k, const Tensor& input, const Tensor& dy) {
  const int64_t fd = k.FilterDepth(), group_out = k.out_depth / k.groups;
  std::vector<double> dw(static_cast<size_t>(k.filter_rows * k.filter_cols * fd * k.out_depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        const T* g_out = dy.data<T>() + ((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth;
        const T* in = input.data<T>() + ((b * k.rows + iy) * k.cols + ix) * k.depth;
        double* d = &dw[(kh * k.filter_cols + kw) * fd * k.out_depth];
        for (int64_t oc = 0; oc < k.out_depth; ++oc) {
          const int64_t g = oc / group_out;
          for (int64_t c = 0; c < fd; ++c) {
            d[c * k.out_depth + oc] += static_cast<double>(in[g * fd + c]) * g_out[oc];
          }
        }
      });
  return std::vector<T>(dw.begin(), dw.end());
}

// Depthwise convolution: filter [filter_rows, filter_cols, depth, out_depth / depth].
template <typename T>
std::vector<T> ReferenceDepthwise(const ConvCase& k, const Tensor& input, const Tensor& filter) {
  const int64_t multiplier = k.out_depth / k.depth;
  std::vector<double> out(static_cast<size_t>(k.batch * k.OutRows() * k.OutCols() * k.out_depth));
  k.ForEachTap(
      [&](int64_t b, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t kh, int64_t kw) {
        double* o = &out[((b * k.OutRows() + oy) * k.OutCols() + ox) * k.out_depth];
        const T* in = input.data<T>() + ((b * k.rows + iy) * k.cols + ix) * k.depth;
        const T* f = filter.data<T>() + (kh * k.filter_cols + kw) * k.out_depth;
        for (int64_t c = 0; c < k.depth; ++c) {
          for (int64_t q = 0; q < multiplier; ++q) {
            o[c * multiplier + q] += static_cast<double>(in[c]) * f[c * multiplier + q];
          }
        }
      });
  return std::vector<T>(out.begin(), out.end());
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_CONV_TEST_UTIL_H_
