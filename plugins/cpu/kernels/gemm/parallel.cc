// ParallelItems over the host's intra-op pool, and the OpenMP guard around oneDNN calls.
#include "plugins/cpu/kernels/gemm/parallel.h"

#include <algorithm>
#include <atomic>

#include "tessera/sdk/host_api.h"

#if TESSERA_CPU_HAVE_ONEDNN
#include <omp.h>
#endif

namespace tessera::cpu {
namespace {

// Arithmetic operations below which a worker is not worth a thread hop (tens of microseconds).
constexpr double kMinWorkPerWorker = 1e5;
// ParallelFor's cost hint per worker: far above the host's inline threshold, so that every
// worker gets its own shard.
constexpr int64_t kCyclesPerWorker = int64_t{1} << 32;

struct ItemQueue {
  int64_t count;
  std::atomic<int64_t> next{0};
  const std::function<void(int, int64_t)>* fn;
};

void RunWorkers(void* arg, int64_t begin, int64_t end) {
  auto* queue = static_cast<ItemQueue*>(arg);
  for (int64_t worker = begin; worker < end; ++worker) {
    SingleThreadedOpenMp single_threaded;
    for (int64_t item = queue->next.fetch_add(1, std::memory_order_relaxed); item < queue->count;
         item = queue->next.fetch_add(1, std::memory_order_relaxed)) {
      (*queue->fn)(static_cast<int>(worker), item);
    }
  }
}

}  // namespace

int UsableThreads(TSR_ThreadPool* pool) {
  if (pool == nullptr) return 1;
  const TSR_HostApi* host = sdk::HostApi();
  if (host->ThreadPool_CurrentThreadId(pool) >= 0) return 1;
  return std::max(1, static_cast<int>(host->ThreadPool_NumThreads(pool)));
}

int ParallelWorkers(TSR_ThreadPool* pool, int64_t count, double work_per_item) {
  if (count <= 1) return 1;
  const double by_work = static_cast<double>(count) * work_per_item / kMinWorkPerWorker;
  if (by_work < 2) return 1;
  int64_t workers = std::min<int64_t>(count, UsableThreads(pool));
  if (by_work < static_cast<double>(workers)) workers = static_cast<int64_t>(by_work);
  return static_cast<int>(std::max<int64_t>(1, workers));
}

void ParallelItems(TSR_ThreadPool* pool, int64_t count, double work_per_item,
                   const std::function<void(int worker, int64_t item)>& fn) {
  if (count <= 0) return;
  const int workers = ParallelWorkers(pool, count, work_per_item);
  ItemQueue queue;
  queue.count = count;
  queue.fn = &fn;
  if (workers == 1) {
    RunWorkers(&queue, 0, 1);
    return;
  }
  sdk::HostApi()->ThreadPool_ParallelFor(pool, workers, kCyclesPerWorker, &RunWorkers, &queue);
}

#if TESSERA_CPU_HAVE_ONEDNN
SingleThreadedOpenMp::SingleThreadedOpenMp() : saved_(omp_get_max_threads()) {
  if (saved_ != 1) omp_set_num_threads(1);
}
SingleThreadedOpenMp::~SingleThreadedOpenMp() {
  if (saved_ != 1) omp_set_num_threads(saved_);
}
#else
SingleThreadedOpenMp::SingleThreadedOpenMp() = default;
SingleThreadedOpenMp::~SingleThreadedOpenMp() = default;
#endif

}  // namespace tessera::cpu
