// Device and its allocator over plugin memory.
#include "host/runtime/device.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "registry/device_handle.h"

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
  void Free(void* ptr, size_t size) override { device_->Free(ptr, size); }
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

Device::~Device() = default;

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
  return plugin_device_->MemcpyHostToDevice(dst->data(), host_src.data(), host_src.TotalBytes());
}

absl::Status Device::CopyToHost(const Tensor& src, Tensor* host_dst) {
  if (is_remote()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot copy from ", name_, ": it is a device of another task"));
  }
  ASSIGN_OR_RETURN(*host_dst, Tensor::Allocate(HostAllocator(), src.dtype(), src.shape()));
  if (src.TotalBytes() == 0) return absl::OkStatus();
  return plugin_device_->MemcpyDeviceToHost(host_dst->data(), src.data(), src.TotalBytes());
}

absl::Status Device::Synchronize() {
  if (plugin_device_ == nullptr || !plugin_device_->has_streams()) return absl::OkStatus();
  return plugin_device_->StreamSynchronize(nullptr);
}

}  // namespace tessera
