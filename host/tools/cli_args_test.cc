// Tests of the `tessera` argument parser: every form of every option and every usage error.
#include "host/tools/cli_args.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

// Both parse with an empty environment, whatever TF_CONFIG the test runs with
// (cli_args_tf_config_test.cc tests TF_CONFIG).
CliArgs Parse(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args, CliEnvironment());
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : CliArgs();
}

// The usage error's message; fails the test unless the code is INVALID_ARGUMENT.
std::string UsageError(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args, CliEnvironment());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(CliArgsTest, RunWithEveryOption) {
  CliArgs args = Parse({"run", "g.pb", "--feed", "x=a.npy", "--feed=dense/y:1=b.npy", "--fetch",
                        "p", "--fetch=q:2", "--target", "init", "--output-dir", "out", "--plugin",
                        "p1", "--plugin=p2", "--inter-op-threads", "2", "--intra-op-threads=3"});
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
                        "--device-count", "gpu=1", "--device-count=TESTKIT=0", "--no-op-fusion"});
  EXPECT_FALSE(args.run.op_fusion);
  EXPECT_EQ(args.run.trace_path, "step.json");
  EXPECT_TRUE(args.run.log_device_placement);
  EXPECT_TRUE(args.run.allow_soft_placement);
  EXPECT_THAT(args.run.device_count,
              ElementsAre(Pair("CPU", 2), Pair("GPU", 1), Pair("TESTKIT", 0)));

  CliArgs defaults = Parse({"run", "g.pb", "--fetch", "y"});
  EXPECT_EQ(defaults.run.trace_path, "");
  EXPECT_FALSE(defaults.run.log_device_placement);
  EXPECT_FALSE(defaults.run.allow_soft_placement);
  EXPECT_TRUE(defaults.run.op_fusion);
  EXPECT_TRUE(defaults.run.device_count.empty());

  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--trace=t.json"}).run.trace_path, "t.json");
  EXPECT_THAT(Parse({"run", "g.pb", "--fetch", "y", "--cpu-devices=3"}).run.device_count,
              ElementsAre(Pair("CPU", 3)));
  EXPECT_THAT(Parse({"run", "g.pb", "--fetch", "y", "--device-count", "CPU=4"}).run.device_count,
              ElementsAre(Pair("CPU", 4)));
  EXPECT_THAT(
      Parse({"run", "g.pb", "--fetch", "y", "--device-count", "my_dev2=7"}).run.device_count,
      ElementsAre(Pair("MY_DEV2", 7)));
}

