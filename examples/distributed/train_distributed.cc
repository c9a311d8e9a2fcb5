// Data-parallel training of the digits MLP on a cluster: the variables live on the ps task, each
// of two worker tasks computes the loss and the gradients on its half of every batch, and ps
// averages the gradients and applies them. With --compare the same graph also trains in a local
// single-process session, and the two loss curves must be bit-identical.
//
//   examples/distributed/run_local_cluster.sh --steps 100      # starts the cluster, then runs:
//   tessera_train_distributed --target grpc://localhost:2222 --steps 100 --compare
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "examples/digits/digits_data.h"
#include "examples/distributed/data_parallel_mlp.h"
#include "examples/distributed/train_flags.h"
#include "host/session/session.h"

namespace tessera::distributed_example {
namespace {

constexpr int kWorkers = 2;

struct Curve {
  std::string label;          // "distributed" or "local"
  std::vector<float> losses;  // one per step
  double test_accuracy = 0;
  double ms_per_step = 0;  // mean over steps 2..N: step 1 also places and partitions the graph
};

// Trains from scratch in a session of `options` with the graph laid out by `plan`.
absl::StatusOr<Curve> Train(const TrainFlags& flags, const digits::Examples& train,
                            const digits::Examples& test, const SessionOptions& options,
                            const DevicePlan& plan, const std::string& label, bool print_steps) {
  Scope root = Scope::NewRootScope();
  ASSIGN_OR_RETURN(
      DataParallelMlp model,
      BuildDataParallelMlp(root, plan, flags.seed, flags.learning_rate, flags.momentum));
  ASSIGN_OR_RETURN(tensorflow::GraphDef graph, root.ToGraphDef());
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, graph));
  if (print_steps) {
    std::printf("%s session devices: %s\n", label.c_str(),
                absl::StrJoin(session->ListDevices(), ", ").c_str());
  }
  std::vector<Tensor> out;
  RETURN_IF_ERROR(WithContext(session->Run({}, {}, model.initializers, &out),
                              "while initializing the variables"));

