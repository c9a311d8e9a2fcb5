// What the transport suite's cases share: the recorder of a case's outcome (CaseRun), the
// serving handler, and calls and tensor pulls whose results outlive a case that gave up on them.
// Internal to kit/.
#ifndef TESSERA_KIT_TRANSPORT_FIXTURE_H_
#define TESSERA_KIT_TRANSPORT_FIXTURE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "registry/transport_handle.h"
#include "tessera/plugin_check/check.h"

namespace tessera::plugin_check {

struct TransportCaseOptions {
  // The folder holding the TLS test certificates (ca.pem, server.pem, server.key, client.pem,
  // client.key, other_ca.pem, other_client.pem, other_client.key). "": the TLS cases skip,
  // giving `tls_missing_reason`.
  std::string tls_data_dir;
  std::string tls_missing_reason;
  // Bound of every wait for a completion, and of a whole case: a case still running after
  // `case_bound` fails as hung and is abandoned on its thread.
  absl::Duration wait_bound = absl::Seconds(30);
  absl::Duration case_bound = absl::Seconds(180);
};

// ---- Waiting for completions ---------------------------------------------------------------

// A one-shot event on std::mutex. Debian's Abseil is not built with ThreadSanitizer, so TSan
// cannot see the synchronization inside absl::Notification and would report what it hands over
// as races.
class Notification {
 public:
  void Notify();
  bool HasBeenNotified() const;
  bool WaitWithTimeout(absl::Duration timeout);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool notified_ = false;
};

// A copy of `status` that shares nothing with it. Debian's Abseil is not built with
// ThreadSanitizer, so TSan cannot see the reference counting of a status shared between the
// transport's thread and the case's, and would report its release as a race.
absl::Status Unshared(const absl::Status& status);

// A completion may outlive the case that started it (a case that failed stops waiting), so
// results live on the heap.
struct CallResult {
  Notification done;
  std::atomic<int> completions{0};
  absl::Status status;
  std::string response;
};

std::shared_ptr<CallResult> StartCall(TransportChannel& channel, absl::string_view method,
                                      absl::string_view request, int64_t deadline_ms = 0);

struct PullResult {
  Notification done;
  std::atomic<int> completions{0};
  absl::Status status;
  bool is_dead = false;
  bool allocated = false;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  std::vector<int64_t> dims;
  size_t allocate_byte_size = 0;  // what the transport gave allocate
  std::vector<char> bytes;        // the destination: element count times size; strings: packed
};

struct PullOptions {
  int64_t deadline_ms = 0;
  absl::Status allocate_error;  // returned by allocate when not OK
  bool wrong_size = false;      // a destination one byte short
};

std::shared_ptr<PullResult> StartPull(TransportChannel& channel, uint64_t step_id,
                                      absl::string_view key, PullOptions options = {});

// Polls `count` until it reaches `expected`; false after `bound`.
bool WaitForCount(const std::atomic<int>& count, int expected, absl::Duration bound);

// ---- The serving side ------------------------------------------------------------------------

// A tensor the handler serves from its own buffer, and the count of its releases.
struct ServedTensor {
  absl::Status status;
  TSR_DataType dtype = TSR_DTYPE_FLOAT;
  std::vector<int64_t> dims;
  std::vector<char> bytes;
  bool is_dead = false;
  std::shared_ptr<std::atomic<int>> releases = std::make_shared<std::atomic<int>>(0);
};

ServedTensor FloatTensor(std::vector<int64_t> dims, const std::vector<float>& values);
// A TSR_DTYPE_STRING tensor of `elements` in the packed layout of common.h.
ServedTensor StringTensor(std::vector<int64_t> dims, const std::vector<std::string>& elements);

// Serves calls (echoes "method|request" by default) and tensors by "step/key", or holds the
// replies for the case to answer later.
class TestHandler : public TransportHandler {
 public:
  void HandleCall(absl::string_view method, absl::string_view request,
                  TransportReply reply) override;
  void HandleRecvTensor(uint64_t step_id, absl::string_view key, TransportReply reply) override;

  // Answers `reply` with `tensor` from its own buffer.
  static void Serve(ServedTensor& tensor, TransportReply reply);

  void Hold(TransportReply reply);
  // Waits until `count` replies are held; false after `bound`.
  bool WaitForHeld(size_t count, absl::Duration bound);
  std::vector<TransportReply> TakeHeld();

  // Set before the server starts (`hold` may change later).
  std::atomic<bool> hold{false};
  std::function<void(absl::string_view, absl::string_view, TransportReply)> on_call;
  std::map<std::string, ServedTensor> tensors;  // "step/key"

 private:
  std::mutex mutex_;
  std::condition_variable held_changed_;
  std::vector<TransportReply> held_;
};

// ---- Addresses -------------------------------------------------------------------------------

// A TCP port of 127.0.0.1 that nothing listens on (bound, then closed); 0 when none was found.
int UnusedPort();
// The port of "host:port"; -1 when there is none.
int PortOf(const std::string& address);

// ---- One case's run --------------------------------------------------------------------------

// Records what one case found. Checks return whether they held, so that a requirement reads
// `if (!run.Ok(...)) return;` and an expectation simply `run.Code(...);`. Every failure names
// what was expected and what happened; the result prefixes them with "<transport>/<case>: ".
class CaseRun {
 public:
  CaseRun(std::shared_ptr<PluginTransport> transport, const TransportCaseOptions& options,
          std::string name);

  PluginTransport& transport() const { return *transport_; }
  const std::string& transport_name() const { return transport_->name(); }
  const TransportCaseOptions& options() const { return options_; }
  absl::Duration wait_bound() const { return options_.wait_bound; }

  // Records a failure made of `parts` unless `condition` holds.
  template <typename... Parts>
  bool Expect(bool condition, const Parts&... parts) {
    if (!condition) Fail(absl::StrCat(parts...));
    return condition;
  }
  void Fail(std::string failure);
  // The case does not apply (kept only when nothing failed).
  void Skip(std::string reason);

  // `what` ended OK.
  bool Ok(const absl::Status& status, absl::string_view what);
  // `what` ended with `code`.
  bool Code(const absl::Status& status, absl::StatusCode code, absl::string_view what);
  // `text` (what `what` said) contains `part`.
  bool Contains(absl::string_view text, absl::string_view part, absl::string_view what);
  // The completion of `what` ran within the wait bound.
  bool Done(Notification& done, absl::string_view what);
  template <typename Result>
  bool Done(const std::shared_ptr<Result>& result, absl::string_view what) {
    return Done(result->done, what);
  }

  // Listen on 127.0.0.1:0 and Connect, recording a failure and returning nullptr when they fail.
  std::unique_ptr<TransportServer> Listen(TransportHandler* handler,
                                          const TransportOptions& options = {});
  std::unique_ptr<TransportChannel> Connect(const std::string& address,
                                            const TransportOptions& options = {});

  CaseResult Result() const;

 private:
  const std::shared_ptr<PluginTransport> transport_;
  const TransportCaseOptions options_;
  const std::string name_;
  std::vector<std::string> failures_;
  std::string skip_reason_;
  bool skipped_ = false;
};

// At most `limit` characters of `text`, for messages that quote what a transport said.
std::string Shorten(absl::string_view text, size_t limit = 200);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_TRANSPORT_FIXTURE_H_
