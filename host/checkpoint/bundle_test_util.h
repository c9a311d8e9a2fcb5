// Helpers shared by the checkpoint tests: scratch directories, files, tensors with test values.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_TEST_UTIL_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_TEST_UTIL_H_

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {
namespace testing_util {

// A fresh directory for the running test.
inline std::string TestDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      (std::string("tessera_ckpt_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A host tensor whose bytes are pseudo-random (bool elements are 0 or 1).
inline Tensor RandomTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  auto* bytes = static_cast<unsigned char*>(t.data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) {
    bytes[i] = static_cast<unsigned char>(rng());
    if (dtype == TSR_DTYPE_BOOL) bytes[i] &= 1;
  }
  return t;
}

// Same dtype, shape and bytes.
inline ::testing::AssertionResult SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return ::testing::AssertionFailure()
           << DataTypeString(a.dtype()) << " " << a.shape().DebugString() << " vs "
           << DataTypeString(b.dtype()) << " " << b.shape().DebugString();
  }
  if (a.dtype() == TSR_DTYPE_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.flat<std::string>()[i] != b.flat<std::string>()[i]) {
        return ::testing::AssertionFailure() << "strings differ at element " << i;
      }
    }
    return ::testing::AssertionSuccess();
  }
  if (a.TotalBytes() > 0 && std::memcmp(a.data(), b.data(), a.TotalBytes()) != 0) {
    return ::testing::AssertionFailure() << "values differ";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing_util
}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_TEST_UTIL_H_
