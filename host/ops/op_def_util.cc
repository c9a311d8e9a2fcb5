// Checks that an OpDef is well formed (names, attr types and defaults, argument types).
#include "host/ops/op_def_util.h"

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/ops/attr_util.h"

namespace tessera {
namespace {

bool IsValidArgName(absl::string_view name) {
  if (name.empty() || !absl::ascii_islower(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '_') return false;
  }
  return true;
}

bool IsValidAttrName(absl::string_view name) {
  if (name.empty() || !absl::ascii_isalpha(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

absl::Status OpError(const tensorflow::OpDef& op_def, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("op definition '", op_def.name(), "': ", message));
}

absl::Status ValidateAttrDef(const tensorflow::OpDef& op_def,
                             const tensorflow::OpDef::AttrDef& attr) {
  if (!IsValidAttrName(attr.name())) {
    return OpError(op_def,
                   absl::StrCat("attr name '", attr.name(), "' must match [A-Za-z][A-Za-z0-9_]*"));
  }
  if (!IsValidAttrType(attr.type())) {
    return OpError(op_def,
                   absl::StrCat("attr '", attr.name(), "' has unknown type '", attr.type(), "'"));
  }
  if (attr.has_allowed_values()) {
    const bool is_type = attr.type() == "type" || attr.type() == "list(type)";
    const bool is_string = attr.type() == "string" || attr.type() == "list(string)";
    if (!is_type && !is_string) {
      return OpError(op_def, absl::StrCat("attr '", attr.name(), "' of type ", attr.type(),
                                          " cannot have allowed values"));
    }
    for (int t : attr.allowed_values().list().type()) {
      if (!IsRuntimeDataType(t)) {
        return OpError(op_def, absl::StrCat("attr '", attr.name(), "' allows type ",
                                            ProtoDataTypeString(t), ", which is not supported"));
      }
    }
  }
  if (attr.has_minimum() && attr.type() != "int" && attr.type().rfind("list(", 0) != 0) {
    return OpError(op_def, absl::StrCat("attr '", attr.name(), "' of type ", attr.type(),
                                        " cannot have a minimum"));
  }
  if (attr.has_default_value()) {
    absl::Status status = ValidateAttrValue(attr.default_value(), attr);
    if (!status.ok()) {
      return OpError(op_def,
                     absl::StrCat("default value of attr '", attr.name(), "': ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateArg(const tensorflow::OpDef& op_def, const tensorflow::OpDef::ArgDef& arg,
                         absl::string_view kind, std::set<std::string>* names) {
  if (!IsValidArgName(arg.name())) {
    return OpError(op_def,
                   absl::StrCat(kind, " name '", arg.name(), "' must match [a-z][a-z0-9_]*"));
  }
  if (!names->insert(arg.name()).second) {
    return OpError(op_def, absl::StrCat("argument name '", arg.name(), "' is used twice"));
  }
  if (arg.is_ref() && !arg.type_list_attr().empty()) {
    return OpError(op_def, absl::StrCat(kind, " '", arg.name(),
                                        "' is a reference argument with a type list, which is not "
                                        "supported"));
  }
  const int ways = (arg.type() != tensorflow::DT_INVALID) + !arg.type_attr().empty() +
                   !arg.type_list_attr().empty();
  if (ways != 1) {
    return OpError(op_def, absl::StrCat(kind, " '", arg.name(), "' gives its type ", ways,
                                        " ways, expected exactly one of type, type_attr and "
                                        "type_list_attr"));
  }
  auto check_attr = [&](const std::string& name, absl::string_view want,
                        absl::string_view role) -> absl::Status {
    const tensorflow::OpDef::AttrDef* attr = FindAttrDef(op_def, name);
    if (attr == nullptr) {
      return OpError(op_def, absl::StrCat(kind, " '", arg.name(), "' refers to ", role, " attr '",
                                          name, "', which is not defined"));
    }
    if (attr->type() != want) {
      return OpError(op_def, absl::StrCat(kind, " '", arg.name(), "' refers to ", role, " attr '",
                                          name, "' of type ", attr->type(), ", expected ", want));
    }
    return absl::OkStatus();
  };
  if (arg.type() != tensorflow::DT_INVALID && !IsRuntimeDataType(arg.type())) {
    return OpError(
        op_def, absl::StrCat(kind, " '", arg.name(), "' has type ", ProtoDataTypeString(arg.type()),
                             ", which is not supported"));
  }
  if (!arg.type_attr().empty()) RETURN_IF_ERROR(check_attr(arg.type_attr(), "type", "type"));
  if (!arg.type_list_attr().empty()) {
    RETURN_IF_ERROR(check_attr(arg.type_list_attr(), "list(type)", "type list"));
    if (!arg.number_attr().empty()) {
      return OpError(op_def, absl::StrCat(kind, " '", arg.name(),
                                          "' has both a number attr and a type list attr"));
    }
  }
  if (!arg.number_attr().empty()) {
    RETURN_IF_ERROR(check_attr(arg.number_attr(), "int", "number"));
    const tensorflow::OpDef::AttrDef* attr = FindAttrDef(op_def, arg.number_attr());
    if (!attr->has_minimum() || attr->minimum() < 0) {
      return OpError(
          op_def, absl::StrCat("number attr '", arg.number_attr(), "' must have a minimum >= 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsValidOpName(absl::string_view name) {
  if (!name.empty() && name[0] == '_') name.remove_prefix(1);
  if (name.empty() || !absl::ascii_isupper(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '>') return false;
  }
  return true;
}

const tensorflow::OpDef::AttrDef* FindAttrDef(const tensorflow::OpDef& op_def,
                                              absl::string_view name) {
  for (const tensorflow::OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

absl::Status ValidateOpDef(const tensorflow::OpDef& op_def) {
  if (!IsValidOpName(op_def.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat("op name '", op_def.name(), "' must match _?[A-Z][A-Za-z0-9_>]*"));
  }
  std::set<std::string> attr_names;
  for (const tensorflow::OpDef::AttrDef& attr : op_def.attr()) {
    if (!attr_names.insert(attr.name()).second) {
      return OpError(op_def, absl::StrCat("attr '", attr.name(), "' is defined twice"));
    }
    RETURN_IF_ERROR(ValidateAttrDef(op_def, attr));
  }
  std::set<std::string> arg_names;
  for (const auto& arg : op_def.input_arg()) {
    RETURN_IF_ERROR(ValidateArg(op_def, arg, "input", &arg_names));
  }
  for (const auto& arg : op_def.output_arg()) {
    RETURN_IF_ERROR(ValidateArg(op_def, arg, "output", &arg_names));
  }
  return absl::OkStatus();
}

}  // namespace tessera
