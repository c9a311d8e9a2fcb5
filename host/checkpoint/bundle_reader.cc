// BundleReader: index in memory, data shards opened lazily, values checked and assembled.
#include "host/checkpoint/bundle_reader.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_strings.h"
#include "host/checkpoint/crc32c.h"

namespace tessera {
namespace checkpoint {
namespace {

std::string Hex32(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08" PRIx32, value);
  return buf;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix) {
  return Open(prefix, [](const std::string& path) { return OpenLocalFile(path); });
}

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix,
                                                                 FileOpener opener) {
  std::unique_ptr<BundleReader> reader(new BundleReader(prefix, std::move(opener)));
  RETURN_IF_ERROR(reader->Init());
  return reader;
}

absl::Status BundleReader::Init() {
  index_name_ = MetaFilename(prefix_);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> index = opener_(index_name_);
  if (!index.ok()) {
    return WithContext(index.status(), absl::StrCat("cannot open checkpoint '", prefix_, "'"));
  }
  ASSIGN_OR_RETURN(entries_, ReadTable(**index));
  if (entries_.empty() || !entries_.front().first.empty()) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index '", index_name_, "' is corrupt: it has no header entry"));
  }
  tensorflow::BundleHeaderProto header;
  if (!header.ParseFromString(entries_.front().second)) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", index_name_,
                                            "' is corrupt: its header is not a BundleHeaderProto"));
  }
  RETURN_IF_ERROR(CheckHeader(header, index_name_));
  num_shards_ = header.num_shards();
  const bool stored_little = header.endianness() == tensorflow::BundleHeaderProto::LITTLE;
  swap_bytes_ = stored_little != HostIsLittleEndian();
  return absl::OkStatus();
}

const std::string* BundleReader::FindValue(absl::string_view key) const {
  if (key.empty()) return nullptr;  // the header, not a tensor
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), key,
                       [](const std::pair<std::string, std::string>& entry, absl::string_view k) {
                         return absl::string_view(entry.first) < k;
                       });
  if (it == entries_.end() || it->first != key) return nullptr;
  return &it->second;
}

bool BundleReader::Contains(absl::string_view key) const { return FindValue(key) != nullptr; }

absl::StatusOr<BundleReader::Entry> BundleReader::GetEntry(absl::string_view key,
                                                           absl::string_view display_key) const {
  const std::string* value = FindValue(key);
  if (value == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Key ", display_key, " not found in checkpoint '", prefix_, "'"));
  }
  Entry entry;
  if (!entry.proto.ParseFromString(*value)) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", index_name_,
                                            "' is corrupt: the entry of tensor '", display_key,
                                            "' is not a BundleEntryProto"));
  }
  absl::StatusOr<TensorShape> shape = ShapeFromProto(entry.proto.shape());
  if (!shape.ok()) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", index_name_,
                                            "' is corrupt: the entry of tensor '", display_key,
                                            "' has an invalid ", shape.status().message()));
  }
  entry.shape = *std::move(shape);
  return entry;
}

absl::StatusOr<const RandomAccessFile*> BundleReader::DataFile(int shard_id) {
  std::lock_guard<std::mutex> lock(data_mu_);
  auto it = data_files_.find(shard_id);
  if (it != data_files_.end()) return it->second.get();
  const std::string path = DataFilename(prefix_, shard_id, num_shards_);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = opener_(path);
  if (!file.ok()) {
    return WithContext(file.status(),
                       absl::StrCat("data file ", shard_id, " of checkpoint '", prefix_, "'"));
  }
  const RandomAccessFile* raw = file->get();
  data_files_.emplace(shard_id, *std::move(file));
  return raw;
}

absl::Status BundleReader::LookupDtypeAndShape(absl::string_view key, DataType* dtype,
                                               TensorShape* shape) {
  ASSIGN_OR_RETURN(Entry entry, GetEntry(key, key));
  const int stored = entry.proto.dtype();
  if (stored < 1 || stored > TSR_DTYPE_UINT64) {
    return absl::UnimplementedError(absl::StrCat("tensor '", key, "' has dtype ",
                                                 StoredDtypeName(stored),
                                                 ", which Tessera has no DataType for"));
  }
  *dtype = static_cast<DataType>(stored);
  *shape = entry.shape;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TensorSlice>> BundleReader::LookupTensorSlices(absl::string_view key) {
  ASSIGN_OR_RETURN(Entry entry, GetEntry(key, key));
  std::vector<TensorSlice> slices;
  for (const tensorflow::TensorSliceProto& proto : entry.proto.slices()) {
    absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
    if (!slice.ok()) {
      return absl::DataLossError(absl::StrCat("checkpoint index '", index_name_,
                                              "' is corrupt: tensor '", key, "' has a ",
                                              slice.status().message()));
    }
    slices.push_back(*std::move(slice));
  }
  return slices;
}

std::vector<std::string> BundleReader::Keys() const {
  std::set<std::string> slice_keys;
  for (size_t i = 1; i < entries_.size(); ++i) {
    tensorflow::BundleEntryProto entry;
    if (!entry.ParseFromString(entries_[i].second)) continue;
    for (const tensorflow::TensorSliceProto& proto : entry.slices()) {
      absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
      if (slice.ok()) slice_keys.insert(EncodeTensorNameSlice(entries_[i].first, *slice));
    }
  }
  std::vector<std::string> keys;
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (slice_keys.count(entries_[i].first) == 0) keys.push_back(entries_[i].first);
  }
  return keys;
}

