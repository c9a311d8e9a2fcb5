// `tessera show`: SavedModels and MetaGraphDefs described from their protos.
#include "host/tools/show_command.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/types.h"
#include "host/saved_model/saved_model.h"

namespace tessera {
namespace cli {
namespace {

absl::Status Fail(const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("tessera show: ", status.message()));
}

std::string DtypeName(tensorflow::DataType dtype) {
  if (dtype == tensorflow::DT_INVALID) return "?";
  return DataTypeString(static_cast<DataType>(dtype));
}

std::string ShapeName(const tensorflow::TensorShapeProto& shape) {
  absl::StatusOr<PartialShape> parsed = PartialShape::FromProto(shape);
  return parsed.ok() ? parsed->ToString() : "<invalid shape>";
}

// "float [?,2] x:0", or for a sparse tensor its three tensors.
std::string DescribeTensor(const tensorflow::TensorInfo& info) {
  const std::string type = absl::StrCat(DtypeName(info.dtype()), " ", ShapeName(info.tensor_shape()));
  switch (info.encoding_case()) {
    case tensorflow::TensorInfo::kName:
      return absl::StrCat(type, " ", info.name());
    case tensorflow::TensorInfo::kCooSparse:
      return absl::StrCat("sparse ", type, " (values ", info.coo_sparse().values_tensor_name(),
                          ", indices ", info.coo_sparse().indices_tensor_name(), ", dense_shape ",
                          info.coo_sparse().dense_shape_tensor_name(), ")");
    default:
      return absl::StrCat(type, " (a composite tensor; Tessera cannot feed or fetch it)");
  }
}

template <typename Map>
std::vector<std::string> SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

void DescribeSignature(const std::string& key, const tensorflow::SignatureDef& signature,
                       std::ostream& out) {
  out << "  signature '" << key << "'";
  if (!signature.method_name().empty()) out << " (" << signature.method_name() << ")";
  out << ":\n";
  for (const std::string& name : SortedKeys(signature.inputs())) {
    out << "    input  '" << name << "': " << DescribeTensor(signature.inputs().at(name));
    if (signature.defaults().count(name) != 0) out << " (has a default)";
    out << "\n";
  }
  for (const std::string& name : SortedKeys(signature.outputs())) {
    out << "    output '" << name << "': " << DescribeTensor(signature.outputs().at(name)) << "\n";
  }
}

std::string TagSet(const tensorflow::MetaGraphDef& meta_graph) {
  const auto& tags = meta_graph.meta_info_def().tags();
  std::set<std::string> sorted(tags.begin(), tags.end());
  return absl::StrCat("{ ", absl::StrJoin(sorted, ", "), " }");
}

std::string CollectionSummary(const std::string& name, const tensorflow::CollectionDef& collection) {
  switch (collection.kind_case()) {
    case tensorflow::CollectionDef::kNodeList:
      return absl::StrCat(name, ": ", absl::StrJoin(collection.node_list().value(), ", "));
    case tensorflow::CollectionDef::kBytesList:
      return absl::StrCat(name, ": ", collection.bytes_list().value_size(), " serialized protos");
    case tensorflow::CollectionDef::kInt64List:
      return absl::StrCat(name, ": ", absl::StrJoin(collection.int64_list().value(), ", "));
    case tensorflow::CollectionDef::kFloatList:
      return absl::StrCat(name, ": ", absl::StrJoin(collection.float_list().value(), ", "));
    case tensorflow::CollectionDef::kAnyList:
      return absl::StrCat(name, ": ", collection.any_list().value_size(), " protos");
    default:
      return absl::StrCat(name, ": empty");
  }
}

// One MetaGraph: its tags and versions, saver, init op, assets, collections (when asked), and its
// signatures (only `signature_key` unless empty: NOT_FOUND when it has no such signature).
absl::Status DescribeMetaGraph(const tensorflow::MetaGraphDef& meta_graph,
                               const std::string& signature_key, bool collections,
                               std::ostream& out) {
  std::map<std::string, tensorflow::SignatureDef> signatures;
  for (const auto& [key, signature] : meta_graph.signature_def()) {
    if (key != kSavedModelInitOpSignatureKey) signatures.emplace(key, signature);
  }
  if (!signature_key.empty() && signatures.count(signature_key) == 0) {
    return absl::NotFoundError(absl::StrCat("the MetaGraph ", TagSet(meta_graph),
                                            " has no signature '", signature_key,
                                            "'; its signatures: ",
                                            absl::StrJoin(SortedKeys(signatures), ", ")));
  }
  out << "MetaGraph " << TagSet(meta_graph);
  const std::string& version = meta_graph.meta_info_def().tensorflow_version();
  if (!version.empty()) out << " (TensorFlow " << version << ")";
  out << ": " << meta_graph.graph_def().node_size() << " nodes, "
      << meta_graph.graph_def().library().function_size() << " functions\n";
  if (meta_graph.has_saver_def()) {
    out << "  saver: restore op " << meta_graph.saver_def().restore_op_name()
        << ", filename tensor " << meta_graph.saver_def().filename_tensor_name() << "\n";
  }
  auto init = meta_graph.signature_def().find(kSavedModelInitOpSignatureKey);
  if (init != meta_graph.signature_def().end()) {
    for (const auto& [key, info] : init->second.outputs()) out << "  init op: " << info.name() << "\n";
  }
  for (const char* collection : {"saved_model_main_op", "legacy_init_op"}) {
    auto it = meta_graph.collection_def().find(collection);
    if (it == meta_graph.collection_def().end()) continue;
    out << "  init op: " << absl::StrJoin(it->second.node_list().value(), ", ") << " ("
        << collection << ")\n";
  }
  for (const tensorflow::AssetFileDef& asset : meta_graph.asset_file_def()) {
    out << "  asset: " << asset.filename() << " -> " << asset.tensor_info().name() << "\n";
  }
  int variables = 0;
  for (const tensorflow::SavedObject& object : meta_graph.object_graph_def().nodes()) {
    if (object.kind_case() == tensorflow::SavedObject::kVariable) ++variables;
  }
  if (variables > 0) out << "  object graph: " << variables << " variables\n";
  if (collections) {
    for (const std::string& name : SortedKeys(meta_graph.collection_def())) {
      out << "  collection " << CollectionSummary(name, meta_graph.collection_def().at(name))
          << "\n";
    }
  }
  for (const auto& [key, signature] : signatures) {
    if (signature_key.empty() || key == signature_key) DescribeSignature(key, signature, out);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ShowCommand(const ShowArgs& args, std::ostream& out) {
  if (!args.meta_graph_path.empty()) {
    absl::StatusOr<tensorflow::MetaGraphDef> meta_graph =
        ReadMetaGraphDefFile(args.meta_graph_path);
    if (!meta_graph.ok()) return Fail(meta_graph.status());
    out << "MetaGraphDef " << args.meta_graph_path << "\n";
    absl::Status status =
        DescribeMetaGraph(*meta_graph, args.signature_key, /*collections=*/true, out);
    return status.ok() ? status : Fail(status);
  }
  absl::StatusOr<tensorflow::SavedModel> model = ReadSavedModel(args.saved_model_dir);
  if (!model.ok()) return Fail(model.status());
  std::vector<std::string> tags = args.tags;
  if (tags.empty() && !args.signature_key.empty()) tags = {kSavedModelTagServe};
  if (!tags.empty()) {
    absl::StatusOr<const tensorflow::MetaGraphDef*> meta_graph = FindMetaGraph(*model, tags);
    if (!meta_graph.ok()) return Fail(meta_graph.status());
    out << "SavedModel " << args.saved_model_dir << "\n";
    absl::Status status =
        DescribeMetaGraph(**meta_graph, args.signature_key, /*collections=*/false, out);
    return status.ok() ? status : Fail(status);
  }
  const int count = model->meta_graphs_size();
  out << "SavedModel " << args.saved_model_dir << ": " << count
      << (count == 1 ? " MetaGraph" : " MetaGraphs") << "\n";
  for (const tensorflow::MetaGraphDef& meta_graph : model->meta_graphs()) {
    RETURN_IF_ERROR(Fail(DescribeMetaGraph(meta_graph, "", /*collections=*/false, out)));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
