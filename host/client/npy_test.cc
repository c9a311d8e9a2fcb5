// Tests of .npy reading and writing: round trips, files written by numpy, and every error.
#include "host/client/npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string TestDataPath(const std::string& name) {
  return std::string(TESSERA_SOURCE_DIR) + "/host/client/testdata/" + name;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string base = dir != nullptr ? dir : "/tmp";
  return absl::StrCat(base, "/npy_test_", getpid(), "_", name);
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A .npy file with the given header dict and data (version `major`.0).
std::string MakeNpy(const std::string& dict, const std::string& data, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  std::string header = dict + "\n";
  int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  }
  return out + header + data;
}

std::string FloatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

void ExpectInvalid(const std::string& bytes, const std::string& substring) {
  absl::StatusOr<Tensor> t = ParseNpy(bytes, "in.npy");
  ASSERT_FALSE(t.ok()) << "expected an error containing '" << substring << "'";
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("'in.npy'"));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(substring));
}

template <typename T>
Tensor Iota(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (t.TotalBytes() > 0) std::memset(t.data(), 0, t.TotalBytes());  // complex: imaginary parts
  T* p = static_cast<T*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<T>(i * 3 + 1);
  return t;
}

void ExpectSameBytes(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.TotalBytes(), b.TotalBytes());
  if (a.TotalBytes() > 0) {
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.TotalBytes()), 0);
  }
}

TEST(NpyTest, RoundTripsEveryNumpyType) {
  std::vector<Tensor> tensors = {
      Iota<uint16_t>(TSR_DTYPE_HALF, {2}),       Iota<float>(TSR_DTYPE_FLOAT, {2, 3}),
      Iota<double>(TSR_DTYPE_DOUBLE, {4}),       Iota<float>(TSR_DTYPE_COMPLEX64, {3}),
      Iota<double>(TSR_DTYPE_COMPLEX128, {1, 2}), Iota<int8_t>(TSR_DTYPE_INT8, {5}),
      Iota<int16_t>(TSR_DTYPE_INT16, {2, 2}),    Iota<int32_t>(TSR_DTYPE_INT32, {3, 1}),
      Iota<int64_t>(TSR_DTYPE_INT64, {2, 1, 2}), Iota<uint8_t>(TSR_DTYPE_UINT8, {7}),
      Iota<uint16_t>(TSR_DTYPE_UINT16, {2}),     Iota<uint32_t>(TSR_DTYPE_UINT32, {2}),
      Iota<uint64_t>(TSR_DTYPE_UINT64, {2}),     Tensor::Vector<bool>({true, false, true}),
      Tensor::Scalar<float>(2.5f),               Tensor(TSR_DTYPE_INT32, {0, 4}),
  };
  for (Tensor& tensor : tensors) {
    SCOPED_TRACE(tensor.DebugString());
    absl::StatusOr<std::string> bytes = SerializeNpy(tensor);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->size() % 64, tensor.TotalBytes() % 64);  // header padded to 64
    absl::StatusOr<Tensor> parsed = ParseNpy(*bytes, "mem");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ExpectSameBytes(*parsed, tensor);
  }
}

TEST(NpyTest, WritesExactlyWhatNumpyWrites) {
  Tensor t = Tensor::FromVector<float>({2, 3}, {0, 0.5, 1, 1.5, 2, 2.5});
  absl::StatusOr<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, ReadFileBytes(TestDataPath("float32_2x3.npy")));
}

