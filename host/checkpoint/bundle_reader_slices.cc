// BundleReader's slice reads: a part of a tensor saved whole, or a tensor assembled from slices.
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"

namespace tessera {
namespace checkpoint {

absl::StatusOr<std::vector<TensorSlice>> BundleReader::StoredSlices(absl::string_view key,
                                                                    const Entry& full) const {
  std::vector<TensorSlice> stored;
  if (full.proto.slices_size() == 0) {
    stored.push_back(TensorSlice::Full(full.shape.rank()));
    return stored;
  }
  const auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index '", index_name_, "' is corrupt: tensor '", key, "' ", what));
  };
  for (const tensorflow::TensorSliceProto& proto : full.proto.slices()) {
    absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
    if (!slice.ok()) return corrupt(absl::StrCat("has a ", slice.status().message()));
    absl::StatusOr<TensorShape> shape = slice->SliceShape(full.shape);
    if (!shape.ok()) return corrupt(absl::StrCat("has a stored ", shape.status().message()));
    stored.push_back(*std::move(slice));
  }
  // The assembly below counts covered elements, which is only right for disjoint slices.
  for (size_t i = 0; i < stored.size(); ++i) {
    for (size_t j = i + 1; j < stored.size(); ++j) {
      if (stored[i].Overlaps(stored[j])) {
        return corrupt(absl::StrCat("has overlapping stored slices '", stored[i].ToString(),
                                    "' and '", stored[j].ToString(), "'"));
      }
    }
  }
  return stored;
}

absl::StatusOr<BundleReader::Entry> BundleReader::StoredSliceEntry(
    absl::string_view key, const Entry& full, const TensorSlice& stored) const {
  if (full.proto.slices_size() == 0) return full;
  const std::string display = SliceDisplayName(key, stored);
  absl::StatusOr<Entry> entry = GetEntry(EncodeTensorNameSlice(key, stored), display);
  if (absl::IsNotFound(entry.status())) {
    return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "' is corrupt: tensor '",
                                            display, "' is listed but has no entry"));
  }
  if (!entry.ok()) return entry.status();
  absl::StatusOr<TensorShape> expected = stored.SliceShape(full.shape);
  if (entry->proto.dtype() != full.proto.dtype() || entry->shape != *expected ||
      entry->proto.slices_size() != 0) {
    return absl::DataLossError(absl::StrCat(
        "checkpoint '", prefix_, "' is corrupt: tensor '", display, "' is stored as ",
        StoredDtypeName(entry->proto.dtype()), " ", entry->shape.DebugString(),
        entry->proto.slices_size() != 0 ? " with slices of its own" : "", ", expected ",
        StoredDtypeName(full.proto.dtype()), " ", expected->DebugString()));
  }
  return entry;
}

absl::StatusOr<Tensor> BundleReader::ReadSlice(absl::string_view key, const Entry& full,
                                               const TensorSlice& slice) {
  RETURN_IF_ERROR(CheckSupportedDtype(full.proto.dtype(), key));
  const auto dtype = static_cast<DataType>(full.proto.dtype());
  absl::StatusOr<TensorShape> slice_shape = slice.SliceShape(full.shape);
  if (!slice_shape.ok()) {
    return WithContext(slice_shape.status(),
                       absl::StrCat("cannot read a slice of tensor '", key, "'"));
  }
  const bool saved_whole = full.proto.slices_size() == 0;
  if (saved_whole && slice.CoversShape(full.shape)) return ReadValue(full, key);
  ASSIGN_OR_RETURN(std::vector<TensorSlice> stored, StoredSlices(key, full));

  // A stored slice equal to the request is returned as read.
  for (const TensorSlice& candidate : stored) {
    if (candidate == slice ||
        (candidate.CoversShape(full.shape) && slice.CoversShape(full.shape))) {
      ASSIGN_OR_RETURN(Entry entry, StoredSliceEntry(key, full, candidate));
      ASSIGN_OR_RETURN(Tensor value, ReadValue(entry, SliceDisplayName(key, candidate)));
      return value.Reshaped(*slice_shape);
    }
  }
  if (dtype == TSR_DTYPE_STRING) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot read slice '", slice.ToString(), "' of string tensor '", key, "' of checkpoint '",
        prefix_, "': string tensors are read as stored, whole or by slice"));
  }

  // Otherwise the stored slices that intersect the request must cover it exactly.
  std::vector<TensorSlice> parts;
  int64_t covered = 0;
  for (const TensorSlice& candidate : stored) {
    TensorSlice common;
    if (!slice.Intersect(candidate, &common)) continue;
    covered += common.SliceShape(full.shape)->num_elements();
    parts.push_back(candidate);
  }
  if (covered != slice_shape->num_elements()) {
    std::vector<std::string> names;
    for (const TensorSlice& s : stored) names.push_back(s.ToString());
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint '", prefix_, "' does not have sufficient slices of partitioned tensor '", key,
        "' to restore slice '", slice.ToString(), "' (stored slices: ", absl::StrJoin(names, ", "),
        ")"));
  }

  // Slices of one tensor occupy disjoint bytes of their data files, so together they fit in
  // them: checking that bounds the output's allocation by the files' sizes.
  std::vector<Entry> entries;
  std::map<int, uint64_t> bytes_per_shard;
  for (const TensorSlice& part : parts) {
    ASSIGN_OR_RETURN(Entry entry, StoredSliceEntry(key, full, part));
    const int shard = entry.proto.shard_id();
    if (shard >= 0 && shard < num_shards_ && entry.proto.size() > 0) {
      uint64_t& total = bytes_per_shard[shard];
      total += static_cast<uint64_t>(entry.proto.size());
      ASSIGN_OR_RETURN(const RandomAccessFile* file, DataFile(shard));
      if (total > file->size()) {
        return absl::DataLossError(
            absl::StrCat("checkpoint '", prefix_, "' is corrupt: the slices of tensor '", key,
                         "' in '", file->name(), "' need more than its ", file->size(), " bytes"));
      }
    }
    entries.push_back(std::move(entry));
  }
  ASSIGN_OR_RETURN(Tensor result, Tensor::Allocate(HostAllocator(), dtype, *slice_shape));
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(Tensor value, ReadValue(entries[i], SliceDisplayName(key, parts[i])));
    CopySliceIntersection(full.shape, parts[i], static_cast<const char*>(value.data()), slice,
                          static_cast<char*>(result.data()), DataTypeSize(dtype));
  }
  return result;
}

}  // namespace checkpoint
}  // namespace tessera
