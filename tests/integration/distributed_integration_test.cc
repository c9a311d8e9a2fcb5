// A cluster of `tessera serve` processes reached through the public session API, once per
// transport: TensorFlow's architecture-guide example, error propagation, a worker killed
// mid-step and restarted, and TLS.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/framework/proto/graph.pb.h"
#include "host/session/environment.h"
#include "host/session/session.h"
#include "tests/integration/process_cluster.h"

namespace tessera {
namespace integration {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
constexpr char kWorker1Cpu[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kFloat[] = "attr { key: \"T\" value { type: DT_FLOAT } }";
constexpr char kInt[] = "attr { key: \"T\" value { type: DT_INT32 } }";

// ---- GraphDef text -----------------------------------------------------------------------

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& device,
                 const std::string& attrs) {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  if (!device.empty()) absl::StrAppend(&text, " device: \"", device, "\"");
  return absl::StrCat(text, " ", attrs, " }\n");
}

std::string Const(const std::string& name, const std::string& dtype, const std::string& value,
                  const std::string& device, const std::vector<std::string>& inputs = {}) {
  return Node(name, "Const", inputs, device,
              absl::StrCat("attr { key: \"dtype\" value { type: ", dtype,
                           " } } attr { key: \"value\" value { tensor { dtype: ", dtype,
                           " tensor_shape { } ", value, " } } }"));
}

std::string Placeholder(const std::string& name) {
  return Node(name, "Placeholder", {}, "", "attr { key: \"dtype\" value { type: DT_FLOAT } }");
}

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
  return graph;
}

// TensorFlow's architecture-guide example: a, b and c = a + b, all on worker 1.
std::string APlusBOnWorker1() {
  return absl::StrCat(Const("a", "DT_FLOAT", "float_val: 3", kWorker1Cpu),
                      Const("b", "DT_FLOAT", "float_val: 4", kWorker1Cpu),
                      Node("c", "AddV2", {"a", "b"}, kWorker1Cpu, kFloat));
}

// A while loop whose condition is the constant true, all on worker 1: its step only ends when
// something fails it. Fetch "endless/Exit".
std::string EndlessLoopOnWorker1() {
  const std::string d = kWorker1Cpu;
  return absl::StrCat(
      Const("endless/zero", "DT_INT32", "int_val: 0", d),
      Node("endless/Enter", "Enter", {"endless/zero"}, d,
           absl::StrCat(kInt,
                        " attr { key: \"frame_name\" value { s: \"endless/ctx\" } } attr { key: "
                        "\"is_constant\" value { b: false } } attr { key: "
                        "\"parallel_iterations\" value { i: 10 } }")),
      Node("endless/Merge", "Merge", {"endless/Enter", "endless/NextIteration"}, d,
           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
      Const("endless/true", "DT_BOOL", "bool_val: true", d, {"^endless/Merge"}),
      Node("endless/LoopCond", "LoopCond", {"endless/true"}, d, ""),
      Node("endless/Switch", "Switch", {"endless/Merge", "endless/LoopCond"}, d, kInt),
      Node("endless/Identity", "Identity", {"endless/Switch:1"}, d, kInt),
      Const("endless/one", "DT_INT32", "int_val: 1", d, {"^endless/Identity"}),
      Node("endless/next", "AddV2", {"endless/Identity", "endless/one"}, d, kInt),
      Node("endless/NextIteration", "NextIteration", {"endless/next"}, d, kInt),
      Node("endless/Exit", "Exit", {"endless/Switch"}, d, kInt));
}

// i = 0; while i < n: i = i + 1, with the loop on worker 0 (the master's task) and its body's
// add on worker 1: every iteration crosses between the two processes twice. Feed "n", fetch
// "while/Exit".
std::string LoopWithBodyOnWorker1() {
  auto enter = [](const std::string& name, const std::string& input, bool is_constant) {
    return Node(name, "Enter", {input}, "",
                absl::StrCat(kInt,
                             " attr { key: \"frame_name\" value { s: \"while/ctx\" } } "
                             "attr { key: \"is_constant\" value { b: ",
                             is_constant ? "true" : "false",
                             " } } attr { key: \"parallel_iterations\" value { i: 10 } }"));
  };
  return absl::StrCat(
      Node("n", "Placeholder", {}, "", "attr { key: \"dtype\" value { type: DT_INT32 } }"),
      Const("zero", "DT_INT32", "int_val: 0", ""), enter("while/Enter", "zero", false),
      enter("while/Enter_1", "n", true),
      Node("while/Merge", "Merge", {"while/Enter", "while/NextIteration"}, "",
           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
      Node("while/Less", "Less", {"while/Merge", "while/Enter_1"}, "", kInt),
      Node("while/LoopCond", "LoopCond", {"while/Less"}, "", ""),
      Node("while/Switch", "Switch", {"while/Merge", "while/LoopCond"}, "", kInt),
      Node("while/Identity", "Identity", {"while/Switch:1"}, "", kInt),
      Const("while/one", "DT_INT32", "int_val: 1", kWorker1Cpu, {"^while/Identity"}),
      Node("while/next", "AddV2", {"while/Identity", "while/one"}, kWorker1Cpu, kInt),
      Node("while/NextIteration", "NextIteration", {"while/next"}, "", kInt),
      Node("while/Exit", "Exit", {"while/Switch"}, "", kInt));
}

// ---- The fixture -------------------------------------------------------------------------

// A cluster of two `tessera serve` tasks (job "worker") over the transport under test; clients
// connect to worker 0.
class DistributedIntegrationTest : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr int64_t kCallTimeoutMs = 3000;

  // Starts the cluster with `extra_flags` added to every task.
  void StartCluster(std::vector<std::string> extra_flags = {},
                    int64_t call_timeout_ms = kCallTimeoutMs) {
    ProcessClusterOptions options;
    options.tasks_per_job = {{"worker", 2}};
    options.transport = GetParam();
    options.extra_flags = {"--call-timeout-ms", absl::StrCat(call_timeout_ms)};
    options.extra_flags.insert(options.extra_flags.end(), extra_flags.begin(), extra_flags.end());
    absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster = ProcessCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
  }

  SessionOptions ClientOptions() const {
    SessionOptions options;
    options.target = cluster_->Target("worker", 0);
    options.call_timeout_ms = 20000;
    return options;
  }

  absl::StatusOr<std::unique_ptr<Session>> Connect(const std::string& graph,
                                                   const SessionOptions& options) {
    return Session::Create(options, ParseGraph(graph));
  }

  // The logs of every task, for failure messages.
  // `tessera run` of the endless loop on worker 1 against worker 0, with `flags` added; its log
  // is client.log in the cluster's folder.
  absl::StatusOr<std::unique_ptr<ChildProcess>> StartEndlessClient(
      const std::vector<std::string>& flags) {
    const std::string graph_path = cluster_->temp_dir() + "/endless.pbtxt";
    {
      std::ofstream graph(graph_path);
      graph << EndlessLoopOnWorker1();
    }
    std::vector<std::string> command = {TesseraBinary(), "run", graph_path, "--server",
                                        cluster_->Target("worker", 0), "--fetch", "endless/Exit"};
    command.insert(command.end(), flags.begin(), flags.end());
    return ChildProcess::Start(command, cluster_->temp_dir() + "/client.log");
  }

  std::string Logs() const {
    std::string logs;
    for (const ClusterTask& task : cluster_->tasks()) {
      absl::StrAppend(&logs, "---- ", task.name, " ----\n", cluster_->Log(task.job, task.index));
    }
    return logs;
  }

  void TearDown() override {
    if (cluster_ == nullptr) return;
    absl::Status stopped = cluster_->Stop();
    EXPECT_TRUE(stopped.ok()) << stopped;
  }

  std::unique_ptr<ProcessCluster> cluster_;
};

// TensorFlow's architecture guide: a client of worker 0 runs c = a + b, all pinned to worker 1.
TEST_P(DistributedIntegrationTest, RunsAPlusBOnAnotherTask) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(APlusBOnWorker1(), ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  EXPECT_THAT((*session)->ListDevices(), Contains(kWorker1Cpu));
  EXPECT_THAT((*session)->ListDevices(), Contains(absl::StrCat(kWorker0, "/device:CPU:0")));
  std::vector<Tensor> out;
  for (int step = 0; step < 2; ++step) {
    absl::Status status = (*session)->Run({}, {"c"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_THAT(out[0].flat<float>(), ElementsAre(7.0f));
  }
  // A cluster's session keeps the graph it was created with.
  absl::Status extended = (*session)->Extend(tensorflow::GraphDef());
  EXPECT_EQ(extended.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(extended.message()), HasSubstr("cluster target"));
}

// A client sends a Fill of 2^62 floats pinned to worker 1 (its byte count wrapped to 0 and the
// worker died writing past the buffer): the client gets INVALID_ARGUMENT naming the node, the
// shape and the limit, and the worker keeps serving.
TEST_P(DistributedIntegrationTest, AnOverflowingShapeOnAnotherTaskIsRefusedAndTheTaskLives) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  const std::string graph = absl::StrCat(
      Node("dims", "Placeholder", {}, "", "attr { key: \"dtype\" value { type: DT_INT64 } }"),
      Const("value", "DT_FLOAT", "float_val: 1", kWorker1Cpu),
      Node("f", "Fill", {"dims", "value"}, kWorker1Cpu,
           absl::StrCat(kFloat, " attr { key: \"index_type\" value { type: DT_INT64 } }")));
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(graph, ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  std::vector<Tensor> out;
  absl::Status status =
      (*session)->Run({{"dims", Tensor::Vector<int64_t>({int64_t{1} << 62})}}, {"f"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status << "\n" << Logs();
  EXPECT_THAT(status.message(), HasSubstr("node 'f' (Fill)"));
  EXPECT_THAT(status.message(), HasSubstr("shape [4611686018427387904] of float"));
  EXPECT_THAT(status.message(), HasSubstr("more than the limit of 4611686018427387904 bytes"));
  status = (*session)->Run({{"dims", Tensor::Vector<int64_t>({2})}}, {"f"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1.0f, 1.0f));
}

// A node on worker 1 fails (MatMul of fed [2,3] and [2,3]): the client gets its error, not the
// cancellation it causes on worker 0, and the session keeps working.
TEST_P(DistributedIntegrationTest, ReportsTheRootCauseOfAFailureOnAnotherTask) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  std::string graph =
      absl::StrCat(Placeholder("x"), Placeholder("w"),
                   Node("product", "MatMul", {"x", "w"}, kWorker1Cpu, kFloat),
                   Node("y", "Neg", {"product"}, absl::StrCat(kWorker0, "/device:CPU:0"), kFloat));
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(graph, ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  Tensor x = Tensor::FromVector<float>(TensorShape{2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({{"x", x}, {"w", x}}, {"y"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("Matrix size-incompatible"));
  EXPECT_THAT(status.message(), HasSubstr("product"));
  EXPECT_THAT(status.message(), Not(HasSubstr("ancel")));

  Tensor w = Tensor::FromVector<float>(TensorShape{3, 1}, {1, 1, 1});
  status = (*session)->Run({{"x", x}, {"w", w}}, {"y"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(-6.0f, -15.0f));
}

// Worker 1 is killed (SIGKILL) while it runs an endless step: the step fails with UNAVAILABLE
// naming worker 1, long before the step's own deadline; once worker 1 is restarted on the same
// port, the next step of the same session succeeds.
TEST_P(DistributedIntegrationTest, AWorkerKilledMidStepFailsTheStepAndRecoversAfterRestart) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(absl::StrCat(EndlessLoopOnWorker1(), APlusBOnWorker1()), ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"c"}, {}, &out).ok()) << Logs();

  constexpr int64_t kStepTimeoutMs = 120000;
  absl::Status step_status;
  absl::Time step_end;
  std::thread step([&] {
    RunOptions options;
    options.timeout_ms = kStepTimeoutMs;
    std::vector<Tensor> loop_out;
    step_status = (*session)->Run(options, {}, {"endless/Exit"}, {}, &loop_out, nullptr);
    step_end = absl::Now();
  });
  // Time for the step to reach worker 1; were the kill to come first, the step would fail the
  // same way.
  absl::SleepFor(absl::Seconds(1));
  absl::Time kill_time = absl::Now();
  absl::Status killed = cluster_->Kill("worker", 1, SIGKILL);
  step.join();
  ASSERT_TRUE(killed.ok()) << killed;

  EXPECT_EQ(step_status.code(), absl::StatusCode::kUnavailable) << step_status << "\n" << Logs();
  EXPECT_THAT(step_status.message(), HasSubstr(kWorker1));
  // Detected from the broken connection or, at the latest, by a call's deadline; never by the
  // step's own timeout.
  EXPECT_LT(step_end - kill_time, absl::Milliseconds(kStepTimeoutMs / 2));

  {
    absl::Status restarted = cluster_->Restart("worker", 1);
    ASSERT_TRUE(restarted.ok()) << restarted;
  }
  absl::Status status = (*session)->Run({}, {"c"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(7.0f));
}

// What a task holds now, asked through the transport under test ("Worker/GetStatus").
absl::StatusOr<distributed::GetStatusResponse> TaskStatus(const std::string& transport_name,
                                                          const std::string& address) {
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Get(EnvironmentOptions());
  if (!env.ok()) return env.status();
  const TransportSpec* spec = (*env)->plugins().FindTransport(transport_name);
  if (spec == nullptr) return absl::NotFoundError(absl::StrCat("no transport ", transport_name));
  std::shared_ptr<PluginTransport> transport =
      PluginTransport::Create(*spec, (*env)->plugins().host_api());
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel = transport->Connect(address, {});
  if (!channel.ok()) return channel.status();
  distributed::GetStatusResponse response;
  absl::Status status = Call(Peer{address, channel->get()}, kWorkerGetStatus,
                             distributed::GetStatusRequest(), 5000, &response);
  if (!status.ok()) return status;
  return response;
}

// A client process killed in the middle of an endless step leaves nothing behind: the step ends
// at its deadline, and the session it never closed expires on the master and on every worker.
TEST_P(DistributedIntegrationTest, AClientKilledMidStepLeavesNoStateBehind) {
  ASSERT_NO_FATAL_FAILURE(
      StartCluster({"--session-idle-timeout-ms", "1500", "--step-idle-timeout-ms", "1500"}));
  absl::StatusOr<std::unique_ptr<ChildProcess>> client =
      StartEndlessClient({"--timeout-ms", "3000"});
  ASSERT_TRUE(client.ok()) << client.status();
  // The step is running on worker 1.
  bool running = false;
  for (int i = 0; i < 100 && !running; ++i) {
    absl::StatusOr<distributed::GetStatusResponse> status =
        TaskStatus(GetParam(), cluster_->Address("worker", 1));
    running = status.ok() && status->live_steps() > 0;
    if (!running) absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_TRUE(running) << (*client)->Log() << Logs();
  (*client)->Kill();

  // Everything goes: the step at its 3 s deadline, the sessions 1.5 s after their last use.
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  std::string held;
  while (absl::Now() < give_up) {
    held.clear();
    for (int task : {0, 1}) {
      absl::StatusOr<distributed::GetStatusResponse> status =
          TaskStatus(GetParam(), cluster_->Address("worker", task));
      ASSERT_TRUE(status.ok()) << status.status();
      if (status->live_steps() + status->live_sessions() + status->live_master_sessions() > 0) {
        absl::StrAppend(&held, "worker ", task, ": ", status->ShortDebugString(), "\n");
      }
    }
    if (held.empty()) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  EXPECT_EQ(held, "") << Logs();
}

// Polls `task`'s live steps until none is left or `limit` passes; returns how long it took (or
// `limit` when steps remain).
absl::Duration TimeUntilNoStepIsLeft(const std::string& transport, const std::string& address,
                                     absl::Duration limit) {
  const absl::Time start = absl::Now();
  while (absl::Now() - start < limit) {
    absl::StatusOr<distributed::GetStatusResponse> status = TaskStatus(transport, address);
    if (status.ok() && status->live_steps() == 0) return absl::Now() - start;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return limit;
}

// Waits until a step runs on `address`; false after 5 s.
bool WaitForARunningStep(const std::string& transport, const std::string& address) {
  for (int i = 0; i < 250; ++i) {
    absl::StatusOr<distributed::GetStatusResponse> status = TaskStatus(transport, address);
    if (status.ok() && status->live_steps() > 0) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

// The log of `job`/`task` once it holds `text`, or as it is after 10 s: a task's status may show a
// step gone a moment before the task has logged why.
std::string LogOnceItSays(const ProcessCluster& cluster, const std::string& job, int task,
                          const std::string& text) {
  std::string log;
  for (int i = 0; i < 500; ++i) {
    log = cluster.Log(job, task);
    if (log.find(text) != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return log;
}

// The master (task 0) is killed while its endless step runs on worker 1, whose calls may last a
// minute: worker 1 sees the master's RunGraph call broken, cancels the step and drops its state
// within the orphan check's bound (100 ms, plus the time to stop the loop), and says so in its
// log.
TEST_P(DistributedIntegrationTest, AMasterKilledMidStepHasItsStepCancelledOnTheWorker) {
  ASSERT_NO_FATAL_FAILURE(StartCluster({}, /*call_timeout_ms=*/60000));
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(EndlessLoopOnWorker1(), ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  absl::Status step_status;
  std::thread step([&] {
    RunOptions options;
    options.timeout_ms = 120000;
    std::vector<Tensor> out;
    step_status = (*session)->Run(options, {}, {"endless/Exit"}, {}, &out, nullptr);
  });
  const bool running = WaitForARunningStep(GetParam(), cluster_->Address("worker", 1));
  ASSERT_TRUE(cluster_->Kill("worker", 0, SIGKILL).ok());
  step.join();
  ASSERT_TRUE(running) << Logs();
  EXPECT_EQ(step_status.code(), absl::StatusCode::kUnavailable) << step_status;

  const absl::Duration took =
      TimeUntilNoStepIsLeft(GetParam(), cluster_->Address("worker", 1), absl::Seconds(30));
  std::cout << "worker 1 dropped the orphaned step " << absl::FormatDuration(took)
            << " after the master was killed\n";
  // The bound: the 100 ms check period and the loop's stop, with room for a loaded machine; the
  // call's own deadline (60 s) is far away.
  EXPECT_LT(took, absl::Seconds(3)) << Logs();
  const std::string orphaned = "its master no longer waits for it (the master died";
  EXPECT_THAT(LogOnceItSays(*cluster_, "worker", 1, orphaned), HasSubstr(orphaned));
  {
    absl::Status restarted = cluster_->Restart("worker", 0);
    ASSERT_TRUE(restarted.ok()) << restarted;
  }
}

// The client (`tessera run` with no timeout, so its call may last the cluster's 60 s) is killed
// while its endless step runs on worker 1: the master sees its RunStep call broken, cancels the
// step on every task, and the step's state is gone everywhere within the bound.
TEST_P(DistributedIntegrationTest, AClientKilledMidStepHasItsStepCancelledEverywhere) {
  ASSERT_NO_FATAL_FAILURE(StartCluster({}, /*call_timeout_ms=*/60000));
  absl::StatusOr<std::unique_ptr<ChildProcess>> client = StartEndlessClient({});
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(WaitForARunningStep(GetParam(), cluster_->Address("worker", 1)))
      << (*client)->Log() << Logs();
  (*client)->Kill();

  absl::Duration took;
  for (int task : {1, 0}) {
    took = std::max(took, TimeUntilNoStepIsLeft(GetParam(), cluster_->Address("worker", task),
                                                absl::Seconds(30)));
  }
  std::cout << "the killed client's step was gone from both tasks " << absl::FormatDuration(took)
            << " after the kill\n";
  EXPECT_LT(took, absl::Seconds(3)) << Logs();
  const std::string abandoned = "its client no longer waits for it (the client died";
  EXPECT_THAT(LogOnceItSays(*cluster_, "worker", 0, abandoned), HasSubstr(abandoned));
}

// Worker 1 is stopped (SIGSTOP) while it runs the step: the run ends by its --timeout-ms, and the
// message names worker 1, whose piece was still running, as the one past the deadline.
TEST_P(DistributedIntegrationTest, AWorkerStoppedMidStepEndsTheRunByItsDeadlineNamingIt) {
  ASSERT_NO_FATAL_FAILURE(StartCluster({}, /*call_timeout_ms=*/60000));
  absl::StatusOr<std::unique_ptr<ChildProcess>> client =
      StartEndlessClient({"--timeout-ms", "3000"});
  ASSERT_TRUE(client.ok()) << client.status();
  const absl::Time start = absl::Now();
  ASSERT_TRUE(WaitForARunningStep(GetParam(), cluster_->Address("worker", 1)))
      << (*client)->Log() << Logs();
  ASSERT_TRUE(cluster_->Kill("worker", 1, SIGSTOP).ok());
  absl::StatusOr<ExitStatus> exit = (*client)->Wait(absl::Seconds(60));
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(cluster_->Kill("worker", 1, SIGCONT).ok());
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_EQ(exit->ToString(), "exited with status 1") << (*client)->Log();
  EXPECT_THAT((*client)->Log(), HasSubstr("ran past its deadline"));
  // Worker 0's piece (waiting for worker 1's value) stopped when aborted; worker 1 did not.
  EXPECT_THAT((*client)->Log(), HasSubstr(absl::StrCat("still running on ", kWorker1,
                                                       ", which did not stop within")));
  // Its deadline, plus the start of a process and its plugins.
  EXPECT_LT(took, absl::Milliseconds(3000) + absl::Seconds(4)) << (*client)->Log();
  // Once worker 1 runs again, the step it was running is cancelled there too.
  EXPECT_LT(TimeUntilNoStepIsLeft(GetParam(), cluster_->Address("worker", 1), absl::Seconds(30)),
            absl::Seconds(10))
      << Logs();
}

// A loop whose body spans two processes gives the count, for several trip counts.
TEST_P(DistributedIntegrationTest, RunsALoopWhoseBodySpansTwoTasks) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(LoopWithBodyOnWorker1(), ClientOptions());
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  std::vector<Tensor> out;
  for (int n : {0, 1, 2, 50}) {
    RunMetadata metadata;
    absl::Status status = (*session)->Run(RunOptions(), {{"n", Tensor::Scalar<int32_t>(n)}},
                                          {"while/Exit"}, {}, &out, &metadata);
    ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
    EXPECT_EQ(out[0].flat<int32_t>()[0], n);
    EXPECT_THAT(metadata.partition_devices, ElementsAre(kWorker0, kWorker1));
  }
}

// `tessera run --server` runs the same step from the command line.
TEST_P(DistributedIntegrationTest, TesseraRunWithServerRunsOnTheCluster) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  std::string graph_path = cluster_->temp_dir() + "/a_plus_b.pbtxt";
  {
    std::ofstream graph(graph_path);
    graph << APlusBOnWorker1();
  }
  absl::StatusOr<ProcessResult> run =
      RunProcess({TesseraBinary(), "run", graph_path, "--server", cluster_->Target("worker", 0),
                  "--fetch", "c"},
                 cluster_->temp_dir() + "/run.log", absl::Seconds(60));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->exit.Success()) << run->exit.ToString() << "\n" << run->log << Logs();
  EXPECT_THAT(run->log, HasSubstr("c:0"));
  EXPECT_THAT(run->log, HasSubstr(" 7"));
}

// --timeout-ms bounds the whole `tessera run`, connecting and creating the session included: with
// worker 1 stopped (SIGSTOP) the master cannot register the graph there, and the run ends by its
// deadline with the reason (it took 21.6 s for --timeout-ms 2000 when only the step was bounded).
TEST_P(DistributedIntegrationTest, TimeoutMsHoldsForTheWholeRunWhileAWorkerIsStopped) {
  ASSERT_NO_FATAL_FAILURE(StartCluster());
  std::string graph_path = cluster_->temp_dir() + "/a_plus_b.pbtxt";
  {
    std::ofstream graph(graph_path);
    graph << APlusBOnWorker1();
  }
  ASSERT_TRUE(cluster_->Kill("worker", 1, SIGSTOP).ok());
  const absl::Time start = absl::Now();
  absl::StatusOr<ProcessResult> run =
      RunProcess({TesseraBinary(), "run", graph_path, "--server", cluster_->Target("worker", 0),
                  "--fetch", "c", "--timeout-ms", "2000"},
                 cluster_->temp_dir() + "/run.log", absl::Seconds(60));
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(cluster_->Kill("worker", 1, SIGCONT).ok());
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit.ToString(), "exited with status 1") << run->log;
  EXPECT_THAT(run->log, HasSubstr("eadline")) << run->log;
  // The bound: the deadline plus the start of a process and its plugins (a correctness bound
  // with room for a loaded machine, not a speed figure).
  EXPECT_LT(took, absl::Milliseconds(2000) + absl::Seconds(4)) << run->log;
}

// ---- TLS ---------------------------------------------------------------------------------

// A CA and one certificate it signed for "localhost" (and 127.0.0.1), made with the openssl
// program in `dir`; the tasks and the trusted client all present that certificate.
absl::Status MakeCertificates(const std::string& dir) {
  std::string script = absl::StrCat(
      "set -e; cd '", dir, "'\n",
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN=tessera-test-ca -keyout ca.key -out ca.pem\n",
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-subj /CN=localhost -keyout task.key -out task.csr\n",
      "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n"
      "extendedKeyUsage=serverAuth,clientAuth\\n' > task.ext\n",
      "openssl x509 -req -in task.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
      "-extfile task.ext -out task.pem\n");
  absl::StatusOr<ProcessResult> result =
      RunProcess({"/bin/sh", "-c", script}, dir + "/openssl.log", absl::Seconds(60));
  if (!result.ok()) return result.status();
  if (!result->exit.Success()) {
    return absl::InternalError(absl::StrCat("making certificates with openssl ",
                                            result->exit.ToString(), ":\n", Tail(result->log)));
  }
  return absl::OkStatus();
}

TEST_P(DistributedIntegrationTest, TlsClusterServesOnlyClientsWithTheRightCertificates) {
  if (!std::filesystem::exists("/usr/bin/openssl")) {
    GTEST_SKIP() << "skipped: no /usr/bin/openssl to make test certificates";
  }
  std::string dir = (std::filesystem::temp_directory_path() / "tessera-tls-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  struct RemoveDir {
    std::string path;
    ~RemoveDir() {
      std::error_code error;
      std::filesystem::remove_all(path, error);
    }
  } remove_dir{dir};
  absl::Status made = MakeCertificates(dir);
  ASSERT_TRUE(made.ok()) << made;

  const std::vector<std::string> tls_flags = {"--tls-cert", dir + "/task.pem", "--tls-key",
                                               dir + "/task.key", "--tls-ca", dir + "/ca.pem"};
  if (GetParam() != "grpc") {
    // A transport without TLS refuses the TLS flags when the task starts, naming the option,
    // rather than serving in the clear.
    ProcessClusterOptions options;
    options.tasks_per_job = {{"worker", 1}};
    options.transport = GetParam();
    options.extra_flags = tls_flags;
    absl::StatusOr<std::unique_ptr<ProcessCluster>> refused = ProcessCluster::Start(options);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.status().message(),
                HasSubstr(absl::StrCat("the ", GetParam(), " transport has no TLS")));
    return;
  }
  ASSERT_NO_FATAL_FAILURE(StartCluster(tls_flags));

  // The right certificates: the step runs on worker 1, so the tasks also talk over TLS.
  SessionOptions trusted = ClientOptions();
  trusted.transport_options = {{"tls_ca_file", dir + "/ca.pem"},
                               {"tls_cert_file", dir + "/task.pem"},
                               {"tls_key_file", dir + "/task.key"}};
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(APlusBOnWorker1(), trusted);
  ASSERT_TRUE(session.ok()) << session.status() << "\n" << Logs();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({}, {"c"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status << "\n" << Logs();
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(7.0f));

  // No certificates: refused, when the session is created or at the latest at its first step.
  SessionOptions plain = ClientOptions();
  plain.call_timeout_ms = 5000;
  absl::StatusOr<std::unique_ptr<Session>> refused = Connect(APlusBOnWorker1(), plain);
  absl::Status refusal = refused.status();
  if (refused.ok()) refusal = (*refused)->Run({}, {"c"}, {}, &out);
  EXPECT_EQ(refusal.code(), absl::StatusCode::kUnavailable) << refusal;
  EXPECT_THAT(refusal.message(), HasSubstr(cluster_->Address("worker", 0)));
}

INSTANTIATE_TEST_SUITE_P(Transports, DistributedIntegrationTest,
#ifdef TESSERA_HAVE_RDMA
                         ::testing::Values("grpc", "rdma"),
#else
                         ::testing::Values("grpc"),
#endif
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace integration
}  // namespace tessera
