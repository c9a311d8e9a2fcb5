// BundleReader: reads checkpoints in TensorFlow's V2 format (tensor bundles), whether written by
// TensorFlow (tf.train.Saver, tf.train.Checkpoint, SaveV2) or by Tessera's BundleWriter.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_READER_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_READER_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "host/checkpoint/file_io.h"
#include "host/checkpoint/proto/tensor_bundle.pb.h"
#include "host/checkpoint/table_reader.h"
#include "host/checkpoint/tensor_slice.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {

// Open reads and checks the whole index ("<prefix>.index": every block checksum, the header and
// its versions); data files ("<prefix>.data-<i>-of-<n>") are opened when first needed. Every
// value read is checked against its entry's size and CRC32C, and every length is checked against
// the file it points into before anything is allocated.
//
// Errors: NOT_FOUND for a missing index or data file or an unknown key; DATA_LOSS, naming the
// file and the key, for corrupt or truncated files and checksum mismatches; UNIMPLEMENTED for
// dtypes Tessera's host tensors cannot hold (variants, resources, 8-bit floats, ...) and for part
// of a string tensor other than one stored slice; INVALID_ARGUMENT for a slice request that does
// not fit the stored tensor; FAILED_PRECONDITION for a checkpoint whose format version excludes
// this reader.
//
// Lookups may run concurrently from several threads.
class BundleReader {
 public:
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(const std::string& prefix);
  // Opens files through `opener` instead of the local file system (tests, fuzzing, other
  // storage). Paths passed to it are MetaFilename(prefix) and DataFilename(prefix, i, n).
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(const std::string& prefix,
                                                            FileOpener opener);

  // The stored dtype and shape of a tensor (saved whole or in slices). Resources and variants are
  // reported although Lookup cannot read them; dtypes outside TSR_DataType (8-bit floats, 4-bit
  // integers, reference types) are UNIMPLEMENTED.
  absl::Status LookupDtypeAndShape(absl::string_view key, DataType* dtype, TensorShape* shape);
  // The whole tensor, assembled from its slices when it was saved in slices.
  absl::StatusOr<Tensor> Lookup(absl::string_view key);
  // Part of a tensor, as RestoreV2 with a shape_and_slices entry: read from the whole stored
  // tensor or assembled from stored slices. INVALID_ARGUMENT when `slice` does not fit the stored
  // shape or the stored slices do not cover it.
  absl::StatusOr<Tensor> LookupSlice(absl::string_view key, const TensorSlice& slice);
  // RestoreV2's rule for one tensor: "" reads it whole, otherwise `shape_and_slice` ("4 5 0,2:-")
  // is parsed and its shape must equal the stored one (INVALID_ARGUMENT otherwise).
  absl::StatusOr<Tensor> LookupShapeAndSlice(absl::string_view key,
                                             absl::string_view shape_and_slice);
  // The stored slices of a tensor saved in slices; empty for one saved whole.
  absl::StatusOr<std::vector<TensorSlice>> LookupTensorSlices(absl::string_view key);
  bool Contains(absl::string_view key) const;

  // Tensor names in byte order: neither the header's empty key nor the internal keys of the
  // slices of tensors saved in slices.
  std::vector<std::string> Keys() const;

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return num_shards_; }

 private:
  BundleReader(std::string prefix, FileOpener opener)
      : prefix_(std::move(prefix)), opener_(std::move(opener)) {}
  absl::Status Init();

  // "w (slice 0,2:-)": how messages name a stored slice.
  static std::string SliceDisplayName(absl::string_view key, const TensorSlice& slice) {
    return absl::StrCat(key, " (slice ", slice.ToString(), ")");
  }
  // The entry stored under `key`, parsed, with shape and dtype validated.
  struct Entry {
    tensorflow::BundleEntryProto proto;
    TensorShape shape;
  };
  absl::StatusOr<Entry> GetEntry(absl::string_view key, absl::string_view display_key) const;
  const std::string* FindValue(absl::string_view key) const;
  // The bytes of a tensor stored whole.
  absl::StatusOr<Tensor> ReadValue(const Entry& entry, absl::string_view key);
  // Part of a tensor, from the whole stored tensor or its stored slices (bundle_reader_slices.cc).
  absl::StatusOr<Tensor> ReadSlice(absl::string_view key, const Entry& full,
                                   const TensorSlice& slice);
  // The stored slices of `full` (the whole tensor when saved whole), validated.
  absl::StatusOr<std::vector<TensorSlice>> StoredSlices(absl::string_view key,
                                                        const Entry& full) const;
  // The entry holding the values of `stored`, one of StoredSlices(full).
  absl::StatusOr<Entry> StoredSliceEntry(absl::string_view key, const Entry& full,
                                         const TensorSlice& stored) const;
  absl::StatusOr<const RandomAccessFile*> DataFile(int shard_id);

  std::string prefix_;
  FileOpener opener_;
  std::string index_name_;
  TableEntries entries_;  // sorted by key; entries_[0] is the header
  int num_shards_ = 0;
  bool swap_bytes_ = false;

  std::mutex data_mu_;
  std::map<int, std::unique_ptr<RandomAccessFile>> data_files_;
};

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_READER_H_
