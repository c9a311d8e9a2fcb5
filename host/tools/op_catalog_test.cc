// Tests of the op catalog and the graph coverage check of `tessera ops`, on the CPU plugin and
// the testkit plugin (which defines ops of its own and a TESTKIT device type).
#include "host/tools/op_catalog.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/environment.h"
#include "nlohmann/json.hpp"

namespace tessera {
namespace cli {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class OpCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnvironmentOptions options;
    options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
    absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Create(options);
    ASSERT_TRUE(env.ok()) << env.status();
    env_ = *env;
  }

  const CatalogOp& Op(const OpCatalog& catalog, const std::string& name) {
    auto it = std::find_if(catalog.ops.begin(), catalog.ops.end(),
                           [&](const CatalogOp& op) { return op.name == name; });
    if (it == catalog.ops.end()) {
      ADD_FAILURE() << "no op " << name;
      static const CatalogOp kNone;
      return kNone;
    }
    return *it;
  }

  GraphCoverage Check(const std::string& text) {
    tensorflow::GraphDef graph;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
    return CheckGraphCoverage(graph, *env_);
  }

  std::shared_ptr<Environment> env_;
};

TEST_F(OpCatalogTest, ListsEveryRegisteredOpWithItsKernels) {
  OpCatalog catalog = BuildOpCatalog(*env_);
  EXPECT_THAT(catalog.device_types, ElementsAre("CPU", "TESTKIT"));
  EXPECT_EQ(static_cast<int>(catalog.ops.size()), env_->ops().size());
  EXPECT_TRUE(
      std::is_sorted(catalog.ops.begin(), catalog.ops.end(),
                     [](const CatalogOp& a, const CatalogOp& b) { return a.name < b.name; }));

  const CatalogOp& matmul = Op(catalog, "MatMul");
  EXPECT_EQ(matmul.origin, "standard");
  EXPECT_FALSE(matmul.host_kernel);
  ASSERT_FALSE(matmul.kernels.empty());
  EXPECT_EQ(matmul.kernels[0].device_type, "CPU");
  EXPECT_EQ(matmul.kernels[0].plugin, "cpu");
  EXPECT_THAT(matmul.kernels[0].type_constraints.at("T"), Contains("float"));

  EXPECT_TRUE(Op(catalog, "StatefulPartitionedCall").inlined);
  EXPECT_FALSE(Op(catalog, "MatMul").inlined);

  const CatalogOp& send = Op(catalog, "_Send");
  EXPECT_TRUE(send.host_kernel);
  EXPECT_THAT(send.kernels, IsEmpty());
  EXPECT_TRUE(Op(catalog, "Const").host_string_kernel);
  EXPECT_FALSE(Op(catalog, "MatMul").host_string_kernel);

  // A plugin's own op, with kernels on two device types.
  const CatalogOp& async_identity = Op(catalog, "TestAsyncIdentity");
  EXPECT_EQ(async_identity.origin, "plugin 'testkit'");
  std::vector<std::string> types;
  for (const CatalogKernel& kernel : async_identity.kernels) types.push_back(kernel.device_type);
  EXPECT_THAT(types, ElementsAre("CPU", "TESTKIT"));
}

