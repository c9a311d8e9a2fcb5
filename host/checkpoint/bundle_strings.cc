// String tensors in tensor bundles: TensorFlow's length-prefixed layout with its two checksums.
#include "host/checkpoint/bundle_strings.h"

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/crc32c.h"

namespace tessera {
namespace checkpoint {
namespace {

// Extends `crc` by `value`'s `width` bytes in little-endian order, or big-endian.
uint32_t ExtendInteger(uint32_t crc, uint64_t value, int width, bool big_endian) {
  char bytes[8];
  for (int i = 0; i < width; ++i) {
    const int shift = 8 * (big_endian ? width - 1 - i : i);
    bytes[i] = static_cast<char>((value >> shift) & 0xff);
  }
  return crc32c::Extend(crc, bytes, static_cast<size_t>(width));
}

// TensorFlow checksums a length as a uint32 when it fits (what older checkpoints did), else as a
// uint64.
uint32_t ExtendLength(uint32_t crc, uint64_t length, bool big_endian) {
  return ExtendInteger(crc, length, length <= std::numeric_limits<uint32_t>::max() ? 4 : 8,
                       big_endian);
}

}  // namespace

std::string EncodeStringTensor(const Tensor& value, uint32_t* crc) {
  const absl::Span<const std::string> strings =
      value.NumElements() == 0 ? absl::Span<const std::string>() : value.flat<std::string>();
  constexpr bool kBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  std::string out;
  uint32_t checksum = 0;
  size_t total = 0;
  for (const std::string& s : strings) {
    PutVarint64(&out, s.size());
    checksum = ExtendLength(checksum, s.size(), kBigEndian);
    total += s.size();
  }
  const uint32_t masked = crc32c::Mask(checksum);
  const size_t at = out.size();
  out.resize(at + 4);
  for (int i = 0; i < 4; ++i) {
    const int shift = 8 * (kBigEndian ? 3 - i : i);
    out[at + static_cast<size_t>(i)] = static_cast<char>((masked >> shift) & 0xff);
  }
  checksum = crc32c::Extend(checksum, out.data() + at, 4);
  out.reserve(out.size() + total);
  for (const std::string& s : strings) {
    out.append(s);
    checksum = crc32c::Extend(checksum, s.data(), s.size());
  }
  *crc = checksum;
  return out;
}

absl::StatusOr<Tensor> DecodeStringTensor(absl::string_view data, const TensorShape& shape,
                                          uint32_t stored_crc, bool big_endian,
                                          absl::string_view what) {
  const auto corrupt = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(what, ": ", why));
  };
  const auto n = static_cast<uint64_t>(shape.num_elements());
  // Each length takes a byte at least, and the lengths' checksum four.
  if (data.size() < 4 || n > data.size() - 4) {
    return corrupt(absl::StrCat("its ", data.size(), " stored bytes cannot hold the lengths of ", n,
                                " strings and their checksum"));
  }
  absl::string_view rest = data;
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint32_t checksum = 0;
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (!GetVarint64(&rest, &lengths[i])) return corrupt("a string length is malformed");
    if (lengths[i] > data.size()) {
      return corrupt(absl::StrCat("string ", i, " has length ", lengths[i], ", more than the ",
                                  data.size(), " bytes stored"));
    }
    checksum = ExtendLength(checksum, lengths[i], big_endian);
    total += lengths[i];  // at most twice data.size(): no overflow
    if (total > data.size()) {
      return corrupt(absl::StrCat("the string lengths add up to more than the ", data.size(),
                                  " bytes stored"));
    }
  }
  if (rest.size() < 4) return corrupt("the checksum of the string lengths is missing");
  uint32_t stored_lengths_crc = 0;
  for (int i = 0; i < 4; ++i) {
    const int shift = 8 * (big_endian ? 3 - i : i);
    stored_lengths_crc |= static_cast<uint32_t>(static_cast<uint8_t>(rest[i])) << shift;
  }
  if (stored_lengths_crc != crc32c::Mask(checksum)) {
    return corrupt("the checksum of the string lengths does not match");
  }
  checksum = crc32c::Extend(checksum, rest.data(), 4);
  rest.remove_prefix(4);
  if (total != rest.size()) {
    return corrupt(absl::StrCat("the string lengths add up to ", total, " bytes but ", rest.size(),
                                " follow them"));
  }
  checksum = crc32c::Extend(checksum, rest.data(), rest.size());
  if (checksum != stored_crc) return corrupt("checksum mismatch");
  ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(HostAllocator(), TSR_DTYPE_STRING, shape));
  std::string* out = n == 0 ? nullptr : tensor.data<std::string>();
  for (uint64_t i = 0; i < n; ++i) {
    out[i].assign(rest.data(), lengths[i]);
    rest.remove_prefix(lengths[i]);
  }
  return tensor;
}

}  // namespace checkpoint
}  // namespace tessera
