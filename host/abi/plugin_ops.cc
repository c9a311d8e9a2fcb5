// Plugin-defined ops and the host side of the ABI's shape-inference context.
#include "host/abi/plugin_ops.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/abi/abi_attr_value.h"
#include "host/framework/tensor_proto_util.h"
#include "host/ops/attr_util.h"
#include "host/runtime/packed_strings.h"

// The bridge a plugin's shape function sees: the node's context, the host table whose statuses
// it uses, and storage for values lent to the plugin for the duration of the call.
struct TSR_ShapeContext {
  tessera::ShapeInferenceContext* ctx;
  const TSR_HostApi* host;
  std::deque<tessera::Tensor> tensor_storage;
  tessera::AttrScratch scratch;
};

namespace tessera {
namespace {

// TensorFlow's spelling of an attr type (registry/specs.h), or nullptr for a value that names
// no type (unspecified, or out of range).
const char* AttrTypeString(TSR_AttrType type) {
  if (type <= TSR_ATTR_TYPE_UNSPECIFIED || type > TSR_ATTR_TYPE_LIST_FUNC) return nullptr;
  return AttrTypeName(type);
}

absl::StatusOr<tensorflow::AttrValue> AttrValueFromData(const AttrData& data) {
  tensorflow::AttrValue value;
  switch (data.type) {
    case TSR_ATTR_TYPE_STRING:
      value.set_s(data.s);
      break;
    case TSR_ATTR_TYPE_INT:
      value.set_i(data.i);
      break;
    case TSR_ATTR_TYPE_FLOAT:
      value.set_f(data.f);
      break;
    case TSR_ATTR_TYPE_BOOL:
      value.set_b(data.b);
      break;
    case TSR_ATTR_TYPE_TYPE:
      value.set_type(static_cast<tensorflow::DataType>(data.dtype));
      break;
    case TSR_ATTR_TYPE_SHAPE:
      if (data.shape_rank < 0) {
        value.mutable_shape()->set_unknown_rank(true);
      } else {
        for (int64_t d : data.shape_dims) value.mutable_shape()->add_dim()->set_size(d);
      }
      break;
    case TSR_ATTR_TYPE_LIST_STRING:
      value.mutable_list();
      for (const std::string& s : data.list_s) value.mutable_list()->add_s(s);
      break;
    case TSR_ATTR_TYPE_LIST_SHAPE:
      value.mutable_list();
      for (const auto& [rank, dims] : data.list_shape) {
        tensorflow::TensorShapeProto* shape = value.mutable_list()->add_shape();
        if (rank < 0) {
          shape->set_unknown_rank(true);
        } else {
          for (int64_t d : dims) shape->add_dim()->set_size(d);
        }
      }
      break;
    case TSR_ATTR_TYPE_LIST_INT:
      value.mutable_list();
      for (int64_t i : data.list_i) value.mutable_list()->add_i(i);
      break;
    case TSR_ATTR_TYPE_LIST_FLOAT:
      value.mutable_list();
      for (float f : data.list_f) value.mutable_list()->add_f(f);
      break;
    case TSR_ATTR_TYPE_LIST_BOOL:
      value.mutable_list();
      for (bool b : data.list_b) value.mutable_list()->add_b(b);
      break;
    case TSR_ATTR_TYPE_LIST_TYPE:
      value.mutable_list();
      for (TSR_DataType t : data.list_type) {
        value.mutable_list()->add_type(static_cast<tensorflow::DataType>(t));
      }
      break;
    case TSR_ATTR_TYPE_TENSOR:
    case TSR_ATTR_TYPE_FUNC:
    case TSR_ATTR_TYPE_LIST_TENSOR:
    case TSR_ATTR_TYPE_LIST_FUNC:
    case TSR_ATTR_TYPE_UNSPECIFIED:
      return absl::InvalidArgumentError(
          absl::StrCat("a default value of type ",
                       AttrTypeString(data.type) ? AttrTypeString(data.type) : "unspecified",
                       " cannot be given through the ABI"));
  }
  return value;
}

void ArgFromSpec(const OpArgSpec& spec, tensorflow::OpDef::ArgDef* arg) {
  arg->set_name(spec.name);
  arg->set_type(static_cast<tensorflow::DataType>(spec.dtype));
  arg->set_type_attr(spec.type_attr);
  arg->set_number_attr(spec.number_attr);
  arg->set_type_list_attr(spec.type_list_attr);
  arg->set_is_ref(spec.is_ref);
}

TSR_Status* MakeStatus(const TSR_ShapeContext* bridge, TSR_Code code, const std::string& message) {
  return bridge->host->Status_Create(code, message.c_str());
}

// ---- The ShapeContext_* slots. ----

int32_t NumInputs(const TSR_ShapeContext* bridge) { return bridge->ctx->num_inputs(); }

int32_t NumOutputs(const TSR_ShapeContext* bridge) { return bridge->ctx->num_outputs(); }

TSR_Status* GetInputShape(const TSR_ShapeContext* bridge, int32_t index, int32_t* rank,
                          const int64_t** dims) {
  if (index < 0 || index >= bridge->ctx->num_inputs()) {
    return MakeStatus(
        bridge, TSR_CODE_INVALID_ARGUMENT,
        absl::StrCat("input index ", index, " is out of range: node '", bridge->ctx->node_name(),
                     "' has ", bridge->ctx->num_inputs(), " inputs"));
  }
  const PartialShape& shape = bridge->ctx->input(index);
  *rank = shape.rank();
  *dims = shape.rank_known() ? shape.dims().data() : nullptr;
  return nullptr;
}

bool GetInputConstant(const TSR_ShapeContext* bridge, int32_t index, TSR_TensorView* value) {
  if (index < 0 || index >= bridge->ctx->num_inputs()) return false;
  const Tensor* tensor = bridge->ctx->input_tensor(index);
  if (tensor == nullptr || value == nullptr) return false;
  const size_t size = value->struct_size;
  std::memset(value, 0, std::min(size, sizeof(TSR_TensorView)));
  value->struct_size = size;
  if (TSR_STRUCT_HAS_FIELD(value, TSR_TensorView, dtype)) value->dtype = tensor->dtype();
  if (TSR_STRUCT_HAS_FIELD(value, TSR_TensorView, rank)) value->rank = tensor->shape().rank();
  if (TSR_STRUCT_HAS_FIELD(value, TSR_TensorView, dims)) value->dims = tensor->shape().data();
  const Tensor* bytes = tensor;
  if (tensor->dtype() == TSR_DTYPE_STRING) {
    absl::StatusOr<Tensor> packed = PackStringsToBuffer(*tensor);
    if (!packed.ok()) return false;
    auto* bridge_storage = const_cast<TSR_ShapeContext*>(bridge);
    bridge_storage->tensor_storage.push_back(std::move(*packed));
    bytes = &bridge_storage->tensor_storage.back();
  }
  if (TSR_STRUCT_HAS_FIELD(value, TSR_TensorView, data)) value->data = bytes->data();
  if (TSR_STRUCT_HAS_FIELD(value, TSR_TensorView, byte_size)) {
    value->byte_size = tensor->dtype() == TSR_DTYPE_STRING
                           ? static_cast<size_t>(bytes->NumElements())
                           : tensor->TotalBytes();
  }
  return true;
}

TSR_Status* GetAttr(const TSR_ShapeContext* const_bridge, const char* name, TSR_AttrValue* value) {
  auto* bridge = const_cast<TSR_ShapeContext*>(const_bridge);
  const tensorflow::AttrValue* attr = name == nullptr ? nullptr : bridge->ctx->attr(name);
  if (attr == nullptr) {
    return MakeStatus(bridge, TSR_CODE_NOT_FOUND,
                      absl::StrCat("node '", bridge->ctx->node_name(), "' (", bridge->ctx->op(),
                                   ") has no attr '", name == nullptr ? "(null)" : name, "'"));
  }
  if (value == nullptr || value->struct_size < TSR_STRUCT_SIZE(TSR_AttrValue, list_type)) {
    return MakeStatus(bridge, TSR_CODE_INVALID_ARGUMENT,
                      "TSR_AttrValue is NULL or has a struct_size smaller than its first "
                      "version's");
  }
  TSR_AttrValue filled{};
  absl::Status status = FillAbiAttrValue(*attr, &bridge->scratch, &filled);
  if (!status.ok()) {
    return MakeStatus(bridge, static_cast<TSR_Code>(status.code()),
                      absl::StrCat("attr '", name, "' of node '", bridge->ctx->node_name(),
                                   "': ", status.message()));
  }
  const size_t size = value->struct_size;
  std::memcpy(value, &filled, std::min(size, sizeof(TSR_AttrValue)));
  value->struct_size = size;
  return nullptr;
}

TSR_Status* SetOutputShape(TSR_ShapeContext* bridge, int32_t index, int32_t rank,
                           const int64_t* dims) {
  if (index < 0 || index >= bridge->ctx->num_outputs()) {
    return MakeStatus(
        bridge, TSR_CODE_INVALID_ARGUMENT,
        absl::StrCat("output index ", index, " is out of range: node '", bridge->ctx->node_name(),
                     "' has ", bridge->ctx->num_outputs(), " outputs"));
  }
  if (rank < -1 || rank > TSR_MAX_RANK) {
    return MakeStatus(
        bridge, TSR_CODE_INVALID_ARGUMENT,
        absl::StrCat("output rank ", rank, " is invalid: expected -1 (unknown) to ", TSR_MAX_RANK));
  }
  if (rank == -1) {
    bridge->ctx->set_output(index, PartialShape::Unknown());
    return nullptr;
  }
  if (rank > 0 && dims == nullptr) {
    return MakeStatus(bridge, TSR_CODE_INVALID_ARGUMENT,
                      absl::StrCat("output shape of rank ", rank, " has NULL dims"));
  }
  PartialShape shape = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < kUnknownDim) {
      return MakeStatus(bridge, TSR_CODE_INVALID_ARGUMENT,
                        absl::StrCat("output dimension ", i, " is ", dims[i],
                                     ", expected >= 0 or -1 for unknown"));
    }
    shape.AddDim(dims[i]);
  }
  bridge->ctx->set_output(index, std::move(shape));
  return nullptr;
}

}  // namespace

