// The transport suite's shared pieces: completions, the serving handler, addresses and CaseRun.
#include "kit/transport_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"

namespace tessera::plugin_check {
namespace {

// The destination size allocate gives a string tensor is the sender's claim; a broken transport
// must not make the kit allocate without limit.
constexpr size_t kMaxStringDestination = size_t{1} << 30;

size_t DtypeSize(TSR_DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_DOUBLE:
    case TSR_DTYPE_INT64:
    case TSR_DTYPE_UINT64:
    case TSR_DTYPE_COMPLEX64:
      return 8;
    case TSR_DTYPE_FLOAT:
    case TSR_DTYPE_INT32:
    case TSR_DTYPE_UINT32:
      return 4;
    case TSR_DTYPE_INT16:
    case TSR_DTYPE_UINT16:
    case TSR_DTYPE_HALF:
    case TSR_DTYPE_BFLOAT16:
      return 2;
    case TSR_DTYPE_UINT8:
    case TSR_DTYPE_INT8:
    case TSR_DTYPE_BOOL:
      return 1;
    case TSR_DTYPE_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

}  // namespace

// ---- Waiting for completions ---------------------------------------------------------------

void Notification::Notify() {
  std::lock_guard<std::mutex> lock(mutex_);
  notified_ = true;
  changed_.notify_all();
}

bool Notification::HasBeenNotified() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return notified_;
}

bool Notification::WaitWithTimeout(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] { return notified_; });
}

absl::Status Unshared(const absl::Status& status) {
  return status.ok() ? absl::OkStatus() : absl::Status(status.code(), status.message());
}

std::shared_ptr<CallResult> StartCall(TransportChannel& channel, absl::string_view method,
                                      absl::string_view request, int64_t deadline_ms) {
  auto result = std::make_shared<CallResult>();
  channel.Call(method, request, deadline_ms,
               [result](const absl::Status& status, absl::string_view response) {
                 result->status = Unshared(status);
                 result->response = std::string(response);
                 if (result->completions.fetch_add(1) == 0) result->done.Notify();
               });
  return result;
}

std::shared_ptr<PullResult> StartPull(TransportChannel& channel, uint64_t step_id,
                                      absl::string_view key, PullOptions options) {
  auto result = std::make_shared<PullResult>();
  channel.RecvTensor(
      step_id, key, options.deadline_ms,
      [result, options](TSR_DataType dtype, absl::Span<const int64_t> dims, size_t byte_size,
                        TSR_TensorView* destination) -> absl::Status {
        result->allocated = true;
        result->dtype = dtype;
        result->dims.assign(dims.begin(), dims.end());
        result->allocate_byte_size = byte_size;
        if (!options.allocate_error.ok()) return options.allocate_error;
        // As the host allocates: from dtype and shape, except for strings, whose packed size
        // only the sender knows.
        size_t size = 0;
        if (dtype == TSR_DTYPE_STRING) {
          if (byte_size > kMaxStringDestination) {
            return absl::ResourceExhaustedError(
                absl::StrCat("the kit allocates at most ", kMaxStringDestination,
                             " bytes for a string tensor; the transport asked for ", byte_size));
          }
          size = byte_size;
        } else {
          size = DtypeSize(dtype);
          for (int64_t dim : dims) size *= static_cast<size_t>(dim);
        }
        if (options.wrong_size && size > 0) --size;
        result->bytes.resize(size);
        destination->dtype = dtype;
        destination->rank = static_cast<int32_t>(dims.size());
        destination->dims = result->dims.data();
        destination->data = size == 0 ? nullptr : result->bytes.data();
        destination->byte_size = size;
        return absl::OkStatus();
      },
      [result](const absl::Status& status, bool is_dead) {
        result->status = Unshared(status);
        result->is_dead = is_dead;
        if (result->completions.fetch_add(1) == 0) result->done.Notify();
      });
  return result;
}

bool WaitForCount(const std::atomic<int>& count, int expected, absl::Duration bound) {
  const absl::Time give_up = absl::Now() + bound;
  while (count.load() < expected && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  return count.load() >= expected;
}

// ---- The serving side ------------------------------------------------------------------------

ServedTensor FloatTensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  ServedTensor tensor;
  tensor.dims = std::move(dims);
  tensor.bytes.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  return tensor;
}

ServedTensor StringTensor(std::vector<int64_t> dims, const std::vector<std::string>& elements) {
  ServedTensor tensor;
  tensor.dtype = TSR_DTYPE_STRING;
  tensor.dims = std::move(dims);
  const size_t offsets_size = TSR_STRING_OFFSETS_SIZE(elements.size());
  size_t total = 0;
  for (const std::string& element : elements) total += element.size();
  tensor.bytes.resize(offsets_size + total);
  uint64_t offset = 0;
  for (size_t i = 0; i <= elements.size(); ++i) {
    // Little-endian, whatever the machine's order.
    for (int b = 0; b < 8; ++b) {
      tensor.bytes[i * 8 + b] = static_cast<char>((offset >> (8 * b)) & 0xff);
    }
    if (i < elements.size()) {
      if (!elements[i].empty()) {
        std::memcpy(tensor.bytes.data() + offsets_size + offset, elements[i].data(),
                    elements[i].size());
      }
      offset += elements[i].size();
    }
  }
  return tensor;
}

