// The list of the transport suite's cases and the runner that bounds each one.
#include "kit/transport_cases.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tessera::plugin_check {

const std::vector<TransportCase>& TransportCases() {
  static const std::vector<TransportCase>* cases = [] {
    auto* all = new std::vector<TransportCase>;
    AppendCallCases(all);
    AppendPullCases(all);
    AppendFailureCases(all);
    AppendTlsCases(all);
    return all;
  }();
  return *cases;
}

CaseResult RunTransportCase(const std::shared_ptr<PluginTransport>& transport,
                            const TransportCase& transport_case,
                            const TransportCaseOptions& options, bool* hung) {
  // Shared with the case's thread, which may outlive this call when the case hangs.
  struct Shared {
    std::mutex mutex;
    std::condition_variable finished_changed;
    bool finished = false;
    CaseResult result;
  };
  auto shared = std::make_shared<Shared>();
  const std::string name = absl::StrCat(transport->name(), "/", transport_case.name);
  std::thread thread([shared, transport, options, name, run_case = transport_case.run] {
    CaseRun run(transport, options, name);
    try {
      run_case(run);
    } catch (const std::exception& e) {
      run.Fail(absl::StrCat("threw ", e.what()));
    } catch (...) {
      run.Fail("threw an unknown exception");
    }
    CaseResult result = run.Result();
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->result = std::move(result);
    shared->finished = true;
    shared->finished_changed.notify_all();
  });

  std::unique_lock<std::mutex> lock(shared->mutex);
  if (!shared->finished_changed.wait_for(lock, absl::ToChronoNanoseconds(options.case_bound),
                                         [&] { return shared->finished; })) {
    lock.unlock();
    thread.detach();
    if (hung != nullptr) *hung = true;
    CaseResult result;
    result.suite = "transport";
    result.name = name;
    result.outcome = Outcome::kFail;
    result.message = absl::StrCat(
        name, ": did not finish within ", absl::FormatDuration(options.case_bound),
        ": the transport hung (a completion that never ran, or a Server_Stop, Channel_Destroy "
        "or Reply_* slot that did not return)");
    return result;
  }
  CaseResult result = std::move(shared->result);
  lock.unlock();
  thread.join();
  return result;
}

}  // namespace tessera::plugin_check
