// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (and the V1 gradients) against
// reference loops: SAME and VALID, strides, dilations, 1x1x1 filters, empty and size-1
// dimensions, NDHWC and NCDHW, float and double; and TensorFlow's errors.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

// One 3-D convolution: NDHWC input [batch, in[0..2], depth], filter [filter[0..2], depth, out].
struct Conv3DCase {
  int64_t batch = 2, depth = 3, out_depth = 4;
  int64_t in[3] = {4, 5, 6};
  int64_t filter[3] = {2, 3, 2};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  std::string padding = "SAME";
  bool ncdhw = false;

  std::string Name() const {
    return absl::StrCat("n", batch, " in ", in[0], "x", in[1], "x", in[2], "x", depth, " f ",
                        filter[0], "x", filter[1], "x", filter[2], "x", out_depth, " s ", stride[0],
                        stride[1], stride[2], " d ", dilation[0], dilation[1], dilation[2], " ",
                        padding, ncdhw ? " NCDHW" : " NDHWC");
  }
  int64_t Out(int i) const {
    const int64_t effective = (filter[i] - 1) * dilation[i] + 1;
    if (padding == "VALID") return (in[i] - effective + stride[i]) / stride[i];
    return (in[i] + stride[i] - 1) / stride[i];
  }
  int64_t PadBefore(int i) const {
    if (padding == "VALID") return 0;
    const int64_t effective = (filter[i] - 1) * dilation[i] + 1;
    return std::max<int64_t>(0, (Out(i) - 1) * stride[i] + effective - in[i]) / 2;
  }
  TensorShape InputShape() const { return Shape({batch, in[0], in[1], in[2], depth}); }
  TensorShape OutputShape() const { return Shape({batch, Out(0), Out(1), Out(2), out_depth}); }
  TensorShape FilterShape() const {
    return Shape({filter[0], filter[1], filter[2], depth, out_depth});
  }
  std::vector<int64_t> Format(std::vector<int64_t> ndhwc) const {
    if (!ncdhw) return ndhwc;
    return {ndhwc[0], ndhwc[4], ndhwc[1], ndhwc[2], ndhwc[3]};
  }
  TensorShape InFormat(const TensorShape& s) const {
    return TensorShape(Format({s.dim(0), s.dim(1), s.dim(2), s.dim(3), s.dim(4)}));
  }
  void SetAttrs(OpTester& tester) const {
    tester.Attr("strides", Format({1, stride[0], stride[1], stride[2], 1}))
        .Attr("dilations", Format({1, dilation[0], dilation[1], dilation[2], 1}))
        .Attr("padding", padding)
        .Attr("data_format", std::string(ncdhw ? "NCDHW" : "NDHWC"));
  }

  // fn(input offset, filter offset without the channels, output offset without the channel)
  // for every tap that reads the input; offsets are NDHWC / DHWIO.
  template <typename Fn>
  void ForEachTap(Fn fn) const {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o0 = 0; o0 < Out(0); ++o0) {
        for (int64_t o1 = 0; o1 < Out(1); ++o1) {
          for (int64_t o2 = 0; o2 < Out(2); ++o2) {
            for (int64_t k0 = 0; k0 < filter[0]; ++k0) {
              const int64_t i0 = o0 * stride[0] - PadBefore(0) + k0 * dilation[0];
              if (i0 < 0 || i0 >= in[0]) continue;
              for (int64_t k1 = 0; k1 < filter[1]; ++k1) {
                const int64_t i1 = o1 * stride[1] - PadBefore(1) + k1 * dilation[1];
                if (i1 < 0 || i1 >= in[1]) continue;
                for (int64_t k2 = 0; k2 < filter[2]; ++k2) {
                  const int64_t i2 = o2 * stride[2] - PadBefore(2) + k2 * dilation[2];
                  if (i2 < 0 || i2 >= in[2]) continue;
                  fn((((b * in[0] + i0) * in[1] + i1) * in[2] + i2) * depth,
                     ((k0 * filter[1] + k1) * filter[2] + k2) * depth * out_depth,
                     (((b * Out(0) + o0) * Out(1) + o1) * Out(2) + o2) * out_depth);
                }
              }
            }
          }
        }
      }
    }
  }
};

