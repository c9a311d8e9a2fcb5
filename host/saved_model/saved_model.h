// Loading what TensorFlow exports: MetaGraphDefs (`.meta` files, with a checkpoint restored
// through their SaverDef) and SavedModel folders (saved_model.pb or .pbtxt, variables/, assets/),
// TensorFlow 1 and 2 alike, as TensorFlow's C++ loader does: the MetaGraph chosen by its tags, the
// variables restored by running the saver's restore op on variables/variables, the assets' paths
// fed, the init op run, and the signatures kept for running by their input and output keys.
#ifndef TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_H_
#define TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host/framework/proto/meta_graph.pb.h"
#include "host/framework/proto/saved_model.pb.h"
#include "host/runtime/tensor.h"
#include "host/session/session.h"

namespace tessera {

// The tag of the MetaGraph a server loads ("serve"), and the default signature's key.
inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";
// The signature TensorFlow 2 stores its init op under; it is not a model signature.
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";

// Reads DIR/saved_model.pb, or DIR/saved_model.pbtxt when there is no .pb. NOT_FOUND when the
// folder holds neither; INVALID_ARGUMENT naming the file when it does not parse.
absl::StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& dir);

// The MetaGraph whose tags are exactly `tags` (in any order, duplicates ignored). NOT_FOUND
// listing the tag-sets the SavedModel has when none matches.
absl::StatusOr<const tensorflow::MetaGraphDef*> FindMetaGraph(const tensorflow::SavedModel& model,
                                                              const std::vector<std::string>& tags);

// Reads a MetaGraphDef file (`.meta`: binary, or text format; any extension), as
// ReadGraphDefFile reads a GraphDef.
absl::StatusOr<tensorflow::MetaGraphDef> ReadMetaGraphDefFile(const std::string& path);

// Checks that every tensor the signature names (a dense tensor's name, a sparse tensor's three)
// is an output of a node of `graph`: NOT_FOUND naming the signature, the key and the tensor;
// INVALID_ARGUMENT for a name that is not a tensor name. Composite tensors (TensorInfos without
// a name) are not checked: they load, and RunSignature refuses them.
absl::Status ValidateSignature(const std::string& key, const tensorflow::SignatureDef& signature,
                               const tensorflow::GraphDef& graph);

// Runs the saver's restore op with its filename tensor fed `prefix` (plus `extra_feeds`).
// FAILED_PRECONDITION when the SaverDef names no restore op or filename tensor; the step's error
// otherwise (NOT_FOUND for a missing checkpoint or key), prefixed with what was restored.
absl::Status RestoreWithSaverDef(Session* session, const tensorflow::SaverDef& saver,
                                 const std::string& prefix,
                                 std::vector<std::pair<std::string, Tensor>> extra_feeds = {},
                                 const RunOptions& run_options = RunOptions());

// The MetaGraph's assets: asset_file_def, else the saved_model_assets collection older exports
// use. INVALID_ARGUMENT for a collection entry that is not an AssetFileDef, an asset without a
// tensor or a file name, or a file name that is absolute or has a ".." (it must name a file
// inside assets/).
absl::StatusOr<std::vector<tensorflow::AssetFileDef>> AssetFileDefs(
    const tensorflow::MetaGraphDef& meta_graph);

// The init op's node: TensorFlow 2's __saved_model_init_op signature (FAILED_PRECONDITION when
// it lacks its output; "" when that names no node), else the saved_model_main_op collection,
// else legacy_init_op (INVALID_ARGUMENT unless a collection names exactly one node); "" when the
// MetaGraph has none.
absl::StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& meta_graph);

// A session on a MetaGraph, its variables restored from `checkpoint_prefix` (none when empty)
// through the MetaGraph's SaverDef. FAILED_PRECONDITION when a prefix is given and the MetaGraph
// has no SaverDef.
absl::StatusOr<std::unique_ptr<Session>> LoadMetaGraph(const SessionOptions& options,
                                                       tensorflow::MetaGraphDef meta_graph,
                                                       const std::string& checkpoint_prefix);

struct SavedModelLoadOptions {
  // The MetaGraph's tags.
  std::vector<std::string> tags = {kSavedModelTagServe};
  // What the restore and init op steps run with (a deadline).
  RunOptions run_options;
  // Keep the MetaGraph's graph_def in the bundle (for callers that mirror the graph, as the C
  // API's TF_Graph does); otherwise the session takes it and the bundle has none.
  bool keep_graph_def = false;
};

struct SavedModelBundle {
  std::unique_ptr<Session> session;
  // The chosen MetaGraph: tags, saver, collections, signatures, assets, object graph; its
  // graph_def only with SavedModelLoadOptions::keep_graph_def (the session holds the graph).
  tensorflow::MetaGraphDef meta_graph;
  // The model's signatures by key; the init op's signature is left out.
  std::map<std::string, tensorflow::SignatureDef> signatures;
  std::string export_dir;
};

// Loads the SavedModel in `dir` as TensorFlow's LoadSavedModel does:
//  1. reads it and chooses the MetaGraph tagged `load.tags` (ReadSavedModel, FindMetaGraph), checks
//     its signatures (ValidateSignature);
//  2. creates a session on its graph (functions inlined, functional control flow lowered);
//  3. with a SaverDef, restores DIR/variables/variables by running its restore op (TensorFlow 1's
//     saver subgraph, TensorFlow 2's restore function alike): NOT_FOUND when the variables'
//     index file is missing;
//  4. runs the init op (InitOpName);
// feeding each asset's tensor (AssetFileDefs) the path DIR/assets/FILENAME, which must exist
// (NOT_FOUND otherwise), in steps 3 and 4.
// Errors name the folder.
absl::StatusOr<SavedModelBundle> LoadSavedModel(
    const SessionOptions& options, const std::string& dir,
    const SavedModelLoadOptions& load = SavedModelLoadOptions());

// Runs signature `key` of `bundle`: `inputs` by the signature's input keys, outputs returned by
// its output keys (all of them). INVALID_ARGUMENT for an unknown key or input, a missing input
// (naming the inputs it expects) or an input of the wrong dtype; UNIMPLEMENTED for a sparse or
// composite input or output. A signature's `defaults` stand in for inputs not given.
absl::StatusOr<std::map<std::string, Tensor>> RunSignature(
    const SavedModelBundle& bundle, const std::string& key,
    const std::map<std::string, Tensor>& inputs, const RunOptions& options = RunOptions(),
    RunMetadata* metadata = nullptr);

}  // namespace tessera

#endif  // TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_H_
