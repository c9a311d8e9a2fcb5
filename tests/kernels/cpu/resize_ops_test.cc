// ResizeBilinear, ResizeNearestNeighbor and their gradients against reference loops on random
// images (empty batches, size-1 dimensions, up- and down-sampling) for every combination of
// align_corners and half_pixel_centers; the gradients also as the adjoints of the forward ops
// (<resize(x), g> = <x, grad(g)>); known values; every error.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"
#include "tests/kernels/cpu/half_test_util.h"

namespace tessera::cpu::test {
namespace {

struct Mode {
  bool align_corners;
  bool half_pixel_centers;
};
constexpr Mode kModes[] = {{false, false}, {true, false}, {false, true}};

float Scale(int64_t in, int64_t out, bool align) {
  if (align && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return static_cast<float>(in) / static_cast<float>(out);
}

// Bilinear sample of channel c of image b at output pixel (y, x).
float BilinearAt(const std::vector<float>& img, const TensorShape& s, int64_t b, int64_t y,
                 int64_t x, int64_t c, float sy, float sx, Mode m) {
  auto coord = [&](int64_t i, float scale) {
    return m.half_pixel_centers ? (i + 0.5f) * scale - 0.5f : i * scale;
  };
  const float fy = coord(y, sy);
  const float fx = coord(x, sx);
  const int64_t y0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(fy)));
  const int64_t y1 = std::min<int64_t>(s.dim(1) - 1, static_cast<int64_t>(std::ceil(fy)));
  const int64_t x0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(fx)));
  const int64_t x1 = std::min<int64_t>(s.dim(2) - 1, static_cast<int64_t>(std::ceil(fx)));
  const float wy = fy - std::floor(fy);
  const float wx = fx - std::floor(fx);
  auto at = [&](int64_t yy, int64_t xx) {
    return img[((b * s.dim(1) + yy) * s.dim(2) + xx) * s.dim(3) + c];
  };
  const float top = at(y0, x0) * (1 - wx) + at(y0, x1) * wx;
  const float bottom = at(y1, x0) * (1 - wx) + at(y1, x1) * wx;
  return top * (1 - wy) + bottom * wy;
}

int64_t NearestAt(int64_t i, int64_t in, float scale, Mode m) {
  if (m.half_pixel_centers) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor((i + 0.5f) * scale)), 0, in - 1);
  }
  const float f = i * scale;
  return std::min<int64_t>(in - 1,
                           static_cast<int64_t>(m.align_corners ? std::round(f) : std::floor(f)));
}

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case TSR_DTYPE_FLOAT:
        out.push_back(t.data<float>()[i]);
        break;
      case TSR_DTYPE_DOUBLE:
        out.push_back(static_cast<float>(t.data<double>()[i]));
        break;
      case TSR_DTYPE_UINT8:
        out.push_back(t.data<uint8_t>()[i]);
        break;
      case TSR_DTYPE_INT32:
        out.push_back(static_cast<float>(t.data<int32_t>()[i]));
        break;
      case TSR_DTYPE_HALF:
        out.push_back(HalfValue(t.data<uint16_t>()[i]));
        break;
      default:
        ADD_FAILURE() << "no reader for " << DataTypeString(t.dtype());
    }
  }
  return out;
}

Tensor RandomImage(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const int v = static_cast<int>(Rng()() % 200);
    switch (dtype) {
      case TSR_DTYPE_FLOAT:
        t.data<float>()[i] = v / 8.0f - 10;
        break;
      case TSR_DTYPE_DOUBLE:
        t.data<double>()[i] = v / 8.0 - 10;
        break;
      case TSR_DTYPE_UINT8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case TSR_DTYPE_INT32:
        t.data<int32_t>()[i] = v - 100;
        break;
      default:
        t.data<uint16_t>()[i] = HalfBits(v / 8.0f - 10);
    }
  }
  return t;
}

OpTester Resize(const char* op, const Tensor& images, int out_h, int out_w, Mode m) {
  OpTester tester(op);
  tester.Attr("T", images.dtype())
      .Attr("align_corners", m.align_corners)
      .Attr("half_pixel_centers", m.half_pixel_centers)
      .Input(images)
      .Input(Tensor::Vector<int32_t>({out_h, out_w}));
  return tester;
}

