// SegmentSum/Mean/Max and UnsortedSegmentMax/Min/Prod against reference loops on random sorted
// (or unsorted, with negative) ids, empty and size-1 dimensions, float/double/int32/int64, both
// index widths; TensorFlow's known answers (empty segments), and their errors.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd };

template <typename T>
T Start(Kind kind, bool sorted) {
  if (sorted) return T(0);  // the empty segments of the sorted ops
  if (kind == Kind::kMax) return std::numeric_limits<T>::lowest();
  if (kind == Kind::kMin) return std::numeric_limits<T>::max();
  return T(1);
}

// Reduces `values` (all non-empty) as `kind` does.
template <typename T>
T ReduceAll(Kind kind, const std::vector<T>& values) {
  T acc = values[0];
  for (size_t i = 1; i < values.size(); ++i) {
    switch (kind) {
      case Kind::kMax:
        acc = std::max(acc, values[i]);
        break;
      case Kind::kMin:
        acc = std::min(acc, values[i]);
        break;
      case Kind::kProd:
        acc = acc * values[i];
        break;
      default:
        acc = acc + values[i];
    }
  }
  if (kind == Kind::kMean) acc = acc / static_cast<T>(values.size());
  return acc;
}

const char* OpName(Kind kind, bool sorted) {
  switch (kind) {
    case Kind::kSum:
      return "SegmentSum";
    case Kind::kMean:
      return "SegmentMean";
    case Kind::kMax:
      return sorted ? "SegmentMax" : "UnsortedSegmentMax";
    case Kind::kMin:
      return "UnsortedSegmentMin";
    default:
      return "UnsortedSegmentProd";
  }
}

template <typename T>
void CheckSegments(Kind kind, bool sorted, const TensorShape& data_shape, int64_t segments,
                   DataType index_type) {
  const char* op = OpName(kind, sorted);
  SCOPED_TRACE(std::string(op) + " " + data_shape.DebugString() + " segments " +
               std::to_string(segments));
  const int64_t n = data_shape.dim(0);
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t& id : ids) {
    id = static_cast<int64_t>(Rng()() % (segments + 1)) - (sorted ? 0 : 1);
  }
  if (sorted) std::sort(ids.begin(), ids.end());
  const int64_t rows = sorted ? (n == 0 ? 0 : ids.back() + 1) : segments;
  int64_t row = 1;
  for (int d = 1; d < data_shape.rank(); ++d) row *= data_shape.dim(d);
  // Small whole numbers keep products and means exact enough for every type.
  std::vector<T> values;
  for (int64_t i = 0; i < data_shape.num_elements(); ++i) {
    values.push_back(static_cast<T>(static_cast<int>(Rng()() % 5) - 2));
  }
  const Tensor data = Make<T>(data_shape, values);
  TensorShape out_shape = data_shape;
  out_shape.set_dim(0, rows);
  std::vector<T> expected;
  for (int64_t k = 0; k < rows; ++k) {
    for (int64_t c = 0; c < row; ++c) {
      std::vector<T> members;
      for (int64_t i = 0; i < n; ++i) {
        if (ids[i] == k) members.push_back(values[i * row + c]);
      }
      expected.push_back(members.empty() ? Start<T>(kind, sorted) : ReduceAll(kind, members));
    }
  }
  OpTester tester(op);
  tester.Attr("T", DataTypeOf<T>::value).Attr("Tindices", index_type);
  tester.Input(data).Input(IndexVector(index_type, ids));
  if (!sorted) {
    tester.Input(index_type == TSR_DTYPE_INT32
                     ? Tensor::Scalar<int32_t>(static_cast<int32_t>(segments))
                     : Tensor::Scalar<int64_t>(segments));
    tester.Attr("Tnumsegments", index_type);
  }
  ExpectTensorNear<T>(RunOk(tester), DataTypeOf<T>::value, out_shape, expected);
}

template <typename T>
void CheckEveryKind(int trial) {
  const TensorShape shape = RandomShape(1 + trial % 3, trial % 7 == 0 ? 0 : 1, 4);
  const int64_t segments = 1 + static_cast<int64_t>(Rng()() % 4);
  const DataType index_type = trial % 2 == 0 ? TSR_DTYPE_INT32 : TSR_DTYPE_INT64;
  for (Kind kind : {Kind::kSum, Kind::kMean, Kind::kMax}) {
    CheckSegments<T>(kind, /*sorted=*/true, shape, segments, index_type);
  }
  for (Kind kind : {Kind::kMax, Kind::kMin, Kind::kProd}) {
    CheckSegments<T>(kind, /*sorted=*/false, shape, segments, index_type);
  }
}

TEST(SegmentReductionOpsTest, MatchTheReferenceOnRandomIds) {
  for (int trial = 0; trial < 40; ++trial) {
    switch (trial % 4) {
      case 0:
        CheckEveryKind<float>(trial);
        break;
      case 1:
        CheckEveryKind<double>(trial);
        break;
      case 2:
        CheckEveryKind<int32_t>(trial);
        break;
      default:
        CheckEveryKind<int64_t>(trial);
    }
  }
}

