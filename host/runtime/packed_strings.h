// String tensors in the ABI's packed layout (plugin_api common.h): N + 1 uint64 offsets, then the
// bytes. The host keeps string tensors as std::string arrays and converts at the boundary: when a
// plugin kernel reads a string input, when a kernel's string output comes back, and when a string
// tensor crosses a transport. Unpacking reads untrusted bytes (a transport's) and checks all of it.
#ifndef TESSERA_HOST_RUNTIME_PACKED_STRINGS_H_
#define TESSERA_HOST_RUNTIME_PACKED_STRINGS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/runtime/tensor.h"

namespace tessera {

// Bytes of the packed form of `strings` (a string tensor holding its strings).
size_t PackedStringsSize(const Tensor& strings);

// Writes the packed form of `strings` into `out`, which has PackedStringsSize(strings) bytes
// and is 8-byte aligned.
void PackStrings(const Tensor& strings, void* out);

// A host-memory buffer (a uint8 vector tensor, 8-byte aligned) holding the packed form.
absl::StatusOr<Tensor> PackStringsToBuffer(const Tensor& strings);

// A string tensor of `shape` from `byte_size` packed bytes at `data`. DATA_LOSS naming the
// problem (wrong size, offsets not starting at 0, decreasing, or past the end) for a malformed
// buffer; nothing is read outside [data, data + byte_size).
absl::StatusOr<Tensor> UnpackStrings(const TensorShape& shape, const void* data, size_t byte_size);

// Checks a packed buffer of `num_elements` strings as UnpackStrings does, without unpacking.
absl::Status CheckPackedStrings(int64_t num_elements, const void* data, size_t byte_size);

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_PACKED_STRINGS_H_
