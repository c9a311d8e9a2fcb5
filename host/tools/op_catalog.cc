// The op catalog of `tessera ops` and the coverage check of `tessera ops --graph`.
#include "host/tools/op_catalog.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/kernels/checkpoint_kernels.h"
#include "host/kernels/host_kernels.h"
#include "host/kernels/string_op_kernels.h"
#include "host/ops/node_def_util.h"
#include "host/ops/op_registry.h"
#include "host/runtime/device.h"
#include "host/runtime/device_manager.h"
#include "host/runtime/types.h"
#include "host/session/environment.h"
#include "nlohmann/json.hpp"
#include "registry/plugin_registry.h"

namespace tessera {
namespace cli {
namespace {

using Json = nlohmann::ordered_json;

// The ops whose string form the host runs on every device, and the type attr that says so.
const char* StringKernelTypeAttr(absl::string_view op) {
  if (op == "Const" || op == "Placeholder" || op == "PlaceholderWithDefault") return "dtype";
  if (op == "Identity" || op == "IdentityN") return "T";
  return StringOnlyKernelTypeAttr(op);
}

// The call ops that graph import inlines, and the functional control flow it lowers to calls
// (host/graph/function_inline.h, functional_lowering.h).
bool IsFunctionCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall" || op == "If" ||
         op == "StatelessIf" || op == "While" || op == "StatelessWhile" || op == "Case" ||
         op == "StatelessCase";
}

// Host kernels that only move tensors: they take strings too.
bool MovesTensorsOnly(absl::string_view op) {
  for (const char* mover :
       {"_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv", "Switch", "Merge", "Enter",
        "Exit", "NextIteration", "ControlTrigger", "RefSwitch", "RefEnter", "RefIdentity"}) {
    if (op == mover) return true;
  }
  return false;
}

CatalogKernel ToCatalogKernel(const KernelSpec& spec) {
  CatalogKernel kernel;
  kernel.device_type = spec.device_type;
  kernel.plugin = spec.origin.plugin_name;
  kernel.priority = spec.priority;
  for (const auto& [attr, allowed] : spec.type_constraints) {
    std::vector<std::string>& names = kernel.type_constraints[attr];
    for (TSR_DataType dtype : allowed) names.push_back(DataTypeString(dtype));
  }
  kernel.host_memory_args = spec.host_memory_args;
  return kernel;
}

// "T: float, double" or "any types"; several constraints joined by "; ".
std::string DescribeTypes(const CatalogKernel& kernel) {
  if (kernel.type_constraints.empty()) return "any types";
  std::vector<std::string> parts;
  for (const auto& [attr, names] : kernel.type_constraints) {
    parts.push_back(absl::StrCat(attr, ": ", absl::StrJoin(names, ", ")));
  }
  return absl::StrJoin(parts, "; ");
}

// The kernels of `op` on `device_type`, described; "" when none.
std::string DescribeKernelsOn(const CatalogOp& op, const std::string& device_type,
                              bool name_plugins) {
  std::vector<std::string> parts;
  for (const CatalogKernel& kernel : op.kernels) {
    if (kernel.device_type != device_type) continue;
    std::string text = DescribeTypes(kernel);
    if (name_plugins) text = absl::StrCat(kernel.plugin, " (", text, ")");
    parts.push_back(std::move(text));
  }
  return absl::StrJoin(parts, " | ");
}

std::vector<std::string> KernelDeviceTypes(const CatalogOp& op) {
  std::set<std::string> types;
  for (const CatalogKernel& kernel : op.kernels) types.insert(kernel.device_type);
  return std::vector<std::string>(types.begin(), types.end());
}

// ---------------------------------------------------------------------------------------------
// Graph coverage
// ---------------------------------------------------------------------------------------------

// The value of a type attr on the node (its defaults added): the types it names, or false when
// the attr is missing or not a type or type list.
bool AttrTypes(const tensorflow::NodeDef& node, const std::string& attr, std::vector<int>* types) {
  auto it = node.attr().find(attr);
  if (it == node.attr().end()) return false;
  const tensorflow::AttrValue& value = it->second;
  types->clear();
  if (value.value_case() == tensorflow::AttrValue::kType) {
    types->push_back(value.type());
    return true;
  }
  if (value.value_case() == tensorflow::AttrValue::kList) {
    types->assign(value.list().type().begin(), value.list().type().end());
    return true;
  }
  return false;
}

bool MeetsConstraints(const KernelSpec& spec, const tensorflow::NodeDef& node) {
  for (const auto& [attr, allowed] : spec.type_constraints) {
    std::vector<int> types;
    if (!AttrTypes(node, attr, &types)) return false;
    for (int t : types) {
      if (std::find(allowed.begin(), allowed.end(), static_cast<TSR_DataType>(t)) ==
          allowed.end()) {
        return false;
      }
    }
  }
  return true;
}

// "T=half, Tidx=int32" for the attrs the op's kernels constrain.
std::string DescribeNodeTypes(const tensorflow::NodeDef& node,
                              const std::vector<const KernelSpec*>& specs) {
  std::set<std::string> attrs;
  for (const KernelSpec* spec : specs) {
    for (const auto& [attr, allowed] : spec->type_constraints) attrs.insert(attr);
  }
  std::vector<std::string> parts;
  for (const std::string& attr : attrs) {
    std::vector<int> types;
    if (!AttrTypes(node, attr, &types)) {
      parts.push_back(absl::StrCat(attr, " unset"));
      continue;
    }
    std::vector<std::string> names;
    for (int t : types) names.push_back(DataTypeString(static_cast<DataType>(t)));
    parts.push_back(types.size() == 1 &&
                            node.attr().at(attr).value_case() == tensorflow::AttrValue::kType
                        ? absl::StrCat(attr, "=", names[0])
                        : absl::StrCat(attr, "=[", absl::StrJoin(names, ", "), "]"));
  }
  return absl::StrJoin(parts, ", ");
}

struct NodeVerdict {
  bool ok = true;
  std::string kind;
  std::string reason;
};

NodeVerdict CheckNode(const tensorflow::NodeDef& node, const Environment& env,
                      const std::vector<std::string>& device_types,
                      const std::set<std::string>& functions) {
  const std::string& op = node.op();
  // Calls are inlined at import; their bodies are checked node by node.
  if (functions.count(op) != 0 || IsFunctionCallOp(op)) return {};
  const OpRegistration* registration = env.ops().Find(op);
  if (registration == nullptr) {
    return {false, "no definition", "no standard definition and no plugin defines it"};
  }
  tensorflow::NodeDef with_defaults = node;
  AddDefaultsToNodeDef(registration->op_def, &with_defaults);
  if (absl::Status valid = ValidateNodeDefAttrs(with_defaults, registration->op_def); !valid.ok()) {
    return {false, "no kernel", absl::StrCat("invalid attrs: ", valid.message())};
  }
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  if (absl::Status types =
          InOutTypesForNode(with_defaults, registration->op_def, &input_types, &output_types);
      !types.ok()) {
    return {false, "no kernel", absl::StrCat("invalid attrs: ", types.message())};
  }
  auto is_string = [](DataType t) { return t == TSR_DTYPE_STRING; };
  const bool has_strings = std::any_of(input_types.begin(), input_types.end(), is_string) ||
                           std::any_of(output_types.begin(), output_types.end(), is_string);
  if (has_strings) {
    const char* type_attr = StringKernelTypeAttr(op);
    std::vector<int> types;
    if ((type_attr != nullptr && AttrTypes(with_defaults, type_attr, &types) && types.size() == 1 &&
         types[0] == TSR_DTYPE_STRING) ||
        MovesTensorsOnly(op) || IsCheckpointKernelOp(op) || IsStringOp(op)) {
      return {};
    }
    return {false, "no kernel",
            "takes or makes string tensors; strings live in host memory, where the host runs "
            "only Const, Identity, Placeholder, PlaceholderWithDefault, Select and Pack of "
            "strings and the string ops of file names, moves them, and saves and restores "
            "them"};
  }
  if (IsHostKernelOp(op)) return {};
  std::vector<std::string> with_kernels;  // device types present with a kernel of the op
  std::vector<std::string> refusals;
  for (const std::string& device_type : device_types) {
    std::vector<const KernelSpec*> specs = env.plugins().FindKernels(op, device_type);
    if (specs.empty()) continue;
    for (const KernelSpec* spec : specs) {
      if (MeetsConstraints(*spec, with_defaults)) return {};
    }
    std::vector<std::string> accepted;
    for (const KernelSpec* spec : specs) accepted.push_back(DescribeTypes(ToCatalogKernel(*spec)));
    refusals.push_back(absl::StrCat("no kernel on ", device_type, " for ",
                                    DescribeNodeTypes(with_defaults, specs), " (", device_type,
                                    " kernels take ", absl::StrJoin(accepted, " | "), ")"));
    with_kernels.push_back(device_type);
  }
  if (!refusals.empty()) return {false, "no kernel", absl::StrJoin(refusals, "; ")};
  std::set<std::string> elsewhere;
  for (const KernelSpec& spec : env.plugins().kernels()) {
    if (spec.op_name == op) elsewhere.insert(spec.device_type);
  }
  if (!elsewhere.empty()) {
    return {false, "no kernel",
            absl::StrCat("no kernel on the devices present (", absl::StrJoin(device_types, ", "),
                         "); kernels are registered for ", absl::StrJoin(elsewhere, ", "))};
  }
  return {false, "no kernel", "no plugin registers a kernel for it"};
}

std::string NodeList(const std::vector<std::string>& nodes) {
  constexpr size_t kShown = 5;
  if (nodes.size() <= kShown) return absl::StrJoin(nodes, ", ");
  std::vector<std::string> shown(nodes.begin(), nodes.begin() + kShown);
  return absl::StrCat(absl::StrJoin(shown, ", "), " and ", nodes.size() - kShown, " more");
}

}  // namespace

OpCatalog BuildOpCatalog(const Environment& env) {
  OpCatalog catalog;
  std::set<std::string> types;
  for (const Device* device : env.devices().devices()) types.insert(device->device_type());
  catalog.device_types.assign(types.begin(), types.end());
  std::map<std::string, std::vector<CatalogKernel>> kernels;
  for (const KernelSpec& spec : env.plugins().kernels()) {
    kernels[spec.op_name].push_back(ToCatalogKernel(spec));
  }
  for (const std::string& name : env.ops().ListOpNames()) {
    const OpRegistration* registration = env.ops().Find(name);
    CatalogOp op;
    op.name = name;
    op.origin = registration != nullptr ? registration->origin : "standard";
    op.host_kernel = IsHostKernelOp(name);
    op.host_string_kernel = StringKernelTypeAttr(name) != nullptr || IsStringOp(name);
    op.inlined = IsFunctionCallOp(name);
    auto it = kernels.find(name);
    if (it != kernels.end()) op.kernels = std::move(it->second);
    catalog.ops.push_back(std::move(op));
  }
  return catalog;
}

std::string FormatCatalogText(const OpCatalog& catalog) {
  size_t name_width = 2;
  size_t origin_width = 6;
  for (const CatalogOp& op : catalog.ops) {
    name_width = std::max(name_width, op.name.size());
    origin_width = std::max(origin_width, op.origin.size());
  }
  auto pad = [](const std::string& s, size_t width) {
    return s + std::string(width - std::min(width, s.size()), ' ');
  };
  std::string out =
      absl::StrCat(pad("OP", name_width), "  ", pad("ORIGIN", origin_width), "  KERNELS\n");
  int host = 0;
  int with_kernel = 0;
  int without = 0;
  for (const CatalogOp& op : catalog.ops) {
    std::vector<std::string> parts;
    if (op.host_kernel) parts.push_back("host, every device");
    if (op.inlined) parts.push_back("inlined at graph import");
    for (const std::string& type : KernelDeviceTypes(op)) {
      parts.push_back(absl::StrCat(type, ": ", DescribeKernelsOn(op, type, true)));
    }
    if (op.host_string_kernel) parts.push_back("strings: host, every device");
    if (op.host_kernel || op.inlined) {
      ++host;
    } else if (!op.kernels.empty()) {
      ++with_kernel;
    } else {
      ++without;
    }
    absl::StrAppend(&out, pad(op.name, name_width), "  ", pad(op.origin, origin_width), "  ",
                    parts.empty() ? "none" : absl::StrJoin(parts, "; "), "\n");
  }
  absl::StrAppend(&out, catalog.ops.size(), " ops: ", with_kernel, " with plugin kernels, ", host,
                  " run or inlined by the host, ", without, " without a kernel; devices present: ",
                  catalog.device_types.empty() ? "none" : absl::StrJoin(catalog.device_types, ", "),
                  "\n");
  return out;
}

std::string FormatCatalogJson(const OpCatalog& catalog) {
  Json ops = Json::array();
  for (const CatalogOp& op : catalog.ops) {
    Json kernels = Json::array();
    for (const CatalogKernel& kernel : op.kernels) {
      Json constraints = Json::object();
      for (const auto& [attr, names] : kernel.type_constraints) constraints[attr] = names;
      kernels.push_back({{"device_type", kernel.device_type},
                         {"plugin", kernel.plugin},
                         {"priority", kernel.priority},
                         {"type_constraints", constraints},
                         {"host_memory_args", kernel.host_memory_args}});
    }
    ops.push_back({{"name", op.name},
                   {"origin", op.origin},
                   {"host_kernel", op.host_kernel},
                   {"host_string_kernel", op.host_string_kernel},
                   {"inlined", op.inlined},
                   {"kernels", kernels}});
  }
  Json root = {{"device_types", catalog.device_types}, {"ops", ops}};
  return root.dump(2);
}

std::string FormatCatalogMarkdown(const OpCatalog& catalog) {
  std::string out =
      "# Op kernels\n\n"
      "Every op Tessera defines and the kernels that run it on each device type present, with the\n"
      "types each kernel takes. Generated by `tessera ops --markdown --plugin-allow cpu` (the CPU\n"
      "plugin alone); do not edit by hand: the test `ops_doc_is_current` fails when this page and\n"
      "the registered kernels differ. `docs/ops.md` gives each op's semantics.\n\n"
      "\"host\": the host runs the op on every device (transfers, control flow, variables,\n"
      "TensorArrays and stacks, checkpoints); \"inlined\": a function call or an If or While,\n"
      "replaced by the function's body (and v1 control flow) when a graph is imported; \"—\":\n"
      "no kernel on that device type.\n\n";
  absl::StrAppend(&out, "| Op | Defined by |");
  for (const std::string& type : catalog.device_types) absl::StrAppend(&out, " ", type, " |");
  absl::StrAppend(&out, "\n|---|---|");
  for (size_t i = 0; i < catalog.device_types.size(); ++i) absl::StrAppend(&out, "---|");
  absl::StrAppend(&out, "\n");
  int covered = 0;
  for (const CatalogOp& op : catalog.ops) {
    absl::StrAppend(&out, "| ", op.name, " | ", op.origin, " |");
    bool any = op.host_kernel || op.inlined;
    for (const std::string& type : catalog.device_types) {
      std::string cell;
      if (op.host_kernel) {
        cell = "host";
      } else if (op.inlined) {
        cell = "inlined";
      } else {
        bool several = false;
        std::set<std::string> plugins;
        for (const CatalogKernel& kernel : op.kernels) {
          if (kernel.device_type == type) plugins.insert(kernel.plugin);
        }
        several = plugins.size() > 1;
        cell = DescribeKernelsOn(op, type, several);
        if (!cell.empty()) any = true;
        if (op.host_string_kernel) {
          cell = cell.empty() ? "string: host" : absl::StrCat(cell, "; string: host");
          any = true;
        }
        if (cell.empty()) cell = "—";
      }
      absl::StrAppend(&out, " ", cell, " |");
    }
    if (any) ++covered;
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "\n", catalog.ops.size(), " ops, ", covered,
                  " of them with a kernel on a device type above.\n");
  return out;
}

GraphCoverage CheckGraphCoverage(const tensorflow::GraphDef& graph, const Environment& env) {
  GraphCoverage coverage;
  std::set<std::string> types;
  for (const Device* device : env.devices().devices()) types.insert(device->device_type());
  coverage.device_types.assign(types.begin(), types.end());
  std::set<std::string> functions;
  for (const tensorflow::FunctionDef& function : graph.library().function()) {
    functions.insert(function.signature().name());
  }
  // (kind, op, reason) -> nodes, so that each distinct gap is listed once.
  std::map<std::tuple<int, std::string, std::string>, std::vector<std::string>> gaps;
  std::set<std::string> ops;
  auto check = [&](const tensorflow::NodeDef& node, const std::string& prefix) {
    ++coverage.num_nodes;
    ops.insert(node.op());
    NodeVerdict verdict = CheckNode(node, env, coverage.device_types, functions);
    if (verdict.ok) return;
    int order = verdict.kind == "no definition" ? 0 : 1;
    gaps[{order, node.op(), verdict.reason}].push_back(absl::StrCat(prefix, node.name()));
  };
  for (const tensorflow::NodeDef& node : graph.node()) check(node, "");
  for (const tensorflow::FunctionDef& function : graph.library().function()) {
    for (const tensorflow::NodeDef& node : function.node_def()) {
      check(node, absl::StrCat(function.signature().name(), "/"));
    }
  }
  coverage.num_ops = static_cast<int>(ops.size());
  for (auto& [key, nodes] : gaps) {
    const auto& [order, op, reason] = key;
    coverage.gaps.push_back(
        {op, order == 0 ? "no definition" : "no kernel", reason, std::move(nodes)});
  }
  return coverage;
}

std::string FormatCoverageText(const std::string& graph_path, const GraphCoverage& coverage) {
  std::string out = absl::StrCat(
      graph_path, ": ", coverage.num_nodes, " nodes, ", coverage.num_ops,
      " distinct ops; devices present: ",
      coverage.device_types.empty() ? "none" : absl::StrJoin(coverage.device_types, ", "), "\n");
  if (coverage.gaps.empty()) {
    absl::StrAppend(&out, "every op has a definition and a kernel on a device present\n");
    return out;
  }
  for (const GraphOpGap& gap : coverage.gaps) {
    absl::StrAppend(&out, gap.op, ": ", gap.kind, ": ", gap.reason,
                    "\n    nodes: ", NodeList(gap.nodes), "\n");
  }
  return out;
}

std::string FormatCoverageJson(const std::string& graph_path, const GraphCoverage& coverage) {
  Json gaps = Json::array();
  for (const GraphOpGap& gap : coverage.gaps) {
    gaps.push_back(
        {{"op", gap.op}, {"kind", gap.kind}, {"reason", gap.reason}, {"nodes", gap.nodes}});
  }
  Json root = {{"graph", graph_path},
               {"nodes", coverage.num_nodes},
               {"ops", coverage.num_ops},
               {"device_types", coverage.device_types},
               {"gaps", gaps}};
  return root.dump(2);
}

}  // namespace cli
}  // namespace tessera
