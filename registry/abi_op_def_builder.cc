// Op definitions built by calls: argument and attribute checks, and the final cross-checks.
#include "registry/abi_op_def_builder.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "registry/abi_status.h"
#include "registry/abi_values.h"

namespace tessera {
namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsArgName(absl::string_view name) {
  if (name.empty() || !IsLower(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLower(c) || IsDigit(c) || c == '_'; });
}

// TensorFlow's attr names, which include "T" and "N": [a-zA-Z][a-zA-Z0-9_]*. (op.h's comment
// says [a-z]..., which would refuse TensorFlow's own ops.)
bool IsAttrName(absl::string_view name) {
  if (name.empty() || !(IsLower(name[0]) || IsUpper(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLower(c) || IsUpper(c) || IsDigit(c) || c == '_'; });
}

// TensorFlow's op names: [A-Z][a-zA-Z0-9>_]* ('>' separates a namespace).
bool IsOpName(absl::string_view name) {
  if (name.empty() || !IsUpper(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return IsLower(c) || IsUpper(c) || IsDigit(c) || c == '_' || c == '>';
  });
}

std::string Quoted(const char* text) {
  return text == nullptr ? std::string("NULL") : absl::StrCat("'", text, "'");
}

std::string OpPrefix(const TSR_OpDefBuilder& builder) {
  return absl::StrCat("op '", builder.spec.name, "'");
}

// Keeps the first error in the builder and hands a copy to the plugin.
TSR_Status* Fail(TSR_OpDefBuilder* builder, absl::Status status) {
  if (builder->error.ok()) builder->error = status;
  return ToAbiStatus(status);
}

absl::StatusOr<OpArgSpec> MakeArg(const TSR_OpDefBuilder& builder, const TSR_OpArg* arg,
                                  absl::string_view kind, const std::vector<OpArgSpec>& existing) {
  const std::string prefix = absl::StrCat(OpPrefix(builder), ": ", kind);
  if (arg == nullptr) return absl::InvalidArgumentError(absl::StrCat(prefix, " is NULL"));
  if (arg->name == nullptr || !IsArgName(arg->name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, " name ", Quoted(arg->name), " does not match [a-z][a-z0-9_]*"));
  }
  OpArgSpec spec;
  spec.name = arg->name;
  const std::string named = absl::StrCat(prefix, " '", spec.name, "'");
  for (const OpArgSpec& other : existing) {
    if (other.name == spec.name) {
      return absl::InvalidArgumentError(absl::StrCat(named, " is defined twice"));
    }
  }
  const int raw_dtype = RawEnumValue(arg->dtype);
  if (raw_dtype != TSR_DTYPE_INVALID && !IsValidDataType(raw_dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(named, ": invalid dtype ", raw_dtype));
  }
  spec.dtype = static_cast<TSR_DataType>(raw_dtype);
  if (arg->type_attr != nullptr) spec.type_attr = arg->type_attr;
  if (arg->number_attr != nullptr) spec.number_attr = arg->number_attr;
  if (arg->type_list_attr != nullptr) spec.type_list_attr = arg->type_list_attr;
  spec.is_ref = arg->is_ref;
  const int type_sources =
      (spec.dtype != TSR_DTYPE_INVALID) + !spec.type_attr.empty() + !spec.type_list_attr.empty();
  if (type_sources != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(named, ": exactly one of dtype, type_attr, type_list_attr must be given, got ",
                     type_sources));
  }
  if (!spec.number_attr.empty() && !spec.type_list_attr.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(named, ": number_attr cannot be combined with type_list_attr"));
  }
  return spec;
}

TSR_Status* AddArg(TSR_OpDefBuilder* builder, const TSR_OpArg* arg, bool input) {
  if (builder == nullptr) return ToAbiStatus(absl::InvalidArgumentError("op builder is NULL"));
  std::vector<OpArgSpec>& list = input ? builder->spec.inputs : builder->spec.outputs;
  absl::StatusOr<OpArgSpec> spec = MakeArg(*builder, arg, input ? "input" : "output", list);
  if (!spec.ok()) return Fail(builder, spec.status());
  list.push_back(*std::move(spec));
  return nullptr;
}

