// The SavedModel and MetaGraphDef loaders (TensorFlow's loader.cc semantics).
#include "host/saved_model/saved_model.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/graph.h"
#include "host/graph/tensor_id.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

constexpr char kMainOpCollection[] = "saved_model_main_op";
constexpr char kLegacyInitOpCollection[] = "legacy_init_op";
constexpr char kAssetsCollection[] = "saved_model_assets";

std::string JoinPath(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

bool IsFile(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

std::string TagSetString(const std::set<std::string>& tags) {
  return absl::StrCat("{ ", absl::StrJoin(tags, ", "), " }");
}

std::set<std::string> TagsOf(const tensorflow::MetaGraphDef& meta_graph) {
  const auto& tags = meta_graph.meta_info_def().tags();
  return std::set<std::string>(tags.begin(), tags.end());
}

// The tensor names of one TensorInfo: one for a dense tensor, three for a sparse one.
absl::StatusOr<std::vector<std::string>> TensorNames(const tensorflow::TensorInfo& info) {
  switch (info.encoding_case()) {
    case tensorflow::TensorInfo::kName:
      return std::vector<std::string>{info.name()};
    case tensorflow::TensorInfo::kCooSparse:
      return std::vector<std::string>{info.coo_sparse().values_tensor_name(),
                                      info.coo_sparse().indices_tensor_name(),
                                      info.coo_sparse().dense_shape_tensor_name()};
    default:
      // A composite tensor (or none): nothing to check; RunSignature refuses it.
      return std::vector<std::string>();
  }
}

absl::Status ValidateTensorInfos(
    const std::string& key, const char* kind,
    const google::protobuf::Map<std::string, tensorflow::TensorInfo>& infos,
    const std::set<std::string>& nodes) {
  std::vector<std::string> keys;
  for (const auto& [name, info] : infos) keys.push_back(name);
  std::sort(keys.begin(), keys.end());
  for (const std::string& name : keys) {
    const std::string where = absl::StrCat("signature '", key, "' ", kind, " '", name, "'");
    absl::StatusOr<std::vector<std::string>> tensors = TensorNames(infos.at(name));
    if (!tensors.ok()) return WithContext(tensors.status(), where);
    for (const std::string& tensor : *tensors) {
      absl::StatusOr<TensorId> id = ParseTensorName(tensor);
      if (!id.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " names '", tensor, "', which is not a tensor name"));
      }
      if (nodes.count(std::string(id->node)) == 0) {
        return absl::NotFoundError(absl::StrCat(where, " names tensor '", tensor,
                                                "', but the graph has no node '", id->node, "'"));
      }
    }
  }
  return absl::OkStatus();
}

// (tensor name, path) of each asset, which must exist.
absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> AssetFeeds(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& dir) {
  ASSIGN_OR_RETURN(std::vector<tensorflow::AssetFileDef> assets, AssetFileDefs(meta_graph));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const tensorflow::AssetFileDef& asset : assets) {
    const std::string path = JoinPath(JoinPath(dir, "assets"), asset.filename());
    if (!IsFile(path)) {
      return absl::NotFoundError(absl::StrCat("asset file '", path, "' (fed to '",
                                              asset.tensor_info().name(), "') does not exist"));
    }
    feeds.emplace_back(asset.tensor_info().name(), Tensor::Strings(TensorShape{}, {path}));
  }
  return feeds;
}

}  // namespace

