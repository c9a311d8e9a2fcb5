// Transport cases: deadlines, callers that stop waiting, peers that are gone, stopped servers,
// destroyed channels, listening addresses and options.
#include <chrono>
#include <thread>
#include <utility>

#include "kit/transport_cases.h"

namespace tessera::plugin_check {
namespace {

// ---- Deadlines and cancellation --------------------------------------------------------------

void DeadlineThenLateAnswer(CaseRun& run) {
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto call = StartCall(*channel, "Worker/RunGraph", "x", /*deadline_ms=*/200);
  PullOptions with_deadline;
  with_deadline.deadline_ms = 200;
  auto pull = StartPull(*channel, 1, "never", with_deadline);
  if (!run.Done(call, "a call with a 200 ms deadline nobody answers")) return;
  if (!run.Done(pull, "a pull with a 200 ms deadline nobody answers")) return;
  run.Code(call->status, absl::StatusCode::kDeadlineExceeded, "a call past its deadline");
  run.Contains(call->status.message(), "Worker/RunGraph", "the deadline error");
  run.Code(pull->status, absl::StatusCode::kDeadlineExceeded, "a pull past its deadline");
  run.Expect(!pull->allocated, "allocate was called for a pull past its deadline");

  if (!run.Expect(handler.WaitForHeld(2, run.wait_bound()),
                  "the handler did not receive the call and the pull")) {
    return;
  }
  ServedTensor tensor = FloatTensor({2}, {1.0f, 2.0f});
  for (TransportReply& reply : handler.TakeHeld()) {
    reply.Send(absl::OkStatus(), "late");
    TestHandler::Serve(tensor, std::move(reply));  // already answered: released at once
  }
  run.Expect(tensor.releases->load() == 2, "a tensor sent for an answered reply was released ",
             tensor.releases->load(), " of 2 times at once");
  run.Expect(call->completions.load() == 1, "the timed-out call completed ",
             call->completions.load(), " times, expected once");
  run.Expect(pull->completions.load() == 1, "the timed-out pull completed ",
             pull->completions.load(), " times, expected once");

  handler.hold = false;  // the channel still works
  auto after = StartCall(*channel, "Worker/GetStatus", "again");
  if (!run.Done(after, "a call after a deadline passed")) return;
  run.Ok(after->status, "a call on the channel after a deadline passed");
}

// Polls `reply.cancelled()` until it is true; false after `bound`.
bool BecomesCancelled(const TransportReply& reply, absl::Duration bound) {
  const absl::Time give_up = absl::Now() + bound;
  while (absl::Now() < give_up) {
    if (reply.cancelled()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return reply.cancelled();
}

// Reply_IsCancelled: false while the caller waits; true once its deadline passed or its channel
// was destroyed (what a caller's death looks like to the server), and false again once answered.
void ReplyIsCancelled(CaseRun& run) {
  if (run.transport().table().Reply_IsCancelled == nullptr) {
    return run.Skip(absl::StrCat("skipped: transport '", run.transport_name(),
                                 "' does not implement the optional Reply_IsCancelled"));
  }
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto short_call = StartCall(*channel, "Worker/RunGraph", "short", /*deadline_ms=*/300);
  if (!run.Expect(handler.WaitForHeld(1, run.wait_bound()), "the handler did not get the call")) {
    return;
  }
  std::vector<TransportReply> held = handler.TakeHeld();
  if (!run.Done(short_call, "a call with a 300 ms deadline")) return;
  run.Code(short_call->status, absl::StatusCode::kDeadlineExceeded, "a call past its deadline");
  run.Expect(BecomesCancelled(held[0], absl::Seconds(10)),
             "Reply_IsCancelled stayed false for a call past its deadline");
  held[0].Send(absl::OkStatus(), "late");
  run.Expect(!held[0].cancelled(), "Reply_IsCancelled is true for an answered reply");

  auto long_call = StartCall(*channel, "Worker/RunGraph", "long", /*deadline_ms=*/600000);
  if (!run.Expect(handler.WaitForHeld(1, run.wait_bound()), "the handler did not get the call")) {
    return;
  }
  held = handler.TakeHeld();
  run.Expect(!held[0].cancelled(), "Reply_IsCancelled is true while the caller still waits");
  channel.reset();
  if (!run.Done(long_call, "a call whose channel was destroyed")) return;
  run.Expect(BecomesCancelled(held[0], absl::Seconds(10)),
             "Reply_IsCancelled stayed false for a call whose channel was destroyed");
  held[0].Send(absl::OkStatus(), "late");
}

void DefaultDeadlineOption(CaseRun& run) {
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address(), {{"default_deadline_ms", "200"}});
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  if (!run.Done(call, "a call on a channel with default_deadline_ms 200")) return;
  run.Code(call->status, absl::StatusCode::kDeadlineExceeded,
           "an unanswered call on a channel with default_deadline_ms 200");
}

// ---- Peers that are gone ---------------------------------------------------------------------

void PeerNotListening(CaseRun& run) {
  const int port = UnusedPort();
  if (!run.Expect(port > 0, "no free TCP port of 127.0.0.1 was found")) return;
  auto channel = run.Connect(absl::StrCat("127.0.0.1:", port));
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  auto pull = StartPull(*channel, 1, "k");
  if (!run.Done(call, "a call to an address nothing listens on")) return;
  if (!run.Done(pull, "a pull from an address nothing listens on")) return;
  run.Code(call->status, absl::StatusCode::kUnavailable, "a call to an address nothing listens on");
  run.Contains(call->status.message(), channel->address(), "the error");
  run.Code(pull->status, absl::StatusCode::kUnavailable,
           "a pull from an address nothing listens on");
  run.Expect(!pull->allocated, "allocate was called for a pull from nobody");
}

void ServerStopFailsPending(CaseRun& run) {
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto first = StartCall(*channel, "Worker/RunGraph", "1");
  auto second = StartCall(*channel, "Worker/RunGraph", "2");
  auto pull = StartPull(*channel, 7, "pending");
  if (!run.Expect(handler.WaitForHeld(3, run.wait_bound()),
                  "the handler did not receive 2 calls and a pull")) {
    return;
  }

  server->Stop();
  for (const auto& call : {first, second}) {
    if (!run.Done(call, "a pending call when its server stopped")) return;
    run.Code(call->status, absl::StatusCode::kUnavailable,
             "a pending call when its server stopped");
  }
  if (!run.Done(pull, "a pending pull when its server stopped")) return;
  run.Code(pull->status, absl::StatusCode::kUnavailable, "a pending pull when its server stopped");

  // The host still holds the replies: answering them now is dropped, and releases at once.
  ServedTensor tensor = FloatTensor({4096}, std::vector<float>(4096, 1.0f));
  std::vector<TransportReply> held = handler.TakeHeld();
  if (!run.Expect(held.size() == 3, "the handler holds ", held.size(), " replies, expected 3")) {
    return;
  }
  held[0].Send(absl::OkStatus(), "late");
  held[1].Send(absl::InternalError("late error"), "");
  TestHandler::Serve(tensor, std::move(held[2]));
  run.Expect(tensor.releases->load() == 1,
             "a tensor sent after Server_Stop was not released at once");

  auto after = StartCall(*channel, "Worker/GetStatus", "");
  if (!run.Done(after, "a call to a stopped server")) return;
  run.Code(after->status, absl::StatusCode::kUnavailable, "a call to a stopped server");
  server.reset();
  held.clear();  // replies outlive their server
}

void ChannelDestroyCompletesInFlight(CaseRun& run) {
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/RunGraph", "x");
  auto pull = StartPull(*channel, 3, "k");
  if (!run.Expect(handler.WaitForHeld(2, run.wait_bound()),
                  "the handler did not receive the call and the pull")) {
    return;
  }

  channel.reset();
  run.Expect(call->done.HasBeenNotified(),
             "Channel_Destroy returned before the callback of a call in flight ran");
  run.Expect(pull->done.HasBeenNotified(),
             "Channel_Destroy returned before the callback of a pull in flight ran");
  if (!run.Done(call, "a call whose channel was destroyed")) return;
  if (!run.Done(pull, "a pull whose channel was destroyed")) return;
  run.Code(call->status, absl::StatusCode::kCancelled, "a call whose channel was destroyed");
  run.Code(pull->status, absl::StatusCode::kCancelled, "a pull whose channel was destroyed");

  for (TransportReply& reply : handler.TakeHeld()) reply.Send(absl::OkStatus(), "late");
  run.Expect(call->completions.load() == 1, "the cancelled call completed ",
             call->completions.load(), " times, expected once");
  run.Expect(pull->completions.load() == 1, "the cancelled pull completed ",
             pull->completions.load(), " times, expected once");
}

void ChannelDestroyInCallback(CaseRun& run) {
  TestHandler handler;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  struct State {
    std::unique_ptr<TransportChannel> channel;
    absl::Status status;
    Notification destroyed;
  };
  auto state = std::make_shared<State>();
  state->channel = run.Connect(server->address());
  if (state->channel == nullptr) return;
  state->channel->Call("Worker/GetStatus", "", 0,
                       [state](const absl::Status& status, absl::string_view) {
                         state->status = Unshared(status);
                         state->channel.reset();
                         state->destroyed.Notify();
                       });
  if (!run.Done(state->destroyed, "destroying a channel from its own call's callback")) return;
  run.Ok(state->status, "the call whose callback destroyed its channel");
}

// ---- Servers, addresses and options ----------------------------------------------------------

void ListenPortZero(CaseRun& run) {
  TestHandler handler;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  run.Contains(server->address(), "127.0.0.1:", "the address of a server on '127.0.0.1:0'");
  run.Expect(PortOf(server->address()) > 0, "a server on '127.0.0.1:0' reports address '",
             server->address(), "', expected the port it picked");
}

void ListenPortInUse(CaseRun& run) {
  TestHandler handler;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  const std::string port = std::to_string(PortOf(server->address()));
  absl::StatusOr<std::unique_ptr<TransportServer>> second =
      run.transport().Listen(absl::StrCat("127.0.0.1:", port), {}, &handler);
  if (!run.Expect(!second.ok(), "a second server on port ", port, " started")) return;
  run.Code(second.status(), absl::StatusCode::kAlreadyExists, "a second server on the same port");
  run.Contains(second.status().message(), port, "the error");
  run.Contains(second.status().message(),
               absl::StrCat("transport '", run.transport_name(), "' from plugin '"), "the error");

  auto channel = run.Connect(server->address());  // the first still serves
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "M", "x");
  if (!run.Done(call, "a call to the first server")) return;
  run.Ok(call->status, "a call to the first server after a second was refused");
}

void MalformedAddresses(CaseRun& run) {
  TestHandler handler;
  for (const char* address : {"no-port", "127.0.0.1:http", "127.0.0.1:70000", ":5000"}) {
    const std::string quoted = absl::StrCat("'", address, "'");
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        run.transport().Listen(address, {}, &handler);
    if (run.Expect(!server.ok(), "Listen on the malformed address ", quoted, " succeeded")) {
      run.Code(server.status(), absl::StatusCode::kInvalidArgument,
               absl::StrCat("Listen on ", quoted));
      run.Contains(server.status().message(), address, "the error");
    }
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
        run.transport().Connect(address, {});
    if (run.Expect(!channel.ok(), "Connect to the malformed address ", quoted, " succeeded")) {
      run.Code(channel.status(), absl::StatusCode::kInvalidArgument,
               absl::StrCat("Connect to ", quoted));
      run.Contains(channel.status().message(), address, "the error");
    }
  }
}

void UnknownOptions(CaseRun& run) {
  TestHandler handler;
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      run.transport().Listen("127.0.0.1:0", {{"tls_certfile", "x"}}, &handler);
  if (run.Expect(!server.ok(), "Listen accepted the unknown option 'tls_certfile'")) {
    run.Code(server.status(), absl::StatusCode::kInvalidArgument,
             "Listen with the unknown option 'tls_certfile'");
    run.Contains(server.status().message(), "'tls_certfile'", "the error");
  }
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      run.transport().Connect("127.0.0.1:1", {{"compression", "gzip"}});
  if (run.Expect(!channel.ok(), "Connect accepted the unknown option 'compression'")) {
    run.Code(channel.status(), absl::StatusCode::kInvalidArgument,
             "Connect with the unknown option 'compression'");
    run.Contains(channel.status().message(), "'compression'", "the error");
  }
}

void BadDefaultDeadline(CaseRun& run) {
  for (const char* value : {"soon", "-5", "0", "12ms"}) {
    absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
        run.transport().Connect("127.0.0.1:1", {{"default_deadline_ms", value}});
    const std::string what = absl::StrCat("Connect with default_deadline_ms '", value, "'");
    if (!run.Expect(!channel.ok(), what, " succeeded")) continue;
    run.Code(channel.status(), absl::StatusCode::kInvalidArgument, what);
    run.Contains(channel.status().message(), "default_deadline_ms", "the error");
  }
}

}  // namespace

void AppendFailureCases(std::vector<TransportCase>* cases) {
  cases->push_back({"deadline_then_late_answer", &DeadlineThenLateAnswer});
  cases->push_back({"reply_is_cancelled", &ReplyIsCancelled});
  cases->push_back({"default_deadline_option", &DefaultDeadlineOption});
  cases->push_back({"peer_not_listening", &PeerNotListening});
  cases->push_back({"server_stop_fails_pending", &ServerStopFailsPending});
  cases->push_back({"channel_destroy_completes_in_flight", &ChannelDestroyCompletesInFlight});
  cases->push_back({"channel_destroy_in_callback", &ChannelDestroyInCallback});
  cases->push_back({"listen_port_zero", &ListenPortZero});
  cases->push_back({"listen_port_in_use", &ListenPortInUse});
  cases->push_back({"malformed_addresses", &MalformedAddresses});
  cases->push_back({"unknown_options", &UnknownOptions});
  cases->push_back({"bad_default_deadline", &BadDefaultDeadline});
}

}  // namespace tessera::plugin_check
