// The op catalog behind `tessera ops`: every registered op with the kernels that run it, per
// device type, and a graph's ops checked against it (which have no definition, which have no
// kernel on the devices present).
#ifndef TESSERA_HOST_TOOLS_OP_CATALOG_H_
#define TESSERA_HOST_TOOLS_OP_CATALOG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "host/framework/proto/graph.pb.h"

namespace tessera {

class Environment;

namespace cli {

struct CatalogKernel {
  std::string device_type;
  std::string plugin;  // the plugin that registered it
  int32_t priority = 0;
  // Type attr -> the data type names it accepts ("float", "int32"); empty: any types.
  std::map<std::string, std::vector<std::string>> type_constraints;
  std::vector<std::string> host_memory_args;
};

struct CatalogOp {
  std::string name;
  // "standard" or "plugin 'name'".
  std::string origin;
  // The host runs it on every device (transfers, control flow, variables, TensorArrays and
  // stacks, checkpoints).
  bool host_kernel = false;
  // The host also runs it for string tensors on every device (Const, Identity, Placeholder,
  // PlaceholderWithDefault).
  bool host_string_kernel = false;
  // A function call (PartitionedCall, StatefulPartitionedCall) or functional control flow (If,
  // StatelessIf, While, StatelessWhile): graph import inlines it, so it needs no kernel.
  bool inlined = false;
  // Plugin kernels, by (device type, priority higher first, plugin name).
  std::vector<CatalogKernel> kernels;
};

struct OpCatalog {
  // The device types of the devices the environment created, sorted.
  std::vector<std::string> device_types;
  // Every op of the registry (standard and plugin ops), sorted by name.
  std::vector<CatalogOp> ops;
};

OpCatalog BuildOpCatalog(const Environment& env);

// One line per op: "NAME  ORIGIN  KERNELS", then a summary line.
std::string FormatCatalogText(const OpCatalog& catalog);
// {"device_types": [...], "ops": [{"name", "origin", "host_kernel", "host_string_kernel",
// "kernels": [{"device_type", "plugin", "priority", "type_constraints", "host_memory_args"}]}]}.
std::string FormatCatalogJson(const OpCatalog& catalog);
// A Markdown page: one table row per op, one column per device type present.
std::string FormatCatalogMarkdown(const OpCatalog& catalog);

// One op of a graph that cannot run.
struct GraphOpGap {
  std::string op;
  // "no definition" or "no kernel".
  std::string kind;
  // Why, e.g. "no kernel on CPU for T=half (CPU kernels take T in [float, double])".
  std::string reason;
  // The nodes using the op this way, in graph order ("fn/node" inside a library function).
  std::vector<std::string> nodes;
};

struct GraphCoverage {
  int num_nodes = 0;
  // Distinct ops used by the graph and its function library.
  int num_ops = 0;
  std::vector<std::string> device_types;
  // Ops without a definition first, then ops without a kernel, each sorted by op.
  std::vector<GraphOpGap> gaps;
};

// Checks every node of `graph` and of its function library: the op must be registered (or be a
// function of the library), and some device present must have a kernel that accepts the node's
// types (with the op's attr defaults), or the host must run it.
GraphCoverage CheckGraphCoverage(const tensorflow::GraphDef& graph, const Environment& env);

std::string FormatCoverageText(const std::string& graph_path, const GraphCoverage& coverage);
// {"graph", "nodes", "ops", "device_types", "gaps": [{"op", "kind", "reason", "nodes"}]}.
std::string FormatCoverageJson(const std::string& graph_path, const GraphCoverage& coverage);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_OP_CATALOG_H_
