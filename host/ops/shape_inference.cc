// ShapeInferenceContext: rank checks, merges and shape tensors with node context in errors.
#include "host/ops/shape_inference.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {

ShapeInferenceContext::ShapeInferenceContext(const tensorflow::NodeDef& node,
                                             const tensorflow::OpDef& op_def,
                                             std::vector<DataType> input_types,
                                             std::vector<DataType> output_types,
                                             std::vector<PartialShape> input_shapes,
                                             std::vector<const Tensor*> input_tensors)
    : node_(node),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)),
      input_shapes_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      outputs_(output_types_.size()) {
  input_shapes_.resize(input_types_.size());
}

std::string ShapeInferenceContext::InputShapesString() const {
  return absl::StrJoin(input_shapes_, ", ", [](std::string* out, const PartialShape& shape) {
    out->append(shape.ToString());
  });
}

absl::Status ShapeInferenceContext::Error(absl::string_view message) const {
  if (input_shapes_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(op(), ": ", message, " for '", node_name(), "'"));
  }
  return absl::InvalidArgumentError(absl::StrCat(op(), ": ", message, " for '", node_name(),
                                                 "' with input shapes: ", InputShapesString()));
}

absl::StatusOr<PartialShape> ShapeInferenceContext::WithRank(int i, int rank) const {
  const PartialShape& shape = input_shapes_[i];
  if (!shape.rank_known()) return PartialShape::UnknownOfRank(rank);
  if (shape.rank() != rank) {
    return Error(absl::StrCat("shape must be rank ", rank, " but is rank ", shape.rank(),
                              " (input ", i, ")"));
  }
  return shape;
}

absl::StatusOr<PartialShape> ShapeInferenceContext::WithRankAtLeast(int i, int rank) const {
  const PartialShape& shape = input_shapes_[i];
  if (shape.rank_known() && shape.rank() < rank) {
    return Error(absl::StrCat("shape must be at least rank ", rank, " but is rank ",
                              shape.rank(), " (input ", i, ")"));
  }
  return shape;
}

absl::StatusOr<PartialShape> ShapeInferenceContext::WithRankAtMost(int i, int rank) const {
  const PartialShape& shape = input_shapes_[i];
  if (shape.rank_known() && shape.rank() > rank) {
    return Error(absl::StrCat("shape must be at most rank ", rank, " but is rank ",
                              shape.rank(), " (input ", i, ")"));
  }
  return shape;
}

absl::StatusOr<int64_t> ShapeInferenceContext::MergeDims(int64_t a, int64_t b) const {
  int64_t out;
  if (!PartialShape::MergeDim(a, b, &out)) {
    return Error(absl::StrCat("dimensions must be equal, but are ", a, " and ", b));
  }
  return out;
}

absl::StatusOr<PartialShape> ShapeInferenceContext::MergeShapes(const PartialShape& a,
                                                                const PartialShape& b) const {
  absl::StatusOr<PartialShape> merged = PartialShape::Merge(a, b);
  if (!merged.ok()) return Error(merged.status().message());
  return merged;
}

absl::StatusOr<bool> ShapeInferenceContext::ConstantInputAsInt64s(
    int i, std::vector<int64_t>* values) const {
  const Tensor* tensor = input_tensor(i);
  if (tensor == nullptr) return false;
  values->clear();
  if (tensor->dtype() == TSR_DTYPE_INT32) {
    for (int32_t v : tensor->flat<int32_t>()) values->push_back(v);
  } else if (tensor->dtype() == TSR_DTYPE_INT64) {
    for (int64_t v : tensor->flat<int64_t>()) values->push_back(v);
  } else {
    return Error(absl::StrCat("input ", i, " must be int32 or int64, got ",
                              DataTypeString(tensor->dtype())));
  }
  return true;
}

absl::StatusOr<PartialShape> ShapeInferenceContext::MakeShapeFromShapeTensor(int i) const {
  PartialShape shape_of_shape;
  {
    absl::StatusOr<PartialShape> checked = WithRankAtMost(i, 1);
    if (!checked.ok()) return checked.status();
    shape_of_shape = *std::move(checked);
  }
  std::vector<int64_t> values;
  absl::StatusOr<bool> known = ConstantInputAsInt64s(i, &values);
  if (!known.ok()) return known.status();
  if (*known) {
    if (input_tensor(i)->shape().rank() != 1) {
      return Error(absl::StrCat("shape tensor (input ", i, ") must be a vector, got shape ",
                                input_tensor(i)->shape().DebugString()));
    }
    if (values.size() > TSR_MAX_RANK) {
      return Error(absl::StrCat("shape tensor (input ", i, ") has ", values.size(),
                                " dimensions, above the maximum ", TSR_MAX_RANK));
    }
    for (int64_t v : values) {
      if (v < kUnknownDim) {
        return Error(absl::StrCat("dimension ", v, " in shape tensor (input ", i,
                                  ") must be >= 0, or -1 for unknown"));
      }
    }
    return PartialShape(absl::Span<const int64_t>(values));
  }
  if (shape_of_shape.rank() == 1 && shape_of_shape.dim(0) >= 0) {
    if (shape_of_shape.dim(0) > TSR_MAX_RANK) {
      return Error(absl::StrCat("shape tensor (input ", i, ") has ", shape_of_shape.dim(0),
                                " elements, above the maximum rank ", TSR_MAX_RANK));
    }
    return PartialShape::UnknownOfRank(static_cast<int>(shape_of_shape.dim(0)));
  }
  return PartialShape::Unknown();
}

}  // namespace tessera
