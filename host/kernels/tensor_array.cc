// TensorArray, Stack and their handles.
#include "host/kernels/tensor_array.h"

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/runtime/device.h"
#include "registry/device_handle.h"

namespace tessera {
namespace {

// A handle's bytes: a tag that tells it from a variable's handle (one pointer) and the id of its
// registry entry. Decoding goes through the registry, so a stale or forged handle is an error,
// never a dangling pointer.
constexpr uint64_t kHandleTag = 0x5453525f53544550ull;
struct HandleBytes {
  uint64_t tag;
  uint64_t id;
};

class HandleRegistry {
 public:
  static HandleRegistry& Get() {
    static HandleRegistry* registry = new HandleRegistry();
    return *registry;
  }
  uint64_t Add(const std::shared_ptr<StepResource>& resource) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t id = ++next_id_;
    resources_[id] = resource;
    return id;
  }
  void Remove(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    resources_.erase(id);
  }
  std::shared_ptr<StepResource> Find(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(id);
    return it == resources_.end() ? nullptr : it->second.lock();
  }

 private:
  std::mutex mu_;
  uint64_t next_id_ = 0;
  absl::flat_hash_map<uint64_t, std::weak_ptr<StepResource>> resources_;
};

// The handle's buffer: owns the resource and its registry entry.
class OwningHandleBuffer final : public TensorBuffer {
 public:
  OwningHandleBuffer(void* data, std::shared_ptr<StepResource> resource, uint64_t id)
      : TensorBuffer(HostAllocator(), data, sizeof(HandleBytes)),
        resource_(std::move(resource)),
        id_(id) {}
  ~OwningHandleBuffer() { HandleRegistry::Get().Remove(id_); }

 private:
  std::shared_ptr<StepResource> resource_;
  uint64_t id_;
};

template <typename T>
void AddInto(const Tensor& a, const Tensor& b, Tensor* sum) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = sum->data<T>();
  for (int64_t i = 0, n = a.NumElements(); i < n; ++i) z[i] = x[i] + y[i];
}

// existing + value, in a new tensor of `device`'s memory (through host memory when the host
// cannot reach the device's).
absl::StatusOr<Tensor> AddTensors(Device* device, const Tensor& existing, const Tensor& value) {
  Tensor a = existing;
  Tensor b = value;
  if (!a.host_accessible()) RETURN_IF_ERROR(device->CopyToHost(existing, &a));
  if (!b.host_accessible()) RETURN_IF_ERROR(device->CopyToHost(value, &b));
  ASSIGN_OR_RETURN(Tensor sum, Tensor::Allocate(HostAllocator(), a.dtype(), a.shape()));
  switch (a.dtype()) {
    case TSR_DTYPE_FLOAT:
      AddInto<float>(a, b, &sum);
      break;
    case TSR_DTYPE_DOUBLE:
      AddInto<double>(a, b, &sum);
      break;
    case TSR_DTYPE_INT32:
      AddInto<int32_t>(a, b, &sum);
      break;
    case TSR_DTYPE_INT64:
      AddInto<int64_t>(a, b, &sum);
      break;
    default:
      return absl::UnimplementedError(absl::StrCat("aggregating TensorArray writes of ",
                                                   DataTypeString(a.dtype()),
                                                   " is not supported (float, double, int32, "
                                                   "int64 are)"));
  }
  if (device->host_memory()) return sum;
  Tensor on_device;
  RETURN_IF_ERROR(device->CopyFromHost(sum, &on_device));
  return on_device;
}

}  // namespace

StepResource::~StepResource() = default;

Tensor MakeStepResourceHandle(std::shared_ptr<StepResource> resource) {
  const uint64_t id = HandleRegistry::Get().Add(resource);
  absl::StatusOr<void*> data = HostAllocator()->Allocate(sizeof(HandleBytes), kTensorAlignment);
  TESSERA_CHECK(data.ok(), "out of host memory for a resource handle");
  const HandleBytes bytes{kHandleTag, id};
  std::memcpy(*data, &bytes, sizeof(bytes));
  return Tensor(TSR_DTYPE_RESOURCE, TensorShape{},
                std::make_shared<OwningHandleBuffer>(*data, std::move(resource), id));
}

