// Variables through a real session and the CPU plugin: ref variables (VariableV2, Assign,
// AssignAdd...) and resource variables (VarHandleOp, ReadVariableOp...), their lifetime across
// Run calls, TensorFlow's errors, copy-on-write reads, and the optimizers' updates against
// reference arithmetic.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/client/ops.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<Session> MakeSession(const Scope& scope) {
  absl::StatusOr<tensorflow::GraphDef> def = scope.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

absl::StatusOr<std::vector<float>> Fetch(Session* session, const std::string& name,
                                         const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  absl::Status status = session->Run({}, {name}, targets, &out);
  if (!status.ok()) return status;
  return Values(out[0]);
}

absl::Status RunTargets(Session* session, const std::vector<std::string>& targets) {
  std::vector<Tensor> out;
  return session->Run({}, {}, targets, &out);
}

TEST(RefVariableTest, AssignThenReadLivesAcrossRuns) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {2}, DT_FLOAT);
  auto init = ops::Assign(root.WithOpName("init"), w, ops::Const(root, {1.0f, 2.0f}));
  auto read = ops::Identity(root.WithOpName("read"), w);
  auto inc = ops::AssignAdd(root.WithOpName("inc"), w, ops::Const(root, {10.0f, 20.0f}));
  auto initialized = ops::IsVariableInitialized(root.WithOpName("is_init"), w);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);

  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_FALSE(*out[0].data<bool>());
  absl::StatusOr<std::vector<float>> uninitialized = Fetch(session.get(), "read");
  EXPECT_EQ(uninitialized.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(uninitialized.status().message()),
              HasSubstr("attempting to use uninitialized value w"));

  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  EXPECT_THAT(*Fetch(session.get(), "read"), ElementsAre(1, 2));
  EXPECT_THAT(*Fetch(session.get(), "w"), ElementsAre(1, 2));  // fetching the ref reads it
  EXPECT_THAT(*Fetch(session.get(), "inc"), ElementsAre(11, 22));
  EXPECT_THAT(*Fetch(session.get(), "inc"), ElementsAre(21, 42));
  EXPECT_THAT(*Fetch(session.get(), "read"), ElementsAre(21, 42));
  ASSERT_TRUE(session->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_TRUE(*out[0].data<bool>());
}

TEST(RefVariableTest, AssignChecksShapesUnlessValidateShapeIsFalse) {
  Scope root = Scope::NewRootScope();
  // Shapes the graph cannot know (placeholders) are checked when the step runs.
  auto w = ops::Variable(root.WithOpName("w"), {-1}, DT_FLOAT);
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, {1.0f, 2.0f}));
  ops::Assign(root.WithOpName("bad"), w, value);
  ops::Assign(root.WithOpName("reshape"), w, ops::Const(root, {4.0f, 5.0f, 6.0f}),
              ops::VariableAttrs().ValidateShape(false));
  ops::AssignSub(root.WithOpName("sub_bad"), w, value);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  std::vector<Tensor> out;
  const Tensor three = Tensor::FromVector<float>(TensorShape{3}, {1, 2, 3});
  const Tensor one = Tensor::FromVector<float>(TensorShape{1}, {1});
  absl::Status bad = session->Run({{"value", three}}, {}, {"bad"}, &out);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()),
              HasSubstr("Assign requires shapes of both tensors to match. lhs shape= [2] rhs "
                        "shape= [3]"));
  EXPECT_THAT(*Fetch(session.get(), "reshape"), ElementsAre(4, 5, 6));
  absl::Status sub_bad = session->Run({{"value", one}}, {}, {"sub_bad"}, &out);
  EXPECT_EQ(sub_bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sub_bad.message()),
              HasSubstr("Cannot update variable with shape [3] using a Tensor with shape [1]"));
}

