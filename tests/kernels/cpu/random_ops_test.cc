// RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt through real sessions:
// values TensorFlow produced for fixed seeds, agreement with a serial reference fill across
// sessions and thread counts, successive steps, unseeded kernels, statistics and errors.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/session/session.h"
#include "plugins/cpu/kernels/philox.h"
#include "plugins/cpu/kernels/philox_distributions.h"
#include "tests/kernels/cpu/kernel_test_util.h"

namespace tessera::cpu::test {
namespace {

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue value;
  value.set_type(static_cast<tensorflow::DataType>(dtype));
  return value;
}

tensorflow::AttrValue IntAttr(int64_t i) {
  tensorflow::AttrValue value;
  value.set_i(i);
  return value;
}

// One random node fed by placeholders, in a session that lives across steps.
class RandomSession {
 public:
  // `dtype` is the output type; `inputs` are shape (and minval, maxval for RandomUniformInt).
  RandomSession(const std::string& op, DataType dtype, int64_t seed, int64_t seed2,
                std::vector<Tensor> inputs, int intra_op_threads = 0) {
    tensorflow::GraphDef graph;
    for (size_t i = 0; i < inputs.size(); ++i) {
      tensorflow::NodeDef* input = graph.add_node();
      input->set_name(absl::StrCat("input_", i));
      input->set_op("Placeholder");
      (*input->mutable_attr())["dtype"] = TypeAttr(inputs[i].dtype());
      feeds_.emplace_back(input->name(), inputs[i]);
    }
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name("random");
    node->set_op(op);
    for (size_t i = 0; i < inputs.size(); ++i) node->add_input(absl::StrCat("input_", i));
    auto& attrs = *node->mutable_attr();
    attrs[op == "RandomUniformInt" ? "Tout" : "dtype"] = TypeAttr(dtype);
    attrs["T"] = TypeAttr(inputs[0].dtype());
    attrs["seed"] = IntAttr(seed);
    attrs["seed2"] = IntAttr(seed2);
    SessionOptions options;
    options.intra_op_threads = intra_op_threads;
    auto session = Session::Create(options, graph);
    EXPECT_TRUE(session.ok()) << session.status();
    if (session.ok()) session_ = *std::move(session);
  }

  // One step; fails the test on error.
  Tensor Run() {
    std::vector<Tensor> outputs;
    if (session_ == nullptr) return Tensor();
    absl::Status status = session_->Run(feeds_, {"random:0"}, {}, &outputs);
    EXPECT_TRUE(status.ok()) << status;
    return status.ok() ? outputs[0] : Tensor();
  }

