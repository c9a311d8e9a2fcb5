// OpDefBuilder: a fluent C++ builder for op definitions.
#include "host/ops/op_def_builder.h"

#include "base/status_macros.h"
#include "host/ops/attr_util.h"
#include "host/ops/op_def_util.h"

namespace tessera {

OpDefBuilder::OpDefBuilder(std::string name) { registration_.op_def.set_name(std::move(name)); }

tensorflow::OpDef::ArgDef* OpDefBuilder::AddArg(bool input, std::string name) {
  tensorflow::OpDef::ArgDef* arg =
      input ? registration_.op_def.add_input_arg() : registration_.op_def.add_output_arg();
  arg->set_name(std::move(name));
  return arg;
}

tensorflow::OpDef::AttrDef* OpDefBuilder::AddAttr(std::string name, const char* type) {
  tensorflow::OpDef::AttrDef* attr = registration_.op_def.add_attr();
  attr->set_name(std::move(name));
  attr->set_type(type);
  return attr;
}

OpDefBuilder& OpDefBuilder::Input(std::string name, std::string type_attr) {
  AddArg(true, std::move(name))->set_type_attr(std::move(type_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::Input(std::string name, DataType type) {
  AddArg(true, std::move(name))->set_type(static_cast<tensorflow::DataType>(type));
  return *this;
}

OpDefBuilder& OpDefBuilder::InputList(std::string name, std::string number_attr,
                                      std::string type_attr) {
  tensorflow::OpDef::ArgDef* arg = AddArg(true, std::move(name));
  arg->set_number_attr(std::move(number_attr));
  arg->set_type_attr(std::move(type_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::InputList(std::string name, std::string number_attr, DataType type) {
  tensorflow::OpDef::ArgDef* arg = AddArg(true, std::move(name));
  arg->set_number_attr(std::move(number_attr));
  arg->set_type(static_cast<tensorflow::DataType>(type));
  return *this;
}

OpDefBuilder& OpDefBuilder::InputTypeList(std::string name, std::string type_list_attr) {
  AddArg(true, std::move(name))->set_type_list_attr(std::move(type_list_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string name, std::string type_attr) {
  AddArg(false, std::move(name))->set_type_attr(std::move(type_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::RefInput(std::string name, std::string type_attr) {
  tensorflow::OpDef::ArgDef* arg = AddArg(true, std::move(name));
  arg->set_type_attr(std::move(type_attr));
  arg->set_is_ref(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::RefOutput(std::string name, std::string type_attr) {
  tensorflow::OpDef::ArgDef* arg = AddArg(false, std::move(name));
  arg->set_type_attr(std::move(type_attr));
  arg->set_is_ref(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string name, DataType type) {
  AddArg(false, std::move(name))->set_type(static_cast<tensorflow::DataType>(type));
  return *this;
}

OpDefBuilder& OpDefBuilder::OutputList(std::string name, std::string number_attr,
                                       std::string type_attr) {
  tensorflow::OpDef::ArgDef* arg = AddArg(false, std::move(name));
  arg->set_number_attr(std::move(number_attr));
  arg->set_type_attr(std::move(type_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::OutputList(std::string name, std::string number_attr, DataType type) {
  tensorflow::OpDef::ArgDef* arg = AddArg(false, std::move(name));
  arg->set_number_attr(std::move(number_attr));
  arg->set_type(static_cast<tensorflow::DataType>(type));
  return *this;
}

OpDefBuilder& OpDefBuilder::OutputTypeList(std::string name, std::string type_list_attr) {
  AddArg(false, std::move(name))->set_type_list_attr(std::move(type_list_attr));
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(std::string name, std::vector<DataType> allowed,
                                     std::optional<DataType> default_value) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "type");
  if (!allowed.empty()) *attr->mutable_allowed_values() = TypeListAttrValue(allowed);
  if (default_value.has_value()) *attr->mutable_default_value() = TypeAttrValue(*default_value);
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeListAttr(std::string name, std::vector<DataType> allowed,
                                         std::optional<int64_t> min_length) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "list(type)");
  if (!allowed.empty()) *attr->mutable_allowed_values() = TypeListAttrValue(allowed);
  if (min_length.has_value()) {
    attr->set_has_minimum(true);
    attr->set_minimum(*min_length);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::IntAttr(std::string name, std::optional<int64_t> default_value,
                                    std::optional<int64_t> minimum) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "int");
  if (default_value.has_value()) *attr->mutable_default_value() = IntAttrValue(*default_value);
  if (minimum.has_value()) {
    attr->set_has_minimum(true);
    attr->set_minimum(*minimum);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::FloatAttr(std::string name, std::optional<float> default_value) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "float");
  if (default_value.has_value()) *attr->mutable_default_value() = FloatAttrValue(*default_value);
  return *this;
}

OpDefBuilder& OpDefBuilder::BoolAttr(std::string name, std::optional<bool> default_value) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "bool");
  if (default_value.has_value()) *attr->mutable_default_value() = BoolAttrValue(*default_value);
  return *this;
}

OpDefBuilder& OpDefBuilder::StringAttr(std::string name, std::optional<std::string> default_value,
                                       std::vector<std::string> allowed) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "string");
  if (!allowed.empty()) *attr->mutable_allowed_values() = StringListAttrValue(allowed);
  if (default_value.has_value()) {
    *attr->mutable_default_value() = StringAttrValue(*default_value);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::ShapeAttr(std::string name, std::optional<PartialShape> default_value) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "shape");
  if (default_value.has_value()) *attr->mutable_default_value() = ShapeAttrValue(*default_value);
  return *this;
}

OpDefBuilder& OpDefBuilder::TensorAttr(std::string name) {
  AddAttr(std::move(name), "tensor");
  return *this;
}

OpDefBuilder& OpDefBuilder::IntListAttr(std::string name,
                                        std::optional<std::vector<int64_t>> default_value,
                                        std::optional<int64_t> min_length) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "list(int)");
  if (default_value.has_value()) {
    *attr->mutable_default_value() = IntListAttrValue(*default_value);
  }
  if (min_length.has_value()) {
    attr->set_has_minimum(true);
    attr->set_minimum(*min_length);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::StringListAttr(std::string name,
                                           std::optional<std::vector<std::string>> default_value) {
  tensorflow::OpDef::AttrDef* attr = AddAttr(std::move(name), "list(string)");
  if (default_value.has_value()) {
    *attr->mutable_default_value() = StringListAttrValue(*default_value);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(tensorflow::OpDef::AttrDef attr) {
  *registration_.op_def.add_attr() = std::move(attr);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  registration_.op_def.set_is_stateful(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  registration_.op_def.set_is_commutative(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  registration_.op_def.set_is_aggregate(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  registration_.op_def.set_is_distributed_communication(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  registration_.op_def.set_allows_uninitialized_input(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn shape_fn) {
  registration_.shape_fn = std::move(shape_fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetKernelFlagsHint(uint32_t flags) {
  registration_.kernel_flags_hint = flags;
  return *this;
}

OpDefBuilder& OpDefBuilder::SetOrigin(std::string origin) {
  registration_.origin = std::move(origin);
  return *this;
}

absl::StatusOr<OpRegistration> OpDefBuilder::Build() const {
  RETURN_IF_ERROR(ValidateOpDef(registration_.op_def));
  return registration_;
}

}  // namespace tessera
