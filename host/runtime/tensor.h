// Tensor: a dtype, a shape and a reference-counted buffer of some device's memory.
#ifndef TESSERA_HOST_RUNTIME_TENSOR_H_
#define TESSERA_HOST_RUNTIME_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "host/runtime/types.h"

namespace tessera {

class Device;

// Dimensions of a row-major tensor (outermost first). All dimensions are known (>= 0).
class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  const int64_t* data() const { return dims_.data(); }
  // The product of the dimensions, or kMaxElementCount + 1 when it does not fit (never a wrapped
  // value). Meaningful for shapes that passed CheckTensorSize, as every allocated tensor's has.
  int64_t num_elements() const;
  void AddDim(int64_t size) { dims_.push_back(size); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }

  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;
  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return !(*this == other); }

 private:
  absl::InlinedVector<int64_t, 4> dims_;
};

// The largest tensor Tessera creates: 2^62 bytes and 2^62 elements. Anything larger can never be
// allocated on any machine; shapes beyond it (including ones whose element count or byte size
// would not even fit in 64 bits) are refused before any arithmetic can wrap.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 62;
inline constexpr int64_t kMaxElementCount = int64_t{1} << 62;

// OK when a tensor of `dtype` and `dims` may exist: every dimension is >= 0 and its byte size
// (its element count times the element's size; sizeof(std::string) for strings) is at most
// kMaxTensorBytes. Otherwise INVALID_ARGUMENT naming the shape, the exact size and the limit, e.g.
// "shape [4294967296,4294967296,16] of float has 295147905179352825856 elements (4 bytes each),
// more than the limit of 4611686018427387904 bytes". A size within that but above the process's
// own limit (SetTensorByteLimit) is RESOURCE_EXHAUSTED. `*bytes` (if given) receives the size.
absl::Status CheckTensorSize(DataType dtype, absl::Span<const int64_t> dims,
                             int64_t* bytes = nullptr);

// The largest tensor this process allocates, for a server that must bound what one client's graph
// may take (and for fuzzing): 1..kMaxTensorBytes, kMaxTensorBytes by default. Process-wide.
void SetTensorByteLimit(int64_t bytes);
int64_t TensorByteLimit();

// Where a buffer's memory comes from and goes back to.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // RESOURCE_EXHAUSTED when out of memory.
  virtual absl::StatusOr<void*> Allocate(size_t size, size_t alignment) = 0;
  virtual void Free(void* ptr, size_t size) = 0;
  // True when the host may read and write the memory directly.
  virtual bool host_accessible() const = 0;
  // The device whose memory this is; nullptr for host memory.
  virtual Device* device() const { return nullptr; }
};

// The process-wide allocator of aligned host memory.
Allocator* HostAllocator();

// The allocator of string tensors' buffers: host memory holding `size / sizeof(std::string)`
// std::string objects, constructed empty by Allocate and destroyed by Free. Tensor::Allocate uses
// it for every string tensor; other callers never need it.
Allocator* StringAllocator();

// Minimum alignment of every tensor buffer Tessera allocates in host memory.
inline constexpr size_t kTensorAlignment = 64;

// A block of memory owned by an allocator, freed when the last reference goes.
class TensorBuffer {
 public:
  TensorBuffer(Allocator* allocator, void* data, size_t size)
      : allocator_(allocator), data_(data), size_(size) {}
  ~TensorBuffer() {
    if (data_ != nullptr) allocator_->Free(data_, size_);
  }
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  Allocator* allocator() const { return allocator_; }
  bool host_accessible() const { return allocator_->host_accessible(); }
  // Buffers owned by the runtime (constants computed once per executor) are immutable: nothing
  // may write them, and values handed to a client are copied out of them.
  void MarkImmutable() { immutable_ = true; }
  bool immutable() const { return immutable_; }

 private:
  Allocator* allocator_;
  void* data_;
  size_t size_;
  bool immutable_ = false;
};

