// Fuzz target: bytes turned into a checkpoint index and one data file, opened with BundleReader,
// then every key looked up whole and in slices. Any input must give a status, never a crash,
// hang, huge allocation or sanitizer report.
//
// Input layout: a little-endian uint32 n, then n bytes, then the rest as the data file
// "<prefix>.data-00000-of-00001" (inputs under 4 bytes are all index). When n's top bit is clear
// the n bytes are the raw "<prefix>.index". When it is set they are records (varint key size,
// key, varint value size, value) that the target builds into a valid table after a valid header,
// fixing the CRC32C of each entry that parses and points inside the data file: checksums would
// otherwise stop nearly every mutation before the code behind them runs.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/crc32c.h"
#include "host/checkpoint/table_builder.h"

namespace {

namespace ckpt = tessera::checkpoint;

constexpr char kPrefix[] = "fuzz/ckpt";
constexpr uint32_t kRecordsFlag = 0x80000000u;

std::string BuildIndex(absl::string_view records, const std::string& data) {
  std::map<std::string, std::string> entries;
  while (!records.empty()) {
    uint64_t key_size = 0;
    uint64_t value_size = 0;
    if (!ckpt::GetVarint64(&records, &key_size) || key_size > records.size()) break;
    std::string key(records.substr(0, key_size));
    records.remove_prefix(key_size);
    if (!ckpt::GetVarint64(&records, &value_size) || value_size > records.size()) break;
    std::string value(records.substr(0, value_size));
    records.remove_prefix(value_size);
    tensorflow::BundleEntryProto entry;
    if (entry.ParseFromString(value) && entry.offset() >= 0 && entry.size() >= 0 &&
        static_cast<uint64_t>(entry.offset()) <= data.size() &&
        static_cast<uint64_t>(entry.size()) <= data.size() - entry.offset()) {
      entry.set_crc32c(ckpt::crc32c::Mask(
          ckpt::crc32c::Value(data.data() + entry.offset(), static_cast<size_t>(entry.size()))));
      value = entry.SerializeAsString();
    }
    if (!key.empty()) entries[key] = value;
  }
  ckpt::TableBuilder table;
  table.Add("", ckpt::MakeHeader(1).SerializeAsString());
  for (const auto& [key, value] : entries) table.Add(key, value);
  return table.Finish();
}

void Exercise(ckpt::BundleReader* reader) {
  for (const std::string& key : reader->Keys()) {
    tessera::DataType dtype;
    tessera::TensorShape shape;
    if (!reader->LookupDtypeAndShape(key, &dtype, &shape).ok()) continue;
    (void)reader->Lookup(key);
    (void)reader->LookupTensorSlices(key);
    if (shape.rank() == 0) continue;
    // The first half (rounded up) of the outermost dimension, the rest whole.
    std::string spec;
    for (int d = 0; d < shape.rank(); ++d) spec += std::to_string(shape.dim(d)) + " ";
    const int64_t half = (shape.dim(0) + 1) / 2;
    if (half > 0) {
      spec += "0," + std::to_string(half);
      for (int d = 1; d < shape.rank(); ++d) spec += ":-";
      (void)reader->LookupShapeAndSlice(key, spec);
    }
  }
  (void)reader->Lookup("missing");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Protobuf logs every unparseable string field; fuzz inputs have many.
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  std::string index(reinterpret_cast<const char*>(data), size);
  std::string shard;
  if (size >= 4) {
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(data[i]) << (8 * i);
    const size_t index_size = std::min<size_t>(n & ~kRecordsFlag, size - 4);
    index.assign(reinterpret_cast<const char*>(data) + 4, index_size);
    shard.assign(reinterpret_cast<const char*>(data) + 4 + index_size, size - 4 - index_size);
    if ((n & kRecordsFlag) != 0) index = BuildIndex(index, shard);
  }
  const std::string index_name = ckpt::MetaFilename(kPrefix);
  const std::string shard_name = ckpt::DataFilename(kPrefix, 0, 1);
  auto opener =
      [&](const std::string& path) -> absl::StatusOr<std::unique_ptr<ckpt::RandomAccessFile>> {
    if (path == index_name) return ckpt::NewMemoryFile(path, index);
    if (path == shard_name) return ckpt::NewMemoryFile(path, shard);
    return absl::NotFoundError(path);
  };
  absl::StatusOr<std::unique_ptr<ckpt::BundleReader>> reader =
      ckpt::BundleReader::Open(kPrefix, opener);
  if (reader.ok()) Exercise(reader->get());
  return 0;
}