absl::StatusOr<tensorflow::OpDef> OpDefFromSpec(const OpSpec& spec) {
  tensorflow::OpDef def;
  def.set_name(spec.name);
  for (const OpArgSpec& arg : spec.inputs) ArgFromSpec(arg, def.add_input_arg());
  for (const OpArgSpec& arg : spec.outputs) ArgFromSpec(arg, def.add_output_arg());
  for (const OpAttrSpec& attr_spec : spec.attrs) {
    tensorflow::OpDef::AttrDef* attr = def.add_attr();
    attr->set_name(attr_spec.name);
    const char* type = AttrTypeString(attr_spec.type);
    if (type == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("op '", spec.name, "': attr '", attr_spec.name, "' has no type"));
    }
    attr->set_type(type);
    if (attr_spec.default_value.has_value()) {
      absl::StatusOr<tensorflow::AttrValue> value = AttrValueFromData(*attr_spec.default_value);
      if (!value.ok()) {
        return WithContext(value.status(),
                           absl::StrCat("op '", spec.name, "': attr '", attr_spec.name, "'"));
      }
      *attr->mutable_default_value() = *std::move(value);
    }
    if (!attr_spec.allowed_types.empty()) {
      *attr->mutable_allowed_values() = TypeListAttrValue(attr_spec.allowed_types);
    }
    attr->set_has_minimum(attr_spec.has_minimum);
    attr->set_minimum(attr_spec.minimum);
  }
  def.set_is_stateful((spec.flags & TSR_OP_FLAG_STATEFUL) != 0);
  def.set_is_commutative((spec.flags & TSR_OP_FLAG_COMMUTATIVE) != 0);
  def.set_is_aggregate((spec.flags & TSR_OP_FLAG_AGGREGATE) != 0);
  return def;
}

