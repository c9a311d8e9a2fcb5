// InvertPermutation on random permutations of both index types, and TensorFlow's errors for
// what is not a permutation.
#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

TEST(InvertPermutationOpTest, InvertsRandomPermutations) {
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t n = trial % 8 == 0 ? 0 : static_cast<int64_t>(Rng()() % 40) + 1;
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), Rng());
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
    const DataType dtype = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
    SCOPED_TRACE(ShapeString(perm));
    OpTester tester("InvertPermutation");
    tester.Attr("T", dtype).Input(IndexVector(dtype, perm));
    ExpectSameBytes(RunOk(tester), IndexVector(dtype, inverse));
  }
}

TEST(InvertPermutationOpTest, RejectsWhatIsNotAPermutation) {
  OpTester matrix("InvertPermutation");
  matrix.Input(Tensor::FromVector<int32_t>(TensorShape{1, 2}, {0, 1}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument,
                 "invert_permutation expects a 1D vector.");
  OpTester large("InvertPermutation");
  large.Attr("T", TSR_DTYPE_INT64).Input(Tensor::Vector<int64_t>({0, 3, 1}));
  ExpectRunError(large, absl::StatusCode::kInvalidArgument, "3 is not between 0 and 3");
  OpTester negative("InvertPermutation");
  negative.Input(Tensor::Vector<int32_t>({0, -1}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "-1 is not between 0 and 2");
  OpTester repeated("InvertPermutation");
  repeated.Input(Tensor::Vector<int32_t>({1, 0, 1}));
  ExpectRunError(repeated, absl::StatusCode::kInvalidArgument, "1 is duplicated in the input.");
}

}  // namespace
}  // namespace tessera::cpu::test
