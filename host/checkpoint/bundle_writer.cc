// BundleWriter: data file through a temporary name, entries kept sorted, index written last.
#include "host/checkpoint/bundle_writer.h"

#include <atomic>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_strings.h"
#include "host/checkpoint/crc32c.h"
#include "host/checkpoint/table_builder.h"

namespace tessera {
namespace checkpoint {
namespace {

// A suffix unlikely to collide with another writer's temporary file for the same prefix.
std::string TempSuffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  const uint64_t random = (static_cast<uint64_t>(device()) << 32) ^ device() ^ counter++;
  return absl::StrCat(".tempstate", random);
}

// Writes `contents` to a temporary file beside `path`, then renames it into place.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  const std::string temp = path + TempSuffix();
  absl::Status status;
  {
    absl::StatusOr<std::unique_ptr<WritableFile>> file = WritableFile::Create(temp);
    if (!file.ok()) return file.status();
    status = (*file)->Append(contents);
    absl::Status closed = (*file)->Close();
    if (status.ok()) status = closed;
  }
  if (status.ok()) status = RenameFile(temp, path);
  if (!status.ok()) RemoveFile(temp).IgnoreError();
  return status;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BundleWriter>> BundleWriter::Create(const std::string& prefix) {
  if (prefix.empty()) return absl::InvalidArgumentError("checkpoint prefix is empty");
  RETURN_IF_ERROR(WithContext(CreateDirectories(Dirname(prefix)),
                              absl::StrCat("while creating checkpoint '", prefix, "'")));
  std::unique_ptr<BundleWriter> writer(new BundleWriter(prefix));
  writer->temp_data_path_ = DataFilename(prefix, 0, 1) + TempSuffix();
  ASSIGN_OR_RETURN(writer->data_, WritableFile::Create(writer->temp_data_path_));
  return writer;
}

BundleWriter::~BundleWriter() {
  if (data_ != nullptr) {
    data_->Close().IgnoreError();
    RemoveFile(temp_data_path_).IgnoreError();
  }
}

absl::Status BundleWriter::Add(absl::string_view key, const Tensor& value) {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint writer for '", prefix_, "' is already finished"));
  }
  RETURN_IF_ERROR(status_);
  if (key.empty()) {
    return absl::InvalidArgumentError(
        "cannot store a tensor under the empty key, which holds the checkpoint header");
  }
  if (entries_.count(std::string(key)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", key, "' was already added to checkpoint '", prefix_, "'"));
  }
  return AddEntry(key, value);
}

absl::Status BundleWriter::AddEntry(absl::string_view key, const Tensor& value) {
  if (!value.IsInitialized()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", key, "' is uninitialized"));
  }
  const bool is_string = value.dtype() == TSR_DTYPE_STRING;
  if (!IsDenseDataType(value.dtype()) && !is_string) {
    return absl::UnimplementedError(absl::StrCat("cannot save tensor '", key, "' of dtype ",
                                                 DataTypeString(value.dtype()),
                                                 ": only strings and fixed-size dtypes are "
                                                 "supported"));
  }
  if (!value.host_accessible()) {
    return absl::FailedPreconditionError(
        absl::StrCat("tensor '", key, "' is not in host memory; copy it to the host first"));
  }
  if (is_string && !value.HoldsStrings()) {
    return absl::InvalidArgumentError(absl::StrCat("string tensor '", key, "' of shape ",
                                                   value.shape().DebugString(),
                                                   " has no buffer of strings"));
  }
  std::string encoded;
  uint32_t crc = 0;
  if (is_string) encoded = EncodeStringTensor(value, &crc);
  const size_t bytes = is_string ? encoded.size() : value.TotalBytes();
  const char* data = is_string ? encoded.data() : static_cast<const char*>(value.data());
  if (!is_string && bytes > 0) crc = crc32c::Value(data, bytes);
  tensorflow::BundleEntryProto entry;
  entry.set_dtype(static_cast<tensorflow::DataType>(value.dtype()));
  ShapeToProto(value.shape(), entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(data_size_));
  entry.set_size(static_cast<int64_t>(bytes));
  entry.set_crc32c(crc32c::Mask(crc));
  if (bytes > 0) {
    status_ = WithContext(data_->Append(absl::string_view(data, bytes)),
                          absl::StrCat("while saving tensor '", key, "'"));
    RETURN_IF_ERROR(status_);
  }
  data_size_ += bytes;
  entries_.emplace(std::string(key), std::move(entry));
  return absl::OkStatus();
}

absl::Status BundleWriter::AddSlice(absl::string_view full_name, const TensorShape& full_shape,
                                    const TensorSlice& slice, const Tensor& slice_value) {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint writer for '", prefix_, "' is already finished"));
  }
  RETURN_IF_ERROR(status_);
  if (full_name.empty()) {
    return absl::InvalidArgumentError(
        "cannot store a tensor under the empty key, which holds the checkpoint header");
  }
  absl::StatusOr<TensorShape> slice_shape = slice.SliceShape(full_shape);
  if (!slice_shape.ok()) {
    return WithContext(slice_shape.status(),
                       absl::StrCat("while saving a slice of '", full_name, "'"));
  }
  if (slice_value.shape() != *slice_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("slice '", slice.ToString(), "' of tensor '", full_name, "' with shape ",
                     full_shape.DebugString(), " has shape ", slice_shape->DebugString(),
                     " but the value given has shape ", slice_value.shape().DebugString()));
  }
  if (slice.CoversShape(full_shape)) return Add(full_name, slice_value);

