// The step-statistics collector.
#include "host/runtime/step_stats.h"

#include <atomic>
#include <chrono>

namespace tessera {

StepStatsCollector::StepStatsCollector(int64_t step_id) : step_id_(step_id) {
  stats_.step_id = step_id;
  stats_.start_ns = NowNanos();
}

void StepStatsCollector::Record(const std::string& device, NodeExecStats stats) {
  std::lock_guard<std::mutex> lock(mu_);
  for (DeviceStepStats& d : stats_.devices) {
    if (d.device == device) {
      d.nodes.push_back(std::move(stats));
      return;
    }
  }
  stats_.devices.push_back(DeviceStepStats{device, {}});
  stats_.devices.back().nodes.push_back(std::move(stats));
}

StepStats StepStatsCollector::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.end_ns = NowNanos();
  return std::move(stats_);
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int32_t ThreadIndex() {
  static std::atomic<int32_t> next{1};
  thread_local int32_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index;
}

}  // namespace tessera
