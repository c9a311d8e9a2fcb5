// Validation and copying of plugin registrations into specs.
#include "registry/specs.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "registry/abi_values.h"

namespace tessera {
namespace {

// A copy of a size-prefixed struct as the host's version of it: a smaller struct leaves the
// missing tail zero (NULL slots); a larger one's tail is ignored.
template <typename T>
T NormalizedCopy(const T& in) {
  T out;
  std::memset(&out, 0, sizeof(out));
  std::memcpy(&out, &in, std::min(in.struct_size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

bool IsDeviceTypeName(absl::string_view name) {
  if (name.empty() || !(name[0] >= 'A' && name[0] <= 'Z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool IsTransportName(absl::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
           c == '.';
  });
}

struct Slot {
  const char* name;
  bool present;
};

absl::Status RequireSlots(absl::string_view what, std::initializer_list<Slot> slots) {
  for (const Slot& slot : slots) {
    if (!slot.present) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": required slot '", slot.name, "' is NULL"));
    }
  }
  return absl::OkStatus();
}

// Optional slots that only make sense together: all set or all NULL.
absl::Status RequireTogether(absl::string_view what, std::initializer_list<Slot> slots) {
  const bool any = std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.present; });
  if (!any) return absl::OkStatus();
  for (const Slot& slot : slots) {
    if (!slot.present) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": slot '", slot.name, "' is NULL but other slots of its group are set"));
    }
  }
  return absl::OkStatus();
}

// Longest extension list a registration may have (a longer one is taken for a cycle).
constexpr int kMaxExtensions = 64;

// Copies the extension of `type` from the list at `start` into `*out` (a zeroed struct of
// `out_size` bytes starting with TSR_Extension): as many bytes as both sides have (a plugin's
// shorter struct leaves the tail NULL, a longer one's tail is dropped), then struct_size says
// the host's size and `next` is cleared. A missing extension leaves `*out` zeroed. INVALID_ARGUMENT for an extension whose struct_size is
// smaller than its header, a type given twice, or a list that does not end.
absl::Status CopyExtension(const std::string& what, const TSR_Extension* start, int32_t type,
                           void* out, size_t out_size) {
  bool found = false;
  int count = 0;
  for (const TSR_Extension* e = start; e != nullptr; e = e->next) {
    if (++count > kMaxExtensions) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the extension list has more than ", kMaxExtensions, " entries (a cycle?)"));
    }
    if (e->struct_size < sizeof(TSR_Extension)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": extension ", count,
                                                     " has struct_size ", e->struct_size,
                                                     ", smaller than its header (",
                                                     sizeof(TSR_Extension), ")"));
    }
    if (e->type != type) continue;
    if (found) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": extension type ", type, " appears twice"));
    }
    found = true;
    std::memcpy(out, e, std::min(out_size, e->struct_size));
    auto* header = static_cast<TSR_Extension*>(out);
    header->struct_size = out_size;
    header->next = nullptr;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceTypeSpec> MakeDeviceTypeSpec(const TSR_DeviceTypeRegistration& registration,
                                                  PluginOrigin origin) {
  const TSR_DeviceTypeRegistration r = NormalizedCopy(registration);
  if (r.device_type == nullptr || !IsDeviceTypeName(r.device_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device type registration: device_type ",
        r.device_type == nullptr ? std::string("NULL") : absl::StrCat("'", r.device_type, "'"),
        " does not match [A-Z][A-Z0-9_]*"));
  }
  const std::string what = absl::StrCat("device type '", r.device_type, "' registration");
  RETURN_IF_ERROR(
      RequireSlots(what, {{"GetDeviceCount", r.GetDeviceCount != nullptr},
                          {"Device_Create", r.Device_Create != nullptr},
                          {"Device_Destroy", r.Device_Destroy != nullptr},
                          {"Memory_Allocate", r.Memory_Allocate != nullptr},
                          {"Memory_Free", r.Memory_Free != nullptr},
                          {"Memcpy_HostToDevice", r.Memcpy_HostToDevice != nullptr},
                          {"Memcpy_DeviceToHost", r.Memcpy_DeviceToHost != nullptr},
                          {"Memcpy_DeviceToDevice", r.Memcpy_DeviceToDevice != nullptr}}));
  RETURN_IF_ERROR(RequireTogether(what, {{"Stream_Create", r.Stream_Create != nullptr},
                                         {"Stream_Destroy", r.Stream_Destroy != nullptr},
                                         {"Stream_Synchronize", r.Stream_Synchronize != nullptr},
                                         {"Stream_WaitEvent", r.Stream_WaitEvent != nullptr},
                                         {"Event_Create", r.Event_Create != nullptr},
                                         {"Event_Destroy", r.Event_Destroy != nullptr},
                                         {"Event_Record", r.Event_Record != nullptr},
                                         {"Event_Query", r.Event_Query != nullptr},
                                         {"Event_Synchronize", r.Event_Synchronize != nullptr}}));
  DeviceTypeSpec spec;
  RETURN_IF_ERROR(CopyExtension(what, r.extension_start, TSR_EXTENSION_TYPE_DEVICE_PROFILING,
                                &spec.profiling, sizeof(spec.profiling)));
  if (spec.profiling.base.struct_size != 0) {
    if (r.Event_Create == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the device profiling extension needs events, and the type has none"));
    }
    RETURN_IF_ERROR(RequireSlots(absl::StrCat(what, " (device profiling extension)"),
                                 {{"Event_ElapsedMicros",
                                   spec.profiling.Event_ElapsedMicros != nullptr}}));
  }
  spec.device_type = r.device_type;
  spec.priority = r.priority;
  spec.flags = r.flags;
  spec.registration = r;
  spec.registration.device_type = nullptr;
  spec.registration.extension_start = nullptr;
  spec.origin = std::move(origin);
  return spec;
}

