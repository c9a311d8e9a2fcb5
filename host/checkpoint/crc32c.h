// CRC32C (Castagnoli) checksums and the masking that TensorFlow's checkpoint files store.
#ifndef TESSERA_HOST_CHECKPOINT_CRC32C_H_
#define TESSERA_HOST_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace checkpoint {
namespace crc32c {

// The CRC32C of data[0, n) appended to a string whose CRC32C is `crc` (0 for the empty string).
// Uses the SSE4.2 instruction where the CPU has it.
uint32_t Extend(uint32_t crc, const char* data, size_t n);

inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// Checksums stored next to data that may itself hold checksums are masked (rotated and offset),
// as LevelDB and TensorFlow do, so that a CRC of a string containing CRCs stays well distributed.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rotated = masked - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

namespace internal {
// The table implementation alone, for tests that compare it with the SSE4.2 one.
uint32_t ExtendPortableForTest(uint32_t crc, const char* data, size_t n);
}  // namespace internal

}  // namespace crc32c
}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_CRC32C_H_
