// The kernel suite against real plugins: TESTDEV's kernels and the CPU plugin's own pass against
// the CPU oracle, and a kernel pack with a wrong AddV2 is caught with the element it got wrong.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/abi/runtime_slots.h"
#include "host/ops/op_registry.h"
#include "kit/kernel_cases.h"
#include "kit/suite.h"
#include "registry/plugin_registry.h"

namespace tessera::plugin_check {
namespace {

using ::testing::HasSubstr;

const char* Name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kSkip: return "skip";
  }
  return "?";
}

struct SuiteRun {
  std::vector<CaseResult> cases;

  int Count(Outcome outcome) const {
    int n = 0;
    for (const CaseResult& c : cases) n += c.outcome == outcome ? 1 : 0;
    return n;
  }
  const CaseResult* Find(const std::string& name) const {
    for (const CaseResult& c : cases) {
      if (c.name == name) return &c;
    }
    return nullptr;
  }
  // Every case of an op ("AddV2/...") that passed.
  int Passed(const std::string& op) const {
    int n = 0;
    for (const CaseResult& c : cases) {
      n += c.outcome == Outcome::kPass && absl::StartsWith(c.name, op + "/") ? 1 : 0;
    }
    return n;
  }
  std::string Failures() const {
    std::string text;
    for (const CaseResult& c : cases) {
      if (c.outcome == Outcome::kFail) absl::StrAppend(&text, c.name, ": ", c.message, "\n");
    }
    return text;
  }
};

// Runs the kernel suite on the plugin at `plugin_path` (named `plugin_name`), with the build
// tree's plugin folder (the CPU plugin) as the support path.
SuiteRun RunSuite(const std::string& plugin_path, const std::string& plugin_name,
                  const std::string& device_type = "") {
  CheckOptions options;
  options.plugin_path = plugin_path;
  options.support_plugin_paths = {TESSERA_KIT_PLUGIN_DIR};
  options.device_type = device_type;
  RegistryOptions registry_options;
  registry_options.plugin_paths = {plugin_path, TESSERA_KIT_PLUGIN_DIR};
  // As the sessions' registries have them: a plugin initialised again by this registry must keep
  // a host table whose kernel-context slots are set, for the sessions that already use it.
  registry_options.runtime_slots = RuntimeSlots();
  absl::StatusOr<std::unique_ptr<PluginRegistry>> registry =
      PluginRegistry::Create(registry_options);
  SuiteRun run;
  EXPECT_TRUE(registry.ok()) << registry.status();
  if (!registry.ok()) return run;
  const PluginRecord* record = (*registry)->FindRecord(plugin_name);
  EXPECT_NE(record, nullptr) << plugin_name;
  if (record == nullptr) return run;
  SuiteContext context;
  context.options = &options;
  context.registry = registry->get();
  context.plugin = record;
  RunKernelSuite(context, &run.cases);
  for (const CaseResult& c : run.cases) EXPECT_EQ(c.suite, "kernels") << c.name;
  return run;
}

std::string Dump(const SuiteRun& run) {
  std::string text;
  for (const CaseResult& c : run.cases) {
    absl::StrAppend(&text, Name(c.outcome), "  ", c.name, "  ", c.message, "\n");
  }
  return text;
}

TEST(KernelSuiteTest, TestDeviceKernelsMatchTheCpuOracle) {
  SuiteRun run = RunSuite(TESSERA_TESTDEVICE_PLUGIN_DIR, "testdevice");
  EXPECT_EQ(run.Count(Outcome::kFail), 0) << run.Failures();
  for (const char* op : {"Const", "Identity", "AddV2", "Sub", "Mul", "MatMul", "Less",
                         "Greater"}) {
    EXPECT_GT(run.Passed(op), 0) << op << "\n" << Dump(run);
  }
  const CaseResult* broadcast = run.Find("AddV2/float/broadcast[3,1]x[4]");
  ASSERT_NE(broadcast, nullptr) << Dump(run);
  EXPECT_EQ(broadcast->outcome, Outcome::kPass);
  EXPECT_THAT(broadcast->message, HasSubstr("tolerance"));
  const CaseResult* integers = run.Find("Sub/int64/same[2,3]x[2,3]");
  ASSERT_NE(integers, nullptr) << Dump(run);
  EXPECT_EQ(integers->message, "identical (tolerance exact)");
  ASSERT_NE(run.Find("MatMul/float/transpose_b[2,3]x[4,3]"), nullptr) << Dump(run);
  ASSERT_NE(run.Find("MatMul/float/empty[0,3]x[3,4]"), nullptr) << Dump(run);
  ASSERT_NE(run.Find("Const/bool/scalar"), nullptr) << Dump(run);
}

