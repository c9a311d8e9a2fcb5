// CaseList: how a suite records its cases (one suite name, names prefixed with what they test).
// Internal to kit/.
#ifndef TESSERA_KIT_CASE_LIST_H_
#define TESSERA_KIT_CASE_LIST_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {

// Appends CaseResults of one suite to a report's list. `prefix` starts every case name, e.g.
// "TESTDEV/" so that the cases read "TESTDEV/allocate/odd_size".
class CaseList {
 public:
  CaseList(std::string suite, std::string prefix, std::vector<CaseResult>* results)
      : suite_(std::move(suite)), prefix_(std::move(prefix)), results_(results) {}

  void Pass(const std::string& name, std::string detail = "") {
    Add(name, Outcome::kPass, std::move(detail));
  }
  void Fail(const std::string& name, std::string message) {
    Add(name, Outcome::kFail, std::move(message));
  }
  void Skip(const std::string& name, std::string reason) {
    Add(name, Outcome::kSkip, std::move(reason));
  }
  // Pass when `status` is OK; otherwise a failure with the status's code and message.
  void Expect(const std::string& name, const absl::Status& status, std::string detail = "") {
    if (status.ok()) {
      Pass(name, std::move(detail));
    } else {
      Fail(name, Describe(status));
    }
  }

  // "RESOURCE_EXHAUSTED: out of memory ..."
  static std::string Describe(const absl::Status& status) {
    return absl::StrCat(absl::StatusCodeToString(status.code()), ": ", status.message());
  }

  const std::string& prefix() const { return prefix_; }

 private:
  void Add(const std::string& name, Outcome outcome, std::string message) {
    results_->push_back(CaseResult{suite_, prefix_ + name, outcome, std::move(message)});
  }

  std::string suite_;
  std::string prefix_;
  std::vector<CaseResult>* results_;
};

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_CASE_LIST_H_
