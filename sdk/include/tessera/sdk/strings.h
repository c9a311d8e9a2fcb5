// String tensors in the ABI's packed layout (plugin_api common.h): reading a packed view element
// by element, and writing one from a list of values.
#ifndef TESSERA_SDK_STRINGS_H_
#define TESSERA_SDK_STRINGS_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#include "tessera/plugin_api/common.h"
#include "tessera/sdk/status.h"
#include "tessera/sdk/tensor_view.h"
#include "tessera/sdk/types.h"

namespace tessera::sdk {

// Reads the elements of a packed string view (an input, a tensor attribute). Construct, then
// check ok() once: a malformed buffer (which a host never hands out) is refused, never read out
// of bounds.
class PackedStrings {
 public:
  explicit PackedStrings(const TensorView& view)
      : data_(static_cast<const unsigned char*>(view.raw_data())),
        size_(view.num_elements()),
        byte_size_(view.byte_size()) {
    status_ = Check(view);
  }

  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  int64_t size() const { return size_; }
  // Element `i` (0 <= i < size()); valid as long as the view is.
  std::string_view operator[](int64_t i) const {
    const uint64_t begin = Offset(i);
    return std::string_view(reinterpret_cast<const char*>(data_) + OffsetsSize() + begin,
                            static_cast<size_t>(Offset(i + 1) - begin));
  }

 private:
  size_t OffsetsSize() const { return TSR_STRING_OFFSETS_SIZE(size_); }
  uint64_t Offset(int64_t i) const {
    uint64_t value;
    std::memcpy(&value, data_ + i * sizeof(uint64_t), sizeof(value));
    return value;
  }
  Status Check(const TensorView& view) const {
    if (view.dtype() != TSR_DTYPE_STRING) {
      return InvalidArgument("a view of ", DataTypeName(view.dtype()), " is not a string tensor");
    }
    if (size_ < 0 || byte_size_ < OffsetsSize() || (data_ == nullptr && byte_size_ != 0)) {
      return DataLoss("packed strings: ", byte_size_, " bytes cannot hold ", size_, " offsets");
    }
    uint64_t previous = 0;
    for (int64_t i = 0; i <= size_; ++i) {
      const uint64_t offset = Offset(i);
      if ((i == 0 && offset != 0) || offset < previous || offset > byte_size_ - OffsetsSize()) {
        return DataLoss("packed strings: offset ", i, " (", offset, ") is out of order or range");
      }
      previous = offset;
    }
    if (previous != byte_size_ - OffsetsSize()) {
      return DataLoss("packed strings: the elements end at ", previous, " of ",
                      byte_size_ - OffsetsSize(), " bytes");
    }
    return OkStatus();
  }

  const unsigned char* data_;
  int64_t size_;
  size_t byte_size_;
  Status status_;
};

// Writes `values` (size == the view's element count) into a view from AllocateStringOutput whose
// room was the sum of their sizes.
template <typename Container>
Status WritePackedStrings(const Container& values, TensorView* out) {
  const int64_t n = out->num_elements();
  if (static_cast<int64_t>(values.size()) != n) {
    return InvalidArgument("writing ", values.size(), " strings into a string tensor of ", n,
                           " elements");
  }
  auto* data = static_cast<unsigned char*>(out->raw_data());
  const size_t room = out->byte_size() - TSR_STRING_OFFSETS_SIZE(n);
  uint64_t offset = 0;
  int64_t i = 0;
  for (const auto& value : values) {
    std::string_view bytes(value);
    if (bytes.size() > room - offset) {
      return InvalidArgument("string ", i, " of ", bytes.size(), " bytes does not fit: ",
                             room - offset, " of ", room, " bytes are left");
    }
    std::memcpy(data + i * sizeof(uint64_t), &offset, sizeof(offset));
    if (!bytes.empty()) std::memcpy(data + TSR_STRING_OFFSETS_SIZE(n) + offset, bytes.data(), bytes.size());
    offset += bytes.size();
    ++i;
  }
  std::memcpy(data + n * sizeof(uint64_t), &offset, sizeof(offset));
  if (offset != room) {
    return InvalidArgument("the strings fill ", offset, " of the ", room,
                           " bytes allocated for them");
  }
  return OkStatus();
}

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_STRINGS_H_