TEST_F(OpCatalogTest, TextJsonAndMarkdownAgree) {
  OpCatalog catalog = BuildOpCatalog(*env_);
  std::string text = FormatCatalogText(catalog);
  EXPECT_THAT(text, ::testing::StartsWith("OP "));
  EXPECT_THAT(text, ::testing::ContainsRegex("\nMatMul +standard +CPU: cpu \\(T: [^)]*float"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\n_Send +standard +host, every device\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "\nTestAsyncIdentity +plugin 'testkit' +CPU: testkit \\(.*; TESTKIT: "));
  EXPECT_THAT(text, HasSubstr(" run or inlined by the host, "));
  EXPECT_THAT(text, ::testing::ContainsRegex("\nPartitionedCall +standard +inlined at graph import\n"));
  EXPECT_THAT(text, ::testing::EndsWith("devices present: CPU, TESTKIT\n"));

  nlohmann::json json = nlohmann::json::parse(FormatCatalogJson(catalog));
  EXPECT_EQ(json["device_types"], nlohmann::json({"CPU", "TESTKIT"}));
  ASSERT_EQ(json["ops"].size(), catalog.ops.size());
  bool found = false;
  for (const auto& op : json["ops"]) {
    if (op["name"] != "MatMul") continue;
    found = true;
    EXPECT_EQ(op["origin"], "standard");
    EXPECT_EQ(op["host_kernel"], false);
    EXPECT_EQ(op["kernels"][0]["device_type"], "CPU");
    EXPECT_EQ(op["kernels"][0]["plugin"], "cpu");
    EXPECT_THAT(op["kernels"][0]["type_constraints"]["T"].get<std::vector<std::string>>(),
                Contains("float"));
  }
  EXPECT_TRUE(found);

  std::string markdown = FormatCatalogMarkdown(catalog);
  EXPECT_THAT(markdown, HasSubstr("\n| Op | Defined by | CPU | TESTKIT |\n|---|---|---|---|\n"));
  EXPECT_THAT(markdown, HasSubstr("\n| _Send | standard | host | host |\n"));
  EXPECT_THAT(markdown, ::testing::ContainsRegex(
                            "\n\\| MatMul \\| standard \\| T: [^|]*float[^|]* \\| — \\|\n"));
  EXPECT_THAT(markdown,
              ::testing::ContainsRegex("\n\\| Const \\| standard \\| [^|]*; string: host \\|"));
}

TEST_F(OpCatalogTest, AGraphWhoseOpsAllRunHasNoGaps) {
  GraphCoverage coverage = Check(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "s"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
      attr {
        key: "value"
        value { tensor { dtype: DT_STRING string_val: "a" } }
      }
    }
    node {
      name: "y"
      op: "MatMul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "i"
      op: "Identity"
      input: "y"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  EXPECT_EQ(coverage.num_nodes, 4);
  EXPECT_EQ(coverage.num_ops, 4);
  EXPECT_THAT(coverage.device_types, ElementsAre("CPU", "TESTKIT"));
  EXPECT_THAT(coverage.gaps, IsEmpty());
  EXPECT_THAT(FormatCoverageText("g.pbtxt", coverage),
              HasSubstr("g.pbtxt: 4 nodes, 4 distinct ops; devices present: CPU, TESTKIT\n"
                        "every op has a definition and a kernel on a device present\n"));
}

TEST_F(OpCatalogTest, NamesOpsWithoutADefinitionOrAKernel) {
  GraphCoverage coverage = Check(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_COMPLEX128 }
      }
    }
    node { name: "f1" op: "Frobnicate" input: "x" }
    node { name: "f2" op: "Frobnicate" input: "x" }
    node {
      name: "m"
      op: "MatMul"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { type: DT_COMPLEX128 }
      }
    }
    node {
      name: "s"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
    }
    node { name: "n" op: "StringLength" input: "s" }
    node { name: "call" op: "my_function" }
    node { name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_QINT8 } } }
    library {
      function {
        signature { name: "my_function" }
        node_def { name: "inner" op: "Unheard" }
      }
    }
  )pb");
  EXPECT_EQ(coverage.num_nodes, 9);
  ASSERT_EQ(coverage.gaps.size(), 5u);
  EXPECT_EQ(coverage.gaps[0].op, "Frobnicate");
  EXPECT_EQ(coverage.gaps[0].kind, "no definition");
  EXPECT_EQ(coverage.gaps[0].reason, "no standard definition and no plugin defines it");
  EXPECT_THAT(coverage.gaps[0].nodes, ElementsAre("f1", "f2"));
  EXPECT_EQ(coverage.gaps[1].op, "StringLength");
  EXPECT_EQ(coverage.gaps[1].kind, "no definition");
  EXPECT_EQ(coverage.gaps[2].op, "Unheard");
  EXPECT_THAT(coverage.gaps[2].nodes, ElementsAre("my_function/inner"));
  // The call itself is no gap: import inlines it, and its body's nodes are checked above.
  // MatMul and Placeholder are defined, but no kernel takes complex128 or qint8 (a complex128
  // Placeholder runs: it only moves bytes).
  EXPECT_EQ(coverage.gaps[3].op, "MatMul");
  EXPECT_EQ(coverage.gaps[3].kind, "no kernel");
  EXPECT_THAT(coverage.gaps[3].reason,
              ::testing::StartsWith("no kernel on CPU for T=complex128 (CPU kernels take T: "));
  EXPECT_EQ(coverage.gaps[4].op, "Placeholder");
  EXPECT_THAT(coverage.gaps[4].reason, ::testing::StartsWith("no kernel on CPU for dtype="));
  EXPECT_THAT(coverage.gaps[4].nodes, ElementsAre("q"));

  std::string text = FormatCoverageText("g.pbtxt", coverage);
  EXPECT_THAT(text, HasSubstr("\nFrobnicate: no definition: no standard definition and no plugin "
                              "defines it\n    nodes: f1, f2\n"));
  nlohmann::json json = nlohmann::json::parse(FormatCoverageJson("g.pbtxt", coverage));
  EXPECT_EQ(json["graph"], "g.pbtxt");
  EXPECT_EQ(json["nodes"], 9);
  EXPECT_EQ(json["gaps"][0]["op"], "Frobnicate");
  EXPECT_EQ(json["gaps"][0]["nodes"], nlohmann::json({"f1", "f2"}));
}

