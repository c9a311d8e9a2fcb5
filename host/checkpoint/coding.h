// Little-endian fixed-width and varint integer encodings used by the checkpoint index format.
#ifndef TESSERA_HOST_CHECKPOINT_CODING_H_
#define TESSERA_HOST_CHECKPOINT_CODING_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tessera {
namespace checkpoint {

inline void PutFixed32(std::string* dst, uint32_t value) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t value) {
  PutFixed32(dst, static_cast<uint32_t>(value & 0xffffffffu));
  PutFixed32(dst, static_cast<uint32_t>(value >> 32));
}

// REQUIRES: `p` points at 4 readable bytes.
inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) | (static_cast<uint32_t>(u[3]) << 24);
}

// REQUIRES: `p` points at 8 readable bytes.
inline uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

inline void PutVarint64(std::string* dst, uint64_t value) {
  while (value >= 0x80) {
    dst->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  dst->push_back(static_cast<char>(value));
}

inline void PutVarint32(std::string* dst, uint32_t value) { PutVarint64(dst, value); }

// Reads a varint of at most `max_bits` bits from the front of `input` and advances it. Returns
// false (leaving `input` unspecified) when the bytes run out or the value does not fit.
inline bool GetVarint(absl::string_view* input, int max_bits, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < max_bits && !input->empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(input->front());
    input->remove_prefix(1);
    const uint64_t bits = byte & 0x7f;
    // The last byte may only carry the bits that remain.
    if (max_bits - shift < 7 && (bits >> (max_bits - shift)) != 0) return false;
    result |= bits << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

inline bool GetVarint64(absl::string_view* input, uint64_t* value) {
  return GetVarint(input, 64, value);
}

inline bool GetVarint32(absl::string_view* input, uint32_t* value) {
  uint64_t wide = 0;
  if (!GetVarint(input, 32, &wide)) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_CODING_H_
