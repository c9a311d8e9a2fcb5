// Each optimizer against its update rule simulated here, for ref and resource variables, with
// TensorFlow's slot names and a global step.
#include "host/client/optimizers.h"

#include <cmath>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/ops.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr int kSteps = 3;
const std::vector<float> kInitial = {1.0f, -2.0f, 0.5f};
const std::vector<float> kTarget = {0.3f, 0.7f, -1.0f};

// loss = sum((w - target)^2): gradient 2 (w - target). Returns w after kSteps updates.
using Rule = std::function<void(std::vector<double>* w, const std::vector<double>& g, int step)>;

std::vector<double> Simulate(const Rule& rule) {
  std::vector<double> w(kInitial.begin(), kInitial.end());
  for (int step = 1; step <= kSteps; ++step) {
    std::vector<double> g(w.size());
    for (size_t i = 0; i < w.size(); ++i) g[i] = 2 * (w[i] - kTarget[i]);
    rule(&w, g, step);
  }
  return w;
}

std::vector<float> Train(Optimizer* optimizer, bool resource, tensorflow::GraphDef* graph_out,
                         int64_t* global_step_out) {
  Scope root = Scope::NewRootScope();
  const Tensor initial = Tensor::FromVector<float>(TensorShape{3}, kInitial);
  Output w;
  Output value;
  std::vector<std::string> init;
  if (resource) {
    auto handle = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT, {3},
                                   ops::VariableAttrs().SharedName("w"));
    init.push_back(
        ops::AssignVariableOp(root.WithOpName("w/Assign"), handle, ops::Const(root, initial))
            .operation.node_name());
    w = handle;
    value = ops::ReadVariableOp(root.WithOpName("w/Read"), handle, DT_FLOAT);
  } else {
    w = ops::Variable(root.WithOpName("w"), {3}, DT_FLOAT);
    init.push_back(ops::Assign(root.WithOpName("w/Assign"), w, ops::Const(root, initial))
                       .operation.node_name());
    value = ops::Identity(root.WithOpName("w/read"), w);
  }
  auto step = ops::Variable(root.WithOpName("global_step"), {}, DT_INT64);
  init.push_back(ops::Assign(root.WithOpName("global_step/Assign"), step,
                             ops::Const(root, int64_t{0}))
                     .operation.node_name());
  Output diff = ops::Sub(root, value, ops::Const(root, Tensor::FromVector<float>(
                                                           TensorShape{3}, kTarget)));
  Output loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, diff), {0});
  absl::StatusOr<Operation> train = optimizer->Minimize(root, loss, {w}, step);
  EXPECT_TRUE(train.ok()) << train.status();
  if (!train.ok()) return {};
  for (const Operation& op : optimizer->initializers()) init.push_back(op.node_name());
  absl::StatusOr<tensorflow::GraphDef> def = root.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  *graph_out = *def;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *def);
  EXPECT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  EXPECT_TRUE((*session)->Run({}, {}, init, &out).ok());
  for (int i = 0; i < kSteps; ++i) {
    absl::Status status = (*session)->Run({}, {}, {train->node_name()}, &out);
    EXPECT_TRUE(status.ok()) << status;
  }
  EXPECT_TRUE((*session)->Run({}, {value.name(), "global_step"}, {}, &out).ok());
  *global_step_out = *out[1].data<int64_t>();
  return std::vector<float>(out[0].data<float>(), out[0].data<float>() + 3);
}

bool HasNode(const tensorflow::GraphDef& def, const std::string& name) {
  for (const auto& node : def.node()) {
    if (node.name() == name) return true;
  }
  return false;
}

