// Function inlining's errors: each names the call, the function and, inside a body, the node;
// recursion, depth and size limits; the library's own faults.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/graph/function_inline.h"
#include "host/graph/function_inline_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using function_inline_testing::FunctionInlineTest;
using function_inline_testing::kFloatX;
using function_inline_testing::kSquare;

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

std::string SquareCall(const std::string& name, const std::string& op, const std::string& inputs,
                       const std::string& extra = "") {
  return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" ", inputs,
                      " attr { key: \"T\" value { type: DT_FLOAT } } ", extra, " }");
}

TEST_F(FunctionInlineTest, ErrorsNameTheCallAndTheFunction) {
  ExpectError(InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x' input: 'x'")),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'sq' (Squared) has 2 data inputs, but function 'Squared' takes 1 [float]");
  ExpectError(InlineError(absl::StrCat(kFloatX, "node { name: 'sq' op: 'Squared' input: 'x' }"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "while instantiating function 'Squared' for node 'sq' (Squared): node 'sq' (Squared) "
              "is missing required attr 'T'");
  ExpectError(InlineError(absl::StrCat(kFloatX, R"pb(
                node {
                  name: "call"
                  op: "PartitionedCall"
                  input: "x"
                  attr {
                    key: "Tin"
                    value { list { type: DT_FLOAT } }
                  }
                  attr {
                    key: "Tout"
                    value { list { type: DT_FLOAT } }
                  }
                  attr {
                    key: "f"
                    value { func { name: "Nowhere" } }
                  }
                }
              )pb"),
                          kSquare),
              absl::StatusCode::kNotFound,
              "node 'call' (PartitionedCall) calls function 'Nowhere', which the graph's library "
              "does not define");
  ExpectError(InlineError(absl::StrCat(kFloatX, R"pb(
                node {
                  name: "call"
                  op: "PartitionedCall"
                  input: "x"
                  attr {
                    key: "Tin"
                    value { list { type: DT_FLOAT } }
                  }
                  attr {
                    key: "Tout"
                    value { list { type: DT_INT32 } }
                  }
                  attr {
                    key: "f"
                    value {
                      func {
                        name: "Squared"
                        attr {
                          key: "T"
                          value { type: DT_FLOAT }
                        }
                      }
                    }
                  }
                }
              )pb"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) has Tout [int32], but function 'Squared' returns "
              "[float]");
}

TEST_F(FunctionInlineTest, BodyErrorsNameTheNodeInsideTheFunction) {
  auto body_error = [&](const std::string& node_def, const std::string& ret) {
    return InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }"),
                       absl::StrCat(R"pb(
                         function {
                           signature {
                             name: "F"
                             input_arg { name: "x" type: DT_FLOAT }
                             output_arg { name: "y" type: DT_FLOAT }
                           }
                         )pb",
                                    node_def, " ret { key: 'y' value: '", ret, "' } }"));
  };
  constexpr char kNeg[] =
      "node_def { name: 'n' op: 'Neg' input: '%s' attr { key: 'T' value { type: DT_FLOAT } } }";
  auto neg = [&](const std::string& input) {
    std::string text = kNeg;
    text.replace(text.find("%s"), 2, input);
    return text;
  };
  ExpectError(body_error(neg("nope:y:0"), "n:y:0"), absl::StatusCode::kInvalidArgument,
              "input 'nope:y:0' of node 'n' (body of function 'F' called by node 'c' (F)): names "
              "no argument and no node output (expected 'arg', 'arg:index', 'node:output' or "
              "'node:output:index')");
  ExpectError(body_error(neg("x"), "n:out:0"), absl::StatusCode::kInvalidArgument,
              "result 'n:out:0' of output 'y' of function 'F' called by node 'c' (F): node 'n' "
              "(Neg) has no output named 'out'");
  ExpectError(body_error(neg("x"), "n:y:1"), absl::StatusCode::kInvalidArgument,
              "result 'n:y:1' of output 'y' of function 'F' called by node 'c' (F): output 'y' "
              "of node 'n' has 1 tensor");
  ExpectError(body_error(neg("x:1"), "n:y:0"), absl::StatusCode::kInvalidArgument,
              "input 'x:1' of node 'n' (body of function 'F' called by node 'c' (F)): argument "
              "'x' has 1 tensor");
  ExpectError(body_error(neg("x"), "n"), absl::StatusCode::kInvalidArgument,
              "result 'n' of output 'y' of function 'F' called by node 'c' (F): names no "
              "argument and no node output (expected 'arg', 'arg:index', 'node:output' or "
              "'node:output:index')");
  ExpectError(body_error("node_def { name: 'n' op: 'Frob' input: 'x' }", "n:y:0"),
              absl::StatusCode::kNotFound,
              "node 'n' has op 'Frob', which is neither a registered op nor a function of the "
              "graph's library (body of function 'F' called by node 'c' (F))");
  ExpectError(body_error(absl::StrCat(neg("x"), "node_def { name: 'k' op: 'NoOp' input: '^m' }"),
                         "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "control input '^m' of node 'k' names no node of the body (body of function 'F' "
              "called by node 'c' (F))");
  ExpectError(body_error(absl::StrCat(neg("x"), neg("x")), "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "two nodes of function 'F' called by node 'c' (F) are named 'n'");
  ExpectError(body_error("node_def { name: 'x' op: 'NoOp' }", "x"),
              absl::StatusCode::kInvalidArgument,
              "a node and an argument of function 'F' called by node 'c' (F) are both named 'x'");
  ExpectError(body_error("node_def { name: 'n' op: 'Neg' input: 'x' attr { key: 'T' value { "
                         "placeholder: 'Q' } } }",
                         "n:y:0"),
              absl::StatusCode::kInvalidArgument,
              "attr 'T' of node 'n' refers to attr '$Q', which the function does not have (body "
              "of function 'F' called by node 'c' (F))");
  ExpectError(InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }"), R"pb(
                function {
                  signature {
                    name: "F"
                    input_arg { name: "x" type: DT_FLOAT }
                    output_arg { name: "y" type: DT_FLOAT }
                  }
                }
              )pb"),
              absl::StatusCode::kInvalidArgument,
              "output 'y' of function 'F' called by node 'c' (F) has no entry in the ret map");
}

TEST_F(FunctionInlineTest, RecursionIsRefusedWithTheCycle) {
  ExpectError(InlineError("node { name: 'c' op: 'F' }", R"pb(
                function {
                  signature { name: "F" }
                  node_def { name: "g" op: "G" }
                }
                function {
                  signature { name: "G" }
                  node_def { name: "f" op: "F" }
                }
              )pb"),
              absl::StatusCode::kInvalidArgument,
              "function 'F' calls itself: F -> G -> F (recursive functions cannot be inlined)");
}

TEST_F(FunctionInlineTest, DeepAndExplodingCallTreesAreRefused) {
  // F0 -> F1 -> ... -> F70: deeper than the 64 calls allowed.
  std::string chain;
  for (int i = 0; i <= 70; ++i) {
    absl::StrAppend(&chain, "function { signature { name: 'F", i, "' } ",
                    i < 70 ? absl::StrCat("node_def { name: 'n' op: 'F", i + 1, "' }") : "",
                    " }");
  }
  absl::Status deep = InlineError("node { name: 'c' op: 'F0' }", chain);
  EXPECT_EQ(deep.code(), absl::StatusCode::kInvalidArgument);
  std::string caller = "c";
  std::string functions = "F0";
  for (int i = 1; i <= 64; ++i) absl::StrAppend(&caller, "/n");
  for (int i = 1; i < 64; ++i) absl::StrAppend(&functions, " -> F", i);
  EXPECT_EQ(deep.message(), absl::StrCat("node '", caller, "' (F64) calls function 'F64' more "
                                         "than 64 calls deep: ", functions));

  // E0 calls E1 twice, E1 calls E2 twice, ...: 2^21 bodies.
  std::string tree;
  for (int i = 0; i <= 21; ++i) {
    absl::StrAppend(&tree, "function { signature { name: 'E", i, "' } ",
                    i < 21 ? absl::StrCat("node_def { name: 'a' op: 'E", i + 1,
                                          "' } node_def { name: 'b' op: 'E", i + 1, "' }")
                           : "node_def { name: 'leaf' op: 'NoOp' }",
                    " }");
  }
  ExpectError(InlineError("node { name: 'c' op: 'E0' }", tree),
              absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 1048576 nodes");

  // A library too deep for the estimate's recursion is estimated without recursing further.
  std::string long_chain;
  for (int i = 0; i <= 5000; ++i) {
    absl::StrAppend(&long_chain, "function { signature { name: 'L", i, "' } ",
                    i < 5000 ? absl::StrCat("node_def { name: 'n' op: 'L", i + 1, "' }") : "",
                    " }");
  }
  absl::Status too_deep = InlineError("node { name: 'c' op: 'L0' }", long_chain);
  EXPECT_EQ(too_deep.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_deep.message()), HasSubstr("more than 64 calls deep"));
}

TEST_F(FunctionInlineTest, InputsAndBytesAreBounded) {
  // Every NoOp waits for all 4 tensors of the Split: 3 of them need 12 inputs.
  std::string library = R"pb(
    function {
      signature {
        name: "F"
        input_arg { name: "x" type: DT_FLOAT }
      }
      node_def {
        name: "dim"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 0
            }
          }
        }
      }
      node_def {
        name: "split"
        op: "Split"
        input: "dim:output:0"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "num_split"
          value { i: 4 }
        }
      }
      node_def { name: "a" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
      node_def { name: "b" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
      node_def { name: "d" op: "IdentityN" input: "split:output" attr { key: "T" value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT ] } } } }
    }
  )pb";
  std::string call = absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' }");
  InlineLimits limits;
  limits.max_inputs = 10;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 10 inputs");
  limits = InlineLimits();
  limits.max_bytes = 100;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 100 bytes of nodes");
  limits = InlineLimits();
  limits.max_nodes = 5;
  ExpectError(InlineError(call, library, limits), absl::StatusCode::kInvalidArgument,
              "inlining the graph's function calls makes more than 5 nodes");
  EXPECT_TRUE(InlineError(call, library).ok());
}

