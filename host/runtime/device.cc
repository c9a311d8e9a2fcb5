// Device and its allocator over plugin memory.
#include "host/runtime/device.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "registry/device_handle.h"
#include "registry/host_api.h"

namespace tessera {
namespace {

uint64_t NewIncarnation() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  uint64_t value = 0;
  while (value == 0) value = rng();
  return value;
}

// Device memory through the plugin's Memory_Allocate / Memory_Free.
class PluginAllocator final : public Allocator {
 public:
  PluginAllocator(std::string device_name, Device* owner, PluginDevice* device,
                  bool host_accessible)
      : device_name_(std::move(device_name)),
        owner_(owner),
        device_(device),
        host_accessible_(host_accessible) {}
  std::string Name() const override { return device_name_; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    absl::StatusOr<void*> ptr = device_->Allocate(size, alignment);
    if (!ptr.ok()) {
      return WithContext(ptr.status(),
                         absl::StrCat("allocating ", size, " bytes on ", device_name_));
    }
    return ptr;
  }
  // Freeing memory the device did not allocate is a host bug: it is logged, never ignored.
  void Free(void* ptr, size_t size) override {
    absl::Status status = device_->Free(ptr, size);
    if (!status.ok()) {
      LogForPlugin(TSR_LOG_SEVERITY_ERROR, device_->plugin_name(),
                   absl::StrCat("freeing ", size, " bytes on ", device_name_, ": ",
                                status.message()));
    }
  }
  bool host_accessible() const override { return host_accessible_; }
  Device* device() const override { return owner_; }

 private:
  std::string device_name_;
  Device* owner_;
  PluginDevice* device_;
  bool host_accessible_;
};

}  // namespace

Device::Device(std::string name, std::string device_type, int32_t type_priority, uint32_t flags,
               std::string plugin_name, std::unique_ptr<PluginDevice> plugin_device)
    : name_(std::move(name)),
      device_type_(std::move(device_type)),
      type_priority_(type_priority),
      flags_(flags),
      plugin_name_(std::move(plugin_name)),
      incarnation_(NewIncarnation()),
      plugin_device_(std::move(plugin_device)) {
  absl::StatusOr<ParsedDeviceName> parsed = ParseDeviceName(name_);
  TESSERA_CHECK(parsed.ok(), parsed.status().ToString());
  parsed_name_ = *parsed;
  allocator_ = std::make_unique<PluginAllocator>(name_, this, plugin_device_.get(), host_memory());
}

std::unique_ptr<Device> Device::Remote(std::string name, std::string device_type,
                                       int32_t type_priority, uint32_t flags,
                                       uint64_t incarnation) {
  auto device = std::unique_ptr<Device>(
      new Device(std::move(name), std::move(device_type), type_priority, flags, "", nullptr));
  device->incarnation_ = incarnation;
  device->allocator_.reset();
  return device;
}

Device::~Device() {
  if (plugin_device_ == nullptr) return;
  for (TSR_Stream* stream : {compute_stream_, host_to_device_stream_, device_to_host_stream_}) {
    if (stream == nullptr) continue;
    absl::Status drained = plugin_device_->StreamSynchronize(stream);
    if (!drained.ok()) {
      LogForPlugin(TSR_LOG_SEVERITY_ERROR, plugin_name_,
                   absl::StrCat("destroying ", name_, ": ", drained.message()));
    }
    plugin_device_->DestroyStream(stream);
  }
}

absl::Status Device::CreateStreams() {
  if (plugin_device_ == nullptr || !plugin_device_->has_streams() || compute_stream_ != nullptr) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(compute_stream_, plugin_device_->CreateStream(TSR_STREAM_KIND_COMPUTE));
  ASSIGN_OR_RETURN(host_to_device_stream_,
                   plugin_device_->CreateStream(TSR_STREAM_KIND_HOST_TO_DEVICE));
  ASSIGN_OR_RETURN(device_to_host_stream_,
                   plugin_device_->CreateStream(TSR_STREAM_KIND_DEVICE_TO_HOST));
  return absl::OkStatus();
}

namespace {

// An event of `device`, destroyed with the scope.
class ScopedEvent {
 public:
  explicit ScopedEvent(PluginDevice* device) : device_(device) {}
  ~ScopedEvent() { device_->DestroyEvent(event_); }
  absl::Status Create() {
    ASSIGN_OR_RETURN(event_, device_->CreateEvent());
    return absl::OkStatus();
  }
  TSR_Event* get() const { return event_; }

