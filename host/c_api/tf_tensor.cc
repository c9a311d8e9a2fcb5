// Tensors and TF_TString, and their conversion to Tessera's tensors.
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/framework/tensor_proto_util.h"
#include "host/runtime/types.h"

// ---- TF_TString -------------------------------------------------------------------------------
// Byte 0's low two bits hold the type (on every little-endian target that is also the low bits of
// the first word). Small: byte 0 is (size << 2), the bytes follow from byte 1, NUL-terminated.
// Large: word a is (size << 2) | 1, word b the capacity, word c the heap pointer (NUL-terminated).
// View: word a is (size << 2) | 3, word c the viewed bytes.

namespace {

constexpr size_t kSmallCapacity = 22;
static_assert(sizeof(TF_TString) == 24, "TF_TString is 24 bytes");

TF_TString_Type TypeOf(const TF_TString* t) {
  return static_cast<TF_TString_Type>(static_cast<unsigned char>(t->u.raw[0]) & 0x3);
}

}  // namespace

extern "C" {

void TF_StringInit(TF_TString* t) {
  if (t == nullptr) return;
  std::memset(t, 0, sizeof(*t));
}

void TF_StringDealloc(TF_TString* tstr) {
  if (tstr == nullptr) return;
  if (TypeOf(tstr) == TF_TSTR_LARGE) std::free(tstr->u.words.c);
  TF_StringInit(tstr);
}

void TF_StringCopy(TF_TString* dst, const char* src, size_t size) {
  if (dst == nullptr) return;
  if (src == nullptr) size = 0;
  if (size <= kSmallCapacity) {
    char small[kSmallCapacity];
    if (size > 0) std::memcpy(small, src, size);  // `src` may point into `dst`
    TF_StringDealloc(dst);
    dst->u.raw[0] = static_cast<char>(size << 2);
    if (size > 0) std::memcpy(dst->u.raw + 1, small, size);
    dst->u.raw[1 + size] = '\0';
    return;
  }
  char* heap = static_cast<char*>(std::malloc(size + 1));
  if (heap == nullptr) throw std::bad_alloc();
  std::memcpy(heap, src, size);
  heap[size] = '\0';
  TF_StringDealloc(dst);
  dst->u.words.a = (size << 2) | TF_TSTR_LARGE;
  dst->u.words.b = size;
  dst->u.words.c = heap;
}

void TF_StringAssignView(TF_TString* dst, const char* src, size_t size) {
  if (dst == nullptr) return;
  TF_StringDealloc(dst);
  dst->u.words.a = (size << 2) | TF_TSTR_VIEW;
  dst->u.words.c = const_cast<char*>(src == nullptr ? "" : src);
}

const char* TF_StringGetDataPointer(const TF_TString* tstr) {
  if (tstr == nullptr) return "";
  if (TypeOf(tstr) == TF_TSTR_SMALL) return tstr->u.raw + 1;
  return static_cast<const char*>(tstr->u.words.c);
}

TF_TString_Type TF_StringGetType(const TF_TString* str) {
  return str == nullptr ? TF_TSTR_SMALL : TypeOf(str);
}

size_t TF_StringGetSize(const TF_TString* tstr) {
  if (tstr == nullptr) return 0;
  if (TypeOf(tstr) == TF_TSTR_SMALL) return static_cast<unsigned char>(tstr->u.raw[0]) >> 2;
  return tstr->u.words.a >> 2;
}

size_t TF_StringGetCapacity(const TF_TString* str) {
  if (str == nullptr) return 0;
  switch (TypeOf(str)) {
    case TF_TSTR_SMALL: return kSmallCapacity;
    case TF_TSTR_LARGE: return str->u.words.b;
    default: return 0;
  }
}

}  // extern "C"

namespace tessera {
namespace c_api {
namespace {

// The memory of a tensor made by TF_NewTensor: given back through the client's deallocator.
// One per tensor; it deletes itself with the buffer.
class ClientAllocator final : public Allocator {
 public:
  ClientAllocator(void (*deallocator)(void*, size_t, void*), void* arg)
      : deallocator_(deallocator), arg_(arg) {}
  std::string Name() const override { return "client memory"; }
  absl::StatusOr<void*> Allocate(size_t, size_t) override {
    return absl::InternalError("client memory is never allocated by Tessera");
  }
  void Free(void* ptr, size_t size) override {
    if (deallocator_ != nullptr) deallocator_(ptr, size, arg_);
    delete this;
  }
  bool host_accessible() const override { return true; }