bool IsListAttrType(TSR_AttrType type) {
  return (type >= TSR_ATTR_TYPE_LIST_STRING && type <= TSR_ATTR_TYPE_LIST_SHAPE) ||
         type == TSR_ATTR_TYPE_LIST_TENSOR || type == TSR_ATTR_TYPE_LIST_FUNC;
}

const char* AttrTypeName(TSR_AttrType type) {
  switch (type) {
    case TSR_ATTR_TYPE_UNSPECIFIED:
      return "unspecified";
    case TSR_ATTR_TYPE_STRING:
      return "string";
    case TSR_ATTR_TYPE_INT:
      return "int";
    case TSR_ATTR_TYPE_FLOAT:
      return "float";
    case TSR_ATTR_TYPE_BOOL:
      return "bool";
    case TSR_ATTR_TYPE_TYPE:
      return "type";
    case TSR_ATTR_TYPE_SHAPE:
      return "shape";
    case TSR_ATTR_TYPE_TENSOR:
      return "tensor";
    case TSR_ATTR_TYPE_LIST_STRING:
      return "list(string)";
    case TSR_ATTR_TYPE_LIST_INT:
      return "list(int)";
    case TSR_ATTR_TYPE_LIST_FLOAT:
      return "list(float)";
    case TSR_ATTR_TYPE_LIST_BOOL:
      return "list(bool)";
    case TSR_ATTR_TYPE_LIST_TYPE:
      return "list(type)";
    case TSR_ATTR_TYPE_LIST_SHAPE:
      return "list(shape)";
    case TSR_ATTR_TYPE_FUNC:
      return "func";
    case TSR_ATTR_TYPE_LIST_TENSOR:
      return "list(tensor)";
    case TSR_ATTR_TYPE_LIST_FUNC:
      return "list(func)";
  }
  return "invalid";
}

