// `tessera run`: read the graph (or load the SavedModel) and the feeds, create a session, run,
// report.
#include "host/tools/run_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/client/npy.h"
#include "host/graph/graph.h"
#include "host/saved_model/saved_model.h"
#include "host/session/session.h"
#include "host/tools/chrome_trace.h"
#include "host/tools/tensor_summary.h"

namespace tessera {
namespace cli {
namespace {

absl::Status Fail(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(),
                      absl::StrCat("tessera run: ", context, ": ", status.message()));
}

// Writes outputs[i] to DIR/OutputFileName(names[i]).
absl::Status WriteOutputs(const RunArgs& args, const std::vector<std::string>& names,
                          const std::vector<Tensor>& outputs, std::ostream& out) {
  std::error_code error;
  std::filesystem::create_directories(args.output_dir, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat("tessera run: cannot create output folder '",
                                                    args.output_dir, "': ", error.message()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path =
        (std::filesystem::path(args.output_dir) / OutputFileName(names[i])).string();
    absl::Status status = WriteNpy(outputs[i], path);
    if (!status.ok()) {
      return Fail(status, absl::StrCat("cannot write fetch '", names[i], "'"));
    }
    out << "wrote " << path << "\n";
  }
  return absl::OkStatus();
}

absl::Status WriteTrace(const std::string& path, const RunMetadata& metadata, std::ostream& out) {
  absl::Status status = WriteChromeTrace(metadata.step_stats, path);
  if (!status.ok()) return Fail(status, "cannot write the trace");
  size_t nodes = 0;
  for (const DeviceStepStats& device : metadata.step_stats.devices) nodes += device.nodes.size();
  size_t devices = metadata.step_stats.devices.size();
  out << "wrote trace " << path << " (" << nodes << (nodes == 1 ? " node" : " nodes") << " on "
      << devices << (devices == 1 ? " device" : " devices") << ")\n";
  return absl::OkStatus();
}

// (name, tensor) for each (name, .npy path); `what` names the option in errors ("feed").
absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ReadNpyFiles(
    const std::vector<std::pair<std::string, std::string>>& files, absl::string_view what) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& [name, path] : files) {
    absl::StatusOr<Tensor> tensor = ReadNpy(path);
    if (!tensor.ok()) {
      return Fail(tensor.status(),
                  absl::StrCat("cannot read ", what, " '", name, "' from '", path, "'"));
    }
    tensors.emplace_back(name, *std::move(tensor));
  }
  return tensors;
}

SessionOptions MakeSessionOptions(const RunArgs& args) {
  SessionOptions options;
  options.target = args.server;
  options.plugin_paths = args.plugin_paths;
  options.plugin_policy = args.plugin_policy;
  options.inter_op_threads = args.inter_op_threads;
  options.intra_op_threads = args.intra_op_threads;
  options.allow_soft_placement = args.allow_soft_placement;
  options.op_fusion = args.op_fusion;
  options.log_device_placement = args.log_device_placement;
  options.device_count = args.device_count;
  options.device_options = args.device_options;
  return options;
}

// The session of a GRAPH: a GraphDef, or a MetaGraphDef (.meta) whose variables --checkpoint
// restores.
absl::StatusOr<std::unique_ptr<Session>> LoadGraph(const RunArgs& args,
                                                   const SessionOptions& options) {
  if (IsMetaGraphPath(args.graph_path)) {
    absl::StatusOr<tensorflow::MetaGraphDef> meta_graph = ReadMetaGraphDefFile(args.graph_path);
    if (!meta_graph.ok()) return Fail(meta_graph.status(), "cannot read the meta graph");
    absl::StatusOr<std::unique_ptr<Session>> session =
        LoadMetaGraph(options, *std::move(meta_graph), args.checkpoint_prefix);
    if (!session.ok()) {
      return Fail(session.status(), absl::StrCat("cannot load '", args.graph_path, "'"));
    }
    return session;
  }
  absl::StatusOr<tensorflow::GraphDef> graph = ReadGraphDefFile(args.graph_path);
  if (!graph.ok()) return Fail(graph.status(), "cannot read the graph");
  // A local session takes the GraphDef's nodes instead of copying them.
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, *std::move(graph));
  if (!session.ok()) {
    return Fail(session.status(), absl::StrCat("cannot load graph '", args.graph_path, "'"));
  }
  return session;
}

// --input KEY=FILE.npy as feeds of the signature's tensors (for a run by tensor names).
absl::Status AddSignatureInputs(const SavedModelBundle& bundle, const RunArgs& args,
                                std::vector<std::pair<std::string, Tensor>> inputs,
                                std::vector<std::pair<std::string, Tensor>>* feeds) {
  if (inputs.empty()) return absl::OkStatus();
  auto signature = bundle.signatures.find(args.signature_key);
  if (signature == bundle.signatures.end()) {
    std::vector<std::string> keys;
    for (const auto& [key, unused] : bundle.signatures) keys.push_back(key);
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera run: the SavedModel has no signature '", args.signature_key,
        "' (--signature-def); its signatures: ", absl::StrJoin(keys, ", ")));
  }
  for (auto& [key, tensor] : inputs) {
    auto info = signature->second.inputs().find(key);
    if (info == signature->second.inputs().end() ||
        info->second.encoding_case() != tensorflow::TensorInfo::kName) {
      return absl::InvalidArgumentError(absl::StrCat("tessera run: signature '",
                                                     args.signature_key,
                                                     "' has no dense input '", key, "'"));
    }
    feeds->emplace_back(info->second.name(), std::move(tensor));
  }
  return absl::OkStatus();
}

