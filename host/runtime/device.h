// Device: one device of a plugin's device type, with its full name, incarnation and allocator.
// The host reaches device memory only through the plugin (PluginDevice).
#ifndef TESSERA_HOST_RUNTIME_DEVICE_H_
#define TESSERA_HOST_RUNTIME_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "host/runtime/device_name.h"
#include "host/runtime/tensor.h"
#include "tessera/plugin_api/device.h"

namespace tessera {
class PluginDevice;  // registry/device_handle.h

class Device {
 public:
  Device(std::string name, std::string device_type, int32_t type_priority, uint32_t flags,
         std::string plugin_name, std::unique_ptr<PluginDevice> plugin_device);
  // A device of another task, known by its attributes only: the master places and partitions a
  // graph over it, but nothing runs on it in this process (it has no plugin device; copies and
  // allocations on it are refused).
  static std::unique_ptr<Device> Remote(std::string name, std::string device_type,
                                        int32_t type_priority, uint32_t flags,
                                        uint64_t incarnation);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& name() const { return name_; }
  const ParsedDeviceName& parsed_name() const { return parsed_name_; }
  const std::string& device_type() const { return device_type_; }
  int32_t type_priority() const { return type_priority_; }
  const std::string& plugin_name() const { return plugin_name_; }
  // Nonzero, new every time the device is created (detects restarted workers).
  uint64_t incarnation() const { return incarnation_; }
  // True for a device of another task (Remote).
  bool is_remote() const { return plugin_device_ == nullptr; }
  // True when the host may touch the device's memory directly.
  bool host_memory() const { return (flags_ & TSR_DEVICE_FLAG_HOST_MEMORY) != 0; }

  // Allocates device memory through the plugin (null for a remote device).
  Allocator* allocator() { return allocator_.get(); }
  PluginDevice* plugin_device() { return plugin_device_.get(); }
  TSR_Device* abi_handle() const;

  // Creates the device's streams when its plugin has them (one compute stream, one per copy
  // direction); a no-op for synchronous and remote devices. Called once, right after
  // construction, by the device manager.
  absl::Status CreateStreams();
  // The compute stream kernels enqueue on (NULL for a synchronous device).
  TSR_Stream* compute_stream() const { return compute_stream_; }

  // Copies between host tensors and tensors of this device (same dtype and shape; `dst` is
  // allocated here). On a device with streams the copy runs on its copy stream after the work
  // already enqueued on the compute stream (CopyToHost) or before the compute stream's next work
  // (CopyFromHost), and the call returns once the copy itself has completed: the host waits on
  // the copy's event, never on the whole device.
  absl::Status CopyFromHost(const Tensor& host_src, Tensor* dst);
  absl::Status CopyToHost(const Tensor& src, Tensor* host_dst);
  // Waits for all work queued on the device.
  absl::Status Synchronize();

 private:
  std::string name_;
  ParsedDeviceName parsed_name_;
  std::string device_type_;
  int32_t type_priority_;
  uint32_t flags_;
  std::string plugin_name_;
  uint64_t incarnation_;
  // After a copy was queued on `copy_stream`: records `copied` there, makes `then_wait` (if any)
  // wait for it, and waits on the host for it; on any failure waits for the whole copy stream
  // before returning the error, so the caller may free the copy's memory.
  absl::Status FinishCopy(TSR_Stream* copy_stream, TSR_Event* copied, TSR_Stream* then_wait);

  std::unique_ptr<PluginDevice> plugin_device_;
  std::unique_ptr<Allocator> allocator_;
  TSR_Stream* compute_stream_ = nullptr;
  TSR_Stream* host_to_device_stream_ = nullptr;
  TSR_Stream* device_to_host_stream_ = nullptr;
};

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_DEVICE_H_
