// TF_GraphImportGraphDef and its options: a GraphDef's nodes added to a graph, renamed, remapped
// and checked all or nothing.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/graph/graph_extend.h"
#include "host/graph/tensor_id.h"

struct TF_ImportGraphDefOptions {
  std::string prefix;
  std::string default_device;
  bool uniquify_names = false;
  bool uniquify_prefix = false;
  std::map<std::pair<std::string, int>, TF_Output> input_map;
  std::map<std::string, TF_Operation*> control_map;
  std::vector<TF_Operation*> control_dependencies;
  std::vector<std::pair<std::string, int>> return_outputs;
  std::vector<std::string> return_operations;
};

struct TF_ImportGraphDefResults {
  std::vector<TF_Output> return_outputs;
  std::vector<TF_Operation*> return_operations;
  std::vector<std::string> missing_names;
  std::vector<const char*> missing_name_pointers;
  std::vector<int> missing_indexes;
};

namespace tessera {
namespace c_api {
namespace {

bool NameInUse(const Graph& graph, const std::string& name) {
  return graph.FindNode(name) != nullptr;
}


absl::Status Import(TF_Graph* graph, const tensorflow::GraphDef& def,
                    const TF_ImportGraphDefOptions& options, TF_ImportGraphDefResults* results)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(graph->mu) {
  Graph& g = graph->graph;
  for (const auto& [key, dst] : options.input_map) {
    if (dst.oper->graph != graph || dst.index < 0 || dst.index >= dst.oper->node->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input mapping of '", key.first, ":", key.second, "': the destination is not an output "
          "of the graph imported into"));
    }
  }
  for (const auto& [name, dst] : options.control_map) {
    if (dst->graph != graph) {
      return absl::InvalidArgumentError(absl::StrCat(
          "control mapping of '", name, "': the destination belongs to another graph"));
    }
  }
  for (TF_Operation* control : options.control_dependencies) {
    if (control->graph != graph) {
      return absl::InvalidArgumentError(absl::StrCat(
          "control dependency '", control->node->name(), "' belongs to another graph"));
    }
  }
  std::string prefix = options.prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty() && NameScopeInUse(g, prefix)) {
    if (!options.uniquify_prefix) {
      return absl::InvalidArgumentError(
          absl::StrCat("import prefix '", prefix, "' would lead to name collisions: the graph "
                       "already has a node named '", prefix, "' or under '", prefix, "/'"));
    }
    for (int i = 1;; ++i) {
      std::string candidate = absl::StrCat(prefix, "_", i);
      if (!NameScopeInUse(g, candidate)) {
        prefix = candidate;
        break;
      }
    }
  }
  // New names for the imported nodes.
  absl::flat_hash_map<std::string, std::string> renamed;
  absl::flat_hash_set<std::string> taken;
  for (const tensorflow::NodeDef& node : def.node()) {
    std::string name = prefix.empty() ? node.name() : absl::StrCat(prefix, "/", node.name());
    if (options.uniquify_names && (NameInUse(g, name) || taken.contains(name))) {
      for (int i = 1;; ++i) {
        std::string candidate = absl::StrCat(name, "_", i);
        if (!NameInUse(g, candidate) && !taken.contains(candidate)) {
          name = candidate;
          break;
        }
      }
    }
    taken.insert(name);
    renamed[node.name()] = name;
  }
  for (const auto& [name, index] : options.return_outputs) {
    if (!renamed.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "requested return output '", name, ":", index, "' is not in the GraphDef"));
    }
  }
  for (const std::string& name : options.return_operations) {
    if (!renamed.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("requested return operation '", name, "' is not in the GraphDef"));
    }
  }

  std::set<std::pair<std::string, int>> used_mappings;
  std::vector<tensorflow::NodeDef> nodes;
  nodes.reserve(def.node_size());
  for (const tensorflow::NodeDef& original : def.node()) {
    tensorflow::NodeDef node = original;
    node.set_name(renamed[original.name()]);
    if (node.device().empty()) node.set_device(options.default_device);
    bool reads_imported_node = false;
    for (int i = 0; i < node.input_size(); ++i) {
      ASSIGN_OR_RETURN(TensorId id, ParseTensorName(original.input(i)));
      if (id.IsControl()) {
        auto remap = options.control_map.find(id.node);
        if (remap != options.control_map.end()) {
          node.set_input(i, "^" + remap->second->node->name());
          continue;
        }
      } else {
        auto mapping = options.input_map.find({id.node, id.index});
        if (mapping != options.input_map.end()) {
          used_mappings.insert(mapping->first);
          const TF_Output& dst = mapping->second;
          node.set_input(i, dst.index == 0 ? dst.oper->node->name()
                                           : absl::StrCat(dst.oper->node->name(), ":", dst.index));
          continue;
        }
      }
      auto it = renamed.find(id.node);
      if (it == renamed.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", original.name(), "' (", original.op(), "): input '", original.input(i),
            "' names a node that is not in the GraphDef and has no input mapping"));
      }
      reads_imported_node = true;
      node.set_input(i, id.IsControl()   ? "^" + it->second
                        : id.index == 0 ? it->second
                                        : absl::StrCat(it->second, ":", id.index));
    }
    if (!reads_imported_node) {
      for (TF_Operation* control : options.control_dependencies) {
        node.add_input("^" + control->node->name());
      }
    }
    nodes.push_back(std::move(node));
  }
  // Library functions the graph lacks are added; one it has must be the same.
  std::vector<const tensorflow::FunctionDef*> new_functions;
  for (const tensorflow::FunctionDef& function : def.library().function()) {
    const tensorflow::FunctionDef* existing = nullptr;
    for (const tensorflow::FunctionDef& f : g.library.function()) {
      if (f.signature().name() == function.signature().name()) existing = &f;
    }
    if (existing == nullptr) {
      new_functions.push_back(&function);
    } else if (existing->SerializeAsString() != function.SerializeAsString()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the GraphDef's function '", function.signature().name(),
                       "' differs from the graph's function of that name"));
    }
  }

  std::vector<Node*> added;
  RETURN_IF_ERROR(ExtendGraph(&g, nodes, &added));
  for (const auto& [name, index] : options.return_outputs) {
    Node* node = g.FindNode(renamed[name]);
    if (index < 0 || index >= node->num_outputs()) {
      for (Node* n : added) g.RemoveNode(n);
      return absl::InvalidArgumentError(
          absl::StrCat("requested return output '", name, ":", index, "': node '", name,
                       "' has ", node->num_outputs(), " outputs"));
    }
  }
  for (const tensorflow::FunctionDef* function : new_functions) {
    *g.library.add_function() = *function;
  }
  for (const tensorflow::GradientDef& gradient : def.library().gradient()) {
    *g.library.add_gradient() = gradient;
  }
  RegisterOperations(graph, added);
  for (const auto& [name, index] : options.return_outputs) {
    results->return_outputs.push_back(
        TF_Output{graph->by_id[g.FindNode(renamed[name])->id()], index});
  }
  for (const std::string& name : options.return_operations) {
    results->return_operations.push_back(graph->by_id[g.FindNode(renamed[name])->id()]);
  }
  for (const auto& [key, output] : options.input_map) {
    if (used_mappings.count(key) == 0) {
      results->missing_names.push_back(key.first);
      results->missing_indexes.push_back(key.second);
    }
  }
  for (const std::string& name : results->missing_names) {
    results->missing_name_pointers.push_back(name.c_str());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ImportGraphDefLocked(TF_Graph* graph, const tensorflow::GraphDef& def) {
  static const TF_ImportGraphDefOptions kDefaults;
  TF_ImportGraphDefResults results;
  return Import(graph, def, kDefaults, &results);
}

}  // namespace c_api
}  // namespace tessera