TEST(CliArgsTest, DeviceOptions) {
  CliArgs args = Parse({"run", "g.pb", "--fetch", "y", "--device-option", "gpu:allow_tf32=false",
                        "--device-option=GPU:memory_fraction=0.5", "--device-option",
                        "TESTDEV:stream_delay_us="});
  EXPECT_THAT(args.run.device_options,
              ElementsAre(Pair("GPU", ElementsAre(Pair("allow_tf32", "false"),
                                                  Pair("memory_fraction", "0.5"))),
                          Pair("TESTDEV", ElementsAre(Pair("stream_delay_us", "")))));
  EXPECT_THAT(Parse({"serve", "--cluster", "worker=localhost:2222", "--job", "worker", "--task",
                     "0", "--device-option", "GPU:allow_tf32=true"})
                  .serve.device_options,
              ElementsAre(Pair("GPU", ElementsAre(Pair("allow_tf32", "true")))));
  EXPECT_THAT(UsageError({"run", "g.pb", "--fetch", "y", "--device-option", "GPU=1"}),
              HasSubstr("--device-option expects TYPE:KEY=VALUE (e.g. GPU:allow_tf32=false), "
                        "got 'GPU=1'"));
  EXPECT_THAT(UsageError({"run", "g.pb", "--fetch", "y", "--device-option", "GPU:=1"}),
              HasSubstr("--device-option expects TYPE:KEY=VALUE"));
  EXPECT_THAT(UsageError({"run", "g.pb", "--fetch", "y", "--device-option", "9X:k=1"}),
              HasSubstr("--device-option expects a device type (a letter, then letters, digits "
                        "or '_') before ':', got '9X'"));
  EXPECT_THAT(UsageError({"run", "g.pb", "--fetch", "y", "--device-option", "gpu:a=1",
                          "--device-option", "GPU:a=2"}),
              HasSubstr("--device-option gives GPU:a twice"));
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

TEST(CliArgsTest, Ops) {
  CliArgs plain = Parse({"ops"});
  EXPECT_EQ(plain.command, Command::kOps);
  EXPECT_EQ(plain.ops.format, OpsArgs::Format::kText);
  EXPECT_EQ(plain.ops.graph_path, "");
  CliArgs json = Parse(
      {"ops", "--json", "--graph", "g.pb", "--plugin", "a", "--plugin=b", "--plugin-allow", "cpu"});
  EXPECT_EQ(json.ops.format, OpsArgs::Format::kJson);
  EXPECT_EQ(json.ops.graph_path, "g.pb");
  EXPECT_THAT(json.ops.plugin_paths, ElementsAre("a", "b"));
  EXPECT_EQ(json.ops.plugin_policy.allowlist, (std::set<std::string>{"cpu"}));
  EXPECT_EQ(Parse({"ops", "--markdown"}).ops.format, OpsArgs::Format::kMarkdown);
  EXPECT_EQ(Parse({"ops", "--graph=h.pbtxt"}).ops.graph_path, "h.pbtxt");
  EXPECT_EQ(Parse({"ops", "--help"}).help_topic, "ops");
  EXPECT_EQ(Parse({"help", "ops"}).help_topic, "ops");
}

TEST(CliArgsTest, PluginPolicyOptionsInEveryCommand) {
  const std::vector<std::string> policy = {
      "--plugin-allow",  "cpu,grpc",     "--plugin-allow=acme-gpu",   "--plugin-require-sha256",
      "--plugin-prefer", "gpu=acme-gpu", "--plugin-prefer=NPU=npu_a", "--plugin-config",
      "/tmp/p.json"};
  std::vector<std::string> run = {"run", "g.pb", "--fetch", "y"};
  run.insert(run.end(), policy.begin(), policy.end());
  std::vector<std::string> serve = {"serve", "--cluster", "worker=localhost:2222", "--job",
                                    "worker"};
  serve.insert(serve.end(), policy.begin(), policy.end());
  std::vector<std::string> plugins = {"plugins"};
  plugins.insert(plugins.end(), policy.begin(), policy.end());
  std::vector<std::string> ops = {"ops"};
  ops.insert(ops.end(), policy.begin(), policy.end());
  const CliArgs parsed[] = {Parse(run), Parse(serve), Parse(plugins), Parse(ops)};
  for (const PluginPolicyOptions& options :
       {parsed[0].run.plugin_policy, parsed[1].serve.plugin_policy, parsed[2].plugins.plugin_policy,
        parsed[3].ops.plugin_policy}) {
    EXPECT_EQ(options.allowlist, (std::set<std::string>{"acme-gpu", "cpu", "grpc"}));
    EXPECT_EQ(options.allowlist_source, "--plugin-allow");
    EXPECT_TRUE(options.require_sha256);
    EXPECT_EQ(options.require_sha256_source, "--plugin-require-sha256");
    EXPECT_THAT(options.preferred_providers,
                ElementsAre(Pair("GPU", "acme-gpu"), Pair("NPU", "npu_a")));
    EXPECT_EQ(options.preferred_providers_source, "--plugin-prefer");
    EXPECT_EQ(options.config_file, "/tmp/p.json");
  }
  // Nothing given: the policy file decides.
  const PluginPolicyOptions none = Parse({"plugins"}).plugins.plugin_policy;
  EXPECT_FALSE(none.allowlist.has_value());
  EXPECT_FALSE(none.require_sha256);
  EXPECT_FALSE(none.config_file.has_value());
}

TEST(CliArgsTest, RunOnAServer) {
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y"}).run.server, "");
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--server", "grpc://localhost:2222"}).run.server,
            "grpc://localhost:2222");
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--server=grpc://[::1]:65535"}).run.server,
            "grpc://[::1]:65535");
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--server=my-rdma+v2://10.0.0.1:1"}).run.server,
            "my-rdma+v2://10.0.0.1:1");
}

