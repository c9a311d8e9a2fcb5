// OpBuilder and the conversions of inputs and tensor attrs into their GraphDef form.
#include "host/client/op_builder.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/client/array_ops.h"

namespace tessera {
namespace {

template <typename T, typename Field>
void AppendValues(const Tensor& tensor, Field* field) {
  for (const T& value : tensor.flat<T>()) field->Add(value);
}

}  // namespace

void TensorToAttrProto(const Tensor& tensor, tensorflow::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(static_cast<tensorflow::DataType>(tensor.dtype()));
  tensorflow::TensorShapeProto* shape = proto->mutable_tensor_shape();  // present even if empty
  for (int64_t d : tensor.shape().dims()) shape->add_dim()->set_size(d);
  if (tensor.dtype() == TSR_DTYPE_STRING) {  // strings have no flat bytes: one string_val each
    for (const std::string& value : tensor.flat<std::string>()) proto->add_string_val(value);
    return;
  }
  if (tensor.NumElements() > 1) {
    proto->set_tensor_content(std::string(static_cast<const char*>(tensor.data()),
                                          tensor.TotalBytes()));
    return;
  }
  if (tensor.NumElements() == 0) return;
  switch (tensor.dtype()) {
    case TSR_DTYPE_FLOAT: AppendValues<float>(tensor, proto->mutable_float_val()); break;
    case TSR_DTYPE_DOUBLE: AppendValues<double>(tensor, proto->mutable_double_val()); break;
    case TSR_DTYPE_INT32: AppendValues<int32_t>(tensor, proto->mutable_int_val()); break;
    case TSR_DTYPE_INT16: AppendValues<int16_t>(tensor, proto->mutable_int_val()); break;
    case TSR_DTYPE_INT8: AppendValues<int8_t>(tensor, proto->mutable_int_val()); break;
    case TSR_DTYPE_UINT8: AppendValues<uint8_t>(tensor, proto->mutable_int_val()); break;
    case TSR_DTYPE_UINT16: AppendValues<uint16_t>(tensor, proto->mutable_int_val()); break;
    case TSR_DTYPE_INT64: AppendValues<int64_t>(tensor, proto->mutable_int64_val()); break;
    case TSR_DTYPE_UINT32: AppendValues<uint32_t>(tensor, proto->mutable_uint32_val()); break;
    case TSR_DTYPE_UINT64: AppendValues<uint64_t>(tensor, proto->mutable_uint64_val()); break;
    case TSR_DTYPE_BOOL: AppendValues<bool>(tensor, proto->mutable_bool_val()); break;
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:  // the 16-bit pattern, in an int32
      AppendValues<uint16_t>(tensor, proto->mutable_half_val());
      break;
    case TSR_DTYPE_COMPLEX64: {
      const float* p = tensor.data<float>();
      proto->add_scomplex_val(p[0]);
      proto->add_scomplex_val(p[1]);
      break;
    }
    case TSR_DTYPE_COMPLEX128: {
      const double* p = tensor.data<double>();
      proto->add_dcomplex_val(p[0]);
      proto->add_dcomplex_val(p[1]);
      break;
    }
    default:  // quantized types: no typed field; the raw bytes say it exactly
      proto->set_tensor_content(std::string(static_cast<const char*>(tensor.data()),
                                            tensor.TotalBytes()));
      break;
  }
}

Output AsNodeOut(const Scope& scope, const Input& input) {
  if (!scope.ok()) return Output();
  if (!input.status().ok()) {
    scope.UpdateStatus(input.status());
    return Output();
  }
  if (input.is_constant()) {
    return ops::Const(scope.NewSubScope("Const"), Input::Initializer(input.tensor()));
  }
  const Output& output = input.output();
  if (!output.valid()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        "an input is an invalid Output (a default-constructed one or one of an op that failed)"));
    return Output();
  }
  if (output.graph() != scope.graph_id()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("input '", output.name(),
                     "' belongs to another graph (built from a different root scope)")));
    return Output();
  }
  return output;
}

std::vector<Output> AsNodeOutList(const Scope& scope, const InputList& inputs) {
  std::vector<Output> outputs;
  outputs.reserve(inputs.size());
  for (const Input& input : inputs.inputs()) outputs.push_back(AsNodeOut(scope, input));
  return outputs;
}

