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
// INVALID_ARGUMENT for a TensorInfo without a name (composite tensors are not supported).
absl::Status ValidateSignature(const std::string& key, const tensorflow::SignatureDef& signature,
                               const tensorflow::GraphDef& graph);

// Runs the saver's restore op with its filename tensor fed `prefix` (plus `extra_feeds`).
// FAILED_PRECONDITION when the SaverDef names no restore op or filename tensor; the step's error
// otherwise (NOT_FOUND for a missing checkpoint or key), prefixed with what was restored.
absl::Status RestoreWithSaverDef(Session* session, const tensorflow::SaverDef& saver,
                                 const std::string& prefix,
                                 std::vector<std::pair<std::string, Tensor>> extra_feeds = {},
                                 const RunOptions& run_options = RunOptions());

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
//  4. runs the init op: TensorFlow 2's __saved_model_init_op signature, else the
//     saved_model_main_op collection, else legacy_init_op;
// feeding each asset's tensor (asset_file_def, or the saved_model_assets collection of older
// exports) the path DIR/assets/FILENAME, which must exist (NOT_FOUND otherwise), in steps 3 and 4.
// Errors name the folder.
absl::StatusOr<SavedModelBundle> LoadSavedModel(
    const SessionOptions& options, const std::string& dir,
    const SavedModelLoadOptions& load = SavedModelLoadOptions());

// Runs signature `key` of `bundle`: `inputs` by the signature's input keys, outputs returned by
// its output keys (all of them). INVALID_ARGUMENT for an unknown key or input, a missing input
// (naming the inputs it expects) or an input of the wrong dtype; sparse outputs are not
// supported (UNIMPLEMENTED).
absl::StatusOr<std::map<std::string, Tensor>> RunSignature(
    const SavedModelBundle& bundle, const std::string& key,
    const std::map<std::string, Tensor>& inputs, const RunOptions& options = RunOptions(),
    RunMetadata* metadata = nullptr);

}  // namespace tessera

#endif  // TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_H_
