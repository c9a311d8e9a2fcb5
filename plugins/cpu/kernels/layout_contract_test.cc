// The pooling kernels, their gradients and BiasAdd in NHWC and in NCHW, and a binary op
// broadcasting a row over a matrix, against reference loops,
// over odd sizes and channel counts that are not multiples of a vector's width, every padding and
// a NaN (which never replaces a running maximum), through FakeHost, whose pool always cuts a loop
// into four shards.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/testing/cpu_plugin_host.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {
namespace {

// An NHWC tensor of batch x rows x cols x depth floats.
struct Image {
  int64_t batch, rows, cols, depth;
  std::vector<float> values;
  float& at(int64_t n, int64_t r, int64_t c, int64_t d) {
    return values[static_cast<size_t>(((n * rows + r) * cols + c) * depth + d)];
  }
  float at(int64_t n, int64_t r, int64_t c, int64_t d) const {
    return values[static_cast<size_t>(((n * rows + r) * cols + c) * depth + d)];
  }
};

Image MakeImage(int64_t batch, int64_t rows, int64_t cols, int64_t depth, uint32_t seed) {
  Image image{batch, rows, cols, depth, {}};
  image.values.resize(static_cast<size_t>(batch * rows * cols * depth));
  uint32_t state = seed;
  for (float& v : image.values) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / 16777216.0f * 4.0f - 2.0f;
  }
  return image;
}

FakeTensor Nhwc(const Image& image) {
  return FakeTensor::Make<float>(TSR_DTYPE_FLOAT,
                                 {image.batch, image.rows, image.cols, image.depth}, image.values);
}

FakeTensor Nchw(const Image& image) {
  std::vector<float> values;
  for (int64_t n = 0; n < image.batch; ++n) {
    for (int64_t d = 0; d < image.depth; ++d) {
      for (int64_t r = 0; r < image.rows; ++r) {
        for (int64_t c = 0; c < image.cols; ++c) values.push_back(image.at(n, r, c, d));
      }
    }
  }
  return FakeTensor::Make<float>(TSR_DTYPE_FLOAT,
                                 {image.batch, image.depth, image.rows, image.cols}, values);
}

// The NHWC image an NCHW tensor holds.
Image FromNchw(const FakeTensor& t) {
  Image image{t.dims[0], t.dims[2], t.dims[3], t.dims[1], {}};
  image.values.resize(static_cast<size_t>(t.num_elements()));
  const std::vector<float> values = t.values<float>();
  size_t i = 0;
  for (int64_t n = 0; n < image.batch; ++n) {
    for (int64_t d = 0; d < image.depth; ++d) {
      for (int64_t r = 0; r < image.rows; ++r) {
        for (int64_t c = 0; c < image.cols; ++c) image.at(n, r, c, d) = values[i++];
      }
    }
  }
  return image;
}

Image FromNhwc(const FakeTensor& t) {
  return Image{t.dims[0], t.dims[1], t.dims[2], t.dims[3], t.values<float>()};
}

struct Window {
  int64_t rows, cols, stride_rows, stride_cols;
  std::string padding;
  // TensorFlow's output size and leading padding for one dimension.
  static void Size(int64_t in, int64_t window, int64_t stride, const std::string& padding,
                   int64_t* out, int64_t* pad) {
    if (padding == "VALID") {
      *out = (in - window + stride) / stride;
      *pad = 0;
    } else {
      *out = (in + stride - 1) / stride;
      *pad = std::max<int64_t>(0, ((*out - 1) * stride + window - in) / 2);
    }
  }
};

FakeAttrs Attrs(const Window& w, bool nchw) {
  std::vector<int64_t> ksize = nchw ? std::vector<int64_t>{1, 1, w.rows, w.cols}
                                    : std::vector<int64_t>{1, w.rows, w.cols, 1};
  std::vector<int64_t> strides = nchw ? std::vector<int64_t>{1, 1, w.stride_rows, w.stride_cols}
                                      : std::vector<int64_t>{1, w.stride_rows, w.stride_cols, 1};
  return {{"ksize", FakeAttr::IntList(ksize)},
          {"strides", FakeAttr::IntList(strides)},
          {"padding", FakeAttr::String(w.padding)},
          {"data_format", FakeAttr::String(nchw ? "NCHW" : "NHWC")}};
}

