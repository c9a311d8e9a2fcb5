// Transport cases: control-plane calls (payloads, handler errors, unanswered and misanswered
// calls) and many calls and pulls at once from several threads.
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "kit/transport_cases.h"

namespace tessera::plugin_check {
namespace {

void CallRoundTrip(CaseRun& run) {
  TestHandler handler;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto empty = StartCall(*channel, "", "");
  if (!run.Done(empty, "the call with an empty method and request")) return;
  if (run.Ok(empty->status, "the call with an empty method and request")) {
    run.Expect(empty->response == "|", "the empty call's response is '", Shorten(empty->response),
               "', expected '|'");
  }

  auto small = StartCall(*channel, "Worker/RunGraph", "hello");
  if (!run.Done(small, "call 'Worker/RunGraph'")) return;
  if (run.Ok(small->status, "call 'Worker/RunGraph'")) {
    run.Expect(small->response == "Worker/RunGraph|hello", "call 'Worker/RunGraph' answered '",
               Shorten(small->response), "', expected 'Worker/RunGraph|hello'");
  }

  std::string large(64 << 20, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>((i * 131) >> 7);
  auto big = StartCall(*channel, "Worker/Big", large);
  if (!run.Done(big, "the call with a 64 MiB request")) return;
  if (!run.Ok(big->status, "the call with a 64 MiB request")) return;
  const std::string expected = absl::StrCat("Worker/Big|", large);
  if (!run.Expect(big->response.size() == expected.size(), "the 64 MiB call's response has ",
                  big->response.size(), " bytes, expected ", expected.size())) {
    return;
  }
  if (big->response != expected) {
    size_t first = 0;
    while (big->response[first] == expected[first]) ++first;
    run.Fail(absl::StrCat("the 64 MiB call's response differs first at byte ", first));
  }
  run.Expect(big->completions.load() == 1, "the 64 MiB call completed ", big->completions.load(),
             " times, expected once");
}

void CallHandlerError(CaseRun& run) {
  TestHandler handler;
  std::string long_message = "precondition failed: ";
  while (long_message.size() < 10 * 1024) absl::StrAppend(&long_message, long_message.size(), ",");
  handler.on_call = [&](absl::string_view, absl::string_view, TransportReply reply) {
    reply.Send(absl::FailedPreconditionError(long_message), "");
  };
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  if (!run.Done(call, "the call")) return;
  run.Code(call->status, absl::StatusCode::kFailedPrecondition,
           "a call whose handler answered FAILED_PRECONDITION");
  run.Expect(call->status.message().find(long_message) != absl::string_view::npos,
             "the handler's 10 KiB error message did not arrive whole: got ",
             call->status.message().size(), " characters: '", Shorten(call->status.message()),
             "'");
  run.Contains(call->status.message(), "Worker/RunGraph", "the error");
}

void CallReplyDropped(CaseRun& run) {
  TestHandler handler;
  handler.on_call = [](absl::string_view, absl::string_view, TransportReply) {};
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  if (!run.Done(call, "a call the host dropped without an answer")) return;
  run.Code(call->status, absl::StatusCode::kInternal, "a call the host dropped without an answer");
  run.Contains(call->status.message(), "dropped the call without an answer", "the error");
}

void CallAnsweredWithTensor(CaseRun& run) {
  TestHandler handler;
  ServedTensor tensor = FloatTensor({1}, {1.0f});
  handler.on_call = [&](absl::string_view, absl::string_view, TransportReply reply) {
    TestHandler::Serve(tensor, std::move(reply));
  };
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  if (!run.Done(call, "a call answered with a tensor")) return;
  run.Code(call->status, absl::StatusCode::kInternal, "a call answered with a tensor");
  run.Contains(call->status.message(), "answered a call with a tensor", "the error");
  run.Expect(WaitForCount(*tensor.releases, 1, run.wait_bound()),
             "the tensor answering a call was not released");
}

void ConcurrentCallsAndPulls(CaseRun& run) {
  TestHandler handler;
  handler.tensors["1/small"] = FloatTensor({2, 2}, {1, 2, 3, 4});
  handler.tensors["1/large"] = FloatTensor({1024}, std::vector<float>(1024, 3.0f));
  // Half the calls are answered later from another thread, as a busy host does.
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<std::string, TransportReply>> later;
  bool finished = false;
  handler.on_call = [&](absl::string_view method, absl::string_view request, TransportReply reply) {
    if (method == "inline") return reply.Send(absl::OkStatus(), request);
    std::lock_guard<std::mutex> lock(mutex);
    later.emplace_back(std::string(request), std::move(reply));
    wake.notify_one();
  };
  std::thread answerer([&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return finished || !later.empty(); });
      if (later.empty()) return;
      auto [request, reply] = std::move(later.front());
      later.pop_front();
      lock.unlock();
      reply.Send(absl::OkStatus(), request);
      lock.lock();
    }
  });
  auto stop_answerer = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
      wake.notify_one();
    }
    answerer.join();
  };
  auto server = run.Listen(&handler);
  auto channel = server == nullptr ? nullptr : run.Connect(server->address());
  if (channel == nullptr) return stop_answerer();

  constexpr int kThreads = 6;
  constexpr int kPerThread = 30;
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto fail = [&](std::string failure) {
    std::lock_guard<std::mutex> lock(failures_mutex);
    failures.push_back(std::move(failure));
  };
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      std::vector<std::shared_ptr<CallResult>> calls;
      std::vector<std::pair<std::string, std::shared_ptr<PullResult>>> pulls;
      for (int i = 0; i < kPerThread; ++i) {
        calls.push_back(StartCall(*channel, i % 2 == 0 ? "inline" : "later",
                                  absl::StrCat("thread ", t, " call ", i)));
        const std::string key = i % 3 == 0 ? "large" : "small";
        pulls.emplace_back(key, StartPull(*channel, 1, key));
      }
      for (int i = 0; i < kPerThread; ++i) {
        const std::string expected = absl::StrCat("thread ", t, " call ", i);
        if (!calls[i]->done.WaitWithTimeout(run.wait_bound())) {
          fail(absl::StrCat("call '", expected, "' did not complete"));
        } else if (!calls[i]->status.ok()) {
          fail(absl::StrCat("call '", expected, "' failed: ", calls[i]->status.ToString()));
        } else if (calls[i]->response != expected) {
          fail(absl::StrCat("call '", expected, "' answered '", Shorten(calls[i]->response), "'"));
        }
      }
      for (auto& [key, pull] : pulls) {
        const size_t expected = handler.tensors.at("1/" + key).bytes.size();
        if (!pull->done.WaitWithTimeout(run.wait_bound())) {
          fail(absl::StrCat("a pull of '", key, "' did not complete"));
        } else if (!pull->status.ok()) {
          fail(absl::StrCat("a pull of '", key, "' failed: ", pull->status.ToString()));
        } else if (pull->bytes.size() != expected) {
          fail(absl::StrCat("a pull of '", key, "' received ", pull->bytes.size(),
                            " bytes, expected ", expected));
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  stop_answerer();
  if (!failures.empty()) {
    run.Fail(absl::StrCat(failures.size(), " of ", 2 * kThreads * kPerThread,
                          " concurrent calls and pulls failed, first: ", failures[0]));
  }
  channel.reset();
  server.reset();
  const int pulls_of_large = kThreads * ((kPerThread + 2) / 3);
  const int pulls_of_small = kThreads * kPerThread - pulls_of_large;
  const int large_releases = handler.tensors["1/large"].releases->load();
  const int small_releases = handler.tensors["1/small"].releases->load();
  run.Expect(large_releases == pulls_of_large && small_releases == pulls_of_small,
             "served tensors were released ", large_releases, " and ", small_releases,
             " times, expected once per pull (", pulls_of_large, " and ", pulls_of_small, ")");
}

}  // namespace

void AppendCallCases(std::vector<TransportCase>* cases) {
  cases->push_back({"call_roundtrip", &CallRoundTrip});
  cases->push_back({"call_handler_error", &CallHandlerError});
  cases->push_back({"call_reply_dropped", &CallReplyDropped});
  cases->push_back({"call_answered_with_tensor", &CallAnsweredWithTensor});
  cases->push_back({"concurrent_calls_and_pulls", &ConcurrentCallsAndPulls});
}

}  // namespace tessera::plugin_check
