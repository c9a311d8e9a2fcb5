// BundleWriter: writes a checkpoint in TensorFlow's V2 format (a tensor bundle) that TensorFlow's
// tf.train.Saver / tf.train.Checkpoint and Tessera's BundleReader both read.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_WRITER_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_WRITER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/checkpoint/file_io.h"
#include "host/checkpoint/proto/tensor_bundle.pb.h"
#include "host/checkpoint/tensor_slice.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {

// Writes "<prefix>.data-00000-of-00001" (tensor bytes, in the order added) and "<prefix>.index"
// (a sorted table of BundleEntryProto per key, header under the empty key). Both are written to
// temporary files beside their final names and renamed into place by Finish, data first, so a
// reader never sees a half-written checkpoint. Missing directories of the prefix are created.
//
// Supported: every fixed-size dtype of the runtime (float, double, half, bfloat16, the integers,
// bool, complex, quantized types) and strings (TensorFlow's length-prefixed layout,
// bundle_strings.h), any shape. Not thread-safe. A failed write sticks: later calls return it.
class BundleWriter {
 public:
  // The data file is created here: its errors (PERMISSION_DENIED, NOT_FOUND, ...) show up now.
  static absl::StatusOr<std::unique_ptr<BundleWriter>> Create(const std::string& prefix);
  // Removes the temporary data file when Finish was not reached.
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Stores `value` (a host-memory tensor) under `key`. INVALID_ARGUMENT for an empty key (that
  // is the header's), a key added before or a string tensor without its strings
  // (Tensor::HoldsStrings); UNIMPLEMENTED for resources and variants;
  // FAILED_PRECONDITION for a tensor not in host memory or a writer already finished.
  absl::Status Add(absl::string_view key, const Tensor& value);

  // Stores `slice_value`, the part `slice` of a tensor `full_name` of shape `full_shape`, as
  // TensorFlow's partitioned variables do: the full tensor's entry lists its slices and each slice
  // has its own entry (key EncodeTensorNameSlice). A slice that covers the whole shape is stored
  // with Add. INVALID_ARGUMENT when the slice does not fit `full_shape`, `slice_value`'s shape is
  // not the slice's, the dtype or full shape differs from an earlier slice of the same name, the
  // slice overlaps an earlier one, or `full_name` was stored whole with Add.
  absl::Status AddSlice(absl::string_view full_name, const TensorShape& full_shape,
                        const TensorSlice& slice, const Tensor& slice_value);

  // Closes the data file, writes the index and renames both into place.
  absl::Status Finish();

  const std::string& prefix() const { return prefix_; }

 private:
  explicit BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {}
  absl::Status AddEntry(absl::string_view key, const Tensor& value);

  std::string prefix_;
  std::string temp_data_path_;
  std::unique_ptr<WritableFile> data_;
  uint64_t data_size_ = 0;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  absl::Status status_;
  bool finished_ = false;
};

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_WRITER_H_
