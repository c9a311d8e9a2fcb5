// libFuzzer entry point over ParseNpy: any bytes must give a tensor or an error, never a crash.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "host/client/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tessera::Tensor> tensor = tessera::ParseNpy(bytes, "fuzz");
  if (tensor.ok()) {
    // Whatever parses must serialize and parse back to the same bytes.
    absl::StatusOr<std::string> again = tessera::SerializeNpy(*tensor);
    if (!again.ok() || !tessera::ParseNpy(*again, "fuzz-again").ok()) __builtin_trap();
  }
  return 0;
}
