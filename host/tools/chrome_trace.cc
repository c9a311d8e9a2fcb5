// Building the Trace Event Format JSON of a step with nlohmann::json, and writing it to a file.
#include "host/tools/chrome_trace.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace {

using Json = nlohmann::json;

// The time origin: the step's start, or the earliest node when one started before it.
int64_t TimeOrigin(const StepStats& stats) {
  int64_t origin = stats.start_ns;
  bool any = false;
  int64_t earliest = 0;
  for (const DeviceStepStats& device : stats.devices) {
    for (const NodeExecStats& node : device.nodes) {
      if (!any || node.start_ns < earliest) earliest = node.start_ns;
      any = true;
    }
  }
  if (any && (origin == 0 || earliest < origin)) origin = earliest;
  return origin;
}

double Micros(int64_t nanos) { return static_cast<double>(nanos) / 1000.0; }

Json Metadata(const char* name, int pid, int tid, Json args) {
  return Json{{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

Json NodeEvent(const NodeExecStats& node, int pid, int64_t origin) {
  Json args = {{"op", node.op}, {"outputs", node.output_shapes}};
  // Frame ids use all 64 bits; JSON numbers past 2^53 lose digits in JavaScript viewers.
  if (node.frame_id != 0) args["frame"] = absl::StrCat("0x", absl::Hex(node.frame_id));
  if (node.iter_id != 0) args["iter"] = node.iter_id;
  if (node.is_dead) args["dead"] = true;
  return Json{{"name", node.node_name},
              {"cat", node.op},
              {"ph", "X"},
              {"pid", pid},
              {"tid", node.thread_id},
              {"ts", Micros(node.start_ns - origin)},
              {"dur", Micros(std::max<int64_t>(0, node.end_ns - node.start_ns))},
              {"args", std::move(args)}};
}

absl::Status FileError(absl::string_view verb, const std::string& path, int error) {
  std::string message = absl::StrCat("cannot ", verb, " '", path, "': ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  if (error == EISDIR) return absl::InvalidArgumentError(message);
  return absl::UnknownError(message);
}

}  // namespace

std::string StepStatsToChromeTrace(const StepStats& stats) {
  const int64_t origin = TimeOrigin(stats);
  Json events = Json::array();
  for (size_t i = 0; i < stats.devices.size(); ++i) {
    const DeviceStepStats& device = stats.devices[i];
    const int pid = static_cast<int>(i) + 1;
    events.push_back(Metadata("process_name", pid, 0, {{"name", device.device}}));
    events.push_back(Metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
    std::set<int32_t> threads;
    for (const NodeExecStats& node : device.nodes) threads.insert(node.thread_id);
    for (int32_t tid : threads) {
      events.push_back(Metadata("thread_name", pid, tid, {{"name", absl::StrCat("thread ", tid)}}));
    }
    for (const NodeExecStats& node : device.nodes) events.push_back(NodeEvent(node, pid, origin));
  }
  Json trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ns"},
                {"otherData", {{"step_id", absl::StrCat(stats.step_id)},
                               {"step_duration_us",
                                Micros(std::max<int64_t>(0, stats.end_ns - origin))}}}};
  // Names come from GraphDefs and plugins: replace invalid UTF-8 instead of throwing.
  return trace.dump(/*indent=*/-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

absl::Status WriteChromeTrace(const StepStats& stats, const std::string& path) {
  std::string text = StepStatsToChromeTrace(stats);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return FileError("open for writing", path, errno);
  size_t written = std::fwrite(text.data(), 1, text.size(), file);
  int write_error = written != text.size() ? errno : 0;
  if (std::fclose(file) != 0 && write_error == 0) write_error = errno;
  if (write_error != 0) return FileError("write", path, write_error);
  return absl::OkStatus();
}

}  // namespace tessera
