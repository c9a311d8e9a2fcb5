// What plugins register, as owning C++ values: device types, ops, kernels and transports.
// Every spec keeps the library it came from alive and names its plugin.
#ifndef TESSERA_REGISTRY_SPECS_H_
#define TESSERA_REGISTRY_SPECS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

class PluginLibrary;  // a loaded shared object (or an in-process plugin); never unloaded early
class PluginDevice;   // device_handle.h

// Where a registration came from. `library` keeps the code alive while the spec lives.
struct PluginOrigin {
  std::string plugin_name;
  int32_t plugin_priority = 0;  // the manifest's priority
  std::shared_ptr<const PluginLibrary> library;
};

// ---------------------------------------------------------------------------------------------
// Device types
// ---------------------------------------------------------------------------------------------

// Options passed to Device_Create (from session options).
using DeviceOptions = std::map<std::string, std::string>;

struct DeviceTypeSpec {
  std::string device_type;  // e.g. "CPU"
  int32_t priority = 0;     // placement preference among device types
  uint32_t flags = 0;       // TSR_DeviceFlag bits
  // A copy normalised to the host's struct size: slots an older plugin lacks are NULL, a newer
  // plugin's extra tail is dropped. `struct_size` is the host's; `device_type` is NULL here (the
  // plugin's string is borrowed; use the member above).
  TSR_DeviceTypeRegistration registration{};
  // The TSR_EXTENSION_TYPE_DEVICE_PROFILING extension, copied (all NULL when absent).
  TSR_DeviceProfilingExtension profiling{};
  PluginOrigin origin;
  // Ranking among the providers of `device_type` (set by PluginRegistry): the active provider
  // serves the type; the others are shadowed, with the reason.
  bool active = true;
  std::string shadowed_reason;
  // For an active provider the user preferred: the setting that chose it
  // ("--plugin-prefer GPU=acme-gpu"); "" otherwise.
  std::string preferred_by;
  // Serialises every call into this registration when TSR_DEVICE_FLAG_SERIALIZE_CALLS is set.
  std::shared_ptr<std::mutex> call_mutex = std::make_shared<std::mutex>();

  // Asks the plugin how many devices of this type exist (GetDeviceCount).
  absl::StatusOr<int> DeviceCount() const;
  // How many devices to create when the configuration asks for `requested` (-1: it says
  // nothing; 0: none, without asking the plugin). GetDeviceCountForConfig when the plugin has
  // it, otherwise GetDeviceCount capped at `requested`. INVALID_ARGUMENT for `requested` < -1;
  // the plugin's own errors with the context "device type 'CPU' from plugin 'cpu' <slot>";
  // INTERNAL for a negative answer or one above `requested`.
  absl::StatusOr<int> DeviceCountForConfig(int requested) const;
  // Creates device `ordinal` (Device_Create), which must be below
  // DeviceCountForConfig(requested_count) (OUT_OF_RANGE otherwise); implemented in
  // device_handle.cc.
  absl::StatusOr<std::unique_ptr<PluginDevice>> CreateDevice(int ordinal,
                                                             const DeviceOptions& options = {},
                                                             int requested_count = -1) const;
};

// Validates and copies a plugin's registration (INVALID_ARGUMENT naming a missing required slot
// or a bad field).
absl::StatusOr<DeviceTypeSpec> MakeDeviceTypeSpec(const TSR_DeviceTypeRegistration& registration,
                                                  PluginOrigin origin);

// ---------------------------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------------------------

// An owning copy of a TSR_AttrValue. Only the members `type` names are meaningful.
struct AttrData {
  TSR_AttrType type = TSR_ATTR_TYPE_UNSPECIFIED;
  int64_t i = 0;
  float f = 0;
  bool b = false;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::string s;
  int32_t shape_rank = -1;
  std::vector<int64_t> shape_dims;
  std::vector<int64_t> list_i;
  std::vector<float> list_f;
  std::vector<bool> list_b;
  std::vector<TSR_DataType> list_type;
  std::vector<std::string> list_s;
  // LIST_SHAPE: rank (-1 unknown) and dims of each.
  std::vector<std::pair<int32_t, std::vector<int64_t>>> list_shape;