TEST(CliArgsTest, ServeWithEveryOption) {
  CliArgs args = Parse({"serve",
                        "--cluster",
                        "worker=localhost:2222,localhost:2223;ps=localhost:2224",
                        "--job",
                        "worker",
                        "--task=1",
                        "--transport",
                        "fake",
                        "--tls-cert",
                        "c.pem",
                        "--tls-key=k.pem",
                        "--tls-ca",
                        "ca.pem",
                        "--call-timeout-ms",
                        "500",
                        "--session-idle-timeout-ms=7000",
                        "--step-idle-timeout-ms",
                        "8000",
                        "--plugin",
                        "p1",
                        "--plugin=p2",
                        "--cpu-devices",
                        "2",
                        "--device-count",
                        "gpu=0",
                        "--inter-op-threads",
                        "3",
                        "--intra-op-threads=4"});
  EXPECT_EQ(args.command, Command::kServe);
  const ServeArgs& serve = args.serve;
  EXPECT_EQ(serve.cluster.ToString(), "ps=localhost:2224;worker=localhost:2222,localhost:2223");
  EXPECT_EQ(serve.job, "worker");
  EXPECT_EQ(serve.task, 1);
  EXPECT_EQ(serve.transport, "fake");
  EXPECT_THAT(serve.transport_options,
              ElementsAre(Pair("tls_ca_file", "ca.pem"), Pair("tls_cert_file", "c.pem"),
                          Pair("tls_key_file", "k.pem")));
  EXPECT_EQ(serve.call_timeout_ms, 500);
  EXPECT_EQ(serve.session_idle_timeout_ms, 7000);
  EXPECT_EQ(serve.step_idle_timeout_ms, 8000);
  EXPECT_THAT(serve.plugin_paths, ElementsAre("p1", "p2"));
  EXPECT_THAT(serve.device_count, ElementsAre(Pair("CPU", 2), Pair("GPU", 0)));
  EXPECT_EQ(serve.inter_op_threads, 3);
  EXPECT_EQ(serve.intra_op_threads, 4);
}

TEST(CliArgsTest, ServeDefaults) {
  CliArgs args = Parse({"serve", "--cluster=worker=localhost:2222", "--job=worker"});
  const ServeArgs& serve = args.serve;
  EXPECT_EQ(serve.task, 0);
  EXPECT_EQ(serve.transport, "grpc");
  EXPECT_TRUE(serve.transport_options.empty());
  EXPECT_EQ(serve.call_timeout_ms, 0);
  EXPECT_EQ(serve.session_idle_timeout_ms, 0);
  EXPECT_EQ(serve.step_idle_timeout_ms, 0);
  EXPECT_TRUE(serve.plugin_paths.empty());
  EXPECT_TRUE(serve.device_count.empty());
  EXPECT_EQ(serve.inter_op_threads, 0);
  EXPECT_EQ(serve.intra_op_threads, 0);
  // TLS without a CA: the task presents a certificate and checks none.
  EXPECT_EQ(Parse({"serve", "--cluster=worker=localhost:2222", "--job=worker", "--tls-cert=c",
                   "--tls-key=k"})
                .serve.transport_options.size(),
            2u);
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
  EXPECT_EQ(Parse({"serve", "--help"}).help_topic, "serve");
  EXPECT_EQ(Parse({"serve", "--job", "x", "-h"}).help_topic, "serve");
  EXPECT_EQ(Parse({"help", "serve"}).help_topic, "serve");
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
  EXPECT_EQ(Parse({"-V"}).command, Command::kVersion);
}

TEST(CliArgsTest, UsageTexts) {
  EXPECT_THAT(ProgramUsage(), StartsWith("usage: tessera <command>"));
  EXPECT_EQ(CommandUsage(""), ProgramUsage());
  EXPECT_THAT(CommandUsage("run"), HasSubstr("--feed NAME=FILE.npy"));
  for (const char* option : {"--trace FILE.json", "--log-device-placement", "--soft-placement",
                             "--no-op-fusion", "--cpu-devices N", "--device-count TYPE=N",
                             "--device-option TYPE:KEY=VALUE"}) {
    EXPECT_THAT(CommandUsage("run"), HasSubstr(option));
  }
  EXPECT_THAT(CommandUsage("plugins"), HasSubstr("--json"));
  EXPECT_THAT(CommandUsage("ops"), StartsWith("usage: tessera ops [--json | --markdown]"));
  for (const char* option : {"--json", "--markdown", "--graph FILE", "--plugin PATH"}) {
    EXPECT_THAT(CommandUsage("ops"), HasSubstr(option));
  }
  EXPECT_THAT(ProgramUsage(), HasSubstr("\n  ops "));
  for (const char* command : {"run", "serve", "plugins", "ops"}) {
    for (const char* option : {"--plugin-allow NAME[,NAME...]", "--plugin-require-sha256",
                               "--plugin-prefer TYPE=NAME", "--plugin-config FILE"}) {
      EXPECT_THAT(CommandUsage(command), HasSubstr(option)) << command;
    }
  }
  EXPECT_THAT(CommandUsage("plugins"), HasSubstr("TESSERA_PLUGIN_CONFIG"));
  EXPECT_THAT(CommandUsage("run"), HasSubstr("--server SCHEME://HOST:PORT"));
  EXPECT_THAT(ProgramUsage(), HasSubstr("serve "));
  EXPECT_THAT(CommandUsage("serve"), StartsWith("usage: tessera serve --cluster SPEC --job NAME"));
  for (const char* option :
       {"--cluster SPEC", "--job NAME", "--task N", "--transport NAME", "--tls-cert FILE.pem",
        "--tls-key FILE.pem", "--tls-ca FILE.pem", "--call-timeout-ms N",
        "--session-idle-timeout-ms N", "--step-idle-timeout-ms N", "--plugin PATH",
        "--cpu-devices N", "--device-count TYPE=N", "--inter-op-threads N", "--intra-op-threads N",
        "serving master and worker at HOST:PORT", "tessera serve: stopped"}) {
    EXPECT_THAT(CommandUsage("serve"), HasSubstr(option));
  }
  EXPECT_EQ(CommandUsage("bogus"), "");
  EXPECT_THAT(VersionString(), StartsWith("tessera "));
  EXPECT_THAT(VersionString(), HasSubstr("(plugin ABI "));
}

