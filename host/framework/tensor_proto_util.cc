// Conversion between runtime tensors and TensorFlow's TensorProto / TensorShapeProto.
#include "host/framework/tensor_proto_util.h"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace tessera {
namespace {

constexpr int kRefOffset = 100;

// The most bytes of string data a proto may expand to by repeating its last string_val over the
// shape: a few bytes of proto must not turn into gigabytes of strings.
constexpr uint64_t kMaxRepeatedStringBytes = uint64_t{1} << 30;

// TensorFlow's tensor_content encoding of strings (EncodeStringList): every length as a varint32,
// then the bytes of every string. Each length takes at least one byte, so `n` is bounded by the
// content's size before anything is allocated.
absl::Status DecodeStringContent(const std::string& content, const Tensor& tensor) {
  const int64_t n = tensor.NumElements();
  const auto invalid = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("tensor proto for string ",
                                                   tensor.shape().DebugString(),
                                                   " has malformed tensor_content: ", what));
  };
  std::vector<uint32_t> lengths(static_cast<size_t>(n));
  size_t pos = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t length = 0;
    int shift = 0;
    while (true) {
      if (pos >= content.size() || shift > 28) return invalid("a truncated or overlong length");
      const auto byte = static_cast<uint8_t>(content[pos++]);
      if (shift == 28 && (byte & 0x70) != 0) return invalid("a length above 2^32");
      length |= static_cast<uint32_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
    }
    lengths[static_cast<size_t>(i)] = length;
    total += length;
  }
  if (total != content.size() - pos) {
    return invalid(absl::StrCat("the lengths add up to ", total, " bytes but ",
                                content.size() - pos, " follow them"));
  }
  std::string* out = tensor.data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(content, pos, lengths[static_cast<size_t>(i)]);
    pos += lengths[static_cast<size_t>(i)];
  }
  return absl::OkStatus();
}

// Checks the value fields of a string proto of `shape` before any string is made: tensor_content
// needs a byte per length at least; string_val follows TensorFlow's rules (none -> empty strings,
// fewer than the elements -> the last repeats, more -> error) within kMaxRepeatedStringBytes.
absl::Status CheckStringValues(const tensorflow::TensorProto& proto, const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  if (!proto.tensor_content().empty()) {
    if (static_cast<uint64_t>(n) > proto.tensor_content().size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor proto for string ", shape.DebugString(), " has malformed tensor_content: ",
          proto.tensor_content().size(), " bytes cannot hold ", n, " lengths"));
    }
    return absl::OkStatus();
  }
  const int64_t in_n = proto.string_val_size();
  if (in_n > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor proto for string ", shape.DebugString(), " has ", in_n,
                     " values in string_val, expected ", n, " (or fewer, the last repeating)"));
  }
  if (in_n == 0) return absl::OkStatus();
  const std::string& last = proto.string_val(static_cast<int>(in_n - 1));
  if (!last.empty() && static_cast<uint64_t>(n - in_n) > kMaxRepeatedStringBytes / last.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor proto for string ", shape.DebugString(), " would repeat its last ", last.size(),
        "-byte string ", n - in_n, " times, more than ", kMaxRepeatedStringBytes, " bytes"));
  }
  return absl::OkStatus();
}

// string_val into a tensor CheckStringValues accepted.
void FillStrings(const tensorflow::TensorProto& proto, const Tensor& tensor) {
  const int64_t n = tensor.NumElements();
  const int64_t in_n = proto.string_val_size();
  if (in_n == 0 || n == 0) return;
  const std::string& last = proto.string_val(static_cast<int>(in_n - 1));
  std::string* out = tensor.data<std::string>();
  for (int64_t i = 0; i < in_n; ++i) out[i] = proto.string_val(static_cast<int>(i));
  for (int64_t i = in_n; i < n; ++i) out[i] = last;
}

