// Initializer conversions (scalars, nested lists) and PartialTensorShape's proto form.
#include "host/client/output.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera {

void PartialTensorShape::ToProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  if (!known_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

Input::Initializer::Initializer(const Tensor& t) : tensor(t) {}

Input::Initializer::Initializer(const std::initializer_list<Initializer>& values) {
  if (values.size() == 0) {
    status = absl::InvalidArgumentError("an empty initializer list has no type; use a Tensor");
    return;
  }
  const Initializer& first = *values.begin();
  int64_t index = 0;
  for (const Initializer& value : values) {
    if (!value.status.ok()) {
      status = value.status;
      return;
    }
    if (!value.tensor.IsInitialized()) {
      status = absl::InvalidArgumentError(
          absl::StrCat("element ", index, " of an initializer list is an uninitialized tensor"));
      return;
    }
    if (value.tensor.dtype() != first.tensor.dtype()) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "initializer list elements must have one type: element 0 is ",
          DataTypeString(first.tensor.dtype()), " but element ", index, " is ",
          DataTypeString(value.tensor.dtype())));
      return;
    }
    if (value.tensor.shape() != first.tensor.shape()) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "initializer list elements must have one shape: element 0 is ",
          first.tensor.shape().DebugString(), " but element ", index, " is ",
          value.tensor.shape().DebugString()));
      return;
    }
    ++index;
  }
  TensorShape shape{static_cast<int64_t>(values.size())};
  for (int64_t d : first.tensor.shape().dims()) shape.AddDim(d);
  tensor = Tensor(first.tensor.dtype(), shape);
  char* out = static_cast<char*>(tensor.data());
  size_t element_bytes = first.tensor.TotalBytes();
  for (const Initializer& value : values) {
    if (element_bytes > 0) std::memcpy(out, value.tensor.data(), element_bytes);
    out += element_bytes;
  }
}

absl::Status Input::Initializer::CountMismatch(size_t count, const TensorShape& shape) {
  return absl::InvalidArgumentError(absl::StrCat("initializer has ", count,
                                                 " values but shape ", shape.DebugString(),
                                                 " needs ", shape.num_elements()));
}

}  // namespace tessera
