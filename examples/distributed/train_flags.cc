// Parsing and checking tessera_train_distributed's flags.
#include "examples/distributed/train_flags.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tessera::distributed_example {
namespace {

absl::Status BadValue(const std::string& flag, const std::string& value,
                      const std::string& expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, " expects ", expected, ", got '", value, "'"));
}

}  // namespace

std::string TrainUsage() {
  return "usage: tessera_train_distributed [--target grpc://HOST:PORT] [--steps N] [--batch N]\n"
         "         [--seed N] [--learning-rate X] [--momentum X] [--intra-op-threads N]\n"
         "         [--data digits.csv.gz] [--compare]\n";
}

absl::StatusOr<TrainFlags> ParseTrainFlags(const std::vector<std::string>& args,
                                           const std::string& default_data) {
  TrainFlags flags;
  flags.data = default_data;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--compare") {
      flags.compare = true;
      continue;
    }
    const bool known = flag == "--target" || flag == "--data" || flag == "--steps" ||
                       flag == "--batch" || flag == "--seed" || flag == "--learning-rate" ||
                       flag == "--momentum" || flag == "--intra-op-threads";
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", flag, "'"));
    }
    if (i + 1 >= args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
    }
    const std::string& value = args[++i];
    if (flag == "--target") {
      if (!value.empty() && !absl::StrContains(value, "://")) {
        return BadValue(flag, value, "SCHEME://HOST:PORT (e.g. grpc://localhost:2222) or ''");
      }
      flags.target = value;
    } else if (flag == "--data") {
      flags.data = value;
    } else if (flag == "--steps") {
      if (!absl::SimpleAtoi(value, &flags.steps) || flags.steps < 1) {
        return BadValue(flag, value, "a number of steps >= 1");
      }
    } else if (flag == "--batch") {
      if (!absl::SimpleAtoi(value, &flags.batch) || flags.batch < 2 || flags.batch % 2 != 0) {
        return BadValue(flag, value, "an even batch size >= 2 (one half per worker)");
      }
    } else if (flag == "--seed") {
      if (!absl::SimpleAtoi(value, &flags.seed)) return BadValue(flag, value, "an integer");
    } else if (flag == "--learning-rate") {
      if (!absl::SimpleAtod(value, &flags.learning_rate) || !(flags.learning_rate > 0)) {
        return BadValue(flag, value, "a number > 0");
      }
    } else if (flag == "--momentum") {
      if (!absl::SimpleAtod(value, &flags.momentum) || !(flags.momentum >= 0) ||
          !(flags.momentum < 1)) {
        return BadValue(flag, value, "a number in [0, 1)");
      }
    } else if (flag == "--intra-op-threads") {
      if (!absl::SimpleAtoi(value, &flags.intra_op_threads) || flags.intra_op_threads < 1) {
        return BadValue(flag, value, "a number of threads >= 1");
      }
    }
  }
  return flags;
}

}  // namespace tessera::distributed_example
