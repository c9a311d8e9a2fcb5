// Attributes: the TF_SetAttr* calls of an operation description and the TF_OperationGetAttr*
// readers of a finished operation.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/client/op_builder.h"
#include "host/framework/tensor_proto_util.h"

namespace tessera {
namespace c_api {
namespace {

// The attr to set, or nullptr when the description already failed (or is NULL).
tensorflow::AttrValue* AttrToSet(TF_OperationDescription* desc, const char* attr_name,
                                 const char* function) {
  if (desc == nullptr || !desc->status.ok()) return nullptr;
  if (attr_name == nullptr) {
    desc->status = NullArgument(function, "attr_name");
    return nullptr;
  }
  tensorflow::AttrValue* value = &(*desc->node.mutable_attr())[attr_name];
  value->Clear();
  return value;
}

void Fail(TF_OperationDescription* desc, const absl::Status& status) {
  if (desc->status.ok()) desc->status = status;
}

// False (and the description failed) when a list argument is NULL with entries or has a negative
// length.
bool CheckList(TF_OperationDescription* desc, const void* values, int num_values,
               const char* function) {
  if (num_values < 0) {
    Fail(desc, absl::InvalidArgumentError(absl::StrCat(function, ": num_values is ", num_values)));
    return false;
  }
  if (num_values > 0 && values == nullptr) {
    Fail(desc, NullArgument(function, "values"));
    return false;
  }
  return true;
}

void ShapeToProto(const int64_t* dims, int num_dims, tensorflow::TensorShapeProto* proto) {
  if (num_dims < 0) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < num_dims; ++i) proto->add_dim()->set_size(dims[i]);
}

absl::StatusOr<tensorflow::TensorProto> TensorToAttr(const TF_Tensor* value) {
  if (value == nullptr) return absl::InvalidArgumentError("the tensor is NULL");
  ASSIGN_OR_RETURN(Tensor tensor, ToTensor(*value));
  tensorflow::TensorProto proto;
  TensorToAttrProto(tensor, &proto);
  return proto;
}

// The attr of a finished operation, or an error naming it.
absl::StatusOr<const tensorflow::AttrValue*> FindAttr(TF_Operation* oper, const char* attr_name,
                                                      const char* function) {
  if (oper == nullptr) return NullArgument(function, "oper");
  if (attr_name == nullptr) return NullArgument(function, "attr_name");
  const tensorflow::AttrValue* value = oper->node->attr(attr_name);
  if (value == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("operation '", oper->node->name(), "' (",
                                                   oper->node->op(), ") has no attr named '",
                                                   attr_name, "'"));
  }
  return value;
}

absl::Status WrongKind(TF_Operation* oper, const char* attr_name, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat("attr '", attr_name, "' of operation '",
                                                 oper->node->name(), "' is not ", expected));
}

}  // namespace
}  // namespace c_api
}  // namespace tessera

using tessera::c_api::AttrToSet;
using tessera::c_api::FindAttr;
using tessera::c_api::NullArgument;
using tessera::c_api::SetOk;
using tessera::c_api::SetStatus;
using tessera::c_api::WrongKind;

extern "C" {

void TF_SetAttrString(TF_OperationDescription* desc, const char* attr_name, const void* value,
                      size_t length) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrString");
  if (attr == nullptr || !tessera::c_api::CheckList(desc, value, length > 0, "TF_SetAttrString")) {
    return;
  }
  attr->set_s(std::string(static_cast<const char*>(value), length));
}

void TF_SetAttrStringList(TF_OperationDescription* desc, const char* attr_name,
                          const void* const* values, const size_t* lengths, int num_values) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrStringList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrStringList")) return;
  if (!tessera::c_api::CheckList(desc, lengths, num_values, "TF_SetAttrStringList")) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) {
    if (values[i] == nullptr && lengths[i] > 0) {
      tessera::c_api::Fail(desc, absl::InvalidArgumentError(absl::StrCat(
                                     "TF_SetAttrStringList: attr '", attr_name, "': value ", i,
                                     " is NULL")));
      return;
    }
    list->add_s(std::string(static_cast<const char*>(values[i]), lengths[i]));
  }
}

void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name, int64_t value) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrInt");
  if (attr != nullptr) attr->set_i(value);
}

void TF_SetAttrIntList(TF_OperationDescription* desc, const char* attr_name, const int64_t* values,
                       int num_values) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrIntList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrIntList")) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_i(values[i]);
}