void TestHandler::HandleCall(absl::string_view method, absl::string_view request,
                             TransportReply reply) {
  if (on_call) return on_call(method, request, std::move(reply));
  if (hold) return Hold(std::move(reply));
  reply.Send(absl::OkStatus(), absl::StrCat(method, "|", request));
}

void TestHandler::HandleRecvTensor(uint64_t step_id, absl::string_view key,
                                   TransportReply reply) {
  if (hold) return Hold(std::move(reply));
  const std::string name = absl::StrCat(step_id, "/", key);
  auto found = tensors.find(name);
  if (found == tensors.end()) {
    TSR_TensorView empty{};
    empty.struct_size = sizeof(empty);
    return reply.SendTensor(absl::NotFoundError(absl::StrCat("no tensor '", name, "'")), empty,
                            false, nullptr);
  }
  Serve(found->second, std::move(reply));
}

void TestHandler::Serve(ServedTensor& tensor, TransportReply reply) {
  TSR_TensorView view{};
  view.struct_size = sizeof(view);
  view.dtype = tensor.dtype;
  view.rank = static_cast<int32_t>(tensor.dims.size());
  view.dims = tensor.dims.data();
  view.data = tensor.bytes.empty() ? nullptr : tensor.bytes.data();
  view.byte_size = tensor.bytes.size();
  std::shared_ptr<std::atomic<int>> releases = tensor.releases;
  reply.SendTensor(tensor.status, view, tensor.is_dead, [releases] { ++*releases; });
}

void TestHandler::Hold(TransportReply reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_.push_back(std::move(reply));
  held_changed_.notify_all();
}

bool TestHandler::WaitForHeld(size_t count, absl::Duration bound) {
  std::unique_lock<std::mutex> lock(mutex_);
  return held_changed_.wait_for(lock, absl::ToChronoNanoseconds(bound),
                                [&] { return held_.size() >= count; });
}

std::vector<TransportReply> TestHandler::TakeHeld() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TransportReply> taken;
  for (TransportReply& reply : held_) taken.push_back(std::move(reply));
  held_.clear();
  return taken;
}

// ---- Addresses -------------------------------------------------------------------------------

int UnusedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

int PortOf(const std::string& address) {
  int port = 0;
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) return -1;
  return port;
}

// ---- CaseRun ---------------------------------------------------------------------------------

std::string Shorten(absl::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  return absl::StrCat(text.substr(0, limit), "... (", text.size(), " characters)");
}

CaseRun::CaseRun(std::shared_ptr<PluginTransport> transport, const TransportCaseOptions& options,
                 std::string name)
    : transport_(std::move(transport)), options_(options), name_(std::move(name)) {}

void CaseRun::Fail(std::string failure) { failures_.push_back(std::move(failure)); }

void CaseRun::Skip(std::string reason) {
  skipped_ = true;
  skip_reason_ = std::move(reason);
}

bool CaseRun::Ok(const absl::Status& status, absl::string_view what) {
  return Expect(status.ok(), what, " failed: ", Shorten(status.ToString()));
}

bool CaseRun::Code(const absl::Status& status, absl::StatusCode code, absl::string_view what) {
  return Expect(status.code() == code, what, " ended with ",
                status.ok() ? std::string("OK") : Shorten(status.ToString()), ", expected code ",
                absl::StatusCodeToString(code));
}

bool CaseRun::Contains(absl::string_view text, absl::string_view part, absl::string_view what) {
  return Expect(text.find(part) != absl::string_view::npos, what, " says '", Shorten(text),
                "', which does not contain '", Shorten(part), "'");
}

bool CaseRun::Done(Notification& done, absl::string_view what) {
  return Expect(done.WaitWithTimeout(options_.wait_bound), what, " did not complete within ",
                absl::FormatDuration(options_.wait_bound));
}

std::unique_ptr<TransportServer> CaseRun::Listen(TransportHandler* handler,
                                                 const TransportOptions& options) {
  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen("127.0.0.1:0", options, handler);
  if (!Ok(server.status(), "Listen on '127.0.0.1:0'")) return nullptr;
  return std::move(*server);
}

std::unique_ptr<TransportChannel> CaseRun::Connect(const std::string& address,
                                                   const TransportOptions& options) {
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport_->Connect(address, options);
  if (!Ok(channel.status(), absl::StrCat("Connect to '", address, "'"))) return nullptr;
  return std::move(*channel);
}

CaseResult CaseRun::Result() const {
  CaseResult result;
  result.suite = "transport";
  result.name = name_;
  if (!failures_.empty()) {
    constexpr size_t kShown = 5;
    std::vector<std::string> shown(
        failures_.begin(), failures_.begin() + std::min(failures_.size(), kShown));
    result.outcome = Outcome::kFail;
    result.message = absl::StrCat(name_, ": ", absl::StrJoin(shown, "; "));
    if (failures_.size() > kShown) {
      absl::StrAppend(&result.message, "; and ", failures_.size() - kShown, " more");
    }
  } else if (skipped_) {
    result.outcome = Outcome::kSkip;
    result.message = skip_reason_;
  }
  return result;
}

}  // namespace tessera::plugin_check