absl::StatusOr<AttrData> AttrData::FromAbi(const TSR_AttrValue& value) {
  const int raw_type = RawEnumValue(value.type);
  if (raw_type <= TSR_ATTR_TYPE_UNSPECIFIED || raw_type > TSR_ATTR_TYPE_LIST_FUNC) {
    return absl::InvalidArgumentError(absl::StrCat("attr value has invalid type ", raw_type));
  }
  AttrData data;
  data.type = static_cast<TSR_AttrType>(raw_type);
  auto null_error = [&](const char* member) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr value of type ", AttrTypeName(data.type), ": '", member, "' is NULL but ",
        IsListAttrType(data.type) ? "list_size" : "size", " is nonzero"));
  };
  auto bad_dtype = [&](int raw) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr value of type ", AttrTypeName(data.type), ": invalid dtype ", raw));
  };
  switch (data.type) {
    case TSR_ATTR_TYPE_STRING:
      if (value.s == nullptr && value.s_size != 0) return null_error("s");
      data.s.assign(value.s == nullptr ? "" : value.s, value.s_size);
      break;
    case TSR_ATTR_TYPE_INT:
      data.i = value.i;
      break;
    case TSR_ATTR_TYPE_FLOAT:
      data.f = value.f;
      break;
    case TSR_ATTR_TYPE_BOOL:
      data.b = value.b;
      break;
    case TSR_ATTR_TYPE_TYPE: {
      const int raw = RawEnumValue(value.dtype);
      if (!IsValidDataType(raw)) return bad_dtype(raw);
      data.dtype = static_cast<TSR_DataType>(raw);
      break;
    }
    case TSR_ATTR_TYPE_SHAPE:
      if (value.shape_rank < -1 || value.shape_rank > TSR_MAX_RANK) {
        return absl::InvalidArgumentError(absl::StrCat("attr value of type shape: rank ",
                                                       value.shape_rank, " is outside [-1, ",
                                                       TSR_MAX_RANK, "]"));
      }
      data.shape_rank = value.shape_rank;
      if (value.shape_rank > 0) {
        if (value.shape_dims == nullptr) {
          return absl::InvalidArgumentError(
              "attr value of type shape: 'shape_dims' is NULL but shape_rank is positive");
        }
        data.shape_dims.assign(value.shape_dims, value.shape_dims + value.shape_rank);
      }
      break;
    case TSR_ATTR_TYPE_LIST_INT:
      if (value.list_size != 0 && value.list_i == nullptr) return null_error("list_i");
      if (value.list_size != 0) data.list_i.assign(value.list_i, value.list_i + value.list_size);
      break;
    case TSR_ATTR_TYPE_LIST_FLOAT:
      if (value.list_size != 0 && value.list_f == nullptr) return null_error("list_f");
      if (value.list_size != 0) data.list_f.assign(value.list_f, value.list_f + value.list_size);
      break;
    case TSR_ATTR_TYPE_LIST_BOOL:
      if (value.list_size != 0 && value.list_b == nullptr) return null_error("list_b");
      if (value.list_size != 0) data.list_b.assign(value.list_b, value.list_b + value.list_size);
      break;
    case TSR_ATTR_TYPE_LIST_TYPE:
      if (value.list_size != 0 && value.list_type == nullptr) return null_error("list_type");
      for (size_t i = 0; i < value.list_size; ++i) {
        const int raw = RawEnumValue(value.list_type[i]);
        if (!IsValidDataType(raw)) return bad_dtype(raw);
        data.list_type.push_back(static_cast<TSR_DataType>(raw));
      }
      break;
    case TSR_ATTR_TYPE_LIST_STRING:
      if (value.list_size != 0 && (value.list_s == nullptr || value.list_s_size == nullptr)) {
        return null_error(value.list_s == nullptr ? "list_s" : "list_s_size");
      }
      for (size_t i = 0; i < value.list_size; ++i) {
        if (value.list_s[i] == nullptr && value.list_s_size[i] != 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "attr value of type list(string): element ", i, " is NULL but its size is ",
              value.list_s_size[i]));
        }
        data.list_s.emplace_back(value.list_s[i] == nullptr ? "" : value.list_s[i],
                                 value.list_s_size[i]);
      }
      break;
    case TSR_ATTR_TYPE_LIST_SHAPE:
      if (value.list_size != 0 &&
          (value.list_shape_rank == nullptr || value.list_shape_dims == nullptr)) {
        return null_error(value.list_shape_rank == nullptr ? "list_shape_rank"
                                                           : "list_shape_dims");
      }
      for (size_t i = 0; i < value.list_size; ++i) {
        const int32_t rank = value.list_shape_rank[i];
        if (rank < -1 || rank > TSR_MAX_RANK) {
          return absl::InvalidArgumentError(absl::StrCat("attr value of type list(shape): rank ",
                                                         rank, " of element ", i,
                                                         " is outside [-1, ", TSR_MAX_RANK, "]"));
        }
        if (rank > 0 && value.list_shape_dims[i] == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              "attr value of type list(shape): element ", i, " has rank ", rank, " but no dims"));
        }
        std::vector<int64_t> dims;
        if (rank > 0) dims.assign(value.list_shape_dims[i], value.list_shape_dims[i] + rank);
        data.list_shape.emplace_back(rank, std::move(dims));
      }
      break;
    case TSR_ATTR_TYPE_TENSOR:
    case TSR_ATTR_TYPE_FUNC:
    case TSR_ATTR_TYPE_LIST_TENSOR:
    case TSR_ATTR_TYPE_LIST_FUNC:
      return absl::UnimplementedError(
          absl::StrCat("an op attribute of type ", AttrTypeName(data.type),
                       " cannot have a default value; declare it without one"));
    case TSR_ATTR_TYPE_UNSPECIFIED:
      break;  // refused above
  }
  return data;
}

