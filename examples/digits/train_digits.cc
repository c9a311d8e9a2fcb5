// Trains a digit classifier (MLP or CNN) on the UCI handwritten digits with Tessera's C++ API:
// Adam on mini-batches of 64, a progress bar with loss and accuracy per epoch, the test accuracy
// at the end, and a TensorFlow-format checkpoint that a second run can restore and continue from.
//
//   tessera_train_digits --model mlp --epochs 40 --checkpoint /tmp/digits/mlp
//   tessera_train_digits --model mlp --epochs 10 --checkpoint /tmp/digits/mlp --restore
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "examples/digits/digits_data.h"
#include "examples/digits/digits_models.h"
#include "host/runtime/step_stats.h"
#include "host/session/session.h"
#include "host/training/saver.h"

namespace tessera::digits {
namespace {

struct Flags {
  std::string model = "mlp";
  std::string data = TESSERA_DIGITS_DATA;
  std::string checkpoint;
  bool restore = false;
  int epochs = 40;
  int batch = 64;
  double learning_rate = 0.005;
  int64_t seed = 1;
  double min_test_accuracy = 0;  // exit 1 below this (for tests)
  // -1: the session's default (every GPU a loaded GPU plugin has; ops with GPU kernels run there).
  // 0: CPU only. N > 0: N GPUs, which the training step must use; without any, exit 77 (skipped).
  int gpus = -1;
};

// The exit status of a run skipped for want of a GPU (ctest's SKIP_RETURN_CODE).
constexpr int kSkipped = 77;

int Usage(const std::string& error) {
  std::fprintf(stderr,
               "tessera_train_digits: %s\n"
               "usage: tessera_train_digits [--model mlp|cnn] [--epochs N] [--batch N]\n"
               "         [--learning-rate X] [--seed N] [--data digits.csv.gz]\n"
               "         [--checkpoint PREFIX [--restore]] [--min-test-accuracy X] [--gpus N]\n",
               error.c_str());
  return 2;
}

bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--restore") {
      flags->restore = true;
    } else if (arg == "--model" || arg == "--data" || arg == "--checkpoint" || arg == "--epochs" ||
               arg == "--batch" || arg == "--learning-rate" || arg == "--seed" ||
               arg == "--min-test-accuracy" || arg == "--gpus") {
      if (!value(&v)) return false;
      bool ok = true;
      if (arg == "--model") flags->model = v;
      if (arg == "--data") flags->data = v;
      if (arg == "--checkpoint") flags->checkpoint = v;
      if (arg == "--epochs") ok = absl::SimpleAtoi(v, &flags->epochs) && flags->epochs >= 0;
      if (arg == "--batch") ok = absl::SimpleAtoi(v, &flags->batch) && flags->batch > 0;
      if (arg == "--learning-rate") ok = absl::SimpleAtod(v, &flags->learning_rate);
      if (arg == "--seed") ok = absl::SimpleAtoi(v, &flags->seed);
      if (arg == "--min-test-accuracy") ok = absl::SimpleAtod(v, &flags->min_test_accuracy);
      if (arg == "--gpus") ok = absl::SimpleAtoi(v, &flags->gpus) && flags->gpus >= 0;
      if (!ok) {
        *error = absl::StrCat("bad value '", v, "' for ", arg);
        return false;
      }
    } else {
      *error = absl::StrCat("unknown argument '", arg, "'");
      return false;
    }
  }
  if (flags->restore && flags->checkpoint.empty()) {
    *error = "--restore needs --checkpoint";
    return false;
  }
  return true;
}

// "epoch  3/40 [#########...........] loss 0.2345 train 93.1%".
void DrawProgress(int epoch, int epochs, int64_t done, int64_t total, double loss, double accuracy,
                  bool final_line) {
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(kWidth * done / std::max<int64_t>(total, 1));
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  std::fprintf(stdout, "\repoch %3d/%d [%s] loss %.4f train %5.1f%%", epoch, epochs, bar.c_str(),
               loss, 100 * accuracy);
  if (final_line) std::fprintf(stdout, "\n");
  std::fflush(stdout);
}