 private:
  void (*deallocator_)(void*, size_t, void*);
  void* arg_;
};

// TF_STRING buffers: TF_TString elements, initialised empty and deallocated with the buffer.
class TStringAllocator final : public Allocator {
 public:
  std::string Name() const override { return "TF_TString memory"; }
  absl::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    ASSIGN_OR_RETURN(void* data, HostAllocator()->Allocate(size, alignment));
    auto* strings = static_cast<TF_TString*>(data);
    for (size_t i = 0; i < size / sizeof(TF_TString); ++i) TF_StringInit(&strings[i]);
    return data;
  }
  void Free(void* ptr, size_t size) override {
    auto* strings = static_cast<TF_TString*>(ptr);
    for (size_t i = 0; i < size / sizeof(TF_TString); ++i) TF_StringDealloc(&strings[i]);
    HostAllocator()->Free(ptr, size);
  }
  bool host_accessible() const override { return true; }
};

Allocator* TStrings() {
  static Allocator* const allocator = new TStringAllocator();
  return allocator;
}

// The bytes a tensor of `dtype` and `dims` needs (one TF_TString per string element).
absl::StatusOr<size_t> RequiredBytes(TF_DataType dtype, const int64_t* dims, int num_dims) {
  if (num_dims < 0 || num_dims > 254) {
    return absl::InvalidArgumentError(
        absl::StrCat("a tensor has 0 to 254 dimensions, got ", num_dims));
  }
  if (num_dims > 0 && dims == nullptr) return absl::InvalidArgumentError("dims is NULL");
  if (dtype != TF_STRING && TF_DataTypeSize(dtype) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensors of type ", DataTypeString(static_cast<DataType>(dtype)),
                     " cannot be created through the C API"));
  }
  // Strings are counted as their TF_TString elements: same size as the check's int8 of 24x.
  int64_t bytes = 0;
  RETURN_IF_ERROR(CheckTensorSize(dtype == TF_STRING ? TSR_DTYPE_INT8 : static_cast<DataType>(dtype),
                                  absl::MakeConstSpan(dims, num_dims), &bytes));
  if (dtype == TF_STRING) {
    if (bytes > static_cast<int64_t>(kMaxTensorBytes / sizeof(TF_TString))) {
      return absl::InvalidArgumentError("too many string elements");
    }
    bytes *= static_cast<int64_t>(sizeof(TF_TString));
  }
  return static_cast<size_t>(bytes);
}

// TF_Tensor objects freed on this thread, reused by the next ones made on it: a step through the
// C API makes one per fetched tensor, and the client deletes each, so without reuse every step
// pays an allocation and a free per output.
struct TensorPool {
  static constexpr size_t kMaxKept = 32;
  std::vector<TF_Tensor*> free;
  ~TensorPool() {
    for (TF_Tensor* t : free) delete t;
  }
};
thread_local TensorPool tensor_pool;

TF_Tensor* MakeTensor(TF_DataType dtype, const int64_t* dims, size_t num_dims,
                      std::shared_ptr<TensorBuffer> buffer) {
  TF_Tensor* tensor;
  if (!tensor_pool.free.empty()) {
    tensor = tensor_pool.free.back();
    tensor_pool.free.pop_back();
  } else {
    tensor = new TF_Tensor();
  }
  tensor->dtype = dtype;
  tensor->dims.assign(dims, dims + num_dims);
  tensor->buffer = std::move(buffer);
  return tensor;
}

int64_t ElementCount(const TF_Tensor& t) {
  int64_t n = 1;
  for (int64_t d : t.dims) n *= d;
  return n;
}

}  // namespace

absl::StatusOr<Tensor> ToTensor(const TF_Tensor& t) {
  TensorShape shape(absl::MakeConstSpan(t.dims));
  if (t.dtype != TF_STRING) return Tensor(static_cast<DataType>(t.dtype), shape, t.buffer);
  const auto* strings = static_cast<const TF_TString*>(t.buffer->data());
  std::vector<std::string> values(static_cast<size_t>(ElementCount(t)));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i].assign(TF_StringGetDataPointer(&strings[i]), TF_StringGetSize(&strings[i]));
  }
  return Tensor::Strings(shape, values);
}