absl::StatusOr<OpAttrSpec> MakeAttr(const TSR_OpDefBuilder& builder, const TSR_OpAttr* attr) {
  const std::string prefix = absl::StrCat(OpPrefix(builder), ": attr");
  if (attr == nullptr) return absl::InvalidArgumentError(absl::StrCat(prefix, " is NULL"));
  if (attr->name == nullptr || !IsAttrName(attr->name)) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, " name ", Quoted(attr->name),
                                                   " does not match [a-zA-Z][a-zA-Z0-9_]*"));
  }
  OpAttrSpec spec;
  spec.name = attr->name;
  const std::string named = absl::StrCat(prefix, " '", spec.name, "'");
  if (builder.spec.FindAttr(spec.name) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(named, " is defined twice"));
  }
  const int raw_type = RawEnumValue(attr->type);
  if (raw_type <= TSR_ATTR_TYPE_UNSPECIFIED || raw_type > TSR_ATTR_TYPE_LIST_FUNC) {
    return absl::InvalidArgumentError(absl::StrCat(named, ": invalid attr type ", raw_type));
  }
  spec.type = static_cast<TSR_AttrType>(raw_type);
  const bool is_type = spec.type == TSR_ATTR_TYPE_TYPE || spec.type == TSR_ATTR_TYPE_LIST_TYPE;
  if (attr->num_allowed_types != 0) {
    if (!is_type) {
      return absl::InvalidArgumentError(
          absl::StrCat(named, ": allowed_types given for an attr of type ", AttrTypeName(spec.type),
                       " (only type and list(type) attrs take them)"));
    }
    if (attr->allowed_types == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          named, ": allowed_types is NULL but num_allowed_types is ", attr->num_allowed_types));
    }
    for (size_t i = 0; i < attr->num_allowed_types; ++i) {
      const int raw = RawEnumValue(attr->allowed_types[i]);
      if (!IsValidDataType(raw)) {
        return absl::InvalidArgumentError(
            absl::StrCat(named, ": allowed_types has invalid dtype ", raw));
      }
      spec.allowed_types.push_back(static_cast<TSR_DataType>(raw));
    }
  }
  const bool takes_minimum = spec.type == TSR_ATTR_TYPE_INT || IsListAttrType(spec.type);
  if (attr->has_minimum && !takes_minimum) {
    return absl::InvalidArgumentError(
        absl::StrCat(named, ": a minimum is given for an attr of type ", AttrTypeName(spec.type),
                     " (only int and list attrs take one)"));
  }
  spec.has_minimum = attr->has_minimum;
  spec.minimum = attr->minimum;
  if (attr->default_value != nullptr) {
    absl::StatusOr<AttrData> value = AttrData::FromAbi(*attr->default_value);
    if (!value.ok()) return WithContext(value.status(), absl::StrCat(named, ": default"));
    if (value->type != spec.type) {
      return absl::InvalidArgumentError(absl::StrCat(named, ": default has type ",
                                                     AttrTypeName(value->type), ", expected ",
                                                     AttrTypeName(spec.type)));
    }
    if (spec.type == TSR_ATTR_TYPE_TYPE && !spec.allowed_types.empty() &&
        std::find(spec.allowed_types.begin(), spec.allowed_types.end(), value->dtype) ==
            spec.allowed_types.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          named, ": default dtype ", static_cast<int>(value->dtype), " is not an allowed type"));
    }
    if (spec.type == TSR_ATTR_TYPE_INT && spec.has_minimum && value->i < spec.minimum) {
      return absl::InvalidArgumentError(
          absl::StrCat(named, ": default ", value->i, " is below the minimum ", spec.minimum));
    }
    spec.default_value = *std::move(value);
  }
  return spec;
}

absl::Status CheckArgAttrs(const OpSpec& spec, const OpArgSpec& arg, absl::string_view kind) {
  struct Reference {
    const std::string& attr;
    const char* field;
    TSR_AttrType expected;
  };
  for (const Reference& ref :
       {Reference{arg.type_attr, "type_attr", TSR_ATTR_TYPE_TYPE},
        Reference{arg.number_attr, "number_attr", TSR_ATTR_TYPE_INT},
        Reference{arg.type_list_attr, "type_list_attr", TSR_ATTR_TYPE_LIST_TYPE}}) {
    if (ref.attr.empty()) continue;
    const OpAttrSpec* attr = spec.FindAttr(ref.attr);
    const std::string where = absl::StrCat("op '", spec.name, "': ", kind, " '", arg.name, "' ",
                                           ref.field, " '", ref.attr, "'");
    if (attr == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(where, " names no attr of the op"));
    }
    if (attr->type != ref.expected) {
      return absl::InvalidArgumentError(absl::StrCat(where, " has type ", AttrTypeName(attr->type),
                                                     ", expected ", AttrTypeName(ref.expected)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

TSR_OpDefBuilder* OpDefBuilderCreate(const char* op_name) {
  auto* builder = new TSR_OpDefBuilder;
  if (op_name == nullptr) {
    builder->error = absl::InvalidArgumentError("op name is NULL");
  } else {
    builder->spec.name = op_name;
  }
  return builder;
}

void OpDefBuilderDestroy(TSR_OpDefBuilder* builder) { delete builder; }

TSR_Status* OpDefBuilderAddInput(TSR_OpDefBuilder* builder, const TSR_OpArg* arg) {
  return AddArg(builder, arg, /*input=*/true);
}

TSR_Status* OpDefBuilderAddOutput(TSR_OpDefBuilder* builder, const TSR_OpArg* arg) {
  return AddArg(builder, arg, /*input=*/false);
}

TSR_Status* OpDefBuilderAddAttr(TSR_OpDefBuilder* builder, const TSR_OpAttr* attr) {
  if (builder == nullptr) return ToAbiStatus(absl::InvalidArgumentError("op builder is NULL"));
  absl::StatusOr<OpAttrSpec> spec = MakeAttr(*builder, attr);
  if (!spec.ok()) return Fail(builder, spec.status());
  builder->spec.attrs.push_back(*std::move(spec));
  return nullptr;
}

void OpDefBuilderSetFlags(TSR_OpDefBuilder* builder, uint32_t flags) {
  if (builder != nullptr) builder->spec.flags = flags;
}

void OpDefBuilderSetShapeFn(TSR_OpDefBuilder* builder, TSR_ShapeFn fn, void* user_data) {
  if (builder == nullptr) return;
  builder->spec.shape_fn = fn;
  builder->spec.shape_fn_user_data = user_data;
}

absl::StatusOr<OpSpec> FinishOpDef(TSR_OpDefBuilder* builder) {
  if (builder == nullptr) return absl::InvalidArgumentError("op builder is NULL");
  std::unique_ptr<TSR_OpDefBuilder> owned(builder);
  RETURN_IF_ERROR(owned->error);
  OpSpec& spec = owned->spec;
  if (!IsOpName(spec.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("op name '", spec.name, "' does not match [A-Z][a-zA-Z0-9>_]*"));
  }
  for (const OpArgSpec& arg : spec.inputs) RETURN_IF_ERROR(CheckArgAttrs(spec, arg, "input"));
  for (const OpArgSpec& arg : spec.outputs) RETURN_IF_ERROR(CheckArgAttrs(spec, arg, "output"));
  return std::move(spec);
}

}  // namespace tessera