TEST(NpyTest, ReadsFloat32WrittenByNumpy) {
  absl::StatusOr<Tensor> t = ReadNpy(TestDataPath("float32_2x3.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "float [2,3] 0 0.5 1 1.5 2 2.5");
}

TEST(NpyTest, ConvertsBigEndianData) {
  absl::StatusOr<Tensor> t = ReadNpy(TestDataPath("int64_big_endian.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), TSR_DTYPE_INT64);
  EXPECT_THAT(t->flat<int64_t>(), ::testing::ElementsAre(1, -2, 300000000000));
}

TEST(NpyTest, ConvertsBigEndianComplexPerHalf) {
  std::string data;
  for (float f : {1.5f, -2.0f}) {
    char b[4];
    std::memcpy(b, &f, 4);
    data.append({b[3], b[2], b[1], b[0]});
  }
  absl::StatusOr<Tensor> t =
      ParseNpy(MakeNpy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", data), "m");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<float>()[0], 1.5f);
  EXPECT_EQ(t->data<float>()[1], -2.0f);
}

TEST(NpyTest, TransposesFortranOrder) {
  absl::StatusOr<Tensor> t = ReadNpy(TestDataPath("float64_fortran_2x3.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "double [2,3] 0 1 2 3 4 5");
}

TEST(NpyTest, ReadsVersions2And3) {
  absl::StatusOr<Tensor> v2 = ReadNpy(TestDataPath("int32_v2.npy"));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->DebugString(), "int32 [2,2] 7 8 9 10");
  absl::StatusOr<Tensor> v3 = ReadNpy(TestDataPath("uint16_v3.npy"));
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_EQ(v3->DebugString(), "uint16 [2] 1 65535");
}

TEST(NpyTest, ReadsScalarAndEmptyArrays) {
  absl::StatusOr<Tensor> scalar = ReadNpy(TestDataPath("bool_scalar.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->DebugString(), "bool [] true");
  absl::StatusOr<Tensor> empty = ReadNpy(TestDataPath("empty_0x3.npy"));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
}

TEST(NpyTest, AcceptsNativeAndNotApplicableByteOrders) {
  absl::StatusOr<Tensor> native = ParseNpy(
      MakeNpy("{'descr': '=f4', 'fortran_order': False, 'shape': (1,)}", FloatBytes({3})), "m");
  ASSERT_TRUE(native.ok()) << native.status();
  EXPECT_EQ(native->data<float>()[0], 3.0f);
  absl::StatusOr<Tensor> bytes = ParseNpy(
      MakeNpy("{\"descr\": \"|i1\", \"fortran_order\": False, \"shape\": (2L,)}", "\x01\xff"), "m");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->DebugString(), "int8 [2] 1 -1");
}

TEST(NpyTest, NormalizesNonzeroBoolBytes) {
  absl::StatusOr<Tensor> t = ParseNpy(
      MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", std::string("\x07\x00", 2)),
      "m");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "bool [2] true false");
}

TEST(NpyTest, WritesVersion2WhenTheHeaderIsLarge) {
  TensorShape shape;
  for (int i = 0; i < 30000; ++i) shape.AddDim(1);
  Tensor t(TSR_DTYPE_FLOAT, shape);
  *t.data<float>() = 4;
  absl::StatusOr<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ((*bytes)[6], 2);
  absl::StatusOr<Tensor> parsed = ParseNpy(*bytes, "m");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameBytes(*parsed, t);
}

TEST(NpyTest, WriteAndReadFile) {
  std::string path = TempPath("roundtrip.npy");
  Tensor t = Tensor::FromVector<int32_t>({3}, {4, 5, 6});
  ASSERT_TRUE(WriteNpy(t, path).ok());
  absl::StatusOr<Tensor> read = ReadNpy(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameBytes(*read, t);
  std::remove(path.c_str());
}

TEST(NpyTest, NumpyTypeNames) {
  EXPECT_EQ(NumpyTypeName(TSR_DTYPE_FLOAT), "float32");
  EXPECT_EQ(NumpyTypeName(TSR_DTYPE_BOOL), "bool");
  EXPECT_EQ(NumpyTypeName(TSR_DTYPE_BFLOAT16), "");
}

// ---- Errors -------------------------------------------------------------------------------

TEST(NpyErrorTest, MissingFileIsNotFound) {
  absl::StatusOr<Tensor> t = ReadNpy("/nonexistent/dir/x.npy");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("cannot open '/nonexistent/dir/x.npy'"));
}

TEST(NpyErrorTest, DirectoryIsInvalidArgument) {
  absl::StatusOr<Tensor> t = ReadNpy(TestDataPath(""));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("Is a directory"));
}

TEST(NpyErrorTest, WriteIntoMissingFolderIsNotFound) {
  absl::Status s = WriteNpy(Tensor::Scalar<float>(1), "/nonexistent/dir/x.npy");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot open for writing '/nonexistent/dir/x.npy'"));
}

TEST(NpyErrorTest, WriteIntoAFolderIsInvalidArgument) {
  absl::Status s = WriteNpy(Tensor::Scalar<float>(1), TestDataPath(""));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("Is a directory"));
}

TEST(NpyErrorTest, FullDiskIsReported) {
  Tensor big(TSR_DTYPE_FLOAT, {1 << 16});
  std::memset(big.data(), 0, big.TotalBytes());
  absl::Status s = WriteNpy(big, "/dev/full");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot write '/dev/full'"));
}

TEST(NpyErrorTest, OtherOpenErrorsAreUnknown) {
  std::string long_name = "/tmp/" + std::string(300, 'n') + ".npy";
  absl::StatusOr<Tensor> t = ReadNpy(long_name);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("File name too long"));
}

TEST(NpyErrorTest, FileErrorsNameTheFile) {
  std::string path = TempPath("bad.npy");
  {
    std::ofstream out(path, std::ios::binary);
    out << "not numpy";
  }
  absl::StatusOr<Tensor> t = ReadNpy(path);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(absl::StrCat("invalid .npy file '", path, "'")));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("bad magic"));
  std::remove(path.c_str());
}

TEST(NpyErrorTest, SerializeRejectsTypesNumpyLacks) {
  absl::StatusOr<std::string> s = SerializeNpy(Tensor(TSR_DTYPE_BFLOAT16, {2}));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("type bfloat16 as .npy"));
  absl::Status w = WriteNpy(Tensor(TSR_DTYPE_QINT8, {2}), TempPath("q.npy"));
  EXPECT_EQ(w.code(), absl::StatusCode::kInvalidArgument);
}

