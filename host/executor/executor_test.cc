// The executor on its own, without a session: graphs imported from text and placed by hand, fed
// and fetched through _Arg/_Retval (as a session rewrites them), kernels registered by this test
// as a plugin would register them (KernelSpecs), on a host-memory device.
#include "host/executor/executor.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/abi/host_kernel_context.h"
#include "host/graph/graph.h"
#include "host/kernels/kernel_factory.h"
#include "host/ops/op_registry.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "host/runtime/thread_pool.h"
#include "registry/abi_status.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

float Scalar(const Tensor& t) { return t.data<float>()[0]; }

// What the test's kernels did, for the assertions.
struct KernelLog {
  std::mutex mu;
  std::vector<std::string> ran;  // node names, in the order they ran
  std::atomic<int> max_concurrent{0};
  std::atomic<int> running{0};

  void Ran(const TSR_KernelContext* ctx) {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(ctx->info->name);
  }
  bool Contains(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    for (const std::string& n : ran) {
      if (n == name) return true;
    }
    return false;
  }
};
KernelLog* g_log = nullptr;

// AddV2 on float scalars.
TSR_Status* AddCompute(void*, TSR_KernelContext* ctx) {
  g_log->Ran(ctx);
  ctx->outputs[0] = Tensor::Scalar<float>(Scalar(ctx->inputs[0]) + Scalar(ctx->inputs[1]));
  return nullptr;
}

// Neg; slow enough (2 ms) that fan-out branches on a pool overlap.
TSR_Status* SlowNegCompute(void*, TSR_KernelContext* ctx) {
  g_log->Ran(ctx);
  int now = g_log->running.fetch_add(1) + 1;
  int seen = g_log->max_concurrent.load();
  while (now > seen && !g_log->max_concurrent.compare_exchange_weak(seen, now)) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  g_log->running.fetch_sub(1);
  ctx->outputs[0] = Tensor::Scalar<float>(-Scalar(ctx->inputs[0]));
  return nullptr;
}

// Sqrt that refuses negative input.
TSR_Status* CheckedSqrtCompute(void*, TSR_KernelContext* ctx) {
  g_log->Ran(ctx);
  float x = Scalar(ctx->inputs[0]);
  if (x < 0) {
    return ToAbiStatus(absl::InvalidArgumentError(absl::StrCat("sqrt of negative value ", x)));
  }
  ctx->outputs[0] = Tensor::Scalar<float>(std::sqrt(x));
  return nullptr;
}

// Identity as an async kernel that completes on another thread, once the test releases it
// (g_release), or at once when nothing holds it.
struct AsyncGate {
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  bool started = false;
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    started = true;
    cv.notify_all();
    cv.wait(lock, [&] { return !hold; });
  }
  void WaitStarted() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return started; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu);
    hold = false;
    cv.notify_all();
  }
};
AsyncGate* g_gate = nullptr;

// The threads that complete AsyncIdentity, joined before the test's pool goes: the executor
// continues the step on such a thread, which may still be inside the pool's Schedule when the
// step's end has already been seen by the test.
std::mutex g_async_threads_mu;
std::vector<std::thread>* g_async_threads = nullptr;

void AsyncIdentity(void*, TSR_KernelContext* ctx, TSR_KernelDoneFn done, void* done_arg) {
  g_log->Ran(ctx);
  std::thread thread([ctx, done, done_arg] {
    g_gate->Wait();
    ctx->outputs[0] = ctx->inputs[0];
    done(done_arg, nullptr);
  });
  std::lock_guard<std::mutex> lock(g_async_threads_mu);
  g_async_threads->push_back(std::move(thread));
}