absl::StatusOr<Tensor> BundleReader::ReadValue(const Entry& entry, absl::string_view key) {
  const tensorflow::BundleEntryProto& proto = entry.proto;
  RETURN_IF_ERROR(CheckSupportedDtype(proto.dtype(), key));
  const auto dtype = static_cast<DataType>(proto.dtype());
  const bool is_string = dtype == TSR_DTYPE_STRING;
  const size_t element_size = DataTypeSize(dtype);
  const auto elements = static_cast<uint64_t>(entry.shape.num_elements());
  const auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat("checkpoint '", prefix_, "' is corrupt: tensor '", key, "' ", what));
  };
  if (is_string && proto.size() < 0) return corrupt(absl::StrCat("has size ", proto.size()));
  if (!is_string &&
      (elements > std::numeric_limits<uint64_t>::max() / element_size || proto.size() < 0 ||
       static_cast<uint64_t>(proto.size()) != elements * element_size)) {
    return corrupt(absl::StrCat("has ", proto.size(), " bytes stored but ", DataTypeString(dtype),
                                " ", entry.shape.DebugString(), " needs ",
                                elements * element_size));
  }
  if (proto.shard_id() < 0 || proto.shard_id() >= num_shards_) {
    return corrupt(absl::StrCat("is in data shard ", proto.shard_id(), " of ", num_shards_));
  }
  if (proto.offset() < 0) return corrupt(absl::StrCat("has offset ", proto.offset()));
  const auto offset = static_cast<uint64_t>(proto.offset());
  const auto size = static_cast<uint64_t>(proto.size());
  ASSIGN_OR_RETURN(const RandomAccessFile* file, DataFile(proto.shard_id()));
  if (offset > file->size() || size > file->size() - offset) {
    return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "' is corrupt: tensor '", key,
                                            "' lies at bytes [", offset, ", ", offset + size,
                                            ") but data file '", file->name(), "' has ",
                                            file->size(), " bytes (truncated?)"));
  }
  if (is_string) {
    // Bounded by the data file's size, checked above.
    std::string bytes(size, '\0');
    if (size > 0) {
      RETURN_IF_ERROR(WithContext(file->Read(offset, size, bytes.data()),
                                  absl::StrCat("while reading tensor '", key, "'")));
    }
    return DecodeStringTensor(bytes, entry.shape, crc32c::Unmask(proto.crc32c()),
                              /*big_endian=*/HostIsLittleEndian() == swap_bytes_,
                              absl::StrCat("checkpoint '", prefix_, "' is corrupt: string tensor '",
                                           key, "' in data file '", file->name(), "'"));
  }
  ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(HostAllocator(), dtype, entry.shape));
  char* data = static_cast<char*>(tensor.data());
  if (size > 0) {
    RETURN_IF_ERROR(WithContext(file->Read(offset, size, data),
                                absl::StrCat("while reading tensor '", key, "'")));
  }
  const uint32_t stored_crc = crc32c::Unmask(proto.crc32c());
  const uint32_t actual_crc = size == 0 ? 0 : crc32c::Value(data, size);
  if (stored_crc != actual_crc) {
    return absl::DataLossError(absl::StrCat("checksum mismatch for tensor '", key,
                                            "' in data file '", file->name(), "' (", size,
                                            " bytes at offset ", offset, "): stored ",
                                            Hex32(stored_crc), ", computed ", Hex32(actual_crc)));
  }
  if (swap_bytes_) ByteSwapElements(dtype, data, size);
  return tensor;
}

absl::StatusOr<Tensor> BundleReader::Lookup(absl::string_view key) {
  ASSIGN_OR_RETURN(Entry entry, GetEntry(key, key));
  if (entry.proto.slices_size() == 0) return ReadValue(entry, key);
  return ReadSlice(key, entry, TensorSlice::Full(entry.shape.rank()));
}

absl::StatusOr<Tensor> BundleReader::LookupSlice(absl::string_view key, const TensorSlice& slice) {
  ASSIGN_OR_RETURN(Entry entry, GetEntry(key, key));
  return ReadSlice(key, entry, slice);
}

absl::StatusOr<Tensor> BundleReader::LookupShapeAndSlice(absl::string_view key,
                                                         absl::string_view shape_and_slice) {
  if (shape_and_slice.empty()) return Lookup(key);
  ASSIGN_OR_RETURN(ShapeAndSlice spec, ParseShapeAndSlice(shape_and_slice));
  ASSIGN_OR_RETURN(Entry entry, GetEntry(key, key));
  if (spec.full_shape != entry.shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor_name = ", key, "; shape in shape_and_slice spec ", spec.full_shape.DebugString(),
        " ('", shape_and_slice, "') does not match the shape stored in checkpoint '", prefix_,
        "': ", entry.shape.DebugString()));
  }
  return ReadSlice(key, entry, spec.slice);
}

}  // namespace checkpoint
}  // namespace tessera