TEST(RefVariableTest, SessionsDoNotShareVariables) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, 3.0f));
  std::unique_ptr<Session> first = MakeSession(root);
  std::unique_ptr<Session> second = MakeSession(root);
  ASSERT_TRUE(RunTargets(first.get(), {"init"}).ok());
  EXPECT_THAT(*Fetch(first.get(), "w"), ElementsAre(3));
  EXPECT_EQ(Fetch(second.get(), "w").status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ResourceVariableTest, AssignReadAndUpdate) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {2},
                            ops::VariableAttrs().SharedName("weights"));
  ops::AssignVariableOp(root.WithOpName("init"), v, ops::Const(root, {1.0f, -1.0f}));
  ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  ops::AssignAddVariableOp(root.WithOpName("add"), v, ops::Const(root, {0.5f, 0.5f}));
  ops::AssignSubVariableOp(root.WithOpName("sub"), v, ops::Const(root, {2.0f, 2.0f}));
  ops::VarIsInitializedOp(root.WithOpName("is_init"), v);
  ops::ReadVariableOp(root.WithOpName("read_int"), v, DT_INT32);
  ops::AssignVariableOp(root.WithOpName("assign_int"), v, ops::Const(root, {1, 2}));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);

  absl::StatusOr<std::vector<float>> before = Fetch(session.get(), "read");
  EXPECT_EQ(before.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(before.status().message()),
              HasSubstr("could not find variable weights: it has not been initialized"));
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_FALSE(*out[0].data<bool>());

  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  ASSERT_TRUE(RunTargets(session.get(), {"add"}).ok());
  ASSERT_TRUE(RunTargets(session.get(), {"sub"}).ok());
  EXPECT_THAT(*Fetch(session.get(), "read"), ElementsAre(-0.5f, -2.5f));
  ASSERT_TRUE(session->Run({}, {"is_init"}, {}, &out).ok());
  EXPECT_TRUE(*out[0].data<bool>());

  absl::Status wrong_read = Fetch(session.get(), "read_int").status();
  EXPECT_EQ(wrong_read.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_read.message()),
              HasSubstr("Trying to read variable with wrong dtype. Expected float got int32"));
  absl::Status wrong_assign = RunTargets(session.get(), {"assign_int"});
  EXPECT_EQ(wrong_assign.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_assign.message()),
              HasSubstr("Trying to assign variable with wrong dtype. Expected float got int32"));
}

// A value read before an update in the same step keeps the value it read (copy on write); a ref
// variable's alias would see the update.
TEST(ResourceVariableTest, ReadBeforeUpdateKeepsItsValue) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {3});
  ops::AssignVariableOp(root.WithOpName("init"), v, ops::Const(root, {1.0f, 2.0f, 3.0f}));
  auto read = ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  ops::AssignAddVariableOp(root.WithOpName("add").WithControlDependencies(read), v,
                           ops::Const(root, {1.0f, 1.0f, 1.0f}));
  ops::ReadVariableOp(root.WithOpName("read_after"), v, DT_FLOAT);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"read"}, {"add"}, &out).ok());
  EXPECT_THAT(Values(out[0]), ElementsAre(1, 2, 3));
  EXPECT_THAT(*Fetch(session.get(), "read_after"), ElementsAre(2, 3, 4));
}

TEST(ResourceVariableTest, HandlesCannotBeFedOrFetched) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {});
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status fetch = session->Run({}, {"v"}, {}, &out);
  EXPECT_EQ(fetch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(fetch.message()), HasSubstr("cannot fetch 'v': it is a resource"));
  absl::Status feed = session->Run({{"v", Tensor::Scalar<float>(1)}}, {}, {"v"}, &out);
  EXPECT_EQ(feed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(feed.message()), HasSubstr("cannot feed 'v': it is a resource"));
}

// One optimizer step per form against the same arithmetic done here in double.
class OptimizerTest : public ::testing::TestWithParam<bool> {};

