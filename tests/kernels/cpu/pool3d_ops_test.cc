// MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad in NDHWC and NCDHW against reference
// loops (VALID and SAME, strides, windows past the input, size-1 and empty dimensions), the
// values TensorFlow gives for windows of -inf, and TensorFlow's errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// One pooling of an NDHWC input [batch, in[0..2], depth].
struct Pool3DCase {
  int64_t batch = 2, depth = 3;
  int64_t in[3] = {4, 5, 6};
  int64_t window[3] = {2, 3, 2};
  int64_t stride[3] = {1, 2, 2};
  std::string padding = "SAME";
  bool ncdhw = false;

  std::string Name() const {
    return absl::StrCat("n", batch, " in ", in[0], "x", in[1], "x", in[2], "x", depth, " k ",
                        window[0], window[1], window[2], " s ", stride[0], stride[1], stride[2],
                        " ", padding, ncdhw ? " NCDHW" : " NDHWC");
  }
  int64_t Out(int i) const {
    if (padding == "VALID")
      return std::max<int64_t>(0, (in[i] - window[i] + stride[i]) / stride[i]);
    return (in[i] + stride[i] - 1) / stride[i];
  }
  int64_t PadBefore(int i) const {
    if (padding == "VALID") return 0;
    return std::max<int64_t>(0, (Out(i) - 1) * stride[i] + window[i] - in[i]) / 2;
  }
  std::vector<int64_t> Format(std::vector<int64_t> ndhwc) const {
    if (!ncdhw) return ndhwc;
    return {ndhwc[0], ndhwc[4], ndhwc[1], ndhwc[2], ndhwc[3]};
  }
  TensorShape InputShape() const {
    return TensorShape(Format({batch, in[0], in[1], in[2], depth}));
  }
  TensorShape OutputShape() const {
    return TensorShape(Format({batch, Out(0), Out(1), Out(2), depth}));
  }
  void SetAttrs(OpTester& tester) const {
    tester.Attr("ksize", Format({1, window[0], window[1], window[2], 1}))
        .Attr("strides", Format({1, stride[0], stride[1], stride[2], 1}))
        .Attr("padding", padding)
        .Attr("data_format", std::string(ncdhw ? "NCDHW" : "NDHWC"));
  }
  // Linear offset of (b, spatial, channel) in this case's layout.
  int64_t Offset(int64_t b, const int64_t p[3], const int64_t size[3], int64_t d) const {
    const int64_t spatial = (p[0] * size[1] + p[1]) * size[2] + p[2];
    const int64_t volume = size[0] * size[1] * size[2];
    return ncdhw ? (b * depth + d) * volume + spatial : (b * volume + spatial) * depth + d;
  }
  // fn(output offset, input offsets of the window's valid elements, window reaches padding).
  template <typename Fn>
  void ForEachWindow(Fn fn) const {
    const int64_t out[3] = {Out(0), Out(1), Out(2)};
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t d = 0; d < depth; ++d) {
        int64_t o[3];
        for (o[0] = 0; o[0] < out[0]; ++o[0]) {
          for (o[1] = 0; o[1] < out[1]; ++o[1]) {
            for (o[2] = 0; o[2] < out[2]; ++o[2]) {
              std::vector<int64_t> inputs;
              bool padded = false;
              int64_t i[3];
              for (int64_t k0 = 0; k0 < window[0]; ++k0) {
                for (int64_t k1 = 0; k1 < window[1]; ++k1) {
                  for (int64_t k2 = 0; k2 < window[2]; ++k2) {
                    const int64_t k[3] = {k0, k1, k2};
                    bool inside = true;
                    for (int j = 0; j < 3; ++j) {
                      i[j] = o[j] * stride[j] - PadBefore(j) + k[j];
                      inside = inside && i[j] >= 0 && i[j] < in[j];
                    }
                    if (inside) {
                      inputs.push_back(Offset(b, i, in, d));
                    } else {
                      padded = true;
                    }
                  }
                }
              }
              fn(Offset(b, o, out, d), inputs, padded);
            }
          }
        }
      }
    }
  }
};

std::vector<Pool3DCase> Cases() {
  std::vector<Pool3DCase> cases;
  Pool3DCase base;
  cases.push_back(base);
  Pool3DCase valid = base;
  valid.padding = "VALID";
  cases.push_back(valid);
  Pool3DCase wide = base;  // Windows wider than the input in one dimension.
  wide.window[2] = 8;
  wide.stride[0] = 3;
  cases.push_back(wide);
  Pool3DCase ones = base;
  ones.batch = ones.depth = 1;
  ones.in[0] = 1;
  ones.window[0] = 1;
  cases.push_back(ones);
  Pool3DCase big = base;  // Enough work for the pool.
  big.batch = 3;
  big.depth = 8;
  big.in[0] = 9;
  big.in[1] = 10;
  big.in[2] = 11;
  big.window[0] = big.window[1] = big.window[2] = 3;
  big.stride[0] = 2;
  cases.push_back(big);
  std::vector<Pool3DCase> all = cases;
  for (Pool3DCase c : cases) {
    c.ncdhw = true;
    all.push_back(c);
  }
  return all;
}

