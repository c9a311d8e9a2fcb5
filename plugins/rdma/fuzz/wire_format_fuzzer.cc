// libFuzzer target for the rdma transport's message decoders, which read a peer's bytes: the first
// byte picks the decoder, the rest is its input. Any bytes decode or are refused, never read
// outside the input; what decodes encodes back to the very same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "plugins/rdma/wire_format.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::rdma;  // NOLINT(build/namespaces): a fuzz target's one function
  if (size == 0) return 0;
  // An exact heap copy, so that AddressSanitizer sees any read past its end.
  const size_t length = size - 1;
  std::unique_ptr<char[]> copy(new char[length + 1]);
  if (length > 0) std::memcpy(copy.get(), data + 1, length);
  const char* bytes = copy.get();
  const std::string input(bytes, length);
  switch (data[0] % 5) {
    case 0: {
      CallHeader header;
      if (DecodeCallHeader(bytes, length, &header)) Check(EncodeCallHeader(header) == input);
      break;
    }
    case 1: {
      PullHeader header;
      if (DecodePullHeader(bytes, length, &header)) Check(EncodePullHeader(header) == input);
      break;
    }
    case 2: {
      CallReplyHeader header;
      if (DecodeCallReplyHeader(bytes, length, &header)) {
        Check(EncodeCallReplyHeader(header) == input);
      }
      break;
    }
    case 3: {
      std::string message, response;
      if (DecodeCallReplyData(input, &message, &response)) {
        Check(EncodeCallReplyData(message, response.data(), response.size()) == input);
      }
      break;
    }
    default: {
      TensorReplyHeader header;
      if (DecodeTensorReplyHeader(bytes, length, &header)) {
        Check(header.dims.size() <= TSR_MAX_RANK);
        Check(EncodeTensorReplyHeader(header) == input);
      }
      break;
    }
  }
  return 0;
}
