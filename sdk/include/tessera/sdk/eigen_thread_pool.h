// EigenThreadPool: an Eigen::ThreadPoolInterface over the host's intra-op pool, so that Eigen's
// ThreadPoolDevice runs on the host's threads. Include only in Eigen-using plugins, after
// defining EIGEN_USE_THREADS.
#ifndef TESSERA_SDK_EIGEN_THREAD_POOL_H_
#define TESSERA_SDK_EIGEN_THREAD_POOL_H_

#ifndef EIGEN_USE_THREADS
#error "define EIGEN_USE_THREADS before including tessera/sdk/eigen_thread_pool.h"
#endif

#include <algorithm>
#include <functional>
#include <memory>
#include <unsupported/Eigen/CXX11/Tensor>
#include <utility>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/host_api.h"

namespace tessera::sdk {

class EigenThreadPool final : public Eigen::ThreadPoolInterface {
 public:
  explicit EigenThreadPool(TSR_ThreadPool* pool) : pool_(pool) {}

  void Schedule(std::function<void()> fn) override {
    auto* task = new std::function<void()>(std::move(fn));
    HostApi()->ThreadPool_Schedule(pool_, &RunTask, task);
  }
  void Cancel() override {}
  int NumThreads() const override {
    return std::max(1, static_cast<int>(HostApi()->ThreadPool_NumThreads(pool_)));
  }
  int CurrentThreadId() const override { return HostApi()->ThreadPool_CurrentThreadId(pool_); }

 private:
  static void RunTask(void* arg) {
    std::unique_ptr<std::function<void()>> task(static_cast<std::function<void()>*>(arg));
    (*task)();
  }

  TSR_ThreadPool* pool_;
};

// An Eigen ThreadPoolDevice on the host's pool, for one Compute call.
class EigenDevice {
 public:
  explicit EigenDevice(TSR_ThreadPool* pool) : pool_(pool), device_(&pool_, pool_.NumThreads()) {}
  const Eigen::ThreadPoolDevice& device() const { return device_; }

 private:
  EigenThreadPool pool_;
  Eigen::ThreadPoolDevice device_;
};

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_EIGEN_THREAD_POOL_H_
