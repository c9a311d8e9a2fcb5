// AttrValue -> TSR_AttrValue.
#include "host/abi/abi_attr_value.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/runtime/packed_strings.h"

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

// A func attribute nests attribute values; deeper nesting than this is refused.
constexpr int kMaxFuncDepth = 16;

absl::Status FillValue(const tensorflow::AttrValue& value, AttrScratch* scratch, int depth,
                       TSR_AttrValue* out);

// A host-memory view of a tensor attribute; string tensors are packed (common.h).
absl::Status FillTensor(const tensorflow::TensorProto& proto, AttrScratch* scratch,
                        TSR_TensorView* view) {
  ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(proto));
  if (tensor.dtype() != TSR_DTYPE_STRING) {
    Tensor& stored = scratch->tensors.emplace_back(std::move(tensor));
    FillTensorView(stored, view);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor packed, PackStringsToBuffer(tensor));
  Tensor& shape_holder = scratch->tensors.emplace_back(std::move(tensor));
  Tensor& stored = scratch->tensors.emplace_back(std::move(packed));
  *view = TSR_TensorView{};
  view->struct_size = sizeof(TSR_TensorView);
  view->dtype = TSR_DTYPE_STRING;
  view->rank = shape_holder.shape().rank();
  view->dims = shape_holder.shape().data();
  view->data = stored.data();
  view->byte_size = static_cast<size_t>(stored.NumElements());
  return absl::OkStatus();
}

absl::Status FillFunc(const tensorflow::NameAttrList& func, AttrScratch* scratch, int depth,
                      TSR_FuncAttr* out) {
  if (depth >= kMaxFuncDepth) {
    return absl::InvalidArgumentError(absl::StrCat("func attribute '", func.name(),
                                                   "' nests more than ", kMaxFuncDepth,
                                                   " levels of attributes"));
  }
  *out = TSR_FuncAttr{};
  out->struct_size = sizeof(TSR_FuncAttr);
  out->name = scratch->strings.emplace_back(func.name()).c_str();
  std::vector<std::string> names;
  for (const auto& [name, unused] : func.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<const char*>& name_pointers = scratch->pointers.emplace_back();
  std::vector<TSR_AttrValue>& values = scratch->values.emplace_back(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    name_pointers.push_back(scratch->strings.emplace_back(names[i]).c_str());
    RETURN_IF_ERROR(WithContext(FillValue(func.attr().at(names[i]), scratch, depth + 1, &values[i]),
                                absl::StrCat("in attribute '", names[i], "' of func '",
                                             func.name(), "'")));
  }
  out->num_attrs = names.size();
  out->attr_names = name_pointers.data();
  out->attr_values = values.data();
  return absl::OkStatus();
}

absl::Status FillList(const tensorflow::AttrValue::ListValue& list, AttrScratch* scratch,
                      int depth, TSR_AttrValue* out) {
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
  } else if (list.s_size() > 0) {
    out->type = TSR_ATTR_TYPE_LIST_STRING;
    out->list_size = list.s_size();
    std::vector<const char*>& data = scratch->pointers.emplace_back();
    std::vector<size_t>& sizes = scratch->sizes.emplace_back();
    for (const std::string& s : list.s()) {
      data.push_back(s.data());
      sizes.push_back(s.size());
    }
    out->list_s = data.data();
    out->list_s_size = sizes.data();
  } else if (list.shape_size() > 0) {
    out->type = TSR_ATTR_TYPE_LIST_SHAPE;
    out->list_size = list.shape_size();
    std::vector<int32_t>& ranks = scratch->ranks.emplace_back(list.shape_size());
    std::vector<const int64_t*>& dims = scratch->dim_lists.emplace_back(list.shape_size());
    for (int i = 0; i < list.shape_size(); ++i) dims[i] = ShapeDims(list.shape(i), scratch, &ranks[i]);
    out->list_shape_rank = ranks.data();
    out->list_shape_dims = dims.data();
  } else if (list.tensor_size() > 0) {
    out->type = TSR_ATTR_TYPE_LIST_TENSOR;
    out->list_size = list.tensor_size();
    std::vector<TSR_TensorView>& views = scratch->views.emplace_back(list.tensor_size());
    for (int i = 0; i < list.tensor_size(); ++i) {
      RETURN_IF_ERROR(WithContext(FillTensor(list.tensor(i), scratch, &views[i]),
                                  absl::StrCat("in tensor ", i, " of a list(tensor)")));
    }
    out->list_tensor = views.data();
  } else if (list.func_size() > 0) {
    out->type = TSR_ATTR_TYPE_LIST_FUNC;
    out->list_size = list.func_size();
    std::vector<TSR_FuncAttr>& funcs = scratch->funcs.emplace_back(list.func_size());
    for (int i = 0; i < list.func_size(); ++i) {
      RETURN_IF_ERROR(FillFunc(list.func(i), scratch, depth, &funcs[i]));
    }
    out->func = funcs.data();
  } else {
    // An empty list: its element type is not recorded; LIST_INT with no elements.
    out->type = TSR_ATTR_TYPE_LIST_INT;
  }
  return absl::OkStatus();
}

