// Rendezvous: the per-step table through which _Send and _Recv exchange tensors, keyed by
// TensorFlow's rendezvous key. The local rendezvous never blocks a sender; a receiver either
// takes a waiting value or leaves a callback.
#ifndef TESSERA_HOST_RENDEZVOUS_RENDEZVOUS_H_
#define TESSERA_HOST_RENDEZVOUS_RENDEZVOUS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/runtime/tensor.h"

namespace tessera {

// Frame and iteration of a value inside loops; (0, 0) outside any loop.
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
};

// "<src_device>;<src_incarnation as 16 hex digits>;<dst_device>;<tensor_name>;<frame>:<iter>".
std::string CreateRendezvousKey(absl::string_view src_device, uint64_t src_incarnation,
                                absl::string_view dst_device, absl::string_view tensor_name,
                                FrameAndIter frame_iter);

struct ParsedRendezvousKey {
  std::string src_device;
  uint64_t src_incarnation = 0;
  std::string dst_device;
  std::string edge_name;
  FrameAndIter frame_iter;
};
// INVALID_ARGUMENT naming the key for a malformed one.
absl::StatusOr<ParsedRendezvousKey> ParseRendezvousKey(absl::string_view key);

// What the _Send and _Recv kernels of one step exchange values through. The local rendezvous
// keeps them in this process; the distributed runtime's rendezvous also pulls values whose sender
// is another task.
class Rendezvous {
 public:
  using DoneCallback = std::function<void(const absl::Status&, const Tensor&, bool is_dead)>;

  virtual ~Rendezvous() = default;
  // Never blocks: hands the value to the oldest waiting receiver or queues it. After an abort,
  // returns the abort status.
  virtual absl::Status Send(absl::string_view key, const Tensor& value, bool is_dead) = 0;
  // Calls `done` with the value (now or when it is sent), or with the abort status. `done` runs
  // outside the rendezvous lock.
  virtual void RecvAsync(absl::string_view key, DoneCallback done) = 0;
  // Fails every waiting receiver with `status`, drops queued values; every later call returns it.
  virtual void StartAbort(const absl::Status& status) = 0;
  // OK, or the first abort status.
  virtual absl::Status status() const = 0;
};

class LocalRendezvous final : public Rendezvous {
 public:
  LocalRendezvous() = default;
  // Waits until no callback is running.
  ~LocalRendezvous() override;

  absl::Status Send(absl::string_view key, const Tensor& value, bool is_dead) override;
  void RecvAsync(absl::string_view key, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;
  absl::Status status() const override;

 private:
  struct Item {
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;  // set for a waiting receiver
  };
  struct Queue {
    std::deque<Item> items;
    bool holds_values = false;  // otherwise holds waiters
  };

  mutable std::mutex mu_;
  absl::Status status_;
  absl::flat_hash_map<std::string, Queue> table_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_RENDEZVOUS_RENDEZVOUS_H_
