// The device suite's copy cases (every direction, with offsets, compared byte by byte) and its
// stream and event cases (ordering across streams, record/wait/query/synchronize).
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kit/device_cases.h"

namespace tessera::plugin_check {
namespace {

// A device allocation freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(PluginDevice& device, size_t size, size_t alignment) : device_(device), size_(size) {
    absl::StatusOr<void*> ptr = device.Allocate(size, alignment);
    status_ = ptr.status();
    if (ptr.ok()) ptr_ = *ptr;
  }
  ~DeviceBuffer() { device_.Free(ptr_, size_).IgnoreError(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  char* get() const { return static_cast<char*>(ptr_); }
  const absl::Status& status() const { return status_; }

 private:
  PluginDevice& device_;
  size_t size_;
  void* ptr_ = nullptr;
  absl::Status status_;
};

#define KIT_CHECK_OK(expr)                                     \
  do {                                                         \
    if (absl::Status _status = (expr); !_status.ok()) {        \
      return CaseList::Describe(_status);                      \
    }                                                          \
  } while (0)

// Host -> device -> host at sizes around the boundaries a copy loop may get wrong.
std::string HostRoundTrips(PluginDevice& device, size_t alignment) {
  for (size_t size :
       {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4097}, size_t{1} << 20}) {
    DeviceBuffer buffer(device, size, alignment);
    KIT_CHECK_OK(buffer.status());
    std::string problem =
        RoundTrip(device, buffer.get(), Pattern(size, static_cast<uint32_t>(size)));
    if (!problem.empty()) return problem;
  }
  return "";
}

// Writes a background over a whole buffer, then a pattern at an offset; reads the whole buffer
// back: the pattern where it was written, the background everywhere else.
std::string OffsetCopies(PluginDevice& device, size_t alignment) {
  constexpr size_t kSize = 8192, kOffset = 13, kLength = 3001;
  DeviceBuffer buffer(device, kSize, alignment);
  KIT_CHECK_OK(buffer.status());
  SyncCopier copier(&device);
  std::vector<uint8_t> expected = Pattern(kSize, 1);
  const std::vector<uint8_t> middle = Pattern(kLength, 2);
  KIT_CHECK_OK(copier.ToDevice(buffer.get(), expected.data(), kSize));
  KIT_CHECK_OK(copier.ToDevice(buffer.get() + kOffset, middle.data(), kLength));
  std::memcpy(expected.data() + kOffset, middle.data(), kLength);
  std::vector<uint8_t> back(kSize, 0xcd);
  KIT_CHECK_OK(copier.ToHost(back.data(), buffer.get(), kSize));
  if (std::string differs = CompareBytes(expected, back); !differs.empty()) {
    return absl::StrCat("after writing ", kLength, " bytes at offset ", kOffset, ": ", differs);
  }
  std::vector<uint8_t> part(kLength, 0xcd);
  KIT_CHECK_OK(copier.ToHost(part.data(), buffer.get() + kOffset, kLength));
  if (std::string differs = CompareBytes(middle, part); !differs.empty()) {
    return absl::StrCat("reading ", kLength, " bytes at offset ", kOffset, ": ", differs);
  }
  return "";
}

// Device-to-device from `src_device`'s memory to `dst_device`'s, issued on `via` (one of them).
std::string DeviceToDevice(PluginDevice& src_device, PluginDevice& dst_device, PluginDevice& via,
                           size_t alignment) {
  constexpr size_t kSize = 6000, kSrcOffset = 5, kDstOffset = 7, kLength = 4099;
  DeviceBuffer src(src_device, kSize, alignment);
  DeviceBuffer dst(dst_device, kSize, alignment);
  KIT_CHECK_OK(src.status());
  KIT_CHECK_OK(dst.status());
  const std::vector<uint8_t> source = Pattern(kSize, 3);
  std::vector<uint8_t> expected = Pattern(kSize, 4);
  KIT_CHECK_OK(SyncCopier(&src_device).ToDevice(src.get(), source.data(), kSize));
  KIT_CHECK_OK(SyncCopier(&dst_device).ToDevice(dst.get(), expected.data(), kSize));
  KIT_CHECK_OK(SyncCopier(&via).DeviceToDevice(dst.get() + kDstOffset, src.get() + kSrcOffset,
                                              kLength));
  std::memcpy(expected.data() + kDstOffset, source.data() + kSrcOffset, kLength);
  std::vector<uint8_t> back(kSize, 0xcd);
  KIT_CHECK_OK(SyncCopier(&dst_device).ToHost(back.data(), dst.get(), kSize));
  if (std::string differs = CompareBytes(expected, back); !differs.empty()) {
    return absl::StrCat(kLength, " bytes copied from ", src_device.name(), " offset ", kSrcOffset,
                        " to ", dst_device.name(), " offset ", kDstOffset, " by ", via.name(),
                        ": ", differs);
  }
  return "";
}

void Record(CaseList& cases, const std::string& name, const std::string& problem,
            const std::string& detail) {
  if (problem.empty()) {
    cases.Pass(name, detail);
  } else {
    cases.Fail(name, problem);
  }
}

// Compute stream: a copy in, then an event; copy stream: waits for the event, copies out. The
// copy out must see the copy in, with no host synchronisation between them.
std::string StreamOrdering(PluginDevice& device, size_t alignment) {
  constexpr size_t kSize = size_t{8} << 20;  // large enough that the copy in takes a while
  DeviceBuffer buffer(device, kSize, alignment);
  KIT_CHECK_OK(buffer.status());
  SyncCopier(&device).ToDevice(buffer.get(), Pattern(kSize, 5).data(), kSize).IgnoreError();
  absl::StatusOr<TSR_Stream*> compute = device.CreateStream(TSR_STREAM_KIND_COMPUTE);
  KIT_CHECK_OK(compute.status());
  absl::StatusOr<TSR_Stream*> out = device.CreateStream(TSR_STREAM_KIND_DEVICE_TO_HOST);
  if (!out.ok()) device.DestroyStream(*compute);
  KIT_CHECK_OK(out.status());
  absl::StatusOr<TSR_Event*> written = device.CreateEvent();
  absl::StatusOr<TSR_Event*> read = device.CreateEvent();
  const std::vector<uint8_t> bytes = Pattern(kSize, 6);
  std::vector<uint8_t> back(kSize, 0xcd);
  std::string problem;
  auto step = [&](const absl::Status& status) {
    if (problem.empty() && !status.ok()) problem = CaseList::Describe(status);
    return problem.empty();
  };
  if (step(written.status()) && step(read.status()) &&
      step(device.MemcpyHostToDevice(buffer.get(), bytes.data(), kSize, *compute)) &&
      step(device.RecordEvent(*written, *compute)) &&
      step(device.StreamWaitEvent(*out, *written)) &&
      step(device.MemcpyDeviceToHost(back.data(), buffer.get(), kSize, *out)) &&
      step(device.RecordEvent(*read, *out))) {
    // Event_Query never blocks and eventually says true.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    absl::StatusOr<bool> complete = false;
    while ((complete = device.QueryEvent(*read)).ok() && !*complete &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (step(complete.status()) && !*complete) {
      problem = "Event_Query still says false 30 s after the event was recorded";
    }
    if (step(device.SynchronizeEvent(*read))) {
      std::string differs = CompareBytes(bytes, back);
      if (!differs.empty()) {
        problem = absl::StrCat("a copy out on a stream waiting for an event recorded after a "
                               "copy in on the compute stream did not see it: ", differs);
      }
    }
  }
  device.StreamSynchronize(*compute).IgnoreError();
  device.StreamSynchronize(*out).IgnoreError();
  if (written.ok()) device.DestroyEvent(*written);
  if (read.ok()) device.DestroyEvent(*read);
  device.DestroyStream(*compute);
  device.DestroyStream(*out);
  return problem;
}

// Every stream kind can be created; a fresh event counts as complete; Stream_Synchronize waits.
std::string StreamBasics(PluginDevice& device, size_t alignment) {
  for (TSR_StreamKind kind : {TSR_STREAM_KIND_COMPUTE, TSR_STREAM_KIND_HOST_TO_DEVICE,
                              TSR_STREAM_KIND_DEVICE_TO_HOST, TSR_STREAM_KIND_DEVICE_TO_DEVICE}) {
    absl::StatusOr<TSR_Stream*> stream = device.CreateStream(kind);
    if (!stream.ok())
      return absl::StrCat("stream kind ", kind, ": ", CaseList::Describe(stream.status()));
    device.DestroyStream(*stream);
  }
  absl::StatusOr<TSR_Event*> event = device.CreateEvent();
  KIT_CHECK_OK(event.status());
  absl::StatusOr<bool> complete = device.QueryEvent(*event);
  device.DestroyEvent(*event);
  KIT_CHECK_OK(complete.status());
  if (!*complete) return "Event_Query of an event never recorded says false; expected true";

  constexpr size_t kSize = size_t{4} << 20;
  DeviceBuffer buffer(device, kSize, alignment);
  KIT_CHECK_OK(buffer.status());
  absl::StatusOr<TSR_Stream*> stream = device.CreateStream(TSR_STREAM_KIND_HOST_TO_DEVICE);
  KIT_CHECK_OK(stream.status());
  const std::vector<uint8_t> bytes = Pattern(kSize, 8);
  std::vector<uint8_t> back(kSize, 0xcd);
  absl::Status status = device.MemcpyHostToDevice(buffer.get(), bytes.data(), kSize, *stream);
  if (status.ok()) status = device.MemcpyDeviceToHost(back.data(), buffer.get(), kSize, *stream);
  if (status.ok()) status = device.StreamSynchronize(*stream);
  device.StreamSynchronize(*stream).IgnoreError();
  device.DestroyStream(*stream);
  KIT_CHECK_OK(status);
  std::string differs = CompareBytes(bytes, back);
  return differs.empty() ? "" : absl::StrCat("after Stream_Synchronize: ", differs);
}

// The profiling extension: the time between two events around a copy is known and not negative
// once both completed; before one was ever recorded it is FAILED_PRECONDITION.
std::string Profiling(PluginDevice& device, size_t alignment) {
  constexpr size_t kSize = size_t{1} << 20;
  DeviceBuffer buffer(device, kSize, alignment);
  KIT_CHECK_OK(buffer.status());
  absl::StatusOr<TSR_Stream*> stream = device.CreateStream(TSR_STREAM_KIND_HOST_TO_DEVICE);
  KIT_CHECK_OK(stream.status());
  absl::StatusOr<TSR_Event*> start = device.CreateEvent();
  absl::StatusOr<TSR_Event*> end = device.CreateEvent();
  std::string problem;
  if (!start.ok() || !end.ok()) {
    problem = CaseList::Describe(!start.ok() ? start.status() : end.status());
  } else {
    absl::StatusOr<double> early = device.ElapsedMicros(*start, *end);
    if (early.ok() || early.status().code() != absl::StatusCode::kFailedPrecondition) {
      problem = absl::StrCat("Event_ElapsedMicros of events never recorded: expected "
                             "FAILED_PRECONDITION, got ",
                             early.ok() ? "OK" : CaseList::Describe(early.status()));
    }
    const std::vector<uint8_t> bytes = Pattern(kSize, 9);
    absl::Status status = device.RecordEvent(*start, *stream);
    if (status.ok()) status = device.MemcpyHostToDevice(buffer.get(), bytes.data(), kSize, *stream);
    if (status.ok()) status = device.RecordEvent(*end, *stream);
    if (status.ok()) status = device.SynchronizeEvent(*end);
    absl::StatusOr<double> micros =
        status.ok() ? device.ElapsedMicros(*start, *end) : absl::StatusOr<double>(status);
    if (problem.empty() && !micros.ok()) problem = CaseList::Describe(micros.status());
    if (problem.empty() && !(*micros >= 0)) {
      problem = absl::StrCat("Event_ElapsedMicros around a 1 MiB copy is ", *micros,
                             "; expected a time >= 0");
    }
  }
  device.StreamSynchronize(*stream).IgnoreError();
  if (start.ok()) device.DestroyEvent(*start);
  if (end.ok()) device.DestroyEvent(*end);
  device.DestroyStream(*stream);
  return problem;
}

}  // namespace

void RunCopyCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& first = *target.devices[0];
  Record(cases, "copy/host_round_trip", HostRoundTrips(first, target.alignment),
         "1, 63, 64, 65, 4097 and 1 MiB bytes in and out, byte for byte");
  Record(cases, "copy/offsets", OffsetCopies(first, target.alignment),
         "a range written at an offset, nothing around it touched");
  Record(cases, "copy/device_to_device", DeviceToDevice(first, first, first, target.alignment),
         "within one device, with offsets");
  std::unique_ptr<PluginDevice> created;
  PluginDevice* second = target.devices.size() > 1 ? target.devices[1].get() : nullptr;
  if (second == nullptr) {
    absl::StatusOr<int> count = target.spec->DeviceCountForConfig(2);
    if (count.ok() && *count >= 2) {
      absl::StatusOr<std::unique_ptr<PluginDevice>> device = target.spec->CreateDevice(1, {}, 2);
      if (!device.ok()) {
        return cases.Fail("copy/between_devices", CaseList::Describe(device.status()));
      }
      created = std::move(*device);
      second = created.get();
    }
  }
  if (second == nullptr) {
    return cases.Skip("copy/between_devices", "only one device of this type");
  }
  std::string problem = DeviceToDevice(first, *second, *second, target.alignment);
  if (problem.empty()) problem = DeviceToDevice(*second, first, *second, target.alignment);
  Record(cases, "copy/between_devices", problem,
         absl::StrCat(first.name(), " <-> ", second->name(), ", issued by the source and by the "
                      "destination"));
}

void RunStreamCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  if (!device.has_streams()) {
    cases.Skip("streams", "no streams: the device is synchronous");
    return;
  }
  Record(cases, "streams/basics", StreamBasics(device, target.alignment),
         "every stream kind; an unrecorded event is complete; Stream_Synchronize waits");
  Record(cases, "streams/event_ordering", StreamOrdering(device, target.alignment),
         "a copy stream waiting on an event sees the compute stream's copy; Event_Query "
         "eventually true");
  if (!device.has_profiling()) {
    cases.Skip("streams/profiling", "no device profiling extension");
    return;
  }
  Record(cases, "streams/profiling", Profiling(device, target.alignment),
         "Event_ElapsedMicros around a copy; FAILED_PRECONDITION before the events completed");
}

}  // namespace tessera::plugin_check
