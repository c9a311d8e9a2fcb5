// Sessions, their options and runs, device lists, plugin loading and op lists.
#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/framework/proto/config.pb.h"
#include "host/framework/proto/op_def.pb.h"
#include "registry/discovery.h"
#include "registry/manifest.h"
#include "registry/plugin_registry.h"
#include "tessera/c_api.h"

struct TF_DeviceList {
  std::vector<std::string> names;
  std::vector<std::string> types;
};

struct TF_Library {
  std::string manifest_path;
  std::string op_list;  // serialized OpList of the ops the plugin defines
};

namespace tessera {
namespace c_api {
namespace {

namespace fs = std::filesystem;

std::mutex& LibrariesMutex() {
  static std::mutex mu;
  return mu;
}
// Manifests loaded with TF_LoadPluggableDeviceLibrary, in order.
std::vector<std::string>& LoadedLibraries() {
  static auto* paths = new std::vector<std::string>();
  return *paths;
}

// The plugin folder that belongs to this library: <libdir>/tessera/plugins (the build tree and a
// prefix installed into lib/), else <libdir>/../tessera/plugins (a multiarch libdir such as
// /usr/lib/x86_64-linux-gnu); unset (next to the program) when neither exists.
std::optional<std::string> LibraryPluginDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&TF_NewGraph), &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code error;
  const fs::path libdir = fs::absolute(info.dli_fname, error).parent_path();
  for (const fs::path& candidate :
       {libdir / "tessera" / "plugins", libdir / ".." / "tessera" / "plugins"}) {
    if (fs::is_directory(candidate, error)) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

const std::optional<std::string>& PluginDir() {
  static const std::optional<std::string> dir = LibraryPluginDir();
  return dir;
}

// The manifest of the plugin at `path`: a manifest or folder as is; for a shared object, the
// manifest beside it whose library it is.
absl::StatusOr<std::string> ManifestFor(const std::string& path) {
  std::error_code error;
  if (!fs::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("plugin library '", path, "' does not exist"));
  }
  if (fs::is_directory(path, error) || absl::EndsWith(path, kManifestSuffix)) {
    return fs::absolute(path, error).string();
  }
  const fs::path library = fs::absolute(path, error).lexically_normal();
  for (const std::string& manifest : ListManifests(library.parent_path().string())) {
    absl::StatusOr<PluginManifest> parsed = ReadManifest(manifest);
    if (parsed.ok() && fs::path(parsed->library_path).lexically_normal() == library) {
      return manifest;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "plugin library '", path, "' has no manifest beside it (a *", kManifestSuffix,
      " file whose \"library\" names it); Tessera loads plugins through their manifests"));
}

absl::Status ParseConfig(const void* proto, size_t proto_len, SessionOptions* options) {
  tensorflow::ConfigProto config;
  if ((proto == nullptr && proto_len > 0) || proto_len > static_cast<size_t>(INT32_MAX) ||
      !config.ParseFromArray(proto, static_cast<int>(proto_len))) {
    return absl::InvalidArgumentError(
        absl::StrCat("TF_SetConfig: the ", proto_len, " bytes given are not a valid ConfigProto"));
  }
  if (config.intra_op_parallelism_threads() < 0 || config.inter_op_parallelism_threads() < 0) {
    return absl::InvalidArgumentError(
        "TF_SetConfig: intra_op_parallelism_threads and inter_op_parallelism_threads are >= 0");
  }
  options->device_count.clear();
  for (const auto& [type, count] : config.device_count()) {
    if (count < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TF_SetConfig: device_count[\"", type, "\"] is ", count, "; counts are >= 0"));
    }
    options->device_count[type] = count;
  }
  options->intra_op_threads = config.intra_op_parallelism_threads();
  options->inter_op_threads = config.inter_op_parallelism_threads();
  options->allow_soft_placement = config.allow_soft_placement();
  options->log_device_placement = config.log_device_placement();
  options->op_fusion =
      config.graph_options().optimizer_options().opt_level() != tensorflow::OptimizerOptions::L0;
  if (config.operation_timeout_in_ms() > 0) {
    options->call_timeout_ms = config.operation_timeout_in_ms();
  }
  return absl::OkStatus();
}

void DeleteGraphIfLastSession(TF_Graph* graph) {
  bool remove = false;
  {
    absl::MutexLock lock(&graph->mu);
    remove = --graph->num_sessions == 0 && graph->delete_requested;
  }
  if (remove) delete graph;
}

// Gives the session the operations and functions added to its graph since the last run.
absl::Status SyncGraph(TF_Session* session) {
  TF_Graph* graph = session->graph;
  if (graph->num_ops.load(std::memory_order_acquire) ==
      session->synced_ops.load(std::memory_order_acquire)) {
    return absl::OkStatus();
  }
  std::lock_guard<std::mutex> extend_lock(session->extend_mu);
  tensorflow::GraphDef addition;
  size_t num_ops;
  int num_functions;
  {
    absl::MutexLock lock(&graph->mu);
    num_ops = graph->ops.size();
    num_functions = graph->graph.library.function_size();
    if (num_ops == session->synced_ops.load(std::memory_order_acquire)) return absl::OkStatus();
    // Only the new operations, each as it was added (its NodeDef's inputs name its edges), not
    // an export of the whole graph.
    for (size_t i = session->synced_ops.load(); i < num_ops; ++i) {
      *addition.add_node() = graph->ops[i]->node->def();
    }
    for (int i = session->synced_functions; i < num_functions; ++i) {
      *addition.mutable_library()->add_function() = graph->graph.library.function(i);
    }
  }
  RETURN_IF_ERROR(session->session->Extend(addition));
  session->synced_functions = num_functions;
  session->synced_ops.store(num_ops, std::memory_order_release);
  return absl::OkStatus();
}

// Per-thread scratch of TF_SessionRun: the vectors keep their capacity from step to step, so a
// step through the C API allocates no more than one through the C++ API.
struct RunScratch {
  std::vector<Tensor> feeds;
  std::vector<Tensor> values;
};

// Drops the step's references to the fed buffers and to its values.
// Out of line: inlined into Run, GCC 12 warns that the emptied tensors' shapes may be
// uninitialized, which they are not.
ABSL_ATTRIBUTE_NOINLINE void ReleaseStepTensors(RunScratch* scratch) {
  scratch->feeds.clear();
  scratch->values.clear();
}

template <typename T>
bool SameOutputs(const std::vector<TF_Output>& cached, const T* given, int n) {
  if (cached.size() != static_cast<size_t>(n)) return false;
  for (int i = 0; i < n; ++i) {
    if (cached[i].oper != given[i].oper || cached[i].index != given[i].index) return false;
  }
  return true;
}

bool SameSignature(const CachedCallable& callable, const TF_Output* inputs, int ninputs,
                   const TF_Output* outputs, int noutputs, const TF_Operation* const* target_opers,
                   int ntargets) {
  return SameOutputs(callable.inputs, inputs, ninputs) &&
         SameOutputs(callable.outputs, outputs, noutputs) &&
         callable.targets.size() == static_cast<size_t>(ntargets) &&
         std::equal(callable.targets.begin(), callable.targets.end(), target_opers);
}

// A signature by name, as the session takes it. A fetched tensor that is also fed is the fed
// value, as in TensorFlow: it is answered by TF_SessionRun (fed_index) and not asked of the
// session (which refuses a tensor both fed and fetched).
struct SignatureNames {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;  // the outputs not fed
  std::vector<std::string> targets;
  std::vector<int> fed_index;  // per output: the input it is, or -1
  // Every output is fed and there is no target: nothing to run.
  bool runs_nothing = false;
};

SignatureNames NameSignature(const TF_Output* inputs, int ninputs, const TF_Output* outputs,
                             int noutputs, const TF_Operation* const* target_opers,
                             int ntargets) {
  SignatureNames names;
  names.feeds.resize(ninputs);
  for (int i = 0; i < ninputs; ++i) {
    names.feeds[i] = inputs[i].oper->output_names[inputs[i].index];
  }
  names.fed_index.assign(noutputs, -1);
  for (int i = 0; i < noutputs; ++i) {
    const std::string& name = outputs[i].oper->output_names[outputs[i].index];
    for (int j = 0; j < ninputs; ++j) {
      if (names.feeds[j] == name) names.fed_index[i] = j;
    }
    if (names.fed_index[i] < 0) names.fetches.push_back(name);
  }
  names.targets.resize(ntargets);
  for (int i = 0; i < ntargets; ++i) names.targets[i] = target_opers[i]->node->name();
  names.runs_nothing = noutputs > 0 && names.fetches.empty() && ntargets == 0;
  return names;
}

// The cached callable of this (inputs, outputs, targets) signature, else one made (MakeCallable's
// errors are Run's) and cached; nullptr (with OK) once the cache is full: the step then runs by
// name. Plans are made outside the lock, so steps preparing different signatures do not wait for
// each other; of two steps preparing the same one, the first to publish wins.
absl::StatusOr<const CachedCallable*> FindOrMakeCallable(
    TF_Session* session, const TF_Output* inputs, int ninputs, const TF_Output* outputs,
    int noutputs, const TF_Operation* const* target_opers, int ntargets) {
  const auto find = [&](int count) -> const CachedCallable* {
    for (int i = 0; i < count; ++i) {
      const CachedCallable& callable = *session->cached[i];
      if (SameSignature(callable, inputs, ninputs, outputs, noutputs, target_opers, ntargets)) {
        return &callable;
      }
    }
    return nullptr;
  };
  const int cached = session->num_cached.load(std::memory_order_acquire);
  if (const CachedCallable* found = find(cached)) return found;
  if (cached == TF_Session::kMaxCachedCallables) return nullptr;
  SignatureNames names =
      NameSignature(inputs, ninputs, outputs, noutputs, target_opers, ntargets);
  std::unique_ptr<CachedCallable> callable;
  if (names.runs_nothing) {
    callable = std::make_unique<CachedCallable>(nullptr, 0);
  } else {
    ASSIGN_OR_RETURN(Session::CallableHandle handle,
                     session->session->MakeCallable(names.feeds, names.fetches, names.targets));
    callable = std::make_unique<CachedCallable>(session->session.get(), handle);
  }
  callable->inputs.assign(inputs, inputs + ninputs);
  callable->outputs.assign(outputs, outputs + noutputs);
  callable->targets.assign(target_opers, target_opers + ntargets);
  callable->fed_index = std::move(names.fed_index);
  std::lock_guard<std::mutex> lock(session->callables_mu);
  const int now = session->num_cached.load(std::memory_order_relaxed);
  // Another step may have published it meanwhile (ours is then released), or filled the cache.
  if (const CachedCallable* found = find(now)) return found;
  if (now == TF_Session::kMaxCachedCallables) return nullptr;
  const CachedCallable* made = callable.get();
  session->cached[now] = std::move(callable);
  session->num_cached.store(now + 1, std::memory_order_release);
  return made;
}

// A step of a signature the cache has no room for, by name (fed and fetched tensors answered as
// a callable's are).
absl::Status RunUncached(TF_Session* session, const RunOptions& options,
                         const TF_Output* inputs, const std::vector<Tensor>& feeds,
                         const TF_Output* outputs, int noutputs,
                         const TF_Operation* const* target_opers, int ntargets,
                         std::vector<int>* fed_index, std::vector<Tensor>* values,
                         RunMetadata* metadata) {
  SignatureNames names = NameSignature(inputs, static_cast<int>(feeds.size()), outputs, noutputs,
                                       target_opers, ntargets);
  *fed_index = std::move(names.fed_index);
  if (names.runs_nothing) return absl::OkStatus();
  std::vector<std::pair<std::string, Tensor>> named(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    named[i].first = std::move(names.feeds[i]);
    named[i].second = feeds[i];
  }
  return session->session->Run(options, named, names.fetches, names.targets, values, metadata);
}

absl::Status Run(TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
                 TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                 TF_Tensor** output_values, int noutputs, const TF_Operation* const* target_opers,
                 int ntargets, TF_Buffer* run_metadata) {
  const char* function = "TF_SessionRun";
  if (session == nullptr) return NullArgument(function, "session");
  if (ninputs < 0 || noutputs < 0 || ntargets < 0) {
    return absl::InvalidArgumentError(
        "TF_SessionRun: ninputs, noutputs and ntargets must be >= 0");
  }
  if (ninputs > 0 && (inputs == nullptr || input_values == nullptr)) {
    return NullArgument(function, "inputs or input_values");
  }
  if (noutputs > 0 && (outputs == nullptr || output_values == nullptr)) {
    return NullArgument(function, "outputs or output_values");
  }
  if (ntargets > 0 && target_opers == nullptr) return NullArgument(function, "target_opers");
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;

  RunOptions options;
  bool trace = false;
  if (run_options != nullptr && run_options->length > 0) {
    tensorflow::RunOptions proto;
    if (run_options->data == nullptr || run_options->length > static_cast<size_t>(INT32_MAX) ||
        !proto.ParseFromArray(run_options->data, static_cast<int>(run_options->length))) {
      return absl::InvalidArgumentError(
          "TF_SessionRun: run_options is not a valid serialized RunOptions");
    }
    options.timeout_ms = std::max<int64_t>(0, proto.timeout_in_ms());
    trace = proto.trace_level() != tensorflow::RunOptions::NO_TRACE;
    options.collect_step_stats = trace;
  }

  // The usual case checked inline; CheckOutputOf and CheckOperationOf say what is wrong.
  const auto valid_output = [graph = session->graph](const TF_Output& output) {
    return output.oper != nullptr && output.oper->graph == graph && output.index >= 0 &&
           output.index < output.oper->node->num_outputs();
  };
  for (int i = 0; i < ninputs; ++i) {
    if (!valid_output(inputs[i])) {
      RETURN_IF_ERROR(CheckOutputOf(session->graph, inputs[i], function));
    }
    if (input_values[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TF_SessionRun: the value of input ", i, " ('",
          inputs[i].oper->output_names[inputs[i].index], "') is NULL"));
    }
  }
  for (int i = 0; i < noutputs; ++i) {
    if (!valid_output(outputs[i])) {
      RETURN_IF_ERROR(CheckOutputOf(session->graph, outputs[i], function));
    }
  }
  for (int i = 0; i < ntargets; ++i) {
    if (target_opers[i] == nullptr || target_opers[i]->graph != session->graph) {
      RETURN_IF_ERROR(CheckOperationOf(session->graph, target_opers[i], function));
    }
  }
  if (session->closed.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat(function, ": the session has been closed"));
  }
  // The session first gets the operations added to the graph since its last step.
  RETURN_IF_ERROR(SyncGraph(session));
  ASSIGN_OR_RETURN(const CachedCallable* callable,
                   FindOrMakeCallable(session, inputs, ninputs, outputs, noutputs, target_opers,
                                      ntargets));

