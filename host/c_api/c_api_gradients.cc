// TF_AddGradients: symbolic gradients, built by the C++ API's gradient functions on a copy of the
// graph and added to the graph all or nothing.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/client/gradients.h"
#include "host/client/scope.h"
#include "host/graph/graph_extend.h"

namespace tessera {
namespace c_api {
namespace {

absl::Status CheckOutputs(TF_Graph* graph, const TF_Output* outputs, int n, const char* what) {
  if (n < 0) return absl::InvalidArgumentError(absl::StrCat("TF_AddGradients: n", what, " < 0"));
  if (n > 0 && outputs == nullptr) return NullArgument("TF_AddGradients", what);
  for (int i = 0; i < n; ++i) RETURN_IF_ERROR(CheckOutputOf(graph, outputs[i], "TF_AddGradients"));
  return absl::OkStatus();
}

absl::Status AddGradients(TF_Graph* graph, const char* prefix, TF_Output* y, int ny, TF_Output* x,
                          int nx, TF_Output* dx, TF_Output* dy) {
  if (graph == nullptr) return NullArgument("TF_AddGradients", "g");
  RETURN_IF_ERROR(CheckOutputs(graph, y, ny, "y"));
  RETURN_IF_ERROR(CheckOutputs(graph, x, nx, "x"));
  if (dx != nullptr) RETURN_IF_ERROR(CheckOutputs(graph, dx, ny, "dx"));
  if (nx > 0 && dy == nullptr) return NullArgument("TF_AddGradients", "dy");

  absl::MutexLock lock(&graph->mu);
  Graph& g = graph->graph;
  std::string scope_name;
  int reserved = 0;  // "gradients" scopes to take before the one used
  if (prefix != nullptr) {
    scope_name = prefix;
    if (scope_name.empty() || NameScopeInUse(g, scope_name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TF_AddGradientsWithPrefix: prefix '", scope_name,
          "' is empty or already used as a node name or name scope in the graph"));
    }
  } else {
    scope_name = "gradients";
    for (int i = 1; NameScopeInUse(g, scope_name); ++i) {
      scope_name = absl::StrCat("gradients_", i);
      reserved = i;
    }
  }

  // The graph as the C++ API sees it: every node with its output types, in the same order.
  Scope root = Scope::NewRootScope();
  const std::vector<Node*> nodes = g.op_nodes();
  tensorflow::GraphDef current = g.ToGraphDef();
  for (int i = 0; i < current.node_size(); ++i) {
    root.AddNode(current.node(i), nodes[i]->output_types());
  }
  RETURN_IF_ERROR(root.status());
  auto output_of = [&](const TF_Output& o) {
    return Output(root.graph_id(), o.oper->node->name(), o.index,
                  o.oper->node->output_type(o.index));
  };
  std::vector<Output> ys, xs, dxs, dys;
  for (int i = 0; i < ny; ++i) ys.push_back(output_of(y[i]));
  for (int i = 0; i < nx; ++i) xs.push_back(output_of(x[i]));
  // AddSymbolicGradients names its nodes under <scope>/gradients: with the default prefix the
  // root's next "gradients" scope is the one chosen above; a prefix given becomes
  // <prefix>/gradients.
  Scope scope = root;
  if (prefix != nullptr) {
    scope = root.NewSubScope(scope_name);
  } else {
    for (int i = 0; i < reserved; ++i) root.NewSubScope("gradients");
  }
  if (dx != nullptr) {
    for (int i = 0; i < ny; ++i) dxs.push_back(output_of(dx[i]));
    RETURN_IF_ERROR(AddSymbolicGradients(scope, ys, xs, dxs, &dys));
  } else {
    RETURN_IF_ERROR(AddSymbolicGradients(scope, ys, xs, &dys));
  }
  ASSIGN_OR_RETURN(tensorflow::GraphDef built, root.ToGraphDef());
  std::vector<tensorflow::NodeDef> new_nodes(built.node().begin() + current.node_size(),
                                             built.node().end());
  std::vector<Node*> added;
  RETURN_IF_ERROR(ExtendGraph(&g, new_nodes, &added));
  RegisterOperations(graph, added);
  for (int i = 0; i < nx; ++i) {
    Node* node = g.FindNode(dys[i].node_name());
    if (node == nullptr) {
      return absl::InternalError(
          absl::StrCat("TF_AddGradients: gradient node '", dys[i].node_name(), "' is missing"));
    }
    dy[i] = TF_Output{graph->by_id[node->id()], dys[i].index()};
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace tessera

extern "C" {

void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x, int nx, TF_Output* dx,
                     TF_Status* status, TF_Output* dy) {
  tessera::c_api::SetStatus(status,
                            tessera::c_api::AddGradients(g, nullptr, y, ny, x, nx, dx, dy));
}

void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix, TF_Output* y, int ny,
                               TF_Output* x, int nx, TF_Output* dx, TF_Status* status,
                               TF_Output* dy) {
  tessera::c_api::SetStatus(status,
                            tessera::c_api::AddGradients(g, prefix, y, ny, x, nx, dx, dy));
}

}  // extern "C"
