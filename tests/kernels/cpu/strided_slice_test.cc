// StridedSlice against a small reference implementation of numpy's basic indexing (slices with
// any step, integer indices, np.newaxis and one Ellipsis), on random specs that exercise every
// mask, then TensorFlow's errors.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

// One entry of a numpy index expression: x[1:5:2, 3, np.newaxis, ...].
struct Entry {
  enum Kind { kSlice, kIndex, kNewAxis, kEllipsis } kind = kSlice;
  std::optional<int64_t> begin;
  std::optional<int64_t> end;
  int64_t step = 1;
  int64_t index = 0;

  std::string ToString() const {
    auto bound = [](const std::optional<int64_t>& v) {
      return v.has_value() ? std::to_string(*v) : std::string();
    };
    switch (kind) {
      case kIndex:
        return std::to_string(index);
      case kNewAxis:
        return "newaxis";
      case kEllipsis:
        return "...";
      default:
        return bound(begin) + ":" + bound(end) + ":" + std::to_string(step);
    }
  }
};

std::string SpecString(const std::vector<Entry>& spec) {
  std::string out = "x[";
  for (size_t i = 0; i < spec.size(); ++i) out += (i ? ", " : "") + spec[i].ToString();
  return out + "]";
}

// numpy's result: the output shape and, per output element, the input element it reads.
struct NumpyResult {
  TensorShape shape;
  std::vector<int64_t> sources;
};

NumpyResult NumpyIndex(const TensorShape& shape, std::vector<Entry> spec) {
  int real = 0;
  bool has_ellipsis = false;
  for (const Entry& e : spec) {
    real += e.kind == Entry::kSlice || e.kind == Entry::kIndex;
    has_ellipsis |= e.kind == Entry::kEllipsis;
  }
  if (!has_ellipsis) spec.push_back(Entry{Entry::kEllipsis});
  // Per output dimension: the input dimension (or -1 for a new axis), first index and step.
  struct OutDim {
    int input_dim;
    int64_t start;
    int64_t step;
  };
  std::vector<OutDim> out_dims;
  std::vector<int64_t> fixed(static_cast<size_t>(shape.rank()), 0);
  NumpyResult result;
  int d = 0;
  for (const Entry& e : spec) {
    if (e.kind == Entry::kEllipsis) {
      for (int k = 0; k < shape.rank() - real; ++k, ++d) {
        out_dims.push_back({d, 0, 1});
        result.shape.AddDim(shape.dim(d));
      }
    } else if (e.kind == Entry::kNewAxis) {
      out_dims.push_back({-1, 0, 1});
      result.shape.AddDim(1);
    } else if (e.kind == Entry::kIndex) {
      fixed[d] = e.index < 0 ? e.index + shape.dim(d) : e.index;
      ++d;
    } else {
      // Python's slice.indices(n).
      const int64_t n = shape.dim(d);
      const int64_t s = e.step;
      const int64_t lower = s > 0 ? 0 : -1;
      const int64_t upper = s > 0 ? n : n - 1;
      auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + n : v, lower, upper); };
      const int64_t start = e.begin.has_value() ? clamp(*e.begin) : (s > 0 ? lower : upper);
      const int64_t stop = e.end.has_value() ? clamp(*e.end) : (s > 0 ? upper : lower);
      const int64_t length = s > 0 ? (stop > start ? (stop - start + s - 1) / s : 0)
                                   : (start > stop ? (start - stop - s - 1) / -s : 0);
      out_dims.push_back({d, start, s});
      result.shape.AddDim(length);
      ++d;
    }
  }
  for (int64_t i = 0; i < result.shape.num_elements(); ++i) {
    const std::vector<int64_t> c = Coordinates(result.shape, i);
    std::vector<int64_t> in(fixed);
    for (size_t k = 0; k < out_dims.size(); ++k) {
      if (out_dims[k].input_dim >= 0) {
        in[out_dims[k].input_dim] = out_dims[k].start + c[k] * out_dims[k].step;
      }
    }
    result.sources.push_back(FlatIndex(shape, in));
  }
  return result;
}

