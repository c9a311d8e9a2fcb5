// Tests of the checks made before dlopen: versions, CPU features, sha256, allowlist.
#include "registry/load_checks.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

LoadPolicy HostAt(uint32_t major, uint32_t minor) {
  LoadPolicy policy;
  policy.host_abi_major = major;
  policy.host_abi_minor = minor;
  return policy;
}

TEST(CheckAbiVersionTest, RefusalFollowsTheAbiRules) {
  const std::string plugin = DescribePlugin("acme-npu", "2.3.0", "/opt/libtessera_acme.so");
  EXPECT_EQ(plugin, "plugin 'acme-npu' 2.3.0 (libtessera_acme.so)");
  absl::Status status = CheckAbiVersion(plugin, "acme-npu", 0, 7, HostAt(0, 1));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "plugin 'acme-npu' 2.3.0 (libtessera_acme.so) needs host ABI >= 0.7; this host is "
            "0.1: upgrade Tessera or install an acme-npu built for ABI 0.1");
}

TEST(CheckAbiVersionTest, AcceptsEqualMajorAndOlderMinimum) {
  EXPECT_TRUE(CheckAbiVersion("p", "p", 0, 0, HostAt(0, 1)).ok());
  EXPECT_TRUE(CheckAbiVersion("p", "p", 0, 1, HostAt(0, 1)).ok());
}

TEST(CheckAbiVersionTest, RefusesOtherMajors) {
  ExpectError(CheckAbiVersion("plugin 'x' 1.0.0 (libx.so)", "x", 7, 0, HostAt(0, 1)),
              absl::StatusCode::kFailedPrecondition,
              "plugin 'x' 1.0.0 (libx.so) is built for ABI major 7; this host is 0.1: upgrade "
              "Tessera or install a x built for ABI 0.1");
  absl::Status older = CheckAbiVersion("plugin 'x'", "x", 0, 0, HostAt(1, 0));
  ExpectError(older, absl::StatusCode::kFailedPrecondition,
              "is built for ABI major 0; this host is 1.0: install a x built for ABI 1.0");
  EXPECT_EQ(older.message().find("upgrade"), absl::string_view::npos);
}

TEST(CheckAbiVersionTest, NamesTheSourceOfTheNumbers) {
  ExpectError(CheckAbiVersion("plugin 'x'", "x", 0, 9, HostAt(0, 1), "as reported by Init"),
              absl::StatusCode::kFailedPrecondition,
              "needs host ABI >= 0.9 (as reported by Init); this host is 0.1");
}

TEST(CpuFeatureTest, KnowsCommonFeatures) {
  absl::StatusOr<bool> sse2 = CpuHasFeature("sse2");
  ASSERT_TRUE(sse2.ok());
  EXPECT_TRUE(*sse2);  // every x86-64 CPU
  for (const std::string& feature : KnownCpuFeatures()) EXPECT_TRUE(CpuHasFeature(feature).ok());
}

TEST(CpuFeatureTest, UnknownFeatureIsInvalidArgument) {
  ExpectError(CpuHasFeature("avx512_not_a_feature").status(), absl::StatusCode::kInvalidArgument,
              "unknown CPU feature 'avx512_not_a_feature' (known: sse, sse2");
}

class FileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tessera_load_checks_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    library_ = (dir_ / "libtessera_acme.so").string();
    std::ofstream(library_) << "abc";
    manifest_.path = (dir_ / "acme.tessera-plugin.json").string();
    manifest_.name = "acme";
    manifest_.version = "1.0.0";
    manifest_.abi_major = TSR_ABI_VERSION_MAJOR;
    manifest_.library_path = library_;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string library_;
  PluginManifest manifest_;
};

constexpr char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST_F(FileTest, Sha256OfFile) {
  absl::StatusOr<std::string> digest = Sha256OfFile(library_);
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(*digest, kAbcSha256);
  ExpectError(Sha256OfFile((dir_ / "missing").string()).status(), absl::StatusCode::kNotFound,
              "cannot read");
}

