// Tests of manifest parsing: every field, its errors, and reading files.
#include "registry/manifest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace {

using Json = nlohmann::json;

constexpr char kPath[] = "/x/acme.tessera-plugin.json";

Json ValidJson() {
  return Json::parse(R"({
    "manifest_version": 1, "name": "acme-npu_2", "vendor": "Acme", "version": "2.3.0",
    "abi": {"major": 0, "min_minor": 1}, "library": "lib/libtessera_acme.so",
    "provides": [{"kind": "device", "name": "NPU"}, {"kind": "ops"},
                 {"kind": "kernels", "name": "NPU"}, {"kind": "transport", "name": "rdma"}],
    "required_cpu_features": ["avx2", "fma"], "priority": 200,
    "sha256": "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
    "comment": "unknown fields are ignored"})");
}

absl::StatusOr<PluginManifest> Parse(const Json& json) { return ParseManifest(kPath, json.dump()); }

void ExpectInvalid(const absl::StatusOr<PluginManifest>& manifest, const std::string& substring) {
  ASSERT_FALSE(manifest.ok()) << substring;
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(manifest.status().message().find(substring), absl::string_view::npos)
      << manifest.status().message();
  EXPECT_NE(manifest.status().message().find(kPath), absl::string_view::npos);
}

TEST(ManifestTest, ParsesEveryField) {
  absl::StatusOr<PluginManifest> manifest = Parse(ValidJson());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->path, kPath);
  EXPECT_EQ(manifest->name, "acme-npu_2");
  EXPECT_EQ(manifest->vendor, "Acme");
  EXPECT_EQ(manifest->version, "2.3.0");
  EXPECT_EQ(manifest->abi_major, 0);
  EXPECT_EQ(manifest->abi_min_minor, 1);
  EXPECT_EQ(manifest->library, "lib/libtessera_acme.so");
  EXPECT_EQ(manifest->library_path, "/x/lib/libtessera_acme.so");
  ASSERT_EQ(manifest->provides.size(), 4u);
  EXPECT_EQ(manifest->provides[0].ToString(), "device:NPU");
  EXPECT_EQ(manifest->provides[1].ToString(), "ops");
  EXPECT_EQ(manifest->provides[2].kind, ProvideKind::kKernels);
  EXPECT_EQ(manifest->provides[3].ToString(), "transport:rdma");
  EXPECT_EQ(manifest->required_cpu_features, (std::vector<std::string>{"avx2", "fma"}));
  EXPECT_EQ(manifest->priority, 200);
  EXPECT_EQ(manifest->sha256, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
}

TEST(ManifestTest, OptionalFieldsDefault) {
  Json json = ValidJson();
  for (const char* key : {"provides", "required_cpu_features", "priority", "sha256"}) {
    json.erase(key);
  }
  json["library"] = "/opt/acme/libtessera_acme.so";
  absl::StatusOr<PluginManifest> manifest = Parse(json);
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_TRUE(manifest->provides.empty());
  EXPECT_TRUE(manifest->required_cpu_features.empty());
  EXPECT_EQ(manifest->priority, 0);
  EXPECT_EQ(manifest->sha256, "");
  EXPECT_EQ(manifest->library_path, "/opt/acme/libtessera_acme.so");
}

TEST(ManifestTest, AcceptsPrereleaseVersions) {
  Json json = ValidJson();
  json["version"] = "1.0.0-rc.1+build.5";
  EXPECT_TRUE(Parse(json).ok());
}

TEST(ManifestTest, ErrorNamesFileFieldAndValue) {
  Json json = ValidJson();
  json["abi"]["major"] = "one";
  absl::StatusOr<PluginManifest> manifest = Parse(json);
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manifest.status().message(),
            "manifest /x/acme.tessera-plugin.json: field 'abi.major': expected an integer, got "
            "\"one\"");
}

TEST(ManifestTest, MalformedJsonNamesPosition) {
  ExpectInvalid(ParseManifest(kPath, "{\n  \"name\": \"x\"\n  \"vendor\": 1}"),
                "malformed JSON: parse error at line 3, column");
  ExpectInvalid(ParseManifest(kPath, ""), "malformed JSON");
}

struct BadCase {
  const char* description;
  void (*mutate)(Json& json);
  const char* expected;
};

class ManifestFieldErrorTest : public testing::TestWithParam<BadCase> {};

