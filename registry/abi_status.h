// Conversion between the ABI's TSR_Status and absl::Status, and the host's status functions.
#ifndef TESSERA_REGISTRY_ABI_STATUS_H_
#define TESSERA_REGISTRY_ABI_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tessera/plugin_api/plugin_api.h"

// The host's definition of the ABI's opaque status. Only abi_status.cc reads its fields.
struct TSR_Status {
  int code;  // a TSR_Code; kept as int because a plugin may pass any value
  std::string message;
};

namespace tessera {

// The ONE place a TSR_Status becomes an absl::Status. Takes ownership of `status` (NULL: OK).
// The message reads "<context>: <plugin's message>", e.g. context "plugin 'cpu' Device_Create".
// A code outside Abseil's canonical range becomes UNKNOWN and the message names the raw value.
absl::Status FromAbiStatus(TSR_Status* status, absl::string_view context);

// A new TSR_Status owned by the caller (a plugin, or the host when it returns one to a plugin);
// NULL for OK.
TSR_Status* ToAbiStatus(const absl::Status& status);

// The Status_* slots of TSR_HostApi.
TSR_Status* AbiStatusCreate(TSR_Code code, const char* message);
void AbiStatusDestroy(TSR_Status* status);
TSR_Code AbiStatusGetCode(const TSR_Status* status);
const char* AbiStatusGetMessage(const TSR_Status* status);

}  // namespace tessera

#endif  // TESSERA_REGISTRY_ABI_STATUS_H_
