// FakeHost: a minimal hand-made TSR_HostApi that loads a plugin library with dlopen, records its
// registrations and runs its kernels on host tensors, so that the CPU plugin can be tested
// without the real host. Not thread-safe; one instance per process.
#ifndef TESSERA_PLUGINS_CPU_TESTING_FAKE_HOST_H_
#define TESSERA_PLUGINS_CPU_TESTING_FAKE_HOST_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/plugin_api/plugin.h"

namespace tessera::cpu::testing {

// A host-memory tensor: dtype, dims and a 64-byte-aligned buffer that outputs may share.
struct FakeTensor {
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::vector<int64_t> dims;
  std::shared_ptr<char> buffer;
  size_t byte_size = 0;

  static FakeTensor Allocate(TSR_DataType dtype, std::vector<int64_t> dims);
  template <typename T>
  static FakeTensor Make(TSR_DataType dtype, std::vector<int64_t> dims,
                         const std::vector<T>& values) {
    FakeTensor t = Allocate(dtype, std::move(dims));
    if (!values.empty()) std::memcpy(t.buffer.get(), values.data(), t.byte_size);
    return t;
  }
  int64_t num_elements() const;
  template <typename T>
  std::vector<T> values() const {
    std::vector<T> out(static_cast<size_t>(num_elements()));
    if (!out.empty()) std::memcpy(out.data(), buffer.get(), out.size() * sizeof(T));
    return out;
  }
};

// One attribute value for a fake node.
struct FakeAttr {
  TSR_AttrType type = TSR_ATTR_TYPE_UNSPECIFIED;
  int64_t i = 0;
  float f = 0;
  bool b = false;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::string s;
  std::vector<int64_t> list_i;  // LIST_INT, or SHAPE dims (rank -1: unknown)
  int32_t shape_rank = -1;
  FakeTensor tensor;

  static FakeAttr Int(int64_t v);
  static FakeAttr Bool(bool v);
  static FakeAttr Type(TSR_DataType v);
  static FakeAttr String(std::string v);
  static FakeAttr IntList(std::vector<int64_t> v);
  static FakeAttr ShapeOf(std::vector<int64_t> dims);
  static FakeAttr Tensor(FakeTensor v);
};

using FakeAttrs = std::map<std::string, FakeAttr>;

// A kernel registration with its strings and arrays copied.
struct KernelRecord {
  std::string op_name;
  std::string device_type;
  std::map<std::string, std::vector<TSR_DataType>> constraints;
  std::vector<std::string> host_memory_args;
  int32_t priority = 0;
  uint32_t flags = 0;
  TSR_KernelRegistration registration{};
};

// What Run returns: the status code and message and, on success, the outputs.
struct RunResult {
  TSR_Code code = TSR_CODE_OK;
  std::string message;
  std::vector<FakeTensor> outputs;
  std::vector<int32_t> forwarded_inputs;  // per output: the input it reused, or -1
};

class FakeHost {
 public:
  FakeHost();
  ~FakeHost();
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  // The table handed to plugins; tests may copy and alter it.
  const TSR_HostApi* api() const;

  // dlopens `path` (RTLD_LOCAL) and calls TSR_Plugin_Init with `api` (default: this host's).
  // Returns the status code and fills *message; registrations are kept only on success.
  TSR_Code LoadPlugin(const std::string& path, std::string* message,
                      const TSR_HostApi* api = nullptr, uint32_t host_major = TSR_ABI_VERSION_MAJOR,
                      uint32_t host_minor = TSR_ABI_VERSION_MINOR);
  // Calls `init` as if it were a loaded plugin's entry point (for in-process SDK tests).
  TSR_Code InitPlugin(TSR_Plugin_InitFn init, std::string* message,
                      const TSR_HostApi* api = nullptr, uint32_t host_major = TSR_ABI_VERSION_MAJOR,
                      uint32_t host_minor = TSR_ABI_VERSION_MINOR);
  const TSR_PluginInfo& plugin_info() const { return info_; }

  const std::vector<TSR_DeviceTypeRegistration>& device_types() const { return device_types_; }
  const std::vector<KernelRecord>& kernels() const { return kernels_; }
  // The first kernel for `op_name` whose type constraints accept `attrs`, or NULL.
  const KernelRecord* FindKernel(const std::string& op_name, const FakeAttrs& attrs) const;

  // Creates and runs the op's kernel once. Output dtypes default to input 0's dtype.
  RunResult Run(const std::string& op_name, std::vector<FakeTensor> inputs, const FakeAttrs& attrs,
                int num_outputs = 1, std::vector<TSR_DataType> output_dtypes = {});

  // Helpers for statuses returned by plugin functions (takes ownership).
  static TSR_Code Code(TSR_Status* status, std::string* message);

 private:
  friend struct FakeHostAccess;
  TSR_PluginInfo info_{};
  std::vector<TSR_DeviceTypeRegistration> device_types_;
  std::vector<std::string> device_type_names_;
  std::vector<KernelRecord> kernels_;
  std::vector<TSR_DeviceTypeRegistration> pending_device_types_;
  std::vector<KernelRecord> pending_kernels_;
};

}  // namespace tessera::cpu::testing

#endif  // TESSERA_PLUGINS_CPU_TESTING_FAKE_HOST_H_
