// The tensor bundle encoding of string tensors: TensorFlow writes every element's length, a
// checksum of the lengths, then the elements' bytes.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_STRINGS_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_STRINGS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {

// The stored bytes of a string tensor:
//   varint64 length of each element | fixed32 masked CRC32C of the lengths | element bytes
// where the lengths' CRC32C runs over each length as a 4-byte integer (8 bytes for lengths of
// 2^32 and more) in the writer's byte order. `*crc` receives the CRC32C (unmasked) of the lengths
// as checksummed, the 4 checksum bytes and the element bytes: the entry's crc32c.
// REQUIRES: `value` is a string tensor holding its strings (Tensor::HoldsStrings).
std::string EncodeStringTensor(const Tensor& value, uint32_t* crc);

// The string tensor of `shape` stored as `data` (an entry's bytes), checked against the entry's
// unmasked CRC32C `stored_crc`. `big_endian` for a checkpoint written on a big-endian host.
// DATA_LOSS naming `what` when the bytes are malformed or a checksum differs; lengths are checked
// against the bytes there are before any string is made.
absl::StatusOr<Tensor> DecodeStringTensor(absl::string_view data, const TensorShape& shape,
                                          uint32_t stored_crc, bool big_endian,
                                          absl::string_view what);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_STRINGS_H_