class DeviceOnlyAllocator : public Allocator {
 public:
  std::string Name() const override { return "device"; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    return HostAllocator()->Allocate(size, alignment);
  }
  void Free(void* ptr, size_t size) override { HostAllocator()->Free(ptr, size); }
  bool host_accessible() const override { return false; }
};

TEST(NpyErrorTest, SerializeRejectsDeviceTensors) {
  DeviceOnlyAllocator allocator;
  absl::StatusOr<Tensor> t = Tensor::Allocate(&allocator, TSR_DTYPE_FLOAT, {2});
  ASSERT_TRUE(t.ok());
  absl::StatusOr<std::string> s = SerializeNpy(*t);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("device memory"));
}

TEST(NpyErrorTest, RejectsMalformedPreambles) {
  ExpectInvalid("", "bad magic");
  ExpectInvalid("\x93NUMPX\x01\x00", "bad magic");
  ExpectInvalid(std::string("\x93NUMPY\x01", 7), "the version bytes are missing");
  ExpectInvalid(std::string("\x93NUMPY\x04\x00", 8), "unsupported format version 4.0");
  ExpectInvalid(std::string("\x93NUMPY\x01\x01", 8), "unsupported format version 1.1");
  ExpectInvalid(std::string("\x93NUMPY\x01\x00\x10", 9), "the header length is missing");
  ExpectInvalid(std::string("\x93NUMPY\x02\x00\x10\x00", 10), "the header length is missing");
  ExpectInvalid(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17),
                "truncated header: expected 64 header bytes, found 7");
}

TEST(NpyErrorTest, RejectsMalformedHeaderDicts) {
  std::string data = FloatBytes({1});
  ExpectInvalid(MakeNpy("['descr']", data), "expected '{' at the start of the header");
  ExpectInvalid(MakeNpy("{'descr' '<f4'}", data), "expected ':' after key 'descr'");
  ExpectInvalid(MakeNpy("{'descr': '<f4' 'x'}", data), "expected ',' or '}' in the header dict");
  ExpectInvalid(MakeNpy("{descr: 1}", data), "expected a quoted string in the header");
  ExpectInvalid(MakeNpy("{'descr': '<f4", data), "unterminated string in the header");
  ExpectInvalid(MakeNpy("{'de\\scr': 1}", data), "escape sequences are not supported");
  ExpectInvalid(MakeNpy("{'descr': ", data), "the header ends inside a value");
  ExpectInvalid(MakeNpy("{'descr': 7}", data), "unexpected character '7' in the header");
  ExpectInvalid(MakeNpy("{'descr': [('a', '<f4')", data), "unterminated list in the header");
  ExpectInvalid(MakeNpy("{'shape': (1 2)}", data), "expected ',' or ')' in the shape tuple");
  ExpectInvalid(MakeNpy("{'shape': (x,)}", data), "expected an integer in the shape tuple");
  ExpectInvalid(MakeNpy("{'shape': (99999999999999999999,)}", data),
                "a shape dimension is too large");
  ExpectInvalid(MakeNpy("{'descr': '<f4'} x", data), "unexpected text after the header dict");
}

// The header parser keeps no recursion: a list nested 200,000 deep (a 400 KB header, version
// 2) is skipped by counting brackets and refused by name, and an unclosed one is refused too;
// neither can overflow the stack.
TEST(NpyErrorTest, DeeplyNestedHeadersAreRefusedWithoutRecursion) {
  const std::string data = FloatBytes({1});
  const std::string open(200000, '[');
  const std::string close(200000, ']');
  ExpectInvalid(
      MakeNpy("{'descr': " + open + close + ", 'fortran_order': False, 'shape': (1,)}", data, 2),
      "structured arrays (a list 'descr') are not supported");
  ExpectInvalid(MakeNpy("{'descr': " + open, data, 2), "unterminated list in the header");
  ExpectInvalid(MakeNpy("{'shape': " + std::string(200000, '(') + "}", data, 2),
                "expected an integer in the shape tuple");
}

