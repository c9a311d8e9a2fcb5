// Partial runs (TF_SessionPRunSetup / TF_SessionPRun): one step whose feeds and fetches arrive
// over several calls. Each call runs, through an ordinary step of the session, only the nodes its
// fetches and targets need that no earlier call ran: the values earlier calls computed and later
// ones read are kept and fed back, so no node runs twice.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"

namespace tessera {
namespace c_api {

struct PartialRun {
  std::mutex mu;
  std::set<std::string> inputs;   // "node:k" the step may feed
  std::set<std::string> outputs;  // "node:k" the step may fetch
  std::set<std::string> targets;  // nodes the step may run
  std::set<std::string> fed;      // inputs fed so far
  std::set<std::string> fetched;  // outputs fetched so far
  std::set<std::string> ran_targets;
  // Values of tensors fed or computed so far that a later call may read, by "node:k".
  absl::flat_hash_map<std::string, Tensor> values;
  absl::flat_hash_set<const Node*> done;  // nodes an earlier call ran
};

namespace {

std::string TensorName(const Node* node, int index) { return absl::StrCat(node->name(), ":", index); }

// The nodes reached backwards from `roots` along data and control edges, not crossing the
// tensors in `cut` (fed or already computed) nor nodes in `stop`.
absl::flat_hash_set<const Node*> Reaching(const std::vector<const Node*>& roots,
                                          const std::set<std::string>& cut,
                                          const absl::flat_hash_set<const Node*>& stop,
                                          const absl::flat_hash_map<std::string, Tensor>& known) {
  absl::flat_hash_set<const Node*> seen;
  std::vector<const Node*> stack;
  for (const Node* root : roots) {
    if (!stop.contains(root) && seen.insert(root).second) stack.push_back(root);
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    for (const Edge* edge : node->in_edges()) {
      const Node* src = edge->src;
      if (!src->IsOp() || stop.contains(src)) continue;
      if (!edge->IsControlEdge()) {
        const std::string name = TensorName(src, edge->src_output);
        if (cut.count(name) > 0 || known.contains(name)) continue;
      }
      if (seen.insert(src).second) stack.push_back(src);
    }
  }
  return seen;
}

absl::StatusOr<std::string> OutputName(TF_Session* session, const TF_Output& output,
                                       const char* function) {
  RETURN_IF_ERROR(CheckOutputOf(session->graph, output, function));
  return output.oper->output_names[output.index];
}

absl::Status Setup(TF_Session* session, const TF_Output* inputs, int ninputs,
                   const TF_Output* outputs, int noutputs, const TF_Operation* const* target_opers,
                   int ntargets, std::string* handle) {
  const char* function = "TF_SessionPRunSetup";
  if (session == nullptr) return NullArgument(function, "session");
  if (ninputs < 0 || noutputs < 0 || ntargets < 0) {
    return absl::InvalidArgumentError(
        "TF_SessionPRunSetup: ninputs, noutputs and ntargets must be >= 0");
  }
  if ((ninputs > 0 && inputs == nullptr) || (noutputs > 0 && outputs == nullptr) ||
      (ntargets > 0 && target_opers == nullptr)) {
    return NullArgument(function, "inputs, outputs or target_opers");
  }
  auto run = std::make_shared<PartialRun>();
  for (int i = 0; i < ninputs; ++i) {
    ASSIGN_OR_RETURN(std::string name, OutputName(session, inputs[i], function));
    run->inputs.insert(name);
  }
  for (int i = 0; i < noutputs; ++i) {
    ASSIGN_OR_RETURN(std::string name, OutputName(session, outputs[i], function));
    if (run->inputs.count(name) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(function, ": '", name, "' is both an input and an output"));
    }
    run->outputs.insert(name);
  }
  for (int i = 0; i < ntargets; ++i) {
    RETURN_IF_ERROR(CheckOperationOf(session->graph, target_opers[i], function));
    run->targets.insert(target_opers[i]->node->name());
  }
  if (session->closed.load()) {
    return absl::FailedPreconditionError(absl::StrCat(function, ": the session has been closed"));
  }
  std::lock_guard<std::mutex> lock(session->prun_mu);
  *handle = absl::StrCat("prun:", session->next_prun_id++);
  session->partial_runs[*handle] = std::move(run);
  return absl::OkStatus();
}

absl::Status PRun(TF_Session* session, const char* handle, const TF_Output* inputs,
                  TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                  TF_Tensor** output_values, int noutputs, const TF_Operation* const* target_opers,
                  int ntargets) {
  const char* function = "TF_SessionPRun";
  if (session == nullptr) return NullArgument(function, "session");
  if (handle == nullptr) return NullArgument(function, "handle");
  if (ninputs < 0 || noutputs < 0 || ntargets < 0) {
    return absl::InvalidArgumentError("TF_SessionPRun: ninputs, noutputs and ntargets must be >= 0");
  }
  if ((ninputs > 0 && (inputs == nullptr || input_values == nullptr)) ||
      (noutputs > 0 && (outputs == nullptr || output_values == nullptr)) ||
      (ntargets > 0 && target_opers == nullptr)) {
    return NullArgument(function, "inputs, input_values, outputs, output_values or target_opers");
  }
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  std::shared_ptr<PartialRun> run;
  {
    std::lock_guard<std::mutex> lock(session->prun_mu);
    auto it = session->partial_runs.find(handle);
    if (it == session->partial_runs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          function, ": '", handle, "' is not a partial run of this session (or it has ended)"));
    }
    run = it->second;
  }
  std::lock_guard<std::mutex> run_lock(run->mu);

