// PluginKernel: the RAII wrapper over one kernel instance of a plugin (Create ... Destroy).
#ifndef TESSERA_REGISTRY_KERNEL_HANDLE_H_
#define TESSERA_REGISTRY_KERNEL_HANDLE_H_

#include <memory>
#include <string>

#include "absl/base/optimization.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/specs.h"
#include "tessera/plugin_api/plugin_api.h"

namespace tessera {

// Called once when an async kernel finishes.
using KernelDoneCallback = absl::AnyInvocable<void(absl::Status)>;

// One kernel instance (a node's kernel in an executor). The destructor calls the plugin's
// Destroy. Compute may be called concurrently for different steps (the ABI's contract).
// Errors read "kernel for 'MatMul' from plugin 'cpu': <plugin's message>".
class PluginKernel {
 public:
  // Calls the spec's Create with the host's construction context (which must stay valid for
  // the call only). Keeps the plugin's library alive.
  static absl::StatusOr<std::unique_ptr<PluginKernel>> Create(const KernelSpec& spec,
                                                              TSR_KernelConstruction* ctx);
  ~PluginKernel();
  PluginKernel(const PluginKernel&) = delete;
  PluginKernel& operator=(const PluginKernel&) = delete;

  bool is_async() const { return compute_ == nullptr; }
  uint32_t flags() const { return spec_->flags; }
  const KernelSpec& spec() const { return *spec_; }

  // Runs the kernel synchronously: one indirect call and a NULL check on success. An async
  // kernel is run through Compute_Async and waited for.
  absl::Status Compute(TSR_KernelContext* ctx) {
    if (ABSL_PREDICT_TRUE(compute_ != nullptr)) {
      TSR_Status* status = compute_(state_, ctx);
      if (ABSL_PREDICT_TRUE(status == nullptr)) return absl::OkStatus();
      return ComputeError(status);
    }
    return ComputeAsyncAndWait(ctx);
  }

  // Runs the kernel and calls `done` exactly once with its status, from any thread. A
  // synchronous kernel runs inline and calls `done` before returning.
  void ComputeAsync(TSR_KernelContext* ctx, KernelDoneCallback done);

 private:
  PluginKernel(std::shared_ptr<const KernelSpec> spec, void* state);
  absl::Status ComputeError(TSR_Status* status) const;
  absl::Status ComputeAsyncAndWait(TSR_KernelContext* ctx);

  TSR_Status* (*compute_)(void* state, TSR_KernelContext* ctx);
  void* state_;
  std::shared_ptr<const KernelSpec> spec_;  // holds the library and the names for errors
};

}  // namespace tessera

#endif  // TESSERA_REGISTRY_KERNEL_HANDLE_H_