// Reference pooling: the maximum (a NaN never replaces it) or the mean of each window's elements
// inside the input. `argmax` (for max) gets the flat NHWC input index of each window's first
// maximum.
Image ReferencePool(const Image& in, const Window& w, bool max, std::vector<int64_t>* argmax) {
  int64_t out_rows, out_cols, pad_top, pad_left;
  Window::Size(in.rows, w.rows, w.stride_rows, w.padding, &out_rows, &pad_top);
  Window::Size(in.cols, w.cols, w.stride_cols, w.padding, &out_cols, &pad_left);
  Image out{in.batch, out_rows, out_cols, in.depth, {}};
  out.values.resize(static_cast<size_t>(in.batch * out_rows * out_cols * in.depth));
  if (argmax != nullptr) argmax->assign(out.values.size(), -1);
  for (int64_t n = 0; n < in.batch; ++n) {
    for (int64_t r = 0; r < out_rows; ++r) {
      for (int64_t c = 0; c < out_cols; ++c) {
        for (int64_t d = 0; d < in.depth; ++d) {
          float acc = max ? std::numeric_limits<float>::lowest() : 0.0f;
          float best = 0;
          int64_t where = -1;
          int64_t count = 0;
          for (int64_t ir = r * w.stride_rows - pad_top; ir < r * w.stride_rows - pad_top + w.rows;
               ++ir) {
            for (int64_t ic = c * w.stride_cols - pad_left;
                 ic < c * w.stride_cols - pad_left + w.cols; ++ic) {
              if (ir < 0 || ir >= in.rows || ic < 0 || ic >= in.cols) continue;
              const float v = in.at(n, ir, ic, d);
              ++count;
              if (max) {
                if (acc < v) acc = v;
                if (where < 0 || best < v) {
                  best = v;
                  where = ((n * in.rows + ir) * in.cols + ic) * in.depth + d;
                }
              } else {
                acc += v;
              }
            }
          }
          out.at(n, r, c, d) = max ? acc : acc / static_cast<float>(count);
          if (argmax != nullptr) {
            (*argmax)[static_cast<size_t>(((n * out_rows + r) * out_cols + c) * in.depth + d)] =
                where;
          }
        }
      }
    }
  }
  return out;
}

void ExpectNear(const Image& expected, const Image& actual, const std::string& what) {
  ASSERT_EQ(expected.values.size(), actual.values.size()) << what;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    if (std::isnan(expected.values[i])) {
      ASSERT_TRUE(std::isnan(actual.values[i])) << what << " at " << i;  // a mean carries a NaN
    } else {
      ASSERT_NEAR(expected.values[i], actual.values[i], 1e-5f) << what << " at " << i;
    }
  }
}

const Window kWindows[] = {{2, 2, 2, 2, "VALID"}, {3, 2, 2, 1, "SAME"}, {3, 3, 1, 2, "VALID"},
                           {2, 3, 3, 2, "SAME"}};

TEST(LayoutContractTest, PoolingMatchesReferenceInBothLayouts) {
  for (int64_t depth : {1, 5, 19}) {
    Image in = MakeImage(2, 7, 9, depth, static_cast<uint32_t>(depth));
    in.at(1, 3, 4, 0) = std::nanf("");  // never replaces a running maximum; a mean carries it
    for (const Window& w : kWindows) {
      for (bool max : {true, false}) {
        const Image expected = ReferencePool(in, w, max, nullptr);
        const std::string what = std::string(max ? "MaxPool" : "AvgPool") + " depth " +
                                 std::to_string(depth) + " window " + std::to_string(w.rows) +
                                 "x" + std::to_string(w.cols) + " " + w.padding;
        for (bool nchw : {false, true}) {
          RunResult r = CpuPluginHost().Run(max ? "MaxPool" : "AvgPool",
                                            {nchw ? Nchw(in) : Nhwc(in)}, Attrs(w, nchw));
          ASSERT_EQ(r.code, TSR_CODE_OK) << what << ": " << r.message;
          ExpectNear(expected, nchw ? FromNchw(r.outputs[0]) : FromNhwc(r.outputs[0]),
                     what + (nchw ? " NCHW" : " NHWC"));
        }
      }
    }
  }
}

