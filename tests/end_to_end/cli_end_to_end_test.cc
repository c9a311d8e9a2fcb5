// Runs the built `tessera` program as a user would: graphs in .pb and .pbtxt, .npy feeds and
// outputs, `tessera plugins` and `tessera ops`, the example MLP, the plugin policy flags, and every
// usage and run error (traces and device placement: cli_trace_placement_test.cc).
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/end_to_end/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST_F(CliTest, RunsATextGraph) {
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
                      "--fetch", "dense/MatMul:0"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out,
            "y:0             float32  [2,2]  11 22 | 13 24\n"
            "dense/MatMul:0  float32  [2,2]  1 2 | 3 4\n");
  EXPECT_FALSE(std::filesystem::exists(Path("y.npy")));  // no --output-dir, no files
}

TEST_F(CliTest, RunsABinaryGraphAndWritesNpyFiles) {
  std::string out_dir = Path("results/step1");  // created, parents included
  Result r = Tessera({"run", Path("graph.pb"), "--feed=x=" + Path("x.npy"), "--fetch=y", "--fetch",
                      "dense/MatMul:0", "--output-dir", out_dir, "--inter-op-threads", "2",
                      "--intra-op-threads", "1"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("y:0             float32  [2,2]  11 22 | 13 24\n"));
  EXPECT_THAT(r.out, HasSubstr("wrote " + out_dir + "/y.npy\n"));
  absl::StatusOr<Tensor> y = ReadNpy(out_dir + "/y.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->DebugString(), "float [2,2] 11 22 13 24");
  absl::StatusOr<Tensor> matmul = ReadNpy(out_dir + "/dense_MatMul_0.npy");
  ASSERT_TRUE(matmul.ok()) << matmul.status();
  EXPECT_EQ(matmul->DebugString(), "float [2,2] 1 2 3 4");
}

TEST_F(CliTest, RunsTargetsWithoutFetches) {
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--target", "y"});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CliTest, RunsTheExampleMlp) {
  std::string example = std::string(TESSERA_SOURCE_DIR) + "/examples/mlp";
  for (const char* graph : {"mlp.pb", "mlp.pbtxt"}) {
    Result r =
        Tessera({"run", example + "/" + graph, "--feed", "x=" + example + "/input.npy", "--fetch",
                 "probabilities", "--fetch", "predicted_class", "--output-dir", Path("mlp")});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("predicted_class:0  int64    [6]    0 1 2 1 0 1\n")) << r.out;
    absl::StatusOr<Tensor> p = ReadNpy(Path("mlp/probabilities.npy"));
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_EQ(p->shape(), TensorShape({6, 3}));
    for (int row = 0; row < 6; ++row) {
      float sum = 0;
      for (int c = 0; c < 3; ++c) sum += p->data<float>()[row * 3 + c];
      EXPECT_NEAR(sum, 1.0f, 1e-5f) << "row " << row;
    }
    EXPECT_GT(p->data<float>()[0], 0.95f);          // (0.2, 0.3): clearly the bullseye
    EXPECT_GT(p->data<float>()[2 * 3 + 2], 0.95f);  // (-2.5, 1.0): clearly outside
  }
}

TEST_F(CliTest, ListsPlugins) {
  Result r = Tessera({"plugins"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NAME"));
  EXPECT_THAT(r.out, HasSubstr("cpu"));
}

TEST_F(CliTest, ListsPluginsAsJson) {
  Result r = Tessera({"plugins", "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  nlohmann::json json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(json.is_discarded()) << r.out;
  ASSERT_TRUE(json.contains("plugins")) << r.out;
  ASSERT_TRUE(json["plugins"].is_array());
  bool found_cpu = false;
  for (const auto& plugin : json["plugins"]) {
    if (plugin.value("name", "") == "cpu") found_cpu = true;
  }
  EXPECT_TRUE(found_cpu) << r.out;
  EXPECT_TRUE(json.contains("device_types"));
}

TEST_F(CliTest, HelpAndVersion) {
  Result help = Tessera({"--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_THAT(help.out, StartsWith("usage: tessera <command>"));
  Result run_help = Tessera({"run", "--help"});
  EXPECT_EQ(run_help.exit_status, 0);
  EXPECT_THAT(run_help.out, StartsWith("usage: tessera run GRAPH"));
  Result plugins_help = Tessera({"plugins", "-h"});
  EXPECT_THAT(plugins_help.out, StartsWith("usage: tessera plugins"));
  Result version = Tessera({"--version"});
  EXPECT_EQ(version.exit_status, 0);
  EXPECT_THAT(version.out, StartsWith("tessera "));
  EXPECT_THAT(version.out, HasSubstr("(plugin ABI "));
}

TEST_F(CliTest, UsageErrorsExitWithStatus2) {
  ExpectUsageError({},
                   "tessera: missing command; expected 'run', 'serve', 'plugins', 'ops' or 'show' "
                   "(see 'tessera --help')");
  ExpectUsageError({"walk"},
                   "tessera: unknown command 'walk'; expected 'run', 'serve', 'plugins', 'ops' or "
                   "'show' (see 'tessera --help')");
  ExpectUsageError({"--verbose"}, "tessera: unknown option '--verbose' (see 'tessera --help')");
  ExpectUsageError({"run"},
                   "tessera run: missing GRAPH (a .pb, .pbtxt or .meta file) or --saved-model DIR "
            "(see 'tessera run --help')");
  ExpectUsageError({"run", "g.pb"},
                   "tessera run: nothing to run; give at least one --fetch or --target");
  ExpectUsageError({"run", "g.pb", "--feed", "x", "--fetch", "y"},
                   "tessera run: --feed expects NAME=FILE.npy, got 'x'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--feed"},
                   "tessera run: --feed needs a value (NAME=FILE.npy)");
  ExpectUsageError({"run", "g.pb", "--feed", "x=a.npy", "--feed", "x=b.npy", "--fetch", "y"},
                   "tessera run: tensor 'x' is fed twice");
  ExpectUsageError({"run", "g.pb", "--fetch", "y:z"},
                   "tessera run: --fetch expects a tensor name NODE or NODE:INDEX, got 'y:z'");
  ExpectUsageError({"run", "g.pb", "--target", "y:0"},
                   "tessera run: --target expects a node name, got 'y:0'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--inter-op-threads", "-2"},
                   "tessera run: --inter-op-threads expects a non-negative integer, got '-2'");
  ExpectUsageError({"run", "g.pb", "h.pb", "--fetch", "y"},
                   "tessera run: unexpected argument 'h.pb'; the graph is already 'g.pb'");
  ExpectUsageError({"run", "g.pb", "--fetch", "y", "--output-dir="},
                   "tessera run: --output-dir expects a folder, got ''");
  ExpectUsageError({"run", "g.pb", "--fetchh", "y"},
                   "tessera run: unknown option '--fetchh' (see 'tessera run --help')");
  ExpectUsageError({"plugins", "cpu"},
                   "tessera plugins: unexpected argument 'cpu'; plugin paths are given with "
                   "--plugin");
  ExpectUsageError({"plugins", "--json=1"}, "tessera plugins: --json takes no value, got '1'");
  ExpectUsageError({"help", "walk"},
                   "tessera help: unknown command 'walk'; expected 'run', 'serve', 'plugins', "
                   "'ops' or 'show'");
  ExpectUsageError({"ops", "g.pb"},
                   "tessera ops: unexpected argument 'g.pb'; a graph is given with --graph FILE");
  ExpectUsageError({"ops", "--json", "--markdown"},
                   "tessera ops: --json and --markdown exclude each other");
  ExpectUsageError({"ops", "--markdown", "--graph", "g.pb"},
                   "tessera ops: --markdown lists every op; it does not check a --graph");
  ExpectUsageError({"ops", "--graph", "g.pb", "--graph", "h.pb"},
                   "tessera ops: --graph is given more than once");
  ExpectUsageError({"ops", "--graph="}, "tessera ops: --graph expects a file, got ''");
  ExpectUsageError({"ops", "--kernels"},
                   "tessera ops: unknown option '--kernels' (see 'tessera ops --help')");
}

TEST_F(CliTest, ListsOpsWithTheirKernels) {
  Result r = Tessera({"ops"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("OP "));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\nMatMul +standard +CPU: cpu \\(T: [^)]*float"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\nSwitch +standard +host, every device\n"));
  EXPECT_THAT(r.out, HasSubstr(" without a kernel; devices present: CPU\n"));
  Result json = Tessera({"ops", "--json"});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  nlohmann::json parsed = nlohmann::json::parse(json.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(parsed.is_discarded()) << json.out;
  EXPECT_EQ(parsed["device_types"], nlohmann::json({"CPU"}));
  EXPECT_GT(parsed["ops"].size(), 100u);
  Result markdown = Tessera({"ops", "--markdown"});
  ASSERT_EQ(markdown.exit_status, 0) << markdown.err;
  EXPECT_THAT(markdown.out, StartsWith("# Op kernels\n"));
  Result help = Tessera({"ops", "--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_THAT(help.out, StartsWith("usage: tessera ops"));
}

// A graph as TensorFlow 2 writes it: the model is a StatefulPartitionedCall of a library
// function, which calls another through a PartitionedCall; both are inlined at import.
TEST_F(CliTest, RunsATensorFlow2GraphOfFunctionCalls) {
  std::string graph = absl::StrCat(TESSERA_SOURCE_DIR,
                                   "/tests/end_to_end/testdata/functions/tf2_dense_relu.pbtxt");
  Result r = Tessera({"run", graph, "--feed", "x=" + Path("x.npy"), "--fetch", "Identity",
                      "--fetch", "StatefulPartitionedCall/activation/relu"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // x = I: relu(w) = [[1, 0], [2, 0]].
  EXPECT_EQ(r.out,
            "Identity:0                                 float32  [2,2]  1 0 | 2 0\n"
            "StatefulPartitionedCall/activation/relu:0  float32  [2,2]  1 0 | 2 0\n");
  r = Tessera({"ops", "--graph", graph});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("every op has a definition and a kernel on a device present\n"));
}

TEST_F(CliTest, OpsChecksAGraph) {
  Result r = Tessera({"ops", "--graph", Path("graph.pb")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, Path("graph.pb") +
                       ": 5 nodes, 4 distinct ops; devices present: CPU\n"
                       "every op has a definition and a kernel on a device present\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, OpsNamesWhatCannotRunAndExitsWith1) {
  std::ofstream(Path("gaps.pbtxt")) << R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_COMPLEX128 }
      }
    }
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
    node { name: "f" op: "Frobnicate" input: "m" }
  )pb";
  Result r = Tessera({"ops", "--graph", Path("gaps.pbtxt")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.out, HasSubstr("\nFrobnicate: no definition: no standard definition and no "
                               "plugin defines it\n    nodes: f\n"));
  EXPECT_THAT(r.out, HasSubstr("\nMatMul: no kernel: no kernel on CPU for T=complex128 (CPU "
                               "kernels take T: "));
  EXPECT_EQ(r.err, "tessera ops: " + Path("gaps.pbtxt") +
                       ": 2 ops cannot run: Frobnicate (no definition), MatMul (no kernel)\n");
  Result json = Tessera({"ops", "--json", "--graph", Path("gaps.pbtxt")});
  EXPECT_EQ(json.exit_status, 1);
  nlohmann::json parsed = nlohmann::json::parse(json.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(parsed.is_discarded()) << json.out;
  EXPECT_EQ(parsed["gaps"].size(), 2u);
}

TEST_F(CliTest, OpsGraphThatCannotBeRead) {
  Result r = Tessera({"ops", "--graph", Path("missing.pb")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("tessera ops: cannot read the graph: "));
  EXPECT_THAT(r.err, HasSubstr(Path("missing.pb")));
  Result plugin = Tessera({"ops", "--plugin", Path("no_such_plugin")});
  EXPECT_EQ(plugin.exit_status, 1);
  EXPECT_THAT(plugin.err, StartsWith("tessera ops: "));
  EXPECT_THAT(plugin.err, HasSubstr("no_such_plugin"));
}

TEST_F(CliTest, MissingGraphFile) {
  Result r = Tessera({"run", Path("missing.pb"), "--fetch", "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: cannot read the graph: "));
  EXPECT_THAT(r.err, HasSubstr(Path("missing.pb")));
}

TEST_F(CliTest, MalformedGraphFile) {
  std::ofstream(Path("bad.pbtxt")) << "node { name: \"x\" op: ";
  Result r = Tessera({"run", Path("bad.pbtxt"), "--fetch", "x"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: cannot read the graph: "));
  EXPECT_THAT(r.err, HasSubstr("bad.pbtxt"));
}

TEST_F(CliTest, MissingAndMalformedFeedFiles) {
  Result missing =
      Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("none.npy"), "--fetch", "y"});
  EXPECT_EQ(missing.exit_status, 1);
  EXPECT_THAT(missing.err, StartsWith(absl::StrCat("tessera run: cannot read feed 'x' from '",
                                                   Path("none.npy"), "': ")));
  std::ofstream(Path("bad.npy")) << "not an array";
  Result bad =
      Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("bad.npy"), "--fetch", "y"});
  EXPECT_EQ(bad.exit_status, 1);
  EXPECT_THAT(bad.err, HasSubstr("cannot read feed 'x'"));
  EXPECT_THAT(bad.err, HasSubstr("bad magic"));
}

TEST_F(CliTest, FeedWithTheWrongType) {
  ASSERT_TRUE(WriteNpy(Tensor::FromVector<int32_t>({2, 2}, {1, 0, 0, 1}), Path("x32.npy")).ok());
  Result r =
      Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x32.npy"), "--fetch", "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("tessera run: "));
  EXPECT_THAT(r.err, HasSubstr("feed 'x' has type int32, but the graph expects float"));
}

TEST_F(CliTest, FeedWithTheWrongShape) {
  ASSERT_TRUE(WriteNpy(Tensor::FromVector<float>({3}, {1, 2, 3}), Path("x3.npy")).ok());
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x3.npy"), "--fetch", "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: "));
  EXPECT_THAT(r.err, HasSubstr("'x'"));
}

TEST_F(CliTest, UnknownFetchAndMissingFeed) {
  Result unknown =
      Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "nope"});
  EXPECT_EQ(unknown.exit_status, 1);
  EXPECT_THAT(unknown.err, StartsWith("tessera run: "));
  EXPECT_THAT(unknown.err, HasSubstr("nope"));
  Result unfed = Tessera({"run", Path("graph.pbtxt"), "--fetch", "y"});
  EXPECT_EQ(unfed.exit_status, 1);
  EXPECT_THAT(unfed.err, StartsWith("tessera run: "));
  EXPECT_THAT(unfed.err, HasSubstr("x"));
}

TEST_F(CliTest, OutputFolderThatCannotBeCreated) {
  std::ofstream(Path("file")) << "a file, not a folder";
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
                      "--output-dir", Path("file/sub")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: cannot create output folder '" + Path("file/sub")));
}

TEST_F(CliTest, OutputFileThatCannotBeWritten) {
  std::filesystem::create_directories(Path("out/y.npy"));  // a folder where the file should go
  Result r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
                      "--output-dir", Path("out")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: cannot write fetch 'y': cannot open for writing '" +
                                Path("out/y.npy") + "'"));
}


TEST_F(CliTest, PluginPathThatDoesNotExist) {
  Result r = Tessera({"plugins", "--plugin", Path("no-such-plugin")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera plugins: "));
  EXPECT_THAT(r.err, HasSubstr("no-such-plugin"));
}

// ---- Plugin policy: flags, TESSERA_PLUGIN_CONFIG and --plugin-config ------------------------

// The line of `tessera plugins` that lists `plugin`.
std::string PluginLine(const std::string& out, const std::string& plugin) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StartsWith(line, plugin + " ")) return std::string(line);
  }
  return "";
}

TEST_F(CliTest, AllowlistFlagRejectsARealPluginAndPluginsSaysWhy) {
  Result r = Tessera({"plugins", "--plugin-allow", "cpu"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(PluginLine(r.out, "cpu"), HasSubstr("LOADED")) << r.out;
  EXPECT_THAT(PluginLine(r.out, "grpc"), HasSubstr("REJECTED")) << r.out;
  EXPECT_THAT(PluginLine(r.out, "grpc"),
              HasSubstr("plugin 'grpc' 0.1.0 (libtessera_grpc.so) is not in the allowlist "
                        "(allowed: cpu; from --plugin-allow)"));
  EXPECT_THAT(r.out, HasSubstr("\npolicy:\n  allow cpu  (from --plugin-allow)\n"));

  // Without its device plugin, a run fails and says which setting refused it.
  r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
               "--plugin-allow=grpc"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, StartsWith("tessera run: "));
  EXPECT_THAT(r.err, HasSubstr("no device is available"));
  EXPECT_THAT(r.err, HasSubstr("plugin 'cpu' 0.1.0 (libtessera_cpu.so) is not in the allowlist "
                               "(allowed: grpc; from --plugin-allow)"));

  r = Tessera({"plugins", "--json", "--plugin-allow", "cpu"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  nlohmann::json json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(json.is_discarded()) << r.out;
  EXPECT_EQ(json["policy"]["allow"], nlohmann::json::array({"cpu"}));
  EXPECT_EQ(json["policy"]["allow_source"], "--plugin-allow");
}

TEST_F(CliTest, RequireSha256FlagRefusesAManifestWithoutOne) {
  Result r = Tessera({"plugins", "--plugin-require-sha256"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(PluginLine(r.out, "cpu"), HasSubstr("REJECTED")) << r.out;
  EXPECT_THAT(PluginLine(r.out, "cpu"),
              HasSubstr("has no sha256 and this host requires one (from --plugin-require-sha256)"));
}

TEST_F(CliTest, PluginConfigFileFromTheFlagOrTheEnvironment) {
  const std::string file = Path("plugins.json");
  std::ofstream(file) << R"({"allow": ["grpc"], "prefer": {"CPU": "cpu"}})";
  const std::string refused =
      "is not in the allowlist (allowed: grpc; from config file " + file + ")";
  for (const Result& r : {Tessera({"plugins", "--plugin-config", file}),
                          Tessera({"plugins"}, {{"TESSERA_PLUGIN_CONFIG", file}})}) {
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_THAT(PluginLine(r.out, "cpu"), HasSubstr(refused)) << r.out;
    EXPECT_THAT(r.out, HasSubstr("policy:\n  config file " + file + "\n")) << r.out;
  }

  // --plugin-config replaces TESSERA_PLUGIN_CONFIG's file.
  const std::string other = Path("other.json");
  std::ofstream(other) << R"({"allow": ["cpu"]})";
  Result r = Tessera({"plugins", "--plugin-config", other}, {{"TESSERA_PLUGIN_CONFIG", file}});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(PluginLine(r.out, "grpc"),
              HasSubstr("(allowed: cpu; from config file " + other + ")"));

  // Flags override the file setting by setting: the allowlist is replaced, the file's
  // preference stays and is named where it chose a provider.
  r = Tessera({"plugins", "--plugin-allow", "cpu,grpc"}, {{"TESSERA_PLUGIN_CONFIG", file}});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(PluginLine(r.out, "cpu"), HasSubstr("LOADED")) << r.out;
  EXPECT_THAT(PluginLine(r.out, "grpc"), HasSubstr("LOADED")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("active, preferred by config file " + file + " (CPU=cpu)"));
  EXPECT_THAT(r.out, HasSubstr("allow cpu, grpc  (from --plugin-allow)"));

  // The run uses the same policy.
  r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y"},
              {{"TESSERA_PLUGIN_CONFIG", file}});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, HasSubstr(refused));
}

TEST_F(CliTest, BadOrMissingPluginConfigFile) {
  const std::string bad = Path("bad.json");
  std::ofstream(bad) << R"({"alow": ["cpu"]})";
  Result r = Tessera({"plugins", "--plugin-config", bad});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera plugins: plugin config file " + bad +
                       ": unknown key 'alow' (known: allow, prefer, require_sha256)\n");

  std::ofstream(bad) << R"({"prefer": {"CPU": 1}})";
  r = Tessera({"run", Path("graph.pbtxt"), "--feed", "x=" + Path("x.npy"), "--fetch", "y",
               "--plugin-config", bad});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, HasSubstr("plugin config file " + bad + ": key 'prefer.CPU': 1 is not a "
                               "plugin name"));

  const std::string missing = Path("missing.json");
  r = Tessera({"plugins", "--plugin-config", missing});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err,
            "tessera plugins: plugin config file " + missing + " (given explicitly) does not "
            "exist\n");
  r = Tessera({"plugins"}, {{"TESSERA_PLUGIN_CONFIG", missing}});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, HasSubstr(missing + " (from TESSERA_PLUGIN_CONFIG) does not exist"));
}

TEST_F(CliTest, PluginPolicyUsageErrors) {
  ExpectUsageError({"plugins", "--plugin-prefer", "GPU"},
                   "tessera plugins: --plugin-prefer expects TYPE=NAME, got 'GPU'");
  ExpectUsageError({"serve", "--plugin-allow", "Bad"},
                   "tessera serve: --plugin-allow expects plugin names ([a-z0-9_-]+, "
                   "comma-separated), got 'Bad' in 'Bad'");
}

}  // namespace
}  // namespace tessera
