// Shared by the function-inlining tests: the Squared function, a float placeholder, and a fixture
// that inlines GraphDefs written in text format.
#ifndef TESSERA_HOST_GRAPH_FUNCTION_INLINE_TEST_UTIL_H_
#define TESSERA_HOST_GRAPH_FUNCTION_INLINE_TEST_UTIL_H_

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"
#include "host/graph/function_inline.h"

namespace tessera {
namespace function_inline_testing {

// Squared(x: T) -> y: T, y = x * x.
inline constexpr char kSquare[] = R"pb(
  function {
    signature {
      name: "Squared"
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "mul"
      op: "Mul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { placeholder: "T" }
      }
    }
    ret { key: "y" value: "mul:z:0" }
  }
)pb";

inline constexpr char kFloatX[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
)pb";


class FunctionInlineTest : public ::testing::Test {
 protected:
  void SetUp() override { ops_ = OpRegistry::CreateStandard(); }

  tensorflow::GraphDef Parse(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    return def;
  }

  // The graph `nodes` with `library`, inlined; fails the test on an error.
  tensorflow::GraphDef Inline(const std::string& nodes, const std::string& library) {
    tensorflow::GraphDef def = Parse(absl::StrCat(nodes, " library { ", library, " }"));
    absl::Status status = InlineFunctionCalls(&def, *ops_);
    EXPECT_TRUE(status.ok()) << status;
    return def;
  }

  absl::Status InlineError(const std::string& nodes, const std::string& library,
                           const InlineLimits& limits = InlineLimits()) {
    tensorflow::GraphDef def = Parse(absl::StrCat(nodes, " library { ", library, " }"));
    return InlineFunctionCalls(&def, *ops_, limits);
  }

  static const tensorflow::NodeDef* Find(const tensorflow::GraphDef& def,
                                         const std::string& name) {
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.name() == name) return &node;
    }
    return nullptr;
  }

  static std::vector<std::string> Inputs(const tensorflow::GraphDef& def,
                                         const std::string& name) {
    const tensorflow::NodeDef* node = Find(def, name);
    EXPECT_NE(node, nullptr) << name;
    if (node == nullptr) return {};
    return {node->input().begin(), node->input().end()};
  }

  static std::vector<std::string> Names(const tensorflow::GraphDef& def) {
    std::vector<std::string> names;
    for (const tensorflow::NodeDef& node : def.node()) names.push_back(node.name());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::unique_ptr<OpRegistry> ops_;
};


}  // namespace function_inline_testing
}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_FUNCTION_INLINE_TEST_UTIL_H_
