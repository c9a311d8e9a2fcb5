// Conversion between the ABI's TSR_Status and absl::Status.
#include "registry/abi_status.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

namespace tessera {

absl::Status FromAbiStatus(TSR_Status* status, absl::string_view context) {
  if (status == nullptr) return absl::OkStatus();
  std::unique_ptr<TSR_Status> owned(status);
  const int raw_code = owned->code;
  if (raw_code <= 0 || raw_code > static_cast<int>(TSR_CODE_UNAUTHENTICATED)) {
    return absl::UnknownError(
        absl::StrCat(context, ": ", owned->message, " (status with invalid code ", raw_code, ")"));
  }
  return absl::Status(static_cast<absl::StatusCode>(raw_code),
                      absl::StrCat(context, ": ", owned->message));
}

TSR_Status* ToAbiStatus(const absl::Status& status) {
  if (status.ok()) return nullptr;
  return new TSR_Status{static_cast<int>(status.code()), std::string(status.message())};
}

TSR_Status* AbiStatusCreate(TSR_Code code, const char* message) {
  if (code == TSR_CODE_OK) return nullptr;
  return new TSR_Status{static_cast<int>(code),
                        message == nullptr ? std::string() : std::string(message)};
}

void AbiStatusDestroy(TSR_Status* status) { delete status; }

TSR_Code AbiStatusGetCode(const TSR_Status* status) {
  if (status == nullptr) return TSR_CODE_OK;
  if (status->code <= 0 || status->code > TSR_CODE_UNAUTHENTICATED) return TSR_CODE_UNKNOWN;
  return static_cast<TSR_Code>(status->code);
}

const char* AbiStatusGetMessage(const TSR_Status* status) {
  return status == nullptr ? "" : status->message.c_str();
}

}  // namespace tessera
