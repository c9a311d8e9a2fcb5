// Session and executor behaviour through real plugins: the CPU plugin from the build tree and the
// testkit plugin (async, failing and slow kernels).
#include "host/session/session.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

SessionOptions TestkitOptions() {
  SessionOptions options;
  options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
  return options;
}

std::unique_ptr<Session> MustCreate(const std::string& text,
                                    const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, Parse(text));
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

const char kPlaceholder[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

std::string FloatConst(const std::string& name, float value) {
  return absl::StrCat(R"pb(node { name: ")pb", name, R"pb(" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: )pb", value,
                      " } } } }\n");
}

std::string Binary(const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b) {
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" input: \"", a,
                      "\" input: \"", b, "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
}

std::string Unary(const std::string& name, const std::string& op, const std::string& a) {
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" input: \"", a,
                      "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
}

TEST(SessionTest, RunsADiamond) {
  // y = (x + 1) * (x - 1)
  std::string graph = absl::StrCat(kPlaceholder, FloatConst("one", 1),
                                   Binary("a", "AddV2", "x", "one"), Binary("b", "Sub", "x", "one"),
                                   Binary("y", "Mul", "a", "b"));
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({2, 3, 4})}}, {"y"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape{3});
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(3, 8, 15));
  // The signature is cached: a second run with other values works the same.
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({5})}}, {"y:0"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(24));
}

TEST(SessionTest, RunsAWideFanOutAndFanIn) {
  // x -> 1000 Neg nodes -> Pack -> Sum: the sum of -x over 1000 copies.
  constexpr int kWidth = 1000;
  std::string graph = kPlaceholder;
  std::string pack = "node { name: \"pack\" op: \"Pack\" ";
  for (int i = 0; i < kWidth; ++i) {
    graph += Unary(absl::StrCat("neg", i), "Neg", "x");
    absl::StrAppend(&pack, "input: \"neg", i, "\" ");
  }
  absl::StrAppend(&pack, "attr { key: \"N\" value { i: ", kWidth,
                  " } } attr { key: \"T\" value { type: DT_FLOAT } } }\n");
  graph += pack;
  graph += R"pb(
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "sum" op: "Sum" input: "pack" input: "axis"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
  )pb";
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1, 2})}}, {"sum"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(-1000, -2000));
}

TEST(SessionTest, RunsALongChainInline) {
  constexpr int kLength = 2000;
  std::string graph = absl::StrCat(kPlaceholder, FloatConst("one", 1));
  std::string prev = "x";
  for (int i = 0; i < kLength; ++i) {
    std::string name = absl::StrCat("add", i);
    graph += Binary(name, "AddV2", prev, "one");
    prev = name;
  }
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<float>(0.5f)}}, {prev}, {}, &out).ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), kLength + 0.5f);
}

TEST(SessionTest, FeedsAreNotModifiedInPlace) {
  std::string graph = absl::StrCat(kPlaceholder, FloatConst("one", 1),
                                   Binary("y", "AddV2", "x", "one"));
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  Tensor x = Tensor::Vector<float>({1, 2});
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", x}}, {"y"}, {}, &out).ok());
  EXPECT_THAT(x.flat<float>(), ::testing::ElementsAre(1, 2));
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(2, 3));
}

TEST(SessionTest, FetchedConstantsAreCopiesTheClientMayWrite) {
  std::string graph = absl::StrCat(FloatConst("c", 7), Unary("id", "Identity", "c"),
                                   Binary("sum", "AddV2", "c", "id"));
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {"c", "id", "sum"}, {}, &out).ok());
    EXPECT_EQ(*out[0].data<float>(), 7);
    EXPECT_EQ(*out[1].data<float>(), 7);
    EXPECT_EQ(*out[2].data<float>(), 14);
    // Writing into fetched values must not change what the next run computes.
    *out[0].data<float>() = -1;
    *out[1].data<float>() = -1;
  }
}

TEST(SessionTest, ConcurrentRunsOnOneSessionAreIndependent) {
  // y = (x + 1) * (x - 1), with 4 threads running both cached and new signatures at once.
  std::string graph = absl::StrCat(kPlaceholder, FloatConst("one", 1),
                                   Binary("a", "AddV2", "x", "one"), Binary("b", "Sub", "x", "one"),
                                   Binary("y", "Mul", "a", "b"));
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        float x = static_cast<float>(t * 1000 + i);
        std::vector<Tensor> out;
        std::vector<std::string> fetches = (i % 2 == 0) ? std::vector<std::string>{"y"}
                                                        : std::vector<std::string>{"y", "a"};
        absl::Status s = session->Run({{"x", Tensor::Vector<float>({x, x})}}, fetches, {}, &out);
        if (!s.ok() || out[0].data<float>()[1] != (x + 1) * (x - 1)) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(SessionTest, AsyncKernelsCompleteFromOtherThreads) {
  std::string graph = kPlaceholder;
  std::string prev = "x";
  for (int i = 0; i < 20; ++i) {
    std::string name = absl::StrCat("async", i);
    graph += Unary(name, "TestAsyncIdentity", prev);
    prev = name;
  }
  graph += Unary("y", "Neg", prev);
  auto session = MustCreate(graph, TestkitOptions());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1, -2})}}, {"y"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(-1, 2));
}