TEST(KernelSuiteTest, TheSameSeedGivesTheSameMessages) {
  SuiteRun first = RunSuite(TESSERA_TESTDEVICE_PLUGIN_DIR, "testdevice");
  SuiteRun second = RunSuite(TESSERA_TESTDEVICE_PLUGIN_DIR, "testdevice");
  ASSERT_EQ(first.cases.size(), second.cases.size());
  for (size_t i = 0; i < first.cases.size(); ++i) {
    EXPECT_EQ(first.cases[i].name, second.cases[i].name);
    EXPECT_EQ(first.cases[i].message, second.cases[i].message);
  }
}

TEST(KernelSuiteTest, CpuPluginPassesAgainstItself) {
  SuiteRun run = RunSuite(absl::StrCat(TESSERA_KIT_PLUGIN_DIR, "/cpu.tessera-plugin.json"), "cpu");
  EXPECT_EQ(run.Count(Outcome::kFail), 0) << run.Failures();
  for (const char* op :
       {"AddV2",       "RealDiv",  "Maximum", "GreaterEqual",  "LogicalAnd", "Exp",  "Sqrt",
        "Relu",        "Tanh",     "MatMul",  "BatchMatMulV2", "Sum",        "Mean", "Max",
        "Prod",        "All",      "ArgMax",  "Conv2D",        "BiasAdd",    "Cast", "Transpose",
        "ConcatV2",    "SelectV2", "AddN",    "ReluGrad",      "Softmax",    "Sin",  "Atan2",
        "ClipByValue", "Softsign", "Cumprod", "BatchMatMul"}) {
    EXPECT_GT(run.Passed(op), 0) << op << "\n" << Dump(run);
  }
  const CaseResult* reduction = run.Find("Sum/float/[3,4]/axes[0]/keep_dims");
  ASSERT_NE(reduction, nullptr) << Dump(run);
  EXPECT_EQ(reduction->outcome, Outcome::kPass);
  // Ops the suite cannot feed are skipped with the reason.
  const CaseResult* random = run.Find("RandomUniform");
  ASSERT_NE(random, nullptr) << Dump(run);
  EXPECT_EQ(random->outcome, Outcome::kSkip);
  EXPECT_THAT(random->message, HasSubstr("stateful"));
  const CaseResult* identity_n = run.Find("IdentityN");
  ASSERT_NE(identity_n, nullptr) << Dump(run);
  EXPECT_EQ(identity_n->outcome, Outcome::kSkip);
  EXPECT_THAT(identity_n->message, HasSubstr("no input generator for op IdentityN"));
}

