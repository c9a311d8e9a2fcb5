// The local rendezvous and rendezvous keys.
#include "host/rendezvous/rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace tessera {

std::string CreateRendezvousKey(absl::string_view src_device, uint64_t src_incarnation,
                                absl::string_view dst_device, absl::string_view tensor_name,
                                FrameAndIter frame_iter) {
  return absl::StrCat(src_device, ";", absl::StrFormat("%016x", src_incarnation), ";",
                      dst_device, ";", tensor_name, ";", frame_iter.frame_id, ":",
                      frame_iter.iter_id);
}

absl::StatusOr<ParsedRendezvousKey> ParseRendezvousKey(absl::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("malformed rendezvous key '", key, "': ", why));
  };
  if (parts.size() != 5) return bad(absl::StrCat("expected 5 ';'-separated parts, got ", parts.size()));
  ParsedRendezvousKey parsed;
  parsed.src_device = std::string(parts[0]);
  if (parts[1].size() != 16 || !absl::SimpleHexAtoi(parts[1], &parsed.src_incarnation)) {
    return bad("the incarnation is not 16 hex digits");
  }
  parsed.dst_device = std::string(parts[2]);
  parsed.edge_name = std::string(parts[3]);
  if (parsed.src_device.empty() || parsed.dst_device.empty() || parsed.edge_name.empty()) {
    return bad("empty device or tensor name");
  }
  std::vector<absl::string_view> fi = absl::StrSplit(parts[4], ':');
  if (fi.size() != 2 || !absl::SimpleAtoi(fi[0], &parsed.frame_iter.frame_id) ||
      !absl::SimpleAtoi(fi[1], &parsed.frame_iter.iter_id)) {
    return bad("the frame and iteration are not '<frame>:<iter>'");
  }
  return parsed;
}

LocalRendezvous::~LocalRendezvous() {
  // Callbacks run outside the lock but never after their RecvAsync/Send returned, so taking the
  // lock once is enough to wait for a concurrent caller to leave the critical section.
  std::lock_guard<std::mutex> lock(mu_);
}

absl::Status LocalRendezvous::Send(absl::string_view key, const Tensor& value, bool is_dead) {
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return status_;
    Queue& queue = table_[key];
    if (queue.items.empty() || queue.holds_values) {
      queue.holds_values = true;
      queue.items.push_back(Item{value, is_dead, nullptr});
      return absl::OkStatus();
    }
    waiter = std::move(queue.items.front().waiter);
    queue.items.pop_front();
    if (queue.items.empty()) table_.erase(table_.find(key));
  }
  waiter(absl::OkStatus(), value, is_dead);
  return absl::OkStatus();
}

void LocalRendezvous::RecvAsync(absl::string_view key, DoneCallback done) {
  Item item;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!status_.ok()) {
      absl::Status s = status_;
      lock.unlock();
      done(s, Tensor(), false);
      return;
    }
    Queue& queue = table_[key];
    if (queue.items.empty() || !queue.holds_values) {
      queue.holds_values = false;
      queue.items.push_back(Item{Tensor(), false, std::move(done)});
      return;
    }
    item = std::move(queue.items.front());
    queue.items.pop_front();
    if (queue.items.empty()) table_.erase(table_.find(key));
  }
  done(absl::OkStatus(), item.value, item.is_dead);
}

void LocalRendezvous::StartAbort(const absl::Status& status) {
  std::vector<DoneCallback> waiters;
  absl::Status abort_status = status.ok() ? absl::AbortedError("rendezvous aborted") : status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return;
    status_ = abort_status;
    for (auto& [key, queue] : table_) {
      if (queue.holds_values) continue;
      for (Item& item : queue.items) waiters.push_back(std::move(item.waiter));
    }
    table_.clear();
  }
  for (DoneCallback& waiter : waiters) waiter(abort_status, Tensor(), false);
}

absl::Status LocalRendezvous::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace tessera