template <typename T>
std::vector<T> ValuesOf(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

template <typename T>
void CheckForward(const std::string& op, const Pool3DCase& c) {
  SCOPED_TRACE(op + " " + c.Name());
  Tensor x = Random<T>(c.InputShape(), -10, 10);
  const T* xs = x.data<T>();
  std::vector<T> expected(static_cast<size_t>(c.OutputShape().num_elements()));
  c.ForEachWindow([&](int64_t o, const std::vector<int64_t>& inputs, bool padded) {
    if (op == "MaxPool3D") {
      double best =
          padded ? -std::numeric_limits<float>::max() : -std::numeric_limits<double>::infinity();
      for (int64_t i : inputs) best = std::max<double>(best, xs[i]);
      expected[o] = static_cast<T>(best);
    } else {
      double sum = 0;
      for (int64_t i : inputs) sum += xs[i];
      expected[o] = static_cast<T>(sum / static_cast<double>(inputs.size()));
    }
  });
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value);
  c.SetAttrs(tester);
  tester.Input(x);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, c.OutputShape(), expected,
                      sizeof(T) == 4 ? 1e-6 : 1e-12);
}

template <typename T>
void CheckMaxGrad(const Pool3DCase& c) {
  SCOPED_TRACE(c.Name());
  Tensor x = Random<T>(c.InputShape(), -10, 10);
  Tensor dy = Random<T>(c.OutputShape(), -1, 1);
  std::vector<T> y(static_cast<size_t>(c.OutputShape().num_elements()));
  std::vector<double> dx(static_cast<size_t>(c.InputShape().num_elements()), 0.0);
  const T* xs = x.data<T>();
  c.ForEachWindow([&](int64_t o, const std::vector<int64_t>& inputs, bool padded) {
    T best = padded ? -std::numeric_limits<float>::max() : -std::numeric_limits<T>::infinity();
    for (int64_t i : inputs) best = std::max(best, xs[i]);
    y[o] = best;
    // Every element within 1e-5 of the maximum receives the gradient, as on TensorFlow's CPU.
    for (int64_t i : inputs) {
      if (std::abs(xs[i] - best) < T(1e-5)) dx[i] += dy.data<T>()[o];
    }
  });
  OpTester tester("MaxPool3DGrad");
  tester.Attr("T", DataTypeOf<T>::value).Attr("TInput", DataTypeOf<T>::value);
  c.SetAttrs(tester);
  tester.Input(x).Input(Make<T>(c.OutputShape(), y)).Input(dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, c.InputShape(),
                      std::vector<T>(dx.begin(), dx.end()), 1e-5);
}

template <typename T>
void CheckAvgGrad(const Pool3DCase& c) {
  SCOPED_TRACE(c.Name());
  Tensor dy = Random<T>(c.OutputShape(), -1, 1);
  std::vector<double> dx(static_cast<size_t>(c.InputShape().num_elements()), 0.0);
  c.ForEachWindow([&](int64_t o, const std::vector<int64_t>& inputs, bool) {
    for (int64_t i : inputs) dx[i] += dy.data<T>()[o] / static_cast<double>(inputs.size());
  });
  std::vector<int32_t> sizes;
  for (int d = 0; d < 5; ++d) sizes.push_back(static_cast<int32_t>(c.InputShape().dim(d)));
  OpTester tester("AvgPool3DGrad");
  tester.Attr("T", DataTypeOf<T>::value);
  c.SetAttrs(tester);
  tester.Input(Tensor::Vector<int32_t>(sizes)).Input(dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, c.InputShape(),
                      std::vector<T>(dx.begin(), dx.end()), sizeof(T) == 4 ? 1e-5 : 1e-12);
}

TEST(MaxPool3DOpTest, MatchesReference) {
  for (const Pool3DCase& c : Cases()) CheckForward<float>("MaxPool3D", c);
}

TEST(AvgPool3DOpTest, MatchesReference) {
  for (const Pool3DCase& c : Cases()) {
    CheckForward<float>("AvgPool3D", c);
    CheckForward<double>("AvgPool3D", c);
  }
}

TEST(MaxPool3DGradOpTest, MatchesReference) {
  for (const Pool3DCase& c : Cases()) CheckMaxGrad<float>(c);
}

TEST(AvgPool3DGradOpTest, MatchesReference) {
  for (const Pool3DCase& c : Cases()) {
    CheckAvgGrad<float>(c);
    CheckAvgGrad<double>(c);
  }
}

