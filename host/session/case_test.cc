// Case and StatelessCase through sessions: lowered to a cascade of Switches at import, exactly the
// indexed branch runs, an index out of range runs the last branch (TensorFlow's rule), a Case
// without results, with one branch, inside a While loop, and the errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<Session>> Create(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return Session::Create(SessionOptions(), def);
}

// A float -> float function computing `op` of x and a constant `c` ("AddV2", "Mul").
std::string Unary(const std::string& name, const std::string& op, float c) {
  return absl::StrCat(R"pb(
    function {
      signature {
        name: ")pb", name, R"pb("
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "c"
        op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: )pb",
                      c, R"pb( } } }
      }
      node_def {
        name: "r"
        op: ")pb", op, R"pb("
        input: "x"
        input: "c:output:0"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "y" value: "r:z:0" }
    })pb");
}

// Plus1(x) = x + 1, Times3(x) = 3x, Negate(x) = -x.
std::string Branches() {
  return absl::StrCat("library {", Unary("Plus1", "AddV2", 1), Unary("Times3", "Mul", 3),
                      Unary("Negate", "Mul", -1), "}\n");
}

std::string CaseNode(const std::string& name, const std::string& op, const std::string& index,
                     const std::string& input, const std::vector<std::string>& branches,
                     bool with_output = true) {
  std::string funcs;
  for (const std::string& b : branches) absl::StrAppend(&funcs, "func { name: \"", b, "\" } ");
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" input: \"", index, "\"",
                      input.empty() ? "" : absl::StrCat(" input: \"", input, "\""),
                      " attr { key: \"Tin\" value { list { ",
                      input.empty() ? "" : "type: DT_FLOAT", " } } }",
                      " attr { key: \"Tout\" value { list { ", with_output ? "type: DT_FLOAT" : "",
                      " } } } attr { key: \"branches\" value { list { ", funcs, "} } } }\n");
}

constexpr char kPlaceholders[] = R"pb(
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

TEST(CaseTest, TheIndexedBranchRunsAndOutOfRangeRunsTheLast) {
  auto session = Create(absl::StrCat(
      kPlaceholders, CaseNode("case", "Case", "i", "x", {"Plus1", "Times3", "Negate"}),
      CaseNode("stateless", "StatelessCase", "i", "x", {"Times3", "Plus1"}), Branches()));
  ASSERT_TRUE(session.ok()) << session.status();
  struct Expect {
    int index;
    float three_way;
    float two_way;
  };
  // x = 2: Plus1 3, Times3 6, Negate -2.
  for (const Expect& e : {Expect{0, 3, 6}, Expect{1, 6, 3}, Expect{2, -2, 3}, Expect{-1, -2, 3},
                          Expect{7, -2, 3}}) {
    std::vector<Tensor> out;
    absl::Status status = (*session)->Run(
        {{"i", Tensor::Scalar<int32_t>(e.index)}, {"x", Tensor::Scalar<float>(2.0f)}},
        {"case", "stateless"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_FLOAT_EQ(*out[0].data<float>(), e.three_way) << "index " << e.index;
    EXPECT_FLOAT_EQ(*out[1].data<float>(), e.two_way) << "index " << e.index;
  }
  // A branch not taken is dead: fetching inside it is an error.
  std::vector<Tensor> out;
  absl::Status dead = (*session)->Run(
      {{"i", Tensor::Scalar<int32_t>(0)}, {"x", Tensor::Scalar<float>(2.0f)}},
      {"case/branch_1/r"}, {}, &out);
  EXPECT_EQ(dead.code(), absl::StatusCode::kInvalidArgument) << dead;
  EXPECT_THAT(dead.message(), HasSubstr("is dead"));
}

// An index computed in the graph may be fed: its producer (here a Cast of a placeholder nobody
// feeds) then does not run.
TEST(CaseTest, AFedIndexLeavesItsProducerUnrun) {
  auto session = Create(absl::StrCat(
      kPlaceholders,
      R"pb(node { name: "f" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
           node {
             name: "cast"
             op: "Cast"
             input: "f"
             attr { key: "SrcT" value { type: DT_FLOAT } }
             attr { key: "DstT" value { type: DT_INT32 } }
           })pb",
      CaseNode("case", "Case", "cast", "x", {"Plus1", "Times3"}), Branches()));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run(
      {{"cast", Tensor::Scalar<int32_t>(1)}, {"x", Tensor::Scalar<float>(2.0f)}}, {"case"}, {},
      &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 6.0f);
}

TEST(CaseTest, OneBranch) {
  auto session =
      Create(absl::StrCat(kPlaceholders, CaseNode("case", "Case", "i", "x", {"Times3"}),
                          Branches()));
  ASSERT_TRUE(session.ok()) << session.status();
  for (int index : {0, 5}) {
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)
                    ->Run({{"i", Tensor::Scalar<int32_t>(index)},
                           {"x", Tensor::Scalar<float>(2.0f)}},
                          {"case"}, {}, &out)
                    .ok());
    EXPECT_FLOAT_EQ(*out[0].data<float>(), 6.0f);
  }
}