  thread_local RunScratch scratch;  // one thread-local lookup per step
  // Whatever happens, the step keeps no reference to the client's buffers or to its values.
  auto release = absl::MakeCleanup([] { ReleaseStepTensors(&scratch); });
  std::vector<Tensor>& feeds = scratch.feeds;
  std::vector<Tensor>& values = scratch.values;
  feeds.resize(ninputs);
  for (int i = 0; i < ninputs; ++i) {
    ASSIGN_OR_RETURN(feeds[i], ToTensor(*input_values[i]));
  }
  std::vector<int> uncached_fed_index;
  const std::vector<int>& fed_index =
      callable != nullptr ? callable->fed_index : uncached_fed_index;

  std::optional<RunMetadata> metadata;
  if (run_metadata != nullptr) metadata.emplace();
  values.clear();
  RunMetadata* step_metadata = metadata.has_value() ? &*metadata : nullptr;
  if (callable == nullptr) {
    RETURN_IF_ERROR(RunUncached(session, options, inputs, feeds, outputs, noutputs, target_opers,
                                ntargets, &uncached_fed_index, &values, step_metadata));
  } else if (callable->session != nullptr) {
    RETURN_IF_ERROR(session->session->RunCallable(callable->handle, options, feeds, &values,
                                                  step_metadata));
  }
  for (int i = 0, next = 0; i < noutputs; ++i) {
    absl::StatusOr<TF_Tensor*> result =
        FromTensor(fed_index[i] >= 0 ? feeds[fed_index[i]] : values[next++]);
    if (!result.ok()) {
      for (int j = 0; j < i; ++j) {
        TF_DeleteTensor(output_values[j]);
        output_values[j] = nullptr;
      }
      return result.status();
    }
    output_values[i] = *result;
  }
  if (run_metadata != nullptr) {
    tensorflow::RunMetadata proto;
    if (trace) {
      tensorflow::StepStats* stats = proto.mutable_step_stats();
      for (const DeviceStepStats& device : metadata->step_stats.devices) {
        tensorflow::DeviceStepStats* dev = stats->add_dev_stats();
        dev->set_device(device.device);
        for (const NodeExecStats& node : device.nodes) {
          tensorflow::NodeExecStats* n = dev->add_node_stats();
          n->set_node_name(node.node_name);
          n->set_timeline_label(absl::StrCat(node.node_name, " = ", node.op, "()"));
          n->set_all_start_nanos(node.start_ns);
          n->set_all_start_micros(node.start_ns / 1000);
          n->set_op_end_rel_nanos(node.end_ns - node.start_ns);
          n->set_all_end_rel_nanos(node.end_ns - node.start_ns);
          n->set_op_end_rel_micros((node.end_ns - node.start_ns) / 1000);
          n->set_all_end_rel_micros((node.end_ns - node.start_ns) / 1000);
          n->set_thread_id(static_cast<uint32_t>(node.thread_id));
        }
      }
    }
    SetBuffer(run_metadata, proto.SerializeAsString());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunByName(TF_Session* session, const RunOptions& options,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                       RunMetadata* metadata, const char* function) {
  if (session->closed.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat(function, ": the session has been closed"));
  }
  RETURN_IF_ERROR(SyncGraph(session));
  return session->session->Run(options, feeds, fetches, targets, outputs, metadata);
}

EnvironmentOptions DefaultEnvironmentOptions() {
  EnvironmentOptions options;
  {
    std::lock_guard<std::mutex> lock(LibrariesMutex());
    options.plugin_paths = LoadedLibraries();
  }
  options.default_plugin_dir = PluginDir();
  return options;
}

void ApplyPluginOptions(SessionOptions* options) {
  {
    std::lock_guard<std::mutex> lock(LibrariesMutex());
    options->plugin_paths = LoadedLibraries();
  }
  options->default_plugin_dir = PluginDir();
}

}  // namespace c_api
}  // namespace tessera