absl::StatusOr<std::vector<tensorflow::AssetFileDef>> AssetFileDefs(
    const tensorflow::MetaGraphDef& meta_graph) {
  std::vector<tensorflow::AssetFileDef> assets(meta_graph.asset_file_def().begin(),
                                               meta_graph.asset_file_def().end());
  if (assets.empty()) {
    auto it = meta_graph.collection_def().find(kAssetsCollection);
    if (it != meta_graph.collection_def().end()) {
      for (const google::protobuf::Any& any : it->second.any_list().value()) {
        tensorflow::AssetFileDef asset;
        if (!any.UnpackTo(&asset)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "collection '", kAssetsCollection, "' holds a '", any.type_url(),
              "' that is not an AssetFileDef"));
        }
        assets.push_back(std::move(asset));
      }
    }
  }
  for (size_t i = 0; i < assets.size(); ++i) {
    const tensorflow::AssetFileDef& asset = assets[i];
    if (asset.tensor_info().name().empty() || asset.filename().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("asset ", i, " names no tensor or no file"));
    }
    // A name inside assets/: an absolute path or a ".." would reach outside the export.
    const fs::path name(asset.filename());
    bool escapes = name.is_absolute();
    for (const fs::path& part : name) escapes = escapes || part == "..";
    if (escapes) {
      return absl::InvalidArgumentError(absl::StrCat("asset ", i, " file '", asset.filename(),
                                                     "' is not a name inside assets/"));
    }
  }
  return assets;
}

absl::StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& meta_graph) {
  auto signature = meta_graph.signature_def().find(kSavedModelInitOpSignatureKey);
  if (signature != meta_graph.signature_def().end()) {
    auto output = signature->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (output == signature->second.outputs().end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "signature '", kSavedModelInitOpSignatureKey, "' has no output '",
          kSavedModelInitOpSignatureKey, "'"));
    }
    // An init op signature naming no node: nothing to run (TensorFlow's rule).
    if (output->second.name().empty()) return std::string();
    ASSIGN_OR_RETURN(TensorId id, ParseTensorName(output->second.name()));
    return std::string(id.node);
  }
  for (const char* collection : {kMainOpCollection, kLegacyInitOpCollection}) {
    auto it = meta_graph.collection_def().find(collection);
    if (it == meta_graph.collection_def().end()) continue;
    const auto& nodes = it->second.node_list().value();
    if (nodes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("collection '", collection,
                                                     "' must name exactly one node, it names ",
                                                     nodes.size()));
    }
    ASSIGN_OR_RETURN(TensorId id, ParseTensorName(nodes[0]));
    return std::string(id.node);
  }
  return std::string();
}

absl::StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return absl::NotFoundError(absl::StrCat("SavedModel folder '", dir, "' does not exist"));
  }
  tensorflow::SavedModel model;
  const std::string binary = JoinPath(dir, "saved_model.pb");
  const std::string text = JoinPath(dir, "saved_model.pbtxt");
  if (IsFile(binary)) {
    RETURN_IF_ERROR(ReadProtoFile(binary, "SavedModel file", false, &model));
  } else if (IsFile(text)) {
    // TensorFlow writes fields Tessera does not declare (the object graph's function specs):
    // text format skips them as binary parsing does.
    RETURN_IF_ERROR(ReadProtoFile(text, "SavedModel file", true, &model));
  } else {
    return absl::NotFoundError(absl::StrCat("SavedModel folder '", dir,
                                            "' has no saved_model.pb or saved_model.pbtxt"));
  }
  if (model.meta_graphs().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("SavedModel in '", dir, "' has no MetaGraph"));
  }
  return model;
}

absl::StatusOr<const tensorflow::MetaGraphDef*> FindMetaGraph(
    const tensorflow::SavedModel& model, const std::vector<std::string>& tags) {
  const std::set<std::string> wanted(tags.begin(), tags.end());
  std::vector<std::string> available;
  for (const tensorflow::MetaGraphDef& meta_graph : model.meta_graphs()) {
    const std::set<std::string> have = TagsOf(meta_graph);
    if (have == wanted) return &meta_graph;
    available.push_back(TagSetString(have));
  }
  return absl::NotFoundError(absl::StrCat("no MetaGraph has the tag-set ", TagSetString(wanted),
                                          "; the SavedModel's tag-sets are ",
                                          absl::StrJoin(available, ", ")));
}

absl::StatusOr<tensorflow::MetaGraphDef> ReadMetaGraphDefFile(const std::string& path) {
  tensorflow::MetaGraphDef meta_graph;
  RETURN_IF_ERROR(ReadProtoFile(path, "meta graph file", true, &meta_graph));
  return meta_graph;
}

