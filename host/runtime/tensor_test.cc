#include "host/runtime/tensor.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(TensorTest, HostTensorsAreAlignedAndSized) {
  Tensor t(TSR_DTYPE_FLOAT, TensorShape{2, 3});
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.TotalBytes(), 24u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kTensorAlignment, 0u);
  EXPECT_TRUE(t.host_accessible());
  EXPECT_TRUE(t.RefCountIsOne());
}

TEST(TensorTest, EmptyTensorsHaveNoBuffer) {
  Tensor t(TSR_DTYPE_INT32, TensorShape{0, 4});
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.data(), nullptr);
  EXPECT_EQ(t.NumElements(), 0);
}

TEST(TensorTest, ReshapedSharesTheBuffer) {
  Tensor t = Tensor::FromVector<float>(TensorShape{2, 2}, {1, 2, 3, 4});
  Tensor r = t.Reshaped(TensorShape{4});
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_FALSE(t.RefCountIsOne());
  EXPECT_EQ(r.shape(), TensorShape{4});
}

TEST(TensorTest, DebugStringShowsTypeShapeAndValues) {
  Tensor t = Tensor::FromVector<float>(TensorShape{2, 2}, {1, 2.5f, 3, 4});
  EXPECT_EQ(t.DebugString(3), "float [2,2] 1 2.5 3 ...");
  EXPECT_EQ(Tensor::Scalar<bool>(true).DebugString(), "bool [] true");
  EXPECT_EQ(Tensor().DebugString(), "<uninitialized tensor>");
}

TEST(TensorTest, AllocateRejectsTypesWithoutAFlatLayout) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_STRING, TensorShape{2});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("string"), std::string::npos);
}

TEST(TensorTest, AllocateRejectsNegativeDimensions) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_FLOAT, TensorShape{-1});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("[-1]"), std::string::npos);
}

TEST(TypesTest, NamesRoundTrip) {
  DataType dtype;
  ASSERT_TRUE(DataTypeFromString("DT_FLOAT", &dtype));
  EXPECT_EQ(dtype, TSR_DTYPE_FLOAT);
  ASSERT_TRUE(DataTypeFromString("float64", &dtype));
  EXPECT_EQ(dtype, TSR_DTYPE_DOUBLE);
  ASSERT_TRUE(DataTypeFromString("int64", &dtype));
  EXPECT_EQ(DataTypeString(dtype), "int64");
  EXPECT_FALSE(DataTypeFromString("float128", &dtype));
  EXPECT_EQ(DataTypeSize(TSR_DTYPE_BOOL), 1u);
  EXPECT_EQ(DataTypeSize(TSR_DTYPE_STRING), 0u);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(HostAllocatorTest, ReusesLargeBlocksOfTheSameSize) {
  Allocator* host = HostAllocator();
  const size_t size = (size_t{3} << 20) + 5;
  absl::StatusOr<void*> first = host->Allocate(size, 64);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*first) % 4096, 0u);
  host->Free(*first, size);
  absl::StatusOr<void*> second = host->Allocate(size, 64);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, *first);  // the freed block came back
  absl::StatusOr<void*> third = host->Allocate(size, 64);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_NE(*third, *second);  // a live block is never handed out twice
  host->Free(*second, size);
  host->Free(*third, size);
}

TEST(HostAllocatorTest, OveralignedLargeBlocksAreNotCached) {
  Allocator* host = HostAllocator();
  const size_t size = size_t{2} << 20;
  absl::StatusOr<void*> block = host->Allocate(size, 1 << 16);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*block) % (1 << 16), 0u);
  host->Free(*block, size);
  // A page-aligned request of the same size never gets the over-aligned block's pointer back
  // from the cache (it was freed, not cached); it is still correctly aligned.
  absl::StatusOr<void*> page = host->Allocate(size, 64);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*page) % 4096, 0u);
  host->Free(*page, size);
}

}  // namespace
}  // namespace tessera