void TF_SetAttrFloat(TF_OperationDescription* desc, const char* attr_name, float value) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrFloat");
  if (attr != nullptr) attr->set_f(value);
}

void TF_SetAttrFloatList(TF_OperationDescription* desc, const char* attr_name, const float* values,
                         int num_values) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrFloatList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrFloatList")) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_f(values[i]);
}

void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name, unsigned char value) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrBool");
  if (attr != nullptr) attr->set_b(value != 0);
}

void TF_SetAttrBoolList(TF_OperationDescription* desc, const char* attr_name,
                        const unsigned char* values, int num_values) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrBoolList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrBoolList")) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_b(values[i] != 0);
}

void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name, TF_DataType value) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrType");
  if (attr != nullptr) attr->set_type(static_cast<tensorflow::DataType>(value));
}

void TF_SetAttrTypeList(TF_OperationDescription* desc, const char* attr_name,
                        const TF_DataType* values, int num_values) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrTypeList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrTypeList")) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_type(static_cast<tensorflow::DataType>(values[i]));
}

void TF_SetAttrPlaceholder(TF_OperationDescription* desc, const char* attr_name,
                           const char* placeholder) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrPlaceholder");
  if (attr != nullptr) attr->set_placeholder(placeholder == nullptr ? "" : placeholder);
}

void TF_SetAttrFuncName(TF_OperationDescription* desc, const char* attr_name, const char* value,
                        size_t length) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrFuncName");
  if (attr == nullptr || !tessera::c_api::CheckList(desc, value, length > 0, "TF_SetAttrFuncName")) {
    return;
  }
  attr->mutable_func()->set_name(std::string(value, length));
}

void TF_SetAttrShape(TF_OperationDescription* desc, const char* attr_name, const int64_t* dims,
                     int num_dims) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrShape");
  if (attr == nullptr || !tessera::c_api::CheckList(desc, dims, std::max(num_dims, 0),
                                                     "TF_SetAttrShape")) {
    return;
  }
  tessera::c_api::ShapeToProto(dims, num_dims, attr->mutable_shape());
}

void TF_SetAttrShapeList(TF_OperationDescription* desc, const char* attr_name,
                         const int64_t* const* dims, const int* num_dims, int num_shapes) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrShapeList");
  if (attr == nullptr) return;
  if (!tessera::c_api::CheckList(desc, dims, num_shapes, "TF_SetAttrShapeList")) return;
  if (!tessera::c_api::CheckList(desc, num_dims, num_shapes, "TF_SetAttrShapeList")) return;
  for (int i = 0; i < num_shapes; ++i) {
    if (num_dims[i] > 0 && dims[i] == nullptr) {
      tessera::c_api::Fail(desc, absl::InvalidArgumentError(absl::StrCat(
                                     "TF_SetAttrShapeList: attr '", attr_name, "': shape ", i,
                                     " has ", num_dims[i], " dims but its array is NULL")));
      return;
    }
    tessera::c_api::ShapeToProto(dims[i], num_dims[i], attr->mutable_list()->add_shape());
  }
}

void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc, const char* attr_name,
                                const void* proto, size_t proto_len, TF_Status* status) {
  TF_SetAttrTensorShapeProtoList(desc, attr_name, &proto, &proto_len, 1, status);
  if (desc == nullptr || !desc->status.ok() || attr_name == nullptr) return;
  tensorflow::AttrValue& attr = (*desc->node.mutable_attr())[attr_name];
  tensorflow::TensorShapeProto shape = attr.list().shape(0);
  *attr.mutable_shape() = shape;
}

void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc, const char* attr_name,
                                    const void* const* protos, const size_t* proto_lens,
                                    int num_shapes, TF_Status* status) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrTensorShapeProtoList");
  if (attr == nullptr) {
    return SetStatus(status, desc == nullptr
                                 ? NullArgument("TF_SetAttrTensorShapeProtoList", "desc")
                                 : desc->status);
  }
  if (!tessera::c_api::CheckList(desc, protos, num_shapes, "TF_SetAttrTensorShapeProtoList") ||
      !tessera::c_api::CheckList(desc, proto_lens, num_shapes, "TF_SetAttrTensorShapeProtoList")) {
    return SetStatus(status, desc->status);
  }
  for (int i = 0; i < num_shapes; ++i) {
    if ((protos[i] == nullptr && proto_lens[i] > 0) ||
        !attr->mutable_list()->add_shape()->ParseFromArray(protos[i],
                                                           static_cast<int>(proto_lens[i]))) {
      absl::Status error = absl::InvalidArgumentError(absl::StrCat(
          "attr '", attr_name, "': shape ", i, " is not a valid TensorShapeProto"));
      tessera::c_api::Fail(desc, error);
      return SetStatus(status, error);
    }
  }
  SetOk(status);
}