// A dtype, a shape and a buffer. Fixed-size types are flat arrays of their elements in any
// device's memory. String tensors (TSR_DTYPE_STRING) hold std::string objects and live in host
// memory only: the C ABI has no string layout, so plugins never see them, DataTypeSize(string)
// stays 0 and TotalBytes() is 0 for them (copy them with DeepCopy, not memcpy).
class Tensor {
 public:
  // An uninitialized tensor (dtype DT_INVALID, no buffer).
  Tensor() = default;
  // A host-memory tensor (empty strings for a string tensor); aborts on out-of-memory like
  // operator new (use Allocate to handle it).
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(DataType dtype, const TensorShape& shape, std::shared_ptr<TensorBuffer> buffer)
      : dtype_(dtype), shape_(shape), buffer_(std::move(buffer)) {}

  // A tensor in `allocator`'s memory. A string tensor gets StringAllocator()'s buffer of empty
  // strings; INVALID_ARGUMENT when `allocator` is not host memory (strings never leave the host),
  // for a shape CheckTensorSize refuses and for types without a layout (resource, variant);
  // RESOURCE_EXHAUSTED naming the shape and the bytes when the allocator has no memory for it.
  static absl::StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype,
                                         const TensorShape& shape);

  // A scalar or a vector in host memory.
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeOf<T>::value, TensorShape{});
    *t.data<T>() = value;
    return t;
  }
  template <typename T>
  static Tensor Vector(absl::Span<const T> values) {
    Tensor t(DataTypeOf<T>::value, TensorShape{static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
  }
  template <typename T>
  static Tensor FromVector(const TensorShape& shape, absl::Span<const T> values) {
    Tensor t(DataTypeOf<T>::value, shape);
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
  }
  // A string tensor of `shape` holding `values` in row-major order; their number must be the
  // shape's element count.
  static Tensor Strings(const TensorShape& shape, absl::Span<const std::string> values);

  bool IsInitialized() const { return dtype_ != TSR_DTYPE_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t NumElements() const { return shape_.num_elements(); }
  size_t TotalBytes() const { return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_); }
  void* data() const { return buffer_ == nullptr ? nullptr : buffer_->data(); }
  template <typename T>
  T* data() const {
    return static_cast<T*>(data());
  }
  // Host-memory tensors only; flat<std::string>() for string tensors.
  template <typename T>
  absl::Span<T> flat() const {
    return absl::Span<T>(data<T>(), static_cast<size_t>(NumElements()));
  }
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }
  bool host_accessible() const { return buffer_ == nullptr || buffer_->host_accessible(); }
  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && buffer_ == other.buffer_;
  }
  // True when this is the only reference to the buffer (it may be reused in place).
  bool RefCountIsOne() const {
    return buffer_ != nullptr && buffer_.use_count() == 1 && !buffer_->immutable();
  }
  // A host-memory copy with its own buffer (each string copied for a string tensor).
  absl::StatusOr<Tensor> DeepCopy() const;
  // For a string tensor: true when its buffer holds its strings (made by Allocate, or sharing such
  // a buffer), so flat<std::string>() may be read; false for one assembled around another buffer.
  bool HoldsStrings() const;

  // The same buffer seen with another shape of the same element count.
  Tensor Reshaped(const TensorShape& shape) const { return Tensor(dtype_, shape, buffer_); }
  // Like Reshaped, but takes the buffer instead of sharing it (no reference-count traffic).
  // Afterwards this tensor keeps its dtype and shape but has no buffer.
  Tensor TakeBufferAs(const TensorShape& shape) {
    return Tensor(dtype_, shape, std::move(buffer_));
  }

  // "float [2,3] 1 2 3 4 5 6"; at most `max_entries` values (host memory only).
  std::string DebugString(int max_entries = 6) const;
  // The first `max_entries` values, space separated ("..." when there are more); strings are
  // quoted and C-escaped: "a\n" "b".
  std::string SummarizeValues(int max_entries) const;

 private:
  DataType dtype_ = TSR_DTYPE_INVALID;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_TENSOR_H_