// An NDHWC tensor in NCDHW order.
template <typename T>
Tensor ToNcdhw(const Tensor& t) {
  const TensorShape& s = t.shape();
  const int64_t spatial = s.dim(1) * s.dim(2) * s.dim(3);
  const int64_t c = s.dim(4);
  Tensor out(t.dtype(), TensorShape({s.dim(0), c, s.dim(1), s.dim(2), s.dim(3)}));
  for (int64_t b = 0; b < s.dim(0); ++b) {
    for (int64_t p = 0; p < spatial; ++p) {
      for (int64_t d = 0; d < c; ++d) {
        out.data<T>()[(b * c + d) * spatial + p] = t.data<T>()[(b * spatial + p) * c + d];
      }
    }
  }
  return out;
}

template <typename T>
std::vector<T> ValuesOf(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

template <typename T>
double Tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-11;
}

template <typename T>
void CheckForward(const Conv3DCase& k) {
  SCOPED_TRACE(k.Name());
  Tensor x = Random<T>(k.InputShape(), -1, 1);
  Tensor f = Random<T>(k.FilterShape(), -1, 1);
  std::vector<double> y(static_cast<size_t>(k.OutputShape().num_elements()), 0.0);
  k.ForEachTap([&](int64_t xi, int64_t fi, int64_t yi) {
    for (int64_t c = 0; c < k.depth; ++c) {
      for (int64_t o = 0; o < k.out_depth; ++o) {
        y[yi + o] +=
            static_cast<double>(x.data<T>()[xi + c]) * f.data<T>()[fi + c * k.out_depth + o];
      }
    }
  });
  Tensor expected = Make<T>(k.OutputShape(), std::vector<T>(y.begin(), y.end()));
  if (k.ncdhw) expected = ToNcdhw<T>(expected);
  OpTester tester("Conv3D");
  tester.Attr("T", DataTypeOf<T>::value);
  k.SetAttrs(tester);
  tester.Input(k.ncdhw ? ToNcdhw<T>(x) : x).Input(f);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, expected.shape(), ValuesOf<T>(expected),
                      Tolerance<T>());
}

template <typename T>
void CheckInputGrad(const Conv3DCase& k, bool v1) {
  SCOPED_TRACE(k.Name() + (v1 ? " V1" : ""));
  Tensor f = Random<T>(k.FilterShape(), -1, 1);
  Tensor dy = Random<T>(k.OutputShape(), -1, 1);
  std::vector<double> dx(static_cast<size_t>(k.InputShape().num_elements()), 0.0);
  k.ForEachTap([&](int64_t xi, int64_t fi, int64_t yi) {
    for (int64_t c = 0; c < k.depth; ++c) {
      for (int64_t o = 0; o < k.out_depth; ++o) {
        dx[xi + c] +=
            static_cast<double>(dy.data<T>()[yi + o]) * f.data<T>()[fi + c * k.out_depth + o];
      }
    }
  });
  Tensor expected = Make<T>(k.InputShape(), std::vector<T>(dx.begin(), dx.end()));
  if (k.ncdhw) expected = ToNcdhw<T>(expected);
  OpTester tester(v1 ? "Conv3DBackpropInput" : "Conv3DBackpropInputV2");
  tester.Attr("T", DataTypeOf<T>::value);
  if (v1) {
    tester.Attr("strides", std::vector<int64_t>{1, k.stride[0], k.stride[1], k.stride[2], 1})
        .Attr("padding", k.padding)
        .Input(Tensor(DataTypeOf<T>::value, k.InputShape()));
  } else {
    k.SetAttrs(tester);
    std::vector<int32_t> sizes;
    for (int d = 0; d < 5; ++d) sizes.push_back(static_cast<int32_t>(expected.shape().dim(d)));
    tester.Input(Tensor::Vector<int32_t>(sizes));
  }
  tester.Input(f).Input(k.ncdhw ? ToNcdhw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, expected.shape(), ValuesOf<T>(expected),
                      Tolerance<T>());
}

template <typename T>
void CheckFilterGrad(const Conv3DCase& k, bool v1) {
  SCOPED_TRACE(k.Name() + (v1 ? " V1" : ""));
  Tensor x = Random<T>(k.InputShape(), -1, 1);
  Tensor dy = Random<T>(k.OutputShape(), -1, 1);
  std::vector<double> df(static_cast<size_t>(k.FilterShape().num_elements()), 0.0);
  k.ForEachTap([&](int64_t xi, int64_t fi, int64_t yi) {
    for (int64_t c = 0; c < k.depth; ++c) {
      for (int64_t o = 0; o < k.out_depth; ++o) {
        df[fi + c * k.out_depth + o] +=
            static_cast<double>(x.data<T>()[xi + c]) * dy.data<T>()[yi + o];
      }
    }
  });
  OpTester tester(v1 ? "Conv3DBackpropFilter" : "Conv3DBackpropFilterV2");
  tester.Attr("T", DataTypeOf<T>::value);
  tester.Input(k.ncdhw ? ToNcdhw<T>(x) : x);
  if (v1) {
    tester.Attr("strides", std::vector<int64_t>{1, k.stride[0], k.stride[1], k.stride[2], 1})
        .Attr("padding", k.padding)
        .Input(Tensor(DataTypeOf<T>::value, k.FilterShape()));
  } else {
    k.SetAttrs(tester);
    std::vector<int32_t> sizes;
    for (int d = 0; d < 5; ++d) sizes.push_back(static_cast<int32_t>(k.FilterShape().dim(d)));
    tester.Input(Tensor::Vector<int32_t>(sizes));
  }
  tester.Input(k.ncdhw ? ToNcdhw<T>(dy) : dy);
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, k.FilterShape(),
                      std::vector<T>(df.begin(), df.end()), Tolerance<T>());
}

