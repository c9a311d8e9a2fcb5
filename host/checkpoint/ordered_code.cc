// Ordered-code encoders and decoders for unsigned numbers, signed numbers and strings.
#include "host/checkpoint/ordered_code.h"

namespace tessera {
namespace checkpoint {
namespace ordered_code {
namespace {

// Bytes WriteSignedNumIncreasing uses for `value`: each byte carries 7 bits of the value once
// the sign, size and delimiter bits are paid for.
int SignedLength(int64_t value) {
  const uint64_t magnitude = value < 0 ? ~static_cast<uint64_t>(value) : value;
  const int bits = magnitude == 0 ? 0 : 64 - __builtin_clzll(magnitude);
  return bits / 7 + 1;
}

}  // namespace

void WriteNumIncreasing(std::string* dest, uint64_t value) {
  char bytes[8];
  int length = 0;
  for (uint64_t v = value; v != 0; v >>= 8) ++length;
  for (int i = 0; i < length; ++i) {
    bytes[i] = static_cast<char>((value >> (8 * (length - 1 - i))) & 0xff);
  }
  dest->push_back(static_cast<char>(length));
  dest->append(bytes, length);
}

void WriteString(std::string* dest, absl::string_view value) {
  for (char c : value) {
    if (c == '\x00') {
      dest->append("\x00\xff", 2);
    } else if (c == '\xff') {
      dest->append("\xff\x00", 2);
    } else {
      dest->push_back(c);
    }
  }
  dest->append("\x00\x01", 2);
}

void WriteSignedNumIncreasing(std::string* dest, int64_t value) {
  const int length = SignedLength(value);
  // The value sign-extended to 10 bytes, big-endian.
  unsigned char bytes[10];
  const unsigned char sign = value < 0 ? 0xff : 0x00;
  bytes[0] = sign;
  bytes[1] = sign;
  for (int i = 0; i < 8; ++i) {
    bytes[2 + i] = static_cast<unsigned char>((static_cast<uint64_t>(value) >> (56 - 8 * i)));
  }
  unsigned char* begin = bytes + 10 - length;
  // The header is `length` one bits (sign and size bits) from the top; XOR turns the leading copies
  // of the sign into it for positive numbers and into zeros for negative ones.
  const uint32_t header = ((1u << length) - 1) << (16 - length);
  begin[0] ^= static_cast<unsigned char>(header >> 8);
  if (length >= 2) begin[1] ^= static_cast<unsigned char>(header & 0xff);
  dest->append(reinterpret_cast<const char*>(begin), length);
}

bool ReadNumIncreasing(absl::string_view* src, uint64_t* value) {
  if (src->empty()) return false;
  const size_t length = static_cast<unsigned char>(src->front());
  if (length > 8 || src->size() < length + 1) return false;
  uint64_t result = 0;
  for (size_t i = 0; i < length; ++i) {
    result = (result << 8) | static_cast<unsigned char>((*src)[1 + i]);
  }
  src->remove_prefix(length + 1);
  *value = result;
  return true;
}

bool ReadString(absl::string_view* src, std::string* value) {
  std::string result;
  size_t i = 0;
  while (i < src->size()) {
    const char c = (*src)[i];
    if (c != '\x00' && c != '\xff') {
      result.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= src->size()) return false;
    const char next = (*src)[i + 1];
    if (c == '\x00' && next == '\x01') {
      src->remove_prefix(i + 2);
      *value = std::move(result);
      return true;
    }
    if (c == '\x00' && next == '\xff') {
      result.push_back('\x00');
    } else if (c == '\xff' && next == '\x00') {
      result.push_back('\xff');
    } else {
      return false;
    }
    i += 2;
  }
  return false;
}

bool ReadSignedNumIncreasing(absl::string_view* src, int64_t* value) {
  if (src->empty()) return false;
  const auto byte_at = [src](size_t i) { return static_cast<unsigned char>((*src)[i]); };
  const bool negative = (byte_at(0) & 0x80) == 0;
  const unsigned char flip = negative ? 0xff : 0x00;
  const unsigned char first = byte_at(0) ^ flip;
  int length;
  if (first != 0xff) {
    // Leading one bits of the first byte (1..7).
    length = __builtin_clz(static_cast<unsigned>(~first & 0xff)) - 24;
  } else {
    if (src->size() < 2) return false;
    const unsigned char second = byte_at(1) ^ flip;
    if (second < 0x80) {
      length = 8;
    } else if (second < 0xc0) {
      length = 9;
    } else if (second == 0xc0 && src->size() >= 3 && (byte_at(2) ^ flip) < 0x80) {
      length = 10;
    } else {
      return false;
    }
  }
  if (src->size() < static_cast<size_t>(length)) return false;
  uint64_t bits = negative ? ~uint64_t{0} : 0;
  for (int i = 0; i < length; ++i) bits = (bits << 8) | byte_at(i);
  // Turn the header bits that remain in the low 8 bytes back into copies of the sign.
  uint64_t header_mask = 0;
  if (length <= 8) {
    header_mask = ((uint64_t{1} << length) - 1) << (8 * length - length);
  } else if (length == 9) {
    header_mask = uint64_t{1} << 63;
  }
  bits ^= header_mask;
  const auto result = static_cast<int64_t>(bits);
  if (SignedLength(result) != length) return false;  // not the shortest encoding
  src->remove_prefix(length);
  *value = result;
  return true;
}

}  // namespace ordered_code
}  // namespace checkpoint
}  // namespace tessera