absl::Status FillValue(const tensorflow::AttrValue& value, AttrScratch* scratch, int depth,
                       TSR_AttrValue* out) {
  *out = TSR_AttrValue{};
  out->struct_size = sizeof(TSR_AttrValue);
  switch (value.value_case()) {
    case tensorflow::AttrValue::kS:
      out->type = TSR_ATTR_TYPE_STRING;
      out->s = value.s().data();
      out->s_size = value.s().size();
      return absl::OkStatus();
    case tensorflow::AttrValue::kI:
      out->type = TSR_ATTR_TYPE_INT;
      out->i = value.i();
      return absl::OkStatus();
    case tensorflow::AttrValue::kF:
      out->type = TSR_ATTR_TYPE_FLOAT;
      out->f = value.f();
      return absl::OkStatus();
    case tensorflow::AttrValue::kB:
      out->type = TSR_ATTR_TYPE_BOOL;
      out->b = value.b();
      return absl::OkStatus();
    case tensorflow::AttrValue::kType:
      out->type = TSR_ATTR_TYPE_TYPE;
      out->dtype = static_cast<TSR_DataType>(value.type());
      return absl::OkStatus();
    case tensorflow::AttrValue::kShape:
      out->type = TSR_ATTR_TYPE_SHAPE;
      out->shape_dims = ShapeDims(value.shape(), scratch, &out->shape_rank);
      return absl::OkStatus();
    case tensorflow::AttrValue::kTensor:
      out->type = TSR_ATTR_TYPE_TENSOR;
      return FillTensor(value.tensor(), scratch, &out->tensor);
    case tensorflow::AttrValue::kList:
      return FillList(value.list(), scratch, depth, out);
    case tensorflow::AttrValue::kFunc: {
      out->type = TSR_ATTR_TYPE_FUNC;
      TSR_FuncAttr& func = scratch->funcs.emplace_back(1)[0];
      RETURN_IF_ERROR(FillFunc(value.func(), scratch, depth, &func));
      out->func = &func;
      out->list_size = 1;
      return absl::OkStatus();
    }
    case tensorflow::AttrValue::kPlaceholder:
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute is the unresolved placeholder '$", value.placeholder(),
          "' (only function bodies may hold placeholders)"));
    default:
      return absl::InvalidArgumentError(absl::StrCat("attribute of kind ",
                                                     static_cast<int>(value.value_case()),
                                                     " cannot be passed to a plugin"));
  }
}

}  // namespace

absl::Status FillAbiAttrValue(const tensorflow::AttrValue& value, AttrScratch* scratch,
                              TSR_AttrValue* out) {
  return FillValue(value, scratch, 0, out);
}

}  // namespace tessera
