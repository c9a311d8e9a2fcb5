// ReadTable: footer, index block, then every data block in order.
#include "host/checkpoint/table_reader.h"

#include <cinttypes>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/crc32c.h"
#include "host/checkpoint/table_builder.h"

namespace tessera {
namespace checkpoint {
namespace {

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

class TableReader {
 public:
  explicit TableReader(const RandomAccessFile& file) : file_(file) {}

  absl::StatusOr<TableEntries> Read();

 private:
  absl::Status Corrupt(absl::string_view what) const {
    return absl::DataLossError(
        absl::StrCat("checkpoint index '", file_.name(), "' is corrupt: ", what));
  }
  absl::Status DecodeHandle(absl::string_view* input, absl::string_view what,
                            BlockHandle* handle) const;
  // The block's contents (without trailer), checksum verified.
  absl::StatusOr<std::string> ReadBlock(const BlockHandle& handle, absl::string_view what);
  // Appends the block's entries to `entries` (keys and values as stored).
  absl::Status ParseBlock(const std::string& block, absl::string_view what, TableEntries* entries);

  const RandomAccessFile& file_;
  uint64_t block_bytes_read_ = 0;
  uint64_t decoded_bytes_ = 0;
  uint64_t decoded_limit_ = 0;
};

absl::Status TableReader::DecodeHandle(absl::string_view* input, absl::string_view what,
                                       BlockHandle* handle) const {
  if (!GetVarint64(input, &handle->offset) || !GetVarint64(input, &handle->size)) {
    return Corrupt(absl::StrCat("bad block handle for ", what));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> TableReader::ReadBlock(const BlockHandle& handle,
                                                   absl::string_view what) {
  // Blocks lie before the footer; checking that first bounds the allocation by the file size.
  const uint64_t limit = file_.size() - kTableFooterSize;
  if (handle.offset > limit || handle.size > limit - handle.offset ||
      kBlockTrailerSize > limit - handle.offset - handle.size) {
    return Corrupt(absl::StrCat(what, " at offset ", handle.offset, " with ", handle.size,
                                " bytes lies outside the file (", file_.size(), " bytes)"));
  }
  // Blocks do not overlap, so all of them together fit in the file; this also stops an index
  // that names one block many times.
  block_bytes_read_ += handle.size + kBlockTrailerSize;
  if (block_bytes_read_ > file_.size()) {
    return Corrupt(
        absl::StrCat(what, " at offset ", handle.offset, " overlaps blocks read before it"));
  }
  std::string block(handle.size + kBlockTrailerSize, '\0');
  RETURN_IF_ERROR(file_.Read(handle.offset, block.size(), block.data()));
  const size_t n = handle.size;
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(block.data() + n + 1));
  const uint32_t actual = crc32c::Value(block.data(), n + 1);
  if (stored != actual) {
    char detail[64];
    std::snprintf(detail, sizeof(detail), "stored 0x%08" PRIx32 ", computed 0x%08" PRIx32, stored,
                  actual);
    return Corrupt(absl::StrCat("checksum mismatch in ", what, " at offset ", handle.offset, " (",
                                detail, ")"));
  }
  const char type = block[n];
  if (type == kSnappyCompression) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoint index '", file_.name(), "' has a snappy-compressed ", what,
        "; only uncompressed blocks are supported (TensorFlow writes checkpoint indexes "
        "uncompressed)"));
  }
  if (type != kNoCompression) {
    return Corrupt(absl::StrCat(what, " at offset ", handle.offset, " has unknown block type ",
                                static_cast<int>(static_cast<unsigned char>(type))));
  }
  block.resize(n);
  return block;
}

absl::Status TableReader::ParseBlock(const std::string& block, absl::string_view what,
                                     TableEntries* entries) {
  if (block.size() < 4) return Corrupt(absl::StrCat(what, " is shorter than 4 bytes"));
  const uint32_t num_restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts > (block.size() - 4) / 4) {
    return Corrupt(absl::StrCat(what, " claims ", num_restarts, " restart points in ", block.size(),
                                " bytes"));
  }
  // An empty restart array marks an empty block, as TensorFlow reads it.
  if (num_restarts == 0) return absl::OkStatus();
  const size_t entries_end = block.size() - 4 * (size_t{num_restarts} + 1);
  absl::string_view input(block.data(), entries_end);
  std::string key;
  while (!input.empty()) {
    uint32_t shared = 0;
    uint32_t non_shared = 0;
    uint32_t value_size = 0;
    if (!GetVarint32(&input, &shared) || !GetVarint32(&input, &non_shared) ||
        !GetVarint32(&input, &value_size)) {
      return Corrupt(absl::StrCat("bad entry header in ", what));
    }
    if (shared > key.size() || non_shared > input.size() ||
        value_size > input.size() - non_shared) {
      return Corrupt(absl::StrCat("bad entry in ", what, " (", shared, " shared and ", non_shared,
                                  " new key bytes, ", value_size, " value bytes, previous key of ",
                                  key.size(), " bytes, ", input.size(), " bytes left)"));
    }
    decoded_bytes_ += size_t{shared} + non_shared + value_size;
    if (decoded_bytes_ > decoded_limit_) {
      return Corrupt(absl::StrCat("its entries decode to more than ", decoded_limit_, " bytes"));
    }
    key.resize(shared);
    key.append(input.data(), non_shared);
    input.remove_prefix(non_shared);
    if (!entries->empty() && !(entries->back().first < key)) {
      return Corrupt(absl::StrCat("keys out of order in ", what, " (an entry of ", key.size(),
                                  " bytes after one of ", entries->back().first.size(), ")"));
    }
    entries->emplace_back(key, std::string(input.substr(0, value_size)));
    input.remove_prefix(value_size);
  }
  return absl::OkStatus();
}

