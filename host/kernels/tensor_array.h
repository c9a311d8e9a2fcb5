// TensorArray and Stack: the resources behind TensorFlow's TensorArray*V3 and Stack*V2 ops, and
// the handle tensors that carry them on graph edges.
//
// Lifetime: TensorFlow creates both in the step's resource container, so they live for one step.
// Here the handle tensor owns its resource (a shared reference): a TensorArray or stack lives while
// some tensor of the step still holds its handle, and handles can be neither fed nor fetched, so it
// never outlives the step that created it. Close releases the elements at once.
//
// Elements are kept by reference (a write stores the value's buffer, a read hands it out); only
// aggregation (gradient arrays), zeros, gather, scatter, concat and split touch element bytes, and
// they do it through the device's own copies, so any device's memory works.
#ifndef TESSERA_HOST_KERNELS_TENSOR_ARRAY_H_
#define TESSERA_HOST_KERNELS_TENSOR_ARRAY_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/tensor.h"

namespace tessera {

class Device;

// What a handle tensor may own.
class StepResource {
 public:
  virtual ~StepResource();
  // The name errors use (tensor_array_name / stack_name, else the creating node's name).
  virtual const std::string& name() const = 0;
};

// A host-memory resource scalar that owns `resource`.
Tensor MakeStepResourceHandle(std::shared_ptr<StepResource> resource);
// The resource a handle names; INVALID_ARGUMENT when `handle` is not such a handle (a variable's,
// or one whose resource is gone) or names another kind (`what`: "TensorArray", "Stack").
absl::StatusOr<std::shared_ptr<StepResource>> StepResourceFromHandle(const Tensor& handle,
                                                                     const char* what);

// Copies `bytes` bytes from `src` (at byte `src_offset`) into `dst` (at `dst_offset`), both
// tensors of `device`'s memory (or host memory): memcpy for host memory, the plugin's
// device-to-device copy on the compute stream otherwise.
absl::Status CopyTensorBytes(Device* device, const Tensor& src, size_t src_offset, Tensor* dst,
                             size_t dst_offset, size_t bytes);

// A tensor of zeros in `device`'s memory.
absl::StatusOr<Tensor> ZerosOnDevice(Device* device, DataType dtype, const TensorShape& shape);

struct TensorArrayOptions {
  std::string name;
  DataType dtype = TSR_DTYPE_FLOAT;
  PartialShape element_shape;  // unknown rank by default
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  // Gradient arrays: writes to one index add up, and unwritten entries read as zeros of the shape
  // recorded from the forward array.
  bool multiple_writes_aggregate = false;
  bool is_grad = false;
};

// TensorFlow's TensorArray: a fixed (or, with dynamic_size, growing) list of tensors of one dtype,
// each written once and read once (clear_after_read) or many times. Thread-safe.
class TensorArray final : public StepResource {
 public:
  TensorArray(TensorArrayOptions options, int32_t size);
  // RESOURCE_EXHAUSTED instead of an abort when `size` entries do not fit in memory.
  static absl::StatusOr<std::shared_ptr<TensorArray>> Create(TensorArrayOptions options,
                                                             int32_t size);

  const std::string& name() const override { return options_.name; }
  DataType dtype() const { return options_.dtype; }
  PartialShape element_shape() const;
  bool dynamic_size() const;

  // Stores `value` at `index` (growing a dynamic array); aggregates into a gradient array.
  absl::Status Write(Device* device, int32_t index, const Tensor& value);
  // All writes, in order; stops at the first error.
  absl::Status WriteMany(Device* device, absl::Span<const int32_t> indices,
                         absl::Span<const Tensor> values);
  // The tensor at `index` (zeros for an unwritten entry whose shape is known).
  absl::Status Read(Device* device, int32_t index, Tensor* value);
  absl::Status ReadMany(Device* device, absl::Span<const int32_t> indices,
                        std::vector<Tensor>* values);
  absl::StatusOr<int32_t> Size() const;
  // Drops every element; any later use is an error.
  void Close();
  // The gradient array for `source`, created on first use with this array's size and the shapes
  // written so far (each with `shape_to_prepend` in front); later calls return the same array.
  // The forward array stops growing once it has one.
  absl::StatusOr<std::shared_ptr<TensorArray>> Grad(const std::string& source,
                                                    const TensorShape& shape_to_prepend);

 private:
  struct Entry {
    Tensor tensor;  // uninitialized for an entry that only records a shape (virtual zeros)
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  absl::Status CheckOpenLocked() const;
  absl::Status GrowLocked(size_t size);
  absl::Status WriteLocked(Device* device, int32_t index, const Tensor& value);
  absl::Status ReadLocked(Device* device, int32_t index, Tensor* value);

  TensorArrayOptions options_;
  mutable std::mutex mu_;
  bool closed_ = false;
  bool gradients_disallowed_ = false;
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, std::shared_ptr<TensorArray>> grads_;
};

// TensorFlow's stack (StackV2): the forward loop of a while-loop gradient pushes values, the
// backward loop pops them. Thread-safe.
class Stack final : public StepResource {
 public:
  // `max_size` < 0 means unbounded.
  Stack(std::string name, DataType elem_type, int32_t max_size)
      : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}

  const std::string& name() const override { return name_; }
  absl::Status Push(const Tensor& value);
  absl::StatusOr<Tensor> Pop(DataType expected);
  void Close();

 private:
  absl::Status CheckOpenLocked() const;

  const std::string name_;
  const DataType elem_type_;
  const int32_t max_size_;
  std::mutex mu_;
  bool closed_ = false;
  std::vector<Tensor> values_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_TENSOR_ARRAY_H_
