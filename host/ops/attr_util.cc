// Attribute values: type names, checks against an attr definition, getters and constructors.
#include "host/ops/attr_util.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"

namespace tessera {
namespace {

using tensorflow::AttrValue;

constexpr absl::string_view kScalarTypes[] = {"string", "int",   "float",  "bool",
                                              "type",   "shape", "tensor", "func"};

// The element kinds a ListValue holds, in OpDef spelling, with their sizes.
std::vector<std::pair<absl::string_view, int>> PopulatedListFields(
    const AttrValue::ListValue& list) {
  std::vector<std::pair<absl::string_view, int>> fields;
  if (list.s_size() > 0) fields.emplace_back("string", list.s_size());
  if (list.i_size() > 0) fields.emplace_back("int", list.i_size());
  if (list.f_size() > 0) fields.emplace_back("float", list.f_size());
  if (list.b_size() > 0) fields.emplace_back("bool", list.b_size());
  if (list.type_size() > 0) fields.emplace_back("type", list.type_size());
  if (list.shape_size() > 0) fields.emplace_back("shape", list.shape_size());
  if (list.tensor_size() > 0) fields.emplace_back("tensor", list.tensor_size());
  if (list.func_size() > 0) fields.emplace_back("func", list.func_size());
  return fields;
}

int ListSize(const AttrValue::ListValue& list) {
  int size = 0;
  for (const auto& field : PopulatedListFields(list)) size = std::max(size, field.second);
  return size;
}

std::string TypeListString(const google::protobuf::RepeatedField<int>& types) {
  return absl::StrCat(
      "{",
      absl::StrJoin(types, ", ",
                    [](std::string* out, int t) { out->append(ProtoDataTypeString(t)); }),
      "}");
}

std::string StringListString(const google::protobuf::RepeatedPtrField<std::string>& values) {
  return absl::StrCat("{",
                      absl::StrJoin(values, ", ",
                                    [](std::string* out, const std::string& s) {
                                      absl::StrAppend(out, "\"", s, "\"");
                                    }),
                      "}");
}

absl::Status CheckType(int type, const tensorflow::OpDef::AttrDef& attr_def) {
  if (!IsRuntimeDataType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("type ", ProtoDataTypeString(type),
                                                   " is not supported (reference, sub-byte and "
                                                   "8-bit float types are not)"));
  }
  if (attr_def.has_allowed_values()) {
    const auto& allowed = attr_def.allowed_values().list().type();
    if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
      return absl::InvalidArgumentError(absl::StrCat("value ", ProtoDataTypeString(type),
                                                     " is not in the allowed list ",
                                                     TypeListString(allowed)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckString(const std::string& value, const tensorflow::OpDef::AttrDef& attr_def) {
  if (attr_def.has_allowed_values()) {
    const auto& allowed = attr_def.allowed_values().list().s();
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value \"", value, "\" is not in the allowed list ", StringListString(allowed)));
    }
  }
  return absl::OkStatus();
}

AttrValue::ValueCase CaseOfScalarType(absl::string_view type) {
  if (type == "string") return AttrValue::kS;
  if (type == "int") return AttrValue::kI;
  if (type == "float") return AttrValue::kF;
  if (type == "bool") return AttrValue::kB;
  if (type == "type") return AttrValue::kType;
  if (type == "shape") return AttrValue::kShape;
  if (type == "tensor") return AttrValue::kTensor;
  if (type == "func") return AttrValue::kFunc;
  return AttrValue::VALUE_NOT_SET;
}

absl::Status AttrError(const tensorflow::NodeDef& node, absl::string_view name,
                       absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("attr '", name, "' of ", FormatNodeForError(node), ": ", what));
}

// Finds the attr and checks its case.
absl::StatusOr<const AttrValue*> FindTyped(const tensorflow::NodeDef& node, absl::string_view name,
                                           AttrValue::ValueCase want, absl::string_view want_name) {
  const AttrValue* value = FindNodeAttr(node, name);
  if (value == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeForError(node), " has no attr '", name, "'"));
  }
  if (value->value_case() != want) {
    return AttrError(node, name,
                     absl::StrCat("expected ", want_name, ", got ", AttrValueTypeName(*value)));
  }
  return value;
}

}  // namespace

