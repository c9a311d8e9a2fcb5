// LRN and LRNGrad against reference loops; LRNGrad also against central differences of LRN.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/kernels/cpu/nn_test_util.h"

namespace tessera::cpu::test {
namespace {

struct LrnParams {
  int64_t depth_radius = 5;
  float bias = 1.0f;
  float alpha = 1.0f;
  float beta = 0.5f;
};

void SetAttrs(OpTester& tester, const LrnParams& p) {
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("depth_radius", p.depth_radius)
      .Attr("bias", p.bias)
      .Attr("alpha", p.alpha)
      .Attr("beta", p.beta);
}

// Normalization of channel d at the position starting at x[0]: bias + alpha * sum of squares.
double Norm(const LrnParams& p, const double* x, int64_t depth, int64_t d) {
  double sum = 0;
  for (int64_t k = std::max<int64_t>(0, d - p.depth_radius);
       k < std::min(depth, d + p.depth_radius + 1); ++k) {
    sum += x[k] * x[k];
  }
  return double(p.bias) + double(p.alpha) * sum;
}

std::vector<double> ReferenceLrn(const LrnParams& p, const std::vector<double>& x, int64_t depth) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t d = static_cast<int64_t>(i) % depth;
    y[i] = x[i] * std::pow(Norm(p, &x[i - d], depth, d), -double(p.beta));
  }
  return y;
}

void CheckLrn(const TensorShape& shape, const LrnParams& p) {
  SCOPED_TRACE(shape.DebugString() + " radius " + std::to_string(p.depth_radius));
  const std::vector<double> x =
      Values(FromValues<float>(shape, RandomValues(shape.num_elements(), -2, 2)));
  OpTester tester("LRN");
  SetAttrs(tester, p);
  tester.Input(FromValues<float>(shape, x));
  const int64_t depth = shape.dim(3);
  ExpectValuesNear(RunOk(tester), shape, depth == 0 ? x : ReferenceLrn(p, x, depth), 1e-5);
}

const std::vector<LrnParams>& Params() {
  static const auto* params = new std::vector<LrnParams>{
      LrnParams(), {2, 2.0f, 0.5f, 0.75f}, {0, 1.5f, 1.0f, 1.0f}, {40, 0.5f, 0.1f, 0.3f}};
  return *params;
}

TEST(LrnOpTest, MatchesReference) {
  for (const LrnParams& p : Params()) {
    for (const TensorShape& shape : {Shape({1, 1, 1, 1}), Shape({2, 3, 4, 7}), Shape({1, 2, 2, 64}),
                                     Shape({0, 2, 2, 3}), Shape({2, 2, 2, 0})}) {
      CheckLrn(shape, p);
    }
  }
}

TEST(LrnGradOpTest, MatchesCentralDifferencesOfLrn) {
  for (const LrnParams& p : Params()) {
    for (const TensorShape& shape : {Shape({1, 1, 1, 1}), Shape({2, 1, 3, 9})}) {
      SCOPED_TRACE(shape.DebugString() + " radius " + std::to_string(p.depth_radius));
      const int64_t depth = shape.dim(3);
      // Float-representable inputs so that the kernel sees exactly what the reference does.
      const std::vector<double> x =
          Values(FromValues<float>(shape, RandomValues(shape.num_elements(), 0.2, 1.5)));
      const std::vector<double> dy =
          Values(FromValues<float>(shape, RandomValues(shape.num_elements(), -1, 1)));
      const std::vector<double> y = ReferenceLrn(p, x, depth);
      const std::vector<double> numeric = NumericGradient(
          Weighted([&](const std::vector<double>& v) { return ReferenceLrn(p, v, depth); }, dy), x);
      OpTester tester("LRNGrad");
      SetAttrs(tester, p);
      tester.Input(FromValues<float>(shape, dy))
          .Input(FromValues<float>(shape, x))
          .Input(FromValues<float>(shape, y));
      ExpectValuesNear(RunOk(tester), shape, numeric, 1e-4);
    }
  }
}

TEST(LrnGradOpTest, LargeInputsMatchTheClosedForm) {
  const LrnParams p{3, 1.0f, 0.2f, 0.75f};
  const TensorShape shape = Shape({3, 5, 7, 16});
  const int64_t depth = 16;
  const std::vector<double> x =
      Values(FromValues<float>(shape, RandomValues(shape.num_elements(), -2, 2)));
  const std::vector<double> dy =
      Values(FromValues<float>(shape, RandomValues(shape.num_elements(), -1, 1)));
  const std::vector<double> y = Values(FromValues<float>(shape, ReferenceLrn(p, x, depth)));
  // d y_j / d x_k = [j == k] norm_j^-beta - 2 alpha beta x_k y_j / norm_j over j's window.
  std::vector<double> expected(x.size(), 0);
  for (size_t base = 0; base < x.size(); base += depth) {
    for (int64_t j = 0; j < depth; ++j) {
      const double norm = Norm(p, &x[base], depth, j);
      for (int64_t k = std::max<int64_t>(0, j - p.depth_radius);
           k < std::min(depth, j + p.depth_radius + 1); ++k) {
        double d = -2 * double(p.alpha) * double(p.beta) * x[base + k] * y[base + j] / norm;
        if (k == j) d += std::pow(norm, -double(p.beta));
        expected[base + k] += d * dy[base + j];
      }
    }
  }
  OpTester tester("LRNGrad");
  SetAttrs(tester, p);
  tester.Input(FromValues<float>(shape, dy))
      .Input(FromValues<float>(shape, x))
      .Input(FromValues<float>(shape, y));
  ExpectValuesNear(RunOk(tester), shape, expected, 1e-5);
}

TEST(LrnOpTest, Errors) {
  OpTester rank("LRN");
  SetAttrs(rank, LrnParams());
  rank.Input(Random<float>(Shape({2, 3, 4})));
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "in must be 4-dimensional");

  OpTester radius("LRN");
  SetAttrs(radius, {-1, 1.0f, 1.0f, 0.5f});
  radius.Input(Random<float>(Shape({1, 1, 1, 3})));
  ExpectRunError(radius, absl::StatusCode::kInvalidArgument,
                 "depth_radius = -1 larger than int max");

  OpTester grad_rank("LRNGrad");
  SetAttrs(grad_rank, LrnParams());
  grad_rank.Input(Random<float>(Shape({2, 3, 4})))
      .Input(Random<float>(Shape({2, 3, 4})))
      .Input(Random<float>(Shape({2, 3, 4})));
  ExpectRunError(grad_rank, absl::StatusCode::kInvalidArgument, "inputs must be 4-dimensional");

  OpTester grad_shape("LRNGrad");
  SetAttrs(grad_shape, LrnParams());
  grad_shape.Input(Random<float>(Shape({1, 2, 3, 4})))
      .Input(Random<float>(Shape({1, 2, 3, 4})))
      .Input(Random<float>(Shape({1, 2, 3, 5})));
  ExpectRunError(grad_shape, absl::StatusCode::kInvalidArgument,
                 "input_grads, input_image, and out_image should have the same shape");
}

}  // namespace
}  // namespace tessera::cpu::test
