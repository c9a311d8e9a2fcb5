// NodeDefs checked against their OpDef: default attrs, attr validation, input/output types.
#include "host/ops/node_def_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/ops/attr_util.h"
#include "host/ops/op_def_util.h"

namespace tessera {
namespace {

absl::Status AddOneArgTypes(const tensorflow::NodeDef& node, const tensorflow::OpDef::ArgDef& arg,
                            std::vector<DataType>* types) {
  if (!arg.type_list_attr().empty()) {
    std::vector<DataType> list;
    RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &list));
    if (static_cast<int64_t>(types->size() + list.size()) > kMaxNodeArgs) {
      return absl::InvalidArgumentError(
          absl::StrCat(FormatNodeForError(node), " has more than ", kMaxNodeArgs, " arguments"));
    }
    types->insert(types->end(), list.begin(), list.end());
    return absl::OkStatus();
  }
  DataType type = static_cast<DataType>(arg.type());
  if (!arg.type_attr().empty()) RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &type));
  if (arg.is_ref()) type = MakeRefType(type);
  int64_t count = 1;
  if (!arg.number_attr().empty()) {
    RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &count));
    // Compared as a difference: the count is any int64 a GraphDef holds, and a sum could overflow.
    if (count < 0 || count > kMaxNodeArgs - static_cast<int64_t>(types->size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("attr '", arg.number_attr(), "' of ", FormatNodeForError(node), " is ",
                       count, ", expected a count in [0, ", kMaxNodeArgs, "]"));
    }
  }
  types->insert(types->end(), static_cast<size_t>(count), type);
  return absl::OkStatus();
}

// Appends the types of `args` to `types`; `sizes`, when given, gets each argument's tensor count.
absl::Status AddArgTypes(const tensorflow::NodeDef& node,
                         const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& args,
                         std::vector<DataType>* types, std::vector<int>* sizes = nullptr) {
  types->clear();
  if (sizes != nullptr) sizes->clear();
  for (const tensorflow::OpDef::ArgDef& arg : args) {
    const size_t before = types->size();
    RETURN_IF_ERROR(AddOneArgTypes(node, arg, types));
    if (sizes != nullptr) sizes->push_back(static_cast<int>(types->size() - before));
  }
  return absl::OkStatus();
}

}  // namespace

void AddDefaultsToNodeDef(const tensorflow::OpDef& op_def, tensorflow::NodeDef* node) {
  for (const tensorflow::OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.has_default_value() && node->attr().find(attr.name()) == node->attr().end()) {
      (*node->mutable_attr())[attr.name()] = attr.default_value();
    }
  }
}

absl::Status ValidateNodeDefAttrs(const tensorflow::NodeDef& node,
                                  const tensorflow::OpDef& op_def) {
  // Sorted for deterministic messages (the attr map has no order).
  std::vector<const std::string*> names;
  for (const auto& entry : node.attr()) names.push_back(&entry.first);
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  for (const std::string* name : names) {
    if (!name->empty() && (*name)[0] == '_') continue;
    const tensorflow::OpDef::AttrDef* attr_def = FindAttrDef(op_def, *name);
    if (attr_def == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(FormatNodeForError(node), " has attr '", *name,
                                                     "', which op '", op_def.name(),
                                                     "' does not define"));
    }
    absl::Status status = ValidateAttrValue(node.attr().at(*name), *attr_def);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attr '", *name, "' of ", FormatNodeForError(node), ": ", status.message()));
    }
  }
  for (const tensorflow::OpDef::AttrDef& attr_def : op_def.attr()) {
    if (node.attr().find(attr_def.name()) == node.attr().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          FormatNodeForError(node), " is missing required attr '", attr_def.name(), "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status InOutTypesForNode(const tensorflow::NodeDef& node, const tensorflow::OpDef& op_def,
                               std::vector<DataType>* input_types,
                               std::vector<DataType>* output_types) {
  RETURN_IF_ERROR(AddArgTypes(node, op_def.input_arg(), input_types));
  return AddArgTypes(node, op_def.output_arg(), output_types);
}

absl::StatusOr<std::vector<int>> OutputArgSizes(const tensorflow::NodeDef& node,
                                                const tensorflow::OpDef& op_def) {
  std::vector<DataType> types;
  std::vector<int> sizes;
  RETURN_IF_ERROR(AddArgTypes(node, op_def.output_arg(), &types, &sizes));
  return sizes;
}

absl::StatusOr<std::vector<int>> InputArgSizes(const tensorflow::NodeDef& node,
                                               const tensorflow::OpDef& op_def) {
  std::vector<DataType> types;
  std::vector<int> sizes;
  RETURN_IF_ERROR(AddArgTypes(node, op_def.input_arg(), &types, &sizes));
  return sizes;
}

}  // namespace tessera
