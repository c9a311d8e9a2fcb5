// Control-flow semantics through sessions: dead branches are not computed, Merge takes its first
// live input, ControlTrigger runs live, loops on an untaken branch finish, errors inside loops name
// their node, deadlines stop loops that never end, and fetching a dead tensor is an error.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Session> MustCreate(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  SessionOptions options;
  options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs) {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  return absl::StrCat(text, " ", attrs, " }\n");
}

constexpr char kFloat[] = "attr { key: \"T\" value { type: DT_FLOAT } }";
constexpr char kInt[] = "attr { key: \"T\" value { type: DT_INT32 } }";

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return Node(name, "Placeholder", {},
              absl::StrCat("attr { key: \"dtype\" value { type: ", dtype, " } }"));
}

std::string IntConst(const std::string& name, int value, const std::string& control) {
  return Node(
      name, "Const",
      control.empty() ? std::vector<std::string>{} : std::vector<std::string>{"^" + control},
      absl::StrCat("attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
                   "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { } "
                   "int_val: ",
                   value, " } } }"));
}

std::string Enter(const std::string& name, const std::string& input, const std::string& type,
                  bool is_constant, int parallel_iterations = 10,
                  const std::string& frame = "while/while_context") {
  return Node(
      name, "Enter", {input},
      absl::StrCat(type, " attr { key: \"frame_name\" value { s: \"", frame,
                   "\" } } attr { key: \"is_constant\" value { b: ", is_constant ? "true" : "false",
                   " } } attr { key: \"parallel_iterations\" value { i: ", parallel_iterations,
                   " } }"));
}

// i = 0; while i < n: i = body(i); `body` builds from "while/Identity" and names its result
// "while/next".
std::string CountingLoop(const std::string& body, int parallel_iterations = 10) {
  return absl::StrCat(Placeholder("n", "DT_INT32"), IntConst("zero", 0, ""),
                      Enter("while/Enter", "zero", kInt, false, parallel_iterations),
                      Enter("while/Enter_1", "n", kInt, true, parallel_iterations),
                      Node("while/Merge", "Merge", {"while/Enter", "while/NextIteration"},
                           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
                      Node("while/Less", "Less", {"while/Merge", "while/Enter_1"}, kInt),
                      Node("while/LoopCond", "LoopCond", {"while/Less"}, ""),
                      Node("while/Switch", "Switch", {"while/Merge", "while/LoopCond"}, kInt),
                      Node("while/Identity", "Identity", {"while/Switch:1"}, kInt), body,
                      Node("while/NextIteration", "NextIteration", {"while/next"}, kInt),
                      Node("while/Exit", "Exit", {"while/Switch"}, kInt));
}

std::string AddOne() {
  return absl::StrCat(IntConst("while/one", 1, "while/Identity"),
                      Node("while/next", "AddV2", {"while/Identity", "while/one"}, kInt));
}

int32_t RunLoop(Session* session, int n, int inter_op_threads_hint = 0) {
  std::vector<Tensor> out;
  absl::Status status = session->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {"while/Exit"}, {}, &out);
  EXPECT_TRUE(status.ok()) << status;
  return status.ok() ? *out[0].data<int32_t>() : -1;
}

TEST(ControlFlowSessionTest, CountingLoopCountsAndRunsAgain) {
  auto session = MustCreate(CountingLoop(AddOne()));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunLoop(session.get(), 10), 10);
  EXPECT_EQ(RunLoop(session.get(), 0), 0);  // the body never runs
  EXPECT_EQ(RunLoop(session.get(), 1000), 1000);
}

TEST(ControlFlowSessionTest, OneParallelIterationStillCounts) {
  auto session = MustCreate(CountingLoop(AddOne(), 1));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunLoop(session.get(), 50), 50);
}

// x -> Switch(p); the false side fails if it ever runs; Merge joins both sides.
std::string GuardedFailure() {
  return absl::StrCat(Placeholder("x", "DT_FLOAT"), Placeholder("p", "DT_BOOL"),
                      Node("s", "Switch", {"x", "p"}, kFloat),
                      Node("bad", "TestFail", {"s:0"}, kFloat),
                      Node("good", "Identity", {"s:1"}, kFloat),
                      Node("m", "Merge", {"bad", "good"},
                           absl::StrCat(kFloat, " attr { key: \"N\" value { i: 2 } }")));
}

TEST(ControlFlowSessionTest, DeadBranchIsNotComputedAndMergeTakesTheLiveInput) {
  auto session = MustCreate(GuardedFailure());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"x", Tensor::Scalar<float>(2.5f)}, {"p", Tensor::Scalar<bool>(true)}},
                   {"m", "m:1"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*out[0].data<float>(), 2.5f);
  EXPECT_EQ(*out[1].data<int32_t>(), 1);
  // Taking the other side runs the failing node, and the error names it.
  status = session->Run({{"x", Tensor::Scalar<float>(2.5f)}, {"p", Tensor::Scalar<bool>(false)}},
                        {"m"}, {}, &out);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("while running node 'bad' (TestFail)"));
}

TEST(ControlFlowSessionTest, FetchingADeadTensorIsAnError) {
  auto session = MustCreate(GuardedFailure());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status = session->Run(
      {{"x", Tensor::Scalar<float>(1)}, {"p", Tensor::Scalar<bool>(true)}}, {"s:0"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("fetch 's:0' is dead"));
}

TEST(ControlFlowSessionTest, PredicateMustBeABoolScalar) {
  auto session = MustCreate(GuardedFailure());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"x", Tensor::Scalar<float>(1)}, {"p", Tensor::Vector<bool>({true, false})}},
                   {"m"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("the predicate must be a bool scalar"));
}