std::vector<Conv3DCase> Cases() {
  std::vector<Conv3DCase> cases;
  Conv3DCase base;
  cases.push_back(base);
  Conv3DCase valid = base;
  valid.padding = "VALID";
  cases.push_back(valid);
  for (const char* padding : {"SAME", "VALID"}) {
    Conv3DCase strided = base;
    strided.padding = padding;
    strided.in[0] = 7;
    strided.in[2] = 8;
    strided.stride[0] = 2;
    strided.stride[1] = 3;
    strided.stride[2] = 2;
    cases.push_back(strided);
    Conv3DCase dilated = base;
    dilated.padding = padding;
    dilated.in[1] = 7;
    dilated.dilation[0] = 2;
    dilated.dilation[1] = 2;
    dilated.dilation[2] = 3;
    cases.push_back(dilated);
  }
  Conv3DCase pointwise = base;
  pointwise.filter[0] = pointwise.filter[1] = pointwise.filter[2] = 1;
  cases.push_back(pointwise);
  Conv3DCase ones = base;  // Size-1 dimensions everywhere.
  ones.batch = ones.depth = ones.out_depth = 1;
  ones.in[0] = ones.in[1] = 1;
  ones.filter[0] = ones.filter[1] = 1;
  cases.push_back(ones);
  Conv3DCase big = base;  // Several column chunks and enough work for the pool.
  big.batch = 3;
  big.depth = 16;
  big.out_depth = 8;
  big.in[0] = 12;
  big.in[1] = 14;
  big.in[2] = 16;
  big.filter[0] = big.filter[1] = big.filter[2] = 3;
  cases.push_back(big);
  std::vector<Conv3DCase> with_ncdhw = cases;
  for (Conv3DCase k : cases) {
    k.ncdhw = true;
    with_ncdhw.push_back(k);
  }
  return with_ncdhw;
}

TEST(Conv3DOpTest, MatchesReference) {
  for (const Conv3DCase& k : Cases()) {
    CheckForward<float>(k);
    CheckForward<double>(k);
  }
}

TEST(Conv3DBackpropInputOpTest, MatchesReference) {
  for (const Conv3DCase& k : Cases()) {
    CheckInputGrad<float>(k, false);
    CheckInputGrad<double>(k, false);
  }
}

TEST(Conv3DBackpropFilterOpTest, MatchesReference) {
  for (const Conv3DCase& k : Cases()) {
    CheckFilterGrad<float>(k, false);
    CheckFilterGrad<double>(k, false);
  }
}

TEST(Conv3DBackpropOpTest, V1FormsTakeTheShapeOfATensor) {
  Conv3DCase k;
  k.stride[1] = 2;
  CheckInputGrad<float>(k, true);
  CheckFilterGrad<double>(k, true);
}

TEST(Conv3DOpTest, EmptyDimensions) {
  Conv3DCase k;
  k.batch = 0;
  CheckForward<float>(k);
  CheckInputGrad<float>(k, false);
  CheckFilterGrad<float>(k, false);  // No pixels: a zero filter gradient.
  Conv3DCase no_out = Conv3DCase();
  no_out.out_depth = 0;
  CheckForward<float>(no_out);
  CheckInputGrad<float>(no_out, false);  // Zeros.
  Conv3DCase empty_spatial = Conv3DCase();
  empty_spatial.in[1] = 0;
  CheckForward<double>(empty_spatial);
  CheckFilterGrad<double>(empty_spatial, false);
}

