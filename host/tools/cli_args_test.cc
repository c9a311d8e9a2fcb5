// Tests of the `tessera` argument parser: every form of every option and every usage error.
#include "host/tools/cli_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

CliArgs Parse(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : CliArgs();
}

// The usage error's message; fails the test unless the code is INVALID_ARGUMENT.
std::string UsageError(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(CliArgsTest, RunWithEveryOption) {
  CliArgs args = Parse({"run", "g.pb", "--feed", "x=a.npy", "--feed=dense/y:1=b.npy", "--fetch",
                        "p", "--fetch=q:2", "--target", "init", "--output-dir", "out",
                        "--plugin", "p1", "--plugin=p2", "--inter-op-threads", "2",
                        "--intra-op-threads=3"});
  EXPECT_EQ(args.command, Command::kRun);
  EXPECT_EQ(args.run.graph_path, "g.pb");
  EXPECT_THAT(args.run.feeds, ElementsAre(Pair("x", "a.npy"), Pair("dense/y:1", "b.npy")));
  EXPECT_THAT(args.run.fetches, ElementsAre("p", "q:2"));
  EXPECT_THAT(args.run.targets, ElementsAre("init"));
  EXPECT_EQ(args.run.output_dir, "out");
  EXPECT_THAT(args.run.plugin_paths, ElementsAre("p1", "p2"));
  EXPECT_EQ(args.run.inter_op_threads, 2);
  EXPECT_EQ(args.run.intra_op_threads, 3);
}

TEST(CliArgsTest, RunTracingAndPlacementOptions) {
  CliArgs args = Parse({"run", "g.pb", "--fetch", "y", "--trace", "step.json",
                        "--log-device-placement", "--soft-placement", "--cpu-devices", "2",
                        "--device-count", "gpu=1", "--device-count=TESTKIT=0"});
  EXPECT_EQ(args.run.trace_path, "step.json");
  EXPECT_TRUE(args.run.log_device_placement);
  EXPECT_TRUE(args.run.allow_soft_placement);
  EXPECT_THAT(args.run.device_count,
              ElementsAre(Pair("CPU", 2), Pair("GPU", 1), Pair("TESTKIT", 0)));

  CliArgs defaults = Parse({"run", "g.pb", "--fetch", "y"});
  EXPECT_EQ(defaults.run.trace_path, "");
  EXPECT_FALSE(defaults.run.log_device_placement);
  EXPECT_FALSE(defaults.run.allow_soft_placement);
  EXPECT_TRUE(defaults.run.device_count.empty());

  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--trace=t.json"}).run.trace_path, "t.json");
  EXPECT_THAT(Parse({"run", "g.pb", "--fetch", "y", "--cpu-devices=3"}).run.device_count,
              ElementsAre(Pair("CPU", 3)));
  EXPECT_THAT(Parse({"run", "g.pb", "--fetch", "y", "--device-count", "CPU=4"}).run.device_count,
              ElementsAre(Pair("CPU", 4)));
  EXPECT_THAT(Parse({"run", "g.pb", "--fetch", "y", "--device-count", "my_dev2=7"})
                  .run.device_count,
              ElementsAre(Pair("MY_DEV2", 7)));
}

TEST(CliArgsTest, RunGraphMayComeAfterOptions) {
  CliArgs args = Parse({"run", "--target", "t", "graph.pbtxt"});
  EXPECT_EQ(args.run.graph_path, "graph.pbtxt");
  EXPECT_TRUE(args.run.fetches.empty());
  EXPECT_EQ(args.run.output_dir, "");
}

TEST(CliArgsTest, Plugins) {
  CliArgs plain = Parse({"plugins"});
  EXPECT_EQ(plain.command, Command::kPlugins);
  EXPECT_FALSE(plain.plugins.json);
  CliArgs json = Parse({"plugins", "--json", "--plugin", "a", "--plugin=b"});
  EXPECT_TRUE(json.plugins.json);
  EXPECT_THAT(json.plugins.plugin_paths, ElementsAre("a", "b"));
}

TEST(CliArgsTest, HelpAndVersion) {
  EXPECT_EQ(Parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"-h"}).help_topic, "");
  EXPECT_EQ(Parse({"help"}).help_topic, "");
  EXPECT_EQ(Parse({"help", "run"}).help_topic, "run");
  CliArgs run_help = Parse({"run", "--help"});
  EXPECT_EQ(run_help.command, Command::kHelp);
  EXPECT_EQ(run_help.help_topic, "run");
  EXPECT_EQ(Parse({"run", "g.pb", "-h", "--bogus"}).help_topic, "run");
  EXPECT_EQ(Parse({"plugins", "--help"}).help_topic, "plugins");
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
  EXPECT_EQ(Parse({"-V"}).command, Command::kVersion);
}