TEST_P(OptimizerTest, EveryOptimizerMatchesItsFormula) {
  const bool resource = GetParam();
  const std::vector<float> var0 = {1.0f, -2.0f, 0.5f};
  const std::vector<float> grad = {0.1f, -0.3f, 0.7f};
  const std::vector<float> slot0 = {0.2f, 0.4f, 0.1f};
  Scope root = Scope::NewRootScope();
  std::vector<std::string> inits;
  auto variable = [&](const std::string& name, const std::vector<float>& value) -> Output {
    const TensorShape shape{static_cast<int64_t>(value.size())};
    Output init_value = ops::Const(root, Tensor::FromVector<float>(shape, value));
    if (resource) {
      auto h = ops::VarHandleOp(root.WithOpName(name), DT_FLOAT, {3});
      ops::AssignVariableOp(root.WithOpName(name + "/init"), h, init_value);
      ops::ReadVariableOp(root.WithOpName(name + "/read"), h, DT_FLOAT);
      inits.push_back(name + "/init");
      return h;
    }
    auto w = ops::Variable(root.WithOpName(name), {3}, DT_FLOAT);
    ops::Assign(root.WithOpName(name + "/init"), w, init_value);
    ops::Identity(root.WithOpName(name + "/read"), w);
    inits.push_back(name + "/init");
    return w;
  };
  Output g = ops::Const(root, Tensor::FromVector<float>(TensorShape{3}, grad));
  const float lr = 0.1f, momentum = 0.9f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-7f, rho = 0.9f;
  const float beta1_power = 0.81f, beta2_power = 0.998001f;
  ops::ApplyAttrs nesterov = ops::ApplyAttrs().UseNesterov(true).UseLocking(true);

  Output gd = variable("gd", var0);
  Output mom_var = variable("mom", var0), mom_acc = variable("mom_acc", slot0);
  Output nes_var = variable("nes", var0), nes_acc = variable("nes_acc", slot0);
  Output adam_var = variable("adam", var0), adam_m = variable("adam_m", slot0),
         adam_v = variable("adam_v", slot0);
  Output rms_var = variable("rms", var0), rms_ms = variable("rms_ms", slot0),
         rms_mom = variable("rms_mom", slot0);
  Scope s = root;
  if (resource) {
    ops::ResourceApplyGradientDescent(s.WithOpName("step_gd"), gd, lr, g);
    ops::ResourceApplyMomentum(s.WithOpName("step_mom"), mom_var, mom_acc, lr, g, momentum);
    ops::ResourceApplyMomentum(s.WithOpName("step_nes"), nes_var, nes_acc, lr, g, momentum,
                               nesterov);
    ops::ResourceApplyAdam(s.WithOpName("step_adam"), adam_var, adam_m, adam_v, beta1_power,
                           beta2_power, lr, beta1, beta2, eps, g);
    ops::ResourceApplyRMSProp(s.WithOpName("step_rms"), rms_var, rms_ms, rms_mom, lr, rho, momentum,
                              eps, g);
  } else {
    ops::ApplyGradientDescent(s.WithOpName("step_gd"), gd, lr, g);
    ops::ApplyMomentum(s.WithOpName("step_mom"), mom_var, mom_acc, lr, g, momentum);
    ops::ApplyMomentum(s.WithOpName("step_nes"), nes_var, nes_acc, lr, g, momentum, nesterov);
    ops::ApplyAdam(s.WithOpName("step_adam"), adam_var, adam_m, adam_v, beta1_power, beta2_power,
                   lr, beta1, beta2, eps, g);
    ops::ApplyRMSProp(s.WithOpName("step_rms"), rms_var, rms_ms, rms_mom, lr, rho, momentum, eps,
                      g);
  }
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), inits).ok());
  ASSERT_TRUE(
      RunTargets(session.get(), {"step_gd", "step_mom", "step_nes", "step_adam", "step_rms"}).ok());

  std::vector<double> gd_ref, mom_ref, mom_acc_ref, nes_ref, adam_ref, adam_m_ref, adam_v_ref,
      rms_ref, rms_ms_ref, rms_mom_ref;
  for (int i = 0; i < 3; ++i) {
    const double x = var0[i], gi = grad[i], s0 = slot0[i];
    gd_ref.push_back(x - lr * gi);
    const double acc = s0 * momentum + gi;
    mom_acc_ref.push_back(acc);
    mom_ref.push_back(x - lr * acc);
    nes_ref.push_back(x - (gi * lr + acc * momentum * lr));
    const double m = s0 + (gi - s0) * (1 - beta1);
    const double v = s0 + (gi * gi - s0) * (1 - beta2);
    const double lr_t = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
    adam_m_ref.push_back(m);
    adam_v_ref.push_back(v);
    adam_ref.push_back(x - m * lr_t / (std::sqrt(v) + eps));
    const double ms = s0 + (gi * gi - s0) * (1 - rho);
    const double mo = s0 * momentum + lr * gi / std::sqrt(ms + eps);
    rms_ms_ref.push_back(ms);
    rms_mom_ref.push_back(mo);
    rms_ref.push_back(x - mo);
  }
  auto expect_near = [&](const std::string& name, const std::vector<double>& expected) {
    absl::StatusOr<std::vector<float>> got = Fetch(session.get(), name + "/read");
    ASSERT_TRUE(got.ok()) << got.status();
    for (int i = 0; i < 3; ++i) EXPECT_NEAR((*got)[i], expected[i], 1e-5) << name << " " << i;
  };
  expect_near("gd", gd_ref);
  expect_near("mom", mom_ref);
  expect_near("mom_acc", mom_acc_ref);
  expect_near("nes", nes_ref);
  expect_near("adam", adam_ref);
  expect_near("adam_m", adam_m_ref);
  expect_near("adam_v", adam_v_ref);
  expect_near("rms", rms_ref);
  expect_near("rms_ms", rms_ms_ref);
  expect_near("rms_mom", rms_mom_ref);
}

