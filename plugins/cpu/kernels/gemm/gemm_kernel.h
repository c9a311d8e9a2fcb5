// How a kernel hands its step's cancellation to the GEMM layer, and what it returns when the
// GEMM layer stopped.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_KERNEL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_KERNEL_H_

#include "plugins/cpu/kernels/gemm/gemm.h"
#include "tessera/sdk/sdk.h"

namespace tessera::cpu {

// Asks the host, between pieces of a product, whether `ctx`'s step was cancelled.
inline GemmCancellation Cancellation(const sdk::KernelContext& ctx) {
  GemmCancellation cancellation;
  cancellation.cancelled = [](const void* arg) {
    return static_cast<const sdk::KernelContext*>(arg)->cancelled();
  };
  cancellation.arg = &ctx;
  return cancellation;
}

// The status of a product stopped part-way: its step was cancelled, and the step reports its own
// reason; this one says where the work stopped.
inline sdk::Status StoppedStatus(const sdk::KernelContext& ctx) {
  return sdk::Cancelled("node '", ctx.node_name(),
                        "' stopped its matrix product: the step was cancelled");
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_GEMM_GEMM_KERNEL_H_