// ---- Usage errors -------------------------------------------------------------------------

TEST(CliArgsErrorTest, ProgramLevel) {
  EXPECT_EQ(UsageError({}),
            "tessera: missing command; expected 'run', 'serve', 'plugins', 'ops' or 'show' (see "
            "'tessera --help')");
  EXPECT_EQ(UsageError({"walk"}),
            "tessera: unknown command 'walk'; expected 'run', 'serve', 'plugins', 'ops' or 'show' "
            "(see 'tessera --help')");
  EXPECT_EQ(UsageError({"--verbose"}),
            "tessera: unknown option '--verbose' (see 'tessera --help')");
  EXPECT_EQ(UsageError({"ops", "--json", "--markdown"}),
            "tessera ops: --json and --markdown exclude each other");
  EXPECT_EQ(UsageError({"ops", "--graph", "g.pb", "--markdown"}),
            "tessera ops: --markdown lists every op; it does not check a --graph");
  EXPECT_EQ(UsageError({"ops", "--graph", "a.pb", "--graph=b.pb"}),
            "tessera ops: --graph is given more than once");
  EXPECT_EQ(UsageError({"ops", "--graph"}),
            "tessera ops: --graph needs a value (a GraphDef file, .pb or .pbtxt)");
  EXPECT_EQ(UsageError({"ops", "a.pb"}),
            "tessera ops: unexpected argument 'a.pb'; a graph is given with --graph FILE");
  EXPECT_EQ(UsageError({"ops", "--markdown=yes"}),
            "tessera ops: --markdown takes no value, got 'yes'");
  EXPECT_EQ(UsageError({"help", "walk"}),
            "tessera help: unknown command 'walk'; expected 'run', 'serve', 'plugins', 'ops' or "
            "'show'");
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
  EXPECT_EQ(UsageError({"plugins", "--json=yes"}),
            "tessera plugins: --json takes no value, got 'yes'");
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
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--no-op-fusion=no"}),
            "tessera run: --no-op-fusion takes no value, got 'no'");
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
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--device-count", "GPU=1", "--device-count",
                        "gpu=2"}),
            "tessera run: the device count of GPU is given twice: '--device-count GPU=1' and "
            "'--device-count gpu=2'");
  EXPECT_EQ(
      UsageError({"run", "g.pb", "--fetch", "y", "--cpu-devices", "2", "--device-count", "CPU=3"}),
      "tessera run: the device count of CPU is given twice: '--cpu-devices 2' and "
      "'--device-count CPU=3'");
}

TEST(CliArgsErrorTest, RunArguments) {
  EXPECT_EQ(UsageError({"run"}),
            "tessera run: missing GRAPH (a .pb, .pbtxt or .meta file) or --saved-model DIR "
            "(see 'tessera run --help')");
  EXPECT_EQ(UsageError({"run", "--fetch", "y"}),
            "tessera run: missing GRAPH (a .pb, .pbtxt or .meta file) or --saved-model DIR "
            "(see 'tessera run --help')");
  EXPECT_EQ(UsageError({"run", "g.pb"}),
            "tessera run: nothing to run; give at least one --fetch or --target");
  EXPECT_EQ(UsageError({"run", "g.pb", "h.pb", "--fetch", "y"}),
            "tessera run: unexpected argument 'h.pb'; the graph is already 'g.pb'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetches", "y"}),
            "tessera run: unknown option '--fetches' (see 'tessera run --help')");
}

