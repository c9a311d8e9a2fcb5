// Layers, losses and the optimizer of the digit classifiers.
#include "examples/digits/digits_models.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "examples/digits/digits_data.h"
#include "host/client/op_builder.h"
#include "host/client/optimizers.h"

namespace tessera::digits {
namespace {

// One node of an op without a typed wrapper here, all float.
Output FloatNode(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
                 const std::function<void(OpBuilder&)>& attrs, int num_outputs = 1) {
  OpBuilder builder(scope, op);
  for (const Output& input : inputs) builder.Input(input);
  builder.AttrType("T", DT_FLOAT);
  attrs(builder);
  Operation node = builder.Finalize(std::vector<DataType>(num_outputs, DT_FLOAT));
  return node.valid() ? node.output(0) : Output();
}

class Builder {
 public:
  Builder(const Scope& scope, int64_t seed) : scope_(scope), seed_(seed) {}

  // A float variable of `shape` named `name`, initialized Glorot-uniform over fan_in + fan_out
  // (or zeros when fan_in is 0).
  Output Variable(const std::string& name, const std::vector<int64_t>& shape, int64_t fan_in,
                  int64_t fan_out) {
    auto var = ops::Variable(scope_.WithOpName(name), PartialTensorShape(shape), DT_FLOAT);
    std::vector<int32_t> dims(shape.begin(), shape.end());
    Output shape_value = ops::Const(
        scope_, Tensor::FromVector<int32_t>(TensorShape{static_cast<int64_t>(dims.size())}, dims));
    Output initial;
    if (fan_in == 0) {
      initial = ops::Fill(scope_, shape_value, 0.0f);
    } else {
      const float limit = std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
      auto uniform = ops::RandomUniform(scope_.WithOpName(name + "/random"), shape_value, DT_FLOAT,
                                        ops::RandomUniform::Seed(seed_).Seed2(++op_));
      initial = ops::Sub(scope_, ops::Mul(scope_, uniform, 2 * limit), limit);
    }
    auto assign = ops::Assign(scope_.WithOpName(name + "/Assign"), var, initial);
    variables_.push_back(var);
    initializers_.push_back(assign.operation.node_name());
    return var;
  }

  Output Dense(const std::string& name, const Output& x, int64_t in, int64_t out) {
    Output w = Variable(name + "/kernel", {in, out}, in, out);
    Output b = Variable(name + "/bias", {out}, 0, 0);
    return ops::BiasAdd(scope_, ops::MatMul(scope_, x, w), b);
  }

  Output Conv(const std::string& name, const Output& x, int64_t in, int64_t out) {
    Output w = Variable(name + "/kernel", {3, 3, in, out}, 9 * in, 9 * out);
    Output b = Variable(name + "/bias", {out}, 0, 0);
    Output conv =
        FloatNode(scope_.WithOpName(name + "/Conv2D"), "Conv2D", {x, w}, [](OpBuilder& op) {
          op.AttrIntList("strides", {1, 1, 1, 1}).AttrString("padding", "SAME");
        });
    return ops::Relu(scope_, ops::BiasAdd(scope_, conv, b));
  }

  Output Pool(const Output& x) {
    return FloatNode(scope_, "MaxPool", {x}, [](OpBuilder& op) {
      op.AttrIntList("ksize", {1, 2, 2, 1})
          .AttrIntList("strides", {1, 2, 2, 1})
          .AttrString("padding", "VALID");
    });
  }

  std::vector<Output> variables_;
  std::vector<std::string> initializers_;

 private:
  Scope scope_;
  int64_t seed_;
  int64_t op_ = 0;
};

}  // namespace

absl::StatusOr<Model> BuildModel(const Scope& scope, const std::string& name, int64_t seed,
                                 double learning_rate) {
  Model model;
  model.pixels = ops::Placeholder(scope.WithOpName("pixels"), DT_FLOAT);
  model.labels = ops::Placeholder(scope.WithOpName("labels"), DT_INT32);
  Builder b(scope, seed);
  Output logits;
  if (name == "mlp") {
    Output hidden = ops::Relu(scope, b.Dense("dense", model.pixels, kPixels, 64));
    logits = b.Dense("logits", hidden, 64, kClasses);
  } else if (name == "cnn") {
    Output image = ops::Reshape(scope, model.pixels, {-1, 8, 8, 1});
    Output c1 = b.Pool(b.Conv("conv1", image, 1, 16));  // [n, 4, 4, 16]
    Output c2 = b.Pool(b.Conv("conv2", c1, 16, 32));    // [n, 2, 2, 32]
    logits = b.Dense("logits", ops::Reshape(scope, c2, {-1, 2 * 2 * 32}), 2 * 2 * 32, kClasses);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown model '", name, "'; expected 'mlp' or 'cnn'"));
  }
  OpBuilder xent(scope.WithOpName("xent"), "SparseSoftmaxCrossEntropyWithLogits");
  xent.Input(logits).Input(model.labels).AttrType("T", DT_FLOAT).AttrType("Tlabels", DT_INT32);
  Operation losses = xent.Finalize({DT_FLOAT, DT_FLOAT});
  model.loss = ops::Mean(scope.WithOpName("loss"), losses.output(0), {0});
  Output predicted = ops::ArgMax(scope, logits, 1, ops::ArgMax::OutputType(DT_INT32));
  model.accuracy =
      ops::Mean(scope.WithOpName("accuracy"),
                ops::Cast(scope, ops::Equal(scope, predicted, model.labels), DT_FLOAT), {0});
  AdamOptimizer adam(learning_rate);
  auto step = ops::Variable(scope.WithOpName("global_step"), {}, DT_INT64);
  b.variables_.push_back(step);
  b.initializers_.push_back(
      ops::Assign(scope.WithOpName("global_step/Assign"), step, ops::Const(scope, int64_t{0}))
          .operation.node_name());
  absl::StatusOr<Operation> train =
      adam.Minimize(scope, model.loss, {b.variables_.begin(), b.variables_.end() - 1}, step);
  if (!train.ok()) return train.status();
  model.train = *train;
  model.variables = b.variables_;
  model.initializers = b.initializers_;
  for (const Output& slot : adam.variables()) model.variables.push_back(slot);
  for (const Operation& init : adam.initializers()) model.initializers.push_back(init.node_name());
  RETURN_IF_ERROR(scope.status());
  return model;
}

}  // namespace tessera::digits