// Loss and accuracy over `data`, in batches.
absl::Status Evaluate(Session* session, const Model& model, const Examples& data, int batch,
                      double* loss, double* accuracy) {
  std::vector<int64_t> order(static_cast<size_t>(data.size()));
  std::iota(order.begin(), order.end(), 0);
  double loss_sum = 0;
  double correct = 0;
  for (int64_t begin = 0; begin < data.size(); begin += batch) {
    const int64_t end = std::min<int64_t>(begin + batch, data.size());
    Tensor pixels, labels;
    Batch(data, order, begin, end, &pixels, &labels);
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session->Run({{model.pixels.name(), pixels}, {model.labels.name(), labels}},
                                 {model.loss.name(), model.accuracy.name()}, {}, &out));
    loss_sum += *out[0].data<float>() * static_cast<double>(end - begin);
    correct += *out[1].data<float>() * static_cast<double>(end - begin);
  }
  *loss = loss_sum / static_cast<double>(data.size());
  *accuracy = correct / static_cast<double>(data.size());
  return absl::OkStatus();
}

// True when `status` says only that this machine has no GPU: no GPU plugin is built, or every one
// was refused (no driver, no device). Any other failure is the run's error.
bool NoGpu(const absl::Status& status) {
  const std::string message(status.message());
  return (status.code() == absl::StatusCode::kInvalidArgument &&
          message.find("device type 'GPU', which no loaded plugin provides") !=
              std::string::npos) ||
         (status.code() == absl::StatusCode::kFailedPrecondition &&
          message.find(" GPU device") != std::string::npos &&  // "1 GPU device", "2 GPU devices"
          message.find("but every plugin that provides them was refused") != std::string::npos);
}

// Prints how many of a step's nodes ran on each device; with `gpus` > 0, an error when none ran on
// a GPU.
absl::Status ReportDevices(const RunMetadata& metadata, int gpus) {
  int64_t on_gpu = 0;
  for (const DeviceStepStats& device : metadata.step_stats.devices) {
    std::printf("step nodes on %s: %zu\n", device.device.c_str(), device.nodes.size());
    if (device.device.find("/device:GPU:") != std::string::npos) {
      on_gpu += static_cast<int64_t>(device.nodes.size());
    }
  }
  if (gpus > 0 && on_gpu == 0) {
    return absl::InternalError("--gpus asked for GPUs, but no node of the training step ran on one");
  }
  return absl::OkStatus();
}

