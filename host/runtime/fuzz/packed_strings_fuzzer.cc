// libFuzzer target for the unpacking of string tensors that arrive from a transport (the ABI's
// packed layout): the first byte picks the element count (0..255), the rest is the buffer. Any
// bytes give a string tensor or DATA_LOSS, never a read outside the buffer; what unpacks packs
// back to the very same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "host/runtime/packed_strings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int64_t count = data[0];
  // A heap copy of exactly the buffer's bytes (operator new[] aligns to 16, as the host's buffers
  // are aligned to 8 at least), so that AddressSanitizer sees any read past its end.
  std::unique_ptr<unsigned char[]> copy(new unsigned char[size - 1]);
  unsigned char* buffer = copy.get();
  if (size > 1) std::memcpy(buffer, data + 1, size - 1);
  absl::StatusOr<tessera::Tensor> strings =
      tessera::UnpackStrings(tessera::TensorShape{count}, buffer, size - 1);
  if (!strings.ok()) {
    if (strings.status().code() != absl::StatusCode::kDataLoss) std::abort();
    return 0;
  }
  if (strings->NumElements() != count || tessera::PackedStringsSize(*strings) != size - 1) {
    std::abort();
  }
  std::unique_ptr<uint64_t[]> again(new uint64_t[(size - 1 + 7) / 8 + 1]);
  tessera::PackStrings(*strings, again.get());
  if (std::memcmp(again.get(), buffer, size - 1) != 0) std::abort();
  return 0;
}