TEST(SegmentReductionOpsTest, KnownValues) {
  // Segment 1 is empty: 0 for the sorted ops.
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax"}) {
    SCOPED_TRACE(op);
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("Tindices", TSR_DTYPE_INT32)
        .Input(Make<float>(Shape({3, 2}), {1, 2, 3, 4, 5, 6}))
        .Input(Tensor::Vector<int32_t>({0, 0, 2}));
    const std::string name(op);
    const std::vector<float> expected =
        name == "SegmentSum"    ? std::vector<float>{4, 6, 0, 0, 5, 6}
        : name == "SegmentMean" ? std::vector<float>{2, 3, 0, 0, 5, 6}
                                : std::vector<float>{3, 4, 0, 0, 5, 6};
    ExpectTensorNear<float>(RunOk(tester), TSR_DTYPE_FLOAT, Shape({3, 2}), expected);
  }
  OpTester max("UnsortedSegmentMax");
  max.Attr("T", TSR_DTYPE_INT32)
      .Attr("Tindices", TSR_DTYPE_INT32)
      .Input(Tensor::Vector<int32_t>({1, 2, 3, 4}))
      .Input(Tensor::Vector<int32_t>({0, 1, 0, -1}))
      .Input(Tensor::Scalar<int32_t>(3));
  ExpectSameBytes(RunOk(max),
                  Tensor::Vector<int32_t>({3, 2, std::numeric_limits<int32_t>::lowest()}));
}

TEST(SegmentReductionOpsTest, SortedOpsRejectBadIds) {
  auto sorted = [](const Tensor& data, const Tensor& ids) {
    OpTester tester("SegmentSum");
    tester.Attr("T", TSR_DTYPE_FLOAT).Attr("Tindices", ids.dtype()).Input(data).Input(ids);
    return tester;
  };
  OpTester decreasing = sorted(Random<float>(Shape({3})), Tensor::Vector<int32_t>({0, 2, 1}));
  ExpectRunError(decreasing, absl::StatusCode::kInvalidArgument, "segment ids are not increasing");
  OpTester negative = sorted(Random<float>(Shape({2})), Tensor::Vector<int64_t>({-1, 0}));
  ExpectRunError(negative, absl::StatusCode::kInvalidArgument, "segment ids must be >= 0");
  OpTester length = sorted(Random<float>(Shape({3, 2})), Tensor::Vector<int32_t>({0, 1}));
  ExpectRunError(length, absl::StatusCode::kInvalidArgument,
                 "segment_ids should be the same size as dimension 0 of input.");
  OpTester matrix =
      sorted(Random<float>(Shape({2, 2})), Tensor::FromVector<int32_t>(TensorShape{2, 1}, {0, 1}));
  ExpectRunError(matrix, absl::StatusCode::kInvalidArgument, "segment_ids should be a vector.");
  OpTester scalar = sorted(Tensor::Scalar<float>(1), Tensor::Vector<int32_t>({0}));
  ExpectRunError(scalar, absl::StatusCode::kInvalidArgument, "input must be at least rank 1");
}

TEST(SegmentReductionOpsTest, UnsortedOpsRejectBadArguments) {
  auto unsorted = [](const char* op, const Tensor& ids, const Tensor& count) {
    OpTester tester(op);
    tester.Attr("T", TSR_DTYPE_FLOAT)
        .Attr("Tindices", ids.dtype())
        .Attr("Tnumsegments", count.dtype())
        .Input(Random<float>(Shape({3})))
        .Input(ids)
        .Input(count);
    return tester;
  };
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    SCOPED_TRACE(op);
    OpTester range = unsorted(op, Tensor::Vector<int32_t>({0, 3, 1}), Tensor::Scalar<int32_t>(3));
    ExpectRunError(range, absl::StatusCode::kInvalidArgument,
                   "segment_ids[1] = 3 is out of range [0, 3)");
    OpTester count =
        unsorted(op, Tensor::Vector<int32_t>({0, 1, 1}), Tensor::Scalar<int64_t>(-2));
    ExpectRunError(count, absl::StatusCode::kInvalidArgument,
                   "Input num_segments == -2 must not be negative.");
    OpTester vector_count =
        unsorted(op, Tensor::Vector<int32_t>({0, 1, 1}), Tensor::Vector<int32_t>({2}));
    ExpectRunError(vector_count, absl::StatusCode::kInvalidArgument,
                   "num_segments should be a scalar, not shape [1]");
    OpTester prefix = unsorted(op, Tensor::Vector<int64_t>({0, 1}), Tensor::Scalar<int32_t>(2));
    ExpectRunError(prefix, absl::StatusCode::kInvalidArgument,
                   "data.shape = [3] does not start with segment_ids.shape = [2]");
  }
}

}  // namespace
}  // namespace tessera::cpu::test
