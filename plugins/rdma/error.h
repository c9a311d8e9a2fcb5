// Error: a code and message the rdma plugin builds on its engine thread and in UCX callbacks,
// where the host's table must not be needed; turned into a TSR_Status only at the ABI boundary.
#ifndef TESSERA_PLUGINS_RDMA_ERROR_H_
#define TESSERA_PLUGINS_RDMA_ERROR_H_

#include <string>

#include "tessera/plugin_api/common.h"
#include "tessera/sdk/status.h"

namespace tessera::rdma {

struct Error {
  TSR_Code code = TSR_CODE_OK;
  std::string message;

  bool ok() const { return code == TSR_CODE_OK; }
  // A host-created status (NULL for OK).
  TSR_Status* ToAbi() const { return sdk::MakeStatus(code, message).Release(); }
};

template <typename... Args>
Error MakeError(TSR_Code code, const Args&... args) {
  return Error{code, sdk::StrCat(args...)};
}

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_ERROR_H_