TEST(ControlFlowSessionTest, ControlTriggerRunsEvenWhenItsInputsAreDead) {
  std::string text = absl::StrCat(
      Placeholder("x", "DT_FLOAT"), Placeholder("p", "DT_BOOL"),
      Node("s", "Switch", {"x", "p"}, kFloat), Node("dead_side", "Identity", {"s:0"}, kFloat),
      Node("trigger", "ControlTrigger", {"^dead_side"}, ""), IntConst("after", 7, "trigger"),
      IntConst("plain", 8, "dead_side"));
  auto session = MustCreate(text);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;

  absl::Status status = session->Run(
      {{"x", Tensor::Scalar<float>(1)}, {"p", Tensor::Scalar<bool>(true)}}, {"after"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*out[0].data<int32_t>(), 7);
  // Without the trigger, a node waiting on the dead side is dead too.
  status = session->Run({{"x", Tensor::Scalar<float>(1)}, {"p", Tensor::Scalar<bool>(true)}},
                        {"plain"}, {}, &out);
  EXPECT_THAT(std::string(status.message()), HasSubstr("fetch 'plain' is dead"));
}

TEST(ControlFlowSessionTest, LoopOnTheUntakenBranchOfACondFinishes) {
  // cond(p, lambda: n, lambda: while_loop(...)), with p true: the loop's Enters are dead.
  std::string loop = CountingLoop(AddOne());
  std::string text = absl::StrCat(Placeholder("p", "DT_BOOL"),
                                  // The loop reads n through the false side of a Switch.
                                  loop, Node("cond/Switch", "Switch", {"n", "p"}, kInt),
                                  Node("cond/Merge", "Merge", {"while/Exit", "cond/Switch:1"},
                                       absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")));
  // Rewire the loop's bound and start to come from the false side.
  auto replace = [&text](const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("name: \"while/Enter_1\" op: \"Enter\" input: \"n\"",
          "name: \"while/Enter_1\" op: \"Enter\" input: \"cond/Switch\"");
  replace("name: \"while/Enter\" op: \"Enter\" input: \"zero\"",
          "name: \"while/Enter\" op: \"Enter\" input: \"cond/zero\"");
  text += Node("cond/zero", "Identity", {"cond/Switch"}, kInt);
  auto session = MustCreate(text);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"n", Tensor::Scalar<int32_t>(5)}, {"p", Tensor::Scalar<bool>(true)}},
                   {"cond/Merge"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*out[0].data<int32_t>(), 5);
  // With p false the loop runs: it counts from n (its start) while i < n: no iteration.
  status = session->Run({{"n", Tensor::Scalar<int32_t>(5)}, {"p", Tensor::Scalar<bool>(false)}},
                        {"cond/Merge"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*out[0].data<int32_t>(), 5);
}

TEST(ControlFlowSessionTest, ErrorInsideAnIterationAbortsTheStepNamingTheNode) {
  // From the fourth iteration on, the body takes a side with a failing node.
  std::string body = absl::StrCat(
      IntConst("while/three", 3, "while/Identity"),
      Node("while/small", "Less", {"while/Identity", "while/three"}, kInt),
      Node("while/s", "Switch", {"while/Identity", "while/small"}, kInt),
      Node("while/ok", "Identity", {"while/s:1"}, kInt),
      Node("while/f", "Cast", {"while/s:0"},
           "attr { key: \"SrcT\" value { type: DT_INT32 } } attr { key: \"DstT\" value { type: "
           "DT_FLOAT } }"),
      Node("while/fail", "TestFail", {"while/f"}, kFloat),
      Node("while/back", "Cast", {"while/fail"},
           "attr { key: \"SrcT\" value { type: DT_FLOAT } } attr { key: \"DstT\" value { type: "
           "DT_INT32 } }"),
      Node("while/m", "Merge", {"while/back", "while/ok"},
           absl::StrCat(kInt, " attr { key: \"N\" value { i: 2 } }")),
      IntConst("while/one", 1, "while/Identity"),
      Node("while/next", "AddV2", {"while/m", "while/one"}, kInt));
  auto session = MustCreate(CountingLoop(body));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunLoop(session.get(), 3), 3);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"n", Tensor::Scalar<int32_t>(10)}}, {"while/Exit"}, {}, &out);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("while running node 'while/fail' (TestFail)"));
  EXPECT_EQ(RunLoop(session.get(), 2), 2);  // the session still works
}

TEST(ControlFlowSessionTest, DeadlineStopsALoopThatNeverEnds) {
  // The body adds zero: i < n stays true forever.
  std::string body =
      absl::StrCat(IntConst("while/zero", 0, "while/Identity"),
                   Node("while/next", "AddV2", {"while/Identity", "while/zero"}, kInt));
  auto session = MustCreate(CountingLoop(body));
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.timeout_ms = 200;
  std::vector<Tensor> out;
  absl::Status status =
      session->Run(options, {{"n", Tensor::Scalar<int32_t>(1)}}, {"while/Exit"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("timeout of 200 ms"));
}

}  // namespace
}  // namespace tessera