TEST_F(FileTest, AcceptsAGoodManifest) {
  manifest_.sha256 = kAbcSha256;
  manifest_.required_cpu_features = {"sse2"};
  EXPECT_TRUE(CheckBeforeLoad(manifest_, LoadPolicy()).ok());
}

TEST_F(FileTest, RefusesSha256Mismatch) {
  manifest_.sha256 = std::string(64, '0');
  ExpectError(CheckBeforeLoad(manifest_, LoadPolicy()), absl::StatusCode::kFailedPrecondition,
              std::string("has sha256 ") + kAbcSha256 + " but manifest " + manifest_.path +
                  " expects " + std::string(64, '0'));
}

TEST_F(FileTest, RefusesMissingLibrary) {
  manifest_.library_path = (dir_ / "libtessera_gone.so").string();
  ExpectError(CheckBeforeLoad(manifest_, LoadPolicy()), absl::StatusCode::kNotFound,
              "libtessera_gone.so named by manifest");
}

TEST_F(FileTest, RefusesPluginsOutsideTheAllowlist) {
  LoadPolicy policy;
  policy.allowlist = std::set<std::string>{"cpu", "grpc"};
  ExpectError(
      CheckBeforeLoad(manifest_, policy), absl::StatusCode::kPermissionDenied,
      "plugin 'acme' 1.0.0 (libtessera_acme.so) is not in the allowlist (allowed: cpu, grpc)");
  policy.allowlist_source = "--plugin-allow";
  ExpectError(CheckBeforeLoad(manifest_, policy), absl::StatusCode::kPermissionDenied,
              "is not in the allowlist (allowed: cpu, grpc; from --plugin-allow)");
  policy.allowlist = std::set<std::string>();
  ExpectError(CheckBeforeLoad(manifest_, policy), absl::StatusCode::kPermissionDenied,
              "is not in the allowlist (allowed: none; from --plugin-allow)");
  policy.allowlist->insert("acme");
  EXPECT_TRUE(CheckBeforeLoad(manifest_, policy).ok());
}

TEST_F(FileTest, RequiredSha256) {
  LoadPolicy policy;
  policy.require_sha256 = true;
  ExpectError(CheckBeforeLoad(manifest_, policy), absl::StatusCode::kPermissionDenied,
              "has no sha256 and this host requires one");
  policy.require_sha256_source = "config file /etc/tessera/plugins.json";
  ExpectError(CheckBeforeLoad(manifest_, policy), absl::StatusCode::kPermissionDenied,
              "has no sha256 and this host requires one (from config file "
              "/etc/tessera/plugins.json)");
}

TEST_F(FileTest, RefusesUnknownCpuFeature) {
  manifest_.required_cpu_features = {"avx512_not_a_feature"};
  ExpectError(
      CheckBeforeLoad(manifest_, LoadPolicy()), absl::StatusCode::kInvalidArgument,
      "plugin 'acme' 1.0.0 (libtessera_acme.so): unknown CPU feature 'avx512_not_a_feature'");
}

TEST_F(FileTest, RefusesMissingCpuFeature) {
  std::string missing;
  for (const std::string& feature : KnownCpuFeatures()) {
    if (!*CpuHasFeature(feature)) {
      missing = feature;
      break;
    }
  }
  if (missing.empty()) GTEST_SKIP() << "skipped: this CPU has every known feature";
  manifest_.required_cpu_features = {missing};
  ExpectError(CheckBeforeLoad(manifest_, LoadPolicy()), absl::StatusCode::kFailedPrecondition,
              "needs CPU feature '" + missing + "', which this CPU lacks");
}

TEST_F(FileTest, VersionChecksComeBeforeTheLibrary) {
  manifest_.abi_major = 7;
  manifest_.library_path = (dir_ / "libtessera_gone.so").string();
  ExpectError(CheckBeforeLoad(manifest_, LoadPolicy()), absl::StatusCode::kFailedPrecondition,
              "is built for ABI major 7");
}

}  // namespace
}  // namespace tessera
