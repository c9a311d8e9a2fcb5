// The CPU plugin loaded once into a FakeHost, for tests built with TESSERA_CPU_PLUGIN_PATH.
#ifndef TESSERA_PLUGINS_CPU_TESTING_CPU_PLUGIN_HOST_H_
#define TESSERA_PLUGINS_CPU_TESTING_CPU_PLUGIN_HOST_H_

#include <string>

#include "gtest/gtest.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {

// The process's one FakeHost with the built CPU plugin loaded; a failed load fails the test that
// first asks for it.
inline FakeHost& CpuPluginHost() {
  static FakeHost* host = [] {
    auto* h = new FakeHost();
    std::string message;
    EXPECT_EQ(h->LoadPlugin(TESSERA_CPU_PLUGIN_PATH, &message), TSR_CODE_OK) << message;
    return h;
  }();
  return *host;
}

}  // namespace tessera::cpu::testing

#endif  // TESSERA_PLUGINS_CPU_TESTING_CPU_PLUGIN_HOST_H_
