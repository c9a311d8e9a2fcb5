// Tests of how fetched tensors are shown and named on disk.
#include "host/tools/tensor_summary.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tessera {
namespace cli {
namespace {

TEST(TensorSummaryTest, Names) {
  EXPECT_EQ(CanonicalTensorName("probabilities"), "probabilities:0");
  EXPECT_EQ(CanonicalTensorName("split:1"), "split:1");
  EXPECT_EQ(OutputFileName("dense/MatMul:0"), "dense_MatMul_0.npy");
  EXPECT_EQ(OutputFileName("probabilities"), "probabilities.npy");
  EXPECT_EQ(TypeName(TSR_DTYPE_FLOAT), "float32");
  EXPECT_EQ(TypeName(TSR_DTYPE_BFLOAT16), "bfloat16");
}

TEST(TensorSummaryTest, ValuesOfEachKind) {
  EXPECT_EQ(FormatValues(Tensor::FromVector<float>({4}, {0.0133f, 0.87f, 3.f, -0.00001f}), 10),
            "0.0133 0.87 3 0");
  EXPECT_EQ(FormatValues(Tensor::FromVector<float>({2}, {1234567.f, 1.f}), 10), "1.235e+06 1");
  EXPECT_EQ(FormatValues(Tensor::FromVector<double>({2}, {2e-5, -1e-6}), 10), "2e-05 -1e-06");
  EXPECT_EQ(FormatValues(Tensor::FromVector<float>({3}, {INFINITY, -INFINITY, NAN}), 10),
            "inf -inf nan");
  EXPECT_EQ(FormatValues(Tensor::FromVector<int64_t>({2}, {-1, 7}), 10), "-1 7");
  EXPECT_EQ(FormatValues(Tensor::FromVector<int8_t>({1}, {-5}), 10), "-5");
  EXPECT_EQ(FormatValues(Tensor::FromVector<uint8_t>({1}, {250}), 10), "250");
  EXPECT_EQ(FormatValues(Tensor::Vector<bool>({true, false}), 10), "true false");
  EXPECT_EQ(FormatValues(Tensor::Scalar<double>(2.5), 10), "2.5");
  Tensor half(TSR_DTYPE_HALF, {2});
  half.data<uint16_t>()[0] = 0x3C00;  // 1
  half.data<uint16_t>()[1] = 0xC000;  // -2
  EXPECT_EQ(FormatValues(half, 10), "1 -2");
  Tensor subnormal(TSR_DTYPE_HALF, {1});
  subnormal.data<uint16_t>()[0] = 0x0001;  // the smallest subnormal half
  EXPECT_EQ(FormatValues(subnormal, 10), "5.96e-08");
  Tensor bf16(TSR_DTYPE_BFLOAT16, {1});
  bf16.data<uint16_t>()[0] = 0x3FC0;  // 1.5
  EXPECT_EQ(FormatValues(bf16, 10), "1.5");
  Tensor complex(TSR_DTYPE_COMPLEX64, {1});
  complex.data<float>()[0] = 1;
  complex.data<float>()[1] = -2;
  EXPECT_EQ(FormatValues(complex, 10), "1-2j");
}

TEST(TensorSummaryTest, SeparatesRowsAndElidesLongTensors) {
  Tensor t = Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(FormatValues(t, 10), "1 2 3 | 4 5 6");
  EXPECT_EQ(FormatValues(t, 4), "1 2 3 ... (6 values)");  // whole rows only
  EXPECT_EQ(FormatValues(t, 2), "1 2 ... (6 values)");    // unless not even one row fits
  EXPECT_EQ(FormatValues(Tensor::FromVector<int32_t>({4}, {1, 2, 3, 4}), 3), "1 2 3 ... (4 values)");
  EXPECT_EQ(FormatValues(Tensor(TSR_DTYPE_FLOAT, {0}), 4), "");
  EXPECT_EQ(FormatValues(Tensor(), 4), "(uninitialized)");
}

TEST(TensorSummaryTest, AlignsColumns) {
  std::string text = FormatFetches(
      {"probabilities", "predicted_class:0"},
      {Tensor::FromVector<float>({1, 2}, {0.25f, 0.75f}), Tensor::FromVector<int64_t>({1}, {1})});
  EXPECT_EQ(text,
            "probabilities:0    float32  [1,2]  0.25 0.75\n"
            "predicted_class:0  int64    [1]    1\n");
}

// A signature's output keys are shown as given, not as tensor names.
TEST(TensorSummaryTest, KeysStayAsGiven) {
  std::string text = FormatFetches({"scores", "classes"},
                                   {Tensor::Vector<float>({0.5f}), Tensor::Vector<int64_t>({3})},
                                   /*max_values=*/10, /*tensor_names=*/false);
  EXPECT_EQ(text,
            "scores   float32  [1]  0.5\n"
            "classes  int64    [1]  3\n");
}

}  // namespace
}  // namespace cli
}  // namespace tessera
