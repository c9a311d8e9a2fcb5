// Tests of the data-parallel MLP builder: where each node goes, the rejected plans, and that the
// three-device local layout trains and repeats bit for bit.
#include "examples/distributed/data_parallel_mlp.h"

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "examples/digits/digits_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera::distributed_example {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DevicePlanTest, ClusterNamesThePsAndWorkerTasks) {
  DevicePlan plan = DevicePlan::Cluster(2);
  EXPECT_EQ(plan.ps, "/job:ps/replica:0/task:0");
  EXPECT_THAT(plan.workers,
              ElementsAre("/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"));
}

TEST(DevicePlanTest, LocalPutsPsOnTheLastCpu) {
  DevicePlan plan = DevicePlan::Local(2);
  EXPECT_EQ(plan.ps, "/job:localhost/replica:0/task:0/device:CPU:2");
  EXPECT_THAT(plan.workers, ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                                        "/job:localhost/replica:0/task:0/device:CPU:1"));
}

TEST(BuildDataParallelMlpTest, PutsVariablesAndUpdatesOnPsAndTowersOnTheirWorkers) {
  const DevicePlan plan = DevicePlan::Cluster(2);
  Scope root = Scope::NewRootScope();
  absl::StatusOr<DataParallelMlp> model = BuildDataParallelMlp(root, plan, 1, 0.1, 0.9);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  ASSERT_TRUE(graph.ok()) << graph.status();
  int variables = 0, updates = 0, tower_nodes[2] = {0, 0};
  for (const tensorflow::NodeDef& node : graph->node()) {
    SCOPED_TRACE(node.name());
    if (node.device().empty()) {
      // Only the momentum slots, which their updates' reference edges take to ps.
      EXPECT_TRUE(absl::StrContains(node.name(), "/Momentum"));
      continue;
    }
    if (node.op() == "VariableV2") {
      EXPECT_EQ(node.device(), plan.ps);
      ++variables;
    }
    if (node.op() == "ApplyMomentum") {
      EXPECT_EQ(node.device(), plan.ps);
      ++updates;
    }
    for (int w = 0; w < 2; ++w) {
      if (absl::StartsWith(node.name(), "worker_" + std::to_string(w) + "/")) {
        EXPECT_EQ(node.device(), plan.workers[w]);
        ++tower_nodes[w];
      }
    }
  }
  EXPECT_EQ(variables, 4);
  EXPECT_EQ(updates, 4);
  EXPECT_GT(tower_nodes[0], 10);
  EXPECT_EQ(tower_nodes[0], tower_nodes[1]);
  EXPECT_EQ(model->pixels.size(), 2u);
  EXPECT_EQ(model->tower_losses.size(), 2u);
  EXPECT_EQ(model->initializers.size(), 8u);  // 4 variables and 4 momentum slots
}

TEST(BuildDataParallelMlpTest, RejectsPlanWithoutWorkers) {
  DevicePlan plan;
  plan.ps = "/job:ps/replica:0/task:0";
  absl::StatusOr<DataParallelMlp> model =
      BuildDataParallelMlp(Scope::NewRootScope(), plan, 1, 0.1, 0.9);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("the device plan has no worker device; expected at least 1"));
}

TEST(BuildDataParallelMlpTest, RejectsPlanWithoutPs) {
  DevicePlan plan = DevicePlan::Cluster(2);
  plan.ps.clear();
  absl::StatusOr<DataParallelMlp> model =
      BuildDataParallelMlp(Scope::NewRootScope(), plan, 1, 0.1, 0.9);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(model.status().message()), HasSubstr("the device plan has no ps device"));
}

// Trains `steps` steps on fixed halves of the first 64 training images in a local session of
// `plan` (with `devices` CPU devices) and returns the losses.
std::vector<float> TrainLocally(const DevicePlan& plan, int devices, int steps,
                                std::vector<std::string>* partition_devices) {
  absl::StatusOr<digits::Examples> data = digits::LoadDigits(TESSERA_DIGITS_DATA);
  EXPECT_TRUE(data.ok()) << data.status();
  if (!data.ok()) return {};
  Scope root = Scope::NewRootScope();
  absl::StatusOr<DataParallelMlp> model = BuildDataParallelMlp(root, plan, 7, 0.05, 0.9);
  EXPECT_TRUE(model.ok()) << model.status();
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!model.ok() || !graph.ok()) return {};
  SessionOptions options;
  options.intra_op_threads = 1;
  options.device_count = {{"CPU", devices}};
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, *graph);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({}, {}, model->initializers, &out);
  EXPECT_TRUE(status.ok()) << status;
  std::vector<int64_t> order(64);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (int w = 0; w < 2; ++w) {
    Tensor pixels, labels;
    digits::Batch(*data, order, 32 * w, 32 * (w + 1), &pixels, &labels);
    feeds.emplace_back(model->pixels[w].name(), pixels);
    feeds.emplace_back(model->labels[w].name(), labels);
  }
  std::vector<float> losses;
  for (int step = 0; step < steps && status.ok(); ++step) {
    RunMetadata metadata;
    status = (*session)->Run(RunOptions(), feeds, {model->loss.name()}, {model->train.node_name()},
                             &out, &metadata);
    EXPECT_TRUE(status.ok()) << status;
    if (status.ok()) losses.push_back(*out[0].data<float>());
    if (partition_devices != nullptr) *partition_devices = metadata.partition_devices;
  }
  return losses;
}

TEST(BuildDataParallelMlpTest, LocalPlanTrainsOnThreeDevicesAndRepeatsBitForBit) {
  std::vector<std::string> devices;
  std::vector<float> first = TrainLocally(DevicePlan::Local(2), 3, 10, &devices);
  std::vector<float> second = TrainLocally(DevicePlan::Local(2), 3, 10, nullptr);
  ASSERT_EQ(first.size(), 10u);
  ASSERT_EQ(second.size(), 10u);
  EXPECT_EQ(devices.size(), 3u);
  EXPECT_LT(first.back(), first.front());
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
}

TEST(BuildDataParallelMlpTest, OneDeviceComputesTheSameLossesAsThree) {
  // The placement moves no arithmetic: with every part on one CPU the losses are the same bits.
  DevicePlan one;
  one.ps = "/job:localhost/replica:0/task:0/device:CPU:0";
  one.workers = {one.ps, one.ps};
  std::vector<float> three = TrainLocally(DevicePlan::Local(2), 3, 10, nullptr);
  std::vector<float> single = TrainLocally(one, 1, 10, nullptr);
  ASSERT_EQ(three.size(), 10u);
  ASSERT_EQ(single.size(), 10u);
  EXPECT_EQ(std::memcmp(three.data(), single.data(), three.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace tessera::distributed_example