using tessera::c_api::NullArgument;
using tessera::c_api::SetOk;
using tessera::c_api::SetStatus;

extern "C" {

TF_SessionOptions* TF_NewSessionOptions(void) { return new TF_SessionOptions(); }

void TF_SetTarget(TF_SessionOptions* options, const char* target) {
  if (options != nullptr) options->options.target = target == nullptr ? "" : target;
}

void TF_SetConfig(TF_SessionOptions* options, const void* proto, size_t proto_len,
                  TF_Status* status) {
  if (options == nullptr) return SetStatus(status, NullArgument("TF_SetConfig", "options"));
  tessera::SessionOptions parsed = options->options;
  absl::Status result = tessera::c_api::ParseConfig(proto, proto_len, &parsed);
  if (result.ok()) options->options = std::move(parsed);
  SetStatus(status, result);
}

void TF_DeleteSessionOptions(TF_SessionOptions* options) { delete options; }

TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts, TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_NewSession", "graph")), nullptr;
  tessera::SessionOptions options = opts == nullptr ? tessera::SessionOptions() : opts->options;
  tessera::c_api::ApplyPluginOptions(&options);
  auto session = std::make_unique<TF_Session>();
  session->graph = graph;
  tensorflow::GraphDef def;
  {
    absl::MutexLock lock(&graph->mu);
    def = graph->graph.ToGraphDef();
    session->synced_ops = graph->ops.size();
    session->synced_functions = graph->graph.library.function_size();
    ++graph->num_sessions;
  }
  absl::StatusOr<std::unique_ptr<tessera::Session>> created =
      tessera::Session::Create(options, std::move(def));
  if (!created.ok()) {
    tessera::c_api::DeleteGraphIfLastSession(graph);
    SetStatus(status, created.status());
    return nullptr;
  }
  session->session = *std::move(created);
  SetOk(status);
  return session.release();
}