TEST(CliArgsErrorTest, FetchesThatWouldShareAnOutputFile) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "a/b", "--fetch", "a_b", "--output-dir", "out"}),
            "tessera run: --fetch 'a/b' and --fetch 'a_b' would both be written to 'a_b.npy' in "
            "--output-dir; fetch one of them under another name or without --output-dir");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "x:1", "--fetch", "x_1", "--output-dir=o"}),
            "tessera run: --fetch 'x:1' and --fetch 'x_1' would both be written to 'x_1.npy' in "
            "--output-dir; fetch one of them under another name or without --output-dir");
  // Without --output-dir nothing is written; the same fetch twice shares its file harmlessly;
  // 'x' and 'x:0' are written as x.npy and x_0.npy.
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "a/b", "--fetch", "a_b"}).run.fetches.size(), 2u);
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--fetch", "y", "--output-dir", "o"})
                .run.fetches.size(),
            2u);
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "x", "--fetch", "x:0", "--output-dir", "o"})
                .run.fetches.size(),
            2u);
}

TEST(CliArgsErrorTest, RunTimeout) {
  EXPECT_EQ(Parse({"run", "g.pb", "--fetch", "y", "--timeout-ms", "2500"}).run.timeout_ms, 2500);
  for (const char* value : {"0", "-1", "x", ""}) {
    EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--timeout-ms", value}),
              absl::StrCat("tessera run: --timeout-ms expects a number of milliseconds >= 1, got '",
                           value, "'"))
        << value;
  }
}

TEST(CliArgsErrorTest, RunServer) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--server"}),
            "tessera run: --server needs a value (a session target SCHEME://HOST:PORT)");
  for (const char* target :
       {"", "localhost:2222", "grpc://", "grpc://localhost", "grpc://:2222", "grpc://localhost:0",
        "grpc://localhost:65536", "grpc://localhost:x", "grpc://localhost:", "grpc://a b:1",
        "grpc://a/b:1", "://a:1", "GRPC://a:1", "1grpc://a:1", "gr_pc://a:1", "local"}) {
    EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--server", target}),
              absl::StrCat("tessera run: --server expects SCHEME://HOST:PORT (e.g. "
                           "grpc://localhost:2222), got '",
                           target, "'"))
        << target;
  }
}

// The usage error of `tessera serve` with a valid cluster, job and `extra` arguments.
std::string ServeError(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"serve", "--cluster", "worker=a:1,a:2;ps=b:1", "--job",
                                   "worker"};
  args.insert(args.end(), extra.begin(), extra.end());
  return UsageError(args);
}

TEST(CliArgsErrorTest, ServeRequiredOptions) {
  EXPECT_EQ(UsageError({"serve"}),
            "tessera serve: missing --cluster (e.g. --cluster "
            "'worker=localhost:2222,localhost:2223') and TF_CONFIG is not set; see 'tessera "
            "serve --help'");
  EXPECT_EQ(UsageError({"serve", "--job", "worker"}),
            "tessera serve: missing --cluster (e.g. --cluster "
            "'worker=localhost:2222,localhost:2223') and TF_CONFIG is not set; see 'tessera "
            "serve --help'");
  EXPECT_EQ(UsageError({"serve", "--cluster", "worker=a:1"}),
            "tessera serve: missing --job (the job of this task in the cluster, e.g. --job "
            "worker)");
}

TEST(CliArgsErrorTest, ServeCluster) {
  EXPECT_EQ(UsageError({"serve", "--cluster"}),
            "tessera serve: --cluster needs a value (JOB=HOST:PORT,...;JOB=HOST:PORT)");
  EXPECT_EQ(UsageError({"serve", "--cluster", "", "--job", "worker"}),
            "tessera serve: --cluster: the cluster spec is empty; expected "
            "'job=host:port,host:port;job2=host:port'");
  EXPECT_EQ(UsageError({"serve", "--cluster", "worker=a:1,a:1", "--job", "worker"}),
            "tessera serve: --cluster: address 'a:1' is used by both /job:worker/replica:0/task:0 "
            "and /job:worker/replica:0/task:1");
  EXPECT_EQ(UsageError({"serve", "--cluster=Worker=a:1", "--job", "worker"}),
            "tessera serve: --cluster: invalid job name 'Worker' in cluster spec entry "
            "'Worker=a:1'; a job name is a lower-case letter, then lower-case letters, digits or "
            "'_'");
}

