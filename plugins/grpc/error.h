// Error: a code and message the gRPC plugin builds in code that runs without the host's table
// (wire parsing, options, gRPC callbacks); turned into a TSR_Status only at the ABI boundary.
#ifndef TESSERA_PLUGINS_GRPC_ERROR_H_
#define TESSERA_PLUGINS_GRPC_ERROR_H_

#include <string>
#include <utility>

#include "tessera/plugin_api/common.h"
#include "tessera/sdk/status.h"

namespace tessera::grpc_plugin {

struct Error {
  TSR_Code code = TSR_CODE_OK;
  std::string message;

  bool ok() const { return code == TSR_CODE_OK; }
  // A host-created status (NULL for OK); needs the host table (after TSR_Plugin_Init).
  TSR_Status* ToAbi() const { return sdk::MakeStatus(code, message).Release(); }
};

inline Error OkError() { return Error(); }

template <typename... Args>
Error MakeError(TSR_Code code, const Args&... args) {
  return Error{code, sdk::StrCat(args...)};
}

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_ERROR_H_
