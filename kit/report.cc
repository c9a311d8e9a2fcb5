// The conformance report: outcome names, counts, and its text and JSON forms.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {
namespace {

// The suites in the order a report lists them; any other suite name comes after, by name.
int SuiteRank(const std::string& suite) {
  static const char* const kOrder[] = {"load", "device", "kernels", "transport", "abi"};
  for (int i = 0; i < 5; ++i) {
    if (suite == kOrder[i]) return i;
  }
  return 5;
}

std::vector<std::string> SuitesOf(const Report& report) {
  std::vector<std::string> suites;
  for (const CaseResult& result : report.cases) {
    if (std::find(suites.begin(), suites.end(), result.suite) == suites.end()) {
      suites.push_back(result.suite);
    }
  }
  auto key = [](const std::string& suite) {
    return std::make_pair(SuiteRank(suite), SuiteRank(suite) == 5 ? suite : std::string());
  };
  std::stable_sort(suites.begin(), suites.end(),
                   [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return suites;
}

// Pads `text` with spaces to `width` characters.
std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kSkip:
      return "skip";
  }
  return "unknown";
}

bool Report::ok() const { return count(Outcome::kFail) == 0 && count(Outcome::kPass) > 0; }

int Report::count(Outcome outcome) const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [&](const CaseResult& c) {
    return c.outcome == outcome;
  }));
}

std::string Report::ToText() const {
  std::string text;
  if (plugin_name.empty()) {
    absl::StrAppend(&text, "plugin ", plugin_path, " (not loaded)\n");
  } else {
    absl::StrAppend(&text, "plugin '", plugin_name, "' ", plugin_version, " (", plugin_path,
                    ")\n");
  }
  for (const std::string& suite : SuitesOf(*this)) {
    std::vector<const CaseResult*> rows;
    size_t name_width = 4;  // "case"
    for (const CaseResult& result : cases) {
      if (result.suite != suite) continue;
      rows.push_back(&result);
      name_width = std::max(name_width, result.name.size());
    }
    absl::StrAppend(&text, "\n== ", suite, " (", rows.size(), " cases)\n");
    absl::StrAppend(&text, Pad("case", name_width), "  outcome  message\n");
    for (const CaseResult* row : rows) {
      // A multi-line message continues under the message column.
      const std::vector<std::string> lines = absl::StrSplit(row->message, '\n');
      absl::StrAppend(&text, Pad(row->name, name_width), "  ", Pad(OutcomeName(row->outcome), 7),
                      "  ", lines.empty() ? "" : lines[0], "\n");
      for (size_t i = 1; i < lines.size(); ++i) {
        absl::StrAppend(&text, std::string(name_width + 11, ' '), lines[i], "\n");
      }
    }
  }
  absl::StrAppend(&text, "\n", count(Outcome::kPass), " passed, ", count(Outcome::kFail),
                  " failed, ", count(Outcome::kSkip), " skipped\n");
  return text;
}

std::string Report::ToJson() const {
  nlohmann::json json;
  json["plugin"] = {{"name", plugin_name}, {"version", plugin_version}, {"path", plugin_path}};
  nlohmann::json list = nlohmann::json::array();
  for (const CaseResult& result : cases) {
    list.push_back({{"suite", result.suite},
                    {"name", result.name},
                    {"outcome", OutcomeName(result.outcome)},
                    {"message", result.message}});
  }
  json["cases"] = std::move(list);
  json["summary"] = {{"passed", count(Outcome::kPass)},
                     {"failed", count(Outcome::kFail)},
                     {"skipped", count(Outcome::kSkip)},
                     {"ok", ok()}};
  // Plugin messages are not guaranteed to be UTF-8: replace what is not rather than throw.
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tessera::plugin_check
