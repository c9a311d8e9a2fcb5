#include "host/runtime/tensor.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_VARIANT, TensorShape{2});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("variant"), std::string::npos);
}

TEST(TensorTest, AllocateRejectsNegativeDimensions) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_FLOAT, TensorShape{-1});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("[-1]"), std::string::npos);
}

TEST(TensorTest, CheckTensorSizeRefusesWhatCannotExist) {
  int64_t bytes = -1;
  ASSERT_TRUE(CheckTensorSize(TSR_DTYPE_FLOAT, {2, 3}, &bytes).ok());
  EXPECT_EQ(bytes, 24);
  ASSERT_TRUE(CheckTensorSize(TSR_DTYPE_DOUBLE, {}, &bytes).ok());
  EXPECT_EQ(bytes, 8);
  // A zero dimension makes the tensor empty; the others must still multiply to at most 2^62, so
  // that no kernel's arithmetic on them can overflow.
  ASSERT_TRUE(CheckTensorSize(TSR_DTYPE_FLOAT, {int64_t{1} << 62, 0}, &bytes).ok());
  EXPECT_EQ(bytes, 0);
  absl::Status empty = CheckTensorSize(TSR_DTYPE_FLOAT, {int64_t{1} << 62, 0, 2});
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.message(),
            "shape [4611686018427387904,0,2] of float is empty, but its nonzero dimensions "
            "multiply to more than the limit of 4611686018427387904 elements");
  // Exactly at the limit is allowed; one element more is not.
  EXPECT_TRUE(CheckTensorSize(TSR_DTYPE_INT8, {kMaxTensorBytes}).ok());
  absl::Status over = CheckTensorSize(TSR_DTYPE_INT8, {kMaxTensorBytes + 1});
  EXPECT_EQ(over.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(over.message(),
            "shape [4611686018427387905] of int8 has 4611686018427387905 elements (1 bytes each), "
            "more than the limit of 4611686018427387904 bytes");
  // Products that do not fit in 64 (or even 128) bits are named, not wrapped.
  EXPECT_EQ(CheckTensorSize(TSR_DTYPE_FLOAT, {int64_t{1} << 32, int64_t{1} << 32, 16}).message(),
            "shape [4294967296,4294967296,16] of float has 295147905179352825856 elements "
            "(4 bytes each), more than the limit of 4611686018427387904 bytes");
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(CheckTensorSize(TSR_DTYPE_FLOAT, {big, big, big}).message(),
            "shape [9223372036854775807,9223372036854775807,9223372036854775807] of float has "
            "more than 2^128 elements (4 bytes each), more than the limit of "
            "4611686018427387904 bytes");
  // Strings count their std::string objects.
  EXPECT_TRUE(CheckTensorSize(TSR_DTYPE_STRING, {3}, &bytes).ok());
  EXPECT_EQ(bytes, static_cast<int64_t>(3 * sizeof(std::string)));
  EXPECT_EQ(CheckTensorSize(TSR_DTYPE_FLOAT, {2, -3}).message(),
            "shape [2,-3] of float has dimension 1 negative (-3)");
  // num_elements never wraps.
  EXPECT_EQ((TensorShape{int64_t{1} << 32, int64_t{1} << 32, 16}).num_elements(),
            kMaxElementCount + 1);
}

TEST(TensorTest, AllocateNamesTheShapeWhenMemoryRunsOut) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator aborts on an allocation this large";
#endif
  // 2^61 bytes: within the limit, beyond any machine's memory.
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(HostAllocator(), TSR_DTYPE_INT8, TensorShape{int64_t{1} << 61});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("cannot allocate a tensor of shape [2305843009213693952] of "
                                      "int8 (2305843009213693952 bytes): "),
            std::string::npos)
      << t.status();
}

TEST(TensorTest, AllocatePastTheLimitIsRefusedBeforeTheAllocator) {
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(HostAllocator(), TSR_DTYPE_FLOAT, TensorShape{int64_t{1} << 62});
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "cannot allocate a tensor: shape [4611686018427387904] of float has "
            "4611686018427387904 elements (4 bytes each), more than the limit of "
            "4611686018427387904 bytes");
}