absl::StatusOr<TableEntries> TableReader::Read() {
  if (file_.size() < kTableFooterSize) {
    return Corrupt(absl::StrCat("it has ", file_.size(), " bytes, fewer than the ",
                                kTableFooterSize, " of a table footer"));
  }
  decoded_limit_ = 64 * file_.size() + (uint64_t{1} << 20);
  char footer[kTableFooterSize];
  RETURN_IF_ERROR(file_.Read(file_.size() - kTableFooterSize, kTableFooterSize, footer));
  const uint64_t magic = DecodeFixed64(footer + kTableFooterSize - 8);
  if (magic != kTableMagicNumber) {
    char detail[64];
    std::snprintf(detail, sizeof(detail), "0x%016" PRIx64 ", expected 0x%016" PRIx64, magic,
                  kTableMagicNumber);
    return absl::DataLossError(
        absl::StrCat("'", file_.name(), "' is not a checkpoint index: bad magic number ", detail));
  }
  absl::string_view handles(footer, kTableFooterSize - 8);
  BlockHandle metaindex;
  BlockHandle index;
  RETURN_IF_ERROR(DecodeHandle(&handles, "the metaindex block", &metaindex));
  RETURN_IF_ERROR(DecodeHandle(&handles, "the index block", &index));

  // The metaindex block (empty in TensorFlow's files) is only checked, not interpreted.
  RETURN_IF_ERROR(ReadBlock(metaindex, "metaindex block").status());
  ASSIGN_OR_RETURN(std::string index_block, ReadBlock(index, "index block"));
  TableEntries index_entries;
  RETURN_IF_ERROR(ParseBlock(index_block, "index block", &index_entries));
  index_block.clear();

  TableEntries entries;
  for (size_t i = 0; i < index_entries.size(); ++i) {
    const std::string what = absl::StrCat("data block ", i);
    absl::string_view value = index_entries[i].second;
    BlockHandle handle;
    RETURN_IF_ERROR(DecodeHandle(&value, what, &handle));
    ASSIGN_OR_RETURN(std::string block, ReadBlock(handle, what));
    RETURN_IF_ERROR(ParseBlock(block, what, &entries));
  }
  return entries;
}

}  // namespace

absl::StatusOr<TableEntries> ReadTable(const RandomAccessFile& file) {
  return TableReader(file).Read();
}

}  // namespace checkpoint
}  // namespace tessera