 private:
  std::unique_ptr<Session> session_;
  std::vector<std::pair<std::string, Tensor>> feeds_;
};

// What a kernel seeded (seed, seed2) returns at step `step` when every step has `size` outputs.
template <typename Distribution>
std::vector<typename Distribution::Element> Reference(int64_t seed, int64_t seed2, int64_t size,
                                                      int step, const Distribution& distribution) {
  Philox4x32 base(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  base.Skip(static_cast<uint64_t>(step) * static_cast<uint64_t>(size) * kReservedBlocksPerOutput);
  std::vector<typename Distribution::Element> values(size);
  FillGroups(base, values.data(), size, 0, NumGroups<Distribution>(size), distribution);
  return values;
}

template <typename Element>
bool SameBytes(const Tensor& tensor, const std::vector<Element>& expected) {
  return tensor.NumElements() == static_cast<int64_t>(expected.size()) &&
         std::memcmp(tensor.data(), expected.data(), expected.size() * sizeof(Element)) == 0;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.NumElements() * DataTypeSize(a.dtype())) == 0;
}

// ---- Values TensorFlow produced ----

// tensorflow::ops::RandomUniform / RandomNormal with Attrs{seed=1, seed2=2}, shape {2, 2}, float.
TEST(RandomOpsTest, MatchesTensorFlowForSeeds1And2) {
  RandomSession uniform("RandomUniform", TSR_DTYPE_FLOAT, 1, 2, {Tensor::Vector<int32_t>({2, 2})});
  ExpectTensorNear<float>(uniform.Run(), TSR_DTYPE_FLOAT, Shape({2, 2}),
                          {0.4063967466354370117f, 0.8575996160507202148f, 0.05539584159851074219f,
                           0.08587229251861572266f},
                          0.0);
  RandomSession normal("RandomStandardNormal", TSR_DTYPE_FLOAT, 1, 2,
                       {Tensor::Vector<int32_t>({2, 2})});
  ExpectTensorNear<float>(normal.Run(), TSR_DTYPE_FLOAT, Shape({2, 2}),
                          {-1.046779274940490723f, 0.8397045731544494629f, 1.235836386680603027f,
                           2.063785314559936523f},
                          0.0);
}

// TensorFlow 1's tf.random.uniform([2, 2]) after tf.set_random_seed(777) in a fresh graph: the
// op seed is the graph's last op id, 3 (the shape, min and max constants come first).
TEST(RandomOpsTest, MatchesTensorFlowGraphSeed777) {
  RandomSession uniform("RandomUniform", TSR_DTYPE_FLOAT, 777, 3,
                        {Tensor::Vector<int64_t>({2, 2})});
  Tensor out = uniform.Run();
  ASSERT_EQ(out.NumElements(), 4);
  const float expected[] = {0.06672299f, 0.3009504f, 0.85697794f, 0.1031245f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out.data<float>()[i], expected[i]) << i;
}

// TensorFlow's documented tf.random.set_seed(5); tf.random.uniform([], maxval=3, dtype=tf.int32,
// seed=10) twice: 2, then 0 from the same kernel.
TEST(RandomOpsTest, MatchesTensorFlowsDocumentedIntegerSequence) {
  RandomSession ints(
      "RandomUniformInt", TSR_DTYPE_INT32, 5, 10,
      {Tensor::Vector<int32_t>({}), Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(3)});
  Tensor first = ints.Run();
  Tensor second = ints.Run();
  ASSERT_EQ(first.NumElements(), 1);
  ASSERT_EQ(second.NumElements(), 1);
  EXPECT_EQ(first.shape(), Shape({}));
  EXPECT_EQ(first.data<int32_t>()[0], 2);
  EXPECT_EQ(second.data<int32_t>()[0], 0);
}

// ---- Determinism and steps ----

TEST(RandomOpsTest, SuccessiveStepsContinueTheStream) {
  RandomSession session("RandomUniform", TSR_DTYPE_FLOAT, 7, 8, {Tensor::Vector<int32_t>({5})});
  std::vector<Tensor> steps;
  for (int step = 0; step < 3; ++step) {
    steps.push_back(session.Run());
    EXPECT_TRUE(SameBytes(steps.back(), Reference(7, 8, 5, step, UniformDistribution<float>())))
        << "step " << step;
  }
  EXPECT_FALSE(SameBytes(steps[0], steps[1]));
  EXPECT_FALSE(SameBytes(steps[1], steps[2]));
}

// Large enough to be sharded on the intra-op pool; every thread count gives the serial values.
template <typename Distribution>
void ExpectSameAcrossThreadCounts(const std::string& op, DataType dtype,
                                  const Distribution& distribution,
                                  std::vector<Tensor> extra_inputs = {}) {
  const TensorShape shape = Shape({301, 257});
  std::vector<Tensor> inputs = {Tensor::Vector<int64_t>({301, 257})};
  for (Tensor& t : extra_inputs) inputs.push_back(std::move(t));
  const auto step0 = Reference(3, 4, shape.num_elements(), 0, distribution);
  const auto step1 = Reference(3, 4, shape.num_elements(), 1, distribution);
  for (int threads : {1, 2, 4}) {
    RandomSession session(op, dtype, 3, 4, inputs, threads);
    Tensor first = session.Run();
    EXPECT_EQ(first.shape(), shape);
    EXPECT_TRUE(SameBytes(first, step0)) << op << " with " << threads << " threads";
    EXPECT_TRUE(SameBytes(session.Run(), step1)) << op << " with " << threads << " threads";
  }
}

TEST(RandomOpsTest, ValuesDoNotDependOnTheThreadCount) {
  ExpectSameAcrossThreadCounts("RandomUniform", TSR_DTYPE_DOUBLE, UniformDistribution<double>());
  ExpectSameAcrossThreadCounts("RandomStandardNormal", TSR_DTYPE_FLOAT,
                               NormalDistribution<float>());
  ExpectSameAcrossThreadCounts("TruncatedNormal", TSR_DTYPE_FLOAT,
                               TruncatedNormalDistribution<float>());
  ExpectSameAcrossThreadCounts("TruncatedNormal", TSR_DTYPE_DOUBLE,
                               TruncatedNormalDistribution<double>());
  ExpectSameAcrossThreadCounts("RandomUniformInt", TSR_DTYPE_INT64,
                               UniformIntDistribution<int64_t>(-100, 1000),
                               {Tensor::Scalar<int64_t>(-100), Tensor::Scalar<int64_t>(1000)});
}

TEST(RandomOpsTest, HalfAndBfloat16FollowTheirDistributions) {
  const std::vector<int32_t> dims = {3, 7};
  RandomSession half_uniform("RandomUniform", TSR_DTYPE_HALF, 9, 1,
                             {Tensor::Vector<int32_t>(dims)});
  EXPECT_TRUE(SameBytes(half_uniform.Run(), Reference(9, 1, 21, 0, UniformDistribution<Half>())));
  RandomSession bfloat_normal("RandomStandardNormal", TSR_DTYPE_BFLOAT16, 9, 1,
                              {Tensor::Vector<int32_t>(dims)});
  EXPECT_TRUE(
      SameBytes(bfloat_normal.Run(), Reference(9, 1, 21, 0, NormalDistribution<Bfloat16>())));
  RandomSession half_truncated("TruncatedNormal", TSR_DTYPE_HALF, 9, 1,
                               {Tensor::Vector<int32_t>(dims)});
  EXPECT_TRUE(
      SameBytes(half_truncated.Run(), Reference(9, 1, 21, 0, TruncatedNormalDistribution<Half>())));
  RandomSession bfloat_uniform("RandomUniform", TSR_DTYPE_BFLOAT16, 9, 1,
                               {Tensor::Vector<int32_t>(dims)});
  EXPECT_TRUE(
      SameBytes(bfloat_uniform.Run(), Reference(9, 1, 21, 0, UniformDistribution<Bfloat16>())));
}

TEST(RandomOpsTest, SameSeedsGiveTheSameValuesInEverySession) {
  RandomSession a("RandomStandardNormal", TSR_DTYPE_DOUBLE, 0, 11, {Tensor::Vector<int32_t>({64})});
  RandomSession b("RandomStandardNormal", TSR_DTYPE_DOUBLE, 0, 11, {Tensor::Vector<int32_t>({64})});
  EXPECT_TRUE(SameBytes(a.Run(), b.Run()));
  // Seed 0 with a non-zero seed2 is deterministic too; only (0, 0) is not.
  EXPECT_TRUE(SameBytes(a.Run(), Reference(0, 11, 64, 1, NormalDistribution<double>())));
}

TEST(RandomOpsTest, UnseededKernelsDifferBetweenSessions) {
  RandomSession a("RandomUniform", TSR_DTYPE_FLOAT, 0, 0, {Tensor::Vector<int32_t>({16})});
  RandomSession b("RandomUniform", TSR_DTYPE_FLOAT, 0, 0, {Tensor::Vector<int32_t>({16})});
  Tensor a0 = a.Run();
  EXPECT_FALSE(SameBytes(a0, b.Run()));
  EXPECT_FALSE(SameBytes(a0, a.Run()));
}

// ---- Statistics ----

template <typename T>
void MeanAndVariance(const Tensor& t, double* mean, double* variance) {
  double sum = 0;
  double sum_squares = 0;
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(t.data<T>()[i]);
    sum += v;
    sum_squares += v * v;
  }
  *mean = sum / n;
  *variance = sum_squares / n - *mean * *mean;
}