absl::StatusOr<std::shared_ptr<StepResource>> StepResourceFromHandle(const Tensor& handle,
                                                                     const char* what) {
  HandleBytes bytes{0, 0};
  if (handle.dtype() == TSR_DTYPE_RESOURCE && handle.shape().rank() == 0 &&
      handle.host_accessible() && handle.buffer() != nullptr &&
      handle.buffer()->size() == sizeof(HandleBytes)) {
    std::memcpy(&bytes, handle.data(), sizeof(bytes));
  }
  if (bytes.tag != kHandleTag) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a ", what, " handle, got ", DataTypeString(handle.dtype()), " ",
        handle.shape().DebugString(), " that is not one (a variable's handle, perhaps)"));
  }
  std::shared_ptr<StepResource> resource = HandleRegistry::Get().Find(bytes.id);
  if (resource == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " this handle named no longer exists"));
  }
  return resource;
}

absl::Status CopyTensorBytes(Device* device, const Tensor& src, size_t src_offset, Tensor* dst,
                             size_t dst_offset, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  char* to = static_cast<char*>(dst->data()) + dst_offset;
  const char* from = static_cast<const char*>(src.data()) + src_offset;
  if (src.host_accessible() && dst->host_accessible()) {
    std::memcpy(to, from, bytes);
    return absl::OkStatus();
  }
  if (device->plugin_device() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot copy TensorArray elements on ", device->name()));
  }
  return device->plugin_device()->MemcpyDeviceToDevice(to, from, bytes, device->compute_stream());
}

absl::StatusOr<Tensor> ZerosOnDevice(Device* device, DataType dtype, const TensorShape& shape) {
  if (device->host_memory()) {
    ASSIGN_OR_RETURN(Tensor zeros, Tensor::Allocate(device->allocator(), dtype, shape));
    if (zeros.TotalBytes() > 0) std::memset(zeros.data(), 0, zeros.TotalBytes());
    return zeros;
  }
  ASSIGN_OR_RETURN(Tensor host, Tensor::Allocate(HostAllocator(), dtype, shape));
  if (host.TotalBytes() > 0) std::memset(host.data(), 0, host.TotalBytes());
  Tensor zeros;
  RETURN_IF_ERROR(device->CopyFromHost(host, &zeros));
  return zeros;
}

// ---- TensorArray ----

TensorArray::TensorArray(TensorArrayOptions options, int32_t size)
    : options_(std::move(options)), entries_(static_cast<size_t>(size)) {}

PartialShape TensorArray::element_shape() const {
  std::lock_guard<std::mutex> lock(mu_);
  return options_.element_shape;
}

bool TensorArray::dynamic_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return options_.dynamic_size;
}

