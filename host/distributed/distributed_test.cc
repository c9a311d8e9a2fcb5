// The distributed runtime in one process: servers of a cluster on loopback ports, reached by
// sessions through the gRPC transport plugin exactly as separate processes reach them.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/distributed/server.h"
#include "host/session/environment.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& device,
                 const std::string& attrs) {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  if (!device.empty()) absl::StrAppend(&text, " device: \"", device, "\"");
  return absl::StrCat(text, " ", attrs, " }\n");
}

constexpr char kFloat[] = "attr { key: \"T\" value { type: DT_FLOAT } }";
constexpr char kInt[] = "attr { key: \"T\" value { type: DT_INT32 } }";

std::string FloatConst(const std::string& name, float value, const std::string& device) {
  return Node(name, "Const", {}, device,
              absl::StrCat("attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: "
                           "\"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } "
                           "float_val: ",
                           value, " } } }"));
}

std::string IntConst(const std::string& name, int value, const std::string& control,
                     const std::string& device) {
  return Node(
      name, "Const",
      control.empty() ? std::vector<std::string>{} : std::vector<std::string>{"^" + control},
      device,
      absl::StrCat("attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
                   "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: ",
                   value, " } } }"));
}

std::string Placeholder(const std::string& name, const std::string& dtype,
                        const std::string& device = "") {
  return Node(name, "Placeholder", {}, device,
              absl::StrCat("attr { key: \"dtype\" value { type: ", dtype, " } }"));
}

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
constexpr char kPs0[] = "/job:ps/replica:0/task:0";

// Three tasks in this process: worker 0 and 1, ps 0, over the transport the test is given:
// "grpc", or "loopback" (an in-process test transport, which ThreadSanitizer can see through).
class DistributedTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string spec = absl::StrCat("worker=localhost:", FreePort(), ",localhost:", FreePort(),
                                    ";ps=localhost:", FreePort());
    absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(spec);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *cluster;
    for (auto [job, task] :
         std::vector<std::pair<std::string, int>>{{"worker", 0}, {"worker", 1}, {"ps", 0}}) {
      StartTask(job, task);
    }
  }

  void StartTask(const std::string& job, int task) {
    ServerOptions options;
    options.cluster = cluster_;
    options.job = job;
    options.task = task;
    options.transport = GetParam();
    options.plugin_paths = {TESSERA_LOOPBACK_PLUGIN_DIR};
    options.call_timeout_ms = 5000;
    options.session_idle_timeout_ms = session_idle_timeout_ms_;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    servers_[absl::StrCat(job, task)] = *std::move(server);
  }

  Server& server(const std::string& key) { return *servers_[key]; }

  std::unique_ptr<Session> Connect(const std::string& graph, bool op_fusion = true) {
    SessionOptions options;
    options.op_fusion = op_fusion;
    options.target = server("worker0").target();
    options.plugin_paths = {TESSERA_LOOPBACK_PLUGIN_DIR};
    options.call_timeout_ms = 5000;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, Parse(graph));
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? std::move(*session) : nullptr;
  }

  ClusterSpec cluster_;
  int64_t session_idle_timeout_ms_ = 600000;
  std::map<std::string, std::unique_ptr<Server>> servers_;
};

TEST_P(DistributedTest, ServersNameTheirTasksAndDevices) {
  EXPECT_EQ(server("worker1").task_name(), kWorker1);
  EXPECT_THAT(server("ps0").devices(), ElementsAre(absl::StrCat(kPs0, "/device:CPU:0")));
  EXPECT_EQ(server("worker0").target(),
            absl::StrCat(GetParam(), "://", server("worker0").address()));
}