void TF_SetAttrTensor(TF_OperationDescription* desc, const char* attr_name, TF_Tensor* value,
                      TF_Status* status) {
  TF_SetAttrTensorList(desc, attr_name, &value, 1, status);
  if (desc == nullptr || !desc->status.ok() || attr_name == nullptr) return;
  tensorflow::AttrValue& attr = (*desc->node.mutable_attr())[attr_name];
  tensorflow::TensorProto tensor = attr.list().tensor(0);
  *attr.mutable_tensor() = std::move(tensor);
}

void TF_SetAttrTensorList(TF_OperationDescription* desc, const char* attr_name,
                          TF_Tensor* const* values, int num_values, TF_Status* status) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrTensorList");
  if (attr == nullptr) {
    return SetStatus(status, desc == nullptr ? NullArgument("TF_SetAttrTensorList", "desc")
                                             : desc->status);
  }
  if (!tessera::c_api::CheckList(desc, values, num_values, "TF_SetAttrTensorList")) {
    return SetStatus(status, desc->status);
  }
  for (int i = 0; i < num_values; ++i) {
    absl::StatusOr<tensorflow::TensorProto> proto = tessera::c_api::TensorToAttr(values[i]);
    if (!proto.ok()) {
      absl::Status error = tessera::WithContext(
          proto.status(), absl::StrCat("attr '", attr_name, "', tensor ", i));
      tessera::c_api::Fail(desc, error);
      return SetStatus(status, error);
    }
    *attr->mutable_list()->add_tensor() = *std::move(proto);
  }
  SetOk(status);
}

void TF_SetAttrValueProto(TF_OperationDescription* desc, const char* attr_name, const void* proto,
                          size_t proto_len, TF_Status* status) {
  tensorflow::AttrValue* attr = AttrToSet(desc, attr_name, "TF_SetAttrValueProto");
  if (attr == nullptr) {
    return SetStatus(status, desc == nullptr ? NullArgument("TF_SetAttrValueProto", "desc")
                                             : desc->status);
  }
  if ((proto == nullptr && proto_len > 0) || proto_len > static_cast<size_t>(INT32_MAX) ||
      !attr->ParseFromArray(proto, static_cast<int>(proto_len))) {
    absl::Status error = absl::InvalidArgumentError(
        absl::StrCat("TF_SetAttrValueProto: attr '", attr_name,
                     "': the bytes are not a valid AttrValue"));
    tessera::c_api::Fail(desc, error);
    return SetStatus(status, error);
  }
  SetOk(status);
}

// ---- Readers -----------------------------------------------------------------------------------

TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper, const char* attr_name,
                                            TF_Status* status) {
  TF_AttrMetadata metadata{0, -1, TF_ATTR_STRING, -1};
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrMetadata");
  if (!found.ok()) return SetStatus(status, found.status()), metadata;
  const tensorflow::AttrValue& value = **found;
  auto shape_rank = [](const tensorflow::TensorShapeProto& shape) -> int64_t {
    return shape.unknown_rank() ? -1 : shape.dim_size();
  };
  switch (value.value_case()) {
    case tensorflow::AttrValue::kS:
      metadata.type = TF_ATTR_STRING;
      metadata.total_size = static_cast<int64_t>(value.s().size());
      break;
    case tensorflow::AttrValue::kI: metadata.type = TF_ATTR_INT; break;
    case tensorflow::AttrValue::kF: metadata.type = TF_ATTR_FLOAT; break;
    case tensorflow::AttrValue::kB: metadata.type = TF_ATTR_BOOL; break;
    case tensorflow::AttrValue::kType: metadata.type = TF_ATTR_TYPE; break;
    case tensorflow::AttrValue::kShape:
      metadata.type = TF_ATTR_SHAPE;
      metadata.total_size = shape_rank(value.shape());
      break;
    case tensorflow::AttrValue::kTensor: metadata.type = TF_ATTR_TENSOR; break;
    case tensorflow::AttrValue::kPlaceholder: metadata.type = TF_ATTR_PLACEHOLDER; break;
    case tensorflow::AttrValue::kFunc: metadata.type = TF_ATTR_FUNC; break;
    case tensorflow::AttrValue::kList: {
      const tensorflow::AttrValue::ListValue& list = value.list();
      metadata.is_list = 1;
      if (list.s_size() > 0) {
        metadata.type = TF_ATTR_STRING;
        metadata.list_size = list.s_size();
        metadata.total_size = 0;
        for (const std::string& s : list.s()) metadata.total_size += s.size();
      } else if (list.i_size() > 0) {
        metadata.type = TF_ATTR_INT;
        metadata.list_size = list.i_size();
      } else if (list.f_size() > 0) {
        metadata.type = TF_ATTR_FLOAT;
        metadata.list_size = list.f_size();
      } else if (list.b_size() > 0) {
        metadata.type = TF_ATTR_BOOL;
        metadata.list_size = list.b_size();
      } else if (list.type_size() > 0) {
        metadata.type = TF_ATTR_TYPE;
        metadata.list_size = list.type_size();
      } else if (list.shape_size() > 0) {
        metadata.type = TF_ATTR_SHAPE;
        metadata.list_size = list.shape_size();
        metadata.total_size = 0;
        for (const auto& shape : list.shape()) metadata.total_size += std::max<int64_t>(0, shape_rank(shape));
      } else if (list.tensor_size() > 0) {
        metadata.type = TF_ATTR_TENSOR;
        metadata.list_size = list.tensor_size();
      } else if (list.func_size() > 0) {
        metadata.type = TF_ATTR_FUNC;
        metadata.list_size = list.func_size();
      } else {
        // An empty list: its kind comes from the op's definition of the attr.
        metadata.list_size = 0;
        for (const auto& def : oper->node->op_registration()->op_def.attr()) {
          if (def.name() != attr_name) continue;
          const std::string& t = def.type();
          metadata.type = t == "list(int)"     ? TF_ATTR_INT
                          : t == "list(float)" ? TF_ATTR_FLOAT
                          : t == "list(bool)"  ? TF_ATTR_BOOL
                          : t == "list(type)"  ? TF_ATTR_TYPE
                          : t == "list(shape)" ? TF_ATTR_SHAPE
                          : t == "list(tensor)" ? TF_ATTR_TENSOR
                          : t == "list(func)"  ? TF_ATTR_FUNC
                                               : TF_ATTR_STRING;
          if (metadata.type == TF_ATTR_STRING || metadata.type == TF_ATTR_SHAPE) {
            metadata.total_size = 0;
          }
        }
      }
      break;
    }
    default:
      return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                   "attr '", attr_name, "' of operation '", oper->node->name(),
                                   "' holds no value"))),
             metadata;
  }
  SetOk(status);
  return metadata;
}

void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name, void* value,
                               size_t max_length, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrString");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kS) {
    return SetStatus(status, WrongKind(oper, attr_name, "a string"));
  }
  const std::string& s = (*found)->s();
  if (max_length > 0 && value == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrString", "value"));
  }
  if (max_length > 0) std::memcpy(value, s.data(), std::min(max_length, s.size()));
  SetOk(status);
}

void TF_OperationGetAttrStringList(TF_Operation* oper, const char* attr_name, void** values,
                                   size_t* lengths, int max_values, void* storage,
                                   size_t storage_size, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrStringList");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kList) {
    return SetStatus(status, WrongKind(oper, attr_name, "a list of strings"));
  }
  const auto& list = (*found)->list().s();
  const int n = std::min<int>(max_values, list.size());
  if (n > 0 && (values == nullptr || lengths == nullptr || storage == nullptr)) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrStringList",
                                          "values, lengths or storage"));
  }
  char* next = static_cast<char*>(storage);
  size_t left = storage_size;
  for (int i = 0; i < n; ++i) {
    if (list[i].size() > left) {
      return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                   "TF_OperationGetAttrStringList: storage_size ", storage_size,
                                   " is too small for the strings of attr '", attr_name, "'")));
    }
    std::memcpy(next, list[i].data(), list[i].size());
    values[i] = next;
    lengths[i] = list[i].size();
    next += list[i].size();
    left -= list[i].size();
  }
  SetOk(status);
}

