// Reference pooling for the pooling kernel tests: TensorFlow's window geometry (VALID, SAME with
// the extra padding after, EXPLICIT) and plain loops for MaxPool, AvgPool and their gradients.
#ifndef TESSERA_TESTS_KERNELS_CPU_POOL_TEST_UTIL_H_
#define TESSERA_TESTS_KERNELS_CPU_POOL_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {

// One pooling configuration over an input of shape [batch, rows, cols, depth] (logical NHWC).
struct PoolCase {
  int64_t batch, rows, cols, depth;
  int64_t window_rows, window_cols, stride_rows, stride_cols;
  std::string padding;  // "VALID", "SAME" or "EXPLICIT"
  // EXPLICIT only: top, bottom, left, right.
  int64_t pads[4] = {0, 0, 0, 0};

  std::string Name() const {
    return "in " + std::to_string(batch) + "x" + std::to_string(rows) + "x" + std::to_string(cols) +
           "x" + std::to_string(depth) + " window " + std::to_string(window_rows) + "x" +
           std::to_string(window_cols) + " stride " + std::to_string(stride_rows) + "x" +
           std::to_string(stride_cols) + " " + padding;
  }
};

// Output size and padding before, TensorFlow's way.
inline void OutputSize(int64_t in, int64_t window, int64_t stride, const std::string& padding,
                       int64_t explicit_before, int64_t explicit_after, int64_t* out,
                       int64_t* before) {
  if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *before = std::max<int64_t>(0, (*out - 1) * stride + window - in) / 2;
  } else if (padding == "EXPLICIT") {
    *out = (in + explicit_before + explicit_after - window + stride) / stride;
    *before = explicit_before;
  } else {
    *out = (in - window + stride) / stride;
    *before = 0;
  }
}

struct PoolReference {
  explicit PoolReference(const PoolCase& c) : c(c) {
    OutputSize(c.rows, c.window_rows, c.stride_rows, c.padding, c.pads[0], c.pads[1], &out_rows,
               &pad_top);
    OutputSize(c.cols, c.window_cols, c.stride_cols, c.padding, c.pads[2], c.pads[3], &out_cols,
               &pad_left);
  }
  TensorShape InputShape(bool nchw) const { return Shape4(nchw, c.batch, c.rows, c.cols, c.depth); }
  TensorShape OutputShape(bool nchw) const {
    return Shape4(nchw, c.batch, out_rows, out_cols, c.depth);
  }

  // Calls fn(input offset) for the valid window elements of output (n, r, w, d) in row-major
  // window order.
  template <typename Fn>
  void ForWindow(const Layout4& in, int64_t n, int64_t r, int64_t w, int64_t d, Fn fn) const {
    for (int64_t i = r * c.stride_rows - pad_top; i < r * c.stride_rows - pad_top + c.window_rows;
         ++i) {
      for (int64_t j = w * c.stride_cols - pad_left;
           j < w * c.stride_cols - pad_left + c.window_cols; ++j) {
        if (i >= 0 && i < c.rows && j >= 0 && j < c.cols) fn(in.At(n, i, j, d));
      }
    }
  }