bool AttrData::operator==(const AttrData& other) const {
  return type == other.type && i == other.i && f == other.f && b == other.b &&
         dtype == other.dtype && s == other.s && shape_rank == other.shape_rank &&
         shape_dims == other.shape_dims && list_i == other.list_i && list_f == other.list_f &&
         list_b == other.list_b && list_type == other.list_type && list_s == other.list_s &&
         list_shape == other.list_shape;
}

const OpAttrSpec* OpSpec::FindAttr(const std::string& attr_name) const {
  for (const OpAttrSpec& attr : attrs) {
    if (attr.name == attr_name) return &attr;
  }
  return nullptr;
}

std::string KernelSpec::Describe() const {
  return absl::StrCat("kernel for '", op_name, "' from plugin '", origin.plugin_name, "'");
}

absl::StatusOr<KernelSpec> MakeKernelSpec(const TSR_KernelRegistration& registration,
                                          PluginOrigin origin) {
  const TSR_KernelRegistration r = NormalizedCopy(registration);
  if (r.op_name == nullptr || r.op_name[0] == '\0') {
    return absl::InvalidArgumentError("kernel registration: op_name is NULL or empty");
  }
  const std::string what =
      absl::StrCat("kernel registration for op '", r.op_name, "' on device type '",
                   r.device_type == nullptr ? "(NULL)" : r.device_type, "'");
  if (r.device_type == nullptr || r.device_type[0] == '\0') {
    return absl::InvalidArgumentError(absl::StrCat(what, ": device_type is NULL or empty"));
  }
  KernelSpec spec;
  spec.op_name = r.op_name;
  spec.device_type = r.device_type;
  if (r.num_type_constraints != 0 && r.type_constraints == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": type_constraints is NULL but num_type_constraints is ", r.num_type_constraints));
  }
  for (size_t i = 0; i < r.num_type_constraints; ++i) {
    const TSR_TypeConstraint& c = r.type_constraints[i];
    if (c.attr_name == nullptr || c.attr_name[0] == '\0') {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": type constraint ", i, " has no attr_name"));
    }
    if (c.num_dtypes == 0 || c.dtypes == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": type constraint on '", c.attr_name, "' allows no dtypes"));
    }
    std::vector<TSR_DataType> dtypes;
    for (size_t j = 0; j < c.num_dtypes; ++j) {
      const int raw = RawEnumValue(c.dtypes[j]);
      if (!IsValidDataType(raw)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": type constraint on '", c.attr_name, "' has invalid dtype ", raw));
      }
      dtypes.push_back(static_cast<TSR_DataType>(raw));
    }
    auto [it, inserted] = spec.type_constraints.emplace(c.attr_name, std::move(dtypes));
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": attr '", c.attr_name, "' is constrained twice"));
    }
  }
  if (r.num_host_memory_args != 0 && r.host_memory_args == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": host_memory_args is NULL but num_host_memory_args is ", r.num_host_memory_args));
  }
  for (size_t i = 0; i < r.num_host_memory_args; ++i) {
    if (r.host_memory_args[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": host_memory_args[", i, "] is NULL"));
    }
    spec.host_memory_args.push_back(r.host_memory_args[i]);
  }
  if ((r.flags & TSR_KERNEL_FLAG_ASYNC) != 0) {
    RETURN_IF_ERROR(RequireSlots(absl::StrCat(what, " (async)"),
                                 {{"Compute_Async", r.Compute_Async != nullptr}}));
  } else {
    RETURN_IF_ERROR(RequireSlots(what, {{"Compute", r.Compute != nullptr}}));
  }
  if (r.Create != nullptr && r.Destroy == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": slot 'Destroy' is NULL but 'Create' is set (its state would leak)"));
  }
  spec.priority = r.priority;
  spec.flags = r.flags;
  spec.user_data = r.user_data;
  spec.create = r.Create;
  spec.compute = r.Compute;
  spec.compute_async = r.Compute_Async;
  spec.destroy = r.Destroy;
  spec.origin = std::move(origin);
  return spec;
}