absl::StatusOr<TF_Tensor*> FromTensor(const Tensor& tensor) {
  if (!tensor.IsInitialized()) {
    return absl::InternalError("the step produced no value for a fetched tensor");
  }
  if (!tensor.host_accessible()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a fetched tensor of type ", DataTypeString(tensor.dtype()),
                     " is in device memory; fetch it through a host-memory copy"));
  }
  const absl::Span<const int64_t> dims = tensor.shape().dims();
  if (tensor.dtype() == TSR_DTYPE_STRING) {
    const size_t n = static_cast<size_t>(tensor.NumElements());
    ASSIGN_OR_RETURN(void* data, TStrings()->Allocate(n * sizeof(TF_TString), kTensorAlignment));
    auto buffer = std::make_shared<TensorBuffer>(TStrings(), data, n * sizeof(TF_TString));
    auto* strings = static_cast<TF_TString*>(data);
    absl::Span<const std::string> values = tensor.flat<const std::string>();
    for (size_t i = 0; i < n; ++i) TF_StringCopy(&strings[i], values[i].data(), values[i].size());
    return MakeTensor(TF_STRING, dims.data(), dims.size(), std::move(buffer));
  }
  if (DataTypeSize(tensor.dtype()) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a tensor of type ", DataTypeString(tensor.dtype()),
                     " cannot be fetched through the C API"));
  }
  std::shared_ptr<TensorBuffer> buffer = tensor.buffer();
  static const std::shared_ptr<TensorBuffer> empty =
      std::make_shared<TensorBuffer>(HostAllocator(), nullptr, 0);
  if (buffer == nullptr) buffer = empty;
  if (buffer == nullptr) buffer = std::make_shared<TensorBuffer>(HostAllocator(), nullptr, 0);
  return MakeTensor(static_cast<TF_DataType>(tensor.dtype()), dims.data(), dims.size(),
                    std::move(buffer));
}

absl::StatusOr<TF_Tensor*> TensorFromProto(const tensorflow::TensorProto& proto) {
  ASSIGN_OR_RETURN(Tensor tensor, ::tessera::TensorFromProto(proto));
  return FromTensor(tensor);
}

}  // namespace c_api
}  // namespace tessera

using tessera::c_api::RequiredBytes;

extern "C" {

TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims, void* data,
                        size_t len, void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg) {
  absl::StatusOr<size_t> required = RequiredBytes(dtype, dims, num_dims);
  if (!required.ok() || len < *required || (data == nullptr && *required > 0)) {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    return nullptr;
  }
  std::shared_ptr<tessera::TensorBuffer> buffer;
  const bool aligned = reinterpret_cast<uintptr_t>(data) % tessera::kTensorAlignment == 0;
  if (data == nullptr) {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    buffer = std::make_shared<tessera::TensorBuffer>(tessera::HostAllocator(), nullptr, 0);
  } else if (aligned || dtype == TF_STRING) {
    // String elements stay where the client put them (it deallocates them, as TensorFlow's
    // clients do); only fixed-size data needs the runtime's alignment.
    buffer = std::make_shared<tessera::TensorBuffer>(
        new tessera::c_api::ClientAllocator(deallocator, deallocator_arg), data, len);
  } else {
    absl::StatusOr<void*> copy =
        tessera::HostAllocator()->Allocate(*required, tessera::kTensorAlignment);
    if (!copy.ok()) {
      if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
      return nullptr;
    }
    std::memcpy(*copy, data, *required);
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    buffer = std::make_shared<tessera::TensorBuffer>(tessera::HostAllocator(), *copy, *required);
  }
  return tessera::c_api::MakeTensor(dtype, dims, num_dims, std::move(buffer));
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  absl::StatusOr<size_t> required = RequiredBytes(dtype, dims, num_dims);
  if (!required.ok() || len < *required) return nullptr;
  len = *required;  // a larger len is accepted, as TensorFlow does; the tensor holds what it needs
  tessera::Allocator* allocator =
      dtype == TF_STRING ? tessera::c_api::TStrings() : tessera::HostAllocator();
  void* data = nullptr;
  if (len > 0) {
    absl::StatusOr<void*> allocated = allocator->Allocate(len, tessera::kTensorAlignment);
    if (!allocated.ok()) return nullptr;
    data = *allocated;
  }
  return tessera::c_api::MakeTensor(
      dtype, dims, num_dims, std::make_shared<tessera::TensorBuffer>(allocator, data, len));
}

