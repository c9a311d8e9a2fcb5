// Case generators for ops that build, reshape, gather, stitch and select tensors.
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/framework/tensor_proto_util.h"
#include "kit/kernel_case_generators.h"

namespace tessera::plugin_check {

std::vector<KernelCase> ConstCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  const DataType dtype = request.types.at("dtype");
  for (const TensorShape& shape : {TensorShape{2, 3}, TensorShape{}, TensorShape{0, 3}}) {
    KernelCase c;
    Tensor value = RandomValues(dtype, shape, ValueDomain::kAny, request.random);
    TensorToProto(value, c.attrs["value"].mutable_tensor());
    c.variant = shape.rank() == 0 ? "scalar" : shape.DebugString();
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> CastCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (DataType to : {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64,
                      TSR_DTYPE_BOOL, TSR_DTYPE_UINT8, TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16}) {
    KernelCase c;
    // Negative values converted to an unsigned type are undefined in C++: keep them positive.
    const bool is_unsigned = to == TSR_DTYPE_UINT8;
    c.inputs = {In(request, 0, {2, 3}, is_unsigned ? ValueDomain::kPositive : ValueDomain::kAny)};
    c.attrs["DstT"] = TypeAttr(to);
    c.variant = absl::StrCat("to_", DataTypeString(to));
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> TransposeCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, perm] : std::vector<std::pair<TensorShape, std::vector<int64_t>>>{
           {{2, 3}, {1, 0}}, {{2, 3, 4}, {2, 0, 1}}, {{0, 3}, {1, 0}}, {{}, {}}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), IntVector(InputType(request, 1), perm)};
    c.variant = absl::StrCat(shape.DebugString(), "/perm[", absl::StrJoin(perm, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ConcatCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [a, b, axis] : std::vector<std::tuple<TensorShape, TensorShape, int64_t>>{
           {{2, 3}, {2, 2}, 1}, {{1, 3}, {2, 3}, 0}, {{2, 3}, {2, 1}, -1}, {{0, 3}, {2, 3}, 0}}) {
    KernelCase c;
    c.inputs = {In(request, 0, a), In(request, 0, b), IntScalar(InputType(request, 1), axis)};
    c.attrs["N"].set_i(2);
    c.variant = absl::StrCat(ShapesName({c.inputs[0], c.inputs[1]}), "/axis", axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> SelectCases(const CaseRequest& request, bool v2) {
  std::vector<std::tuple<TensorShape, TensorShape, TensorShape>> shapes = {
      {{2, 3}, {2, 3}, {2, 3}}, {{}, {2, 3}, {2, 3}}, {{0, 3}, {0, 3}, {0, 3}}};
  if (v2) shapes.push_back({{2, 1}, {2, 3}, {3}});
  else shapes.push_back({{2}, {2, 3}, {2, 3}});  // Select's rank-1 condition picks rows
  std::vector<KernelCase> cases;
  for (const auto& [cond, t, e] : shapes) {
    KernelCase c;
    c.inputs = {In(request, 0, cond), In(request, 1, t), In(request, 2, e)};
    c.variant = ShapesName(c.inputs);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> FillCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{2, 3}, {}, {0, 4}}) {
    KernelCase c;
    c.inputs = {IntVector(InputType(request, 0), dims), In(request, 1, {})};
    c.variant = absl::StrCat("dims[", absl::StrJoin(dims, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ReshapeCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, to] : std::vector<std::pair<TensorShape, std::vector<int64_t>>>{
           {{2, 6}, {3, 4}}, {{2, 6}, {-1, 3}}, {{1}, {}}, {{0, 3}, {3, 0}}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), IntVector(InputType(request, 1), to)};
    c.variant = absl::StrCat(shape.DebugString(), "/to[", absl::StrJoin(to, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ExpandDimsCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (int64_t dim : {0, 1, -1}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 3}), IntScalar(InputType(request, 1), dim)};
    c.variant = absl::StrCat("[2,3]/dim", dim);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> TileCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, multiples] : std::vector<std::pair<TensorShape, std::vector<int64_t>>>{
           {{2, 3}, {2, 1}}, {{2, 3}, {1, 3}}, {{1, 2, 1}, {3, 1, 2}}, {{2, 3}, {0, 2}}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), IntVector(InputType(request, 1), multiples)};
    c.variant = absl::StrCat(shape.DebugString(), "/multiples[", absl::StrJoin(multiples, ","),
                             "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

// Pad and PadV2 (whose third input, the constant, is a random scalar).
std::vector<KernelCase> PadCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, paddings] : std::vector<std::pair<TensorShape, std::vector<int64_t>>>{
           {{2, 3}, {1, 0, 0, 2}}, {{2, 3}, {0, 0, 0, 0}}, {{0, 3}, {1, 1, 1, 1}}}) {
    KernelCase c;
    Tensor padding = IntVector(InputType(request, 1), paddings).Reshaped(TensorShape{2, 2});
    c.inputs = {In(request, 0, shape), padding};
    if (request.op_def->input_arg_size() == 3) c.inputs.push_back(In(request, 2, {}));
    c.variant = absl::StrCat(shape.DebugString(), "/paddings[", absl::StrJoin(paddings, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> SliceCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [begin, size] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{0, 1}, {2, 2}}, {{1, 0}, {-1, 3}}, {{1, 1}, {0, 2}}}) {
    KernelCase c;
    const DataType index = InputType(request, 1);
    c.inputs = {In(request, 0, {3, 4}), IntVector(index, begin), IntVector(index, size)};
    c.variant = absl::StrCat("[3,4]/begin[", absl::StrJoin(begin, ","), "]/size[",
                             absl::StrJoin(size, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> GatherCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [indices, axis] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{2, 0, 2}, 0}, {{3, 1}, 1}, {{}, 0}, {{1}, -1}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {3, 4}), IntVector(InputType(request, 1), indices),
                IntScalar(InputType(request, 2), axis)};
    c.variant = absl::StrCat("[3,4]/indices[", absl::StrJoin(indices, ","), "]/axis", axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> CumsumCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [axis, exclusive, reverse] : std::vector<std::tuple<int64_t, bool, bool>>{
           {0, false, false}, {1, true, false}, {-1, false, true}, {1, true, true}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {3, 4}), IntScalar(InputType(request, 1), axis)};
    c.attrs["exclusive"] = BoolAttr(exclusive);
    c.attrs["reverse"] = BoolAttr(reverse);
    c.variant = absl::StrCat("[3,4]/axis", axis, exclusive ? "/exclusive" : "",
                             reverse ? "/reverse" : "");
    c.tolerance_scale = 4;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> RangeCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [start, limit, delta] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {0, 5, 1}, {2, 11, 3}, {5, 0, -2}, {3, 3, 1}}) {
    const DataType dtype = InputType(request, 0);
    const bool is_unsigned = dtype == TSR_DTYPE_UINT8 || dtype == TSR_DTYPE_UINT16 ||
                             dtype == TSR_DTYPE_UINT32 || dtype == TSR_DTYPE_UINT64;
    if (is_unsigned && delta < 0) continue;
    KernelCase c;
    c.inputs = {SmallIntegerScalar(dtype, start), SmallIntegerScalar(dtype, limit),
                SmallIntegerScalar(dtype, delta)};
    c.variant = absl::StrCat("start", start, "/limit", limit, "/delta", delta);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> InvertPermutationCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{
           {2, 0, 3, 1}, {0}, {}}) {
    KernelCase c;
    c.inputs = {IntVector(InputType(request, 0), perm)};
    c.variant = absl::StrCat("[", absl::StrJoin(perm, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ConcatOffsetCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  const DataType dtype = InputType(request, 1);
  for (const auto& [shapes, axis] : std::vector<std::pair<std::vector<std::vector<int64_t>>, int64_t>>{
           {{{2, 3, 5}, {2, 7, 5}}, 1}, {{{4}, {0}, {3}}, 0}, {{{2, 3}, {2, 1}, {2, 2}}, -1}}) {
    KernelCase c;
    c.inputs = {IntScalar(TSR_DTYPE_INT32, axis)};
    for (const std::vector<int64_t>& shape : shapes) c.inputs.push_back(IntVector(dtype, shape));
    c.attrs["N"].set_i(static_cast<int64_t>(shapes.size()));
    c.variant = absl::StrCat(shapes.size(), "_shapes/axis", axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> UniqueCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (int64_t n : {12, 1, 0}) {
    KernelCase c;
    c.inputs = {In(request, 0, {n})};
    c.variant = absl::StrCat("[", n, "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

// Indices that name every row of the output once, from several inputs of different ranks.
std::vector<KernelCase> DynamicStitchCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  KernelCase c;
  c.inputs = {IntScalar(TSR_DTYPE_INT32, 3), IntVector(TSR_DTYPE_INT32, {4, 1}),
              IntVector(TSR_DTYPE_INT32, {0, 2}).Reshaped(TensorShape{1, 2}),
              In(request, 1, {3}), In(request, 1, {2, 3}), In(request, 1, {1, 2, 3})};
  c.attrs["N"].set_i(3);
  c.variant = "rows[5,3]";
  cases.push_back(std::move(c));
  return cases;
}

std::vector<KernelCase> ReverseSequenceCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [seq_dim, batch_dim] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {0, 1}}) {
    KernelCase c;
    const std::vector<int64_t> lengths =
        batch_dim == 0 ? std::vector<int64_t>{1, 4, 0} : std::vector<int64_t>{3, 0, 2, 1};
    c.inputs = {In(request, 0, {3, 4}), IntVector(InputType(request, 1), lengths)};
    c.attrs["seq_dim"].set_i(seq_dim);
    c.attrs["batch_dim"].set_i(batch_dim);
    c.variant = absl::StrCat("[3,4]/seq_dim", seq_dim, "/batch_dim", batch_dim);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> GatherNdCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [indices, shape] : std::vector<std::pair<std::vector<int64_t>, TensorShape>>{
           {{0, 1, 2, 3, 1, 0}, {3, 2}}, {{2, 0}, {2, 1}}, {{}, {0, 2}}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {3, 4}), IntVector(InputType(request, 1), indices).Reshaped(shape)};
    c.variant = absl::StrCat("[3,4]/indices", shape.DebugString());
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ScatterNdCases(const CaseRequest& request) {
  const DataType index_type = InputType(request, 0);
  std::vector<KernelCase> cases;
  KernelCase rows;
  rows.inputs = {IntVector(index_type, {0, 3, 1}).Reshaped(TensorShape{3, 1}),
                 In(request, 1, {3, 2}), IntVector(index_type, {4, 2})};
  rows.variant = "rows/[4,2]";
  cases.push_back(std::move(rows));
  KernelCase elements;
  elements.inputs = {IntVector(index_type, {0, 1, 3, 0}).Reshaped(TensorShape{2, 2}),
                     In(request, 1, {2}), IntVector(index_type, {4, 2})};
  elements.variant = "elements/[4,2]";
  cases.push_back(std::move(elements));
  return cases;
}

std::vector<KernelCase> TopKCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [shape, k] : std::vector<std::pair<TensorShape, int64_t>>{
           {{3, 5}, 2}, {{6}, 6}, {{2, 3}, 0}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), IntScalar(InputType(request, 1), k)};
    c.variant = absl::StrCat(shape.DebugString(), "/k", k);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> GatherV1Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::vector<int64_t>& indices : std::vector<std::vector<int64_t>>{{2, 0, 2}, {}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {3, 4}), IntVector(InputType(request, 1), indices)};
    c.variant = absl::StrCat("[3,4]/indices[", absl::StrJoin(indices, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ReverseV1Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [first, second] :
       std::vector<std::pair<bool, bool>>{{true, false}, {false, true}, {true, true}}) {
    KernelCase c;
    Tensor dims(TSR_DTYPE_BOOL, TensorShape{2});
    dims.data<bool>()[0] = first;
    dims.data<bool>()[1] = second;
    c.inputs = {In(request, 0, {3, 4}), dims};
    c.variant = absl::StrCat("[3,4]/dims[", first, ",", second, "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ConcatV1Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [a, b, axis] : std::vector<std::tuple<TensorShape, TensorShape, int64_t>>{
           {{2, 3}, {2, 2}, 1}, {{1, 3}, {2, 3}, 0}, {{2, 3}, {2, 1}, -1}}) {
    KernelCase c;
    c.inputs = {IntScalar(TSR_DTYPE_INT32, axis), In(request, 1, a), In(request, 1, b)};
    c.attrs["N"].set_i(2);
    c.variant = absl::StrCat(ShapesName({c.inputs[1], c.inputs[2]}), "/axis", axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> MatrixBandPartCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [lower, upper] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {0, -1}, {-1, 2}, {0, 0}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 3, 4}), IntScalar(InputType(request, 1), lower),
                IntScalar(InputType(request, 2), upper)};
    c.variant = absl::StrCat("[2,3,4]/lower", lower, "/upper", upper);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Block shapes of one and two spatial dimensions, with and without padding (SpaceToBatchND) or
// cropping (BatchToSpaceND, whose input has the batched shape).
std::vector<KernelCase> SpaceBatchNdCases(const CaseRequest& request, bool to_batch) {
  std::vector<KernelCase> cases;
  auto add = [&](const TensorShape& input, const std::vector<int64_t>& block,
                 const std::vector<int64_t>& amounts) {
    KernelCase c;
    const int64_t m = static_cast<int64_t>(block.size());
    c.inputs = {In(request, 0, input), IntVector(InputType(request, 1), block),
                IntVector(InputType(request, 2), amounts).Reshaped(TensorShape{m, 2})};
    c.variant = absl::StrCat(input.DebugString(), "/block[", absl::StrJoin(block, ","), "]/",
                             to_batch ? "paddings[" : "crops[", absl::StrJoin(amounts, ","), "]");
    cases.push_back(std::move(c));
  };
  if (to_batch) {
    add(TensorShape{2, 4, 3, 2}, {2, 3}, {0, 0, 0, 0});
    add(TensorShape{1, 3, 5, 1}, {2, 2}, {1, 0, 0, 1});
    add(TensorShape{2, 5, 3}, {3}, {0, 1});
  } else {
    add(TensorShape{12, 2, 1, 2}, {2, 3}, {0, 0, 0, 0});
    add(TensorShape{4, 2, 3, 1}, {2, 2}, {1, 0, 0, 1});
    add(TensorShape{6, 2, 3}, {3}, {0, 1});
  }
  return cases;
}

std::vector<KernelCase> SpaceToBatchNdCases(const CaseRequest& request) {
  return SpaceBatchNdCases(request, true);
}

std::vector<KernelCase> BatchToSpaceNdCases(const CaseRequest& request) {
  return SpaceBatchNdCases(request, false);
}

// Block sizes 2 and 3 in both layouts: the space side [1, 6, 6, 2] (NHWC) or [1, 2, 6, 6] (NCHW),
// the depth side with the block moved into the channels.
std::vector<KernelCase> SpaceDepthCases(const CaseRequest& request, bool to_depth) {
  std::vector<KernelCase> cases;
  for (const int64_t block : {2, 3}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      const bool nchw = std::string(format) == "NCHW";
      const int64_t h = to_depth ? 6 : 6 / block;
      const int64_t depth = to_depth ? 2 : 2 * block * block;
      KernelCase c;
      const TensorShape shape = nchw ? TensorShape{1, depth, h, h} : TensorShape{1, h, h, depth};
      c.inputs = {In(request, 0, shape)};
      c.attrs["block_size"].set_i(block);
      c.attrs["data_format"].set_s(format);
      c.variant = absl::StrCat(shape.DebugString(), "/block", block, "/", format);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::vector<KernelCase> SpaceToDepthCases(const CaseRequest& request) {
  return SpaceDepthCases(request, true);
}

std::vector<KernelCase> DepthToSpaceCases(const CaseRequest& request) {
  return SpaceDepthCases(request, false);
}

// One diagonal and a band, in two alignments: the packed diagonals of a [2, 3, 4] batch.
std::vector<KernelCase> MatrixDiagPartV3Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [k, align] : std::vector<std::pair<std::vector<int64_t>, const char*>>{
           {{1}, "RIGHT_LEFT"}, {{-1, 2}, "RIGHT_LEFT"}, {{-2, 0}, "LEFT_RIGHT"}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 3, 4}), IntVector(TSR_DTYPE_INT32, k), In(request, 2, {})};
    c.attrs["align"].set_s(align);
    c.variant = absl::StrCat("[2,3,4]/k[", absl::StrJoin(k, ","), "]/", align);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The same bands set into, and built from, packed diagonals.
std::vector<KernelCase> MatrixSetDiagV3Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [k, diagonal] : std::vector<std::pair<std::vector<int64_t>, TensorShape>>{
           {{1}, {2, 3}}, {{-1, 2}, {2, 4, 3}}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 3, 4}), In(request, 1, diagonal), IntVector(TSR_DTYPE_INT32, k)};
    c.attrs["align"].set_s("RIGHT_LEFT");
    c.variant = absl::StrCat("[2,3,4]/k[", absl::StrJoin(k, ","), "]");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> MatrixDiagV3Cases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [k, diagonal, rows, cols] :
       std::vector<std::tuple<std::vector<int64_t>, TensorShape, int64_t, int64_t>>{
           {{1}, {2, 3}, -1, -1}, {{-1, 2}, {2, 4, 3}, 3, 4}, {{0}, {3}, 3, 5}}) {
    KernelCase c;
    c.inputs = {In(request, 0, diagonal), IntVector(TSR_DTYPE_INT32, k),
                IntScalar(TSR_DTYPE_INT32, rows), IntScalar(TSR_DTYPE_INT32, cols),
                In(request, 4, {})};
    c.attrs["align"].set_s("RIGHT_LEFT");
    c.variant = absl::StrCat(diagonal.DebugString(), "/k[", absl::StrJoin(k, ","), "]/rows", rows,
                             "/cols", cols);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> SegmentCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::vector<int64_t>& ids :
       std::vector<std::vector<int64_t>>{{0, 0, 2, 3}, {1, 1, 1, 1}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {4, 3}), IntVector(InputType(request, 1), ids)};
    c.variant = absl::StrCat("[4,3]/ids[", absl::StrJoin(ids, ","), "]");
    c.tolerance_scale = 4;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> UnsortedSegmentCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::vector<int64_t>& ids :
       std::vector<std::vector<int64_t>>{{2, -1, 2, 0}, {0, 0, 0, 0}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {4, 3}, ValueDomain::kUnit), IntVector(InputType(request, 1), ids),
                IntScalar(InputType(request, 2), 3)};
    c.variant = absl::StrCat("[4,3]/ids[", absl::StrJoin(ids, ","), "]/segments3");
    c.tolerance_scale = 4;
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace tessera::plugin_check
