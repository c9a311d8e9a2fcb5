// Report: counts, ok(), the text table and the JSON form.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;

Report Sample() {
  Report report;
  report.plugin_name = "acme";
  report.plugin_version = "1.2.3";
  report.plugin_path = "/p/acme.tessera-plugin.json";
  report.cases = {
      {"abi", "exports", Outcome::kPass, "only TSR_Plugin_Init"},
      {"load", "load", Outcome::kPass, "loaded"},
      {"device", "NPU/copy/offsets", Outcome::kFail, "byte 3 of 8 differs\nsecond line"},
      {"device", "NPU/streams", Outcome::kSkip, "no streams"},
  };
  return report;
}

TEST(ReportTest, CountsAndOk) {
  Report report = Sample();
  EXPECT_EQ(report.count(Outcome::kPass), 2);
  EXPECT_EQ(report.count(Outcome::kFail), 1);
  EXPECT_EQ(report.count(Outcome::kSkip), 1);
  EXPECT_FALSE(report.ok());
  report.cases[2].outcome = Outcome::kPass;
  EXPECT_TRUE(report.ok());
  EXPECT_FALSE(Report().ok()) << "a report without a passing case is not ok";
  EXPECT_STREQ(OutcomeName(Outcome::kSkip), "skip");
}

TEST(ReportTest, TextHasATablePerSuiteInOrderAndASummary) {
  const std::string text = Sample().ToText();
  EXPECT_THAT(text, HasSubstr("plugin 'acme' 1.2.3 (/p/acme.tessera-plugin.json)"));
  EXPECT_LT(text.find("== load"), text.find("== device"));
  EXPECT_LT(text.find("== device (2 cases)"), text.find("== abi"));
  EXPECT_THAT(text, HasSubstr("NPU/copy/offsets  fail     byte 3 of 8 differs\n"));
  EXPECT_THAT(text, HasSubstr("\n" + std::string(16 + 11, ' ') + "second line\n"));
  EXPECT_THAT(text, HasSubstr("2 passed, 1 failed, 1 skipped\n"));
}

TEST(ReportTest, JsonParsesAndHasTheCounts) {
  const nlohmann::json json = nlohmann::json::parse(Sample().ToJson());
  EXPECT_EQ(json["plugin"]["name"], "acme");
  EXPECT_EQ(json["plugin"]["version"], "1.2.3");
  ASSERT_EQ(json["cases"].size(), 4u);
  EXPECT_EQ(json["cases"][2]["name"], "NPU/copy/offsets");
  EXPECT_EQ(json["cases"][2]["outcome"], "fail");
  EXPECT_EQ(json["summary"]["passed"], 2);
  EXPECT_EQ(json["summary"]["failed"], 1);
  EXPECT_EQ(json["summary"]["skipped"], 1);
  EXPECT_EQ(json["summary"]["ok"], false);
}

TEST(ReportTest, JsonSurvivesBytesThatAreNotUtf8) {
  Report report = Sample();
  report.cases[0].message = std::string("bad \xff byte");
  EXPECT_NO_THROW(nlohmann::json::parse(report.ToJson()));
}

TEST(ReportTest, UnloadedPluginIsNamedByPath) {
  Report report;
  report.plugin_path = "/x";
  EXPECT_THAT(report.ToText(), HasSubstr("plugin /x (not loaded)"));
}

}  // namespace
}  // namespace tessera::plugin_check
