// TensorFlow's "ordered code": byte encodings of numbers and strings whose byte order is the
// order of the values, used to build the index keys of tensor slices.
#ifndef TESSERA_HOST_CHECKPOINT_ORDERED_CODE_H_
#define TESSERA_HOST_CHECKPOINT_ORDERED_CODE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tessera {
namespace checkpoint {
namespace ordered_code {

// A length byte (0..8) followed by the value's big-endian bytes without leading zeros.
void WriteNumIncreasing(std::string* dest, uint64_t value);

// The string with 0x00 written as 00 ff and 0xff as ff 00, then the separator 00 01.
void WriteString(std::string* dest, absl::string_view value);

// 1 to 10 bytes: a sign bit, as many further copies of it as there are bytes after the first,
// a delimiter bit, then the two's-complement value in the remaining bits (big-endian).
void WriteSignedNumIncreasing(std::string* dest, int64_t value);

// The decoders consume one item from the front of `src`; false (src unspecified) for bytes that
// are not a valid encoding.
bool ReadNumIncreasing(absl::string_view* src, uint64_t* value);
bool ReadString(absl::string_view* src, std::string* value);
bool ReadSignedNumIncreasing(absl::string_view* src, int64_t* value);

}  // namespace ordered_code
}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_ORDERED_CODE_H_