// The StridedSlice node TensorFlow's Python front end builds for `spec`.
OpTester StridedSliceFor(const Tensor& input, const std::vector<Entry>& spec, DataType index_type,
                         bool noise_in_unused_masks) {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  int64_t masks[5] = {0, 0, 0, 0, 0};  // begin, end, ellipsis, new_axis, shrink_axis
  for (size_t j = 0; j < spec.size(); ++j) {
    const Entry& e = spec[j];
    const int64_t bit = int64_t{1} << j;
    int64_t b = 0;
    int64_t en = 0;
    int64_t s = 1;
    switch (e.kind) {
      case Entry::kSlice:
        b = e.begin.value_or(0);
        en = e.end.value_or(0);
        s = e.step;
        if (!e.begin.has_value()) masks[0] |= bit;
        if (!e.end.has_value()) masks[1] |= bit;
        break;
      case Entry::kIndex:
        b = e.index;
        en = e.index + 1;
        masks[4] |= bit;
        break;
      case Entry::kEllipsis:
        masks[2] |= bit;
        if (noise_in_unused_masks) masks[0] |= bit;  // ignored under an ellipsis
        break;
      case Entry::kNewAxis:
        masks[3] |= bit;
        if (noise_in_unused_masks) masks[4] |= bit;  // new_axis wins over shrink_axis
        break;
    }
    begin.push_back(b);
    end.push_back(en);
    strides.push_back(s);
  }
  OpTester tester("StridedSlice");
  tester.Attr("T", input.dtype())
      .Attr("Index", index_type)
      .Attr("begin_mask", masks[0])
      .Attr("end_mask", masks[1])
      .Attr("ellipsis_mask", masks[2])
      .Attr("new_axis_mask", masks[3])
      .Attr("shrink_axis_mask", masks[4])
      .Input(input)
      .Input(IndexVector(index_type, begin))
      .Input(IndexVector(index_type, end))
      .Input(IndexVector(index_type, strides));
  return tester;
}

void CheckSpec(DataType dtype, const TensorShape& shape, const std::vector<Entry>& spec,
               DataType index_type = TSR_DTYPE_INT32, bool noise = false) {
  SCOPED_TRACE(shape.DebugString() + " " + SpecString(spec));
  const Tensor input = RandomOfType(dtype, shape);
  const NumpyResult numpy = NumpyIndex(shape, spec);
  const Tensor expected = ReferenceCopy(input, numpy.shape, [&](const std::vector<int64_t>& c) {
    return numpy.sources[FlatIndex(numpy.shape, c)];
  });
  OpTester tester = StridedSliceFor(input, spec, index_type, noise);
  ExpectSameBytes(RunOk(tester), expected);
}

Entry Slice(std::optional<int64_t> begin, std::optional<int64_t> end, int64_t step = 1) {
  Entry e;
  e.begin = begin;
  e.end = end;
  e.step = step;
  return e;
}
Entry Index(int64_t i) {
  Entry e;
  e.kind = Entry::kIndex;
  e.index = i;
  return e;
}
const Entry kNewAxis{Entry::kNewAxis};
const Entry kEllipsis{Entry::kEllipsis};
constexpr std::nullopt_t kAll = std::nullopt;

TEST(StridedSliceOpTest, CommonIndexExpressions) {
  const TensorShape shape = Shape({4, 5, 6});
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(1, 3)});                           // x[1:3]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(kAll, kAll, -1)});                 // x[::-1]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {kEllipsis, Index(0)});                   // x[..., 0]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Index(-1)});                             // x[-1]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(kAll, kAll), kNewAxis});           // x[:, None]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Index(2), kEllipsis, Slice(-2, kAll)});  // x[2, ..., -2:]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(kAll, kAll), Slice(-1, 0, -2)});   // x[:, -1:0:-2]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {kNewAxis, kEllipsis, kNewAxis});         // x[None, ..., None]
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(10, -10, -3), Index(1), Index(-6)});  // clamped
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(3, 1)});                              // empty
  CheckSpec(TSR_DTYPE_FLOAT, shape, {Slice(kAll, kAll), Slice(kAll, kAll), Slice(kAll, kAll)});
  CheckSpec(TSR_DTYPE_INT64, Shape({}), {kNewAxis}, TSR_DTYPE_INT64);  // scalar
  CheckSpec(TSR_DTYPE_INT64, Shape({}), {kEllipsis});
  CheckSpec(TSR_DTYPE_INT64, Shape({7}), {Slice(kAll, kAll, 3)});
  CheckSpec(TSR_DTYPE_INT64, Shape({0, 3}), {Slice(kAll, kAll, -1), Index(1)});
}