 private:
  PluginDevice* device_;
  TSR_Event* event_ = nullptr;
};

}  // namespace

TSR_Device* Device::abi_handle() const {
  return plugin_device_ != nullptr ? plugin_device_->abi_handle() : nullptr;
}

absl::Status Device::CopyFromHost(const Tensor& host_src, Tensor* dst) {
  if (is_remote()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot copy to ", name_, ": it is a device of another task"));
  }
  ASSIGN_OR_RETURN(*dst, Tensor::Allocate(allocator(), host_src.dtype(), host_src.shape()));
  if (host_src.TotalBytes() == 0) return absl::OkStatus();
  if (compute_stream_ == nullptr) {
    return plugin_device_->MemcpyHostToDevice(dst->data(), host_src.data(),
                                              host_src.TotalBytes());
  }
  // The destination is new memory, but a plugin may hand out memory that work already queued on
  // the compute stream still reads (stream-ordered reuse): the copy waits for that point. The
  // compute stream waits for the copy before the consumer's work, and the host for the copy alone
  // before `host_src` may go.
  ScopedEvent reusable(plugin_device_.get());
  ScopedEvent copied(plugin_device_.get());
  RETURN_IF_ERROR(reusable.Create());
  RETURN_IF_ERROR(copied.Create());
  RETURN_IF_ERROR(plugin_device_->RecordEvent(reusable.get(), compute_stream_));
  RETURN_IF_ERROR(plugin_device_->StreamWaitEvent(host_to_device_stream_, reusable.get()));
  RETURN_IF_ERROR(plugin_device_->MemcpyHostToDevice(dst->data(), host_src.data(),
                                                     host_src.TotalBytes(),
                                                     host_to_device_stream_));
  return FinishCopy(host_to_device_stream_, copied.get(), /*then_wait=*/compute_stream_);
}

absl::Status Device::FinishCopy(TSR_Stream* copy_stream, TSR_Event* copied,
                                TSR_Stream* then_wait) {
  absl::Status status = plugin_device_->RecordEvent(copied, copy_stream);
  if (status.ok() && then_wait != nullptr) {
    status = plugin_device_->StreamWaitEvent(then_wait, copied);
  }
  if (status.ok()) status = plugin_device_->SynchronizeEvent(copied);
  if (!status.ok()) {
    // The copy is queued and reads or writes memory the caller frees once this returns: wait
    // for the whole copy stream before reporting the error.
    plugin_device_->StreamSynchronize(copy_stream).IgnoreError();
  }
  return status;
}

absl::Status Device::CopyToHost(const Tensor& src, Tensor* host_dst) {
  if (is_remote()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot copy from ", name_, ": it is a device of another task"));
  }
  ASSIGN_OR_RETURN(*host_dst, Tensor::Allocate(HostAllocator(), src.dtype(), src.shape()));
  if (src.TotalBytes() == 0) return absl::OkStatus();
  if (compute_stream_ == nullptr) {
    return plugin_device_->MemcpyDeviceToHost(host_dst->data(), src.data(), src.TotalBytes());
  }
  // The producer's work is on the compute stream: the copy stream waits for the point reached so
  // far, copies, and the host waits for the copy's own event.
  ScopedEvent produced(plugin_device_.get());
  ScopedEvent copied(plugin_device_.get());
  RETURN_IF_ERROR(produced.Create());
  RETURN_IF_ERROR(copied.Create());
  RETURN_IF_ERROR(plugin_device_->RecordEvent(produced.get(), compute_stream_));
  RETURN_IF_ERROR(plugin_device_->StreamWaitEvent(device_to_host_stream_, produced.get()));
  RETURN_IF_ERROR(plugin_device_->MemcpyDeviceToHost(host_dst->data(), src.data(),
                                                     src.TotalBytes(), device_to_host_stream_));
  return FinishCopy(device_to_host_stream_, copied.get(), /*then_wait=*/nullptr);
}

absl::Status Device::Synchronize() {
  if (plugin_device_ == nullptr || compute_stream_ == nullptr) return absl::OkStatus();
  for (TSR_Stream* stream : {compute_stream_, host_to_device_stream_, device_to_host_stream_}) {
    RETURN_IF_ERROR(plugin_device_->StreamSynchronize(stream));
  }
  return absl::OkStatus();
}

}  // namespace tessera
