// Work distribution for the GEMM and convolution kernels: independent items run by at most one
// worker per intra-op thread (the calling thread is one of them), each worker single-threaded as
// far as OpenMP is concerned.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_GEMM_PARALLEL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_GEMM_PARALLEL_H_

#include <cstdint>
#include <functional>

#include "tessera/plugin_api/plugin.h"

namespace tessera::cpu {

// How many threads a parallel section started here may use: the pool's size, or 1 when `pool` is
// null or the caller is itself one of its threads (a nested section runs inline).
int UsableThreads(TSR_ThreadPool* pool);

// Runs fn(worker, item) once for every item in [0, count). Items are handed out in order from a
// shared counter to ParallelWorkers(pool, count, work_per_item) workers, the calling thread being
// worker 0; `worker` is in [0, number of workers) and lets fn use per-worker scratch memory.
// Which worker runs an item varies between runs, so fn(worker, item) must compute the same thing
// whatever `worker` is. Returns when every item is done.
void ParallelItems(TSR_ThreadPool* pool, int64_t count, double work_per_item,
                   const std::function<void(int worker, int64_t item)>& fn);

// The number of workers for `count` items of about `work_per_item` arithmetic operations each:
// at most one per usable thread and per item, and only as many as keep each worker busy for
// more than a thread hop costs.
int ParallelWorkers(TSR_ThreadPool* pool, int64_t count, double work_per_item);

// While alive, OpenMP parallel regions entered from this thread (oneDNN's, in an OpenMP build of
// it) run on this thread alone, so no OpenMP thread is ever started; the thread's previous
// setting comes back on destruction. A no-op without oneDNN.
class SingleThreadedOpenMp {
 public:
  SingleThreadedOpenMp();
  ~SingleThreadedOpenMp();
  SingleThreadedOpenMp(const SingleThreadedOpenMp&) = delete;
  SingleThreadedOpenMp& operator=(const SingleThreadedOpenMp&) = delete;

 private:
  [[maybe_unused]] int saved_ = 0;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_GEMM_PARALLEL_H_