absl::Status TensorArray::CheckOpenLocked() const {
  if (closed_) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", options_.name, " has already been closed."));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::GrowLocked(size_t size) {
  // An index near the int32 limit asks for billions of entries: an error, not an abort.
  try {
    entries_.resize(size);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TensorArray ", options_.name, ": out of memory growing it to ", size, " elements"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<TensorArray>> TensorArray::Create(TensorArrayOptions options,
                                                                 int32_t size) {
  auto array = std::make_shared<TensorArray>(std::move(options), 0);
  RETURN_IF_ERROR(array->GrowLocked(static_cast<size_t>(size)));
  return array;
}

absl::Status TensorArray::Write(Device* device, int32_t index, const Tensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  return WriteLocked(device, index, value);
}

absl::Status TensorArray::WriteMany(Device* device, absl::Span<const int32_t> indices,
                                    absl::Span<const Tensor> values) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < indices.size(); ++i) {
    RETURN_IF_ERROR(WriteLocked(device, indices[i], values[i]));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::WriteLocked(Device* device, int32_t index, const Tensor& value) {
  RETURN_IF_ERROR(CheckOpenLocked());
  const std::string& name = options_.name;
  if (index < 0 || (!options_.dynamic_size && static_cast<size_t>(index) >= entries_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name, ": Tried to write to index ", index,
                     " but array is not resizeable and size is: ", entries_.size()));
  }
  if (static_cast<size_t>(index) >= entries_.size()) RETURN_IF_ERROR(GrowLocked(index + size_t{1}));
  Entry& entry = entries_[index];
  if (value.dtype() != options_.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name, ": Could not write to TensorArray index ", index,
                     " because the value dtype is ", DataTypeString(value.dtype()),
                     " but TensorArray dtype is ", DataTypeString(options_.dtype), "."));
  }
  const PartialShape value_shape = PartialShape::FromTensorShape(value.shape());
  if (!options_.element_shape.IsCompatibleWith(value_shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name, ": Could not write to TensorArray index ", index,
                     " because the value shape is ", value.shape().DebugString(),
                     " which is incompatible with the TensorArray's inferred element shape: ",
                     options_.element_shape.ToString(), " (consider setting infer_shape=False)."));
  }
  if (options_.identical_element_shapes && !options_.element_shape.IsFullyDefined()) {
    options_.element_shape = value_shape;
  }
  if (entry.read) {
    return absl::InvalidArgumentError(absl::StrCat("TensorArray ", name,
                                                   ": Could not write to TensorArray index ", index,
                                                   " because it has already been read."));
  }
  if (entry.written && !options_.multiple_writes_aggregate) {
    return absl::InvalidArgumentError(absl::StrCat("TensorArray ", name,
                                                   ": Could not write to TensorArray index ", index,
                                                   " because it has already been written to."));
  }
  if (!entry.written) {
    entry.tensor = value;
    entry.shape = value.shape();
    entry.written = true;
    return absl::OkStatus();
  }
  // A gradient array: writes to one index add up.
  if (value.shape() != entry.shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name, ": Could not aggregate to TensorArray index ", index,
                     " because the existing shape is ", entry.shape.DebugString(),
                     " but the new input shape is ", value.shape().DebugString(), "."));
  }
  if (!entry.tensor.IsInitialized() || entry.tensor.NumElements() == 0) {
    entry.tensor = value;  // the entry only recorded a shape: its value was zeros
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(entry.tensor, AddTensors(device, entry.tensor, value));
  gradients_disallowed_ = true;
  return absl::OkStatus();
}

absl::Status TensorArray::Read(Device* device, int32_t index, Tensor* value) {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadLocked(device, index, value);
}

absl::Status TensorArray::ReadMany(Device* device, absl::Span<const int32_t> indices,
                                   std::vector<Tensor>* values) {
  std::lock_guard<std::mutex> lock(mu_);
  values->assign(indices.size(), Tensor());
  for (size_t i = 0; i < indices.size(); ++i) {
    RETURN_IF_ERROR(ReadLocked(device, indices[i], &(*values)[i]));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::ReadLocked(Device* device, int32_t index, Tensor* value) {
  RETURN_IF_ERROR(CheckOpenLocked());
  const std::string& name = options_.name;
  const size_t at = static_cast<size_t>(index);
  if (index < 0 || (!options_.is_grad && at >= entries_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tried to read from index ", index, " but array size is: ", entries_.size()));
  }
  if (at >= entries_.size() || !entries_[at].written) {
    // An unwritten entry reads as zeros when its shape is known: a gradient entry's recorded
    // shape, else the array's fully defined element shape.
    TensorShape shape;
    if (options_.is_grad && at < entries_.size() && entries_[at].shape.rank() > 0) {
      shape = entries_[at].shape;
    } else if (!options_.element_shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray ", name, ": Could not read from TensorArray index ", index,
          ".  Furthermore, the element shape is not fully defined: ",
          options_.element_shape.ToString(),
          ".  It is possible you are working with a resizeable TensorArray and stop_gradients "
          "is not allowing the gradients to be written.  If you set the full element_shape "
          "property on the forward TensorArray, the proper all-zeros tensor will be returned "
          "instead of incurring this error."));
    } else {
      ASSIGN_OR_RETURN(shape, options_.element_shape.ToTensorShape());
    }
    if (at >= entries_.size()) {
      const size_t old_size = entries_.size();
      RETURN_IF_ERROR(GrowLocked(at + 1));
      for (size_t i = old_size; i <= at; ++i) {
        entries_[i].shape = shape;
        entries_[i].written = true;
      }
    } else {
      entries_[at].shape = shape;
      entries_[at].written = true;
    }
  }
  Entry& entry = entries_[at];
  if (entry.cleared) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name, ": Could not read index ", index,
                     " twice because it was cleared after a previous read (perhaps try setting "
                     "clear_after_read = false?)."));
  }
  if (!entry.tensor.IsInitialized()) {
    ASSIGN_OR_RETURN(entry.tensor, ZerosOnDevice(device, options_.dtype, entry.shape));
  }
  *value = entry.tensor;
  if (options_.clear_after_read) {
    entry.tensor = Tensor();
    entry.cleared = true;
  }
  entry.read = true;
  return absl::OkStatus();
}