void Check(Optimizer* (*make)(), const Rule& rule, const std::vector<std::string>& slot_names) {
  const std::vector<double> expected = Simulate(rule);
  for (bool resource : {false, true}) {
    SCOPED_TRACE(resource ? "resource" : "ref");
    std::unique_ptr<Optimizer> optimizer(make());
    tensorflow::GraphDef def;
    int64_t global_step = -1;
    std::vector<float> got = Train(optimizer.get(), resource, &def, &global_step);
    ASSERT_EQ(got.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << i;
    EXPECT_EQ(global_step, kSteps);
    for (const std::string& name : slot_names) EXPECT_TRUE(HasNode(def, name)) << name;
  }
}

TEST(OptimizersTest, GradientDescent) {
  Check([]() -> Optimizer* { return new GradientDescentOptimizer(0.1); },
        [](std::vector<double>* w, const std::vector<double>& g, int) {
          for (size_t i = 0; i < w->size(); ++i) (*w)[i] -= 0.1 * g[i];
        },
        {});
}

TEST(OptimizersTest, MomentumAndNesterov) {
  for (bool nesterov : {false, true}) {
    auto accum = std::make_shared<std::vector<double>>(3, 0.0);
    Check(nesterov ? []() -> Optimizer* { return new MomentumOptimizer(0.1, 0.9, true); }
                   : []() -> Optimizer* { return new MomentumOptimizer(0.1, 0.9, false); },
          [accum, nesterov](std::vector<double>* w, const std::vector<double>& g, int step) {
            if (step == 1) accum->assign(3, 0.0);
            for (size_t i = 0; i < w->size(); ++i) {
              (*accum)[i] = (*accum)[i] * 0.9 + g[i];
              (*w)[i] -= nesterov ? g[i] * 0.1 + (*accum)[i] * 0.9 * 0.1 : 0.1 * (*accum)[i];
            }
          },
          {"w/Momentum"});
  }
}

TEST(OptimizersTest, Adam) {
  auto m = std::make_shared<std::vector<double>>(3, 0.0);
  auto v = std::make_shared<std::vector<double>>(3, 0.0);
  Check([]() -> Optimizer* { return new AdamOptimizer(0.05); },
        [m, v](std::vector<double>* w, const std::vector<double>& g, int step) {
          if (step == 1) {
            m->assign(3, 0.0);
            v->assign(3, 0.0);
          }
          const double lr_t =
              0.05 * std::sqrt(1 - std::pow(0.999, step)) / (1 - std::pow(0.9, step));
          for (size_t i = 0; i < w->size(); ++i) {
            (*m)[i] += (g[i] - (*m)[i]) * 0.1;
            (*v)[i] += (g[i] * g[i] - (*v)[i]) * 0.001;
            (*w)[i] -= (*m)[i] * lr_t / (std::sqrt((*v)[i]) + 1e-8);
          }
        },
        {"w/Adam", "w/Adam_1", "beta1_power", "beta2_power"});
}

TEST(OptimizersTest, RMSPropStartsItsMeanSquareAtOne) {
  auto ms = std::make_shared<std::vector<double>>(3, 1.0);
  auto mom = std::make_shared<std::vector<double>>(3, 0.0);
  Check([]() -> Optimizer* { return new RMSPropOptimizer(0.01, 0.9, 0.5); },
        [ms, mom](std::vector<double>* w, const std::vector<double>& g, int step) {
          if (step == 1) {
            ms->assign(3, 1.0);
            mom->assign(3, 0.0);
          }
          for (size_t i = 0; i < w->size(); ++i) {
            (*ms)[i] += (g[i] * g[i] - (*ms)[i]) * 0.1;
            (*mom)[i] = (*mom)[i] * 0.5 + 0.01 * g[i] / std::sqrt((*ms)[i] + 1e-10);
            (*w)[i] -= (*mom)[i];
          }
        },
        {"w/RMSProp", "w/RMSProp_1"});
}

TEST(OptimizersTest, RejectsWhatIsNotAVariable) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output loss = ops::Sum(root, ops::Square(root, x), {0});
  GradientDescentOptimizer sgd(0.1);
  absl::StatusOr<Operation> train = sgd.Minimize(root, loss, {x});
  EXPECT_EQ(train.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(train.status().message()),
              HasSubstr("'x:0' is not a variable (the output of a Variable or VarHandleOp)"));
  absl::StatusOr<Operation> none = sgd.ApplyGradients(root, {}, {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("got 0 gradients for 0 variables"));

  auto unknown = ops::Variable(root.WithOpName("unknown"), PartialTensorShape(), DT_FLOAT);
  MomentumOptimizer momentum(0.1, 0.9);
  absl::StatusOr<Operation> slots =
      momentum.ApplyGradients(root, {ops::Const(root, 1.0f)}, {unknown});
  EXPECT_EQ(slots.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(slots.status().message()),
              HasSubstr("variable 'unknown' has an unknown shape; optimizer slots need one"));
}

}  // namespace
}  // namespace tessera
