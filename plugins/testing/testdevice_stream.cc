// TESTDEV streams (a worker thread each) and events, and their C slots.
#include "plugins/testing/testdevice_stream.h"

#include <new>
#include <utility>

#include "plugins/testing/testdevice_device.h"
#include "tessera/sdk/host_api.h"

TSR_Stream::TSR_Stream(std::string stream_name, std::chrono::microseconds delay)
    : name(std::move(stream_name)), delay_(delay), thread_([this] { Run(); }) {}

TSR_Stream::~TSR_Stream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void TSR_Stream::Enqueue(std::function<tessera::sdk::Status()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
    ++enqueued_;
  }
  changed_.notify_all();
}

tessera::sdk::Status TSR_Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = enqueued_;
  changed_.wait(lock, [&] { return done_ >= target; });
  return tessera::sdk::MakeStatus(error_code_, error_message_);
}

tessera::sdk::Status TSR_Stream::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tessera::sdk::MakeStatus(error_code_, error_message_);
}

void TSR_Stream::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    std::function<tessera::sdk::Status()> work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    tessera::sdk::Status status = work();
    lock.lock();
    if (!status.ok() && error_code_ == TSR_CODE_OK) {
      error_code_ = status.code();
      error_message_ = tessera::sdk::StrCat(name, ": ", status.message());
    }
    ++done_;
    changed_.notify_all();
  }
}

void TSR_Event::Record(TSR_Stream* stream) {
  // The count and the queued item go together (under the event's lock): a wait that reads the
  // new count is always queued after the item that passes it. Lock order: event, then stream;
  // the stream's thread takes the event's lock only while it holds no lock of its own.
  std::lock_guard<std::mutex> lock(state_->mu);
  const uint64_t recording = state_->recorded + 1;
  stream->Enqueue([state = state_, stream, recording]() -> tessera::sdk::Status {
    tessera::sdk::Status error = stream->error();
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (recording > state->passed) {
        state->passed = recording;
        state->passed_at = std::chrono::steady_clock::now();
        state->error_code = error.code();
        state->error_message = error.ok() ? std::string() : std::string(error.message());
      }
    }
    state->changed.notify_all();
    return tessera::sdk::OkStatus();
  });
  state_->recorded = recording;  // after Enqueue: a failed Enqueue leaves nothing to wait for
}

bool TSR_Event::Complete() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->passed >= state_->recorded;
}

tessera::sdk::Status TSR_Event::WaitFor(State& state, uint64_t target) {
  std::unique_lock<std::mutex> lock(state.mu);
  state.changed.wait(lock, [&] { return state.passed >= target; });
  return tessera::sdk::MakeStatus(state.error_code, state.error_message);
}

tessera::sdk::Status TSR_Event::Wait() const {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    target = state_->recorded;
  }
  return WaitFor(*state_, target);
}

void TSR_Event::MakeWait(TSR_Stream* stream) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  const uint64_t target = state_->recorded;
  stream->Enqueue([state = state_, target] { return WaitFor(*state, target); });
}

tessera::sdk::Status TSR_Event::Error() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return tessera::sdk::MakeStatus(state_->error_code, state_->error_message);
}

bool TSR_Event::CompletedAt(std::chrono::steady_clock::time_point* when) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->recorded == 0 || state_->passed < state_->recorded) return false;
  *when = state_->passed_at;
  return true;
}