TEST(SessionTest, FirstErrorAbortsTheStepAndNamesTheNode) {
  std::string graph = absl::StrCat(kPlaceholder, Unary("bad", "TestFail", "x"),
                                   Unary("after", "Neg", "bad"), Unary("other", "Neg", "x"),
                                   Binary("y", "AddV2", "after", "other"));
  auto session = MustCreate(graph, TestkitOptions());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::Vector<float>({1})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("while running node 'bad' (TestFail)"));
  EXPECT_THAT(s.message(), HasSubstr("fails on purpose"));
  // The session stays usable for signatures that avoid the failing node.
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1})}}, {"other"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(-1));
}

TEST(SessionTest, DeadlineCancelsASlowStep) {
  std::string graph = absl::StrCat(
      kPlaceholder,
      "node { name: \"slow\" op: \"TestAsyncIdentity\" input: \"x\" "
      "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"delay_ms\" value { i: 300 } } }\n",
      Unary("y", "Neg", "slow"));
  auto session = MustCreate(graph, TestkitOptions());
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.timeout_ms = 20;
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, {{"x", Tensor::Vector<float>({1})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("timeout of 20 ms"));
}

TEST(SessionTest, TargetsRunWithoutFetches) {
  std::string graph = absl::StrCat(kPlaceholder, Unary("y", "Neg", "x"),
                                   "node { name: \"done\" op: \"NoOp\" input: \"^y\" }\n");
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Vector<float>({1})}}, {}, {"done"}, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(SessionTest, UnfedPlaceholderSaysToFeedIt) {
  std::string graph = absl::StrCat(kPlaceholder, Unary("y", "Neg", "x"));
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must feed a value for placeholder tensor 'x'"));
}

TEST(SessionTest, RejectsFeedsOfTheWrongTypeOrShape) {
  std::string graph = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb";
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::Vector<int32_t>({1, 2})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("feed 'x' has type int32, but the graph expects float"));
  s = session->Run({{"x", Tensor::Vector<float>({1, 2, 3})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cannot feed a value of shape [3] for tensor 'x'"));
}

TEST(SessionTest, RejectsBadSignatures) {
  std::string graph = absl::StrCat(kPlaceholder, Unary("y", "Neg", "x"),
                                   "node { name: \"done\" op: \"NoOp\" }\n");
  auto session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor one = Tensor::Vector<float>({1});
  struct Case {
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
    absl::StatusCode code;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, {}, {}, absl::StatusCode::kInvalidArgument, "must specify at least one"},
      {{{"x", one}, {"x:0", one}}, {"y"}, {}, absl::StatusCode::kInvalidArgument,
       "'x:0' is fed more than once"},
      {{{"x", one}}, {"x"}, {}, absl::StatusCode::kInvalidArgument, "both fed and fetched"},
      {{{"x", one}}, {"nope"}, {}, absl::StatusCode::kNotFound, "node 'nope' is not in the graph"},
      {{{"x", one}}, {"y:3"}, {}, absl::StatusCode::kInvalidArgument, "has 1 output(s)"},
      {{{"x", one}}, {"done"}, {}, absl::StatusCode::kInvalidArgument,
       "use it as a target instead"},
      {{{"x", one}}, {"y"}, {"ghost"}, absl::StatusCode::kNotFound, "ghost"},
  };
  for (const Case& c : cases) {
    absl::Status s = session->Run(c.feeds, c.fetches, c.targets, &out);
    EXPECT_EQ(s.code(), c.code) << s;
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
}

TEST(SessionTest, UnknownTargetsAreRejected) {
  SessionOptions options;
  options.target = "carrier-pigeon";
  auto s = Session::Create(options, Parse(kPlaceholder));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("unknown session target 'carrier-pigeon'"));
  // A scheme names a transport plugin; none provides this one.
  options.target = "carrier-pigeon://x:1";
  s = Session::Create(options, Parse(kPlaceholder));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr("no transport plugin provides 'carrier-pigeon'"));
  options.target = "grpc://no-port";
  s = Session::Create(options, Parse(kPlaceholder));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("is not <transport>://host:port"));
}

