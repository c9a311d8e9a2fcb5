// Tests of PluginKernel: create/destroy, sync and async compute, errors with context.
#include "registry/kernel_handle.h"

#include <atomic>
#include <cstring>
#include <thread>

#include "gtest/gtest.h"
#include "registry/abi_status.h"
#include "registry/plugin_registry.h"
#include "registry/testing/fake_plugin_paths.h"

namespace tessera {
namespace {

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

// A non-NULL context pointer: the kernels under test never dereference it.
TSR_KernelContext* FakeContext() {
  static int storage = 0;
  return reinterpret_cast<TSR_KernelContext*>(&storage);
}

std::atomic<int> destroyed{0};
int state_object = 0;

TSR_KernelRegistration Registration() {
  TSR_KernelRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.op_name = "MatMul";
  r.device_type = "CPU";
  r.Create = [](void* user_data, TSR_KernelConstruction* ctx, void** state) -> TSR_Status* {
    if (ctx != nullptr) return AbiStatusCreate(TSR_CODE_INVALID_ARGUMENT, "attr 'T' missing");
    *state = &state_object;
    return nullptr;
  };
  r.Compute = [](void* state, TSR_KernelContext* ctx) -> TSR_Status* {
    EXPECT_EQ(state, &state_object);
    if (ctx == nullptr) return AbiStatusCreate(TSR_CODE_INVALID_ARGUMENT, "shapes differ");
    return nullptr;
  };
  r.Destroy = [](void* state) {
    EXPECT_EQ(state, &state_object);
    ++destroyed;
  };
  return r;
}

KernelSpec Spec(const TSR_KernelRegistration& r) {
  absl::StatusOr<KernelSpec> spec = MakeKernelSpec(r, PluginOrigin{"cpu", 0, nullptr});
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(PluginKernelTest, CreateComputeDestroy) {
  destroyed = 0;
  {
    absl::StatusOr<std::unique_ptr<PluginKernel>> kernel =
        PluginKernel::Create(Spec(Registration()), nullptr);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_FALSE((*kernel)->is_async());
    EXPECT_EQ((*kernel)->spec().op_name, "MatMul");
    EXPECT_TRUE((*kernel)->Compute(FakeContext()).ok());
    ExpectError((*kernel)->Compute(nullptr), absl::StatusCode::kInvalidArgument,
                "kernel for 'MatMul' from plugin 'cpu': shapes differ");
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(PluginKernelTest, CreateErrorHasContext) {
  auto* construction = reinterpret_cast<TSR_KernelConstruction*>(&state_object);
  ExpectError(PluginKernel::Create(Spec(Registration()), construction).status(),
              absl::StatusCode::kInvalidArgument,
              "kernel for 'MatMul' from plugin 'cpu' Create: attr 'T' missing");
}

TEST(PluginKernelTest, StatelessKernelNeedsNoCreate) {
  TSR_KernelRegistration r = Registration();
  r.Create = nullptr;
  r.Destroy = nullptr;
  r.Compute = [](void* state, TSR_KernelContext*) -> TSR_Status* {
    EXPECT_EQ(state, nullptr);
    return nullptr;
  };
  absl::StatusOr<std::unique_ptr<PluginKernel>> kernel = PluginKernel::Create(Spec(r), nullptr);
  ASSERT_TRUE(kernel.ok());
  EXPECT_TRUE((*kernel)->Compute(FakeContext()).ok());
}

TEST(PluginKernelTest, SyncKernelThroughComputeAsyncCallsDoneInline) {
  std::unique_ptr<PluginKernel> kernel = *PluginKernel::Create(Spec(Registration()), nullptr);
  bool called = false;
  kernel->ComputeAsync(nullptr, [&](absl::Status status) {
    called = true;
    ExpectError(status, absl::StatusCode::kInvalidArgument, "shapes differ");
  });
  EXPECT_TRUE(called);
}

TSR_KernelRegistration AsyncRegistration() {
  TSR_KernelRegistration r = Registration();
  r.flags = TSR_KERNEL_FLAG_ASYNC;
  r.Compute = nullptr;
  // Completes on another thread; fails when the context is NULL.
  r.Compute_Async = [](void*, TSR_KernelContext* ctx, TSR_KernelDoneFn done, void* done_arg) {
    std::thread([=] {
      done(done_arg,
           ctx == nullptr ? AbiStatusCreate(TSR_CODE_ABORTED, "peer went away") : nullptr);
    }).detach();
  };
  return r;
}

TEST(PluginKernelTest, AsyncKernelCompletesFromAnotherThread) {
  std::unique_ptr<PluginKernel> kernel = *PluginKernel::Create(Spec(AsyncRegistration()), nullptr);
  EXPECT_TRUE(kernel->is_async());
  std::atomic<int> done{0};
  absl::Status failure;
  kernel->ComputeAsync(FakeContext(), [&](absl::Status status) {
    EXPECT_TRUE(status.ok());
    ++done;
  });
  // Compute on an async kernel waits for it.
  ExpectError(kernel->Compute(nullptr), absl::StatusCode::kAborted,
              "kernel for 'MatMul' from plugin 'cpu': peer went away");
  EXPECT_TRUE(kernel->Compute(FakeContext()).ok());
  while (done.load() == 0) std::this_thread::yield();
}

TEST(PluginKernelTest, KernelFromTheFakePlugin) {
  RegistryOptions options;
  options.plugin_paths = {testing_paths::FakePluginCase("good")};
  options.plugin_path_env = "";
  options.default_plugin_dir = "";
  std::unique_ptr<PluginKernel> kernel;
  {
    std::unique_ptr<PluginRegistry> registry = *PluginRegistry::Create(options);
    std::vector<const KernelSpec*> kernels = registry->FindKernels("FakeOp", "FAKE");
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0]->type_constraints.at("T").size(), 2u);
    kernel = *PluginKernel::Create(*kernels[0], nullptr);
  }
  // The kernel keeps its library loaded after the registry is gone.
  EXPECT_TRUE(kernel->Compute(FakeContext()).ok());
  ExpectError(kernel->Compute(nullptr), absl::StatusCode::kInvalidArgument,
              "kernel for 'FakeOp' from plugin 'fake_good': no context");
}

}  // namespace
}  // namespace tessera