INSTANTIATE_TEST_SUITE_P(RefAndResource, OptimizerTest, ::testing::Bool());

TEST(OptimizerTest, RejectsMismatchedShapesAndNonScalarRates) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {2}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, {1.0f, 2.0f}));
  ops::ApplyGradientDescent(root.WithOpName("bad_grad"), w, 0.1f, ops::Const(root, {1.0f}));
  ops::ApplyGradientDescent(root.WithOpName("bad_rate"), w, ops::Const(root, {0.1f, 0.2f}),
                            ops::Const(root, {1.0f, 1.0f}));
  ops::ApplyGradientDescent(root.WithOpName("uninit"),
                            ops::Variable(root.WithOpName("never"), {2}, DT_FLOAT), 0.1f,
                            ops::Const(root, {1.0f, 1.0f}));
  absl::StatusOr<tensorflow::GraphDef> def = root.ToGraphDef();
  ASSERT_TRUE(def.ok());
  // Shape inference at import already sees the mismatched gradient.
  absl::StatusOr<std::unique_ptr<Session>> rejected = Session::Create(SessionOptions(), *def);
  ASSERT_FALSE(rejected.ok());
  EXPECT_THAT(std::string(rejected.status().message()), HasSubstr("bad_grad"));

  Scope ok_root = Scope::NewRootScope();
  auto v = ops::Variable(ok_root.WithOpName("w"), {2}, DT_FLOAT);
  ops::Assign(ok_root.WithOpName("init"), v, ops::Const(ok_root, {1.0f, 2.0f}));
  ops::ApplyGradientDescent(ok_root.WithOpName("bad_rate"), v, ops::Const(ok_root, {0.1f, 0.2f}),
                            ops::Const(ok_root, {1.0f, 1.0f}));
  ops::ApplyGradientDescent(ok_root.WithOpName("uninit"),
                            ops::Variable(ok_root.WithOpName("never"), {2}, DT_FLOAT), 0.1f,
                            ops::Const(ok_root, {1.0f, 1.0f}));
  std::unique_ptr<Session> session = MakeSession(ok_root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  absl::Status rate = RunTargets(session.get(), {"bad_rate"});
  EXPECT_EQ(rate.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(rate.message()), HasSubstr("alpha is not a scalar: [2]"));
  absl::Status uninit = RunTargets(session.get(), {"uninit"});
  EXPECT_EQ(uninit.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(uninit.message()),
              HasSubstr("attempting to use uninitialized value never"));
}