TEST_F(FunctionInlineTest, MoreCallAndBodyErrors) {
  std::string partitioned = R"pb(
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr {
        key: "Tin"
        value { list { type: DT_INT32 } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      %s
    }
  )pb";
  auto with_f = [&](const std::string& f) {
    std::string text = partitioned;
    text.replace(text.find("%s"), 2, f);
    return absl::StrCat(kFloatX, text);
  };
  ExpectError(InlineError(with_f("attr { key: 'f' value { func { name: 'Squared' attr { key: 'T' "
                                 "value { type: DT_FLOAT } } } } }"),
                          kSquare),
              absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) has Tin [int32], but function 'Squared' takes "
              "[float]");
  ExpectError(InlineError(with_f(""), kSquare), absl::StatusCode::kInvalidArgument,
              "node 'call' (PartitionedCall) is missing required attr 'f'");

  auto one_function = [&](const std::string& signature_extra, const std::string& body) {
    return InlineError(absl::StrCat(kFloatX, "node { name: 'c' op: 'F' input: 'x' attr { key: "
                                             "'N' value { i: 2 } } }"),
                       absl::StrCat("function { signature { name: 'F' input_arg { name: 'x' "
                                    "type: DT_FLOAT } attr { name: 'N' type: 'int' } ",
                                    signature_extra, " } ", body, " }"));
  };
  constexpr char kNeg[] =
      "node_def { name: 'n' op: 'Neg' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } } ";
  ExpectError(one_function("output_arg { name: 'ys' type: DT_FLOAT number_attr: 'N' }",
                           absl::StrCat(kNeg, "ret { key: 'ys' value: 'n:y:0' }")),
              absl::StatusCode::kInvalidArgument,
              "result 'n:y:0' is 1 tensor, but output 'ys' of function 'F' called by node 'c' "
              "(F) has 2");
  ExpectError(one_function("control_output: 'side'",
                           absl::StrCat(kNeg, "control_ret { key: 'side' value: 'nope' }")),
              absl::StatusCode::kInvalidArgument,
              "control output 'side' of function 'F' called by node 'c' (F) names node 'nope', "
              "which the body does not have");
  ExpectError(one_function("", "node_def { name: 'n' op: 'Neg' input: 'x' }"),
              absl::StatusCode::kInvalidArgument,
              "in the body of function 'F' called by node 'c' (F): node 'c/n' (Neg) is missing "
              "required attr 'T'");
  ExpectError(one_function("", "node_def { name: 'n' op: 'PartitionedCall' input: 'x' attr { key: "
                               "'Tin' value { list { type: DT_FLOAT } } } attr { key: 'Tout' "
                               "value { list { } } } attr { key: 'f' value { func { name: "
                               "'Nope' } } } }"),
              absl::StatusCode::kNotFound,
              "in the body of function 'F' called by node 'c' (F): node 'c/n' (PartitionedCall) "
              "calls function 'Nope', which the graph's library does not define");
  for (const char* bad : {"x:1:2:3", "x:abc", ":0"}) {
    ExpectError(one_function("", absl::StrCat("node_def { name: 'n' op: 'Neg' input: '", bad,
                                              "' attr { key: 'T' value { type: DT_FLOAT } } }")),
                absl::StatusCode::kInvalidArgument,
                absl::StrCat("input '", bad, "' of node 'n' (body of function 'F' called by node "
                             "'c' (F)): names no argument and no node output (expected 'arg', "
                             "'arg:index', 'node:output' or 'node:output:index')"));
  }
  ExpectError(one_function("input_arg { name: 'x' type: DT_FLOAT }", ""),
              absl::StatusCode::kInvalidArgument, "function 'F' has two arguments named 'x'");
  ExpectError(one_function("output_arg { name: 'y' type: DT_FLOAT } output_arg { name: 'y' type: "
                           "DT_FLOAT }",
                           ""),
              absl::StatusCode::kInvalidArgument, "function 'F' has two outputs named 'y'");
  ExpectError(
      InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x'"),
                               SquareCall("sq", "Squared", "input: 'x'")),
                  kSquare),
      absl::StatusCode::kInvalidArgument, "duplicate node name 'sq' (node 2)");
}

TEST_F(FunctionInlineTest, TheLibraryItselfIsChecked) {
  ExpectError(InlineError("node { name: 'c' op: 'PartitionedCall' }",
                          "function { signature { } }"),
              absl::StatusCode::kInvalidArgument, "a function of the graph's library has no name");
  ExpectError(InlineError(absl::StrCat(kFloatX, SquareCall("sq", "Squared", "input: 'x'")),
                          absl::StrCat(kSquare, kSquare)),
              absl::StatusCode::kInvalidArgument,
              "function 'Squared' is defined twice in the graph's library");
  ExpectError(InlineError("node { name: 'c' op: 'PartitionedCall' attr { key: 'f' value { func "
                          "{ name: 'Neg' } } } }",
                          "function { signature { name: 'Neg' } }"),
              absl::StatusCode::kInvalidArgument,
              "function 'Neg' of the graph's library has the name of a registered op");
}

}  // namespace
}  // namespace tessera