TEST(RandomOpsTest, UniformFloatsFillTheUnitInterval) {
  for (DataType dtype : {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE}) {
    RandomSession session("RandomUniform", dtype, 101, 0, {Tensor::Vector<int32_t>({200000})});
    Tensor out = session.Run();
    double mean;
    double variance;
    double lo = 1;
    double hi = 0;
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      const double v = dtype == TSR_DTYPE_FLOAT ? out.data<float>()[i] : out.data<double>()[i];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (dtype == TSR_DTYPE_FLOAT) {
      MeanAndVariance<float>(out, &mean, &variance);
    } else {
      MeanAndVariance<double>(out, &mean, &variance);
    }
    EXPECT_NEAR(mean, 0.5, 0.005);
    EXPECT_NEAR(variance, 1.0 / 12, 0.002);
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_LT(lo, 1e-4);
    EXPECT_GT(hi, 1 - 1e-4);
  }
}

TEST(RandomOpsTest, NormalsHaveUnitVariance) {
  RandomSession f("RandomStandardNormal", TSR_DTYPE_FLOAT, 102, 0,
                  {Tensor::Vector<int32_t>({200000})});
  RandomSession d("RandomStandardNormal", TSR_DTYPE_DOUBLE, 102, 0,
                  {Tensor::Vector<int32_t>({200000})});
  double mean;
  double variance;
  MeanAndVariance<float>(f.Run(), &mean, &variance);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(variance, 1.0, 0.02);
  MeanAndVariance<double>(d.Run(), &mean, &variance);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(variance, 1.0, 0.02);
}

TEST(RandomOpsTest, TruncatedNormalsStayInsideTwoStandardDeviations) {
  // The variance of a standard normal truncated to (-2, 2).
  const double kTruncatedVariance = 0.7737413;
  for (DataType dtype : {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE}) {
    RandomSession session("TruncatedNormal", dtype, 103, 0, {Tensor::Vector<int32_t>({200000})});
    Tensor out = session.Run();
    double mean;
    double variance;
    double largest = 0;
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      const double v = dtype == TSR_DTYPE_FLOAT ? out.data<float>()[i] : out.data<double>()[i];
      largest = std::max(largest, std::fabs(v));
    }
    if (dtype == TSR_DTYPE_FLOAT) {
      MeanAndVariance<float>(out, &mean, &variance);
    } else {
      MeanAndVariance<double>(out, &mean, &variance);
    }
    EXPECT_LT(largest, 2.0);
    EXPECT_GT(largest, 1.99);
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(variance, kTruncatedVariance, 0.015);
  }
}