KernelSpec Spec(const std::string& op, TSR_Status* (*compute)(void*, TSR_KernelContext*),
                uint32_t flags = 0) {
  KernelSpec spec;
  spec.op_name = op;
  spec.device_type = "CPU";
  spec.type_constraints["T"] = {TSR_DTYPE_FLOAT};
  spec.flags = flags;
  spec.compute = compute;
  spec.origin.plugin_name = "executor_test";
  return spec;
}

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest()
      : ops_(OpRegistry::CreateStandard()),
        device_(Device::Remote(kDevice, "CPU", 0, TSR_DEVICE_FLAG_HOST_MEMORY, 1)),
        pool_(std::make_unique<ThreadPool>("executor_test", 4)) {
    g_log = &log_;
    g_gate = &gate_;
    g_async_threads = &async_threads_;
    specs_.push_back(Spec("AddV2", AddCompute, TSR_KERNEL_FLAG_CHEAP));
    specs_.push_back(Spec("Neg", SlowNegCompute));
    specs_.push_back(Spec("Sqrt", CheckedSqrtCompute));
    KernelSpec async = Spec("Identity", nullptr, TSR_KERNEL_FLAG_ASYNC);
    async.compute_async = AsyncIdentity;
    specs_.push_back(async);
    factory_ = std::make_unique<KernelFactory>(specs_);
  }
  ~ExecutorTest() override {
    gate_.Release();  // a test that failed before releasing its kernels must not hang here
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(g_async_threads_mu);
      threads.swap(async_threads_);
    }
    for (std::thread& thread : threads) thread.join();
    g_log = nullptr;
    g_gate = nullptr;
    g_async_threads = nullptr;
  }

  // Imports `text` (a GraphDef), places every node on the device and builds an executor.
  absl::StatusOr<std::unique_ptr<Executor>> Build(const std::string& text) {
    tensorflow::GraphDef def;
    if (!google::protobuf::TextFormat::ParseFromString(text, &def)) {
      return absl::InvalidArgumentError("bad graph text");
    }
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
    if (!graph.ok()) return graph.status();
    for (Node* node : (*graph)->op_nodes()) node->set_assigned_device(kDevice);
    graph_ = std::move(*graph);
    ExecutorParams params;
    params.device = device_.get();
    params.intra_op_pool = pool_.get();
    params.kernel_factory = factory_.get();
    return Executor::Create(params, *graph_);
  }

  // One step with `args` fed to the _Arg nodes; `retvals` _Retval nodes are fetched.
  absl::Status Run(const Executor& executor, std::vector<Tensor> args, int retvals,
                   std::vector<Tensor>* fetched, bool on_pool = true,
                   const std::atomic<bool>* cancelled = nullptr) {
    CallFrame frame;
    frame.args = std::move(args);
    frame.retvals.resize(retvals);
    LocalRendezvous rendezvous;
    Executor::Args run;
    run.step_id = 1;
    run.rendezvous = &rendezvous;
    run.call_frame = &frame;
    run.cancelled = cancelled;
    if (on_pool) {
      run.runner = [this](std::function<void()> fn) { pool_->Schedule(std::move(fn)); };
    }
    absl::Status status = executor.Run(run);
    *fetched = std::move(frame.retvals);
    return status;
  }

  static std::string Arg(const std::string& name, int index) {
    return absl::StrCat("node { name: '", name, "' op: '_Arg' attr { key: 'T' value { type: ",
                        "DT_FLOAT } } attr { key: 'index' value { i: ", index, " } } }\n");
  }
  static std::string Retval(const std::string& name, const std::string& input, int index) {
    return absl::StrCat("node { name: '", name, "' op: '_Retval' input: '", input,
                        "' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' ",
                        "value { i: ", index, " } } }\n");
  }
  static std::string Unary(const std::string& op, const std::string& name,
                           const std::string& input) {
    return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", input,
                        "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
  }
  static std::string Add(const std::string& name, const std::string& a, const std::string& b) {
    return absl::StrCat("node { name: '", name, "' op: 'AddV2' input: '", a, "' input: '", b,
                        "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
  }

  KernelLog log_;
  AsyncGate gate_;
  std::unique_ptr<OpRegistry> ops_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<std::thread> async_threads_;  // declared after pool_: gone (joined) before it
  std::vector<KernelSpec> specs_;
  std::unique_ptr<KernelFactory> factory_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(ExecutorTest, DiamondJoinsBothBranches) {
  // x -> a = x + x, b = x + x -> c = a + b: c waits for both.
  auto executor = Build(Arg("x", 0) + Add("a", "x", "x") + Add("b", "x", "x") + Add("c", "a", "b") +
                        Retval("out", "c", 0));
  ASSERT_TRUE(executor.ok()) << executor.status();
  EXPECT_FALSE((*executor)->uses_frames());
  EXPECT_EQ((*executor)->num_nodes(), 5);
  for (bool on_pool : {false, true}) {
    std::vector<Tensor> fetched;
    ASSERT_TRUE(Run(**executor, {Tensor::Scalar<float>(1.5f)}, 1, &fetched, on_pool).ok());
    ASSERT_EQ(fetched.size(), 1u);
    EXPECT_EQ(Scalar(fetched[0]), 6.0f);
  }
  EXPECT_EQ(log_.ran.back(), "c");
}

TEST_F(ExecutorTest, FanOutRunsExpensiveBranchesOnThePoolAndFansIn) {
  // Eight slow Negs of x, summed pairwise: expensive nodes go to the inter-op pool.
  std::string text = Arg("x", 0);
  for (int i = 0; i < 8; ++i) text += Unary("Neg", absl::StrCat("n", i), "x");
  text += Add("s01", "n0", "n1") + Add("s23", "n2", "n3") + Add("s45", "n4", "n5") +
          Add("s67", "n6", "n7") + Add("s0123", "s01", "s23") + Add("s4567", "s45", "s67") +
          Add("sum", "s0123", "s4567") + Retval("out", "sum", 0);
  auto executor = Build(text);
  ASSERT_TRUE(executor.ok()) << executor.status();
  std::vector<Tensor> fetched;
  ASSERT_TRUE(Run(**executor, {Tensor::Scalar<float>(2.0f)}, 1, &fetched).ok());
  EXPECT_EQ(Scalar(fetched[0]), -16.0f);
  // Without a runner everything runs on the calling thread, one node at a time.
  log_.max_concurrent = 0;
  ASSERT_TRUE(Run(**executor, {Tensor::Scalar<float>(1.0f)}, 1, &fetched, false).ok());
  EXPECT_EQ(Scalar(fetched[0]), -8.0f);
  EXPECT_EQ(log_.max_concurrent.load(), 1);
}

TEST_F(ExecutorTest, AsyncKernelCompletingOnAnotherThreadContinuesTheStep) {
  auto executor = Build(Arg("x", 0) + Unary("Identity", "id", "x") + Add("y", "id", "id") +
                        Retval("out", "y", 0));
  ASSERT_TRUE(executor.ok()) << executor.status();
  for (bool on_pool : {false, true}) {
    gate_.hold = true;
    gate_.started = false;
    std::thread release([this] {
      gate_.WaitStarted();
      gate_.Release();
    });
    std::vector<Tensor> fetched;
    absl::Status status = Run(**executor, {Tensor::Scalar<float>(3.0f)}, 1, &fetched, on_pool);
    release.join();
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(Scalar(fetched[0]), 6.0f);
  }
}

TEST_F(ExecutorTest, FirstErrorAbortsTheStepAndNamesTheNode) {
  // root = sqrt(x) fails for x < 0; nothing after it runs, the error names the node.
  auto executor = Build(Arg("x", 0) + Unary("Sqrt", "root", "x") + Add("after", "root", "root") +
                        Retval("out", "after", 0));
  ASSERT_TRUE(executor.ok()) << executor.status();
  std::vector<Tensor> fetched;
  absl::Status status = Run(**executor, {Tensor::Scalar<float>(-1.0f)}, 1, &fetched);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("while running node 'root' (Sqrt)"));
  EXPECT_THAT(status.message(), HasSubstr("sqrt of negative value -1"));
  EXPECT_FALSE(log_.Contains("after"));
  // The executor is reusable after a failed step.
  ASSERT_TRUE(Run(**executor, {Tensor::Scalar<float>(4.0f)}, 1, &fetched).ok());
  EXPECT_EQ(Scalar(fetched[0]), 4.0f);
}

