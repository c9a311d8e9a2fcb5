// SpaceToDepth and DepthToSpace against a reference loop: random shapes (empty and size-1
// dimensions included), NHWC and NCHW, block sizes 2 to 4, every element size, TensorFlow's
// documented examples, round trips, and their errors.
#include <string>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

OpTester SpaceDepth(const char* op, const Tensor& input, int64_t block_size,
                    const std::string& data_format = "NHWC") {
  OpTester tester(op);
  tester.Attr("T", input.dtype())
      .Attr("block_size", block_size)
      .Attr("data_format", data_format)
      .Input(input);
  return tester;
}

// The space-side shape (n, h, w, c) and depth-side shape (n, h/bs, w/bs, c*bs*bs) in `nchw` or
// NHWC layout, and the reference: depth channel ((y*bs + x)*c + k) of cell (i, j) is space
// element (i*bs + y, j*bs + x, k).
TensorShape Layout(bool nchw, int64_t n, int64_t h, int64_t w, int64_t c) {
  return nchw ? TensorShape{n, c, h, w} : TensorShape{n, h, w, c};
}

Tensor Reference(const Tensor& input, int64_t bs, bool nchw, bool to_depth) {
  const TensorShape& in = input.shape();
  const int hd = nchw ? 2 : 1;
  const int wd = nchw ? 3 : 2;
  const int cd = nchw ? 1 : 3;
  // Space-side sizes.
  const int64_t n = in.dim(0);
  const int64_t h = to_depth ? in.dim(hd) : in.dim(hd) * bs;
  const int64_t w = to_depth ? in.dim(wd) : in.dim(wd) * bs;
  const int64_t c = to_depth ? in.dim(cd) : in.dim(cd) / (bs * bs);
  const TensorShape space = Layout(nchw, n, h, w, c);
  const TensorShape depth = Layout(nchw, n, h / bs, w / bs, c * bs * bs);
  auto at = [&](const std::vector<int64_t>& coords, int d) { return coords[d]; };
  if (to_depth) {
    return ReferenceCopy(input, depth, [&](const std::vector<int64_t>& o) {
      const int64_t channel = at(o, cd);
      const int64_t k = channel % c;
      const int64_t cell = channel / c;
      std::vector<int64_t> from = o;
      from[hd] = at(o, hd) * bs + cell / bs;
      from[wd] = at(o, wd) * bs + cell % bs;
      from[cd] = k;
      return FlatIndex(space, from);
    });
  }
  return ReferenceCopy(input, space, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> from = o;
    from[hd] = at(o, hd) / bs;
    from[wd] = at(o, wd) / bs;
    from[cd] = ((at(o, hd) % bs) * bs + at(o, wd) % bs) * c + at(o, cd);
    return FlatIndex(depth, from);
  });
}

TEST(DepthToSpaceOpsTest, MatchTheReferenceOnRandomShapes) {
  int trial = 0;
  for (const bool nchw : {false, true}) {
    for (int64_t bs = 2; bs <= 4; ++bs) {
      for (int repeat = 0; repeat < 6; ++repeat, ++trial) {
        const int64_t n = trial % 7 == 0 ? 0 : 1 + trial % 2;
        const int64_t h = bs * static_cast<int64_t>(Rng()() % 3);
        const int64_t w = bs * (1 + static_cast<int64_t>(Rng()() % 2));
        const int64_t c = 1 + static_cast<int64_t>(Rng()() % 3);
        const DataType dtype = ByteMovingTypes()[trial % ByteMovingTypes().size()];
        const std::string format = nchw ? "NCHW" : "NHWC";
        const Tensor space = RandomOfType(dtype, Layout(nchw, n, h, w, c));
        SCOPED_TRACE(format + " " + space.shape().DebugString() + " block " + std::to_string(bs));
        OpTester to_depth = SpaceDepth("SpaceToDepth", space, bs, format);
        const Tensor depth = RunOk(to_depth);
        ExpectSameBytes(depth, Reference(space, bs, nchw, true));
        OpTester back = SpaceDepth("DepthToSpace", depth, bs, format);
        ExpectSameBytes(RunOk(back), space);
        const Tensor other = RandomOfType(dtype, depth.shape());
        OpTester to_space = SpaceDepth("DepthToSpace", other, bs, format);
        ExpectSameBytes(RunOk(to_space), Reference(other, bs, nchw, false));
      }
    }
  }
}

TEST(DepthToSpaceOpsTest, TensorFlowsExamples) {
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i + 1);
  OpTester tester =
      SpaceDepth("DepthToSpace", Tensor::FromVector<float>(TensorShape{1, 1, 1, 12}, values), 2);
  ExpectSameBytes(RunOk(tester), Tensor::FromVector<float>(TensorShape{1, 2, 2, 3}, values));
  const Tensor x = Tensor::FromVector<int32_t>(
      TensorShape{1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16});
  OpTester to_depth = SpaceDepth("SpaceToDepth", x, 2);
  ExpectSameBytes(RunOk(to_depth), Tensor::FromVector<int32_t>(
                                       TensorShape{1, 2, 2, 4},
                                       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
}

TEST(DepthToSpaceOpsTest, RejectsBadArguments) {
  OpTester rank = SpaceDepth("DepthToSpace", Random<float>(Shape({1, 2, 4})), 2);
  ExpectRunError(rank, absl::StatusCode::kInvalidArgument, "Input rank should be: 4 instead of: 3");
  OpTester depth = SpaceDepth("DepthToSpace", Random<float>(Shape({1, 1, 1, 6})), 2);
  ExpectRunError(depth, absl::StatusCode::kInvalidArgument,
                 "Input depth dimension 6 should be divisible by: 4");
  OpTester space = SpaceDepth("SpaceToDepth", Random<float>(Shape({1, 3, 4, 1})), 2);
  ExpectRunError(space, absl::StatusCode::kInvalidArgument,
                 "Image width 4 and height 3 should be divisible by block_size: 2");
  OpTester one = SpaceDepth("SpaceToDepth", Random<float>(Shape({1, 2, 2, 1})), 1);
  ExpectRunError(one, absl::StatusCode::kInvalidArgument,
                 "attr 'block_size' of node 'op_under_test' (SpaceToDepth): value 1 is less than "
                 "the minimum 2");
  OpTester vect =
      SpaceDepth("SpaceToDepth", Random<float>(Shape({1, 1, 2, 2, 4})), 2, "NCHW_VECT_C");
  ExpectRunError(vect, absl::StatusCode::kUnimplemented,
                 "SpaceToDepth with data_format NCHW_VECT_C is not supported on CPU");
}

}  // namespace
}  // namespace tessera::cpu::test
