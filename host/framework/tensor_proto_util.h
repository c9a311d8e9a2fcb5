// Conversion between runtime tensors and TensorFlow's TensorProto / TensorShapeProto.
#ifndef TESSERA_HOST_FRAMEWORK_TENSOR_PROTO_UTIL_H_
#define TESSERA_HOST_FRAMEWORK_TENSOR_PROTO_UTIL_H_

#include "absl/status/statusor.h"
#include "host/framework/proto/tensor.pb.h"
#include "host/framework/proto/tensor_shape.pb.h"
#include "host/framework/proto/types.pb.h"
#include "host/runtime/tensor.h"

namespace tessera {

// True when `dtype` (a proto enum value) is one the runtime represents as DataType: values 1..23
// (not the reference types, not the 8-bit float and 4-bit types).
bool IsRuntimeDataType(int dtype);

// The name of a proto DataType for messages: "float", "int32", "float_ref", "DT_FLOAT8_E5M2"...
std::string ProtoDataTypeString(int dtype);

// A fully defined shape from its proto. INVALID_ARGUMENT for an unknown rank, a negative
// dimension, a rank above TSR_MAX_RANK or an element count that overflows int64.
absl::StatusOr<TensorShape> TensorShapeFromProto(const tensorflow::TensorShapeProto& proto);
void TensorShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto);

// A host-memory tensor from a TensorProto. Values come from `tensor_content` (raw little-endian
// bytes, whose size must match exactly) or from the typed `*_val` field of the dtype: no values
// means zeros, fewer values than elements repeat the last one (TensorFlow's rule, so one value
// fills the shape), more values than elements is INVALID_ARGUMENT naming both counts.
// Strings come from `string_val` by the same rules (no values: empty strings; repeating the last
// one may not make more than 1 GiB) or from `tensor_content` in TensorFlow's string encoding
// (every length as a varint32, then the bytes); malformed content is INVALID_ARGUMENT, checked
// before the strings are made. Resources, variants, reference and sub-byte types are
// INVALID_ARGUMENT; out of memory is RESOURCE_EXHAUSTED.
absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto);

// Writes dtype, shape and `tensor_content` (host-memory tensors only); strings go to `string_val`,
// as TensorFlow writes them.
void TensorToProto(const Tensor& tensor, tensorflow::TensorProto* proto);

}  // namespace tessera

#endif  // TESSERA_HOST_FRAMEWORK_TENSOR_PROTO_UTIL_H_