absl::Status Train(const Flags& flags, double* test_accuracy, bool* skipped) {
  ASSIGN_OR_RETURN(Examples all, LoadDigits(flags.data));
  Examples train, test;
  Split(all, 0.2, 20240521, &train, &test);
  std::printf("digits: %lld training and %lld test images, model %s\n",
              static_cast<long long>(train.size()), static_cast<long long>(test.size()),
              flags.model.c_str());

  Scope root = Scope::NewRootScope();
  ASSIGN_OR_RETURN(Model model, BuildModel(root, flags.model, flags.seed, flags.learning_rate));
  ASSIGN_OR_RETURN(Saver saver, Saver::Create(root, model.variables));
  ASSIGN_OR_RETURN(tensorflow::GraphDef graph, root.ToGraphDef());
  SessionOptions options;
  if (flags.gpus >= 0) options.device_count = {{"GPU", flags.gpus}};
  absl::StatusOr<std::unique_ptr<Session>> created = Session::Create(options, graph);
  if (!created.ok() && flags.gpus > 0 && NoGpu(created.status())) {
    std::printf("skipped: no GPU device (%s)\n", std::string(created.status().message()).c_str());
    *skipped = true;
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(created.status());
  std::unique_ptr<Session> session = *std::move(created);

  std::vector<Tensor> out;
  if (flags.restore) {
    RETURN_IF_ERROR(saver.Restore(session.get(), flags.checkpoint));
    RETURN_IF_ERROR(session->Run({}, {"global_step"}, {}, &out));
    std::printf("restored %s (global step %lld)\n", flags.checkpoint.c_str(),
                static_cast<long long>(*out[0].data<int64_t>()));
  } else {
    RETURN_IF_ERROR(session->Run({}, {}, model.initializers, &out));
  }

  const bool tty = isatty(fileno(stdout)) != 0;
  std::mt19937 rng(static_cast<uint32_t>(flags.seed));
  std::vector<int64_t> order(static_cast<size_t>(train.size()));
  std::iota(order.begin(), order.end(), 0);
  const int64_t batches = (train.size() + flags.batch - 1) / flags.batch;
  const auto start = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= flags.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    double loss_sum = 0, correct = 0;
    int64_t seen = 0;
    for (int64_t k = 0; k < batches; ++k) {
      const int64_t begin = k * flags.batch;
      const int64_t end = std::min<int64_t>(begin + flags.batch, train.size());
      Tensor pixels, labels;
      Batch(train, order, begin, end, &pixels, &labels);
      // The first step says where its nodes ran.
      const bool first_step = epoch == 1 && k == 0;
      RunOptions run_options;
      run_options.collect_step_stats = first_step;
      RunMetadata metadata;
      RETURN_IF_ERROR(session->Run(run_options,
                                   {{model.pixels.name(), pixels}, {model.labels.name(), labels}},
                                   {model.loss.name(), model.accuracy.name()},
                                   {model.train.node_name()}, &out, &metadata));
      if (first_step) RETURN_IF_ERROR(ReportDevices(metadata, flags.gpus));
      seen += end - begin;
      loss_sum += *out[0].data<float>() * static_cast<double>(end - begin);
      correct += *out[1].data<float>() * static_cast<double>(end - begin);
      if (tty) {
        DrawProgress(epoch, flags.epochs, k + 1, batches, loss_sum / seen, correct / seen, false);
      }
    }
    double test_loss = 0, test_acc = 0;
    RETURN_IF_ERROR(Evaluate(session.get(), model, test, flags.batch, &test_loss, &test_acc));
    DrawProgress(epoch, flags.epochs, batches, batches, loss_sum / seen, correct / seen, false);
    std::printf("  test loss %.4f acc %5.1f%%\n", test_loss, 100 * test_acc);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double test_loss = 0;
  RETURN_IF_ERROR(Evaluate(session.get(), model, test, flags.batch, &test_loss, test_accuracy));
  std::printf("test accuracy %.2f%% after %d epochs (%.1f s, %.2f ms per step)\n",
              100 * *test_accuracy, flags.epochs, seconds,
              flags.epochs > 0 ? 1000 * seconds / static_cast<double>(flags.epochs * batches) : 0);
  if (!flags.checkpoint.empty()) {
    RETURN_IF_ERROR(saver.Save(session.get(), flags.checkpoint));
    std::printf("saved checkpoint %s (.index, .data-00000-of-00001)\n", flags.checkpoint.c_str());
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace tessera::digits

int main(int argc, char** argv) {
  tessera::digits::Flags flags;
  std::string error;
  if (!tessera::digits::ParseFlags(argc, argv, &flags, &error)) {
    return tessera::digits::Usage(error);
  }
  double accuracy = 0;
  bool skipped = false;
  absl::Status status = tessera::digits::Train(flags, &accuracy, &skipped);
  if (status.ok() && skipped) return tessera::digits::kSkipped;
  if (!status.ok()) {
    std::fprintf(stderr, "tessera_train_digits: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (accuracy < flags.min_test_accuracy) {
    std::fprintf(stderr, "tessera_train_digits: test accuracy %.4f is below %.4f\n", accuracy,
                 flags.min_test_accuracy);
    return 1;
  }
  return 0;
}