// TensorFlow's architecture guide: a client of worker 0 runs c = a + b, all on worker 1.
TEST_P(DistributedTest, RunsAPlusBOnAnotherTask) {
  std::string dev = absl::StrCat(kWorker1, "/device:CPU:0");
  auto session = Connect(absl::StrCat(FloatConst("a", 3, dev), FloatConst("b", 4, dev),
                                      Node("c", "AddV2", {"a", "b"}, dev, kFloat)));
  ASSERT_NE(session, nullptr);
  EXPECT_THAT(session->ListDevices(), ElementsAre(absl::StrCat(kPs0, "/device:CPU:0"),
                                                  absl::StrCat(kWorker0, "/device:CPU:0"), dev));
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(session->Run(RunOptions(), {}, {"c"}, {}, &out, &metadata).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<float>()[0], 7.0f);
  // The value comes back through the client task's piece (its _Retval).
  EXPECT_THAT(metadata.partition_devices, ElementsAre(kWorker0, kWorker1));
  // Step statistics are not gathered from the workers: refused, not returned empty.
  RunOptions traced;
  traced.collect_step_stats = true;
  absl::Status status = session->Run(traced, {}, {"c"}, {}, &out, &metadata);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("step statistics"));
}

// A cluster session's SessionOptions::op_fusion reaches the workers: MatMul + BiasAdd on worker 1
// with a bias of the wrong length fails in _FusedMatMul when fused and in BiasAdd when not.
TEST_P(DistributedTest, WorkersFuseOpsUnlessTheSessionSaysNot) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  const std::string graph = absl::StrCat(
      Placeholder("a", "DT_FLOAT", w1), Placeholder("b", "DT_FLOAT", w1),
      Placeholder("bias", "DT_FLOAT", w1), Node("mm", "MatMul", {"a", "b"}, w1, kFloat),
      Node("y", "BiasAdd", {"mm", "bias"}, w1, kFloat));
  TensorShape square{2, 2};
  Tensor a(TSR_DTYPE_FLOAT, square);
  for (float& v : a.flat<float>()) v = 1;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"a", a}, {"b", a}, {"bias", Tensor::Vector<float>({1, 2, 3})}};
  for (bool op_fusion : {true, false}) {
    auto session = Connect(graph, op_fusion);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    absl::Status status = session->Run(feeds, {"y"}, {}, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(),
                HasSubstr(op_fusion ? "_FusedMatMul's bias must be a vector of the product's 2 "
                                      "columns, got [3]"
                                    : "Must provide as many biases as the last dimension"))
        << status;
  }
}