void TF_CloseSession(TF_Session* session, TF_Status* status) {
  if (session == nullptr) return SetStatus(status, NullArgument("TF_CloseSession", "session"));
  session->closed.store(true);
  SetOk(status);
}

void TF_DeleteSession(TF_Session* session, TF_Status* status) {
  if (session == nullptr) return SetOk(status);
  TF_Graph* graph = session->graph;
  delete session;
  tessera::c_api::DeleteGraphIfLastSession(graph);
  SetOk(status);
}

void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
                   TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets, TF_Buffer* run_metadata,
                   TF_Status* status) {
  SetStatus(status, tessera::c_api::Run(session, run_options, inputs, input_values, ninputs,
                                        outputs, output_values, noutputs, target_opers, ntargets,
                                        run_metadata));
}

TF_DeviceList* TF_SessionListDevices(TF_Session* session, TF_Status* status) {
  if (session == nullptr) {
    return SetStatus(status, NullArgument("TF_SessionListDevices", "session")), nullptr;
  }
  auto* list = new TF_DeviceList();
  for (const std::string& name : session->session->ListDevices()) {
    // "/job:j/replica:0/task:0/device:CPU:0" -> "CPU".
    std::string type;
    const size_t at = name.rfind("/device:");
    if (at != std::string::npos) {
      type = name.substr(at + 8);
      type = type.substr(0, type.find(':'));
    }
    list->names.push_back(name);
    list->types.push_back(type);
  }
  SetOk(status);
  return list;
}