  // Calls fn(output offset, window) for every output element.
  template <typename Fn>
  void ForOutputs(bool nchw, Fn fn) const {
    const Layout4 out(OutputShape(nchw), nchw);
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t r = 0; r < out_rows; ++r) {
        for (int64_t w = 0; w < out_cols; ++w) {
          for (int64_t d = 0; d < c.depth; ++d) fn(out.At(n, r, w, d), n, r, w, d);
        }
      }
    }
  }

  std::vector<double> MaxPool(const std::vector<double>& x, bool nchw) const {
    const Layout4 in(InputShape(nchw), nchw);
    std::vector<double> y(OutputShape(nchw).num_elements());
    ForOutputs(nchw, [&](int64_t o, int64_t n, int64_t r, int64_t w, int64_t d) {
      double best = -std::numeric_limits<double>::infinity();
      ForWindow(in, n, r, w, d, [&](int64_t i) { best = std::max(best, x[i]); });
      y[o] = best;
    });
    return y;
  }

  std::vector<double> AvgPool(const std::vector<double>& x, bool nchw) const {
    const Layout4 in(InputShape(nchw), nchw);
    std::vector<double> y(OutputShape(nchw).num_elements());
    ForOutputs(nchw, [&](int64_t o, int64_t n, int64_t r, int64_t w, int64_t d) {
      double sum = 0;
      int count = 0;
      ForWindow(in, n, r, w, d, [&](int64_t i) {
        sum += x[i];
        ++count;
      });
      y[o] = sum / count;
    });
    return y;
  }

  // The gradient goes to the first maximum of each window.
  std::vector<double> MaxPoolGrad(const std::vector<double>& x, const std::vector<double>& dy,
                                  bool nchw) const {
    const Layout4 in(InputShape(nchw), nchw);
    std::vector<double> dx(x.size(), 0);
    ForOutputs(nchw, [&](int64_t o, int64_t n, int64_t r, int64_t w, int64_t d) {
      int64_t where = -1;
      ForWindow(in, n, r, w, d, [&](int64_t i) {
        if (where < 0 || x[i] > x[where]) where = i;
      });
      dx[where] += dy[o];
    });
    return dx;
  }

  std::vector<double> AvgPoolGrad(const std::vector<double>& dy, bool nchw) const {
    const Layout4 in(InputShape(nchw), nchw);
    std::vector<double> dx(InputShape(nchw).num_elements(), 0);
    ForOutputs(nchw, [&](int64_t o, int64_t n, int64_t r, int64_t w, int64_t d) {
      int count = 0;
      ForWindow(in, n, r, w, d, [&](int64_t) { ++count; });
      ForWindow(in, n, r, w, d, [&](int64_t i) { dx[i] += dy[o] / count; });
    });
    return dx;
  }

  PoolCase c;
  int64_t out_rows = 0, out_cols = 0, pad_top = 0, pad_left = 0;
};

// Sets ksize, strides, padding, data_format (and explicit_paddings) on `tester`.
inline void SetPoolAttrs(OpTester& tester, const PoolCase& c, bool nchw) {
  const std::vector<int64_t> ksize = nchw
                                         ? std::vector<int64_t>{1, 1, c.window_rows, c.window_cols}
                                         : std::vector<int64_t>{1, c.window_rows, c.window_cols, 1};
  const std::vector<int64_t> strides =
      nchw ? std::vector<int64_t>{1, 1, c.stride_rows, c.stride_cols}
           : std::vector<int64_t>{1, c.stride_rows, c.stride_cols, 1};
  tester.Attr("ksize", ksize)
      .Attr("strides", strides)
      .Attr("padding", c.padding)
      .Attr("data_format", std::string(nchw ? "NCHW" : "NHWC"));
  if (c.padding == "EXPLICIT") {
    const int rows = nchw ? 2 : 1;
    const int cols = nchw ? 3 : 2;
    std::vector<int64_t> paddings(8, 0);
    paddings[2 * rows] = c.pads[0];
    paddings[2 * rows + 1] = c.pads[1];
    paddings[2 * cols] = c.pads[2];
    paddings[2 * cols + 1] = c.pads[3];
    tester.Attr("explicit_paddings", paddings);
  }
}

// Windows over odd sizes (SAME splits an odd padding), strides above 1, windows as large as the
// input, size-1 and empty dimensions.
inline std::vector<PoolCase> PoolCases() {
  std::vector<PoolCase> cases;
  for (const char* padding : {"VALID", "SAME"}) {
    cases.push_back({1, 1, 1, 1, 1, 1, 1, 1, padding});
    cases.push_back({2, 5, 7, 3, 3, 2, 2, 1, padding});
    cases.push_back({1, 6, 6, 1, 2, 2, 2, 2, padding});
    cases.push_back({3, 4, 5, 2, 4, 5, 3, 3, padding});
    cases.push_back({2, 9, 8, 4, 3, 3, 3, 3, padding});
    cases.push_back({1, 7, 7, 5, 2, 3, 3, 2, padding});
    cases.push_back({1, 3, 3, 2, 1, 1, 2, 2, padding});
    cases.push_back({0, 4, 4, 2, 2, 2, 1, 1, padding});
    cases.push_back({2, 0, 4, 2, 1, 2, 1, 1, padding});
    cases.push_back({1, 4, 4, 0, 2, 2, 2, 2, padding});
    cases.push_back({2, 16, 15, 8, 3, 3, 2, 2, padding});
  }
  // SAME with a window larger than the input.
  cases.push_back({1, 2, 2, 1, 3, 3, 1, 1, "SAME"});
  return cases;
}

}  // namespace tessera::cpu::test

#endif  // TESSERA_TESTS_KERNELS_CPU_POOL_TEST_UTIL_H_