std::string FormatNodeForError(const tensorflow::NodeDef& node) {
  return absl::StrCat("node '", node.name(), "' (", node.op(), ")");
}

std::string AttrValueTypeName(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS:
      return "string";
    case AttrValue::kI:
      return "int";
    case AttrValue::kF:
      return "float";
    case AttrValue::kB:
      return "bool";
    case AttrValue::kType:
      return "type";
    case AttrValue::kShape:
      return "shape";
    case AttrValue::kTensor:
      return "tensor";
    case AttrValue::kFunc:
      return "func";
    case AttrValue::kPlaceholder:
      return "placeholder";
    case AttrValue::kList: {
      auto fields = PopulatedListFields(value.list());
      if (fields.empty()) return "list(any)";
      if (fields.size() > 1) return "list(mixed)";
      return absl::StrCat("list(", fields[0].first, ")");
    }
    case AttrValue::VALUE_NOT_SET:
      break;
  }
  return "no value";
}

std::string AttrValueSummary(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS:
      return absl::StrCat("\"", value.s(), "\"");
    case AttrValue::kI:
      return absl::StrCat(value.i());
    case AttrValue::kF:
      return absl::StrCat(value.f());
    case AttrValue::kB:
      return value.b() ? "true" : "false";
    case AttrValue::kType:
      return ProtoDataTypeString(value.type());
    case AttrValue::kShape: {
      absl::StatusOr<PartialShape> shape = PartialShape::FromProto(value.shape());
      return shape.ok() ? shape->ToString() : "<invalid shape>";
    }
    case AttrValue::kTensor:
      return "<tensor>";
    case AttrValue::kFunc:
      return absl::StrCat("func ", value.func().name());
    case AttrValue::kPlaceholder:
      return absl::StrCat("$", value.placeholder());
    case AttrValue::kList: {
      const AttrValue::ListValue& list = value.list();
      if (list.i_size() > 0) return absl::StrCat("[", absl::StrJoin(list.i(), ", "), "]");
      if (list.type_size() > 0) return TypeListString(list.type());
      if (list.s_size() > 0) return StringListString(list.s());
      return absl::StrCat(AttrValueTypeName(value), " of ", ListSize(list));
    }
    case AttrValue::VALUE_NOT_SET:
      break;
  }
  return "no value";
}

bool IsValidAttrType(absl::string_view type) {
  if (absl::StartsWith(type, "list(") && absl::EndsWith(type, ")")) {
    type = type.substr(5, type.size() - 6);
  }
  return std::find(std::begin(kScalarTypes), std::end(kScalarTypes), type) !=
         std::end(kScalarTypes);
}

absl::Status ValidateAttrValue(const AttrValue& value, const tensorflow::OpDef::AttrDef& attr_def) {
  absl::string_view type = attr_def.type();
  if (absl::StartsWith(type, "list(")) {
    absl::string_view element = type.substr(5, type.size() - 6);
    if (value.value_case() != AttrValue::kList) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected ", type, ", got ", AttrValueTypeName(value)));
    }
    const AttrValue::ListValue& list = value.list();
    for (const auto& field : PopulatedListFields(list)) {
      if (field.first != element) {
        return absl::InvalidArgumentError(
            absl::StrCat("expected ", type, ", got ", AttrValueTypeName(value)));
      }
    }
    const int size = ListSize(list);
    if (attr_def.has_minimum() && size < attr_def.minimum()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "list has ", size, " elements, fewer than the minimum ", attr_def.minimum()));
    }
    if (element == "type") {
      for (int t : list.type()) RETURN_IF_ERROR(CheckType(t, attr_def));
    } else if (element == "string") {
      for (const std::string& s : list.s()) RETURN_IF_ERROR(CheckString(s, attr_def));
    } else if (element == "shape") {
      for (const auto& shape : list.shape()) {
        RETURN_IF_ERROR(PartialShape::FromProto(shape).status());
      }
    }
    return absl::OkStatus();
  }
  if (value.value_case() != CaseOfScalarType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", type, ", got ", AttrValueTypeName(value)));
  }
  switch (value.value_case()) {
    case AttrValue::kI:
      if (attr_def.has_minimum() && value.i() < attr_def.minimum()) {
        return absl::InvalidArgumentError(
            absl::StrCat("value ", value.i(), " is less than the minimum ", attr_def.minimum()));
      }
      break;
    case AttrValue::kType:
      return CheckType(value.type(), attr_def);
    case AttrValue::kS:
      return CheckString(value.s(), attr_def);
    case AttrValue::kShape:
      return PartialShape::FromProto(value.shape()).status();
    default:
      break;
  }
  return absl::OkStatus();
}

