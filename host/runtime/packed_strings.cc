// Packing and checked unpacking of string tensors in the ABI's layout.
#include "host/runtime/packed_strings.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace tessera {
namespace {

uint64_t LoadOffset(const void* data, int64_t index) {
  uint64_t value;
  std::memcpy(&value, static_cast<const unsigned char*>(data) + index * sizeof(uint64_t),
              sizeof(value));
  return value;
}

void StoreOffset(void* data, int64_t index, uint64_t value) {
  std::memcpy(static_cast<unsigned char*>(data) + index * sizeof(uint64_t), &value, sizeof(value));
}

}  // namespace

size_t PackedStringsSize(const Tensor& strings) {
  size_t total = TSR_STRING_OFFSETS_SIZE(strings.NumElements());
  for (const std::string& s : strings.flat<std::string>()) total += s.size();
  return total;
}

void PackStrings(const Tensor& strings, void* out) {
  const int64_t n = strings.NumElements();
  unsigned char* bytes = static_cast<unsigned char*>(out) + TSR_STRING_OFFSETS_SIZE(n);
  uint64_t offset = 0;
  int64_t i = 0;
  for (const std::string& s : strings.flat<std::string>()) {
    StoreOffset(out, i++, offset);
    if (!s.empty()) std::memcpy(bytes + offset, s.data(), s.size());
    offset += s.size();
  }
  StoreOffset(out, n, offset);
}

absl::StatusOr<Tensor> PackStringsToBuffer(const Tensor& strings) {
  const size_t size = PackedStringsSize(strings);
  ASSIGN_OR_RETURN(Tensor buffer, Tensor::Allocate(HostAllocator(), TSR_DTYPE_UINT8,
                                                   TensorShape{static_cast<int64_t>(size)}));
  PackStrings(strings, buffer.data());
  return buffer;
}

absl::Status CheckPackedStrings(int64_t num_elements, const void* data, size_t byte_size) {
  if (num_elements < 0 ||
      static_cast<uint64_t>(num_elements) >= (uint64_t{1} << 58)) {
    return absl::DataLossError(
        absl::StrCat("packed strings: ", num_elements, " elements is not a valid count"));
  }
  const size_t offsets_size = TSR_STRING_OFFSETS_SIZE(num_elements);
  if (byte_size < offsets_size || data == nullptr) {
    return absl::DataLossError(absl::StrCat("packed strings: ", byte_size,
                                            " bytes cannot hold the offsets of ", num_elements,
                                            " strings (", offsets_size, " bytes)"));
  }
  const uint64_t bytes_available = byte_size - offsets_size;
  if (LoadOffset(data, 0) != 0) {
    return absl::DataLossError(
        absl::StrCat("packed strings: the first offset is ", LoadOffset(data, 0), ", not 0"));
  }
  uint64_t previous = 0;
  for (int64_t i = 1; i <= num_elements; ++i) {
    const uint64_t offset = LoadOffset(data, i);
    if (offset < previous) {
      return absl::DataLossError(absl::StrCat("packed strings: offset ", i, " (", offset,
                                              ") is below offset ", i - 1, " (", previous, ")"));
    }
    if (offset > bytes_available) {
      return absl::DataLossError(absl::StrCat("packed strings: offset ", i, " (", offset,
                                              ") runs past the ", bytes_available,
                                              " bytes after the offsets"));
    }
    previous = offset;
  }
  if (previous != bytes_available) {
    return absl::DataLossError(absl::StrCat("packed strings: the elements end at byte ", previous,
                                            " but the buffer holds ", bytes_available,
                                            " bytes after the offsets"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> UnpackStrings(const TensorShape& shape, const void* data,
                                     size_t byte_size) {
  const int64_t n = shape.num_elements();
  RETURN_IF_ERROR(CheckPackedStrings(n, data, byte_size));
  ASSIGN_OR_RETURN(Tensor strings, Tensor::Allocate(HostAllocator(), TSR_DTYPE_STRING, shape));
  const char* bytes = static_cast<const char*>(data) + TSR_STRING_OFFSETS_SIZE(n);
  absl::Span<std::string> out = strings.flat<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t begin = LoadOffset(data, i);
    const uint64_t end = LoadOffset(data, i + 1);
    out[i].assign(bytes + begin, end - begin);
  }
  return strings;
}

}  // namespace tessera