// With --output-dir, two signature outputs whose keys map to one file would overwrite each other:
// refused before the step, as for fetches.
absl::Status CheckOutputFiles(const SavedModelBundle& bundle, const RunArgs& args) {
  auto signature = bundle.signatures.find(args.signature_key);
  if (args.output_dir.empty() || signature == bundle.signatures.end()) return absl::OkStatus();
  std::map<std::string, std::string> key_of_file;
  for (const auto& [key, info] : signature->second.outputs()) {
    auto [it, inserted] = key_of_file.emplace(OutputFileName(key), key);
    if (!inserted) {
      const std::string& first = std::min(it->second, key);
      const std::string& second = std::max(it->second, key);
      return absl::InvalidArgumentError(absl::StrCat(
          "tessera run: signature '", args.signature_key, "' outputs '", first, "' and '", second,
          "' would both be written to '", it->first, "' in --output-dir"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(const RunArgs& args, std::ostream& out) {
  // --timeout-ms bounds the whole call: reading, connecting and creating the session included.
  const auto start = std::chrono::steady_clock::now();
  const auto remaining_ms = [&]() -> int64_t {
    const int64_t spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    return args.timeout_ms - spent;
  };
  const auto out_of_time = [&](absl::string_view while_doing) {
    return absl::DeadlineExceededError(
        absl::StrCat("tessera run: --timeout-ms ", args.timeout_ms, " passed ", while_doing));
  };
  using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
  ASSIGN_OR_RETURN(NamedTensors feeds, ReadNpyFiles(args.feeds, "feed"));
  ASSIGN_OR_RETURN(NamedTensors inputs, ReadNpyFiles(args.inputs, "input"));

  SessionOptions options = MakeSessionOptions(args);
  if (args.timeout_ms > 0) {
    if (remaining_ms() <= 0) return out_of_time("before the session was created");
    // A cluster's session: connecting and creating it on the master get what is left.
    options.call_timeout_ms = remaining_ms();
  }
  SavedModelBundle bundle;
  Session* session = nullptr;
  std::unique_ptr<Session> graph_session;
  const bool saved_model = !args.saved_model_dir.empty();
  const bool by_signature = saved_model && args.fetches.empty() && args.targets.empty();
  if (saved_model) {
    SavedModelLoadOptions load;
    load.tags = args.tags;
    if (args.timeout_ms > 0) {
      if (remaining_ms() <= 0) return out_of_time("before the SavedModel was loaded");
      load.run_options.timeout_ms = remaining_ms();
    }
    absl::StatusOr<SavedModelBundle> loaded = LoadSavedModel(options, args.saved_model_dir, load);
    if (!loaded.ok()) return Fail(loaded.status(), "cannot load the SavedModel");
    bundle = *std::move(loaded);
    session = bundle.session.get();
    if (by_signature) {
      RETURN_IF_ERROR(CheckOutputFiles(bundle, args));
    } else {
      RETURN_IF_ERROR(AddSignatureInputs(bundle, args, std::move(inputs), &feeds));
    }
  } else {
    ASSIGN_OR_RETURN(graph_session, LoadGraph(args, options));
    session = graph_session.get();
  }

  RunOptions run_options;
  run_options.collect_step_stats = !args.trace_path.empty();
  if (args.timeout_ms > 0) {
    if (remaining_ms() <= 0) return out_of_time("while the session was created");
    run_options.timeout_ms = remaining_ms();
  }
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  std::vector<std::string> names = args.fetches;
  if (by_signature) {
    // The signature: its inputs by key, every output printed and written under its key.
    std::map<std::string, Tensor> by_key;
    for (auto& [key, tensor] : inputs) by_key.emplace(key, std::move(tensor));
    absl::StatusOr<std::map<std::string, Tensor>> results =
        RunSignature(bundle, args.signature_key, by_key, run_options, &metadata);
    if (!results.ok()) return Fail(results.status(), "the step failed");
    names.clear();
    for (auto& [key, tensor] : *results) {
      names.push_back(key);
      outputs.push_back(std::move(tensor));
    }
  } else {
    absl::Status status =
        session->Run(run_options, feeds, args.fetches, args.targets, &outputs, &metadata);
    if (!status.ok()) return Fail(status, "the step failed");
    if (outputs.size() != args.fetches.size()) {
      return absl::InternalError(absl::StrCat("tessera run: the session returned ",
                                              outputs.size(), " tensors for ",
                                              args.fetches.size(), " fetches"));
    }
  }

  out << FormatFetches(names, outputs, /*max_values=*/10, /*tensor_names=*/!by_signature);
  if (!args.output_dir.empty()) RETURN_IF_ERROR(WriteOutputs(args, names, outputs, out));
  if (!args.trace_path.empty()) RETURN_IF_ERROR(WriteTrace(args.trace_path, metadata, out));
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