// Branches without results: "Fail" asserts false, "Pass" does nothing. Only the indexed one runs.
constexpr char kSideEffects[] = R"pb(
  library {
    function {
      signature { name: "Pass" }
    }
    function {
      signature { name: "Fail" is_stateful: true }
      node_def {
        name: "no"
        op: "Const"
        attr { key: "dtype" value { type: DT_BOOL } }
        attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } }
      }
      node_def {
        name: "assert"
        op: "Assert"
        input: "no:output:0"
        input: "no:output:0"
        attr { key: "T" value { list { type: DT_BOOL } } }
      }
    }
  }
)pb";

TEST(CaseTest, ACaseWithoutResultsRunsOnlyItsBranch) {
  auto session = Create(absl::StrCat(
      kPlaceholders, CaseNode("case", "Case", "i", "", {"Pass", "Fail", "Pass"}, false),
      kSideEffects));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  for (int index : {0, 2, 9}) {
    absl::Status status =
        (*session)->Run({{"i", Tensor::Scalar<int32_t>(index)}}, {}, {"case"}, &out);
    EXPECT_TRUE(status.ok()) << "index " << index << ": " << status;
  }
  absl::Status failed = (*session)->Run({{"i", Tensor::Scalar<int32_t>(1)}}, {}, {"case"}, &out);
  EXPECT_EQ(failed.code(), absl::StatusCode::kInvalidArgument) << failed;
  EXPECT_THAT(failed.message(), HasSubstr("assertion failed"));

  // One branch and no results: it runs whatever the index.
  auto single = Create(absl::StrCat(
      kPlaceholders, CaseNode("case", "StatelessCase", "i", "", {"Fail"}, false), kSideEffects));
  ASSERT_TRUE(single.ok()) << single.status();
  failed = (*single)->Run({{"i", Tensor::Scalar<int32_t>(4)}}, {}, {"case"}, &out);
  EXPECT_THAT(failed.message(), HasSubstr("assertion failed"));
}

// A While whose body applies Case(i) to acc: i = 0..3 runs Plus1, Times3, Negate, and Negate again (3
// is out of range). The Case's nodes live in the loop's frame.
constexpr char kLoop[] = R"pb(
  function {
    signature {
      name: "Cond"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "acc" type: DT_FLOAT }
      output_arg { name: "more" type: DT_BOOL }
    }
    node_def {
      name: "four"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 4 } } }
    }
    node_def {
      name: "less"
      op: "Less"
      input: "i"
      input: "four:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "more" value: "less:z:0" }
  }
  function {
    signature {
      name: "Body"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "acc" type: DT_FLOAT }
      output_arg { name: "i_next" type: DT_INT32 }
      output_arg { name: "acc_next" type: DT_FLOAT }
    }
    node_def {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } }
    }
    node_def {
      name: "inc"
      op: "AddV2"
      input: "i"
      input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "step"
      op: "StatelessCase"
      input: "i"
      input: "acc"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr {
        key: "branches"
        value { list { func { name: "Plus1" } func { name: "Times3" } func { name: "Negate" } } }
      }
    }
    ret { key: "i_next" value: "inc:z:0" }
    ret { key: "acc_next" value: "step:output:0" }
  }
)pb";

TEST(CaseTest, ACaseInsideAWhileLoopRunsEachIteration) {
  std::string library = Branches();
  library.insert(library.rfind('}'), kLoop);
  auto session = Create(absl::StrCat(kPlaceholders, R"pb(
    node {
      name: "zero"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
    }
    node {
      name: "loop"
      op: "StatelessWhile"
      input: "zero"
      input: "x"
      attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT } } }
      attr { key: "cond" value { func { name: "Cond" } } }
      attr { key: "body" value { func { name: "Body" } } }
    }
  )pb", library));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({{"x", Tensor::Scalar<float>(1.0f)}}, {"loop:1"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  // 1 -> 2 -> 6 -> -6 -> 6.
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 6.0f);
}

TEST(CaseTest, BadCasesAreRefusedWhenTheSessionIsCreated) {
  auto session = Create(absl::StrCat(
      kPlaceholders, CaseNode("case", "Case", "i", "x", {"Plus1", "Missing"}), Branches()));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(session.status().message(),
              HasSubstr("node 'case' (Case) has branch 1 'Missing', which the graph's library "
                        "does not define"));

  // A branch that does not take the Case's inputs.
  session = Create(absl::StrCat(kPlaceholders,
                                CaseNode("case", "Case", "i", "x", {"Plus1", "Pass"}),
                                Branches().substr(0, Branches().rfind('}')),
                                std::string(kSideEffects).substr(
                                    std::string(kSideEffects).find("library {") + 9)));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(session.status().message(),
              HasSubstr("its branch 1 'Pass' takes [] and returns [], but it must take [float] "
                        "and return [float]"));

  // No branches: the op's definition requires one.
  session = Create(absl::StrCat(kPlaceholders, CaseNode("case", "Case", "i", "x", {}), Branches()));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(session.status().message(), HasSubstr("branches"));
}

}  // namespace
}  // namespace tessera
