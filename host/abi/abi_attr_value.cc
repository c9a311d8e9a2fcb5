// AttrValue -> TSR_AttrValue.
#include "host/abi/abi_attr_value.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "host/framework/tensor_proto_util.h"

namespace tessera {
namespace {

static_assert(sizeof(TSR_DataType) == sizeof(int), "list(type) is read in place");

const int64_t* ShapeDims(const tensorflow::TensorShapeProto& shape, AttrScratch* scratch,
                         int32_t* rank) {
  if (shape.unknown_rank()) {
    *rank = -1;
    return nullptr;
  }
  std::vector<int64_t>& dims = scratch->dims.emplace_back();
  for (const auto& d : shape.dim()) dims.push_back(d.size());
  *rank = static_cast<int32_t>(dims.size());
  return dims.data();
}

}  // namespace

absl::Status FillAbiAttrValue(const tensorflow::AttrValue& value, AttrScratch* scratch,
                              TSR_AttrValue* out) {
  *out = TSR_AttrValue{};
  out->struct_size = sizeof(TSR_AttrValue);
  switch (value.value_case()) {
    case tensorflow::AttrValue::kS:
      out->type = TSR_ATTR_TYPE_STRING;
      out->s = value.s().data();
      out->s_size = value.s().size();
      break;
    case tensorflow::AttrValue::kI:
      out->type = TSR_ATTR_TYPE_INT;
      out->i = value.i();
      break;
    case tensorflow::AttrValue::kF:
      out->type = TSR_ATTR_TYPE_FLOAT;
      out->f = value.f();
      break;
    case tensorflow::AttrValue::kB:
      out->type = TSR_ATTR_TYPE_BOOL;
      out->b = value.b();
      break;
    case tensorflow::AttrValue::kType:
      out->type = TSR_ATTR_TYPE_TYPE;
      out->dtype = static_cast<TSR_DataType>(value.type());
      break;
    case tensorflow::AttrValue::kShape:
      out->type = TSR_ATTR_TYPE_SHAPE;
      out->shape_dims = ShapeDims(value.shape(), scratch, &out->shape_rank);
      break;
    case tensorflow::AttrValue::kTensor: {
      absl::StatusOr<Tensor> tensor = TensorFromProto(value.tensor());
      if (!tensor.ok()) return tensor.status();
      if (tensor->dtype() == TSR_DTYPE_STRING) {
        // Strings stay in the host: the C ABI has no layout for them.
        return absl::UnimplementedError(
            "a string tensor attribute cannot be passed to a plugin (the C ABI has no string "
            "layout)");
      }
      Tensor& stored = scratch->tensors.emplace_back(std::move(*tensor));
      out->type = TSR_ATTR_TYPE_TENSOR;
      FillTensorView(stored, &out->tensor);
      break;
    }
    case tensorflow::AttrValue::kList: {
      const tensorflow::AttrValue::ListValue& list = value.list();
      if (list.i_size() > 0) {
        out->type = TSR_ATTR_TYPE_LIST_INT;
        out->list_size = list.i_size();
        out->list_i = list.i().data();
      } else if (list.f_size() > 0) {
        out->type = TSR_ATTR_TYPE_LIST_FLOAT;
        out->list_size = list.f_size();
        out->list_f = list.f().data();
      } else if (list.b_size() > 0) {
        out->type = TSR_ATTR_TYPE_LIST_BOOL;
        out->list_size = list.b_size();
        out->list_b = list.b().data();
      } else if (list.type_size() > 0) {
        out->type = TSR_ATTR_TYPE_LIST_TYPE;
        out->list_size = list.type_size();
        out->list_type = reinterpret_cast<const TSR_DataType*>(list.type().data());
      } else if (list.s_size() > 0 || list.shape_size() > 0) {
        return absl::UnimplementedError(
            "list(string) and list(shape) attributes are not passed to plugins in ABI 0.1");
      } else {
        // An empty list: its element type is not recorded; LIST_INT with no elements.
        out->type = TSR_ATTR_TYPE_LIST_INT;
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat("attribute of kind ",
                                                     static_cast<int>(value.value_case()),
                                                     " cannot be passed to a plugin"));
  }
  return absl::OkStatus();
}

}  // namespace tessera
