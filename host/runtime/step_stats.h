// StepStats: what one step recorded about every node it ran (device, thread, op, output shapes,
// start and end), collected from many threads by a StepStatsCollector.
#ifndef TESSERA_HOST_RUNTIME_STEP_STATS_H_
#define TESSERA_HOST_RUNTIME_STEP_STATS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tessera {

struct NodeExecStats {
  std::string node_name;
  std::string op;
  // Nanoseconds on the steady clock (NowNanos()).
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // A small number per OS thread, stable for the life of the process (ThreadIndex()).
  int32_t thread_id = 0;
  // "float[2,3]" per output (DataTypeString names); empty for outputs not produced (dead).
  std::vector<std::string> output_shapes;
  // Loop frame and iteration the node ran in; (0, 0) outside loops.
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
  bool is_dead = false;
};

struct DeviceStepStats {
  std::string device;
  std::vector<NodeExecStats> nodes;
};

struct StepStats {
  int64_t step_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<DeviceStepStats> devices;  // in the order devices first recorded
};

// Thread-safe. Record() takes a short lock per node; collection is off unless a step asks for it.
class StepStatsCollector {
 public:
  explicit StepStatsCollector(int64_t step_id);
  void Record(const std::string& device, NodeExecStats stats);
  int64_t step_id() const { return step_id_; }
  // Ends collection and returns everything recorded.
  StepStats Finish();

 private:
  const int64_t step_id_;
  std::mutex mu_;
  StepStats stats_;
};

// Nanoseconds on the steady clock.
int64_t NowNanos();
// 1, 2, 3, ... in the order threads first ask.
int32_t ThreadIndex();

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_STEP_STATS_H_