// Copies `values` (k proto values per element) into the tensor's buffer with TensorFlow's rules:
// none -> zeros, fewer than the elements -> the last element repeats, more -> error.
template <typename Dst, typename Values>
absl::Status CopyValues(const Values& values, int k, const char* field, const Tensor& tensor) {
  const int64_t n = tensor.NumElements();
  const int64_t count = values.size();
  if (count % k != 0) {
    return absl::InvalidArgumentError(absl::StrCat("tensor proto field ", field, " has ", count,
                                                   " values, expected a multiple of ", k));
  }
  const int64_t in_n = count / k;
  if (in_n > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor proto for ", DataTypeString(tensor.dtype()), " ", tensor.shape().DebugString(),
        " has ", in_n, " values in ", field, ", expected ", n, " (or fewer, the last repeating)"));
  }
  Dst* out = tensor.data<Dst>();
  if (n == 0) return absl::OkStatus();
  if (in_n == 0) {
    std::memset(static_cast<void*>(out), 0, static_cast<size_t>(n) * k * sizeof(Dst));
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<Dst>(values.Get(static_cast<int>(i)));
  const Dst* last = out + (in_n - 1) * k;
  for (int64_t e = in_n; e < n; ++e) {
    for (int j = 0; j < k; ++j) out[e * k + j] = last[j];
  }
  return absl::OkStatus();
}

absl::Status FillFromTypedField(const tensorflow::TensorProto& proto, const Tensor& tensor) {
  switch (tensor.dtype()) {
    case TSR_DTYPE_FLOAT:
      return CopyValues<float>(proto.float_val(), 1, "float_val", tensor);
    case TSR_DTYPE_DOUBLE:
      return CopyValues<double>(proto.double_val(), 1, "double_val", tensor);
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_QINT32:
      return CopyValues<int32_t>(proto.int_val(), 1, "int_val", tensor);
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_QINT16:
      return CopyValues<int16_t>(proto.int_val(), 1, "int_val", tensor);
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_QUINT16:
      return CopyValues<uint16_t>(proto.int_val(), 1, "int_val", tensor);
    case TSR_DTYPE_INT8:
    case TSR_DTYPE_QINT8:
      return CopyValues<int8_t>(proto.int_val(), 1, "int_val", tensor);
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_QUINT8:
      return CopyValues<uint8_t>(proto.int_val(), 1, "int_val", tensor);
    case TSR_DTYPE_INT64:
      return CopyValues<int64_t>(proto.int64_val(), 1, "int64_val", tensor);
    case TSR_DTYPE_UINT32:
      return CopyValues<uint32_t>(proto.uint32_val(), 1, "uint32_val", tensor);
    case TSR_DTYPE_UINT64:
      return CopyValues<uint64_t>(proto.uint64_val(), 1, "uint64_val", tensor);
    case TSR_DTYPE_BOOL:
      return CopyValues<bool>(proto.bool_val(), 1, "bool_val", tensor);
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:
      return CopyValues<uint16_t>(proto.half_val(), 1, "half_val", tensor);
    case TSR_DTYPE_COMPLEX64:
      return CopyValues<float>(proto.scomplex_val(), 2, "scomplex_val", tensor);
    case TSR_DTYPE_COMPLEX128:
      return CopyValues<double>(proto.dcomplex_val(), 2, "dcomplex_val", tensor);
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor proto dtype ", DataTypeString(tensor.dtype()), " has no typed value field"));
  }
}

}  // namespace

bool IsRuntimeDataType(int dtype) { return dtype >= TSR_DTYPE_FLOAT && dtype <= TSR_DTYPE_UINT64; }

std::string ProtoDataTypeString(int dtype) {
  if (IsRuntimeDataType(dtype)) return DataTypeString(static_cast<DataType>(dtype));
  if (IsRuntimeDataType(dtype - kRefOffset)) {
    return DataTypeString(static_cast<DataType>(dtype - kRefOffset)) + "_ref";
  }
  if (dtype == 0) return "invalid";
  if (tensorflow::DataType_IsValid(dtype)) {
    return absl::AsciiStrToLower(
        tensorflow::DataType_Name(static_cast<tensorflow::DataType>(dtype)).substr(3));
  }
  return absl::StrCat("unknown type ", dtype);
}