TEST(RandomOpsTest, UniformIntegersHitEveryValueEvenly) {
  const int n = 120000;
  RandomSession session(
      "RandomUniformInt", TSR_DTYPE_INT32, 104, 0,
      {Tensor::Vector<int32_t>({n}), Tensor::Scalar<int32_t>(-5), Tensor::Scalar<int32_t>(7)});
  Tensor out = session.Run();
  std::vector<int> counts(12, 0);
  for (int i = 0; i < n; ++i) {
    const int32_t v = out.data<int32_t>()[i];
    ASSERT_TRUE(v >= -5 && v < 7) << v;
    ++counts[v + 5];
  }
  const double expected = n / 12.0;
  const double sigma = std::sqrt(expected * (11.0 / 12));
  for (int count : counts) EXPECT_LT(std::fabs(count - expected), 5 * sigma);
}

// ---- Shapes and errors ----

TEST(RandomOpsTest, EmptyShapesGiveEmptyTensors) {
  OpTester tester("TruncatedNormal");
  tester.Attr("dtype", TSR_DTYPE_FLOAT)
      .Attr("T", TSR_DTYPE_INT32)
      .Input(Tensor::Vector<int32_t>({3, 0}));
  Tensor out = RunOk(tester);
  EXPECT_EQ(out.shape(), Shape({3, 0}));
  // An empty RandomUniformInt needs no valid range, as in TensorFlow.
  OpTester ints("RandomUniformInt");
  ints.Attr("Tout", TSR_DTYPE_INT64)
      .Attr("T", TSR_DTYPE_INT64)
      .Input(Tensor::Vector<int64_t>({0, 4}))
      .Input(Tensor::Scalar<int64_t>(3))
      .Input(Tensor::Scalar<int64_t>(3));
  EXPECT_EQ(RunOk(ints).shape(), Shape({0, 4}));
}

OpTester Uniform(const Tensor& shape) {
  OpTester tester("RandomUniform");
  tester.Attr("dtype", TSR_DTYPE_FLOAT).Attr("T", shape.dtype()).Input(shape);
  return tester;
}

TEST(RandomOpsTest, RejectsAShapeThatIsNotAVector) {
  OpTester tester = Uniform(Make<int32_t>(Shape({1, 2}), {2, 2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "shape must be a vector of {int32,int64}, got shape [1,2]");
}

TEST(RandomOpsTest, RejectsANegativeDimension) {
  OpTester tester = Uniform(Tensor::Vector<int64_t>({4, -2}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument, "Dimension -2 must be >= 0");
}

TEST(RandomOpsTest, RejectsMoreThanEightDimensions) {
  OpTester tester = Uniform(Tensor::Vector<int32_t>(std::vector<int32_t>(9, 1)));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "shape has 9 entries, more than the maximum rank 8");
}

TEST(RandomOpsTest, RejectsAShapeWithTooManyElements) {
  OpTester tester = Uniform(Tensor::Vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40}));
  ExpectRunError(tester, absl::StatusCode::kInvalidArgument,
                 "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 elements");
}

OpTester UniformInt(const Tensor& minval, const Tensor& maxval) {
  OpTester tester("RandomUniformInt");
  tester.Attr("Tout", minval.dtype())
      .Attr("T", TSR_DTYPE_INT32)
      .Input(Tensor::Vector<int32_t>({4}))
      .Input(minval)
      .Input(maxval);
  return tester;
}

TEST(RandomOpsTest, UniformIntRejectsBoundsThatAreNotScalars) {
  OpTester min_vector = UniformInt(Tensor::Vector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(4));
  ExpectRunError(min_vector, absl::StatusCode::kInvalidArgument,
                 "minval must be 0-D, got shape [2]");
  OpTester max_vector = UniformInt(Tensor::Scalar<int64_t>(0), Tensor::Vector<int64_t>({4}));
  ExpectRunError(max_vector, absl::StatusCode::kInvalidArgument,
                 "maxval must be 0-D, got shape [1]");
}

TEST(RandomOpsTest, UniformIntNeedsMinvalBelowMaxval) {
  OpTester equal = UniformInt(Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(3));
  ExpectRunError(equal, absl::StatusCode::kInvalidArgument, "Need minval < maxval, got 3 >= 3");
  OpTester reversed = UniformInt(Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(-5));
  ExpectRunError(reversed, absl::StatusCode::kInvalidArgument, "Need minval < maxval, got 5 >= -5");
}

}  // namespace
}  // namespace tessera::cpu::test
