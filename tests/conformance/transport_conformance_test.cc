// The transport conformance suite for every transport of the build: each case of the conformance
// kit's transport suite (kit/transport_cases.h) is one test per transport the registry loads from
// the build's plugin folder (grpc) and from the test-only loopback transport's folder.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kit/transport_cases.h"
#include "registry/plugin_registry.h"
#include "registry/transport_handle.h"

namespace tessera::plugin_check {
namespace {

const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    RegistryOptions options;
    options.plugin_paths = {TESSERA_PLUGIN_DIR, TESSERA_LOOPBACK_PLUGIN_DIR};
    options.plugin_path_env = "";
    options.default_plugin_dir = "";
    absl::StatusOr<std::unique_ptr<PluginRegistry>> created = PluginRegistry::Create(options);
    if (!created.ok()) {
      std::fprintf(stderr, "cannot create the plugin registry: %s\n",
                   created.status().ToString().c_str());
      std::abort();
    }
    return created->release();
  }();
  return *registry;
}

struct CaseParam {
  std::string transport;                         // "" when no transport was built
  const TransportCase* transport_case = nullptr;
};

// Every case for every transport of the registry.
std::vector<CaseParam> Params() {
  std::vector<CaseParam> params;
  for (const TransportSpec& spec : Registry().transports()) {
    for (const TransportCase& transport_case : TransportCases()) {
      params.push_back({spec.name, &transport_case});
    }
  }
  if (params.empty()) params.push_back({});
  return params;
}

void PrintTo(const CaseParam& param, std::ostream* os) {
  *os << (param.transport_case == nullptr
              ? std::string("no transport")
              : param.transport + "/" + param.transport_case->name);
}

class TransportConformanceTest : public ::testing::TestWithParam<CaseParam> {};

TEST_P(TransportConformanceTest, Passes) {
  const CaseParam& param = GetParam();
  if (param.transport_case == nullptr) GTEST_SKIP() << "skipped: no transport plugin built";
  const TransportSpec* spec = Registry().FindTransport(param.transport);
  ASSERT_NE(spec, nullptr);
  TransportCaseOptions options;
  options.tls_data_dir = TESSERA_KIT_TLS_DIR;
  const CaseResult result =
      RunTransportCase(PluginTransport::Create(*spec, Registry().host_api()),
                       *param.transport_case, options);
  if (result.outcome == Outcome::kSkip) GTEST_SKIP() << result.message;
  EXPECT_TRUE(result.outcome == Outcome::kPass) << result.message;
}

INSTANTIATE_TEST_SUITE_P(AllTransports, TransportConformanceTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<CaseParam>& info) {
                           if (info.param.transport_case == nullptr) return std::string("none");
                           return info.param.transport + "_" + info.param.transport_case->name;
                         });

}  // namespace
}  // namespace tessera::plugin_check
