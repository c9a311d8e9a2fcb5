// CropAndResize against a reference loop on random images and boxes (boxes partly outside the
// image, flipped boxes, crops of one pixel, no boxes), both methods and several image types;
// known values; every error.
#include <cmath>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

// The sampling position of crop pixel i along one side from a to b of an image side of n.
float Position(int64_t i, int64_t crop, int64_t n, float a, float b) {
  if (crop == 1) return static_cast<float>(0.5 * (a + b) * (n - 1));
  return a * (n - 1) + i * ((b - a) * (n - 1) / static_cast<float>(crop - 1));
}

std::vector<float> Reference(const std::vector<float>& img, const TensorShape& s,
                             const std::vector<float>& boxes, const std::vector<int32_t>& ind,
                             int64_t ch, int64_t cw, bool bilinear, float fill) {
  std::vector<float> out;
  const int64_t h = s.dim(1);
  const int64_t w = s.dim(2);
  const int64_t d = s.dim(3);
  auto at = [&](int64_t b, int64_t y, int64_t x, int64_t c) {
    return img[((b * h + y) * w + x) * d + c];
  };
  for (size_t n = 0; n < ind.size(); ++n) {
    for (int64_t y = 0; y < ch; ++y) {
      const float py = Position(y, ch, h, boxes[n * 4], boxes[n * 4 + 2]);
      for (int64_t x = 0; x < cw; ++x) {
        const float px = Position(x, cw, w, boxes[n * 4 + 1], boxes[n * 4 + 3]);
        for (int64_t c = 0; c < d; ++c) {
          if (py < 0 || py > h - 1 || px < 0 || px > w - 1) {
            out.push_back(fill);
          } else if (!bilinear) {
            out.push_back(at(ind[n], std::lround(py), std::lround(px), c));
          } else {
            const int64_t y0 = static_cast<int64_t>(std::floor(py));
            const int64_t x0 = static_cast<int64_t>(std::floor(px));
            const int64_t y1 = static_cast<int64_t>(std::ceil(py));
            const int64_t x1 = static_cast<int64_t>(std::ceil(px));
            const float wy = py - y0;
            const float wx = px - x0;
            const float top =
                at(ind[n], y0, x0, c) + (at(ind[n], y0, x1, c) - at(ind[n], y0, x0, c)) * wx;
            const float bottom =
                at(ind[n], y1, x0, c) + (at(ind[n], y1, x1, c) - at(ind[n], y1, x0, c)) * wx;
            out.push_back(top + (bottom - top) * wy);
          }
        }
      }
    }
  }
  return out;
}

OpTester Crop(const Tensor& image, const Tensor& boxes, const Tensor& ind, const Tensor& size,
              const std::string& method = "bilinear", float fill = 0) {
  OpTester tester("CropAndResize");
  tester.Attr("T", image.dtype())
      .Attr("method", method)
      .Attr("extrapolation_value", fill)
      .Input(image)
      .Input(boxes)
      .Input(ind)
      .Input(size);
  return tester;
}

TEST(CropAndResizeOpTest, MatchesAReferenceLoop) {
  for (int trial = 0; trial < 48; ++trial) {
    const TensorShape shape({1 + trial % 3, 1 + static_cast<int64_t>(Rng()() % 6),
                             1 + static_cast<int64_t>(Rng()() % 6), 1 + trial % 2});
    const int64_t num_boxes = trial % 8 == 0 ? 0 : 1 + static_cast<int64_t>(Rng()() % 4);
    std::vector<float> boxes;
    std::vector<int32_t> ind;
    for (int64_t n = 0; n < num_boxes; ++n) {
      for (int k = 0; k < 4; ++k) boxes.push_back(static_cast<float>(Rng()() % 15) / 10.0f - 0.2f);
      ind.push_back(static_cast<int32_t>(Rng()() % shape.dim(0)));
    }
    const int ch = 1 + static_cast<int>(Rng()() % 4);
    const int cw = 1 + static_cast<int>(Rng()() % 4);
    const bool bilinear = trial % 2 == 0;
    const float fill = trial % 3 == 0 ? -1.5f : 0.0f;
    SCOPED_TRACE(shape.DebugString() + " boxes=" + std::to_string(num_boxes) + " crop " +
                 std::to_string(ch) + "x" + std::to_string(cw) +
                 (bilinear ? " bilinear" : " nearest"));
    const Tensor image = Random<float>(shape);
    std::vector<float> img(image.data<float>(), image.data<float>() + image.NumElements());
    const std::vector<float> expected = Reference(img, shape, boxes, ind, ch, cw, bilinear, fill);
    OpTester tester = Crop(
        image, Make<float>(Shape({num_boxes, 4}), boxes), Make<int32_t>(Shape({num_boxes}), ind),
        Tensor::Vector<int32_t>({ch, cw}), bilinear ? "bilinear" : "nearest", fill);
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT,
                            Shape({num_boxes, ch, cw, shape.dim(3)}), expected, 1e-5);
    // The same image as double and as int32 (whole numbers) gives the same crops.
    if (trial % 4 == 1) {
      std::vector<int32_t> whole;
      std::vector<float> whole_f;
      for (float v : img) {
        whole.push_back(static_cast<int32_t>(std::lround(v * 10)));
        whole_f.push_back(static_cast<float>(whole.back()));
      }
      OpTester ints =
          Crop(Make<int32_t>(shape, whole), Make<float>(Shape({num_boxes, 4}), boxes),
               Make<int32_t>(Shape({num_boxes}), ind), Tensor::Vector<int32_t>({ch, cw}),
               bilinear ? "bilinear" : "nearest", fill);
      ExpectTensorNear<float>(RunOk(ints), TSR_DTYPE_FLOAT,
                              Shape({num_boxes, ch, cw, shape.dim(3)}),
                              Reference(whole_f, shape, boxes, ind, ch, cw, bilinear, fill), 1e-5);
    }
  }
}

