// Tests that the random op wrappers emit exactly TensorFlow's NodeDefs, their errors, and the
// Python seed pairing.
#include "host/client/random_ops.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/array_ops.h"
#include "host/client/client_test_util.h"

namespace tessera {
namespace {

using ::tessera::testing::GraphOf;
using ::tessera::testing::NodeEquals;
using ::testing::HasSubstr;

TEST(RandomOpsTest, FloatOpsWriteEveryAttr) {
  Scope root = Scope::NewRootScope();
  auto shape = ops::Placeholder(root.WithOpName("shape"), DT_INT64);
  auto u = ops::RandomUniform(root, shape, DT_FLOAT);
  auto n = ops::RandomNormal(root, {2, 3}, DT_DOUBLE, ops::RandomNormal::Seed(1).Seed2(2));
  auto t =
      ops::TruncatedNormal(root.WithOpName("t"), shape, DT_HALF, ops::TruncatedNormal::Seed2(-7));
  EXPECT_EQ(u.output.type(), DT_FLOAT);
  EXPECT_EQ(n.output.type(), DT_DOUBLE);
  EXPECT_EQ(t.output.type(), DT_HALF);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "RandomUniform", R"pb(
    name: "RandomUniform"
    op: "RandomUniform"
    input: "shape"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "seed"
      value { i: 0 }
    }
    attr {
      key: "seed2"
      value { i: 0 }
    }
    attr {
      key: "T"
      value { type: DT_INT64 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "RandomNormal", R"pb(
    name: "RandomNormal"
    op: "RandomStandardNormal"
    input: "Const/Const"
    attr {
      key: "dtype"
      value { type: DT_DOUBLE }
    }
    attr {
      key: "seed"
      value { i: 1 }
    }
    attr {
      key: "seed2"
      value { i: 2 }
    }
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  )pb"));
  EXPECT_TRUE(NodeEquals(def, "t", R"pb(
    name: "t"
    op: "TruncatedNormal"
    input: "shape"
    attr {
      key: "dtype"
      value { type: DT_HALF }
    }
    attr {
      key: "seed"
      value { i: 0 }
    }
    attr {
      key: "seed2"
      value { i: -7 }
    }
    attr {
      key: "T"
      value { type: DT_INT64 }
    }
  )pb"));
}

TEST(RandomOpsTest, UniformIntTakesItsTypeFromTheBounds) {
  Scope root = Scope::NewRootScope();
  auto r = ops::RandomUniformInt(root.WithOpName("r"), {4}, int64_t{-3}, int64_t{9},
                                 ops::RandomUniformInt::Seed(5));
  EXPECT_EQ(r.output.type(), DT_INT64);
  tensorflow::GraphDef def = GraphOf(root);
  EXPECT_TRUE(NodeEquals(def, "r", R"pb(
    name: "r"
    op: "RandomUniformInt"
    input: "Const/Const"
    input: "Const_1/Const"
    input: "Const_2/Const"
    attr {
      key: "seed"
      value { i: 5 }
    }
    attr {
      key: "seed2"
      value { i: 0 }
    }
    attr {
      key: "Tout"
      value { type: DT_INT64 }
    }
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  )pb"));
}

std::string ErrorOf(const Scope& scope) {
  EXPECT_EQ(scope.status().code(), absl::StatusCode::kInvalidArgument) << scope.status();
  return std::string(scope.status().message());
}

TEST(RandomOpsErrorTest, DtypeMustBeAFloatingType) {
  Scope root = Scope::NewRootScope();
  ops::RandomUniform(root.WithOpName("u"), {2}, DT_INT32);
  EXPECT_THAT(ErrorOf(root), HasSubstr("while building node 'u' (RandomUniform): attr 'dtype' "
                                       "must be half, bfloat16, float or double, got int32"));
}

TEST(RandomOpsErrorTest, ShapeMustBeAnIndexType) {
  Scope root = Scope::NewRootScope();
  ops::TruncatedNormal(root, {2.0f}, DT_FLOAT);
  EXPECT_THAT(ErrorOf(root), HasSubstr("attr 'T' (the type of input 'Const/Const:0') is float"));
}

TEST(RandomOpsErrorTest, UniformIntBoundsMustShareAnIntegerType) {
  Scope mixed = Scope::NewRootScope();
  ops::RandomUniformInt(mixed, {2}, 0, int64_t{5});
  EXPECT_THAT(ErrorOf(mixed),
              HasSubstr("inconsistent values for attr 'Tout': input 0 is int32 but input 1 is "
                        "int64"));
  Scope floats = Scope::NewRootScope();
  ops::RandomUniformInt(floats, {2}, 0.0f, 1.0f);
  EXPECT_THAT(ErrorOf(floats), HasSubstr("attr 'Tout'"));
}

TEST(RandomOpsTest, PythonSeedsPairGlobalAndOpSeeds) {
  // tf.random.set_seed(5) with seed=10.
  ops::RandomAttrs both = ops::PythonSeeds(5, 10);
  EXPECT_EQ(both.seed_, 5);
  EXPECT_EQ(both.seed2_, 10);
  // Only an op seed: TensorFlow's default graph seed.
  ops::RandomAttrs op_only = ops::PythonSeeds(std::nullopt, 1);
  EXPECT_EQ(op_only.seed_, 87654321);
  EXPECT_EQ(op_only.seed2_, 1);
  // Seeds are reduced modulo 2^31 - 1, negative ones to a non-negative remainder.
  ops::RandomAttrs large = ops::PythonSeeds(int64_t{1} << 40, -1);
  EXPECT_EQ(large.seed_, (int64_t{1} << 40) % 2147483647);
  EXPECT_EQ(large.seed2_, 2147483646);
  // (0, 0) would mean "no seed" to the kernels.
  ops::RandomAttrs zeros = ops::PythonSeeds(0, 2147483647);
  EXPECT_EQ(zeros.seed_, 0);
  EXPECT_EQ(zeros.seed2_, 2147483647);
}

}  // namespace
}  // namespace tessera
