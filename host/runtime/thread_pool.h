// ThreadPool: the inter-op and intra-op pools (Eigen's non-blocking work-stealing pool), shared
// with plugins through the ABI so kernels never spawn threads of their own.
#ifndef TESSERA_HOST_RUNTIME_THREAD_POOL_H_
#define TESSERA_HOST_RUNTIME_THREAD_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace Eigen {
class ThreadPoolInterface;
}

namespace tessera {

class ThreadPool {
 public:
  // `num_threads` <= 0 means one per core. With `caller_works` (the intra-op pool) the thread
  // that calls ParallelFor is one of the `num_threads`: the pool starts one thread fewer (at least
  // one, for Schedule), so that a ParallelFor over every thread keeps exactly `num_threads` busy
  // instead of leaving a pool thread to spin beside them.
  ThreadPool(std::string name, int num_threads, bool caller_works = false);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  const std::string& name() const { return name_; }
  // How many threads may work at once: the pool's threads, and for a `caller_works` pool the
  // caller of ParallelFor among them.
  int NumThreads() const;
  // Index of the calling thread in this pool, or -1.
  int CurrentThreadId() const;
  void Schedule(std::function<void()> fn);

  // Runs fn(begin, end) over shards of [0, total) on the pool and the calling thread (at most
  // NumThreads() shards for a `caller_works` pool, NumThreads() + 1 otherwise); returns when every
  // shard is done. `cost_per_unit` is an estimate in cycles per element: small loops run inline
  // on the caller.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);

 private:
  std::string name_;
  int num_threads_;
  bool caller_works_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
};

// Number of cores the process may run on.
int NumSchedulableCores();

}  // namespace tessera

#endif  // TESSERA_HOST_RUNTIME_THREAD_POOL_H_
