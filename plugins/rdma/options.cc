// The rdma transport's options.
#include <cstdlib>
#include <string>

#include "plugins/rdma/transport.h"

namespace tessera::rdma {

Error ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                   TransportOptions* options) {
  if (num_options > 0 && (keys == nullptr || values == nullptr)) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, num_options, " options with NULL keys or values");
  }
  for (size_t i = 0; i < num_options; ++i) {
    if (keys[i] == nullptr || values[i] == nullptr) {
      return MakeError(TSR_CODE_INVALID_ARGUMENT, "option ", i, " has a NULL key or value");
    }
    const std::string key = keys[i];
    const std::string value = values[i];
    if (key == "default_deadline_ms") {
      char* end = nullptr;
      const long long parsed = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || parsed <= 0) {
        return MakeError(TSR_CODE_INVALID_ARGUMENT, "option 'default_deadline_ms': '", value,
                         "' is not a positive number of milliseconds");
      }
      options->default_deadline_ms = parsed;
    } else if (key.rfind("tls_", 0) == 0) {
      return MakeError(TSR_CODE_INVALID_ARGUMENT, "option '", key,
                       "': the rdma transport has no TLS (use the grpc transport, or a network "
                       "that is itself trusted)");
    } else {
      return MakeError(TSR_CODE_INVALID_ARGUMENT, "unknown option '", key,
                       "' (the rdma transport accepts default_deadline_ms)");
    }
  }
  return Error();
}

}  // namespace tessera::rdma