TF_Tensor* TF_TensorMaybeMove(TF_Tensor* t) {
  if (t == nullptr || t->buffer.use_count() != 1 || t->buffer->immutable()) return nullptr;
  return t;
}

void TF_DeleteTensor(TF_Tensor* t) {
  if (t == nullptr) return;
  t->buffer.reset();  // the memory goes back now, whatever happens to the object
  auto& pool = tessera::c_api::tensor_pool;
  if (pool.free.size() < tessera::c_api::TensorPool::kMaxKept) {
    pool.free.push_back(t);
  } else {
    delete t;
  }
}

TF_DataType TF_TensorType(const TF_Tensor* t) {
  return t == nullptr ? static_cast<TF_DataType>(0) : t->dtype;
}

void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims) {
  if (tensor == nullptr || num_dims < 0 || (num_dims > 0 && dims == nullptr)) return;
  int64_t n = 1;
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) return;
    if (dims[i] != 0 && n > std::numeric_limits<int64_t>::max() / dims[i]) return;
    n *= dims[i];
  }
  if (n != tessera::c_api::ElementCount(*tensor)) return;
  tensor->dims.assign(dims, dims + num_dims);
}

int TF_NumDims(const TF_Tensor* t) { return t == nullptr ? 0 : static_cast<int>(t->dims.size()); }

int64_t TF_Dim(const TF_Tensor* t, int dim_index) {
  if (t == nullptr || dim_index < 0 || dim_index >= static_cast<int>(t->dims.size())) return -1;
  return t->dims[dim_index];
}

size_t TF_TensorByteSize(const TF_Tensor* t) {
  if (t == nullptr) return 0;
  const size_t element = t->dtype == TF_STRING ? sizeof(TF_TString) : TF_DataTypeSize(t->dtype);
  return static_cast<size_t>(tessera::c_api::ElementCount(*t)) * element;
}

void* TF_TensorData(const TF_Tensor* t) {
  return t == nullptr || TF_TensorByteSize(t) == 0 ? nullptr : t->buffer->data();
}

int64_t TF_TensorElementCount(const TF_Tensor* tensor) {
  return tensor == nullptr ? 0 : tessera::c_api::ElementCount(*tensor);
}

void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type, TF_Tensor* to,
                          const int64_t* new_dims, int num_new_dims, TF_Status* status) {
  using tessera::c_api::NullArgument;
  using tessera::c_api::SetStatus;
  if (from == nullptr) return SetStatus(status, NullArgument("TF_TensorBitcastFrom", "from"));
  if (to == nullptr) return SetStatus(status, NullArgument("TF_TensorBitcastFrom", "to"));
  if (type == TF_STRING || from->dtype == TF_STRING) {
    return SetStatus(status, absl::InvalidArgumentError(
                                 "TF_TensorBitcastFrom: string tensors cannot be bitcast"));
  }
  absl::StatusOr<size_t> bytes = RequiredBytes(type, new_dims, num_new_dims);
  if (!bytes.ok()) return SetStatus(status, bytes.status());
  if (*bytes != TF_TensorByteSize(from)) {
    return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                 "TF_TensorBitcastFrom: the new type and dims take ", *bytes,
                                 " bytes, but the tensor has ", TF_TensorByteSize(from))));
  }
  to->dtype = type;
  to->dims.assign(new_dims, new_dims + num_new_dims);
  to->buffer = from->buffer;
  tessera::c_api::SetOk(status);
}

bool TF_TensorIsAligned(const TF_Tensor* t) {
  return t == nullptr ||
         reinterpret_cast<uintptr_t>(t->buffer->data()) % tessera::kTensorAlignment == 0;
}

}  // extern "C"