  const std::string name(full_name);
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    const tensorflow::BundleEntryProto& full = it->second;
    if (full.slices_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", name,
                                                     "' was already added whole to checkpoint '",
                                                     prefix_, "'; cannot add a slice of it"));
    }
    if (full.dtype() != static_cast<int>(slice_value.dtype())) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice '", slice.ToString(), "' of tensor '", name, "' has dtype ",
                       DataTypeString(slice_value.dtype()), " but earlier slices have dtype ",
                       StoredDtypeName(full.dtype())));
    }
    absl::StatusOr<TensorShape> stored_shape = ShapeFromProto(full.shape());
    if (!stored_shape.ok() || *stored_shape != full_shape) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice '", slice.ToString(), "' of tensor '", name, "' has full shape ",
                       full_shape.DebugString(), " but earlier slices have full shape ",
                       stored_shape.ok() ? stored_shape->DebugString() : "?"));
    }
    for (const tensorflow::TensorSliceProto& proto : full.slices()) {
      absl::StatusOr<TensorSlice> earlier = TensorSlice::FromProto(proto);
      if (earlier.ok() && earlier->Overlaps(slice)) {
        return absl::InvalidArgumentError(absl::StrCat("slice '", slice.ToString(), "' of tensor '",
                                                       name, "' overlaps the slice '",
                                                       earlier->ToString(), "' added before"));
      }
    }
  }
  const std::string slice_key = EncodeTensorNameSlice(name, slice);
  RETURN_IF_ERROR(WithContext(AddEntry(slice_key, slice_value),
                              absl::StrCat("slice '", slice.ToString(), "' of '", name, "'")));
  tensorflow::BundleEntryProto& full = entries_[name];
  full.set_dtype(static_cast<tensorflow::DataType>(slice_value.dtype()));
  ShapeToProto(full_shape, full.mutable_shape());
  slice.ToProto(full.add_slices());
  return absl::OkStatus();
}

absl::Status BundleWriter::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint writer for '", prefix_, "' is already finished"));
  }
  RETURN_IF_ERROR(status_);
  const std::string data_path = DataFilename(prefix_, 0, 1);
  status_ = data_->Close();
  if (status_.ok()) status_ = RenameFile(temp_data_path_, data_path);
  if (!status_.ok()) return status_;
  data_.reset();  // renamed: nothing left to clean up

  TableBuilder table;
  table.Add(kHeaderEntryKey, MakeHeader(/*num_shards=*/1).SerializeAsString());
  for (const auto& [key, entry] : entries_) table.Add(key, entry.SerializeAsString());
  status_ = WriteFileAtomically(MetaFilename(prefix_), table.Finish());
  if (!status_.ok()) return status_;
  finished_ = true;
  return absl::OkStatus();
}

}  // namespace checkpoint
}  // namespace tessera