TEST(CliArgsTest, UsageTexts) {
  EXPECT_THAT(ProgramUsage(), StartsWith("usage: tessera <command>"));
  EXPECT_EQ(CommandUsage(""), ProgramUsage());
  EXPECT_THAT(CommandUsage("run"), HasSubstr("--feed NAME=FILE.npy"));
  for (const char* option : {"--trace FILE.json", "--log-device-placement", "--soft-placement",
                             "--cpu-devices N", "--device-count TYPE=N"}) {
    EXPECT_THAT(CommandUsage("run"), HasSubstr(option));
  }
  EXPECT_THAT(CommandUsage("plugins"), HasSubstr("--json"));
  EXPECT_EQ(CommandUsage("bogus"), "");
  EXPECT_THAT(VersionString(), StartsWith("tessera "));
  EXPECT_THAT(VersionString(), HasSubstr("(plugin ABI "));
}

// ---- Usage errors -------------------------------------------------------------------------

TEST(CliArgsErrorTest, ProgramLevel) {
  EXPECT_EQ(UsageError({}),
            "tessera: missing command; expected 'run' or 'plugins' (see 'tessera --help')");
  EXPECT_EQ(UsageError({"walk"}),
            "tessera: unknown command 'walk'; expected 'run' or 'plugins' (see 'tessera --help')");
  EXPECT_EQ(UsageError({"--verbose"}), "tessera: unknown option '--verbose' (see 'tessera --help')");
  EXPECT_EQ(UsageError({"help", "walk"}),
            "tessera help: unknown command 'walk'; expected 'run' or 'plugins'");
}

TEST(CliArgsErrorTest, FeedSyntax) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--feed", "x", "--fetch", "y"}),
            "tessera run: --feed expects NAME=FILE.npy, got 'x'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--feed", "=a.npy", "--fetch", "y"}),
            "tessera run: --feed expects NAME=FILE.npy, got '=a.npy'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--feed", "x=", "--fetch", "y"}),
            "tessera run: --feed expects NAME=FILE.npy, got 'x='");
  EXPECT_EQ(UsageError({"run", "g.pb", "--feed", "x:y=a.npy", "--fetch", "y"}),
            "tessera run: --feed expects a tensor name NODE or NODE:INDEX before '=', got 'x:y'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--feed", "x=a.npy", "--feed", "x=b.npy", "--fetch", "y"}),
            "tessera run: tensor 'x' is fed twice");
}

TEST(CliArgsErrorTest, MissingValues) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--feed"}),
            "tessera run: --feed needs a value (NAME=FILE.npy)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch"}),
            "tessera run: --fetch needs a value (a tensor name NODE or NODE:INDEX)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--target"}),
            "tessera run: --target needs a value (a node name)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--output-dir"}),
            "tessera run: --output-dir needs a value (a folder)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--plugin"}),
            "tessera run: --plugin needs a value (a manifest file or folder)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--inter-op-threads"}),
            "tessera run: --inter-op-threads needs a value (a number of threads)");
  EXPECT_EQ(UsageError({"plugins", "--plugin"}),
            "tessera plugins: --plugin needs a value (a manifest file or folder)");
}

TEST(CliArgsErrorTest, BadValues) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "a:b"}),
            "tessera run: --fetch expects a tensor name NODE or NODE:INDEX, got 'a:b'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "a:"}),
            "tessera run: --fetch expects a tensor name NODE or NODE:INDEX, got 'a:'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "a:99999999999"}),
            "tessera run: --fetch expects a tensor name NODE or NODE:INDEX, got 'a:99999999999'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "bad name"}),
            "tessera run: --fetch expects a tensor name NODE or NODE:INDEX, got 'bad name'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--target", "t:0"}),
            "tessera run: --target expects a node name, got 't:0'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--output-dir="}),
            "tessera run: --output-dir expects a folder, got ''");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--intra-op-threads", "-1"}),
            "tessera run: --intra-op-threads expects a non-negative integer, got '-1'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--inter-op-threads=many"}),
            "tessera run: --inter-op-threads expects a non-negative integer, got 'many'");
  EXPECT_EQ(UsageError({"plugins", "--json=yes"}), "tessera plugins: --json takes no value, got 'yes'");
}