// MaxPool's explicit padding, and an NCHW image of one pixel whose padded output has four: its
// channels are contiguous in the input but not in the output.
TEST(LayoutContractTest, ExplicitPaddingInBothLayouts) {
  for (int64_t size : {1, 5}) {
    const Image in = MakeImage(2, size, size, 3, 21u + static_cast<uint32_t>(size));
    const int64_t out_size = size + 1;  // 2x2 window, stride 1, one pixel of padding each side
    Image expected{in.batch, out_size, out_size, in.depth, {}};
    expected.values.assign(static_cast<size_t>(in.batch * out_size * out_size * in.depth), 0.0f);
    for (int64_t n = 0; n < in.batch; ++n) {
      for (int64_t r = 0; r < out_size; ++r) {
        for (int64_t c = 0; c < out_size; ++c) {
          for (int64_t d = 0; d < in.depth; ++d) {
            float acc = std::numeric_limits<float>::lowest();
            for (int64_t ir = r - 1; ir <= r; ++ir) {
              for (int64_t ic = c - 1; ic <= c; ++ic) {
                if (ir >= 0 && ir < size && ic >= 0 && ic < size && acc < in.at(n, ir, ic, d)) {
                  acc = in.at(n, ir, ic, d);
                }
              }
            }
            expected.at(n, r, c, d) = acc;
          }
        }
      }
    }
    for (bool nchw : {false, true}) {
      FakeAttrs attrs = Attrs({2, 2, 1, 1, "EXPLICIT"}, nchw);
      attrs["explicit_paddings"] = FakeAttr::IntList(
          nchw ? std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1}
               : std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 0});
      RunResult r = CpuPluginHost().Run("MaxPool", {nchw ? Nchw(in) : Nhwc(in)}, attrs);
      ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
      ExpectNear(expected, nchw ? FromNchw(r.outputs[0]) : FromNhwc(r.outputs[0]),
                 "explicit padding, size " + std::to_string(size) + (nchw ? " NCHW" : " NHWC"));
    }
  }
}

TEST(LayoutContractTest, PoolingGradientsMatchReferenceInBothLayouts) {
  for (int64_t depth : {3, 17}) {
    const Image in = MakeImage(2, 6, 7, depth, 7u + static_cast<uint32_t>(depth));
    for (const Window& w : kWindows) {
      std::vector<int64_t> argmax;
      const Image out = ReferencePool(in, w, /*max=*/true, &argmax);
      const Image dy = MakeImage(out.batch, out.rows, out.cols, out.depth, 99u);
      // MaxPoolGrad: each output's gradient goes to its window's first maximum.
      Image max_dx{in.batch, in.rows, in.cols, in.depth,
                   std::vector<float>(in.values.size(), 0.0f)};
      for (size_t o = 0; o < argmax.size(); ++o) {
        max_dx.values[static_cast<size_t>(argmax[o])] += dy.values[o];
      }
      // AvgPoolGrad: each output's gradient spread evenly over its window inside the input.
      Image avg_dx{in.batch, in.rows, in.cols, in.depth,
                   std::vector<float>(in.values.size(), 0.0f)};
      int64_t out_rows, out_cols, pad_top, pad_left;
      Window::Size(in.rows, w.rows, w.stride_rows, w.padding, &out_rows, &pad_top);
      Window::Size(in.cols, w.cols, w.stride_cols, w.padding, &out_cols, &pad_left);
      for (int64_t n = 0; n < in.batch; ++n) {
        for (int64_t r = 0; r < out_rows; ++r) {
          for (int64_t c = 0; c < out_cols; ++c) {
            const int64_t r0 = std::max<int64_t>(0, r * w.stride_rows - pad_top);
            const int64_t r1 = std::min(in.rows, r * w.stride_rows - pad_top + w.rows);
            const int64_t c0 = std::max<int64_t>(0, c * w.stride_cols - pad_left);
            const int64_t c1 = std::min(in.cols, c * w.stride_cols - pad_left + w.cols);
            const float count = static_cast<float>((r1 - r0) * (c1 - c0));
            for (int64_t d = 0; d < in.depth; ++d) {
              for (int64_t ir = r0; ir < r1; ++ir) {
                for (int64_t ic = c0; ic < c1; ++ic) {
                  avg_dx.at(n, ir, ic, d) += dy.at(n, r, c, d) / count;
                }
              }
            }
          }
        }
      }
      const std::string what = "depth " + std::to_string(depth) + " window " +
                               std::to_string(w.rows) + "x" + std::to_string(w.cols) + " " +
                               w.padding;
      for (bool nchw : {false, true}) {
        auto layout = [&](const Image& image) { return nchw ? Nchw(image) : Nhwc(image); };
        auto back = [&](const FakeTensor& t) { return nchw ? FromNchw(t) : FromNhwc(t); };
        RunResult r = CpuPluginHost().Run("MaxPoolGrad", {layout(in), layout(out), layout(dy)},
                                          Attrs(w, nchw));
        ASSERT_EQ(r.code, TSR_CODE_OK) << what << ": " << r.message;
        ExpectNear(max_dx, back(r.outputs[0]), "MaxPoolGrad " + what);
        const std::vector<int32_t> shape =
            nchw ? std::vector<int32_t>{2, static_cast<int32_t>(depth), 6, 7}
                 : std::vector<int32_t>{2, 6, 7, static_cast<int32_t>(depth)};
        r = CpuPluginHost().Run("AvgPoolGrad",
                                {FakeTensor::Make<int32_t>(TSR_DTYPE_INT32, {4}, shape), layout(dy)},
                                Attrs(w, nchw), 1, {TSR_DTYPE_FLOAT});
        ASSERT_EQ(r.code, TSR_CODE_OK) << what << ": " << r.message;
        ExpectNear(avg_dx, back(r.outputs[0]), "AvgPoolGrad " + what);
      }
    }
  }
}