TEST(CropAndResizeOpTest, KnownValues) {
  const Tensor image = Make<float>(Shape({1, 2, 2, 1}), {1, 2, 3, 4});
  OpTester whole = Crop(image, Make<float>(Shape({1, 4}), {0, 0, 1, 1}),
                        Tensor::Vector<int32_t>({0}), Tensor::Vector<int32_t>({3, 3}));
  ExpectTensorNear<float>(RunOk(whole), TSR_DTYPE_FLOAT, Shape({1, 3, 3, 1}),
                          {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  // A box twice the image: the outer ring is outside.
  OpTester outside =
      Crop(image, Make<float>(Shape({1, 4}), {-1, -1, 2, 2}), Tensor::Vector<int32_t>({0}),
           Tensor::Vector<int32_t>({3, 3}), "bilinear", 9);
  ExpectTensorNear<float>(RunOk(outside), TSR_DTYPE_FLOAT, Shape({1, 3, 3, 1}),
                          {9, 9, 9, 9, 2.5, 9, 9, 9, 9});
  // One pixel: the box's centre; nearest rounds half away from zero.
  OpTester centre =
      Crop(image, Make<float>(Shape({2, 4}), {0, 0, 1, 1, 1, 1, 0, 0}),
           Tensor::Vector<int32_t>({0, 0}), Tensor::Vector<int32_t>({1, 1}), "nearest");
  ExpectTensorNear<float>(RunOk(centre), TSR_DTYPE_FLOAT, Shape({2, 1, 1, 1}), {4, 4});
  // A flipped box crops mirrored.
  OpTester flipped = Crop(image, Make<float>(Shape({1, 4}), {1, 1, 0, 0}),
                          Tensor::Vector<int32_t>({0}), Tensor::Vector<int32_t>({2, 2}));
  ExpectTensorNear<float>(RunOk(flipped), TSR_DTYPE_FLOAT, Shape({1, 2, 2, 1}), {4, 3, 2, 1});
}

TEST(CropAndResizeOpTest, RejectsBadArguments) {
  const Tensor image = Random<float>(Shape({2, 3, 3, 1}));
  const Tensor boxes = Make<float>(Shape({1, 4}), {0, 0, 1, 1});
  const Tensor ind = Tensor::Vector<int32_t>({0});
  const Tensor size = Tensor::Vector<int32_t>({2, 2});
  OpTester rank = Crop(Random<float>(Shape({3, 3, 1})), boxes, ind, size);
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "input image must be 4-D[3,3,1]");
  OpTester empty = Crop(Random<float>(Shape({2, 0, 3, 1})), boxes, ind, size);
  ExpectRunError(empty, absl::StatusCode::kInvalidArgument, "image dimensions must be positive");
  OpTester boxes_rank = Crop(image, Make<float>(Shape({4}), {0, 0, 1, 1}), ind, size);
  ExpectRunError(boxes_rank, absl::StatusCode::kInvalidArgument, "boxes must be 2-D, got: [4]");
  OpTester ind_rank = Crop(image, boxes, Make<int32_t>(Shape({1, 1}), {0}), size);
  ExpectRunError(ind_rank, absl::StatusCode::kInvalidArgument,
                 "box_indices must be rank 1 but is shape [1,1]");
  OpTester columns = Crop(image, Make<float>(Shape({1, 3}), {0, 0, 1}), ind, size);
  ExpectRunError(columns, absl::StatusCode::kInvalidArgument, "boxes must have 4 columns");
  OpTester count = Crop(image, boxes, Tensor::Vector<int32_t>({0, 1}), size);
  ExpectRunError(count, absl::StatusCode::kInvalidArgument, "box_index has incompatible shape");
  OpTester three = Crop(image, boxes, ind, Tensor::Vector<int32_t>({2, 2, 2}));
  ExpectRunError(three, absl::StatusCode::kInvalidArgument, "crop_size must have two elements[3]");
  OpTester size_rank = Crop(image, boxes, ind, Make<int32_t>(Shape({1, 2}), {2, 2}));
  ExpectRunError(size_rank, absl::StatusCode::kInvalidArgument, "crop_size must be 1-D[1,2]");
  OpTester zero = Crop(image, boxes, ind, Tensor::Vector<int32_t>({0, 2}));
  ExpectRunError(zero, absl::StatusCode::kInvalidArgument, "crop dimensions must be positive");
  for (int32_t bad : {-1, 2}) {
    OpTester range = Crop(image, boxes, Tensor::Vector<int32_t>({bad}), size);
    ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                   "box_index has values outside [0, batch_size)");
  }
  OpTester method = Crop(image, boxes, ind, size, "bicubic");
  ExpectRunError(method, absl::StatusCode::kInvalidArgument, "bicubic");
}

}  // namespace
}  // namespace tessera::cpu::test