TEST_F(ExecutorTest, DeadBranchOfASwitchIsSkippedAndMergeTakesTheLiveOne) {
  // Switch(x, pred): the false output goes through Neg, the true one through Sqrt; Merge joins.
  const std::string text =
      Arg("x", 0) +
      "node { name: 'pred' op: '_Arg' attr { key: 'T' value { type: DT_BOOL } } "
      "attr { key: 'index' value { i: 1 } } }\n"
      "node { name: 'sw' op: 'Switch' input: 'x' input: 'pred' "
      "attr { key: 'T' value { type: DT_FLOAT } } }\n" +
      Unary("Neg", "on_false", "sw") + Unary("Sqrt", "on_true", "sw:1") +
      "node { name: 'merge' op: 'Merge' input: 'on_false' input: 'on_true' "
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'N' value { i: 2 } } }\n" +
      Retval("out", "merge", 0);
  auto executor = Build(text);
  ASSERT_TRUE(executor.ok()) << executor.status();
  EXPECT_TRUE((*executor)->uses_frames());
  std::vector<Tensor> fetched;
  ASSERT_TRUE(
      Run(**executor, {Tensor::Scalar<float>(4.0f), Tensor::Scalar<bool>(true)}, 1, &fetched).ok());
  EXPECT_EQ(Scalar(fetched[0]), 2.0f);
  EXPECT_FALSE(log_.Contains("on_false"));  // dead: not computed
  ASSERT_TRUE(
      Run(**executor, {Tensor::Scalar<float>(4.0f), Tensor::Scalar<bool>(false)}, 1, &fetched)
          .ok());
  EXPECT_EQ(Scalar(fetched[0]), -4.0f);
  EXPECT_TRUE(log_.Contains("on_false"));
}

