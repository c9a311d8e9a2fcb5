// PluginKernel: kernel instances, synchronous and asynchronous compute.
#include "registry/kernel_handle.h"

#include <utility>

#include "absl/synchronization/notification.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

struct AsyncCall {
  KernelDoneCallback done;
  std::shared_ptr<const KernelSpec> spec;  // the library stays loaded until done has run
};

void AsyncDone(void* done_arg, TSR_Status* status) {
  std::unique_ptr<AsyncCall> call(static_cast<AsyncCall*>(done_arg));
  absl::Status converted =
      status == nullptr ? absl::OkStatus() : FromAbiStatus(status, call->spec->Describe());
  std::move(call->done)(std::move(converted));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PluginKernel>> PluginKernel::Create(const KernelSpec& spec,
                                                                   TSR_KernelConstruction* ctx) {
  void* state = nullptr;
  if (spec.create != nullptr) {
    TSR_Status* status = spec.create(spec.user_data, ctx, &state);
    if (status != nullptr) {
      return FromAbiStatus(status, absl::StrCat(spec.Describe(), " Create"));
    }
  }
  return std::unique_ptr<PluginKernel>(
      new PluginKernel(std::make_shared<const KernelSpec>(spec), state));
}

PluginKernel::PluginKernel(std::shared_ptr<const KernelSpec> spec, void* state)
    : compute_(spec->is_async() ? nullptr : spec->compute), state_(state), spec_(std::move(spec)) {}

PluginKernel::~PluginKernel() {
  if (state_ != nullptr && spec_->destroy != nullptr) spec_->destroy(state_);
}

absl::Status PluginKernel::ComputeError(TSR_Status* status) const {
  return FromAbiStatus(status, spec_->Describe());
}

void PluginKernel::ComputeAsync(TSR_KernelContext* ctx, KernelDoneCallback done) {
  if (compute_ != nullptr) {
    std::move(done)(Compute(ctx));
    return;
  }
  auto* call = new AsyncCall{std::move(done), spec_};
  spec_->compute_async(state_, ctx, AsyncDone, call);
}

absl::Status PluginKernel::ComputeAsyncAndWait(TSR_KernelContext* ctx) {
  absl::Notification finished;
  absl::Status result;
  ComputeAsync(ctx, [&](absl::Status status) {
    result = std::move(status);
    finished.Notify();
  });
  finished.WaitForNotification();
  return result;
}

}  // namespace tessera