// A ref edge pins its consumer to the variable's device, whatever the consumer asked for.
TEST(RefVariableTest, UpdatesRunWhereTheVariableLives) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w").WithDevice("/device:CPU:1"), {}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, 2.0f));
  ops::AssignAdd(root.WithOpName("inc"), w, ops::Const(root, 1.0f));
  ops::Identity(root.WithOpName("read").WithDevice("/device:CPU:0"), w);
  absl::StatusOr<tensorflow::GraphDef> def = root.ToGraphDef();
  ASSERT_TRUE(def.ok());
  SessionOptions options;
  options.device_count["CPU"] = 2;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, *def);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE(RunTargets(session->get(), {"init"}).ok());
  ASSERT_TRUE(RunTargets(session->get(), {"inc"}).ok());
  EXPECT_THAT(*Fetch(session->get(), "read"), ElementsAre(3));
}

// A graph as TensorFlow 1.x writes it for `w = tf.Variable(...)` and one GradientDescent update:
// float_ref edges, `_class` colocation attrs, the initializer's Assign and the `read` Identity.
TEST(RefVariableTest, ImportsTensorFlowVariableGraphs) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "w/initial_value"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } }
                float_val: 1
                float_val: 2
              }
            }
          }
        }
        node {
          name: "w"
          op: "VariableV2"
          attr {
            key: "container"
            value { s: "" }
          }
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value { shape { dim { size: 2 } } }
          }
          attr {
            key: "shared_name"
            value { s: "" }
          }
        }
        node {
          name: "w/Assign"
          op: "Assign"
          input: "w"
          input: "w/initial_value"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "_class"
            value { list { s: "loc:@w" } }
          }
          attr {
            key: "use_locking"
            value { b: true }
          }
          attr {
            key: "validate_shape"
            value { b: true }
          }
        }
        node {
          name: "w/read"
          op: "Identity"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "_class"
            value { list { s: "loc:@w" } }
          }
        }
        node {
          name: "grad"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "GradientDescent/learning_rate"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_FLOAT
                tensor_shape {}
                float_val: 0.5
              }
            }
          }
        }
        node {
          name: "GradientDescent/update_w/ApplyGradientDescent"
          op: "ApplyGradientDescent"
          input: "w"
          input: "GradientDescent/learning_rate"
          input: "grad"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "_class"
            value { list { s: "loc:@w" } }
          }
          attr {
            key: "use_locking"
            value { b: false }
          }
        }
        versions { producer: 27 }
      )pb",
      &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE(RunTargets(session->get(), {"w/Assign"}).ok());
  std::vector<Tensor> out;
  const Tensor grad = Tensor::FromVector<float>(TensorShape{2}, {2, -4});
  ASSERT_TRUE(
      (*session)
          ->Run({{"grad", grad}}, {"GradientDescent/update_w/ApplyGradientDescent"}, {}, &out)
          .ok());
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 4));  // the fetched ref reads the updated variable
  EXPECT_THAT(*Fetch(session->get(), "w/read"), ElementsAre(0, 4));
}

// A stateful kernel (here a seeded random generator) belongs to the session, not to one feed/fetch
// signature: a second signature continues the first one's stream, as in TensorFlow.
TEST(StatefulKernelTest, SignaturesShareOneGenerator) {
  Scope root = Scope::NewRootScope();
  auto r = ops::RandomUniform(root.WithOpName("r"), ops::Const(root, {3}), DT_FLOAT,
                              ops::RandomUniform::Seed(1).Seed2(2));
  ops::Identity(root.WithOpName("copy"), r);
  std::unique_ptr<Session> first = MakeSession(root);
  std::unique_ptr<Session> second = MakeSession(root);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  // The stream of one signature: values 1 and 2.
  std::vector<float> v1 = *Fetch(first.get(), "r");
  std::vector<float> v2 = *Fetch(first.get(), "r");
  EXPECT_NE(v1, v2);
  // Another session: value 1 through one signature, then value 2 through another.
  EXPECT_EQ(*Fetch(second.get(), "r"), v1);
  EXPECT_EQ(*Fetch(second.get(), "copy"), v2);
}

}  // namespace
}  // namespace tessera