TEST(ResizeOpsTest, ForwardMatchesReferenceLoops) {
  const DataType types[] = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_UINT8, TSR_DTYPE_INT32,
                            TSR_DTYPE_HALF};
  for (int trial = 0; trial < 60; ++trial) {
    const Mode m = kModes[trial % 3];
    const DataType dtype = types[(trial / 3) % 5];
    const TensorShape shape({trial % 11 == 0 ? 0 : 1 + trial % 2,
                             1 + static_cast<int64_t>(Rng()() % 5),
                             1 + static_cast<int64_t>(Rng()() % 5), 1 + trial % 3});
    const int out_h = 1 + static_cast<int>(Rng()() % 7);
    const int out_w = 1 + static_cast<int>(Rng()() % 7);
    SCOPED_TRACE(shape.DebugString() + " -> " + std::to_string(out_h) + "x" +
                 std::to_string(out_w) + " align=" + std::to_string(m.align_corners) +
                 " half=" + std::to_string(m.half_pixel_centers) + " " + DataTypeString(dtype));
    const Tensor images = RandomImage(dtype, shape);
    const std::vector<float> img = Floats(images);
    const float sy = Scale(shape.dim(1), out_h, m.align_corners);
    const float sx = Scale(shape.dim(2), out_w, m.align_corners);
    std::vector<float> bilinear;
    std::vector<float> nearest;
    for (int64_t b = 0; b < shape.dim(0); ++b) {
      for (int64_t y = 0; y < out_h; ++y) {
        for (int64_t x = 0; x < out_w; ++x) {
          for (int64_t c = 0; c < shape.dim(3); ++c) {
            bilinear.push_back(BilinearAt(img, shape, b, y, x, c, sy, sx, m));
            const int64_t ny = NearestAt(y, shape.dim(1), sy, m);
            const int64_t nx = NearestAt(x, shape.dim(2), sx, m);
            nearest.push_back(
                img[((b * shape.dim(1) + ny) * shape.dim(2) + nx) * shape.dim(3) + c]);
          }
        }
      }
    }
    const TensorShape out_shape({shape.dim(0), out_h, out_w, shape.dim(3)});
    OpTester bilinear_op = Resize("ResizeBilinear", images, out_h, out_w, m);
    ExpectTensorNear<float>(RunOk(bilinear_op), TSR_DTYPE_FLOAT, out_shape, bilinear, 1e-5);
    OpTester nearest_op = Resize("ResizeNearestNeighbor", images, out_h, out_w, m);
    const Tensor got = RunOk(nearest_op);
    ASSERT_EQ(got.dtype(), dtype);
    ASSERT_EQ(got.shape(), out_shape);
    EXPECT_EQ(Floats(got), nearest);
  }
}