absl::Status ValidateSignature(const std::string& key, const tensorflow::SignatureDef& signature,
                               const tensorflow::GraphDef& graph) {
  std::set<std::string> nodes;
  for (const tensorflow::NodeDef& node : graph.node()) nodes.insert(node.name());
  RETURN_IF_ERROR(ValidateTensorInfos(key, "input", signature.inputs(), nodes));
  return ValidateTensorInfos(key, "output", signature.outputs(), nodes);
}

absl::Status RestoreWithSaverDef(Session* session, const tensorflow::SaverDef& saver,
                                 const std::string& prefix,
                                 std::vector<std::pair<std::string, Tensor>> extra_feeds,
                                 const RunOptions& run_options) {
  if (saver.restore_op_name().empty() || saver.filename_tensor_name().empty()) {
    return absl::FailedPreconditionError(
        "the SaverDef names no restore op or no filename tensor");
  }
  extra_feeds.emplace_back(saver.filename_tensor_name(), Tensor::Strings(TensorShape{}, {prefix}));
  std::vector<Tensor> outputs;
  return WithContext(
      session->Run(run_options, extra_feeds, {}, {saver.restore_op_name()}, &outputs),
                     absl::StrCat("restoring the variables from '", prefix, "' (",
                                  saver.restore_op_name(), ")"));
}