using tessera::c_api::NullArgument;
using tessera::c_api::SetOk;
using tessera::c_api::SetStatus;

extern "C" {

TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void) {
  return new TF_ImportGraphDefOptions();
}

void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts) { delete opts; }

void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts, const char* prefix) {
  if (opts != nullptr) opts->prefix = prefix == nullptr ? "" : prefix;
}

void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions* opts, const char* device) {
  if (opts != nullptr) opts->default_device = device == nullptr ? "" : device;
}

void TF_ImportGraphDefOptionsSetUniquifyNames(TF_ImportGraphDefOptions* opts,
                                              unsigned char uniquify_names) {
  if (opts != nullptr) opts->uniquify_names = uniquify_names != 0;
}

void TF_ImportGraphDefOptionsSetUniquifyPrefix(TF_ImportGraphDefOptions* opts,
                                               unsigned char uniquify_prefix) {
  if (opts != nullptr) opts->uniquify_prefix = uniquify_prefix != 0;
}

void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions* opts, const char* src_name,
                                             int src_index, TF_Output dst) {
  if (opts == nullptr || src_name == nullptr || dst.oper == nullptr) return;
  opts->input_map[{src_name, src_index}] = dst;
}

void TF_ImportGraphDefOptionsRemapControlDependency(TF_ImportGraphDefOptions* opts,
                                                    const char* src_name, TF_Operation* dst) {
  if (opts == nullptr || src_name == nullptr || dst == nullptr) return;
  opts->control_map[src_name] = dst;
}