TEST_P(ManifestFieldErrorTest, RejectsWithFieldName) {
  Json json = ValidJson();
  GetParam().mutate(json);
  ExpectInvalid(Parse(json), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    AllFields, ManifestFieldErrorTest,
    testing::Values(
        BadCase{"root", [](Json& j) { j = Json::array(); }, "field '(root)': expected an object"},
        BadCase{"missing_version", [](Json& j) { j.erase("manifest_version"); },
                "field 'manifest_version': missing (required)"},
        BadCase{"version_2", [](Json& j) { j["manifest_version"] = 2; },
                "field 'manifest_version': expected 1, got 2"},
        BadCase{"float_version", [](Json& j) { j["manifest_version"] = 1.5; },
                "field 'manifest_version': expected an integer, got 1.5"},
        BadCase{"missing_name", [](Json& j) { j.erase("name"); },
                "field 'name': missing (required)"},
        BadCase{"name_type", [](Json& j) { j["name"] = 3; },
                "field 'name': expected a string, got 3"},
        BadCase{"name_chars", [](Json& j) { j["name"] = "Acme NPU"; },
                "field 'name': expected a name matching [a-z0-9_-]+, got \"Acme NPU\""},
        BadCase{"missing_vendor", [](Json& j) { j.erase("vendor"); }, "field 'vendor': missing"},
        BadCase{"semver", [](Json& j) { j["version"] = "1.2"; },
                "field 'version': expected a semantic version \"X.Y.Z\", got \"1.2\""},
        BadCase{"semver_suffix", [](Json& j) { j["version"] = "1.2.3-"; }, "field 'version'"},
        BadCase{"semver_letters", [](Json& j) { j["version"] = "1.x.3"; }, "field 'version'"},
        BadCase{"library_empty", [](Json& j) { j["library"] = ""; },
                "field 'library': expected a non-empty path"},
        BadCase{"abi_missing", [](Json& j) { j.erase("abi"); }, "field 'abi': missing"},
        BadCase{"abi_type", [](Json& j) { j["abi"] = 1; }, "field 'abi': expected an object"},
        BadCase{"abi_major_missing", [](Json& j) { j["abi"].erase("major"); },
                "field 'abi.major': missing"},
        BadCase{"abi_minor_missing", [](Json& j) { j["abi"].erase("min_minor"); },
                "field 'abi.min_minor': missing"},
        BadCase{"abi_minor_type", [](Json& j) { j["abi"]["min_minor"] = true; },
                "field 'abi.min_minor': expected an integer, got true"},
        BadCase{"abi_major_negative", [](Json& j) { j["abi"]["major"] = -1; },
                "field 'abi.major': expected a non-negative integer, got -1"},
        BadCase{"abi_minor_negative", [](Json& j) { j["abi"]["min_minor"] = -2; },
                "field 'abi.min_minor': expected a non-negative integer"},
        BadCase{"abi_huge", [](Json& j) { j["abi"]["major"] = 1ull << 40; },
                "field 'abi.major': expected a 32-bit integer"},
        BadCase{"abi_huge_negative", [](Json& j) { j["abi"]["major"] = -(1ll << 40); },
                "field 'abi.major': expected a 32-bit integer"},
        BadCase{"provides_type", [](Json& j) { j["provides"] = "device"; },
                "field 'provides': expected an array"},
        BadCase{"provides_entry", [](Json& j) { j["provides"][1] = 3; },
                "field 'provides[1]': expected an object, got 3"},
        BadCase{"provides_kind_missing", [](Json& j) { j["provides"][0].erase("kind"); },
                "field 'provides[0].kind': missing"},
        BadCase{"provides_kind", [](Json& j) { j["provides"][0]["kind"] = "gpu"; },
                "field 'provides[0].kind': expected one of \"device\""},
        BadCase{"provides_kind_type", [](Json& j) { j["provides"][0]["kind"] = 1; },
                "field 'provides[0].kind': expected a string"},
        BadCase{"provides_name", [](Json& j) { j["provides"][0]["name"] = 1; },
                "field 'provides[0].name': expected a string"},
        BadCase{"features_type", [](Json& j) { j["required_cpu_features"] = "avx2"; },
                "field 'required_cpu_features': expected an array of strings"},
        BadCase{"features_entry", [](Json& j) { j["required_cpu_features"][1] = 2; },
                "field 'required_cpu_features[1]': expected a string, got 2"},
        BadCase{"priority", [](Json& j) { j["priority"] = "high"; },
                "field 'priority': expected an integer, got \"high\""},
        BadCase{"sha_type", [](Json& j) { j["sha256"] = 5; }, "field 'sha256': expected a string"},
        BadCase{"sha_short", [](Json& j) { j["sha256"] = "abc"; },
                "field 'sha256': expected 64 hexadecimal characters, got \"abc\""},
        BadCase{"sha_chars", [](Json& j) { j["sha256"] = std::string(64, 'g'); },
                "field 'sha256': expected 64 hexadecimal characters"}),
    [](const testing::TestParamInfo<BadCase>& info) { return info.param.description; });

TEST(ManifestTest, LongValuesAreShortenedInMessages) {
  Json json = ValidJson();
  json["priority"] = std::string(500, 'x');
  absl::StatusOr<PluginManifest> manifest = Parse(json);
  ASSERT_FALSE(manifest.ok());
  EXPECT_LT(manifest.status().message().size(), 200u);
  EXPECT_NE(manifest.status().message().find("..."), absl::string_view::npos);
}

TEST(ManifestTest, ReadMissingFileIsNotFound) {
  absl::StatusOr<PluginManifest> manifest = ReadManifest("/nonexistent/x.tessera-plugin.json");
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(manifest.status().message().find("/nonexistent/x.tessera-plugin.json: cannot be read"),
            absl::string_view::npos);
}

TEST(ManifestTest, DeepNestingIsRefusedWhileParsed) {
  // 60,000 levels crashed every command while the rejection message was formatted.
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  ExpectInvalid(ParseManifest(kPath, deep), "nests deeper than 32 levels");
  Json json = ValidJson();
  std::string nested = "1";
  for (int i = 0; i < 40; ++i) nested = "{\"k\": " + nested + "}";
  std::string text = json.dump();
  text.insert(text.size() - 1, ", \"extra\": " + nested);
  ExpectInvalid(ParseManifest(kPath, text), "nests deeper than 32 levels");
  // An unknown field nested within the limit is ignored, as any unknown field is.
  nested = "1";
  for (int i = 0; i < 20; ++i) nested = "[" + nested + "]";
  text = json.dump();
  text.insert(text.size() - 1, ", \"extra\": " + nested);
  EXPECT_TRUE(ParseManifest(kPath, text).ok());
}

TEST(ManifestTest, OversizedContentsAreRefused) {
  std::string text = ValidJson().dump();
  text.insert(text.size() - 1, ", \"pad\": \"" + std::string(kMaxManifestBytes, 'x') + "\"");
  ExpectInvalid(ParseManifest(kPath, text), " bytes, more than the limit of 1048576");
}

class ManifestFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tessera_manifest_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(ManifestFileTest, FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = Path("fifo.tessera-plugin.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<PluginManifest> manifest = ReadManifest(fifo);
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manifest.status().message(), "manifest " + fifo + ": is a FIFO, not a regular file");
}

TEST_F(ManifestFileTest, LinkToADeviceIsRefused) {
  const std::string link = Path("zero.tessera-plugin.json");
  std::filesystem::create_symlink("/dev/zero", link);
  absl::StatusOr<PluginManifest> manifest = ReadManifest(link);
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manifest.status().message(),
            "manifest " + link + ": is a character device, not a regular file");
}