const AttrValue* FindNodeAttr(const tensorflow::NodeDef& node, absl::string_view name) {
  auto it = node.attr().find(std::string(name));
  return it == node.attr().end() ? nullptr : &it->second;
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, int64_t* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kI, "int"));
  *value = attr->i();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, int32_t* value) {
  int64_t v;
  RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  if (v < INT32_MIN || v > INT32_MAX) {
    return AttrError(node, name, absl::StrCat("value ", v, " does not fit in int32"));
  }
  *value = static_cast<int32_t>(v);
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, bool* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kB, "bool"));
  *value = attr->b();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, float* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kF, "float"));
  *value = attr->f();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::string* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kS, "string"));
  *value = attr->s();
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name, DataType* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kType, "type"));
  if (!IsRuntimeDataType(attr->type())) {
    return AttrError(node, name,
                     absl::StrCat("type ", ProtoDataTypeString(attr->type()), " is not supported"));
  }
  *value = static_cast<DataType>(attr->type());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         PartialShape* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kShape, "shape"));
  absl::StatusOr<PartialShape> shape = PartialShape::FromProto(attr->shape());
  if (!shape.ok()) return AttrError(node, name, shape.status().message());
  *value = *std::move(shape);
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::vector<int64_t>* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kList, "list(int)"));
  if (!PopulatedListFields(attr->list()).empty() && attr->list().i_size() == 0) {
    return AttrError(node, name,
                     absl::StrCat("expected list(int), got ", AttrValueTypeName(*attr)));
  }
  value->assign(attr->list().i().begin(), attr->list().i().end());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         std::vector<DataType>* value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kList, "list(type)"));
  if (!PopulatedListFields(attr->list()).empty() && attr->list().type_size() == 0) {
    return AttrError(node, name,
                     absl::StrCat("expected list(type), got ", AttrValueTypeName(*attr)));
  }
  value->clear();
  for (int t : attr->list().type()) {
    if (!IsRuntimeDataType(t)) {
      return AttrError(node, name,
                       absl::StrCat("type ", ProtoDataTypeString(t), " is not supported"));
    }
    value->push_back(static_cast<DataType>(t));
  }
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const tensorflow::NodeDef& node, absl::string_view name,
                         const tensorflow::TensorProto** value) {
  const AttrValue* attr;
  ASSIGN_OR_RETURN(attr, FindTyped(node, name, AttrValue::kTensor, "tensor"));
  *value = &attr->tensor();
  return absl::OkStatus();
}

AttrValue IntAttrValue(int64_t value) {
  AttrValue v;
  v.set_i(value);
  return v;
}

AttrValue FloatAttrValue(float value) {
  AttrValue v;
  v.set_f(value);
  return v;
}

AttrValue BoolAttrValue(bool value) {
  AttrValue v;
  v.set_b(value);
  return v;
}

AttrValue StringAttrValue(absl::string_view value) {
  AttrValue v;
  v.set_s(std::string(value));
  return v;
}

AttrValue TypeAttrValue(DataType value) {
  AttrValue v;
  v.set_type(static_cast<tensorflow::DataType>(value));
  return v;
}

AttrValue ShapeAttrValue(const PartialShape& value) {
  AttrValue v;
  value.ToProto(v.mutable_shape());
  return v;
}

AttrValue IntListAttrValue(absl::Span<const int64_t> values) {
  AttrValue v;
  v.mutable_list();
  for (int64_t i : values) v.mutable_list()->add_i(i);
  return v;
}

AttrValue TypeListAttrValue(absl::Span<const DataType> values) {
  AttrValue v;
  v.mutable_list();
  for (DataType t : values) v.mutable_list()->add_type(static_cast<tensorflow::DataType>(t));
  return v;
}

AttrValue StringListAttrValue(absl::Span<const std::string> values) {
  AttrValue v;
  v.mutable_list();
  for (const std::string& s : values) v.mutable_list()->add_s(s);
  return v;
}

}  // namespace tessera