absl::StatusOr<TransportSpec> MakeTransportSpec(const TSR_TransportRegistration& registration,
                                                PluginOrigin origin) {
  const TSR_TransportRegistration r = NormalizedCopy(registration);
  if (r.name == nullptr || !IsTransportName(r.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("transport registration: name ",
                     r.name == nullptr ? std::string("NULL") : absl::StrCat("'", r.name, "'"),
                     " does not match [a-z][a-z0-9_+.-]*"));
  }
  const std::string what = absl::StrCat("transport '", r.name, "' registration");
  RETURN_IF_ERROR(RequireSlots(what, {{"Server_Start", r.Server_Start != nullptr},
                                      {"Server_Address", r.Server_Address != nullptr},
                                      {"Server_Stop", r.Server_Stop != nullptr},
                                      {"Channel_Create", r.Channel_Create != nullptr},
                                      {"Channel_Destroy", r.Channel_Destroy != nullptr},
                                      {"Channel_Call", r.Channel_Call != nullptr},
                                      {"Channel_RecvTensor", r.Channel_RecvTensor != nullptr},
                                      {"Reply_Send", r.Reply_Send != nullptr},
                                      {"Reply_SendTensor", r.Reply_SendTensor != nullptr}}));
  TransportSpec spec;
  RETURN_IF_ERROR(CopyExtension(what, r.extension_start, TSR_EXTENSION_TYPE_TRANSPORT_RMA,
                                &spec.rma, sizeof(spec.rma)));
  const bool has_rma = spec.rma.base.struct_size != 0;
  if ((r.capabilities & TSR_TRANSPORT_CAPABILITY_RMA) != 0 && !has_rma) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": it has the RMA capability but no TSR_EXTENSION_TYPE_TRANSPORT_RMA extension"));
  }
  if (has_rma) {
    RETURN_IF_ERROR(
        RequireSlots(absl::StrCat(what, " (RMA extension)"),
                     {{"Memory_Register", spec.rma.Memory_Register != nullptr},
                      {"Memory_Deregister", spec.rma.Memory_Deregister != nullptr}}));
  }
  spec.name = r.name;
  spec.capabilities = r.capabilities;
  spec.registration = r;
  spec.registration.name = nullptr;
  spec.registration.extension_start = nullptr;
  spec.origin = std::move(origin);
  return spec;
}

}  // namespace tessera