absl::Status RegisterPluginOps(const std::vector<OpSpec>& specs, const TSR_HostApi& host,
                               OpRegistry* registry) {
  absl::Status first_error;
  for (const OpSpec& spec : specs) {
    const std::string origin = absl::StrCat("plugin '", spec.origin.plugin_name, "'");
    absl::StatusOr<tensorflow::OpDef> def = OpDefFromSpec(spec);
    if (!def.ok()) {
      if (first_error.ok()) first_error = WithContext(def.status(), origin);
      continue;
    }
    OpRegistration registration;
    registration.op_def = *std::move(def);
    registration.origin = origin;
    if (spec.shape_fn != nullptr) {
      const TSR_HostApi* host_ptr = &host;
      const std::string context =
          absl::StrCat("shape function of op '", spec.name, "' from ", origin);
      registration.shape_fn = [fn = spec.shape_fn, user_data = spec.shape_fn_user_data, host_ptr,
                               context](ShapeInferenceContext& ctx) -> absl::Status {
        TSR_ShapeContext bridge{&ctx, host_ptr, {}, {}};
        TSR_Status* status = fn(user_data, &bridge);
        if (status == nullptr) return absl::OkStatus();
        const TSR_Code code = host_ptr->Status_GetCode(status);
        const char* message = host_ptr->Status_GetMessage(status);
        const bool canonical = code > TSR_CODE_OK && code <= TSR_CODE_UNAUTHENTICATED;
        absl::Status result(
            canonical ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown,
            absl::StrCat(context, ": ", message == nullptr ? "" : message));
        host_ptr->Status_Destroy(status);
        return result;
      };
    }
    absl::Status status = registry->Register(std::move(registration));
    if (!status.ok() && first_error.ok()) first_error = status;
  }
  return first_error;
}

void FillShapeContextSlots(TSR_HostApi* table) {
  table->ShapeContext_NumInputs = NumInputs;
  table->ShapeContext_NumOutputs = NumOutputs;
  table->ShapeContext_GetInputShape = GetInputShape;
  table->ShapeContext_GetInputConstant = GetInputConstant;
  table->ShapeContext_GetAttr = GetAttr;
  table->ShapeContext_SetOutputShape = SetOutputShape;
}

}  // namespace tessera
