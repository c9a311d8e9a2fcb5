// Writes a LevelDB-style sorted table (SSTable) the way TensorFlow's table builder does, which
// is the format of a checkpoint's ".index" file.
//
// Layout: data blocks, an empty metaindex block, an index block, then a 48-byte footer (the two
// block handles as varints padded to 40 bytes, then the magic number). Each block holds entries
// (varint32 shared key bytes, varint32 unshared key bytes, varint32 value size, key suffix, value)
// followed by its restart offsets (fixed32 each) and their count (fixed32), and is followed by a
// 5-byte trailer: the compression type (always 0, none) and the masked CRC32C of block + type.
#ifndef TESSERA_HOST_CHECKPOINT_TABLE_BUILDER_H_
#define TESSERA_HOST_CHECKPOINT_TABLE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tessera {
namespace checkpoint {

inline constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
inline constexpr size_t kBlockTrailerSize = 5;
inline constexpr size_t kBlockHandleMaxEncodedLength = 20;
inline constexpr size_t kTableFooterSize = 2 * kBlockHandleMaxEncodedLength + 8;
inline constexpr char kNoCompression = 0x0;
inline constexpr char kSnappyCompression = 0x1;

// TensorFlow's defaults, which its checkpoint writer uses.
struct TableOptions {
  size_t block_size = 262144;
  int block_restart_interval = 16;
};

// Builds a table in memory. Keys must be added in strictly increasing byte order.
class TableBuilder {
 public:
  explicit TableBuilder(TableOptions options = TableOptions());

  // REQUIRES: `key` sorts after every key added before (checked: aborts otherwise).
  void Add(absl::string_view key, absl::string_view value);
  // The whole table. The builder must not be used afterwards.
  std::string Finish();

 private:
  class BlockBuilder {
   public:
    explicit BlockBuilder(int restart_interval) : restart_interval_(restart_interval) {}
    void Add(absl::string_view key, absl::string_view value);
    bool empty() const { return buffer_.empty(); }
    size_t SizeEstimate() const { return buffer_.size() + 4 * restarts_.size() + 4; }
    // Appends the restart array and returns the block; Reset() before reuse.
    const std::string& Finish();
    void Reset();

   private:
    int restart_interval_;
    std::string buffer_;
    std::vector<uint32_t> restarts_{0};
    int counter_ = 0;
    std::string last_key_;
  };

  // Writes the data block out and remembers its handle for the index.
  void Flush();
  void WriteBlock(BlockBuilder* block, uint64_t* offset, uint64_t* size);

  TableOptions options_;
  std::string out_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::string last_key_;
  int64_t num_entries_ = 0;
  // An index entry is written once the next block's first key is known, so that its key can be a
  // short separator between the two blocks.
  bool pending_index_entry_ = false;
  uint64_t pending_offset_ = 0;
  uint64_t pending_size_ = 0;
};

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_TABLE_BUILDER_H_