TEST_F(ExecutorTest, CancelledStepStartsNoFurtherNode) {
  // The step is cancelled (a deadline passed) while the async Identity runs: the nodes after it
  // never start, and the step ends.
  auto executor = Build(Arg("x", 0) + Unary("Identity", "id", "x") + Add("y", "id", "id") +
                        Retval("out", "y", 0));
  ASSERT_TRUE(executor.ok()) << executor.status();
  std::atomic<bool> cancelled{false};
  gate_.hold = true;
  std::thread deadline([&] {
    gate_.WaitStarted();
    cancelled = true;
    gate_.Release();
  });
  std::vector<Tensor> fetched;
  // The executor reports no error of its own for a cancelled step (the session turns the
  // cancellation into DEADLINE_EXCEEDED or CANCELLED).
  EXPECT_TRUE(Run(**executor, {Tensor::Scalar<float>(1.0f)}, 1, &fetched, true, &cancelled).ok());
  deadline.join();
  EXPECT_TRUE(log_.Contains("id"));
  EXPECT_FALSE(log_.Contains("y"));
  EXPECT_FALSE(fetched[0].IsInitialized());
  // A step that starts cancelled runs nothing at all.
  log_.ran.clear();
  EXPECT_TRUE(Run(**executor, {Tensor::Scalar<float>(1.0f)}, 1, &fetched, true, &cancelled).ok());
  EXPECT_TRUE(log_.ran.empty());
}

TEST_F(ExecutorTest, NodeWithoutAKernelIsRefusedWhenBuilt) {
  auto missing = Build(Arg("x", 0) + Unary("Exp", "e", "x") + Retval("out", "e", 0));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("Exp"));
}

}  // namespace
}  // namespace tessera