OpBuilder::OpBuilder(const Scope& scope, absl::string_view op, absl::string_view default_name)
    : scope_(scope) {
  node_.set_op(std::string(op));
  if (scope_.ok()) node_.set_name(scope_.GetUniqueNameForOp(std::string(default_name)));
}

OpBuilder& OpBuilder::Input(const Output& input) {
  if (!input.valid()) {
    SetError(absl::StrCat("input ", node_.input_size(), " is an invalid Output"));
  }
  node_.add_input(input.InputString());
  return *this;
}

OpBuilder& OpBuilder::Inputs(absl::Span<const Output> inputs) {
  for (const Output& input : inputs) Input(input);
  return *this;
}

OpBuilder& OpBuilder::AttrType(absl::string_view name, DataType value) {
  (*node_.mutable_attr())[std::string(name)].set_type(static_cast<tensorflow::DataType>(value));
  return *this;
}

OpBuilder& OpBuilder::AttrBool(absl::string_view name, bool value) {
  (*node_.mutable_attr())[std::string(name)].set_b(value);
  return *this;
}

OpBuilder& OpBuilder::AttrInt(absl::string_view name, int64_t value) {
  (*node_.mutable_attr())[std::string(name)].set_i(value);
  return *this;
}

OpBuilder& OpBuilder::AttrString(absl::string_view name, absl::string_view value) {
  (*node_.mutable_attr())[std::string(name)].set_s(std::string(value));
  return *this;
}

OpBuilder& OpBuilder::AttrIntList(absl::string_view name, absl::Span<const int64_t> values) {
  tensorflow::AttrValue& attr = (*node_.mutable_attr())[std::string(name)];
  attr.mutable_list();  // an empty list is still a list
  for (int64_t v : values) attr.mutable_list()->add_i(v);
  return *this;
}

OpBuilder& OpBuilder::AttrShape(absl::string_view name, const PartialTensorShape& shape) {
  shape.ToProto((*node_.mutable_attr())[std::string(name)].mutable_shape());
  return *this;
}

OpBuilder& OpBuilder::AttrProto(absl::string_view name, const tensorflow::AttrValue& value) {
  (*node_.mutable_attr())[std::string(name)] = value;
  return *this;
}

OpBuilder& OpBuilder::AttrTensor(absl::string_view name, const Tensor& value) {
  if (!value.IsInitialized()) {
    SetError(absl::StrCat("attr '", name, "' is an uninitialized tensor"));
    return *this;
  }
  if (!IsDenseDataType(value.dtype()) || !value.host_accessible()) {
    SetError(absl::StrCat("attr '", name, "' must be a dense host-memory tensor, got ",
                          DataTypeString(value.dtype())));
    return *this;
  }
  TensorToAttrProto(value, (*node_.mutable_attr())[std::string(name)].mutable_tensor());
  return *this;
}

void OpBuilder::SetError(absl::string_view message) {
  if (status_.ok()) status_ = absl::InvalidArgumentError(std::string(message));
}

DataType OpBuilder::CommonType(absl::string_view attr, absl::Span<const Output> inputs) {
  if (inputs.empty()) return TSR_DTYPE_INVALID;
  DataType type = inputs[0].type();
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].type() != type && inputs[i].valid() && inputs[0].valid()) {
      SetError(absl::StrCat("inconsistent values for attr '", attr, "': input 0 is ",
                            DataTypeString(type), " but input ", i, " is ",
                            DataTypeString(inputs[i].type())));
      return TSR_DTYPE_INVALID;
    }
  }
  return type;
}

void OpBuilder::CheckType(absl::string_view attr, const Output& input,
                          std::initializer_list<DataType> allowed) {
  if (!input.valid()) return;
  for (DataType t : allowed) {
    if (input.type() == t) return;
  }
  std::vector<std::string> names;
  for (DataType t : allowed) names.push_back(DataTypeString(t));
  SetError(absl::StrCat("attr '", attr, "' (the type of input '", input.name(), "') is ",
                        DataTypeString(input.type()), ", not one of the allowed ",
                        absl::StrJoin(names, ", ")));
}

Operation OpBuilder::Finalize(std::vector<DataType> output_types) {
  if (!scope_.ok()) return Operation();
  if (!status_.ok()) {
    scope_.UpdateStatus(absl::Status(
        status_.code(),
        absl::StrCat("while building node '", node_.name(), "' (", node_.op(), "): ",
                     status_.message())));
    return Operation();
  }
  return scope_.AddNode(std::move(node_), std::move(output_types));
}

}  // namespace tessera
