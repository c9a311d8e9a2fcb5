// `tessera ops`: the op catalog and the graph coverage check of op_catalog.h.
#include "host/tools/ops_command.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/graph/graph.h"
#include "host/session/environment.h"
#include "host/tools/op_catalog.h"

namespace tessera {
namespace cli {
namespace {

absl::Status Prefixed(const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("tessera ops: ", status.message()));
}

}  // namespace

absl::Status OpsCommand(const OpsArgs& args, std::ostream& out) {
  EnvironmentOptions options;
  options.plugin_paths = args.plugin_paths;
  options.plugin_policy = args.plugin_policy;
  absl::StatusOr<std::shared_ptr<Environment>> env = Environment::Create(options);
  if (!env.ok()) return Prefixed(env.status());
  if (args.graph_path.empty()) {
    OpCatalog catalog = BuildOpCatalog(**env);
    switch (args.format) {
      case OpsArgs::Format::kText:
        out << FormatCatalogText(catalog);
        break;
      case OpsArgs::Format::kJson:
        out << FormatCatalogJson(catalog) << "\n";
        break;
      case OpsArgs::Format::kMarkdown:
        out << FormatCatalogMarkdown(catalog);
        break;
    }
    return absl::OkStatus();
  }
  absl::StatusOr<tensorflow::GraphDef> graph = ReadGraphDefFile(args.graph_path);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(), absl::StrCat("tessera ops: cannot read the graph: ",
                                                            graph.status().message()));
  }
  GraphCoverage coverage = CheckGraphCoverage(*graph, **env);
  out << (args.format == OpsArgs::Format::kJson
              ? FormatCoverageJson(args.graph_path, coverage) + "\n"
              : FormatCoverageText(args.graph_path, coverage));
  if (coverage.gaps.empty()) return absl::OkStatus();
  std::vector<std::string> ops;
  for (const GraphOpGap& gap : coverage.gaps) {
    std::string entry = absl::StrCat(gap.op, " (", gap.kind, ")");
    if (std::find(ops.begin(), ops.end(), entry) == ops.end()) ops.push_back(std::move(entry));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "tessera ops: ", args.graph_path, ": ", ops.size(),
      ops.size() == 1 ? " op cannot run: " : " ops cannot run: ", absl::StrJoin(ops, ", ")));
}

}  // namespace cli
}  // namespace tessera