  // Copies `value` (INVALID_ARGUMENT for inconsistent values; UNIMPLEMENTED for the kinds an op
  // default cannot have: tensor, func, list(tensor), list(func)).
  static absl::StatusOr<AttrData> FromAbi(const TSR_AttrValue& value);

  bool operator==(const AttrData& other) const;
};

// Name of an attribute type as TensorFlow spells it: "int", "list(type)", ...
const char* AttrTypeName(TSR_AttrType type);
// True for the list(...) attr types.
bool IsListAttrType(TSR_AttrType type);

struct OpArgSpec {
  std::string name;
  TSR_DataType dtype = TSR_DTYPE_INVALID;  // fixed type, or INVALID
  std::string type_attr;                   // or empty
  std::string number_attr;                 // or empty
  std::string type_list_attr;              // or empty
  bool is_ref = false;
};

struct OpAttrSpec {
  std::string name;
  TSR_AttrType type = TSR_ATTR_TYPE_UNSPECIFIED;
  std::optional<AttrData> default_value;    // nullopt: required
  std::vector<TSR_DataType> allowed_types;  // empty: any
  bool has_minimum = false;
  int64_t minimum = 0;
};

struct OpSpec {
  std::string name;
  std::vector<OpArgSpec> inputs;
  std::vector<OpArgSpec> outputs;
  std::vector<OpAttrSpec> attrs;
  uint32_t flags = 0;              // TSR_OpFlag bits
  TSR_ShapeFn shape_fn = nullptr;  // NULL: the host cannot infer output shapes statically
  void* shape_fn_user_data = nullptr;
  PluginOrigin origin;

  const OpAttrSpec* FindAttr(const std::string& attr_name) const;
};

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

struct KernelSpec {
  std::string op_name;
  std::string device_type;
  std::map<std::string, std::vector<TSR_DataType>> type_constraints;  // attr -> allowed dtypes
  std::vector<std::string> host_memory_args;
  int32_t priority = 0;
  uint32_t flags = 0;  // TSR_KernelFlag bits
  void* user_data = nullptr;
  TSR_Status* (*create)(void* user_data, TSR_KernelConstruction* ctx, void** state) = nullptr;
  TSR_Status* (*compute)(void* state, TSR_KernelContext* ctx) = nullptr;
  void (*compute_async)(void* state, TSR_KernelContext* ctx, TSR_KernelDoneFn done,
                        void* done_arg) = nullptr;
  void (*destroy)(void* state) = nullptr;
  PluginOrigin origin;

  bool is_async() const { return (flags & TSR_KERNEL_FLAG_ASYNC) != 0; }
  // "kernel for 'MatMul' from plugin 'cpu'": the context of every error from this kernel.
  std::string Describe() const;
};

// Validates and copies a kernel registration: the ASYNC flag needs Compute_Async, otherwise
// Compute is required; Create needs Destroy.
absl::StatusOr<KernelSpec> MakeKernelSpec(const TSR_KernelRegistration& registration,
                                          PluginOrigin origin);

// ---------------------------------------------------------------------------------------------
// Transports
// ---------------------------------------------------------------------------------------------

struct TransportSpec {
  std::string name;           // e.g. "grpc"
  uint32_t capabilities = 0;  // TSR_TransportCapability bits
  // Normalised copy, as for DeviceTypeSpec; `name` is NULL here (use the member above).
  TSR_TransportRegistration registration{};
  // The TSR_EXTENSION_TYPE_TRANSPORT_RMA extension, copied (all NULL when absent).
  TSR_TransportRmaExtension rma{};
  PluginOrigin origin;
};

// Validates and copies a transport registration (a transport with TSR_TRANSPORT_CAPABILITY_RMA
// must provide the TSR_EXTENSION_TYPE_TRANSPORT_RMA extension with both slots).
absl::StatusOr<TransportSpec> MakeTransportSpec(const TSR_TransportRegistration& registration,
                                                PluginOrigin origin);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_SPECS_H_
