// For the GPU plugin's host-side unit tests: a host table with only the status slots, which is all
// sdk::Status needs, installed before any test runs. (The plugin's registrations are tested through
// the real host in tests/plugins/.)
#ifndef TESSERA_PLUGINS_CUDA_TEST_HOST_API_H_
#define TESSERA_PLUGINS_CUDA_TEST_HOST_API_H_

#include <string>

#include "gtest/gtest.h"
#include "tessera/sdk/host_api.h"

namespace tessera::gpu::testing {

class StatusOnlyHost : public ::testing::Environment {
 public:
  void SetUp() override {
    static TSR_HostApi api = [] {
      TSR_HostApi table{};
      table.struct_size = sizeof(TSR_HostApi);
      table.Status_Create = &Create;
      table.Status_Destroy = &Destroy;
      table.Status_GetCode = &Code;
      table.Status_GetMessage = &Message;
      return table;
    }();
    sdk::SetHostApi(&api);
  }

 private:
  struct Status {
    TSR_Code code;
    std::string message;
  };
  static TSR_Status* Create(TSR_Code code, const char* message) {
    if (code == TSR_CODE_OK) return nullptr;
    return reinterpret_cast<TSR_Status*>(new Status{code, message == nullptr ? "" : message});
  }
  static void Destroy(TSR_Status* status) { delete reinterpret_cast<Status*>(status); }
  static TSR_Code Code(const TSR_Status* status) {
    return status == nullptr ? TSR_CODE_OK : reinterpret_cast<const Status*>(status)->code;
  }
  static const char* Message(const TSR_Status* status) {
    return status == nullptr ? "" : reinterpret_cast<const Status*>(status)->message.c_str();
  }
};

inline ::testing::Environment* const kStatusOnlyHost =
    ::testing::AddGlobalTestEnvironment(new StatusOnlyHost());

}  // namespace tessera::gpu::testing

#endif  // TESSERA_PLUGINS_CUDA_TEST_HOST_API_H_