void TF_DeleteDeviceList(TF_DeviceList* list) { delete list; }

int TF_DeviceListCount(const TF_DeviceList* list) {
  return list == nullptr ? -1 : static_cast<int>(list->names.size());
}

namespace {

bool CheckDeviceIndex(const TF_DeviceList* list, int index, const char* function,
                      TF_Status* status) {
  if (list == nullptr) return SetStatus(status, NullArgument(function, "list")), false;
  if (index < 0 || index >= static_cast<int>(list->names.size())) {
    SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                          function, ": index ", index, " is out of range; the list has ",
                          list->names.size(), " devices")));
    return false;
  }
  SetOk(status);
  return true;
}

}  // namespace

const char* TF_DeviceListName(const TF_DeviceList* list, int index, TF_Status* status) {
  if (!CheckDeviceIndex(list, index, "TF_DeviceListName", status)) return nullptr;
  return list->names[index].c_str();
}

const char* TF_DeviceListType(const TF_DeviceList* list, int index, TF_Status* status) {
  if (!CheckDeviceIndex(list, index, "TF_DeviceListType", status)) return nullptr;
  return list->types[index].c_str();
}

int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index, TF_Status* status) {
  if (!CheckDeviceIndex(list, index, "TF_DeviceListMemoryBytes", status)) return -1;
  return 0;
}

