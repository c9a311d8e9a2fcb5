// Tensor, TensorShape and the host allocator.
#include "host/runtime/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace tessera {
namespace {

// Aligned host memory. Large blocks (1 MiB and up) are kept after they are freed, up to 256 MiB
// in all, and handed out again for the same rounded size: a step that allocates the same large
// tensors every time (transfers, activations) then reuses pages instead of faulting fresh ones in.
// AddressSanitizer builds keep none, so that a use of a freed tensor is still reported.
class AlignedHostAllocator final : public Allocator {
 public:
  static constexpr size_t kPage = 4096;
  static constexpr size_t kCacheMinBytes = size_t{1} << 20;
#if defined(__SANITIZE_ADDRESS__)
  static constexpr size_t kCacheMaxBytes = 0;
#else
  static constexpr size_t kCacheMaxBytes = size_t{256} << 20;
#endif

  std::string Name() const override { return "host"; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    if (alignment < kTensorAlignment) alignment = kTensorAlignment;
    bool cacheable = size >= kCacheMinBytes && alignment <= kPage;
    if (cacheable) {
      alignment = kPage;
      size_t rounded = RoundUp(size, kPage);
      std::lock_guard<std::mutex> lock(mu_);
      auto it = cache_.find(rounded);
      if (it != cache_.end() && !it->second.empty()) {
        void* ptr = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= rounded;
        return ptr;
      }
    }
    // aligned_alloc needs a size that is a multiple of the alignment.
    size_t rounded = RoundUp(size, alignment);
    if (rounded == 0) rounded = alignment;
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("out of host memory allocating ", size, " bytes"));
    }
    if (size >= kCacheMinBytes && !cacheable) {
      std::lock_guard<std::mutex> lock(mu_);
      overaligned_.insert(ptr);
    }
    return ptr;
  }
  void Free(void* ptr, size_t size) override {
    if (ptr == nullptr) return;
    if (size >= kCacheMinBytes) {
      size_t rounded = RoundUp(size, kPage);
      std::lock_guard<std::mutex> lock(mu_);
      if (overaligned_.erase(ptr) == 0 && cached_bytes_ + rounded <= kCacheMaxBytes) {
        cache_[rounded].push_back(ptr);
        cached_bytes_ += rounded;
        return;
      }
    }
    std::free(ptr);
  }
  bool host_accessible() const override { return true; }

 private:
  static size_t RoundUp(size_t size, size_t alignment) {
    return (size + alignment - 1) / alignment * alignment;
  }

  std::mutex mu_;
  absl::flat_hash_map<size_t, std::vector<void*>> cache_;
  absl::flat_hash_set<void*> overaligned_;
  size_t cached_bytes_ = 0;
};

// Buffers of std::string objects in host memory: Allocate constructs `size / sizeof(std::string)`
// empty strings, Free destroys as many, so a string tensor's buffer cleans up after itself when
// its last reference goes, like any other TensorBuffer.
class StringHostAllocator final : public Allocator {
 public:
  std::string Name() const override { return "host strings"; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    absl::StatusOr<void*> ptr = HostAllocator()->Allocate(size, alignment);
    if (!ptr.ok()) return ptr.status();
    auto* strings = static_cast<std::string*>(*ptr);
    for (size_t i = 0; i < size / sizeof(std::string); ++i) new (strings + i) std::string();
    return *ptr;
  }
  void Free(void* ptr, size_t size) override {
    if (ptr == nullptr) return;
    auto* strings = static_cast<std::string*>(ptr);
    for (size_t i = 0; i < size / sizeof(std::string); ++i) strings[i].~basic_string();
    HostAllocator()->Free(ptr, size);
  }
  bool host_accessible() const override { return true; }
};

absl::StatusOr<Tensor> AllocateStrings(Allocator* allocator, const TensorShape& shape) {
  if (!allocator->host_accessible()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "string tensors live in host memory only; cannot allocate a string tensor of shape ",
        shape.DebugString(), " in the memory of '", allocator->Name(),
        "', which the host cannot reach"));
  }
  const auto bytes = static_cast<size_t>(shape.num_elements()) * sizeof(std::string);
  if (bytes == 0) return Tensor(TSR_DTYPE_STRING, shape, nullptr);
  absl::StatusOr<void*> data = StringAllocator()->Allocate(bytes, kTensorAlignment);
  if (!data.ok()) {
    return absl::Status(
        data.status().code(),
        absl::StrCat("cannot allocate a string tensor of shape ", shape.DebugString(), " (", bytes,
                     " bytes): ", data.status().message()));
  }
  return Tensor(TSR_DTYPE_STRING, shape,
                std::make_shared<TensorBuffer>(StringAllocator(), *data, bytes));
}

