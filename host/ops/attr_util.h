// Attribute values: type names, checks against an attr definition, getters and constructors.
#ifndef TESSERA_HOST_OPS_ATTR_UTIL_H_
#define TESSERA_HOST_OPS_ATTR_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "host/framework/proto/attr_value.pb.h"
#include "host/framework/proto/node_def.pb.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/types.h"

namespace tessera {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;

// The attr type a value holds, in OpDef spelling: "int", "list(type)", "func"...; an empty list
// is "list(any)", a value with nothing set is "no value".
std::string AttrValueTypeName(const tensorflow::AttrValue& value);

// A short rendering of a value for messages: "float", "3", "[1, 2]", "\"NHWC\"", "[2,?]".
std::string AttrValueSummary(const tensorflow::AttrValue& value);

// Checks `value` against its definition: type, allowed values, minimum, valid dtypes and shapes.
// The message has no node context ("expected type, got int").
absl::Status ValidateAttrValue(const tensorflow::AttrValue& value,
                               const tensorflow::OpDef::AttrDef& attr_def);

// True for the attr types an OpDef may declare.
bool IsValidAttrType(absl::string_view type);

// Typed getters of a node attribute. INVALID_ARGUMENT when the attr is missing or has another
// type; messages name the node and the attr.
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, int64_t* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, int32_t* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, bool* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, float* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::string* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, DataType* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         PartialShape* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::vector<int64_t>* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::vector<DataType>* value);
absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         const tensorflow::TensorProto** value);

// The attribute, or nullptr.
const tensorflow::AttrValue* FindNodeAttr(const tensorflow::NodeDef& node, absl::string_view name);

// "node 'name' (Op)" for messages.
std::string FormatNodeForError(const tensorflow::NodeDef& node);

// Value constructors.
tensorflow::AttrValue IntAttrValue(int64_t value);
tensorflow::AttrValue FloatAttrValue(float value);
tensorflow::AttrValue BoolAttrValue(bool value);
tensorflow::AttrValue StringAttrValue(absl::string_view value);
tensorflow::AttrValue TypeAttrValue(DataType value);
tensorflow::AttrValue ShapeAttrValue(const PartialShape& value);
tensorflow::AttrValue IntListAttrValue(absl::Span<const int64_t> values);
tensorflow::AttrValue TypeListAttrValue(absl::Span<const DataType> values);
tensorflow::AttrValue StringListAttrValue(absl::Span<const std::string> values);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_ATTR_UTIL_H_