TEST(CliArgsErrorTest, ServeJobAndTask) {
  EXPECT_EQ(UsageError({"serve", "--cluster", "worker=a:1", "--job"}),
            "tessera serve: --job needs a value (a job name)");
  EXPECT_EQ(UsageError({"serve", "--cluster", "worker=a:1", "--job="}),
            "tessera serve: --job expects a job name, got ''");
  EXPECT_EQ(UsageError({"serve", "--cluster", "worker=a:1;ps=b:1", "--job", "chief"}),
            "tessera serve: --job: no job 'chief' in the cluster (jobs: ps, worker)");
  EXPECT_EQ(ServeError({"--task"}), "tessera serve: --task needs a value (a task index)");
  for (const char* task : {"x", "-1", "1.0", "", "99999999999"}) {
    EXPECT_EQ(ServeError({"--task", task}),
              absl::StrCat("tessera serve: --task expects a task index >= 0, got '", task, "'"));
  }
  EXPECT_EQ(ServeError({"--task", "2"}),
            "tessera serve: --task: no task 2 in job 'worker', which has 2 tasks");
}

TEST(CliArgsErrorTest, ServeTransportAndTls) {
  EXPECT_EQ(ServeError({"--transport"}),
            "tessera serve: --transport needs a value (a transport name)");
  EXPECT_EQ(ServeError({"--transport="}),
            "tessera serve: --transport expects a transport name, got ''");
  for (const char* option : {"--tls-cert", "--tls-key", "--tls-ca"}) {
    EXPECT_EQ(ServeError({option}),
              absl::StrCat("tessera serve: ", option, " needs a value (a PEM file)"));
    EXPECT_EQ(ServeError({absl::StrCat(option, "=")}),
              absl::StrCat("tessera serve: ", option, " expects a PEM file, got ''"));
  }
  EXPECT_EQ(ServeError({"--tls-cert", "c.pem"}),
            "tessera serve: --tls-cert needs --tls-key (the certificate's private key)");
  EXPECT_EQ(ServeError({"--tls-key", "k.pem", "--tls-ca", "ca.pem"}),
            "tessera serve: --tls-key needs --tls-cert (the certificate it belongs to)");
  EXPECT_EQ(ServeError({"--tls-ca", "ca.pem"}),
            "tessera serve: --tls-ca needs --tls-cert and --tls-key (a task that checks its "
            "peers' certificates also presents its own)");
}

TEST(CliArgsErrorTest, ServeTimeouts) {
  for (const char* option :
       {"--call-timeout-ms", "--session-idle-timeout-ms", "--step-idle-timeout-ms"}) {
    EXPECT_EQ(ServeError({option}),
              absl::StrCat("tessera serve: ", option, " needs a value (a number of milliseconds)"));
    for (const char* value : {"0", "-5", "1s", "", "99999999999999999999"}) {
      EXPECT_EQ(ServeError({option, value}), absl::StrCat("tessera serve: ", option,
                                                          " expects a number of milliseconds >= 1, "
                                                          "got '",
                                                          value, "'"))
          << option << " " << value;
    }
  }
}

TEST(CliArgsErrorTest, ServeDevicesThreadsAndPlugins) {
  EXPECT_EQ(ServeError({"--plugin"}),
            "tessera serve: --plugin needs a value (a manifest file or folder)");
  EXPECT_EQ(ServeError({"--inter-op-threads", "-1"}),
            "tessera serve: --inter-op-threads expects a non-negative integer, got '-1'");
  EXPECT_EQ(ServeError({"--intra-op-threads"}),
            "tessera serve: --intra-op-threads needs a value (a number of threads)");
  EXPECT_EQ(ServeError({"--cpu-devices"}),
            "tessera serve: --cpu-devices needs a value (a number of CPU devices)");
  EXPECT_EQ(ServeError({"--cpu-devices", "0"}),
            "tessera serve: --cpu-devices expects an integer >= 1, got '0'");
  EXPECT_EQ(ServeError({"--device-count"}), "tessera serve: --device-count needs a value (TYPE=N)");
  EXPECT_EQ(ServeError({"--device-count", "GPU"}),
            "tessera serve: --device-count expects TYPE=N, got 'GPU'");
  EXPECT_EQ(ServeError({"--device-count", "2GPU=1"}),
            "tessera serve: --device-count expects a device type (a letter, then letters, digits "
            "or '_') before '=', got '2GPU'");
  EXPECT_EQ(ServeError({"--device-count", "GPU=x"}),
            "tessera serve: --device-count expects a count >= 0 after '=', got 'x' in 'GPU=x'");
  EXPECT_EQ(ServeError({"--device-count", "CPU=0"}),
            "tessera serve: --device-count CPU=0: at least one CPU device is needed, got 0");
  EXPECT_EQ(ServeError({"--cpu-devices", "2", "--device-count", "cpu=3"}),
            "tessera serve: the device count of CPU is given twice: '--cpu-devices 2' and "
            "'--device-count cpu=3'");
}