uint64_t TF_DeviceListIncarnation(const TF_DeviceList* list, int index, TF_Status* status) {
  if (!CheckDeviceIndex(list, index, "TF_DeviceListIncarnation", status)) return 0;
  return 0;
}

TF_Library* TF_LoadPluggableDeviceLibrary(const char* library_filename, TF_Status* status) {
  if (library_filename == nullptr) {
    return SetStatus(status, NullArgument("TF_LoadPluggableDeviceLibrary", "library_filename")),
           nullptr;
  }
  absl::StatusOr<std::string> manifest = tessera::c_api::ManifestFor(library_filename);
  if (!manifest.ok()) return SetStatus(status, manifest.status()), nullptr;
  tessera::EnvironmentOptions options = tessera::c_api::DefaultEnvironmentOptions();
  options.plugin_paths.push_back(*manifest);
  absl::StatusOr<std::shared_ptr<tessera::Environment>> env = tessera::Environment::Get(options);
  if (!env.ok()) return SetStatus(status, env.status()), nullptr;
  auto library = std::make_unique<TF_Library>();
  library->manifest_path = *manifest;
  std::string plugin_name;
  for (const tessera::PluginRecord& record : (*env)->plugins().records()) {
    if (record.manifest_path != *manifest) continue;
    if (record.state == tessera::PluginState::kRejected) {
      SetStatus(status, absl::FailedPreconditionError(
                            absl::StrCat("plugin '", record.name, "' (", *manifest,
                                         ") was rejected: ", record.reason)));
      return nullptr;
    }
    plugin_name = record.name;
  }
  tensorflow::OpList op_list;
  for (const std::string& op : (*env)->ops().ListOpNames()) {
    const tessera::OpRegistration* registration = (*env)->ops().Find(op);
    if (!plugin_name.empty() &&
        registration->origin == absl::StrCat("plugin '", plugin_name, "'")) {
      *op_list.add_op() = registration->op_def;
    }
  }
  library->op_list = op_list.SerializeAsString();
  {
    std::lock_guard<std::mutex> lock(tessera::c_api::LibrariesMutex());
    std::vector<std::string>& loaded = tessera::c_api::LoadedLibraries();
    if (std::find(loaded.begin(), loaded.end(), *manifest) == loaded.end()) {
      loaded.push_back(*manifest);
    }
  }
  SetOk(status);
  return library.release();
}