TEST(NpyErrorTest, RejectsBadHeaderKeysAndValues) {
  std::string data = FloatBytes({1});
  ExpectInvalid(MakeNpy("{'descr': True, 'fortran_order': False, 'shape': (1,)}", data),
                "header key 'descr' must be a string");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,)}", data),
                "header key 'fortran_order' must be True or False");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': '1'}", data),
                "header key 'shape' must be a tuple of integers");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': True}",
                        data),
                "unexpected header key 'x'");
  ExpectInvalid(MakeNpy("{'fortran_order': False, 'shape': (1,)}", data),
                "the header lacks key 'descr'");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'shape': (1,)}", data),
                "the header lacks key 'fortran_order'");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False}", data),
                "the header lacks key 'shape'");
}

TEST(NpyErrorTest, RejectsUnsupportedDescrs) {
  auto npy = [](const std::string& descr) {
    return MakeNpy("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }",
                   std::string(8, '\0'));
  };
  ExpectInvalid(npy("|O"), "object arrays (descr '|O') are not supported");
  ExpectInvalid(npy("<U8"), "unsupported dtype descr '<U8'");
  ExpectInvalid(npy("<f3"), "unsupported dtype descr '<f3'");
  ExpectInvalid(npy("<fx"), "unsupported dtype descr '<fx'");
  ExpectInvalid(npy("<f"), "unsupported dtype descr '<f'");
  ExpectInvalid(npy("|f4"), "only valid for 1-byte types");
  ExpectInvalid(npy("!f4"), "unknown byte order '!'");
  ExpectInvalid(MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", ""),
                "structured arrays");
}

TEST(NpyErrorTest, RejectsShapeDataMismatches) {
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        FloatBytes({1, 2, 3})),
                "truncated data: shape [2,3] of float32 needs 24 bytes, found 12");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                        FloatBytes({1, 2})),
                "data size mismatch: shape [1] of float32 needs 4 bytes, found 8");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""),
                "negative dimension -1 in shape (-1)");
  ExpectInvalid(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (1048576, 1048576, 2), }",
                        ""),
                "has more than 2^40 elements");
}

// ---- Cross-checks with numpy itself (when a Python with numpy is installed) ---------------

bool HaveNumpy() { return std::string(TESSERA_NUMPY_PYTHON).size() > 0; }

TEST(NpyNumpyTest, NumpyReadsWhatWeWrite) {
  if (!HaveNumpy()) GTEST_SKIP() << "skipped: no Python with numpy found at configure time";
  std::string path = TempPath("for_numpy.npy");
  ASSERT_TRUE(WriteNpy(Tensor::FromVector<int16_t>({2, 2}, {1, -2, 3, -4}), path).ok());
  std::string command = absl::StrCat(
      TESSERA_NUMPY_PYTHON, " -c \"import numpy as n, sys; a = n.load(sys.argv[1]); ",
      "sys.exit(0 if a.dtype == n.int16 and a.tolist() == [[1, -2], [3, -4]] else 1)\" ", path);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::remove(path.c_str());
}

TEST(NpyNumpyTest, ReadsEveryTypeNumpyWrites) {
  if (!HaveNumpy()) GTEST_SKIP() << "skipped: no Python with numpy found at configure time";
  std::string dir = TempPath("numpy_types");
  std::string command = absl::StrCat(
      TESSERA_NUMPY_PYTHON, " -c \"import numpy as n, os, sys; d = sys.argv[1]; ",
      "os.makedirs(d, exist_ok=True); ",
      "[n.save(os.path.join(d, t + '.npy'), n.arange(1, 7).reshape(2, 3).astype(t)) ",
      "for t in ['<f2','<f4','>f8','<c8','<c16','i1','<i2','>i4','<i8','u1','>u2','<u4','<u8',"
      "'?']]\" ",
      dir);
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const char* name : {"<f2", "<f4", ">f8", "<c8", "<c16", "i1", "<i2", ">i4", "<i8", "u1",
                           ">u2", "<u4", "<u8", "?"}) {
    std::string path = absl::StrCat(dir, "/", name, ".npy");
    absl::StatusOr<Tensor> t = ReadNpy(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->shape(), TensorShape({2, 3})) << name;
    if (t->dtype() == TSR_DTYPE_HALF) continue;  // no half arithmetic here; round trip covers it
    if (t->dtype() == TSR_DTYPE_COMPLEX64) {
      EXPECT_EQ(t->data<float>()[2], 2.0f) << name;  // real part of element 1
      EXPECT_EQ(t->data<float>()[3], 0.0f) << name;
    } else if (t->dtype() == TSR_DTYPE_COMPLEX128) {
      EXPECT_EQ(t->data<double>()[10], 6.0) << name;
    } else {
      std::string expected =
          std::string(name) == "?" ? "true true true true true true" : "1 2 3 4 5 6";
      EXPECT_EQ(t->SummarizeValues(6), expected) << name;
    }
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace tessera