absl::StatusOr<std::unique_ptr<Session>> LoadMetaGraph(const SessionOptions& options,
                                                       tensorflow::MetaGraphDef meta_graph,
                                                       const std::string& checkpoint_prefix) {
  if (!checkpoint_prefix.empty() && !meta_graph.has_saver_def()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot restore checkpoint '", checkpoint_prefix, "': the MetaGraph has no saver_def"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                   Session::Create(options, std::move(*meta_graph.mutable_graph_def())));
  if (!checkpoint_prefix.empty()) {
    RETURN_IF_ERROR(
        RestoreWithSaverDef(session.get(), meta_graph.saver_def(), checkpoint_prefix));
  }
  return session;
}

absl::StatusOr<SavedModelBundle> LoadSavedModel(const SessionOptions& options,
                                                const std::string& dir,
                                                const SavedModelLoadOptions& load) {
  const std::string context = absl::StrCat("SavedModel '", dir, "'");
  absl::StatusOr<tensorflow::SavedModel> model = ReadSavedModel(dir);
  if (!model.ok()) return model.status();
  absl::StatusOr<const tensorflow::MetaGraphDef*> found = FindMetaGraph(*model, load.tags);
  if (!found.ok()) {
    return WithContext(found.status(), absl::StrCat(context, " (see tessera show --saved-model)"));
  }
  SavedModelBundle bundle;
  bundle.export_dir = dir;
  for (tensorflow::MetaGraphDef& meta_graph : *model->mutable_meta_graphs()) {
    if (&meta_graph == *found) bundle.meta_graph = std::move(meta_graph);
  }
  tensorflow::MetaGraphDef& meta_graph = bundle.meta_graph;
  for (const auto& [key, signature] : meta_graph.signature_def()) {
    // The init op's signature names a node to run, not tensors (InitOpName reads it).
    if (key == kSavedModelInitOpSignatureKey) continue;
    RETURN_IF_ERROR(WithContext(ValidateSignature(key, signature, meta_graph.graph_def()), context));
    bundle.signatures.emplace(key, signature);
  }
  absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> assets = AssetFeeds(meta_graph, dir);
  if (!assets.ok()) return WithContext(assets.status(), context);
  absl::StatusOr<std::string> init_op = InitOpName(meta_graph);
  if (!init_op.ok()) return WithContext(init_op.status(), context);

  absl::StatusOr<std::unique_ptr<Session>> session =
      load.keep_graph_def ? Session::Create(options, meta_graph.graph_def())
                          : Session::Create(options, std::move(*meta_graph.mutable_graph_def()));
  if (!load.keep_graph_def) meta_graph.clear_graph_def();
  if (!session.ok()) return WithContext(session.status(), context);
  bundle.session = *std::move(session);

  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  if (meta_graph.has_saver_def() && !saver.restore_op_name().empty()) {
    const std::string prefix = JoinPath(JoinPath(dir, "variables"), "variables");
    if (!IsFile(prefix + ".index")) {
      return absl::NotFoundError(absl::StrCat(context, " has a saver (restore op '",
                                              saver.restore_op_name(),
                                              "') but no variables: '", prefix,
                                              ".index' does not exist"));
    }
    RETURN_IF_ERROR(
        WithContext(RestoreWithSaverDef(bundle.session.get(), saver, prefix, *assets,
                                        load.run_options),
                    context));
  }
  if (!init_op->empty()) {
    std::vector<Tensor> outputs;
    RETURN_IF_ERROR(WithContext(
        bundle.session->Run(load.run_options, *assets, {}, {*init_op}, &outputs),
                                absl::StrCat(context, ": running the init op '", *init_op, "'")));
  }
  return bundle;
}

absl::StatusOr<std::map<std::string, Tensor>> RunSignature(
    const SavedModelBundle& bundle, const std::string& key,
    const std::map<std::string, Tensor>& inputs, const RunOptions& options,
    RunMetadata* metadata) {
  auto found = bundle.signatures.find(key);
  if (found == bundle.signatures.end()) {
    std::vector<std::string> keys;
    for (const auto& [name, signature] : bundle.signatures) keys.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat("the SavedModel has no signature '", key,
                                                   "'; its signatures: ",
                                                   absl::StrJoin(keys, ", ")));
  }
  const tensorflow::SignatureDef& signature = found->second;
  std::vector<std::string> expected;
  for (const auto& [name, info] : signature.inputs()) expected.push_back(name);
  std::sort(expected.begin(), expected.end());
  const std::string where = absl::StrCat("signature '", key, "'");
  for (const auto& [name, tensor] : inputs) {
    auto info = signature.inputs().find(name);
    if (info == signature.inputs().end()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " has no input '", name,
                                                     "'; its inputs: ",
                                                     absl::StrJoin(expected, ", ")));
    }
    const auto dtype = static_cast<DataType>(info->second.dtype());
    if (dtype != TSR_DTYPE_INVALID && tensor.dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " input '", name, "' is ", DataTypeString(dtype), ", got a ",
          DataTypeString(tensor.dtype()), " tensor"));
    }
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const std::string& name : expected) {
    const tensorflow::TensorInfo& info = signature.inputs().at(name);
    if (info.encoding_case() != tensorflow::TensorInfo::kName) {
      return absl::UnimplementedError(
          absl::StrCat(where, " input '", name, "' is not a dense tensor"));
    }
    auto given = inputs.find(name);
    if (given != inputs.end()) {
      feeds.emplace_back(info.name(), given->second);
      continue;
    }
    auto fallback = signature.defaults().find(name);
    if (fallback == signature.defaults().end()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " needs input '", name,
                                                     "'; its inputs: ",
                                                     absl::StrJoin(expected, ", ")));
    }
    ASSIGN_OR_RETURN(Tensor value, TensorFromProto(fallback->second));
    feeds.emplace_back(info.name(), std::move(value));
  }
  std::vector<std::string> output_keys;
  std::vector<std::string> fetches;
  for (const auto& [name, info] : signature.outputs()) output_keys.push_back(name);
  std::sort(output_keys.begin(), output_keys.end());
  for (const std::string& name : output_keys) {
    const tensorflow::TensorInfo& info = signature.outputs().at(name);
    if (info.encoding_case() != tensorflow::TensorInfo::kName) {
      return absl::UnimplementedError(
          absl::StrCat(where, " output '", name, "' is not a dense tensor"));
    }
    fetches.push_back(info.name());
  }
  std::vector<Tensor> outputs;
  RETURN_IF_ERROR(
      WithContext(bundle.session->Run(options, feeds, fetches, {}, &outputs, metadata), where));
  std::map<std::string, Tensor> result;
  for (size_t i = 0; i < output_keys.size(); ++i) result.emplace(output_keys[i], outputs[i]);
  return result;
}

}  // namespace tessera
