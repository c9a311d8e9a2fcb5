// Streams and events of the TESTDEV devices: each stream is a worker thread running its queue in
// order, so that TESTDEV is asynchronous as a GPU is. A host that reads device memory without
// waiting on the right event sees stale bytes (with the device option "stream_delay_us", every
// queued item waits that long first, which makes such a race show every time).
#ifndef TESSERA_PLUGINS_TESTING_TESTDEVICE_STREAM_H_
#define TESSERA_PLUGINS_TESTING_TESTDEVICE_STREAM_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tessera/plugin_api/device.h"
#include "tessera/sdk/status.h"

// The plugin's definitions of the ABI's opaque stream and event handles.
struct TSR_Stream {
  // `delay` before each item; `name` ("TESTDEV:0 compute") appears in errors.
  TSR_Stream(std::string stream_name, std::chrono::microseconds delay);
  // Runs what is queued, then stops the thread.
  ~TSR_Stream();

  // Queues `work`; it runs after everything queued before it. Work returns a status: the first
  // error is kept and reported by Synchronize (and by events recorded after it).
  void Enqueue(std::function<tessera::sdk::Status()> work);
  // Waits until everything queued so far has run; the first error of the stream, if any.
  tessera::sdk::Status Synchronize();
  // The first error so far (OK when none).
  tessera::sdk::Status error() const;

  const std::string name;

 private:
  void Run();

  const std::chrono::microseconds delay_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<tessera::sdk::Status()>> queue_;
  uint64_t enqueued_ = 0;
  uint64_t done_ = 0;
  bool stopping_ = false;
  // The first error (sdk::Status is move-only: kept as code and message).
  TSR_Code error_code_ = TSR_CODE_OK;
  std::string error_message_;
  std::thread thread_;
};

// An event's state is shared with the stream items that record it and wait on it, so that an
// event may be destroyed while they are still queued (as a GPU event may).
struct TSR_Event {
  // Marks the point after what `stream` has queued so far.
  void Record(TSR_Stream* stream);
  // True once the last recorded point has passed (or nothing was recorded).
  bool Complete() const;
  // Blocks until the last recorded point has passed; the recording stream's error by then.
  tessera::sdk::Status Wait() const;
  // Makes `stream` wait, before what it runs next, for the point recorded last before this call.
  void MakeWait(TSR_Stream* stream) const;
  // The recording stream's first error as of the last point that passed (OK when none).
  tessera::sdk::Status Error() const;
  // When the last recorded point passed; false when it has not yet.
  bool CompletedAt(std::chrono::steady_clock::time_point* when) const;

 private:
  struct State {
    std::mutex mu;
    std::condition_variable changed;
    uint64_t recorded = 0;  // recordings so far
    uint64_t passed = 0;    // the latest recording that has passed
    std::chrono::steady_clock::time_point passed_at;
    TSR_Code error_code = TSR_CODE_OK;
    std::string error_message;
  };
  // Waits until recording `target` has passed; the error recorded with it.
  static tessera::sdk::Status WaitFor(State& state, uint64_t target);

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

namespace tessera::testdevice {

// Fills the stream and event slots of `registration` and links the device profiling extension
// (static storage) into its extension list.
void AddStreamSlots(TSR_DeviceTypeRegistration* registration);

// Runs `work` on the device's compute stream `stream`, or now when it is NULL (a host without
// streams); what kernels and deferred frees use.
sdk::Status RunOn(TSR_Stream* stream, std::function<sdk::Status()> work);

}  // namespace tessera::testdevice

#endif  // TESSERA_PLUGINS_TESTING_TESTDEVICE_STREAM_H_