absl::StatusOr<TensorShape> TensorShapeFromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError("tensor shape has unknown rank, expected a known shape");
  }
  if (proto.dim_size() > TSR_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat("tensor shape has rank ", proto.dim_size(),
                                                   ", above the maximum ", TSR_MAX_RANK));
  }
  TensorShape shape;
  int64_t elements = 1;
  for (const tensorflow::TensorShapeProto::Dim& dim : proto.dim()) {
    if (dim.size() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor shape has dimension ", dim.size(), ", expected a size >= 0"));
    }
    if (dim.size() > 0 && elements > std::numeric_limits<int64_t>::max() / dim.size()) {
      return absl::InvalidArgumentError("tensor shape has more elements than an int64 can count");
    }
    elements *= dim.size();
    shape.AddDim(dim.size());
  }
  return shape;
}

void TensorShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  for (int64_t d : shape.dims()) proto->add_dim()->set_size(d);
}

absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto) {
  const int dtype_value = static_cast<int>(proto.dtype());
  const bool is_string = dtype_value == TSR_DTYPE_STRING;
  if (!is_string &&
      (!IsRuntimeDataType(dtype_value) || !IsDenseDataType(static_cast<DataType>(dtype_value)))) {
    return absl::InvalidArgumentError(absl::StrCat("tensor proto has dtype ",
                                                   ProtoDataTypeString(dtype_value),
                                                   ", which the runtime cannot hold in a tensor"));
  }
  const DataType dtype = static_cast<DataType>(dtype_value);
  TensorShape shape;
  ASSIGN_OR_RETURN(shape, TensorShapeFromProto(proto.tensor_shape()));
  if (is_string) {
    RETURN_IF_ERROR(CheckStringValues(proto, shape));
    Tensor tensor;
    ASSIGN_OR_RETURN(tensor, Tensor::Allocate(HostAllocator(), dtype, shape));
    if (!proto.tensor_content().empty()) {
      RETURN_IF_ERROR(DecodeStringContent(proto.tensor_content(), tensor));
    } else {
      FillStrings(proto, tensor);
    }
    return tensor;
  }
  const int64_t n = shape.num_elements();
  const size_t element_size = DataTypeSize(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > std::numeric_limits<uint64_t>::max() / element_size / 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor proto of shape ", shape.DebugString(), " is too large"));
  }
  const size_t bytes = static_cast<size_t>(n) * element_size;
  if (!proto.tensor_content().empty() && proto.tensor_content().size() != bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor proto for ", DataTypeString(dtype), " ", shape.DebugString(),
        " has tensor_content of ", proto.tensor_content().size(), " bytes, expected ", bytes));
  }
  Tensor tensor;
  ASSIGN_OR_RETURN(tensor, Tensor::Allocate(HostAllocator(), dtype, shape));
  if (!proto.tensor_content().empty()) {
    std::memcpy(tensor.data(), proto.tensor_content().data(), bytes);
    return tensor;
  }
  RETURN_IF_ERROR(FillFromTypedField(proto, tensor));
  return tensor;
}

void TensorToProto(const Tensor& tensor, tensorflow::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(static_cast<tensorflow::DataType>(tensor.dtype()));
  TensorShapeToProto(tensor.shape(), proto->mutable_tensor_shape());
  if (tensor.dtype() == TSR_DTYPE_STRING) {
    if (tensor.data() == nullptr) return;
    for (const std::string& value : tensor.flat<std::string>()) proto->add_string_val(value);
    return;
  }
  if (tensor.TotalBytes() > 0 && tensor.data() != nullptr) {
    proto->set_tensor_content(tensor.data(), tensor.TotalBytes());
  }
}

}  // namespace tessera