TEST(CliArgsErrorTest, ServeArguments) {
  EXPECT_EQ(ServeError({"--port", "2222"}),
            "tessera serve: unknown option '--port' (see 'tessera serve --help')");
  EXPECT_EQ(ServeError({"localhost:2222"}),
            "tessera serve: unexpected argument 'localhost:2222'; tessera serve takes options "
            "only");
}

TEST(CliArgsErrorTest, PluginPolicyOptions) {
  EXPECT_EQ(UsageError({"plugins", "--plugin-allow", "cpu,Acme"}),
            "tessera plugins: --plugin-allow expects plugin names ([a-z0-9_-]+, comma-separated), "
            "got 'Acme' in 'cpu,Acme'");
  EXPECT_EQ(UsageError({"plugins", "--plugin-allow", "cpu,"}),
            "tessera plugins: --plugin-allow expects plugin names ([a-z0-9_-]+, comma-separated), "
            "got '' in 'cpu,'");
  EXPECT_EQ(UsageError({"plugins", "--plugin-allow"}),
            "tessera plugins: --plugin-allow needs a value (plugin names NAME[,NAME...])");
  EXPECT_EQ(UsageError({"plugins", "--plugin-require-sha256=yes"}),
            "tessera plugins: --plugin-require-sha256 takes no value, got 'yes'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--plugin-prefer", "GPU"}),
            "tessera run: --plugin-prefer expects TYPE=NAME, got 'GPU'");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--plugin-prefer", "9PU=acme"}),
            "tessera run: --plugin-prefer expects a device type (a letter, then letters, digits "
            "or '_') before '=', got '9PU'");
  EXPECT_EQ(UsageError({"serve", "--plugin-prefer", "GPU=Acme"}),
            "tessera serve: --plugin-prefer expects a plugin name ([a-z0-9_-]+) after '=', got "
            "'Acme'");
  EXPECT_EQ(UsageError({"plugins", "--plugin-prefer", "GPU=a", "--plugin-prefer", "gpu=b"}),
            "tessera plugins: --plugin-prefer gives device type GPU two plugins: 'a' and 'b'");
  EXPECT_EQ(UsageError({"plugins", "--plugin-config="}),
            "tessera plugins: --plugin-config expects a JSON file, got ''");
  EXPECT_EQ(UsageError({"plugins", "--plugin-config", "a.json", "--plugin-config", "b.json"}),
            "tessera plugins: --plugin-config is given twice: 'a.json' and 'b.json'");
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

// ---- SavedModels and MetaGraphs ------------------------------------------------------------