TEST(ResizeOpsTest, KnownValues) {
  const Tensor image = Make<float>(Shape({1, 2, 2, 1}), {1, 2, 3, 4});
  OpTester legacy = Resize("ResizeBilinear", image, 3, 3, kModes[0]);
  ExpectTensorNear<float>(RunOk(legacy), TSR_DTYPE_FLOAT, Shape({1, 3, 3, 1}),
                          {1, 5.0f / 3, 2, 7.0f / 3, 3, 10.0f / 3, 3, 11.0f / 3, 4});
  OpTester aligned = Resize("ResizeBilinear", image, 3, 3, kModes[1]);
  ExpectTensorNear<float>(RunOk(aligned), TSR_DTYPE_FLOAT, Shape({1, 3, 3, 1}),
                          {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  OpTester half = Resize("ResizeBilinear", image, 4, 4, kModes[2]);
  ExpectTensorNear<float>(
      RunOk(half), TSR_DTYPE_FLOAT, Shape({1, 4, 4, 1}),
      {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  const Tensor row = Make<float>(Shape({1, 1, 4, 1}), {1, 2, 3, 4});
  OpTester nn_aligned = Resize("ResizeNearestNeighbor", row, 1, 3, kModes[1]);
  ExpectTensorNear<float>(RunOk(nn_aligned), TSR_DTYPE_FLOAT, Shape({1, 1, 3, 1}), {1, 3, 4});
  OpTester nn_legacy = Resize("ResizeNearestNeighbor", row, 1, 3, kModes[0]);
  ExpectTensorNear<float>(RunOk(nn_legacy), TSR_DTYPE_FLOAT, Shape({1, 1, 3, 1}), {1, 2, 3});
  OpTester nn_half = Resize("ResizeNearestNeighbor", row, 1, 3, kModes[2]);
  ExpectTensorNear<float>(RunOk(nn_half), TSR_DTYPE_FLOAT, Shape({1, 1, 3, 1}), {1, 3, 4});
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

TEST(ResizeOpsTest, GradientsAreTheAdjointsOfTheForwardOps) {
  for (int trial = 0; trial < 45; ++trial) {
    const Mode m = kModes[trial % 3];
    const TensorShape shape({1 + trial % 2, 1 + static_cast<int64_t>(Rng()() % 5),
                             1 + static_cast<int64_t>(Rng()() % 5), 1 + trial % 2});
    const int out_h = 1 + static_cast<int>(Rng()() % 7);
    const int out_w = 1 + static_cast<int>(Rng()() % 7);
    SCOPED_TRACE(shape.DebugString() + " -> " + std::to_string(out_h) + "x" +
                 std::to_string(out_w) + " mode " + std::to_string(trial % 3));
    const Tensor x = RandomImage(TSR_DTYPE_FLOAT, shape);
    const TensorShape out_shape({shape.dim(0), out_h, out_w, shape.dim(3)});
    const Tensor g = RandomImage(TSR_DTYPE_FLOAT, out_shape);
    for (const bool bilinear : {true, false}) {
      OpTester forward =
          Resize(bilinear ? "ResizeBilinear" : "ResizeNearestNeighbor", x, out_h, out_w, m);
      const std::vector<float> y = Floats(RunOk(forward));
      OpTester backward(bilinear ? "ResizeBilinearGrad" : "ResizeNearestNeighborGrad");
      backward.Attr("T", TSR_DTYPE_FLOAT)
          .Attr("align_corners", m.align_corners)
          .Attr("half_pixel_centers", m.half_pixel_centers)
          .Input(g);
      if (bilinear) {
        backward.Input(x);
      } else {
        backward.Input(Tensor::Vector<int32_t>(
            {static_cast<int32_t>(shape.dim(1)), static_cast<int32_t>(shape.dim(2))}));
      }
      const Tensor dx = RunOk(backward);
      ASSERT_EQ(dx.shape(), shape);
      const double lhs = Dot(y, Floats(g));
      EXPECT_NEAR(lhs, Dot(Floats(x), Floats(dx)), 1e-3 * std::max(1.0, std::fabs(lhs)))
          << (bilinear ? "bilinear" : "nearest");
    }
  }
}

TEST(ResizeOpsTest, GradientKnownValuesAndTypes) {
  // Up-sampling 1x2 to 1x4 (legacy): outputs 0..3 sample x = 0, 0.5, 1, 1.
  OpTester grad("ResizeBilinearGrad");
  grad.Attr("T", TSR_DTYPE_DOUBLE)
      .Input(Make<float>(Shape({1, 1, 4, 1}), {1, 2, 4, 8}))
      .Input(Make<double>(Shape({1, 1, 2, 1}), {0, 0}));
  ExpectTensorNear<double>(RunOk(grad), TSR_DTYPE_DOUBLE, Shape({1, 1, 2, 1}), {2, 13});
  OpTester nn("ResizeNearestNeighborGrad");
  nn.Attr("T", TSR_DTYPE_INT32)
      .Input(Make<int32_t>(Shape({1, 1, 4, 1}), {1, 2, 4, 8}))
      .Input(Tensor::Vector<int32_t>({1, 2}));
  ExpectTensorNear<int32_t>(RunOk(nn), TSR_DTYPE_INT32, Shape({1, 1, 2, 1}), {3, 12});
  OpTester empty("ResizeNearestNeighborGrad");
  empty.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Tensor(TSR_DTYPE_FLOAT, Shape({0, 2, 2, 1})))
      .Input(Tensor::Vector<int32_t>({3, 3}));
  ExpectTensorNear<float>(RunOk(empty), TSR_DTYPE_FLOAT, Shape({0, 3, 3, 1}), {});
}

TEST(ResizeOpsTest, RejectsBadArguments) {
  const Tensor image = Random<float>(Shape({1, 2, 2, 1}));
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    OpTester both = Resize(op, image, 3, 3, Mode{true, true});
    ExpectRunError(both, absl::StatusCode::kInvalidArgument,
                   "If half_pixel_centers is True, align_corners must be False.");
    OpTester rank3 = Resize(op, Random<float>(Shape({2, 2, 1})), 3, 3, kModes[0]);
    ExpectRunError(rank3, absl::StatusCode::kInvalidArgument, "input must be 4-dimensional[2,2,1]");
    OpTester zero = Resize(op, image, 0, 3, kModes[0]);
    ExpectRunError(zero, absl::StatusCode::kInvalidArgument, "output dimensions must be positive");
    OpTester no_channel = Resize(op, Random<float>(Shape({1, 2, 2, 0})), 3, 3, kModes[0]);
    ExpectRunError(no_channel, absl::StatusCode::kInvalidArgument,
                   "image must have at least one channel");
    OpTester empty = Resize(op, Random<float>(Shape({1, 0, 2, 1})), 3, 3, kModes[0]);
    ExpectRunError(empty, absl::StatusCode::kInvalidArgument,
                   "input image must be of non-zero size");
    OpTester three(op);
    three.Attr("T", TSR_DTYPE_FLOAT).Input(image).Input(Tensor::Vector<int32_t>({1, 2, 3}));
    ExpectRunError(three, absl::StatusCode::kInvalidArgument, "shape_t must have two elements[3]");
    OpTester matrix(op);
    matrix.Attr("T", TSR_DTYPE_FLOAT)
        .Input(image)
        .Input(Tensor::FromVector<int32_t>(TensorShape{1, 2}, {2, 2}));
    ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "shape_t must be 1-D[1,2]");
  }
  OpTester grad("ResizeBilinearGrad");
  grad.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({1, 2, 2}))).Input(image);
  ExpectRunError(grad, absl::StatusCode::kInvalidArgument,
                 "input_grad must be 4-dimensional[1,2,2]");
  OpTester original("ResizeBilinearGrad");
  original.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({1, 2, 2, 1})))
      .Input(Random<float>(Shape({2, 2, 1})));
  ExpectRunError(original, absl::StatusCode::kInvalidArgument,
                 "original_image must be 4-dimensional[2,2,1]");
  OpTester resized("ResizeBilinearGrad");
  resized.Attr("T", TSR_DTYPE_FLOAT).Input(Random<float>(Shape({1, 0, 2, 1}))).Input(image);
  ExpectRunError(resized, absl::StatusCode::kInvalidArgument,
                 "resized dimensions must be positive");
  OpTester original_empty("ResizeBilinearGrad");
  original_empty.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({1, 2, 2, 1})))
      .Input(Random<float>(Shape({1, 2, 0, 1})));
  ExpectRunError(original_empty, absl::StatusCode::kInvalidArgument,
                 "original dimensions must be positive");
  OpTester nn("ResizeNearestNeighborGrad");
  nn.Attr("T", TSR_DTYPE_FLOAT).Input(image).Input(Tensor::Vector<int32_t>({0, 2}));
  ExpectRunError(nn, absl::StatusCode::kInvalidArgument, "shape_t's elements must be positive");
  OpTester nn_rank("ResizeNearestNeighborGrad");
  nn_rank.Attr("T", TSR_DTYPE_FLOAT)
      .Input(image)
      .Input(Tensor::FromVector<int32_t>(TensorShape{1, 2}, {2, 2}));
  ExpectRunError(nn_rank, absl::StatusCode::kInvalidArgument, "shape_t must be 1-dimensional[1,2]");
  OpTester nn_input("ResizeNearestNeighborGrad");
  nn_input.Attr("T", TSR_DTYPE_FLOAT)
      .Input(Random<float>(Shape({2, 2})))
      .Input(Tensor::Vector<int32_t>({2, 2}));
  ExpectRunError(nn_input, absl::StatusCode::kInvalidArgument, "input must be 4-dimensional[2,2]");
}

}  // namespace
}  // namespace tessera::cpu::test