void TF_DeletePluggableDeviceLibraryHandle(TF_Library* lib_handle) { delete lib_handle; }

TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status) {
  return TF_LoadPluggableDeviceLibrary(library_filename, status);
}

TF_Buffer TF_GetOpList(TF_Library* lib_handle) {
  if (lib_handle == nullptr) return TF_Buffer{nullptr, 0, nullptr};
  return TF_Buffer{lib_handle->op_list.data(), lib_handle->op_list.size(), nullptr};
}

void TF_DeleteLibraryHandle(TF_Library* lib_handle) { delete lib_handle; }

TF_Buffer* TF_GetAllOpList(void) {
  TF_Graph* graph = TF_NewGraph();
  tensorflow::OpList op_list;
  const tessera::OpRegistry& ops = graph->graph.op_registry();
  for (const std::string& op : ops.ListOpNames()) *op_list.add_op() = ops.Find(op)->op_def;
  TF_DeleteGraph(graph);
  TF_Buffer* buffer = TF_NewBuffer();
  tessera::c_api::SetBuffer(buffer, op_list.SerializeAsString());
  return buffer;
}

TF_Buffer* TESSERA_PluginsJson(TF_Status* status) {
  const tessera::EnvironmentOptions environment = tessera::c_api::DefaultEnvironmentOptions();
  tessera::RegistryOptions options;
  options.plugin_paths = environment.plugin_paths;
  options.default_plugin_dir = environment.default_plugin_dir;
  absl::StatusOr<std::unique_ptr<tessera::PluginRegistry>> registry =
      tessera::PluginRegistry::Create(options);
  if (!registry.ok()) return SetStatus(status, registry.status()), nullptr;
  TF_Buffer* buffer = TF_NewBuffer();
  tessera::c_api::SetBuffer(buffer, (*registry)->FormatJson());
  SetOk(status);
  return buffer;
}

}  // extern "C"
