// The kernel suite: every kernel the plugin under test registers, for every dtype its type
// constraints allow, runs on the plugin's device and on the CPU oracle with the same random
// inputs; outputs must agree within a tolerance per dtype.
#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kit/compare.h"
#include "kit/kernel_cases.h"
#include "kit/kernel_runner.h"
#include "kit/suite.h"

namespace tessera::plugin_check {
namespace {

constexpr char kSuite[] = "kernels";
constexpr char kOracleDevice[] = "CPU";

// Dtypes tried for a type attribute neither the kernel nor the op restricts.
const std::vector<DataType>& UnrestrictedTypes() {
  static const auto* types = new std::vector<DataType>{
      TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_INT32, TSR_DTYPE_INT64, TSR_DTYPE_BOOL,
      TSR_DTYPE_HALF};
  return *types;
}

// The plugin's kernels of one op on one device type.
struct KernelGroup {
  std::string op;
  std::string device_type;
  std::vector<const KernelSpec*> kernels;
};

std::vector<KernelGroup> PluginKernels(const SuiteContext& context) {
  std::map<std::pair<std::string, std::string>, KernelGroup> groups;
  for (const KernelSpec& kernel : context.registry->kernels()) {
    if (kernel.origin.plugin_name != context.plugin->name) continue;
    if (!context.options->device_type.empty() &&
        kernel.device_type != context.options->device_type) {
      continue;
    }
    KernelGroup& group = groups[{kernel.op_name, kernel.device_type}];
    group.op = kernel.op_name;
    group.device_type = kernel.device_type;
    group.kernels.push_back(&kernel);
  }
  std::vector<KernelGroup> result;
  for (auto& [key, group] : groups) result.push_back(std::move(group));
  return result;
}

const tensorflow::OpDef::AttrDef* FindAttr(const tensorflow::OpDef& op, const std::string& name) {
  for (const tensorflow::OpDef::AttrDef& attr : op.attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

// The type attribute that names the cases: "T", else the first input's, else the first one.
std::string PrimaryTypeAttr(const tensorflow::OpDef& op) {
  const tensorflow::OpDef::AttrDef* t = FindAttr(op, "T");
  if (t != nullptr && t->type() == "type") return "T";
  for (const tensorflow::OpDef::ArgDef& arg : op.input_arg()) {
    if (!arg.type_attr().empty()) return arg.type_attr();
  }
  for (const tensorflow::OpDef::AttrDef& attr : op.attr()) {
    if (attr.type() == "type") return attr.name();
  }
  return "";
}

// The name of an op without type attributes in case names: its first fixed input or output
// type ("LogicalAnd/bool/...").
std::string FixedTypeName(const tensorflow::OpDef& op) {
  for (const auto* args : {&op.input_arg(), &op.output_arg()}) {
    for (const tensorflow::OpDef::ArgDef& arg : *args) {
      if (arg.type() != tensorflow::DT_INVALID) {
        return DataTypeString(static_cast<DataType>(arg.type()));
      }
    }
  }
  return "-";
}

// The dtypes `attr` may take: the kernel's constraint, narrowed by the op's allowed values.
std::vector<DataType> AllowedTypes(const tensorflow::OpDef& op, const std::string& attr,
                                   const KernelSpec& kernel) {
  std::vector<DataType> candidates;
  auto constraint = kernel.type_constraints.find(attr);
  if (constraint != kernel.type_constraints.end()) {
    candidates = constraint->second;
  } else {
    candidates = UnrestrictedTypes();
  }
  const tensorflow::OpDef::AttrDef* def = FindAttr(op, attr);
  if (def == nullptr || def->allowed_values().list().type_size() == 0) return candidates;
  std::vector<DataType> allowed;
  for (DataType dtype : candidates) {
    for (int t : def->allowed_values().list().type()) {
      if (t == dtype) allowed.push_back(dtype);
    }
  }
  return allowed;
}

// Values of every type attribute for `primary` = `dtype`: the others take the op's default when
// the kernel allows it, else int32, else float, else the first allowed type.
std::map<std::string, DataType> TypeAssignment(const tensorflow::OpDef& op,
                                               const std::string& primary, DataType dtype,
                                               const KernelSpec& kernel) {
  std::map<std::string, DataType> types;
  if (!primary.empty()) types[primary] = dtype;
  for (const tensorflow::OpDef::AttrDef& attr : op.attr()) {
    if (attr.type() != "type" || attr.name() == primary) continue;
    std::vector<DataType> allowed = AllowedTypes(op, attr.name(), kernel);
    if (allowed.empty()) continue;
    std::vector<DataType> preferred = {TSR_DTYPE_INT32, TSR_DTYPE_FLOAT};
    if (attr.has_default_value()) {
      preferred.insert(preferred.begin(), static_cast<DataType>(attr.default_value().type()));
    }
    DataType chosen = allowed.front();
    for (DataType p : preferred) {
      if (std::find(allowed.begin(), allowed.end(), p) != allowed.end()) {
        chosen = p;
        break;
      }
    }
    types[attr.name()] = chosen;
  }
  return types;
}

// The node's number of outputs, from its list lengths; -1 when an attribute is missing.
int NumOutputs(const tensorflow::OpDef& op, const std::map<std::string, tensorflow::AttrValue>& attrs) {
  auto value_of = [&](const std::string& name) -> const tensorflow::AttrValue* {
    auto it = attrs.find(name);
    if (it != attrs.end()) return &it->second;
    const tensorflow::OpDef::AttrDef* def = FindAttr(op, name);
    return def != nullptr && def->has_default_value() ? &def->default_value() : nullptr;
  };
  int count = 0;
  for (const tensorflow::OpDef::ArgDef& arg : op.output_arg()) {
    if (!arg.number_attr().empty()) {
      const tensorflow::AttrValue* n = value_of(arg.number_attr());
      if (n == nullptr) return -1;
      count += static_cast<int>(n->i());
    } else if (!arg.type_list_attr().empty()) {
      const tensorflow::AttrValue* list = value_of(arg.type_list_attr());
      if (list == nullptr) return -1;
      count += list->list().type_size();
    } else {
      ++count;
    }
  }
  return count;
}

uint64_t Fingerprint(const std::string& text) {  // FNV-1a: stable across runs and platforms
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

class KernelSuite {
 public:
  KernelSuite(const SuiteContext& context, std::vector<CaseResult>* results)
      : context_(context), results_(results) {}

  void Run();

 private:
  void Add(std::string name, Outcome outcome, std::string message) {
    results_->push_back({kSuite, std::move(name), outcome, std::move(message)});
  }
  void RunGroup(const KernelGroup& group);
  void RunDtype(const KernelGroup& group, const tensorflow::OpDef& op, const std::string& primary,
                DataType dtype);
  void RunCase(const KernelGroup& group, const tensorflow::OpDef& op, const std::string& name,
               const KernelCase& kernel_case);
  // The plugin's kernel the host picks for these types, or nullptr.
  const KernelSpec* PluginKernelFor(const KernelGroup& group,
                                    const std::map<std::string, DataType>& types) const;

  const SuiteContext& context_;
  std::vector<CaseResult>* results_;
  std::optional<KernelRunner> plugin_;  // the plugin under test with the support plugins
  std::optional<KernelRunner> oracle_;  // the support plugins only
};

void KernelSuite::Run() {
  std::vector<KernelGroup> groups = PluginKernels(context_);
  if (groups.empty()) {
    Add("kernels", Outcome::kSkip,
        context_.options->device_type.empty()
            ? absl::StrCat("plugin '", context_.plugin->name, "' registers no kernels")
            : absl::StrCat("plugin '", context_.plugin->name, "' registers no kernels for ",
                           context_.options->device_type));
    return;
  }
  std::vector<std::string> plugin_paths = {context_.options->plugin_path};
  const std::vector<std::string>& support = context_.options->support_plugin_paths;
  plugin_paths.insert(plugin_paths.end(), support.begin(), support.end());
  absl::StatusOr<KernelRunner> plugin = KernelRunner::Create(plugin_paths);
  absl::StatusOr<KernelRunner> oracle = KernelRunner::Create(support);
  if (!plugin.ok() || !oracle.ok()) {
    Add("sessions", Outcome::kFail,
        absl::StrCat("cannot create ", plugin.ok() ? "the CPU oracle's" : "the plugin's",
                     " sessions: ", (plugin.ok() ? oracle : plugin).status().ToString()));
    return;
  }
  plugin_.emplace(*std::move(plugin));
  oracle_.emplace(*std::move(oracle));
  if (!oracle_->HasDevice(kOracleDevice)) {
    Add("oracle", Outcome::kSkip,
        "no CPU device without the plugin under test: load the CPU plugin as a support plugin "
        "(--support-plugin-path)");
    return;
  }
  std::set<std::string> missing_devices;
  for (const KernelGroup& group : groups) {
    if (!plugin_->HasDevice(group.device_type)) {
      if (missing_devices.insert(group.device_type).second) {
        Add(group.device_type, Outcome::kSkip,
            absl::StrCat("no ", group.device_type, " device: no loaded plugin provides one, so ",
                         "the plugin's ", group.device_type, " kernels cannot run"));
      }
      continue;
    }
    RunGroup(group);
  }
}

void KernelSuite::RunGroup(const KernelGroup& group) {
  const OpRegistration* registration = plugin_->environment().ops().Find(group.op);
  if (registration == nullptr) {
    Add(group.op, Outcome::kSkip,
        absl::StrCat("op ", group.op, " is defined neither by the host nor by a loaded plugin"));
    return;
  }
  const tensorflow::OpDef& op = registration->op_def;
  absl::Status generator = CheckCaseGenerator(op);
  if (!generator.ok()) {
    Add(group.op, Outcome::kSkip, std::string(generator.message()));
    return;
  }
  const std::string primary = PrimaryTypeAttr(op);
  std::vector<DataType> dtypes;
  for (const KernelSpec* kernel : group.kernels) {
    for (DataType dtype : primary.empty() ? std::vector<DataType>{TSR_DTYPE_INVALID}
                                          : AllowedTypes(op, primary, *kernel)) {
      if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) dtypes.push_back(dtype);
    }
  }
  for (DataType dtype : dtypes) RunDtype(group, op, primary, dtype);
}

const KernelSpec* KernelSuite::PluginKernelFor(const KernelGroup& group,
                                               const std::map<std::string, DataType>& types) const {
  const KernelSpec* chosen = plugin_->ChosenKernel(group.op, group.device_type, types);
  if (chosen == nullptr || chosen->origin.plugin_name != context_.plugin->name) return nullptr;
  return chosen;
}

void KernelSuite::RunDtype(const KernelGroup& group, const tensorflow::OpDef& op,
                           const std::string& primary, DataType dtype) {
  const std::string dtype_name = primary.empty() ? FixedTypeName(op) : DataTypeString(dtype);
  const std::string prefix = absl::StrCat(group.op, "/", dtype_name);
  const KernelSpec* own = group.kernels.front();
  for (const KernelSpec* kernel : group.kernels) {
    auto constraint = kernel->type_constraints.find(primary);
    if (constraint == kernel->type_constraints.end() ||
        std::count(constraint->second.begin(), constraint->second.end(), dtype) > 0) {
      own = kernel;
      break;
    }
  }
  std::map<std::string, DataType> types = TypeAssignment(op, primary, dtype, *own);
  const KernelSpec* chosen = plugin_->ChosenKernel(group.op, group.device_type, types);
  if (chosen != nullptr && chosen->origin.plugin_name != context_.plugin->name) {
    Add(prefix, Outcome::kSkip,
        absl::StrCat("not the plugin's kernel that runs: the ", chosen->Describe(), " on ",
                     group.device_type, " has priority ", chosen->priority,
                     " (raise the plugin's kernel priority to test it)"));
    return;
  }
  if (oracle_->ChosenKernel(group.op, kOracleDevice, types) == nullptr) {
    Add(prefix, Outcome::kSkip,
        absl::StrCat("the CPU oracle has no ", group.op, " kernel for ", dtype_name));
    return;
  }
  std::mt19937_64 random(context_.options->seed ^ Fingerprint(prefix));
  CaseRequest request;
  request.op_def = &op;
  request.types = types;
  request.primary_type_attr = primary;
  request.random = &random;
  absl::StatusOr<std::vector<KernelCase>> cases = GenerateKernelCases(request);
  if (!cases.ok()) {
    Add(prefix, Outcome::kSkip, std::string(cases.status().message()));
    return;
  }
  for (KernelCase& kernel_case : *cases) {
    for (const auto& [attr, value] : types) {
      if (!kernel_case.attrs.count(attr)) kernel_case.attrs[attr].set_type(
          static_cast<tensorflow::DataType>(value));
    }
    // A case may pick other types (Cast's DstT): run it only where both sides have a kernel.
    std::map<std::string, DataType> case_types;
    for (const auto& [attr, value] : kernel_case.attrs) {
      if (value.value_case() == tensorflow::AttrValue::kType) {
        case_types[attr] = static_cast<DataType>(value.type());
      }
    }
    if (PluginKernelFor(group, case_types) == nullptr ||
        oracle_->ChosenKernel(group.op, kOracleDevice, case_types) == nullptr) {
      continue;
    }
    RunCase(group, op, absl::StrCat(prefix, "/", kernel_case.variant), kernel_case);
  }
}

void KernelSuite::RunCase(const KernelGroup& group, const tensorflow::OpDef& op,
                          const std::string& name, const KernelCase& kernel_case) {
  const int num_outputs = NumOutputs(op, kernel_case.attrs);
  if (num_outputs < 0) {
    Add(name, Outcome::kSkip, "the number of outputs depends on an attribute the case lacks");
    return;
  }
  absl::StatusOr<std::vector<Tensor>> expected =
      oracle_->Run(group.op, kernel_case, kOracleDevice, num_outputs);
  absl::StatusOr<std::vector<Tensor>> actual =
      plugin_->Run(group.op, kernel_case, group.device_type, num_outputs);
  for (const auto* side : {&expected, &actual}) {
    if (side->status().code() == absl::StatusCode::kFailedPrecondition &&
        absl::StartsWith(side->status().message(), "the host did not run")) {
      Add(name, Outcome::kSkip, std::string(side->status().message()));
      return;
    }
  }
  Comparison comparison;
  if (!expected.ok() || !actual.ok()) {
    comparison = CompareFailures(expected.status(), actual.status());
  } else {
    comparison = CompareOutputs(*expected, *actual, kernel_case.tolerance_scale);
  }
  Add(name, comparison.ok ? Outcome::kPass : Outcome::kFail, std::move(comparison.message));
}

}  // namespace

void RunKernelSuite(const SuiteContext& context, std::vector<CaseResult>* results) {
  KernelSuite(context, results).Run();
}

}  // namespace tessera::plugin_check