TEST(LayoutContractTest, BiasAddMatchesReferenceInBothLayouts) {
  for (int64_t depth : {1, 6, 37}) {
    const Image in = MakeImage(3, 5, 4, depth, 3u + static_cast<uint32_t>(depth));
    const Image bias_image = MakeImage(1, 1, 1, depth, 11u);
    Image expected = in;
    for (int64_t n = 0; n < in.batch; ++n) {
      for (int64_t r = 0; r < in.rows; ++r) {
        for (int64_t c = 0; c < in.cols; ++c) {
          for (int64_t d = 0; d < depth; ++d) expected.at(n, r, c, d) += bias_image.values[d];
        }
      }
    }
    const FakeTensor bias = FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {depth}, bias_image.values);
    for (bool nchw : {false, true}) {
      RunResult r = CpuPluginHost().Run(
          "BiasAdd", {nchw ? Nchw(in) : Nhwc(in), bias},
          {{"data_format", FakeAttr::String(nchw ? "NCHW" : "NHWC")}});
      ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
      ExpectNear(expected, nchw ? FromNchw(r.outputs[0]) : FromNhwc(r.outputs[0]),
                 "BiasAdd depth " + std::to_string(depth) + (nchw ? " NCHW" : " NHWC"));
    }
    // A matrix: the bias over its columns.
    const FakeTensor matrix = FakeTensor::Make<float>(
        TSR_DTYPE_FLOAT, {in.batch * in.rows * in.cols, depth}, in.values);
    RunResult r = CpuPluginHost().Run("BiasAdd", {matrix, bias}, {});
    ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
    const std::vector<float> values = r.outputs[0].values<float>();
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_NEAR(values[i], expected.values[i], 1e-6f) << "matrix depth " << depth << " at " << i;
    }
  }
}

// A row repeated over a matrix's rows, on either side of a non-commutative op, for row lengths
// below, at and above the length the kernel groups rows by.
TEST(LayoutContractTest, RowBroadcastMatchesReference) {
  for (int64_t cols : {2, 7, 32, 600}) {
    const int64_t rows = 37;
    const Image matrix = MakeImage(1, 1, rows, cols, 5u + static_cast<uint32_t>(cols));
    const Image row = MakeImage(1, 1, 1, cols, 9u);
    const FakeTensor m = FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {rows, cols}, matrix.values);
    const FakeTensor v = FakeTensor::Make<float>(TSR_DTYPE_FLOAT, {cols}, row.values);
    for (bool row_first : {false, true}) {
      RunResult r = CpuPluginHost().Run(
          "Sub", row_first ? std::vector<FakeTensor>{v, m} : std::vector<FakeTensor>{m, v},
          {{"T", FakeAttr::Type(TSR_DTYPE_FLOAT)}});
      ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
      ASSERT_EQ(r.outputs[0].dims, (std::vector<int64_t>{rows, cols}));
      const std::vector<float> values = r.outputs[0].values<float>();
      for (int64_t i = 0; i < rows * cols; ++i) {
        const float a = matrix.values[static_cast<size_t>(i)];
        const float b = row.values[static_cast<size_t>(i % cols)];
        ASSERT_EQ(values[static_cast<size_t>(i)], row_first ? b - a : a - b)
            << "cols " << cols << " row first " << row_first << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::cpu::testing