TEST(SessionTest, ZeroDevicesOfATypeNoPluginProvidesIsNoneAndMoreIsAnError) {
  SessionOptions options;
  options.device_count = {{"NOSUCHDEVICE", 0}};
  auto s = Session::Create(options, Parse(kPlaceholder));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT((*s)->ListDevices(), ::testing::Each(HasSubstr("device:CPU:")));
  options.device_count = {{"NOSUCHDEVICE", 1}};
  s = Session::Create(options, Parse(kPlaceholder));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("device_count names device type 'NOSUCHDEVICE', which no loaded plugin "
                        "provides"));
  options.device_count = {{"NOSUCHDEVICE", -1}};
  s = Session::Create(options, Parse(kPlaceholder));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SessionTest, ListsTheCpuDevice) {
  auto session = MustCreate(kPlaceholder);
  ASSERT_NE(session, nullptr);
  EXPECT_THAT(session->ListDevices(),
              ::testing::Contains("/job:localhost/replica:0/task:0/device:CPU:0"));
}

// ---- Plugin policy from SessionOptions ---------------------------------------------------

// Options whose plugin policy reads no file unless the test names one.
SessionOptions PolicyOptions() {
  SessionOptions options;
  options.plugin_policy.config_env = "";
  options.plugin_policy.system_config_file = "";
  return options;
}

void ExpectCreateFails(const SessionOptions& options, absl::StatusCode code,
                       const std::string& substring) {
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(options, Parse(kPlaceholder));
  ASSERT_FALSE(s.ok()) << substring;
  EXPECT_EQ(s.status().code(), code) << s.status();
  EXPECT_THAT(s.status().message(), HasSubstr(substring));
}

TEST(SessionPluginPolicyTest, AllowlistWithoutTheCpuPluginLeavesNoDeviceAndSaysWhy) {
  SessionOptions options = PolicyOptions();
  options.plugin_policy.allowlist = std::set<std::string>{"grpc"};
  ExpectCreateFails(options, absl::StatusCode::kFailedPrecondition,
                    "plugin 'cpu' 0.1.0 (libtessera_cpu.so) is not in the allowlist (allowed: "
                    "grpc; from SessionOptions::plugin_policy)");
}

TEST(SessionPluginPolicyTest, RequireSha256RefusesTheUnhashedCpuPlugin) {
  SessionOptions options = PolicyOptions();
  options.plugin_policy.require_sha256 = true;
  ExpectCreateFails(options, absl::StatusCode::kFailedPrecondition,
                    "has no sha256 and this host requires one (from "
                    "SessionOptions::plugin_policy)");
}

TEST(SessionPluginPolicyTest, ConfigFileAppliesAndOptionsOverrideIt) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("tessera_session_policy_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "plugins.json").string();
  std::ofstream(file) << R"({"allow": ["grpc"]})";

  SessionOptions options = PolicyOptions();
  options.plugin_policy.config_file = file;
  ExpectCreateFails(options, absl::StatusCode::kFailedPrecondition,
                    "is not in the allowlist (allowed: grpc; from config file " + file + ")");
  // The options' allowlist replaces the file's.
  options.plugin_policy.allowlist = std::set<std::string>{"cpu"};
  EXPECT_NE(MustCreate(kPlaceholder, options), nullptr);

  std::ofstream(file) << R"({"allow": ["cpu"], "require_sha": true})";
  options = PolicyOptions();
  options.plugin_policy.system_config_file = file;
  ExpectCreateFails(options, absl::StatusCode::kInvalidArgument,
                    "plugin config file " + file + ": unknown key 'require_sha'");
  fs::remove_all(dir);

  options = PolicyOptions();
  options.plugin_policy.config_file = file;
  ExpectCreateFails(options, absl::StatusCode::kNotFound,
                    "plugin config file " + file + " (given explicitly) does not exist");
}

TEST(SessionExtendTest, NewNodesRunAndVariablesKeepTheirValues) {
  auto session = MustCreate(R"pb(
    node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } }
  )pb" + FloatConst("one", 1) + R"pb(
    node { name: "init" op: "Assign" input: "v" input: "one"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE(session->Extend(Parse(FloatConst("two", 2) + R"pb(
    node { name: "inc" op: "AssignAdd" input: "v" input: "two"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb")).ok());
  ASSERT_TRUE(session->Run({}, {"inc"}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[0], 3.0f);  // the value assigned before the extension, plus 2
  ASSERT_TRUE(session->Run({}, {"v"}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[0], 3.0f);
}

TEST(SessionExtendTest, RefusesReservedTakenAndInvalidNodes) {
  auto session = MustCreate(std::string(kPlaceholder) + Unary("y", "Relu", "x"));
  absl::Status status = session->Extend(Parse(FloatConst("_mine", 1)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("'_mine'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("reserved for the runtime"));
  status = session->Extend(Parse(Unary("y", "Relu", "x")));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("while extending the session's graph"));
  status = session->Extend(Parse(Unary("z", "Relu", "missing")));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("missing"));
  // The failed extensions changed nothing: the graph still runs as before.
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<float>(-2)}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<float>()[0], 0.0f);
}

}  // namespace
}  // namespace tessera