// A random spec: up to rank real entries (indices only on non-empty dimensions), an optional
// ellipsis among them, and up to two new axes anywhere.
std::vector<Entry> RandomSpec(const TensorShape& shape) {
  const int rank = shape.rank();
  const bool ellipsis = Rng()() % 2 == 0;
  const int real = static_cast<int>(Rng()() % (rank + 1));
  const int before = ellipsis ? static_cast<int>(Rng()() % (real + 1)) : real;
  std::vector<Entry> spec;
  auto bound = [](int64_t n) -> std::optional<int64_t> {
    if (Rng()() % 4 == 0) return std::nullopt;
    return static_cast<int64_t>(Rng()() % (2 * n + 5)) - n - 2;
  };
  for (int j = 0; j < real; ++j) {
    if (ellipsis && j == before) spec.push_back(kEllipsis);
    const int d = j < before ? j : rank - (real - j);
    const int64_t n = shape.dim(d);
    if (n > 0 && Rng()() % 4 == 0) {
      spec.push_back(Index(static_cast<int64_t>(Rng()() % (2 * n)) - n));
    } else {
      static const int64_t kSteps[] = {1, 1, 2, 3, -1, -2, -3};
      spec.push_back(Slice(bound(n), bound(n), kSteps[Rng()() % 7]));
    }
  }
  if (ellipsis && before == real) spec.push_back(kEllipsis);
  const int new_axes = static_cast<int>(Rng()() % 3);
  for (int k = 0; k < new_axes; ++k) {
    spec.insert(spec.begin() + static_cast<int64_t>(Rng()() % (spec.size() + 1)), kNewAxis);
  }
  return spec;
}

TEST(StridedSliceOpTest, RandomSpecsMatchNumpy) {
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = trial % 6;
    const TensorShape shape = RandomShape(rank, 0, 5);
    CheckSpec(ByteMovingTypes()[trial % ByteMovingTypes().size()], shape, RandomSpec(shape),
              trial % 3 == 0 ? TSR_DTYPE_INT64 : TSR_DTYPE_INT32, trial % 2 == 0);
  }
}

OpTester StridedSliceOf(const TensorShape& shape, const std::vector<int64_t>& begin,
                        const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                        int64_t ellipsis_mask = 0, int64_t shrink_axis_mask = 0,
                        int64_t new_axis_mask = 0) {
  OpTester tester("StridedSlice");
  tester.Attr("T", TSR_DTYPE_FLOAT)
      .Attr("Index", TSR_DTYPE_INT32)
      .Attr("ellipsis_mask", ellipsis_mask)
      .Attr("shrink_axis_mask", shrink_axis_mask)
      .Attr("new_axis_mask", new_axis_mask)
      .Input(Random<float>(shape))
      .Input(IndexVector(TSR_DTYPE_INT32, begin))
      .Input(IndexVector(TSR_DTYPE_INT32, end))
      .Input(IndexVector(TSR_DTYPE_INT32, strides));
  return tester;
}

TEST(StridedSliceOpTest, RejectsBadSpecs) {
  OpTester lengths = StridedSliceOf(Shape({4, 5}), {0, 0}, {1, 1, 1}, {1, 1});
  ExpectRunError(lengths, absl::StatusCode::kInvalidArgument,
                 "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                 "[2], [3], and [2] instead.");
  OpTester ellipses = StridedSliceOf(Shape({4, 5}), {0, 0}, {0, 0}, {1, 1}, /*ellipsis=*/3);
  ExpectRunError(ellipses, absl::StatusCode::kInvalidArgument,
                 "Multiple ellipses in slice spec not allowed");
  OpTester zero_stride = StridedSliceOf(Shape({4, 5}), {0, 0}, {4, 5}, {1, 0});
  ExpectRunError(zero_stride, absl::StatusCode::kInvalidArgument, "strides[1] must be non-zero");
  OpTester out_of_bounds = StridedSliceOf(Shape({4, 5}), {-6}, {-5}, {1}, 0, /*shrink=*/1);
  ExpectRunError(out_of_bounds, absl::StatusCode::kInvalidArgument,
                 "slice index -2 of dimension 0 out of bounds.");
  OpTester far_index = StridedSliceOf(Shape({4, 5}), {0, 5}, {1, 6}, {1, 1}, 0, /*shrink=*/2);
  ExpectRunError(far_index, absl::StatusCode::kInvalidArgument,
                 "slice index 5 of dimension 1 out of bounds.");
  OpTester backward_index = StridedSliceOf(Shape({4, 5}), {1}, {0}, {-1}, 0, /*shrink=*/1);
  ExpectRunError(backward_index, absl::StatusCode::kInvalidArgument,
                 "only stride 1 allowed on non-range indexing.");
  OpTester too_many = StridedSliceOf(Shape({4, 5}), {0, 0, 0}, {1, 1, 1}, {1, 1, 1});
  ExpectRunError(too_many, absl::StatusCode::kInvalidArgument,
                 "Index out of range using input dim 2; input has only 2 dims");
  OpTester rank_nine = StridedSliceOf(Shape({1, 1, 1, 1, 1, 1, 1, 1}), {0}, {0}, {1}, 0, 0,
                                      /*new_axis=*/1);
  ExpectRunError(rank_nine, absl::StatusCode::kInvalidArgument,
                 "would produce a tensor of rank 9, more than the maximum 8");
}

}  // namespace
}  // namespace tessera::cpu::test