TEST(KernelSuiteTest, CatchesAWrongAddKernel) {
  SuiteRun run = RunSuite(TESSERA_KIT_FAKES_DIR, "kit_fake_wrong_kernel");
  const CaseResult* same = run.Find("AddV2/float/same[2,3]x[2,3]");
  ASSERT_NE(same, nullptr) << Dump(run);
  EXPECT_EQ(same->outcome, Outcome::kFail);
  EXPECT_THAT(same->message, HasSubstr("largest difference 1 at element 0 ([0,0]) (expected "));
  EXPECT_THAT(same->message, HasSubstr("; tolerance "));
  EXPECT_THAT(same->message, HasSubstr("1 of 6 elements differ"));
  // Broadcast shapes and integer types are wrong the same way (integers compare exactly).
  const CaseResult* broadcast = run.Find("AddV2/float/broadcast[3,1]x[4]");
  ASSERT_NE(broadcast, nullptr) << Dump(run);
  EXPECT_EQ(broadcast->outcome, Outcome::kFail);
  EXPECT_THAT(broadcast->message, HasSubstr("largest difference 1 at element 0"));
  const CaseResult* ints = run.Find("AddV2/int32/same[2,3]x[2,3]");
  ASSERT_NE(ints, nullptr) << Dump(run);
  EXPECT_EQ(ints->outcome, Outcome::kFail);
  // An empty output has no element to get wrong.
  const CaseResult* empty = run.Find("AddV2/float/empty[0,3]x[3]");
  ASSERT_NE(empty, nullptr) << Dump(run);
  EXPECT_EQ(empty->outcome, Outcome::kPass) << empty->message;
}

TEST(KernelSuiteTest, DeviceTypeWithoutKernelsIsOneSkip) {
  SuiteRun run = RunSuite(TESSERA_TESTDEVICE_PLUGIN_DIR, "testdevice", "GPU");
  ASSERT_EQ(run.cases.size(), 1u) << Dump(run);
  EXPECT_EQ(run.cases[0].outcome, Outcome::kSkip);
  EXPECT_EQ(run.cases[0].message, "plugin 'testdevice' registers no kernels for GPU");
}

TEST(KernelCasesTest, NamesWhyAnOpHasNoGenerator) {
  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  absl::Status identity_n = CheckCaseGenerator(ops->Find("IdentityN")->op_def);
  EXPECT_EQ(identity_n.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(identity_n.message()),
              HasSubstr("no input generator for op IdentityN (input 'input' does not take a type "
                        "attribute)"));
  absl::Status unpack = CheckCaseGenerator(ops->Find("Unpack")->op_def);
  EXPECT_THAT(std::string(unpack.message()),
              HasSubstr("no input generator for op Unpack (attribute 'num' has no default)"));
  absl::Status random = CheckCaseGenerator(ops->Find("RandomUniform")->op_def);
  EXPECT_EQ(random.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(random.message()), HasSubstr("op RandomUniform is stateful"));
  absl::Status no_op = CheckCaseGenerator(ops->Find("NoOp")->op_def);
  EXPECT_EQ(no_op.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(no_op.message()), HasSubstr("op NoOp has no outputs to compare"));
  EXPECT_TRUE(CheckCaseGenerator(ops->Find("Tanh")->op_def).ok());
  EXPECT_TRUE(CheckCaseGenerator(ops->Find("AddN")->op_def).ok());
}

TEST(KernelCasesTest, RefusesTypesWithoutValues) {
  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  std::mt19937_64 random(1);
  CaseRequest request;
  request.op_def = &ops->Find("Identity")->op_def;
  request.types = {{"T", TSR_DTYPE_STRING}};
  request.primary_type_attr = "T";
  request.random = &random;
  absl::StatusOr<std::vector<KernelCase>> cases = GenerateKernelCases(request);
  EXPECT_EQ(cases.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(cases.status().message()),
              HasSubstr("no input generator for op Identity with T=string"));
}

TEST(KernelCasesTest, MatMulCasesScaleTheToleranceByTheInnerDimension) {
  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  std::mt19937_64 random(7);
  CaseRequest request;
  request.op_def = &ops->Find("MatMul")->op_def;
  request.types = {{"T", TSR_DTYPE_FLOAT}};
  request.primary_type_attr = "T";
  request.random = &random;
  absl::StatusOr<std::vector<KernelCase>> cases = GenerateKernelCases(request);
  ASSERT_TRUE(cases.ok()) << cases.status();
  std::map<std::string, double> scale;
  for (const KernelCase& c : *cases) scale[c.variant] = c.tolerance_scale;
  EXPECT_EQ(scale.at("deep[4,67]x[67,5]"), 67);
  EXPECT_EQ(scale.at("transpose_a[3,2]x[3,4]"), 3);
}

}  // namespace
}  // namespace tessera::plugin_check
