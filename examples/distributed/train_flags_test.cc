// Tests of tessera_train_distributed's flag parsing: defaults, every flag, every rejection.
#include "examples/distributed/train_flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::distributed_example {
namespace {

using ::testing::HasSubstr;

absl::Status ParseError(const std::vector<std::string>& args) {
  return ParseTrainFlags(args, "digits.csv.gz").status();
}

TEST(TrainFlagsTest, DefaultsTrainLocallyWithOneIntraOpThread) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags({}, "default.csv.gz");
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->target, "");
  EXPECT_EQ(flags->data, "default.csv.gz");
  EXPECT_EQ(flags->steps, 300);
  EXPECT_EQ(flags->batch, 64);
  EXPECT_EQ(flags->intra_op_threads, 1);
  EXPECT_FALSE(flags->compare);
}

TEST(TrainFlagsTest, ReadsEveryFlag) {
  absl::StatusOr<TrainFlags> flags =
      ParseTrainFlags({"--target", "grpc://localhost:2222", "--steps", "7", "--batch", "10",
                       "--seed", "-3", "--learning-rate", "0.5", "--momentum", "0",
                       "--intra-op-threads", "2", "--data", "d.gz", "--compare"},
                      "default.csv.gz");
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->target, "grpc://localhost:2222");
  EXPECT_EQ(flags->steps, 7);
  EXPECT_EQ(flags->batch, 10);
  EXPECT_EQ(flags->seed, -3);
  EXPECT_EQ(flags->learning_rate, 0.5);
  EXPECT_EQ(flags->momentum, 0);
  EXPECT_EQ(flags->intra_op_threads, 2);
  EXPECT_EQ(flags->data, "d.gz");
  EXPECT_TRUE(flags->compare);
}

TEST(TrainFlagsTest, EmptyTargetMeansLocal) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags({"--target", ""}, "d");
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->target, "");
}

struct Rejection {
  std::vector<std::string> args;
  std::string message;
};

class TrainFlagsRejectionTest : public ::testing::TestWithParam<Rejection> {};

TEST_P(TrainFlagsRejectionTest, RejectsWithInvalidArgumentNamingFlagAndValue) {
  absl::Status status = ParseError(GetParam().args);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Flags, TrainFlagsRejectionTest,
    ::testing::Values(
        Rejection{{"--epochs", "3"}, "unknown argument '--epochs'"},
        Rejection{{"--steps"}, "--steps needs a value"},
        Rejection{{"--target", "localhost:2222"},
                  "--target expects SCHEME://HOST:PORT (e.g. grpc://localhost:2222) or '', got "
                  "'localhost:2222'"},
        Rejection{{"--steps", "0"}, "--steps expects a number of steps >= 1, got '0'"},
        Rejection{{"--steps", "x"}, "--steps expects a number of steps >= 1, got 'x'"},
        Rejection{{"--batch", "7"},
                  "--batch expects an even batch size >= 2 (one half per worker), got '7'"},
        Rejection{{"--batch", "0"},
                  "--batch expects an even batch size >= 2 (one half per worker), got '0'"},
        Rejection{{"--seed", "one"}, "--seed expects an integer, got 'one'"},
        Rejection{{"--learning-rate", "0"}, "--learning-rate expects a number > 0, got '0'"},
        Rejection{{"--learning-rate", "nan"}, "--learning-rate expects a number > 0, got 'nan'"},
        Rejection{{"--momentum", "1"}, "--momentum expects a number in [0, 1), got '1'"},
        Rejection{{"--momentum", "-0.1"}, "--momentum expects a number in [0, 1), got '-0.1'"},
        Rejection{{"--intra-op-threads", "0"},
                  "--intra-op-threads expects a number of threads >= 1, got '0'"}));

}  // namespace
}  // namespace tessera::distributed_example