namespace tessera::testdevice {
namespace {

const char* StreamKindName(int32_t kind) {
  switch (kind) {
    case TSR_STREAM_KIND_COMPUTE:
      return "compute";
    case TSR_STREAM_KIND_HOST_TO_DEVICE:
      return "host-to-device";
    case TSR_STREAM_KIND_DEVICE_TO_HOST:
      return "device-to-host";
    case TSR_STREAM_KIND_DEVICE_TO_DEVICE:
      return "device-to-device";
  }
  return nullptr;
}

TSR_Status* CreateStream(TSR_Device* device, TSR_Stream_Create_Args* args) {
  args->stream = nullptr;
  const char* kind = StreamKindName(args->kind);
  if (kind == nullptr) {
    return sdk::InvalidArgument("Stream_Create on ", device->name, ": unknown stream kind ",
                                args->kind)
        .Release();
  }
  TSR_Stream* stream;
  try {
    stream = new TSR_Stream(sdk::StrCat(device->name, " ", kind, " stream"), device->stream_delay);
  } catch (const std::exception& e) {
    return sdk::ResourceExhausted("cannot create a ", kind, " stream on ", device->name, ": ",
                                  e.what())
        .Release();
  }
  if (args->kind == TSR_STREAM_KIND_COMPUTE) {
    std::lock_guard<std::mutex> lock(device->stream_mu);
    if (device->compute_stream == nullptr) device->compute_stream = stream;
  }
  args->stream = stream;
  return nullptr;
}

void DestroyStream(TSR_Device* device, TSR_Stream* stream) {
  {
    std::lock_guard<std::mutex> lock(device->stream_mu);
    if (device->compute_stream == stream) device->compute_stream = nullptr;
  }
  delete stream;  // runs what is queued first
}

TSR_Status* SynchronizeStream(TSR_Device* /*device*/, TSR_Stream* stream) {
  return stream->Synchronize().Release();
}

TSR_Status* StreamWaitEvent(TSR_Device* /*device*/, TSR_Stream* stream, TSR_Event* event) {
  // The waiting stream's thread blocks until the event's point has passed: work queued on
  // `stream` after this runs after it. A failure before the event fails the waiting stream too.
  event->MakeWait(stream);
  return nullptr;
}

TSR_Status* CreateEvent(TSR_Device* device, TSR_Event** event) {
  *event = new (std::nothrow) TSR_Event;
  if (*event == nullptr) {
    return sdk::ResourceExhausted("out of memory creating an event on ", device->name).Release();
  }
  return nullptr;
}

void DestroyEvent(TSR_Device* /*device*/, TSR_Event* event) { delete event; }

TSR_Status* RecordEvent(TSR_Device* device, TSR_Event* event, TSR_Stream* stream) {
  if (stream == nullptr) {
    return sdk::InvalidArgument("Event_Record on ", device->name, ": no stream").Release();
  }
  event->Record(stream);
  return nullptr;
}

// Never blocks; once the point has passed, the recording stream's error by then (if any).
TSR_Status* QueryEvent(TSR_Device* /*device*/, TSR_Event* event, bool* complete) {
  *complete = event->Complete();
  return *complete ? event->Error().Release() : nullptr;
}

TSR_Status* SynchronizeEvent(TSR_Device* /*device*/, TSR_Event* event) {
  return event->Wait().Release();
}

TSR_Status* ElapsedMicros(TSR_Device* device, TSR_Event* start, TSR_Event* end, double* micros) {
  std::chrono::steady_clock::time_point start_time;
  std::chrono::steady_clock::time_point end_time;
  if (!start->CompletedAt(&start_time) || !end->CompletedAt(&end_time)) {
    return sdk::FailedPrecondition("Event_ElapsedMicros on ", device->name,
                                   ": both events must have completed")
        .Release();
  }
  *micros = std::chrono::duration<double, std::micro>(end_time - start_time).count();
  return nullptr;
}

}  // namespace

void AddStreamSlots(TSR_DeviceTypeRegistration* registration) {
  registration->Stream_Create = &CreateStream;
  registration->Stream_Destroy = &DestroyStream;
  registration->Stream_Synchronize = &SynchronizeStream;
  registration->Stream_WaitEvent = &StreamWaitEvent;
  registration->Event_Create = &CreateEvent;
  registration->Event_Destroy = &DestroyEvent;
  registration->Event_Record = &RecordEvent;
  registration->Event_Query = &QueryEvent;
  registration->Event_Synchronize = &SynchronizeEvent;
  static TSR_DeviceProfilingExtension profiling = [] {
    TSR_DeviceProfilingExtension extension{};
    extension.base.struct_size = sizeof(extension);
    extension.base.type = TSR_EXTENSION_TYPE_DEVICE_PROFILING;
    extension.Event_ElapsedMicros = &ElapsedMicros;
    return extension;
  }();
  profiling.base.next = registration->extension_start;
  registration->extension_start = &profiling.base;
}

sdk::Status RunOn(TSR_Stream* stream, std::function<sdk::Status()> work) {
  if (stream == nullptr) return work();
  stream->Enqueue(std::move(work));
  return sdk::OkStatus();
}

}  // namespace tessera::testdevice
