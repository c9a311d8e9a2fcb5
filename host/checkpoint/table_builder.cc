// TableBuilder: prefix-compressed blocks, separator keys in the index, footer.
#include "host/checkpoint/table_builder.h"

#include <algorithm>

#include "base/status_macros.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/crc32c.h"

namespace tessera {
namespace checkpoint {
namespace {

// Shortens `start` to a key in [start, limit) when one byte can be incremented, as TensorFlow
// does, so index keys stay short.
void ShortestSeparator(std::string* start, absl::string_view limit) {
  const size_t min_length = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < min_length && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= min_length) return;  // one is a prefix of the other
  const auto byte = static_cast<uint8_t>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

// The shortest key >= `key`: the first byte that is not 0xff, incremented.
void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<uint8_t>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

void EncodeBlockHandle(std::string* dst, uint64_t offset, uint64_t size) {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

}  // namespace

void TableBuilder::BlockBuilder::Add(absl::string_view key, absl::string_view value) {
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t min_length = std::min(last_key_.size(), key.size());
    while (shared < min_length && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
}

const std::string& TableBuilder::BlockBuilder::Finish() {
  for (uint32_t restart : restarts_) PutFixed32(&buffer_, restart);
  PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  return buffer_;
}

void TableBuilder::BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  last_key_.clear();
}

TableBuilder::TableBuilder(TableOptions options)
    : options_(options),
      data_block_(options.block_restart_interval),
      index_block_(/*restart_interval=*/1) {}

void TableBuilder::Add(absl::string_view key, absl::string_view value) {
  if (num_entries_ > 0) {
    TESSERA_CHECK(key > absl::string_view(last_key_),
                  "table keys must be added in increasing order");
    // An entry at least twice the block size gets a block of its own.
    if (key.size() + value.size() >= 2 * options_.block_size) Flush();
  }
  if (pending_index_entry_) {
    ShortestSeparator(&last_key_, key);
    std::string handle;
    EncodeBlockHandle(&handle, pending_offset_, pending_size_);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  last_key_.assign(key.data(), key.size());
  ++num_entries_;
  data_block_.Add(key, value);
  if (data_block_.SizeEstimate() >= options_.block_size) Flush();
}

void TableBuilder::Flush() {
  if (data_block_.empty()) return;
  WriteBlock(&data_block_, &pending_offset_, &pending_size_);
  pending_index_entry_ = true;
}

void TableBuilder::WriteBlock(BlockBuilder* block, uint64_t* offset, uint64_t* size) {
  const std::string& contents = block->Finish();
  *offset = out_.size();
  *size = contents.size();
  out_.append(contents);
  const char type = kNoCompression;
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, &type, 1);
  out_.push_back(type);
  PutFixed32(&out_, crc32c::Mask(crc));
  block->Reset();
}

std::string TableBuilder::Finish() {
  Flush();
  uint64_t metaindex_offset = 0;
  uint64_t metaindex_size = 0;
  BlockBuilder metaindex_block(options_.block_restart_interval);
  WriteBlock(&metaindex_block, &metaindex_offset, &metaindex_size);
  if (pending_index_entry_) {
    ShortSuccessor(&last_key_);
    std::string handle;
    EncodeBlockHandle(&handle, pending_offset_, pending_size_);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  uint64_t index_offset = 0;
  uint64_t index_size = 0;
  WriteBlock(&index_block_, &index_offset, &index_size);
  std::string footer;
  EncodeBlockHandle(&footer, metaindex_offset, metaindex_size);
  EncodeBlockHandle(&footer, index_offset, index_size);
  footer.resize(2 * kBlockHandleMaxEncodedLength, '\0');
  PutFixed64(&footer, kTableMagicNumber);
  out_.append(footer);
  return std::move(out_);
}

}  // namespace checkpoint
}  // namespace tessera