template <typename T>
void AppendValues(const Tensor& t, int64_t n, std::string* out) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out->push_back(' ');
    if constexpr (std::is_same_v<T, bool>) {
      out->append(p[i] ? "true" : "false");
    } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
      absl::StrAppend(out, static_cast<int>(p[i]));
    } else if constexpr (std::is_same_v<T, std::string>) {
      absl::StrAppend(out, "\"", absl::CEscape(p[i]), "\"");
    } else {
      absl::StrAppend(out, p[i]);
    }
  }
}

}  // namespace

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxElementCount) return kMaxElementCount + 1;
  }
  return n;
}

absl::Status CheckTensorSize(DataType dtype, absl::Span<const int64_t> dims, int64_t* bytes) {
  const auto shape = [&] { return absl::StrCat("[", absl::StrJoin(dims, ","), "]"); };
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", shape(), " of ",
                                                     DataTypeString(dtype), " has dimension ", i,
                                                     " negative (", dims[i], ")"));
    }
  }
  const size_t element_size = dtype == TSR_DTYPE_STRING ? sizeof(std::string) : DataTypeSize(dtype);
  // The exact element count and size in 128 bits, or `huge` once they do not even fit there.
  unsigned __int128 elements = 1;
  unsigned __int128 size = 0;
  bool huge = false;
  for (int64_t d : dims) {
    huge = huge || __builtin_mul_overflow(elements, static_cast<unsigned __int128>(d), &elements);
  }
  if (elements == 0) {
    // A zero dimension: nothing to allocate. The other dimensions must still multiply to at most
    // the element limit, so that no kernel's arithmetic on them (strides, row counts) can
    // overflow. TensorFlow accepts [0, 2^62, 4]; Tessera refuses it.
    unsigned __int128 nonzero = 1;
    bool nonzero_huge = false;
    for (int64_t d : dims) {
      if (d == 0) continue;
      nonzero_huge = nonzero_huge ||
                     __builtin_mul_overflow(nonzero, static_cast<unsigned __int128>(d), &nonzero);
    }
    if (nonzero_huge || nonzero > static_cast<unsigned __int128>(kMaxElementCount)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", shape(), " of ", DataTypeString(dtype),
          " is empty, but its nonzero dimensions multiply to more than the limit of ",
          kMaxElementCount, " elements"));
    }
    huge = false;
  }
  huge =
      huge || __builtin_mul_overflow(elements, static_cast<unsigned __int128>(element_size), &size);
  const auto decimal = [](unsigned __int128 v) {
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
      v /= 10;
    } while (v != 0);
    return digits;
  };
  if (huge || elements > static_cast<unsigned __int128>(kMaxElementCount) ||
      size > static_cast<unsigned __int128>(kMaxTensorBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", shape(), " of ", DataTypeString(dtype), " has ",
                     huge ? "more than 2^128" : decimal(elements), " elements (", element_size,
                     " bytes each), more than the limit of ", kMaxTensorBytes, " bytes"));
  }
  const int64_t limit = TensorByteLimit();
  if (size > static_cast<unsigned __int128>(limit)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("shape ", shape(), " of ", DataTypeString(dtype), " needs ", decimal(size),
                     " bytes, more than this process's tensor limit of ", limit, " bytes"));
  }
  if (bytes != nullptr) *bytes = static_cast<int64_t>(size);
  return absl::OkStatus();
}

namespace {
std::atomic<int64_t> g_tensor_byte_limit{kMaxTensorBytes};
}  // namespace

void SetTensorByteLimit(int64_t bytes) {
  g_tensor_byte_limit.store(std::clamp<int64_t>(bytes, 1, kMaxTensorBytes),
                            std::memory_order_relaxed);
}

int64_t TensorByteLimit() { return g_tensor_byte_limit.load(std::memory_order_relaxed); }

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

Allocator* HostAllocator() {
  static AlignedHostAllocator* allocator = new AlignedHostAllocator();
  return allocator;
}

Allocator* StringAllocator() {
  static StringHostAllocator* allocator = new StringHostAllocator();
  return allocator;
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) : dtype_(dtype), shape_(shape) {
  absl::StatusOr<Tensor> t = Allocate(HostAllocator(), dtype, shape);
  TESSERA_CHECK(t.ok(), t.status().ToString());
  buffer_ = t->buffer_;
}