TEST(Pool3DOpTest, EmptyBatch) {
  Pool3DCase c;
  c.batch = 0;
  CheckForward<float>("MaxPool3D", c);
  CheckForward<double>("AvgPool3D", c);
  CheckMaxGrad<float>(c);
  CheckAvgGrad<float>(c);
}

TEST(MaxPool3DOpTest, WindowsOfMinusInfinity) {
  // All -inf: a window inside the input gives -inf, one that reaches into SAME padding gives the
  // padding value, the lowest float (TensorFlow's CPU kernel pads with -FLT_MAX).
  const float inf = std::numeric_limits<float>::infinity();
  for (const char* padding : {"VALID", "SAME"}) {
    SCOPED_TRACE(padding);
    OpTester tester("MaxPool3D");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 1})
        .Attr("strides", std::vector<int64_t>{1, 2, 2, 2, 1})
        .Attr("padding", std::string(padding))
        .Attr("data_format", std::string("NDHWC"))
        .Input(Make<float>(Shape({1, 3, 2, 2, 1}), std::vector<float>(12, -inf)));
    const std::vector<float> expected =
        std::string(padding) == "VALID"
            ? std::vector<float>{-inf}
            : std::vector<float>{-inf, -std::numeric_limits<float>::max()};
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT,
                            Shape({1, static_cast<int64_t>(expected.size()), 1, 1, 1}), expected);
  }
}

TEST(Pool3DOpTest, RejectsBadAttrsAndShapes) {
  auto run = [](const std::string& op, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                const Tensor& x, absl::StatusCode code, const std::string& message) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("ksize", ksize)
        .Attr("strides", strides)
        .Attr("padding", std::string("VALID"))
        .Attr("data_format", std::string("NDHWC"))
        .Input(x);
    ExpectRunError(tester, code, message);
  };
  const Tensor x = Random<float>(Shape({1, 4, 4, 4, 2}));
  const std::vector<int64_t> ones = {1, 1, 1, 1, 1};
  run("MaxPool3D", {1, 2, 2, 2}, ones, x, absl::StatusCode::kInvalidArgument,
      "list has 4 elements, fewer than the minimum 5");
  run("AvgPool3D", {1, 2, 0, 2, 1}, ones, x, absl::StatusCode::kInvalidArgument,
      "ksize must be a positive int32 value, got:0");
  run("MaxPool3D", {2, 2, 2, 2, 1}, ones, x, absl::StatusCode::kUnimplemented,
      "Pooling is not yet supported on the batch dimension.");
  run("MaxPool3D", {1, 2, 2, 2, 2}, ones, x, absl::StatusCode::kUnimplemented,
      "MaxPooling3d is not yet supported on the depth dimension.");
  run("AvgPool3D", {1, 2, 2, 2, 1}, {1, 1, 1, 1, 2}, x, absl::StatusCode::kUnimplemented,
      "AvgPooling3d is not yet supported on the depth dimension.");
  run("AvgPool3D", {1, 2, 2, 2, 1}, {1, 1, 0, 1, 1}, x, absl::StatusCode::kInvalidArgument,
      "Stride must be > 0, but got 0");
  run("MaxPool3D", {1, 2, 2, 2, 1}, ones, Random<float>(Shape({4, 4, 4, 2})),
      absl::StatusCode::kInvalidArgument, "tensor_in must be 5-dimensional");
  run("MaxPool3D", {1, 6, 2, 2, 1}, ones, x, absl::StatusCode::kInvalidArgument,
      "Computed output size would be negative: -1");

  OpTester grad("MaxPool3DGrad");
  grad.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("TInput", TSR_DTYPE_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 1})
      .Attr("strides", ones)
      .Attr("padding", std::string("VALID"))
      .Attr("data_format", std::string("NDHWC"))
      .Input(x)
      .Input(Random<float>(Shape({1, 3, 3, 2, 2})))
      .Input(Random<float>(Shape({1, 3, 3, 3, 2})));
  ExpectRunError(grad, absl::StatusCode::kInvalidArgument,
                 "Expected orig_output shape to be [1,3,3,3,2], but got [1,3,3,2,2]");
  OpTester avg_grad("AvgPool3DGrad");
  avg_grad.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 1})
      .Attr("strides", ones)
      .Attr("padding", std::string("VALID"))
      .Attr("data_format", std::string("NDHWC"))
      .Input(Tensor::Vector<int32_t>({1, 4, 4, 4}))
      .Input(Random<float>(Shape({1, 3, 3, 3, 2})));
  ExpectRunError(avg_grad, absl::StatusCode::kInvalidArgument,
                 "tensor_in must be 1-dimensional and 5 elements");
}

}  // namespace
}  // namespace tessera::cpu::test