// Some attrs are refused by the shape function before the kernel sees them.
TEST(Conv3DOpTest, RejectsBadAttrsAndShapes) {
  const Tensor x = Random<float>(Shape({1, 4, 4, 4, 2}));
  const Tensor f = Random<float>(Shape({2, 2, 2, 2, 3}));
  auto run = [&](std::vector<int64_t> strides, std::vector<int64_t> dilations, const Tensor& in,
                 const Tensor& filter, absl::StatusCode code, const std::string& message) {
    OpTester tester("Conv3D");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("strides", strides)
        .Attr("dilations", dilations)
        .Attr("padding", std::string("SAME"))
        .Input(in)
        .Input(filter);
    ExpectRunError(tester, code, message);
  };
  const std::vector<int64_t> ones = {1, 1, 1, 1, 1};
  run({1, 1, 1, 1, 2}, ones, x, f, absl::StatusCode::kInvalidArgument,
      "Current implementation does not yet support strides in the batch and depth dimensions.");
  run({1, 0, 1, 1, 1}, ones, x, f, absl::StatusCode::kInvalidArgument,
      "Stride must be > 0, but got 0");
  run(ones, {2, 1, 1, 1, 1}, x, f, absl::StatusCode::kInvalidArgument,
      "Current implementation does not yet support dilation rates in the batch and depth "
      "dimensions.");
  run(ones, {1, 1, 1, 1}, x, f, absl::StatusCode::kInvalidArgument,
      "Conv3D requires the dilation attribute to contain 5 values, but got: 4");
  run(ones, {1, 0, 1, 1, 1}, x, f, absl::StatusCode::kInvalidArgument,
      "Dilation rate must be >= 1, but got 0");
  run(ones, ones, Random<float>(Shape({1, 4, 4, 2})), f, absl::StatusCode::kInvalidArgument,
      "input must be 5-dimensional");
  run(ones, ones, x, Random<float>(Shape({2, 2, 2, 3})), absl::StatusCode::kInvalidArgument,
      "filter must be 5-dimensional");
  run(ones, ones, Random<float>(Shape({1, 4, 4, 4, 3})), f, absl::StatusCode::kInvalidArgument,
      "Input depth must be evenly divisible by filter depth: 3 vs 2");
  run(ones, ones, Random<float>(Shape({1, 4, 4, 4, 4})), f, absl::StatusCode::kInvalidArgument,
      "Number of channels in filter (2) must match the depth of the input (4)");
  run(ones, ones, x, Random<float>(Shape({2, 2, 2, 0, 3})), absl::StatusCode::kInvalidArgument,
      "filter_depth must be non-zero");
}

TEST(Conv3DBackpropOpTest, RejectsMismatchedShapes) {
  const Tensor f = Random<float>(Shape({2, 2, 2, 2, 3}));
  auto input_grad = [&](const Tensor& sizes, const Tensor& dy, const std::string& message) {
    OpTester tester("Conv3DBackpropInputV2");
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
        .Attr("padding", std::string("VALID"))
        .Input(sizes)
        .Input(f)
        .Input(dy);
    ExpectRunError(tester, absl::StatusCode::kInvalidArgument, message);
  };
  const Tensor sizes = Tensor::Vector<int32_t>({1, 4, 4, 4, 2});
  input_grad(sizes, Random<float>(Shape({1, 3, 3, 2, 3})),
             "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 2, "
             "computed = 3 spatial_dim: 3");
  input_grad(sizes, Random<float>(Shape({2, 3, 3, 3, 3})),
             "Conv3DBackpropInputOp: input and out_backprop must have the same batch size.");
  input_grad(sizes, Random<float>(Shape({1, 3, 3, 3, 4})),
             "Conv3DBackpropInputOp: filter and out_backprop must have the same out_depth");
  input_grad(Tensor::Vector<int32_t>({1, 4, 4, 2}), Random<float>(Shape({1, 3, 3, 3, 3})),
             "Conv3DBackpropInputOp: input must be 5-dimensional");
  input_grad(Tensor::Vector<int32_t>({1, 4, -4, 4, 2}), Random<float>(Shape({1, 3, 3, 3, 3})),
             "Dimension -4 must be >= 0");
  OpTester filter_grad("Conv3DBackpropFilterV2");
  filter_grad.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
      .Attr("padding", std::string("VALID"))
      .Input(Random<float>(Shape({1, 4, 4, 4, 2})))
      .Input(Tensor::Vector<int32_t>({2, 2, 2, 2}))
      .Input(Random<float>(Shape({1, 3, 3, 3, 3})));
  ExpectRunError(filter_grad, absl::StatusCode::kInvalidArgument,
                 "Conv3DBackpropFilterOp: filter must be 5-dimensional");
}

}  // namespace
}  // namespace tessera::cpu::test