TEST(CliArgsErrorTest, TraceAndPlacementFlags) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--trace"}),
            "tessera run: --trace needs a value (a .json file)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--trace="}),
            "tessera run: --trace expects a .json file, got ''");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--log-device-placement=yes"}),
            "tessera run: --log-device-placement takes no value, got 'yes'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--soft-placement=1"}),
            "tessera run: --soft-placement takes no value, got '1'");
}

TEST(CliArgsErrorTest, CpuDevices) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices"}),
            "tessera run: --cpu-devices needs a value (a number of CPU devices)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "two"}),
            "tessera run: --cpu-devices expects an integer >= 1, got 'two'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "1.5"}),
            "tessera run: --cpu-devices expects an integer >= 1, got '1.5'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices=0"}),
            "tessera run: --cpu-devices expects an integer >= 1, got '0'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "-2"}),
            "tessera run: --cpu-devices expects an integer >= 1, got '-2'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "99999999999"}),
            "tessera run: --cpu-devices expects an integer >= 1, got '99999999999'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices=2", "--cpu-devices=3"}),
            "tessera run: the device count of CPU is given twice: '--cpu-devices 2' and "
            "'--cpu-devices 3'");
}

TEST(CliArgsErrorTest, DeviceCount) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count"}),
            "tessera run: --device-count needs a value (TYPE=N)");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU"}),
            "tessera run: --device-count expects TYPE=N, got 'GPU'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "=1"}),
            "tessera run: --device-count expects TYPE=N, got '=1'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU="}),
            "tessera run: --device-count expects TYPE=N, got 'GPU='");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "2GPU=1"}),
            "tessera run: --device-count expects a device type (a letter, then letters, digits "
            "or '_') before '=', got '2GPU'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "G-PU=1"}),
            "tessera run: --device-count expects a device type (a letter, then letters, digits "
            "or '_') before '=', got 'G-PU'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=many"}),
            "tessera run: --device-count expects a count >= 0 after '=', got 'many' in "
            "'GPU=many'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=-1"}),
            "tessera run: --device-count expects a count >= 0 after '=', got '-1' in 'GPU=-1'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=1=2"}),
            "tessera run: --device-count expects a count >= 0 after '=', got '1=2' in 'GPU=1=2'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "cpu=0"}),
            "tessera run: --device-count cpu=0: at least one CPU device is needed, got 0");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=1",
                        "--device-count", "gpu=2"}),
            "tessera run: the device count of GPU is given twice: '--device-count GPU=1' and "
            "'--device-count gpu=2'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "2", "--device-count",
                        "CPU=3"}),
            "tessera run: the device count of CPU is given twice: '--cpu-devices 2' and "
            "'--device-count CPU=3'");
}

TEST(CliArgsErrorTest, RunArguments) {
  EXPECT_EQ(UsageError({"run"}),
            "tessera run: missing GRAPH (a .pb or .pbtxt file; see 'tessera run --help')");
  EXPECT_EQ(UsageError({"run", "--fetch", "y"}),
            "tessera run: missing GRAPH (a .pb or .pbtxt file; see 'tessera run --help')");
  EXPECT_EQ(UsageError({"run", "g.pb"}),
            "tessera run: nothing to run; give at least one --fetch or --target");
  EXPECT_EQ(UsageError({"run", "g.pb", "h.pb", "--fetch", "y"}),
            "tessera run: unexpected argument 'h.pb'; the graph is already 'g.pb'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetches", "y"}),
            "tessera run: unknown option '--fetches' (see 'tessera run --help')");
}

TEST(CliArgsErrorTest, PluginsArguments) {
  EXPECT_EQ(UsageError({"plugins", "--all"}),
            "tessera plugins: unknown option '--all' (see 'tessera plugins --help')");
  EXPECT_EQ(UsageError({"plugins", "cpu"}),
            "tessera plugins: unexpected argument 'cpu'; plugin paths are given with --plugin");
}

}  // namespace
}  // namespace cli
}  // namespace tessera