TEST(TensorTest, ProcessTensorLimitIsResourceExhausted) {
  SetTensorByteLimit(1024);
  absl::Status over = CheckTensorSize(TSR_DTYPE_FLOAT, {257});
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(HostAllocator(), TSR_DTYPE_FLOAT, TensorShape{16, 16});
  SetTensorByteLimit(kMaxTensorBytes);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(over.message(),
            "shape [257] of float needs 1028 bytes, more than this process's tensor limit of "
            "1024 bytes");
  EXPECT_TRUE(t.ok()) << t.status();  // exactly at the limit
  EXPECT_EQ(TensorByteLimit(), kMaxTensorBytes);
  SetTensorByteLimit(0);  // clamped to at least one byte
  EXPECT_EQ(TensorByteLimit(), 1);
  SetTensorByteLimit(kMaxTensorBytes);
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
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "skipped: AddressSanitizer builds keep no freed blocks";
#endif
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

namespace tessera {
namespace {

// A device allocator the host cannot reach, as a device plugin without host memory has.
class UnreachableAllocator final : public Allocator {
 public:
  std::string Name() const override { return "TESTDEV:0"; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    return HostAllocator()->Allocate(size, alignment);
  }
  void Free(void* ptr, size_t size) override { HostAllocator()->Free(ptr, size); }
  bool host_accessible() const override { return false; }
};

TEST(StringTensorTest, AllocateMakesEmptyStringsInHostMemory) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(HostAllocator(), TSR_DTYPE_STRING, TensorShape{2, 3});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_STRING);
  EXPECT_EQ(t->NumElements(), 6);
  EXPECT_EQ(t->TotalBytes(), 0u);  // no flat layout: DataTypeSize(string) is 0
  EXPECT_TRUE(t->host_accessible());
  EXPECT_EQ(t->buffer()->allocator(), StringAllocator());
  for (const std::string& s : t->flat<std::string>()) EXPECT_EQ(s, "");
  t->flat<std::string>()[5] = std::string(1000, 'x');  // heap-allocated, freed with the buffer
  EXPECT_EQ(t->flat<std::string>()[5].size(), 1000u);
}

TEST(StringTensorTest, ConstructorScalarVectorAndStrings) {
  Tensor scalar = Tensor::Scalar<std::string>("model.ckpt");
  EXPECT_EQ(scalar.shape(), TensorShape{});
  EXPECT_EQ(scalar.flat<std::string>()[0], "model.ckpt");

  std::vector<std::string> names = {"w", "b"};
  Tensor vector = Tensor::Vector<std::string>(names);
  EXPECT_EQ(vector.shape(), TensorShape{2});
  EXPECT_EQ(vector.flat<std::string>()[1], "b");

  Tensor matrix = Tensor::Strings(TensorShape{2, 2}, {"a", "", "c\n", std::string("\0d", 2)});
  EXPECT_EQ(matrix.flat<std::string>()[3], std::string("\0d", 2));

  Tensor empty(TSR_DTYPE_STRING, TensorShape{0, 3});
  EXPECT_TRUE(empty.IsInitialized());
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_TRUE(empty.flat<std::string>().empty());
}

TEST(StringTensorTest, DeepCopyCopiesEveryString) {
  Tensor t = Tensor::Strings(TensorShape{3}, {"alpha", "", std::string(100, 'z')});
  absl::StatusOr<Tensor> copy = t.DeepCopy();
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_FALSE(copy->SharesBufferWith(t));
  EXPECT_EQ(copy->shape(), t.shape());
  t.flat<std::string>()[0] = "changed";
  EXPECT_EQ(copy->flat<std::string>()[0], "alpha");
  EXPECT_EQ(copy->flat<std::string>()[2], std::string(100, 'z'));

  absl::StatusOr<Tensor> empty_copy = Tensor(TSR_DTYPE_STRING, TensorShape{0}).DeepCopy();
  ASSERT_TRUE(empty_copy.ok());
  EXPECT_EQ(empty_copy->NumElements(), 0);
}

TEST(StringTensorTest, ReshapedSharesTheStrings) {
  Tensor t = Tensor::Strings(TensorShape{2, 2}, {"a", "b", "c", "d"});
  Tensor r = t.Reshaped(TensorShape{4});
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_EQ(r.flat<std::string>()[3], "d");
}

TEST(StringTensorTest, DebugStringQuotesAndEscapes) {
  Tensor t = Tensor::Strings(TensorShape{3}, {"a b", "line\n", "\"q\""});
  EXPECT_EQ(t.DebugString(), R"(string [3] "a b" "line\n" "\"q\"")");
  EXPECT_EQ(t.DebugString(1), R"(string [3] "a b" ...)");
}

TEST(StringTensorTest, AllocateRejectsMemoryTheHostCannotReach) {
  UnreachableAllocator device;
  absl::StatusOr<Tensor> t = Tensor::Allocate(&device, TSR_DTYPE_STRING, TensorShape{2});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("string tensors live in host memory only"),
            std::string::npos);
  EXPECT_NE(t.status().message().find("TESTDEV:0"), std::string::npos);
}

TEST(StringTensorTest, DenseTensorsNeverComeFromTheStringAllocator) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(StringAllocator(), TSR_DTYPE_FLOAT, TensorShape{8});
  ASSERT_TRUE(t.ok());
  EXPECT_NE(t->buffer()->allocator(), StringAllocator());
}

TEST(StringTensorTest, StringsWithoutAStringBufferAreNotCopied) {
  Tensor bogus(TSR_DTYPE_STRING, TensorShape{2}, nullptr);
  absl::StatusOr<Tensor> copy = bogus.DeepCopy();
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(copy.status().message().find("no buffer of strings"), std::string::npos);
  EXPECT_EQ(bogus.SummarizeValues(3), "<no strings>");
}

}  // namespace
}  // namespace tessera