namespace tessera {
namespace cli {
namespace {

TEST(CliArgsSavedModelTest, RunASavedModelBySignatureOrByTensorNames) {
  CliArgs args = Parse({"run", "--saved-model", "model", "--input", "x=x.npy", "--input=y=y.npy",
                        "--output-dir", "out"});
  EXPECT_EQ(args.run.saved_model_dir, "model");
  EXPECT_TRUE(args.run.graph_path.empty());
  EXPECT_THAT(args.run.tags, ElementsAre("serve"));
  EXPECT_EQ(args.run.signature_key, "serving_default");
  EXPECT_THAT(args.run.inputs, ElementsAre(Pair("x", "x.npy"), Pair("y", "y.npy")));
  EXPECT_TRUE(args.run.fetches.empty());

  args = Parse({"run", "--saved-model=model", "--tag-set", "serve,gpu", "--signature-def",
                "classify", "--feed", "x:0=x.npy", "--fetch", "y:0"});
  EXPECT_THAT(args.run.tags, ElementsAre("serve", "gpu"));
  EXPECT_EQ(args.run.signature_key, "classify");
  EXPECT_THAT(args.run.fetches, ElementsAre("y:0"));

  args = Parse({"run", "model.meta", "--checkpoint", "ckpt/model-100", "--fetch", "y"});
  EXPECT_EQ(args.run.graph_path, "model.meta");
  EXPECT_EQ(args.run.checkpoint_prefix, "ckpt/model-100");
}

TEST(CliArgsSavedModelTest, RunUsageErrors) {
  EXPECT_EQ(UsageError({"run", "g.pb", "--saved-model", "m", "--fetch", "y"}),
            "tessera run: give GRAPH or --saved-model DIR, not both (got 'g.pb' and --saved-model "
            "'m')");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--tag-set", "serve"}),
            "tessera run: --tag-set needs --saved-model DIR");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--signature-def", "s"}),
            "tessera run: --signature-def needs --saved-model DIR");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--input", "x=a.npy"}),
            "tessera run: --input needs --saved-model DIR");
  EXPECT_EQ(UsageError({"run", "g.pb", "--fetch", "y", "--checkpoint", "c"}),
            "tessera run: --checkpoint restores the variables of a MetaGraphDef: GRAPH must be a "
            ".meta (or .meta.pbtxt) file");
  EXPECT_TRUE(IsMetaGraphPath("a/model.meta"));
  EXPECT_TRUE(IsMetaGraphPath("model.meta.pbtxt"));
  EXPECT_TRUE(IsMetaGraphPath("model.meta.txt"));
  EXPECT_FALSE(IsMetaGraphPath("model.pb"));
  EXPECT_FALSE(IsMetaGraphPath("meta"));
  EXPECT_EQ(UsageError({"run", "m.meta", "--fetch", "y", "--checkpoint="}),
            "tessera run: --checkpoint expects a checkpoint prefix, got ''");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--input", "x"}),
            "tessera run: --input expects KEY=FILE.npy, got 'x'");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--input", "x=a.npy", "--input", "x=b.npy"}),
            "tessera run: signature input 'x' is given twice");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--tag-set", "serve,,gpu"}),
            "tessera run: --tag-set expects tags TAG[,TAG...], got 'serve,,gpu'");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--saved-model", "n"}),
            "tessera run: --saved-model is given more than once");
  EXPECT_EQ(UsageError({"run", "--saved-model="}),
            "tessera run: --saved-model expects a folder, got ''");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--signature-def", "a", "--signature-def=b"}),
            "tessera run: --signature-def is given more than once");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--tag-set", "a", "--tag-set", "b"}),
            "tessera run: --tag-set is given more than once");
  EXPECT_EQ(UsageError({"run", "--saved-model", "m", "--feed", "x:0=a.npy"}),
            "tessera run: --feed feeds graph tensors of a run with --fetch or --target; a "
            "signature's inputs are given with --input KEY=FILE.npy");
}

TEST(CliArgsSavedModelTest, Show) {
  CliArgs args = Parse({"show", "--saved-model", "m"});
  EXPECT_EQ(args.command, Command::kShow);
  EXPECT_EQ(args.show.saved_model_dir, "m");
  EXPECT_TRUE(args.show.tags.empty());
  EXPECT_TRUE(args.show.signature_key.empty());
  args = Parse({"show", "--saved-model", "m", "--tag-set", "serve", "--signature-def", "s"});
  EXPECT_THAT(args.show.tags, ElementsAre("serve"));
  EXPECT_EQ(args.show.signature_key, "s");
  args = Parse({"show", "--meta-graph", "model.meta"});
  EXPECT_EQ(args.show.meta_graph_path, "model.meta");
  EXPECT_EQ(Parse({"show", "--help"}).help_topic, "show");
  EXPECT_THAT(CommandUsage("show"), StartsWith("usage: tessera show"));

  EXPECT_EQ(UsageError({"show"}),
            "tessera show: give one of --saved-model DIR and --meta-graph FILE");
  EXPECT_EQ(UsageError({"show", "--saved-model", "m", "--meta-graph", "g.meta"}),
            "tessera show: give one of --saved-model DIR and --meta-graph FILE");
  EXPECT_EQ(UsageError({"show", "--meta-graph", "g.meta", "--tag-set", "serve"}),
            "tessera show: --tag-set chooses a SavedModel's MetaGraph; a --meta-graph file has "
            "one");
  EXPECT_EQ(UsageError({"show", "m"}),
            "tessera show: unexpected argument 'm'; give --saved-model DIR or --meta-graph FILE");
  EXPECT_EQ(UsageError({"show", "--all"}),
            "tessera show: unknown option '--all' (see 'tessera show --help')");
  EXPECT_EQ(UsageError({"show", "--meta-graph="}),
            "tessera show: --meta-graph expects a file, got ''");
  EXPECT_EQ(UsageError({"show", "--meta-graph", "a", "--meta-graph", "b"}),
            "tessera show: --meta-graph is given more than once");
}

}  // namespace
}  // namespace cli
}  // namespace tessera