void TF_ImportGraphDefOptionsAddControlDependency(TF_ImportGraphDefOptions* opts,
                                                  TF_Operation* oper) {
  if (opts != nullptr && oper != nullptr) opts->control_dependencies.push_back(oper);
}

void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions* opts,
                                             const char* oper_name, int index) {
  if (opts != nullptr && oper_name != nullptr) opts->return_outputs.emplace_back(oper_name, index);
}

int TF_ImportGraphDefOptionsNumReturnOutputs(const TF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->return_outputs.size());
}

void TF_ImportGraphDefOptionsAddReturnOperation(TF_ImportGraphDefOptions* opts,
                                                const char* oper_name) {
  if (opts != nullptr && oper_name != nullptr) opts->return_operations.push_back(oper_name);
}

int TF_ImportGraphDefOptionsNumReturnOperations(const TF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? 0 : static_cast<int>(opts->return_operations.size());
}

void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults* results, int* num_outputs,
                                           TF_Output** outputs) {
  if (results == nullptr || num_outputs == nullptr || outputs == nullptr) return;
  *num_outputs = static_cast<int>(results->return_outputs.size());
  *outputs = results->return_outputs.data();
}

void TF_ImportGraphDefResultsReturnOperations(TF_ImportGraphDefResults* results, int* num_opers,
                                              TF_Operation*** opers) {
  if (results == nullptr || num_opers == nullptr || opers == nullptr) return;
  *num_opers = static_cast<int>(results->return_operations.size());
  *opers = results->return_operations.data();
}

void TF_ImportGraphDefResultsMissingUnusedInputMappings(TF_ImportGraphDefResults* results,
                                                        int* num_missing_unused_input_mappings,
                                                        const char*** src_names,
                                                        int** src_indexes) {
  if (results == nullptr || num_missing_unused_input_mappings == nullptr ||
      src_names == nullptr || src_indexes == nullptr) {
    return;
  }
  *num_missing_unused_input_mappings = static_cast<int>(results->missing_names.size());
  *src_names = results->missing_name_pointers.data();
  *src_indexes = results->missing_indexes.data();
}

void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results) { delete results; }

TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(TF_Graph* graph,
                                                            const TF_Buffer* graph_def,
                                                            const TF_ImportGraphDefOptions* options,
                                                            TF_Status* status) {
  const char* function = "TF_GraphImportGraphDef";
  if (graph == nullptr) return SetStatus(status, NullArgument(function, "graph")), nullptr;
  if (graph_def == nullptr) return SetStatus(status, NullArgument(function, "graph_def")), nullptr;
  if (graph_def->data == nullptr && graph_def->length > 0) {
    return SetStatus(status, NullArgument(function, "graph_def->data")), nullptr;
  }
  tensorflow::GraphDef def;
  if (graph_def->length > static_cast<size_t>(INT32_MAX) ||
      !def.ParseFromArray(graph_def->data, static_cast<int>(graph_def->length))) {
    SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                          function, ": the ", graph_def->length,
                          " bytes given are not a valid binary GraphDef")));
    return nullptr;
  }
  static const TF_ImportGraphDefOptions kDefaults;
  auto results = std::make_unique<TF_ImportGraphDefResults>();
  absl::Status imported;
  {
    absl::MutexLock lock(&graph->mu);
    imported = tessera::c_api::Import(graph, def, options == nullptr ? kDefaults : *options,
                                      results.get());
  }
  SetStatus(status, imported);
  return imported.ok() ? results.release() : nullptr;
}

void TF_GraphImportGraphDefWithReturnOutputs(TF_Graph* graph, const TF_Buffer* graph_def,
                                             const TF_ImportGraphDefOptions* options,
                                             TF_Output* return_outputs, int num_return_outputs,
                                             TF_Status* status) {
  if (num_return_outputs != TF_ImportGraphDefOptionsNumReturnOutputs(options)) {
    return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                 "TF_GraphImportGraphDefWithReturnOutputs: num_return_outputs is ",
                                 num_return_outputs, ", but the options ask for ",
                                 TF_ImportGraphDefOptionsNumReturnOutputs(options))));
  }
  if (num_return_outputs > 0 && return_outputs == nullptr) {
    return SetStatus(status,
                     NullArgument("TF_GraphImportGraphDefWithReturnOutputs", "return_outputs"));
  }
  TF_ImportGraphDefResults* results =
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
  if (results == nullptr) return;
  for (int i = 0; i < num_return_outputs; ++i) return_outputs[i] = results->return_outputs[i];
  TF_DeleteImportGraphDefResults(results);
}

void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options, TF_Status* status) {
  TF_DeleteImportGraphDefResults(
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status));
}

}  // extern "C"
