// Towers, gradient averaging and the momentum update of the data-parallel digits MLP.
#include "examples/distributed/data_parallel_mlp.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "examples/digits/digits_data.h"
#include "host/client/gradients.h"
#include "host/client/optimizers.h"

namespace tessera::distributed_example {
namespace {

constexpr int64_t kHidden = 64;

// The model's variables, built on the parameter server, and the values the towers read.
class Parameters {
 public:
  Parameters(const Scope& ps, int64_t seed) : ps_(ps), seed_(seed) {}

  // A float variable of `shape`, Glorot-uniform over fan_in + fan_out (zeros when fan_in is 0),
  // and "<name>/read", the Identity the towers consume, as TensorFlow's variables have.
  void Add(const std::string& name, const std::vector<int64_t>& shape, int64_t fan_in,
           int64_t fan_out) {
    auto var = ops::Variable(ps_.WithOpName(name), PartialTensorShape(shape), DT_FLOAT);
    std::vector<int32_t> dims(shape.begin(), shape.end());
    Output shape_value = ops::Const(
        ps_, Tensor::FromVector<int32_t>(TensorShape{static_cast<int64_t>(dims.size())}, dims));
    Output initial;
    if (fan_in == 0) {
      initial = ops::Fill(ps_, shape_value, 0.0f);
    } else {
      const float limit = std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
      auto uniform = ops::RandomUniform(ps_.WithOpName(name + "/random"), shape_value, DT_FLOAT,
                                        ops::RandomUniform::Seed(seed_).Seed2(++random_ops_));
      initial = ops::Sub(ps_, ops::Mul(ps_, uniform, 2 * limit), limit);
    }
    auto assign = ops::Assign(ps_.WithOpName(name + "/Assign"), var, initial);
    variables.push_back(var);
    reads.push_back(ops::Identity(ps_.WithOpName(name + "/read"), var));
    initializers.push_back(assign.operation.node_name());
  }

  std::vector<Output> variables;
  std::vector<Output> reads;
  std::vector<std::string> initializers;

 private:
  Scope ps_;
  int64_t seed_;
  int64_t random_ops_ = 0;
};

// One worker's forward pass on its share of the batch; `params` holds the reads of
// dense/kernel, dense/bias, logits/kernel and logits/bias in that order.
void AddTower(const Scope& tower, const std::vector<Output>& params, DataParallelMlp* model) {
  Output pixels = ops::Placeholder(tower.WithOpName("pixels"), DT_FLOAT,
                                   ops::Placeholder::Shape({-1, digits::kPixels}));
  Output labels =
      ops::Placeholder(tower.WithOpName("labels"), DT_INT32, ops::Placeholder::Shape({-1}));
  Output hidden =
      ops::Relu(tower, ops::BiasAdd(tower, ops::MatMul(tower, pixels, params[0]), params[1]));
  Output logits = ops::BiasAdd(tower, ops::MatMul(tower, hidden, params[2]), params[3]);
  ops::SparseSoftmaxCrossEntropyWithLogits xent(tower.WithOpName("xent"), logits, labels);
  Output loss = ops::Mean(tower.WithOpName("loss"), xent.loss, {0});
  Output predicted = ops::ArgMax(tower, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  Output accuracy =
      ops::Mean(tower.WithOpName("accuracy"),
                ops::Cast(tower, ops::Equal(tower, predicted, labels), DT_FLOAT), {0});
  model->pixels.push_back(pixels);
  model->labels.push_back(labels);
  model->tower_losses.push_back(loss);
  model->tower_accuracies.push_back(accuracy);
}

}  // namespace

DevicePlan DevicePlan::Cluster(int num_workers) {
  DevicePlan plan;
  plan.ps = "/job:ps/replica:0/task:0";
  for (int i = 0; i < num_workers; ++i) {
    plan.workers.push_back(absl::StrCat("/job:worker/replica:0/task:", i));
  }
  return plan;
}

DevicePlan DevicePlan::Local(int num_workers) {
  DevicePlan plan;
  plan.ps = absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", num_workers);
  for (int i = 0; i < num_workers; ++i) {
    plan.workers.push_back(absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i));
  }
  return plan;
}

absl::StatusOr<DataParallelMlp> BuildDataParallelMlp(const Scope& scope, const DevicePlan& plan,
                                                     int64_t seed, double learning_rate,
                                                     double momentum) {
  if (plan.workers.empty()) {
    return absl::InvalidArgumentError("the device plan has no worker device; expected at least 1");
  }
  if (plan.ps.empty()) {
    return absl::InvalidArgumentError("the device plan has no ps device");
  }
  const Scope ps = scope.WithDevice(plan.ps);
  Parameters params(ps, seed);
  params.Add("dense/kernel", {digits::kPixels, kHidden}, digits::kPixels, kHidden);
  params.Add("dense/bias", {kHidden}, 0, 0);
  params.Add("logits/kernel", {kHidden, digits::kClasses}, kHidden, digits::kClasses);
  params.Add("logits/bias", {digits::kClasses}, 0, 0);

  DataParallelMlp model;
  std::vector<std::vector<Output>> tower_gradients;
  for (size_t i = 0; i < plan.workers.size(); ++i) {
    const Scope tower = scope.NewSubScope(absl::StrCat("worker_", i)).WithDevice(plan.workers[i]);
    AddTower(tower, params.reads, &model);
    std::vector<Output> gradients;
    RETURN_IF_ERROR(WithContext(
        AddSymbolicGradients(tower, {model.tower_losses.back()}, params.reads, &gradients),
        absl::StrCat("while adding the gradients of tower ", i)));
    tower_gradients.push_back(std::move(gradients));
  }

  // Averages on ps, in worker order: (g_0 + g_1 + ...) * (1 / n), the same sum in every run.
  const float scale = 1.0f / static_cast<float>(plan.workers.size());
  const Scope average = ps.NewSubScope("average");
  std::vector<Output> averaged;
  std::vector<Operation> averaged_ops;
  for (size_t v = 0; v < params.variables.size(); ++v) {
    std::vector<Output> per_worker;
    for (const std::vector<Output>& gradients : tower_gradients) per_worker.push_back(gradients[v]);
    auto mean = ops::Mul(average, ops::AddN(average, per_worker), scale);
    averaged.push_back(mean);
    averaged_ops.push_back(mean.operation);
  }
  model.loss = ops::Mul(ps.WithOpName("loss"), ops::AddN(ps, model.tower_losses), scale);

  // In a local session a _Recv between CPU devices hands over the variable's own buffer, so an
  // update that ran while a tower still computed (logits/kernel is updated as soon as its own
  // gradient is ready, while worker_i/gradients still multiplies by it) would change that tower's
  // arithmetic (without this the local curve drifts from the distributed one by ~0.01 within 300
  // steps). Waiting for every averaged gradient keeps the updates after every read.
  MomentumOptimizer optimizer(learning_rate, momentum);
  ASSIGN_OR_RETURN(model.train, optimizer.ApplyGradients(ps.WithControlDependencies(averaged_ops),
                                                         averaged, params.variables));
  model.initializers = params.initializers;
  for (const Operation& init : optimizer.initializers()) {
    model.initializers.push_back(init.node_name());
  }
  RETURN_IF_ERROR(scope.status());
  return model;
}

}  // namespace tessera::distributed_example