#define TESSERA_SCALAR_ATTR_GETTER(Name, CType, Case, Getter, Kind)                        \
  void TF_OperationGetAttr##Name(TF_Operation* oper, const char* attr_name, CType* value,  \
                                 TF_Status* status) {                                      \
    auto found = FindAttr(oper, attr_name, "TF_OperationGetAttr" #Name);                   \
    if (!found.ok()) return SetStatus(status, found.status());                             \
    if ((*found)->value_case() != tensorflow::AttrValue::Case) {                           \
      return SetStatus(status, WrongKind(oper, attr_name, Kind));                          \
    }                                                                                      \
    if (value == nullptr) {                                                                \
      return SetStatus(status, NullArgument("TF_OperationGetAttr" #Name, "value"));        \
    }                                                                                      \
    *value = static_cast<CType>((*found)->Getter());                                       \
    SetOk(status);                                                                         \
  }

#define TESSERA_LIST_ATTR_GETTER(Name, CType, Getter, Kind)                                 \
  void TF_OperationGetAttr##Name##List(TF_Operation* oper, const char* attr_name,          \
                                       CType* values, int max_values, TF_Status* status) { \
    auto found = FindAttr(oper, attr_name, "TF_OperationGetAttr" #Name "List");           \
    if (!found.ok()) return SetStatus(status, found.status());                             \
    if ((*found)->value_case() != tensorflow::AttrValue::kList) {                          \
      return SetStatus(status, WrongKind(oper, attr_name, Kind));                          \
    }                                                                                      \
    const auto& list = (*found)->list().Getter();                                          \
    const int n = std::min<int>(max_values, list.size());                                  \
    if (n > 0 && values == nullptr) {                                                      \
      return SetStatus(status, NullArgument("TF_OperationGetAttr" #Name "List", "values")); \
    }                                                                                      \
    for (int i = 0; i < n; ++i) values[i] = static_cast<CType>(list[i]);                   \
    SetOk(status);                                                                         \
  }

TESSERA_SCALAR_ATTR_GETTER(Int, int64_t, kI, i, "an int")
TESSERA_SCALAR_ATTR_GETTER(Float, float, kF, f, "a float")
TESSERA_SCALAR_ATTR_GETTER(Bool, unsigned char, kB, b, "a bool")
TESSERA_SCALAR_ATTR_GETTER(Type, TF_DataType, kType, type, "a type")
TESSERA_LIST_ATTR_GETTER(Int, int64_t, i, "a list of ints")
TESSERA_LIST_ATTR_GETTER(Float, float, f, "a list of floats")
TESSERA_LIST_ATTR_GETTER(Bool, unsigned char, b, "a list of bools")
TESSERA_LIST_ATTR_GETTER(Type, TF_DataType, type, "a list of types")

#undef TESSERA_SCALAR_ATTR_GETTER
#undef TESSERA_LIST_ATTR_GETTER

void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name, int64_t* value,
                              int num_dims, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrShape");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kShape) {
    return SetStatus(status, WrongKind(oper, attr_name, "a shape"));
  }
  const tensorflow::TensorShapeProto& shape = (*found)->shape();
  const int n = std::min(num_dims, shape.unknown_rank() ? 0 : shape.dim_size());
  if (n > 0 && value == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrShape", "value"));
  }
  for (int i = 0; i < n; ++i) value[i] = shape.dim(i).size();
  SetOk(status);
}

void TF_OperationGetAttrShapeList(TF_Operation* oper, const char* attr_name, int64_t** dims,
                                  int* num_dims, int num_shapes, int64_t* storage,
                                  int storage_size, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrShapeList");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kList) {
    return SetStatus(status, WrongKind(oper, attr_name, "a list of shapes"));
  }
  const auto& list = (*found)->list().shape();
  const int n = std::min<int>(num_shapes, list.size());
  if (n > 0 && (dims == nullptr || num_dims == nullptr || (storage == nullptr && storage_size > 0))) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrShapeList",
                                          "dims, num_dims or storage"));
  }
  int used = 0;
  for (int i = 0; i < n; ++i) {
    const tensorflow::TensorShapeProto& shape = list[i];
    if (shape.unknown_rank()) {
      num_dims[i] = -1;
      dims[i] = nullptr;
      continue;
    }
    if (used + shape.dim_size() > storage_size) {
      return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                   "TF_OperationGetAttrShapeList: storage_size ", storage_size,
                                   " is too small for the dims of attr '", attr_name, "'")));
    }
    num_dims[i] = shape.dim_size();
    dims[i] = storage + used;
    for (int d = 0; d < shape.dim_size(); ++d) storage[used++] = shape.dim(d).size();
  }
  SetOk(status);
}

