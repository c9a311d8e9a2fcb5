// TF_LoadSessionFromSavedModel: a SavedModel loaded by host/saved_model/ into a TF_Graph and a
// TF_Session on it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/c_api/c_api_internal.h"
#include "host/framework/proto/config.pb.h"
#include "host/saved_model/saved_model.h"

using tessera::c_api::NullArgument;
using tessera::c_api::SetOk;
using tessera::c_api::SetStatus;

namespace {

constexpr char kFunction[] = "TF_LoadSessionFromSavedModel";

absl::StatusOr<tessera::RunOptions> ParseRunOptions(const TF_Buffer* buffer) {
  tessera::RunOptions options;
  if (buffer == nullptr || buffer->length == 0) return options;
  tensorflow::RunOptions proto;
  if (buffer->data == nullptr || buffer->length > static_cast<size_t>(INT32_MAX) ||
      !proto.ParseFromArray(buffer->data, static_cast<int>(buffer->length))) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": run_options is not a valid serialized RunOptions"));
  }
  options.timeout_ms = std::max<int64_t>(0, proto.timeout_in_ms());
  return options;
}

}  // namespace

extern "C" {

TF_Session* TF_LoadSessionFromSavedModel(const TF_SessionOptions* session_options,
                                         const TF_Buffer* run_options, const char* export_dir,
                                         const char* const* tags, int tags_len, TF_Graph* graph,
                                         TF_Buffer* meta_graph_def, TF_Status* status) {
  if (export_dir == nullptr) return SetStatus(status, NullArgument(kFunction, "export_dir")), nullptr;
  if (graph == nullptr) return SetStatus(status, NullArgument(kFunction, "graph")), nullptr;
  if (tags_len < 0 || (tags_len > 0 && tags == nullptr)) {
    SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                          kFunction, ": tags must hold tags_len (", tags_len, " given) tags")));
    return nullptr;
  }
  tessera::SavedModelLoadOptions load;
  load.keep_graph_def = true;
  load.tags.clear();
  for (int i = 0; i < tags_len; ++i) {
    if (tags[i] == nullptr) {
      SetStatus(status, absl::InvalidArgumentError(absl::StrCat(kFunction, ": tag ", i, " is NULL")));
      return nullptr;
    }
    load.tags.emplace_back(tags[i]);
  }
  absl::StatusOr<tessera::RunOptions> parsed = ParseRunOptions(run_options);
  if (!parsed.ok()) return SetStatus(status, parsed.status()), nullptr;
  load.run_options = *parsed;
  {
    absl::MutexLock lock(&graph->mu);
    if (!graph->ops.empty()) {
      SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                            kFunction, ": the graph must be empty; it has ", graph->ops.size(),
                            " operations")));
      return nullptr;
    }
  }

  tessera::SessionOptions options =
      session_options == nullptr ? tessera::SessionOptions() : session_options->options;
  tessera::c_api::ApplyPluginOptions(&options);
  absl::StatusOr<tessera::SavedModelBundle> bundle =
      tessera::LoadSavedModel(options, export_dir, load);
  if (!bundle.ok()) return SetStatus(status, bundle.status()), nullptr;

  auto session = std::make_unique<TF_Session>();
  session->graph = graph;
  session->session = std::move(bundle->session);
  {
    absl::MutexLock lock(&graph->mu);
    if (!graph->ops.empty()) {
      SetStatus(status, absl::FailedPreconditionError(absl::StrCat(
                            kFunction, ": operations were added to the graph while the "
                                       "SavedModel loaded")));
      return nullptr;
    }
    absl::Status imported =
        tessera::c_api::ImportGraphDefLocked(graph, bundle->meta_graph.graph_def());
    if (!imported.ok()) {
      SetStatus(status, absl::Status(imported.code(),
                                     absl::StrCat(kFunction, ": importing the MetaGraph's graph: ",
                                                  imported.message())));
      return nullptr;
    }
    session->synced_ops = graph->ops.size();
    session->synced_functions = graph->graph.library.function_size();
    ++graph->num_sessions;
  }
  if (meta_graph_def != nullptr) {
    tessera::c_api::SetBuffer(meta_graph_def, bundle->meta_graph.SerializeAsString());
  }
  SetOk(status);
  return session.release();
}

}  // extern "C"