// y = ((x * 2 on worker 1) + 1 on ps) * itself on worker 0, fed and fetched by the client, twice
// (the second run reuses the registered pieces).
TEST_P(DistributedTest, ChainsValuesAcrossThreeTasks) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  std::string ps = absl::StrCat(kPs0, "/device:CPU:0");
  auto session = Connect(absl::StrCat(Placeholder("x", "DT_FLOAT"), FloatConst("two", 2, w1),
                                      FloatConst("one", 1, ps),
                                      Node("doubled", "Mul", {"x", "two"}, w1, kFloat),
                                      Node("plus", "AddV2", {"doubled", "one"}, ps, kFloat),
                                      Node("y", "Mul", {"plus", "plus"}, "", kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  for (float x : {1.0f, 3.0f}) {
    absl::Status status =
        session->Run({{"x", Tensor::Vector<float>({x, -x})}}, {"y", "plus"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    float p = 2 * x + 1;
    float q = -2 * x + 1;
    EXPECT_THAT(out[0].flat<float>(), ElementsAre(p * p, q * q));
    EXPECT_THAT(out[1].flat<float>(), ElementsAre(p, q));
  }
  // Every step's state is gone from the workers once the step is over.
  for (int i = 0; i < 100 && server("worker1").state().worker_steps != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server("worker1").state().worker_steps, 0);
  EXPECT_EQ(server("worker0").state().master_sessions, 1);
  EXPECT_EQ(server("ps0").state().worker_sessions, 1);
}

// The root cause of a failure on worker 1 reaches the client, not a derived "cancelled".
TEST_P(DistributedTest, ReportsTheRootCauseOfAFailure) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  auto session = Connect(absl::StrCat(
      Placeholder("a", "DT_FLOAT"), Placeholder("b", "DT_FLOAT"),
      Node("product", "MatMul", {"a", "b"}, w1, "attr { key: \"T\" value { type: DT_FLOAT } }"),
      Node("y", "Neg", {"product"}, "", kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor a = Tensor::FromVector<float>(TensorShape{2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::FromVector<float>(TensorShape{2, 3}, {1, 2, 3, 4, 5, 6});
  absl::Status status = session->Run({{"a", a}, {"b", b}}, {"y"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("product"));
  EXPECT_THAT(status.message(), Not(HasSubstr("ancel")));
  // The session still works afterwards.
  Tensor c = Tensor::FromVector<float>(TensorShape{3, 1}, {1, 1, 1});
  status = session->Run({{"a", a}, {"b", c}}, {"y"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(-6, -15));
}

// A while loop on worker 0 whose body runs on worker 1: each iteration crosses tasks twice.
TEST_P(DistributedTest, RunsALoopWhoseBodySpansTwoTasks) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  auto enter = [](const std::string& name, const std::string& input, bool is_constant) {
    return Node(name, "Enter", {input}, "",
                absl::StrCat(kInt,
                             " attr { key: \"frame_name\" value { s: \"while/ctx\" } } "
                             "attr { key: \"is_constant\" value { b: ",
                             is_constant ? "true" : "false",
                             " } } attr { key: \"parallel_iterations\" value { i: 10 } }"));
  };
  std::string graph =
      absl::StrCat(Placeholder("n", "DT_INT32"), IntConst("zero", 0, "", ""),
                   enter("while/Enter", "zero", false), enter("while/Enter_1", "n", true),
                   Node("while/Merge", "Merge", {"while/Enter", "while/NextIteration"}, "",
                        absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
                   Node("while/Less", "Less", {"while/Merge", "while/Enter_1"}, "", kInt),
                   Node("while/LoopCond", "LoopCond", {"while/Less"}, "", ""),
                   Node("while/Switch", "Switch", {"while/Merge", "while/LoopCond"}, "", kInt),
                   Node("while/Identity", "Identity", {"while/Switch:1"}, "", kInt),
                   IntConst("while/one", 1, "while/Identity", w1),
                   Node("while/next", "AddV2", {"while/Identity", "while/one"}, w1, kInt),
                   Node("while/NextIteration", "NextIteration", {"while/next"}, "", kInt),
                   Node("while/Exit", "Exit", {"while/Switch"}, "", kInt));
  auto session = Connect(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  for (int n : {0, 1, 25}) {
    absl::Status status =
        session->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {"while/Exit"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(out[0].flat<int32_t>()[0], n);
  }
}

// A call of a library function, on worker 1, whose body puts one node on the ps task: the master
// inlines the call before placement, so the body's nodes are cut between the two tasks.
TEST_P(DistributedTest, RunsAFunctionWhoseBodySpansTwoTasks) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  std::string graph = absl::StrCat(
      Placeholder("x", "DT_FLOAT"), Node("call", "AcrossTasks", {"x"}, w1, ""), R"pb(
        library {
          function {
            signature {
              name: "AcrossTasks"
              input_arg { name: "x" type: DT_FLOAT }
              output_arg { name: "y" type: DT_FLOAT }
            }
            node_def {
              name: "square"
              op: "Mul"
              input: "x"
              input: "x"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
            node_def {
              name: "negate"
              op: "Neg"
              input: "square:z:0"
              device: "/job:ps/task:0"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
            ret { key: "y" value: "negate:y:0" }
          }
        }
      )pb");
  auto session = Connect(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(session
                  ->Run(RunOptions(), {{"x", Tensor::Vector<float>({3, -2})}}, {"call"}, {}, &out,
                        &metadata)
                  .ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(-9.0f, -4.0f));
  EXPECT_THAT(metadata.partition_devices, ::testing::UnorderedElementsAre(kPs0, kWorker0, kWorker1));
}

// Variables on the ps task keep their values across steps of a session.
TEST_P(DistributedTest, KeepsVariablesOnTheParameterServer) {
  std::string ps = absl::StrCat(kPs0, "/device:CPU:0");
  std::string var_attrs =
      "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { } } "
      "}";
  auto session = Connect(
      absl::StrCat(Node("v", "VariableV2", {}, ps, var_attrs), FloatConst("init", 10, ""),
                   Node("assign", "Assign", {"v", "init"}, ps, kFloat), FloatConst("step", 2.5, ""),
                   Node("add", "AssignAdd", {"v", "step"}, ps, kFloat),
                   Node("read", "Identity", {"v"}, "", kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"assign"}, &out).ok());
  for (int i = 0; i < 3; ++i) {
    absl::Status status = session->Run({}, {}, {"add"}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  absl::Status status = session->Run({}, {"read"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out[0].flat<float>()[0], 17.5f);
}

// A worker that goes away fails the step with UNAVAILABLE naming it; once it is back, the next
// step registers its pieces again and succeeds.
TEST_P(DistributedTest, RecoversWhenAWorkerRestarts) {
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  auto session =
      Connect(absl::StrCat(Placeholder("x", "DT_FLOAT"), Node("y", "Neg", {"x"}, w1, kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out).ok());
  servers_["worker1"].reset();
  absl::Status status = session->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr(kWorker1));
  StartTask("worker", 1);
  status = session->Run({{"x", Tensor::Scalar<float>(5)}}, {"y"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out[0].flat<float>()[0], -5.0f);
}

TEST_P(DistributedTest, ClosingTheSessionDropsItsStateEverywhere) {
  std::string ps = absl::StrCat(kPs0, "/device:CPU:0");
  {
    auto session =
        Connect(absl::StrCat(FloatConst("a", 1, ps), Node("b", "Neg", {"a"}, "", kFloat)));
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {"b"}, {}, &out).ok());
    EXPECT_EQ(server("ps0").state().worker_sessions, 1);
  }
  for (int i = 0; i < 100 && server("ps0").state().worker_sessions != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server("worker0").state().master_sessions, 0);
  EXPECT_EQ(server("ps0").state().worker_sessions, 0);
}

// A late AbortStep for a step that already ended on a worker (cleaned up, or dropped as
// orphaned) creates no state there: before, it left a step behind until the idle timeout.
TEST_P(DistributedTest, ALateAbortOfAnEndedStepLeavesNothingBehind) {
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Get([] {
    EnvironmentOptions options;
    options.plugin_paths = {TESSERA_LOOPBACK_PLUGIN_DIR};
    return options;
  }());
  ASSERT_TRUE(env.ok()) << env.status();
  const TransportSpec* spec = (*env)->plugins().FindTransport(GetParam());
  ASSERT_NE(spec, nullptr);
  std::shared_ptr<PluginTransport> transport =
      PluginTransport::Create(*spec, (*env)->plugins().host_api());
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      transport->Connect(server("ps0").address(), {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  const Peer peer{"ps0", channel->get()};

  distributed::CleanupGraphRequest cleanup;
  cleanup.set_step_id(42);
  distributed::CleanupGraphResponse cleaned;
  ASSERT_TRUE(Call(peer, kWorkerCleanupGraph, cleanup, 5000, &cleaned).ok());
  distributed::AbortStepRequest abort;
  abort.set_step_id(42);
  abort.set_code(static_cast<int>(absl::StatusCode::kDeadlineExceeded));
  abort.set_message("late");
  distributed::AbortStepResponse aborted;
  ASSERT_TRUE(Call(peer, kWorkerAbortStep, abort, 5000, &aborted).ok());
  EXPECT_EQ(server("ps0").state().worker_steps, 0);
  // A step never seen is still created by an early abort (its RunGraph may come later).
  abort.set_step_id(43);
  ASSERT_TRUE(Call(peer, kWorkerAbortStep, abort, 5000, &aborted).ok());
  EXPECT_EQ(server("ps0").state().worker_steps, 1);
}

// The master's calls to its own task's worker never cross the transport: an empty step's only
// transport calls are the client's RunStep and worker 1's RunGraph, and a step whose pieces send
// nothing to other tasks needs no CleanupGraph (each piece's state goes when its run ends).
TEST_P(DistributedTest, TheMasterReachesItsOwnWorkerWithoutTheTransport) {
  std::string w0 = absl::StrCat(kWorker0, "/device:CPU:0");
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  auto session = Connect(absl::StrCat(Node("a", "NoOp", {}, w0, ""), Node("b", "NoOp", {}, w1, ""),
                                      FloatConst("x", 2, w1), Node("y", "Neg", {"x"}, w0, kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  constexpr int kSteps = 5;
  for (int i = 0; i < kSteps; ++i) {
    absl::Status status = session->Run({}, {}, {"a", "b"}, &out);
    ASSERT_TRUE(status.ok()) << status;
    // Both pieces' state went before they answered.
    EXPECT_EQ(server("worker0").state().worker_steps, 0);
    EXPECT_EQ(server("worker1").state().worker_steps, 0);
  }
  Server::State master = server("worker0").state();
  for (const auto& [method, count] : master.calls_received) {
    EXPECT_THAT(method, Not(HasSubstr("Worker/"))) << count << " calls through the transport";
  }
  EXPECT_EQ(master.calls_received["Master/RunStep"], kSteps);
  // GetStatus, CreateWorkerSession, RegisterGraph, then one RunGraph per step.
  EXPECT_EQ(master.in_process_calls, 3 + kSteps);
  Server::State worker1 = server("worker1").state();
  EXPECT_EQ(worker1.calls_received["Worker/RunGraph"], kSteps);
  EXPECT_EQ(worker1.calls_received.count("Worker/CleanupGraph"), 0u);
  EXPECT_EQ(worker1.calls_received.count("Worker/AbortStep"), 0u);
  EXPECT_EQ(worker1.in_process_calls, 0);

  // Worker 1 sends x to worker 0: its state stays for worker 0's pull until the CleanupGraph
  // that follows the step; worker 0's piece only receives and needs none.
  ASSERT_TRUE(session->Run({}, {"y"}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[0], -2.0f);
  for (int i = 0; i < 100 && server("worker1").state().worker_steps != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server("worker1").state().worker_steps, 0);
  EXPECT_EQ(server("worker1").state().calls_received["Worker/CleanupGraph"], 1);
  EXPECT_EQ(server("worker0").state().worker_steps, 0);
  EXPECT_EQ(server("worker0").state().calls_received.count("Worker/CleanupGraph"), 0u);
}

// A node on the master's own task fails: the client gets its code and message as they left the
// kernel (no transport context), worker 1's waiting piece is aborted through the transport, and
// the session keeps working.
TEST_P(DistributedTest, AnErrorOnTheMastersOwnTaskReachesTheClientUnchanged) {
  std::string w0 = absl::StrCat(kWorker0, "/device:CPU:0");
  std::string w1 = absl::StrCat(kWorker1, "/device:CPU:0");
  auto session = Connect(absl::StrCat(Placeholder("a", "DT_FLOAT"), Placeholder("b", "DT_FLOAT"),
                                      Node("product", "MatMul", {"a", "b"}, w0, kFloat),
                                      Node("y", "Neg", {"product"}, w1, kFloat)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor a = Tensor::FromVector<float>(TensorShape{2, 3}, {1, 2, 3, 4, 5, 6});
  absl::Status status = session->Run({{"a", a}, {"b", a}}, {"y"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]"));
  EXPECT_THAT(status.message(), HasSubstr("product"));
  EXPECT_THAT(status.message(), Not(HasSubstr("ancel")));
  EXPECT_THAT(status.message(), Not(HasSubstr("in this process")));
  // The abort is sent without waiting for its answer: it may land after the client's answer.
  auto aborts = [&] { return server("worker1").state().calls_received["Worker/AbortStep"]; };
  for (int i = 0; i < 100 && aborts() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(aborts(), 1);
  // The failed step leaves no state behind on either task.
  auto steps_left = [&] {
    return server("worker0").state().worker_steps + server("worker1").state().worker_steps;
  };
  for (int i = 0; i < 100 && steps_left() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(steps_left(), 0);
  Tensor c = Tensor::FromVector<float>(TensorShape{3, 1}, {1, 1, 1});
  status = session->Run({{"a", a}, {"b", c}}, {"y"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(-6, -15));
}

// An endless loop on the master's own task stops at the step's deadline: the master aborts its
// piece in process and names the task whose piece had not finished; the next step works.
TEST_P(DistributedTest, AnEndlessStepOnTheMastersOwnTaskStopsAtItsDeadline) {
  std::string w0 = absl::StrCat(kWorker0, "/device:CPU:0");
  auto session = Connect(absl::StrCat(
      IntConst("zero", 0, "", w0),
      Node("Enter", "Enter", {"zero"}, w0,
           absl::StrCat(kInt,
                        " attr { key: \"frame_name\" value { s: \"endless\" } } attr { key: "
                        "\"is_constant\" value { b: false } } attr { key: \"parallel_iterations\" "
                        "value { i: 10 } }")),
      Node("Merge", "Merge", {"Enter", "NextIteration"}, w0,
           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
      Node("true", "Const", {"^Merge"}, w0,
           "attr { key: \"dtype\" value { type: DT_BOOL } } attr { key: \"value\" value { tensor "
           "{ dtype: DT_BOOL tensor_shape { } bool_val: true } } }"),
      Node("LoopCond", "LoopCond", {"true"}, w0, ""),
      Node("Switch", "Switch", {"Merge", "LoopCond"}, w0, kInt),
      Node("Identity", "Identity", {"Switch:1"}, w0, kInt), IntConst("one", 1, "Identity", w0),
      Node("next", "AddV2", {"Identity", "one"}, w0, kInt),
      Node("NextIteration", "NextIteration", {"next"}, w0, kInt),
      Node("Exit", "Exit", {"Switch"}, w0, kInt), IntConst("done", 7, "", w0)));
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.timeout_ms = 1000;
  std::vector<Tensor> out;
  // The master's answer arrives before the client's own call deadline (1000 ms), else the
  // message would be the transport's "did not answer".
  absl::Status status = session->Run(options, {}, {"Exit"}, {}, &out, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("ran past its deadline"));
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("was stopped; its pieces on ", kWorker0,
                                                       " had not finished")));
  for (int i = 0; i < 100 && server("worker0").state().worker_steps != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server("worker0").state().worker_steps, 0);
  status = session->Run({}, {"done"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out[0].flat<int32_t>()[0], 7);
}

TEST_P(DistributedTest, RefusesBadServerOptions) {
  ServerOptions options;
  options.cluster = cluster_;
  options.job = "chief";
  options.plugin_paths = {TESSERA_LOOPBACK_PLUGIN_DIR};
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  options.job = "worker";
  options.task = 0;
  options.transport = "pigeon";
  server = Server::Create(options);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(server.status().message(), HasSubstr("no transport plugin provides 'pigeon'"));
  EXPECT_THAT(server.status().message(), HasSubstr("grpc"));
  // The address is taken by the running worker 0.
  options.transport = GetParam();
  server = Server::Create(options);
  EXPECT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(), HasSubstr("while starting /job:worker/replica:0/task:0"));
}

INSTANTIATE_TEST_SUITE_P(Transports, DistributedTest, ::testing::Values("grpc", "loopback"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tessera
