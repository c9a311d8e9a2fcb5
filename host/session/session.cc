// The Session interface's default callables: names kept and run through Run, for sessions that do
// not prepare signatures (LocalSession does).
#include "host/session/session.h"

#include "absl/strings/str_cat.h"

namespace tessera {

absl::Status Session::UnknownCallable(CallableHandle handle) {
  return absl::InvalidArgumentError(
      absl::StrCat("no callable ", handle, " in this session (released, or never made)"));
}

absl::StatusOr<Session::CallableHandle> Session::MakeCallable(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::lock_guard<std::mutex> lock(named_callables_mu_);
  const CallableHandle handle = next_named_callable_++;
  named_callables_[handle] = NamedCallable{feeds, fetches, targets};
  return handle;
}

absl::Status Session::RunCallable(CallableHandle handle, const RunOptions& options,
                                  const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs,
                                  RunMetadata* metadata) {
  NamedCallable callable;
  {
    std::lock_guard<std::mutex> lock(named_callables_mu_);
    auto it = named_callables_.find(handle);
    if (it == named_callables_.end()) return UnknownCallable(handle);
    callable = it->second;
  }
  if (feeds.size() != callable.feeds.size()) {
    return absl::InvalidArgumentError(absl::StrCat("callable ", handle, " takes ",
                                                   callable.feeds.size(), " feeds, got ",
                                                   feeds.size()));
  }
  std::vector<std::pair<std::string, Tensor>> named;
  named.reserve(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) named.emplace_back(callable.feeds[i], feeds[i]);
  return Run(options, named, callable.fetches, callable.targets, outputs, metadata);
}

absl::Status Session::ReleaseCallable(CallableHandle handle) {
  std::lock_guard<std::mutex> lock(named_callables_mu_);
  if (named_callables_.erase(handle) == 0) return UnknownCallable(handle);
  return absl::OkStatus();
}

}  // namespace tessera