  Curve curve;
  curve.label = label;
  // The batches depend only on the seed: both runs of --compare see the same examples in the
  // same order. Each epoch is reshuffled; a last partial batch is skipped.
  std::mt19937 rng(static_cast<uint32_t>(flags.seed));
  std::vector<int64_t> order(static_cast<size_t>(train.size()));
  std::iota(order.begin(), order.end(), 0);
  const int64_t batches_per_epoch = train.size() / flags.batch;
  const int64_t half = flags.batch / kWorkers;
  double timed_seconds = 0;
  for (int step = 0; step < flags.steps; ++step) {
    const int64_t k = step % batches_per_epoch;
    if (k == 0) std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (int w = 0; w < kWorkers; ++w) {
      const int64_t begin = k * flags.batch + w * half;
      Tensor pixels, labels;
      digits::Batch(train, order, begin, begin + half, &pixels, &labels);
      feeds.emplace_back(model.pixels[w].name(), pixels);
      feeds.emplace_back(model.labels[w].name(), labels);
    }
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(
        WithContext(session->Run(feeds, {model.loss.name()}, {model.train.node_name()}, &out),
                    absl::StrCat("while running step ", step + 1)));
    if (step > 0) {
      timed_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    curve.losses.push_back(*out[0].data<float>());
    if (print_steps) {
      std::printf("step %d  loss %.9g\n", step + 1, curve.losses.back());
      std::fflush(stdout);
    }
  }
  if (flags.steps > 1) curve.ms_per_step = 1000 * timed_seconds / (flags.steps - 1);

  // The whole test set through worker 0's tower.
  std::vector<int64_t> test_order(static_cast<size_t>(test.size()));
  std::iota(test_order.begin(), test_order.end(), 0);
  Tensor pixels, labels;
  digits::Batch(test, test_order, 0, test.size(), &pixels, &labels);
  RETURN_IF_ERROR(
      WithContext(session->Run({{model.pixels[0].name(), pixels}, {model.labels[0].name(), labels}},
                               {model.tower_accuracies[0].name()}, {}, &out),
                  "while evaluating on the test set"));
  curve.test_accuracy = *out[0].data<float>();
  return curve;
}

// Prints both curves side by side and their largest absolute difference; true when they are
// bit-identical.
bool CompareCurves(const Curve& a, const Curve& b) {
  std::printf("\n%6s  %-16s %-16s\n", "step", a.label.c_str(), b.label.c_str());
  double largest = 0;
  size_t differing = 0;
  for (size_t i = 0; i < a.losses.size(); ++i) {
    const float x = a.losses[i];
    const float y = b.losses[i];
    const bool same = std::memcmp(&x, &y, sizeof(float)) == 0;
    if (!same) ++differing;
    const double diff = std::fabs(static_cast<double>(x) - static_cast<double>(y));
    if (!same && !(diff <= largest)) largest = diff;  // a NaN difference is the largest
    std::printf("%6zu  %-16.9g %-16.9g%s\n", i + 1, x, y, same ? "" : "  <- differs");
  }
  std::printf("largest absolute difference: %g over %zu steps\n", largest, a.losses.size());
  if (differing == 0) {
    std::printf("curves equal: %s and %s losses are bit-identical at every step\n", a.label.c_str(),
                b.label.c_str());
    return true;
  }
  std::printf("curves differ at %zu of %zu steps\n", differing, a.losses.size());
  return false;
}

int Main(const std::vector<std::string>& args) {
  absl::StatusOr<TrainFlags> parsed = ParseTrainFlags(args, TESSERA_DIGITS_DATA);
  if (!parsed.ok()) {
    std::fprintf(stderr, "tessera_train_distributed: %s\n%s",
                 std::string(parsed.status().message()).c_str(), TrainUsage().c_str());
    return 2;
  }
  const TrainFlags& flags = *parsed;
  absl::StatusOr<digits::Examples> all = digits::LoadDigits(flags.data);
  if (!all.ok()) {
    std::fprintf(stderr, "tessera_train_distributed: %s\n",
                 std::string(all.status().message()).c_str());
    return 1;
  }
  digits::Examples train, test;
  digits::Split(*all, 0.2, 20240521, &train, &test);
  if (train.size() < flags.batch) {
    std::fprintf(stderr,
                 "tessera_train_distributed: --batch %d is larger than the %lld training "
                 "images\n",
                 flags.batch, static_cast<long long>(train.size()));
    return 2;
  }

  // A local session names its devices /job:localhost/replica:0/task:0/device:CPU:<n> and rejects
  // requests for /job:ps or /job:worker, so the local run gets DevicePlan::Local: three CPU
  // devices standing for worker 0, worker 1 and ps. Stripping the devices instead would put the
  // whole graph on one device; with three, the local session partitions the graph exactly as the
  // master does (the same nodes per partition, the same _Send/_Recv pairs), so every kernel sees
  // the same inputs and only the transport between partitions differs.
  SessionOptions local_options;
  local_options.intra_op_threads = flags.intra_op_threads;
  local_options.device_count = {{"CPU", kWorkers + 1}};
  SessionOptions options = local_options;
  DevicePlan plan = DevicePlan::Local(kWorkers);
  std::string label = "local";
  if (!flags.target.empty()) {
    options = SessionOptions();
    options.target = flags.target;
    // The servers' own --intra-op-threads decide the kernels' threads; this is the client's.
    options.intra_op_threads = flags.intra_op_threads;
    plan = DevicePlan::Cluster(kWorkers);
    label = "distributed";
  }
  std::printf(
      "digits: %lld training and %lld test images; %d workers x %d examples per step, "
      "%d steps, target %s\n",
      static_cast<long long>(train.size()), static_cast<long long>(test.size()), kWorkers,
      flags.batch / kWorkers, flags.steps, flags.target.empty() ? "local" : flags.target.c_str());

  std::vector<Curve> curves;
  for (int run = 0; run < (flags.compare ? 2 : 1); ++run) {
    const bool primary = run == 0;
    absl::StatusOr<Curve> curve =
        primary ? Train(flags, train, test, options, plan, label, true)
                : Train(flags, train, test, local_options, DevicePlan::Local(kWorkers),
                        flags.target.empty() ? "local-rerun" : "local", false);
    if (!curve.ok()) {
      std::fprintf(stderr, "tessera_train_distributed: %s run: %s\n",
                   primary ? label.c_str() : "local comparison",
                   std::string(curve.status().message()).c_str());
      return 1;
    }
    curves.push_back(*std::move(curve));
  }
  bool equal = true;
  if (flags.compare) equal = CompareCurves(curves[0], curves[1]);
  std::printf("\n");
  for (const Curve& curve : curves) {
    std::printf("%-12s test accuracy %.2f%%  %.3f ms per step (mean of steps 2..%d)\n",
                curve.label.c_str(), 100 * curve.test_accuracy, curve.ms_per_step, flags.steps);
  }
  return equal ? 0 : 1;
}

}  // namespace
}  // namespace tessera::distributed_example

int main(int argc, char** argv) {
  return tessera::distributed_example::Main(std::vector<std::string>(argv + 1, argv + argc));
}