void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper, const char* attr_name,
                                         TF_Buffer* value, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrTensorShapeProto");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kShape) {
    return SetStatus(status, WrongKind(oper, attr_name, "a shape"));
  }
  if (value == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrTensorShapeProto", "value"));
  }
  tessera::c_api::SetBuffer(value, (*found)->shape().SerializeAsString());
  SetOk(status);
}

void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper, const char* attr_name,
                                             TF_Buffer** values, int max_values,
                                             TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrTensorShapeProtoList");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kList) {
    return SetStatus(status, WrongKind(oper, attr_name, "a list of shapes"));
  }
  const auto& list = (*found)->list().shape();
  const int n = std::min<int>(max_values, list.size());
  if (n > 0 && values == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrTensorShapeProtoList", "values"));
  }
  for (int i = 0; i < n; ++i) {
    values[i] = TF_NewBuffer();
    tessera::c_api::SetBuffer(values[i], list[i].SerializeAsString());
  }
  SetOk(status);
}

void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name, TF_Tensor** value,
                               TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrTensor");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kTensor) {
    return SetStatus(status, WrongKind(oper, attr_name, "a tensor"));
  }
  if (value == nullptr) return SetStatus(status, NullArgument("TF_OperationGetAttrTensor", "value"));
  absl::StatusOr<TF_Tensor*> tensor = tessera::c_api::TensorFromProto((*found)->tensor());
  if (!tensor.ok()) return SetStatus(status, tensor.status());
  *value = *tensor;
  SetOk(status);
}

void TF_OperationGetAttrTensorList(TF_Operation* oper, const char* attr_name, TF_Tensor** values,
                                   int max_values, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrTensorList");
  if (!found.ok()) return SetStatus(status, found.status());
  if ((*found)->value_case() != tensorflow::AttrValue::kList) {
    return SetStatus(status, WrongKind(oper, attr_name, "a list of tensors"));
  }
  const auto& list = (*found)->list().tensor();
  const int n = std::min<int>(max_values, list.size());
  if (n > 0 && values == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrTensorList", "values"));
  }
  std::vector<TF_Tensor*> made;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<TF_Tensor*> tensor = tessera::c_api::TensorFromProto(list[i]);
    if (!tensor.ok()) {
      for (TF_Tensor* t : made) TF_DeleteTensor(t);
      return SetStatus(status, tensor.status());
    }
    made.push_back(*tensor);
  }
  for (int i = 0; i < n; ++i) values[i] = made[i];
  SetOk(status);
}

void TF_OperationGetAttrValueProto(TF_Operation* oper, const char* attr_name,
                                   TF_Buffer* output_attr_value, TF_Status* status) {
  auto found = FindAttr(oper, attr_name, "TF_OperationGetAttrValueProto");
  if (!found.ok()) return SetStatus(status, found.status());
  if (output_attr_value == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrValueProto", "output_attr_value"));
  }
  tessera::c_api::SetBuffer(output_attr_value, (*found)->SerializeAsString());
  SetOk(status);
}

namespace {

// The node's attrs in name order.
std::vector<std::string> SortedAttrNames(TF_Operation* oper) {
  std::vector<std::string> names;
  for (const auto& [name, value] : oper->node->def().attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

int TF_OperationGetNumAttrs(TF_Operation* oper) {
  return oper == nullptr ? 0 : oper->node->def().attr_size();
}

int TF_OperationGetAttrNameLength(TF_Operation* oper, int i) {
  if (oper == nullptr || i < 0 || i >= oper->node->def().attr_size()) return -1;
  return static_cast<int>(SortedAttrNames(oper)[i].size());
}

void TF_OperationGetAttrName(TF_Operation* oper, int i, char* output, TF_Status* status) {
  if (oper == nullptr) return SetStatus(status, NullArgument("TF_OperationGetAttrName", "oper"));
  if (output == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationGetAttrName", "output"));
  }
  if (i < 0 || i >= oper->node->def().attr_size()) {
    return SetStatus(status, absl::OutOfRangeError(absl::StrCat(
                                 "TF_OperationGetAttrName: operation '", oper->node->name(),
                                 "' has ", oper->node->def().attr_size(), " attrs, ", i,
                                 " was asked for")));
  }
  const std::string name = SortedAttrNames(oper)[i];
  std::memcpy(output, name.data(), name.size());
  SetOk(status);
}

}  // extern "C"