  // What this call feeds, fetches and runs, checked against the setup.
  std::vector<std::pair<std::string, Tensor>> new_feeds;
  for (int i = 0; i < ninputs; ++i) {
    ASSIGN_OR_RETURN(std::string name, OutputName(session, inputs[i], function));
    if (run->inputs.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          function, ": '", name, "' was not declared as an input by TF_SessionPRunSetup"));
    }
    if (run->fed.count(name) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(function, ": '", name, "' has already been fed in this partial run"));
    }
    if (input_values[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(function, ": the value of '", name, "' is NULL"));
    }
    ASSIGN_OR_RETURN(Tensor value, ToTensor(*input_values[i]));
    new_feeds.emplace_back(name, std::move(value));
  }
  std::vector<std::string> fetch_names;
  for (int i = 0; i < noutputs; ++i) {
    ASSIGN_OR_RETURN(std::string name, OutputName(session, outputs[i], function));
    if (run->outputs.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          function, ": '", name, "' was not declared as an output by TF_SessionPRunSetup"));
    }
    if (run->fetched.count(name) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(function, ": '", name, "' has already been fetched in this partial run"));
    }
    fetch_names.push_back(name);
  }
  std::vector<std::string> target_names;
  for (int i = 0; i < ntargets; ++i) {
    RETURN_IF_ERROR(CheckOperationOf(session->graph, target_opers[i], function));
    const std::string& name = target_opers[i]->node->name();
    if (run->targets.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          function, ": '", name, "' was not declared as a target by TF_SessionPRunSetup"));
    }
    target_names.push_back(name);
  }

  std::set<std::string> fed = run->fed;
  for (const auto& [name, value] : new_feeds) fed.insert(name);
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  // Per entry of `fetches`: true when it is kept for a later call rather than returned.
  std::vector<std::string> keep;
  {
    TF_Graph* graph = session->graph;
    absl::MutexLock lock(&graph->mu);
    auto node_of = [&](const std::string& tensor_or_node) {
      return graph->graph.FindNode(tensor_or_node.substr(0, tensor_or_node.rfind(':')));
    };
    std::vector<const Node*> roots;
    for (const std::string& name : fetch_names) roots.push_back(node_of(name));
    for (const std::string& name : target_names) roots.push_back(graph->graph.FindNode(name));
    // A fetched tensor an earlier call computed is returned from what was kept.
    std::vector<const Node*> to_run_roots;
    for (size_t i = 0; i < roots.size(); ++i) {
      if (!run->done.contains(roots[i])) to_run_roots.push_back(roots[i]);
    }
    const absl::flat_hash_set<const Node*> needed =
        Reaching(to_run_roots, fed, run->done, run->values);
    // Declared inputs not fed yet must not be needed.
    for (const Node* node : needed) {
      for (const Edge* edge : node->in_edges()) {
        if (edge->IsControlEdge()) {
          if (run->done.contains(edge->src)) {
            return absl::UnimplementedError(absl::StrCat(
                function, ": node '", node->name(), "' has a control input from '",
                edge->src->name(), "', which an earlier call of this partial run ran; such a "
                "node cannot run in a later call"));
          }
          continue;
        }
        const std::string name = TensorName(edge->src, edge->src_output);
        if (run->inputs.count(name) > 0 && fed.count(name) == 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              function, ": '", node->name(), "' needs input '", name,
              "', which this partial run has not been fed yet"));
        }
      }
    }
    // Feeds: this call's, and the kept values the needed nodes read.
    absl::flat_hash_set<std::string> fed_now;
    for (const auto& feed : new_feeds) {
      feeds.push_back(feed);
      fed_now.insert(feed.first);
    }
    for (const Node* node : needed) {
      for (const Edge* edge : node->in_edges()) {
        if (edge->IsControlEdge()) continue;
        const std::string name = TensorName(edge->src, edge->src_output);
        auto value = run->values.find(name);
        if (value != run->values.end() && fed_now.insert(name).second) {
          feeds.emplace_back(name, value->second);
        }
      }
    }
    // Fetches: this call's, then the outputs of needed nodes that the rest of the step may read.
    std::vector<const Node*> remaining_roots;
    for (const std::string& name : run->outputs) {
      if (run->fetched.count(name) == 0 &&
          std::find(fetch_names.begin(), fetch_names.end(), name) == fetch_names.end()) {
        remaining_roots.push_back(node_of(name));
      }
    }
    for (const std::string& name : run->targets) {
      if (run->ran_targets.count(name) == 0 &&
          std::find(target_names.begin(), target_names.end(), name) == target_names.end()) {
        remaining_roots.push_back(graph->graph.FindNode(name));
      }
    }
    const absl::flat_hash_set<const Node*> later =
        Reaching(remaining_roots, {}, {}, {});
    for (const std::string& name : fetch_names) {
      if (!run->done.contains(node_of(name))) fetches.push_back(name);
    }
    for (const Node* node : needed) {
      for (const Edge* edge : node->out_edges()) {
        if (edge->IsControlEdge() || needed.contains(edge->dst) || !later.contains(edge->dst)) {
          continue;
        }
        const std::string name = TensorName(node, edge->src_output);
        if (fed.count(name) == 0 &&
            std::find(fetches.begin(), fetches.end(), name) == fetches.end() &&
            std::find(keep.begin(), keep.end(), name) == keep.end()) {
          keep.push_back(name);
        }
      }
      for (int i = 0; i < node->num_outputs(); ++i) {
        const std::string name = TensorName(node, i);
        if (run->outputs.count(name) > 0 && run->fetched.count(name) == 0 &&
            std::find(fetch_names.begin(), fetch_names.end(), name) == fetch_names.end() &&
            std::find(keep.begin(), keep.end(), name) == keep.end()) {
          keep.push_back(name);
        }
      }
    }
    for (const std::string& name : target_names) targets.push_back(name);
    for (const Node* node : needed) run->done.insert(node);
  }
  const size_t num_returned = fetches.size();
  fetches.insert(fetches.end(), keep.begin(), keep.end());

  std::vector<Tensor> values;
  if (!fetches.empty() || !targets.empty()) {
    absl::Status ran =
        RunByName(session, RunOptions(), feeds, fetches, targets, &values, nullptr, function);
    if (!ran.ok()) {
      // The nodes of this call count as run; the step cannot go on consistently: it ends.
      std::lock_guard<std::mutex> lock(session->prun_mu);
      session->partial_runs.erase(handle);
      return ran;
    }
  }
  std::map<std::string, Tensor> returned;
  for (size_t i = 0; i < num_returned; ++i) returned[fetches[i]] = values[i];
  for (size_t i = num_returned; i < fetches.size(); ++i) run->values[fetches[i]] = values[i];
  for (const auto& [name, value] : new_feeds) {
    run->fed.insert(name);
    run->values[name] = value;
  }
  std::vector<TF_Tensor*> results;
  for (const std::string& name : fetch_names) {
    auto it = returned.find(name);
    const Tensor& value = it != returned.end() ? it->second : run->values[name];
    absl::StatusOr<TF_Tensor*> result = FromTensor(value);
    if (!result.ok()) {
      for (TF_Tensor* t : results) TF_DeleteTensor(t);
      return result.status();
    }
    results.push_back(*result);
    run->fetched.insert(name);
    // Kept: a later call may need it as an input.
    if (it != returned.end()) run->values[name] = it->second;
  }
  for (const std::string& name : target_names) run->ran_targets.insert(name);
  for (int i = 0; i < noutputs; ++i) output_values[i] = results[i];
  // The step ends when everything it declared has been fetched and run.
  if (run->fetched.size() == run->outputs.size() && run->ran_targets.size() == run->targets.size()) {
    std::lock_guard<std::mutex> lock(session->prun_mu);
    session->partial_runs.erase(handle);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace tessera

extern "C" {

void TF_SessionPRunSetup(TF_Session* session, const TF_Output* inputs, int ninputs,
                         const TF_Output* outputs, int noutputs,
                         const TF_Operation* const* target_opers, int ntargets,
                         const char** handle, TF_Status* status) {
  if (handle == nullptr) {
    return tessera::c_api::SetStatus(
        status, tessera::c_api::NullArgument("TF_SessionPRunSetup", "handle"));
  }
  *handle = nullptr;
  std::string name;
  absl::Status result = tessera::c_api::Setup(session, inputs, ninputs, outputs, noutputs,
                                              target_opers, ntargets, &name);
  if (result.ok()) {
    char* copy = new char[name.size() + 1];
    std::memcpy(copy, name.c_str(), name.size() + 1);
    *handle = copy;
  }
  tessera::c_api::SetStatus(status, result);
}

void TF_SessionPRun(TF_Session* session, const char* handle, const TF_Output* inputs,
                    TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                    TF_Tensor** output_values, int noutputs,
                    const TF_Operation* const* target_opers, int ntargets, TF_Status* status) {
  tessera::c_api::SetStatus(
      status, tessera::c_api::PRun(session, handle, inputs, input_values, ninputs, outputs,
                                   output_values, noutputs, target_opers, ntargets));
}

void TF_DeletePRunHandle(const char* handle) { delete[] handle; }

}  // extern "C"