TEST_F(ManifestFileTest, FolderAndOversizedFileAreRefused) {
  const std::string folder = Path("folder.tessera-plugin.json");
  std::filesystem::create_directories(folder);
  absl::StatusOr<PluginManifest> manifest = ReadManifest(folder);
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().message(),
            "manifest " + folder + ": is a folder, not a regular file");

  const std::string big = Path("big.tessera-plugin.json");
  std::ofstream(big) << std::string(kMaxManifestBytes + 1, ' ');
  manifest = ReadManifest(big);
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manifest.status().message(),
            "manifest " + big + ": larger than the limit of 1048576 bytes");
  // A symbolic link to a regular manifest is read as that file.
  const std::string real = Path("real.json");
  std::ofstream(real) << ValidJson().dump();
  const std::string link = Path("link.tessera-plugin.json");
  std::filesystem::create_symlink(real, link);
  EXPECT_TRUE(ReadManifest(link).ok());
}

TEST(ManifestTest, ReadsSeedCorpusFile) {
  const std::string path =
      std::string(TESSERA_REGISTRY_SOURCE_DIR) + "/fuzz/corpus/valid_full.json";
  absl::StatusOr<PluginManifest> manifest = ReadManifest(path);
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->name, "acme-npu");
  EXPECT_EQ(manifest->library_path, "/opt/acme/libtessera_acme.so");
}

TEST(ManifestTest, PluginNames) {
  EXPECT_TRUE(IsValidPluginName("cpu"));
  EXPECT_TRUE(IsValidPluginName("acme-npu_2"));
  EXPECT_FALSE(IsValidPluginName(""));
  EXPECT_FALSE(IsValidPluginName("Acme"));
  EXPECT_FALSE(IsValidPluginName("a b"));
  EXPECT_EQ(ProvideKindName(ProvideKind::kTransport), "transport");
}

}  // namespace
}  // namespace tessera