absl::StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype,
                                        const TensorShape& shape) {
  RETURN_IF_ERROR(WithContext(CheckTensorSize(dtype, shape.dims()), "cannot allocate a tensor"));
  if (dtype == TSR_DTYPE_STRING) return AllocateStrings(allocator, shape);
  // The string allocator constructs strings in what it hands out: dense buffers come from the
  // plain host allocator instead.
  if (allocator == StringAllocator()) allocator = HostAllocator();
  size_t element_size = DataTypeSize(dtype);
  if (element_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a dense tensor of type ", DataTypeString(dtype)));
  }
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * element_size;
  if (bytes == 0) return Tensor(dtype, shape, nullptr);
  absl::StatusOr<void*> data = allocator->Allocate(bytes, kTensorAlignment);
  if (!data.ok()) {
    return absl::Status(
        data.status().code(),
        absl::StrCat("cannot allocate a tensor of shape ", shape.DebugString(), " of ",
                     DataTypeString(dtype), " (", bytes, " bytes): ", data.status().message()));
  }
  return Tensor(dtype, shape, std::make_shared<TensorBuffer>(allocator, *data, bytes));
}

absl::StatusOr<Tensor> Tensor::DeepCopy() const {
  if (!host_accessible()) {
    return absl::FailedPreconditionError("cannot copy a device-memory tensor on the host");
  }
  absl::StatusOr<Tensor> copy = Allocate(HostAllocator(), dtype_, shape_);
  if (!copy.ok()) return copy.status();
  if (dtype_ == TSR_DTYPE_STRING) {
    if (!HoldsStrings()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "string tensor of shape ", shape_.DebugString(), " has no buffer of strings to copy"));
    }
    if (buffer_ != nullptr) {
      const absl::Span<std::string> from = flat<std::string>();
      std::copy(from.begin(), from.end(), copy->data<std::string>());
    }
    return copy;
  }
  if (TotalBytes() > 0) std::memcpy(copy->data(), data(), TotalBytes());
  return copy;
}

bool Tensor::HoldsStrings() const {
  if (dtype_ != TSR_DTYPE_STRING) return false;
  if (buffer_ == nullptr) return NumElements() == 0;
  return buffer_->allocator() == StringAllocator() &&
         buffer_->size() / sizeof(std::string) >= static_cast<uint64_t>(NumElements());
}

Tensor Tensor::Strings(const TensorShape& shape, absl::Span<const std::string> values) {
  Tensor t(TSR_DTYPE_STRING, shape);
  TESSERA_CHECK(static_cast<int64_t>(values.size()) == t.NumElements(),
                absl::StrCat("Tensor::Strings got ", values.size(), " values for shape ",
                             shape.DebugString()));
  std::copy(values.begin(), values.end(), t.data<std::string>());
  return t;
}

std::string Tensor::SummarizeValues(int max_entries) const {
  if (!IsInitialized()) return "";
  if (!host_accessible()) return "<device memory>";
  int64_t n = std::min<int64_t>(NumElements(), max_entries);
  std::string out;
  switch (dtype_) {
    case TSR_DTYPE_FLOAT:
      AppendValues<float>(*this, n, &out);
      break;
    case TSR_DTYPE_DOUBLE:
      AppendValues<double>(*this, n, &out);
      break;
    case TSR_DTYPE_INT32:
      AppendValues<int32_t>(*this, n, &out);
      break;
    case TSR_DTYPE_INT64:
      AppendValues<int64_t>(*this, n, &out);
      break;
    case TSR_DTYPE_BOOL:
      AppendValues<bool>(*this, n, &out);
      break;
    case TSR_DTYPE_UINT8:
      AppendValues<uint8_t>(*this, n, &out);
      break;
    case TSR_DTYPE_INT8:
      AppendValues<int8_t>(*this, n, &out);
      break;
    case TSR_DTYPE_INT16:
      AppendValues<int16_t>(*this, n, &out);
      break;
    case TSR_DTYPE_UINT16:
      AppendValues<uint16_t>(*this, n, &out);
      break;
    case TSR_DTYPE_UINT32:
      AppendValues<uint32_t>(*this, n, &out);
      break;
    case TSR_DTYPE_UINT64:
      AppendValues<uint64_t>(*this, n, &out);
      break;
    case TSR_DTYPE_STRING:
      if (!HoldsStrings()) return "<no strings>";
      AppendValues<std::string>(*this, n, &out);
      break;
    default:
      return "<values not printable>";
  }
  if (NumElements() > max_entries) out.append(" ...");
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  if (!IsInitialized()) return "<uninitialized tensor>";
  return absl::StrCat(DataTypeString(dtype_), " ", shape_.DebugString(), " ",
                      SummarizeValues(max_entries));
}

}  // namespace tessera
