// Reads a whole sorted table (a checkpoint's ".index" file) into memory, checking every block.
#ifndef TESSERA_HOST_CHECKPOINT_TABLE_READER_H_
#define TESSERA_HOST_CHECKPOINT_TABLE_READER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "host/checkpoint/file_io.h"

namespace tessera {
namespace checkpoint {

using TableEntries = std::vector<std::pair<std::string, std::string>>;

// The table's entries in key order. Errors name the file:
//  - DATA_LOSS: shorter than a footer, bad magic number, a block handle or block outside the
//    file, a block checksum mismatch, an unknown block type, a malformed block or entry, keys
//    out of order, or entries that decode to far more bytes than the file holds (64 times its
//    size plus 1 MiB: prefix compression cannot legitimately expand further);
//  - UNIMPLEMENTED: a snappy-compressed block (TensorFlow writes checkpoint indexes
//    uncompressed).
// Reads at most the file's size in blocks; never trusts a length before checking it against it.
absl::StatusOr<TableEntries> ReadTable(const RandomAccessFile& file);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_TABLE_READER_H_