TEST_F(OpCatalogTest, StringsOnAPluginKernelAndBadAttrsAreGaps) {
  GraphCoverage coverage = Check(R"pb(
    node {
      name: "s"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
    }
    node {
      name: "r"
      op: "Reshape"
      input: "s"
      input: "s"
      attr {
        key: "T"
        value { type: DT_STRING }
      }
    }
    node {
      name: "bad"
      op: "MatMul"
      attr {
        key: "T"
        value { type: DT_BOOL }
      }
    }
  )pb");
  ASSERT_EQ(coverage.gaps.size(), 2u);
  EXPECT_EQ(coverage.gaps[0].op, "MatMul");
  EXPECT_THAT(coverage.gaps[0].reason, ::testing::StartsWith("invalid attrs: "));
  EXPECT_EQ(coverage.gaps[1].op, "Reshape");
  EXPECT_THAT(coverage.gaps[1].reason, ::testing::StartsWith("takes or makes string tensors"));
}

TEST_F(OpCatalogTest, KernelsOnlyForAbsentDevicesAreNamed) {
  // Without the CPU plugin only TESTKIT devices exist; TestFail's one kernel is for CPU.
  EnvironmentOptions options;
  options.plugin_paths.push_back(TESSERA_TESTKIT_PLUGIN_DIR);
  options.plugin_policy.allowlist = std::set<std::string>{"testkit"};
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Create(options);
  ASSERT_TRUE(env.ok()) << env.status();
  tensorflow::GraphDef graph;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
                                                              node { name: "x" op: "TestConstant" }
                                                              node {
                                                                name: "f"
                                                                op: "TestFail"
                                                                input: "x"
                                                                attr {
                                                                  key: "T"
                                                                  value { type: DT_FLOAT }
                                                                }
                                                              }
                                                            )pb",
                                                            &graph));
  GraphCoverage coverage = CheckGraphCoverage(graph, **env);
  EXPECT_THAT(coverage.device_types, ElementsAre("TESTKIT"));
  ASSERT_EQ(coverage.gaps.size(), 1u);
  EXPECT_EQ(coverage.gaps[0].op, "TestFail");
  EXPECT_EQ(coverage.gaps[0].reason,
            "no kernel on the devices present (TESTKIT); kernels are registered for CPU");
}

TEST_F(OpCatalogTest, ListsLongNodeListsShortly) {
  std::string text =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: "
      "DT_FLOAT } } }\n";
  for (int i = 0; i < 8; ++i) {
    text += "node { name: \"u" + std::to_string(i) + "\" op: \"Unknown\" }\n";
  }
  GraphCoverage coverage = Check(text);
  ASSERT_EQ(coverage.gaps.size(), 1u);
  EXPECT_EQ(coverage.gaps[0].nodes.size(), 8u);
  EXPECT_THAT(FormatCoverageText("g", coverage),
              HasSubstr("    nodes: u0, u1, u2, u3, u4 and 3 more\n"));
}

}  // namespace
}  // namespace cli
}  // namespace tessera