absl::StatusOr<int32_t> TensorArray::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  return static_cast<int32_t>(entries_.size());
}

void TensorArray::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  grads_.clear();
  closed_ = true;
}

absl::StatusOr<std::shared_ptr<TensorArray>> TensorArray::Grad(
    const std::string& source, const TensorShape& shape_to_prepend) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  if (gradients_disallowed_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unable to create a gradients TensorArray for ", options_.name,
        ".  Perhaps you used the multiple_writes_aggregate flag on a previous write?  Gradient "
        "calculation is impossible when multiple writes are performed to the same index."));
  }
  auto it = grads_.find(source);
  if (it != grads_.end()) return it->second;
  // Once backprop starts, the forward array's size is the gradient's: it stops growing.
  options_.dynamic_size = false;
  TensorArrayOptions grad_options = options_;
  grad_options.name = absl::StrCat(options_.name, "@", source);
  grad_options.dynamic_size = false;
  grad_options.clear_after_read = true;
  grad_options.multiple_writes_aggregate = true;
  grad_options.is_grad = true;
  PartialShape prefix = PartialShape::FromTensorShape(shape_to_prepend);
  grad_options.element_shape = prefix.Concatenate(options_.element_shape);
  auto grad =
      std::make_shared<TensorArray>(std::move(grad_options), static_cast<int32_t>(entries_.size()));
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].written) continue;
    TensorShape shape = shape_to_prepend;
    for (int64_t d : entries_[i].shape.dims()) shape.AddDim(d);
    grad->entries_[i].shape = shape;
    grad->entries_[i].written = true;
  }
  grads_[source] = grad;
  return grad;
}

// ---- Stack ----

absl::Status Stack::CheckOpenLocked() const {
  if (closed_) {
    return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "] has already been closed."));
  }
  return absl::OkStatus();
}

absl::Status Stack::Push(const Tensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  if (value.dtype() != elem_type_) {
    return absl::InvalidArgumentError(absl::StrCat("Must have type ", DataTypeString(elem_type_),
                                                   " but got ", DataTypeString(value.dtype())));
  }
  if (max_size_ >= 0 && values_.size() >= static_cast<size_t>(max_size_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stack[", name_, "] overflowed its max_size (", max_size_, ")"));
  }
  values_.push_back(value);
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Stack::Pop(DataType expected) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  if (expected != elem_type_) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stack[", name_, "] holds ", DataTypeString(elem_type_),
                     " but the pop asks for ", DataTypeString(expected)));
  }
  if (values_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stack[", name_, "] is empty when calling Pop()."));
  }
  Tensor value = std::move(values_.back());
  values_.pop_back();
  return value;
}

void Stack::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  values_.clear();
  closed_ = true;
}

}  // namespace tessera
