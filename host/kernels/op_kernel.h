// OpKernel: the executor's view of a kernel, either a plugin's (through the ABI) or one of the
// few the host implements itself (_Arg, _Retval, _Send, _Recv).
#ifndef TESSERA_HOST_KERNELS_OP_KERNEL_H_
#define TESSERA_HOST_KERNELS_OP_KERNEL_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "host/abi/host_kernel_context.h"

namespace tessera {

// The values a step passes in (feeds, as _Arg) and takes out (fetches, as _Retval).
struct CallFrame {
  std::vector<Tensor> args;
  std::vector<Tensor> retvals;
};

class OpKernel {
 public:
  struct Traits {
    bool is_async = false;
    // Runs inline on the thread that made it ready.
    bool is_cheap = false;
    // Outputs depend only on attributes: computed once when the executor is built.
    bool constant_outputs = false;
  };

  explicit OpKernel(Traits traits) : traits_(traits) {}
  virtual ~OpKernel() = default;

  const Traits& traits() const { return traits_; }

  // Synchronous kernels.
  virtual absl::Status Compute(TSR_KernelContext* ctx) {
    return absl::UnimplementedError("kernel has no synchronous Compute");
  }
  // Asynchronous kernels call `done` exactly once, from any thread.
  virtual void ComputeAsync(TSR_KernelContext* ctx, std::function<void(absl::Status)> done) {
    done(Compute(ctx));
  }

 private:
  Traits traits_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_OP_KERNEL_H_
