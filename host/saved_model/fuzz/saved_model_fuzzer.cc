// Fuzz target: bytes parsed as a SavedModel (binary, else text format skipping unknown fields, as
// ReadSavedModel reads saved_model.pb and .pbtxt), then the loader's checks: the MetaGraph by
// tags, the init op, the assets and every signature against its graph. Any input must give a status, never a crash, hang
// or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "host/graph/graph.h"
#include "host/saved_model/saved_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::SavedModel model;
  google::protobuf::io::CodedInputStream stream(data, static_cast<int>(size));
  if (!model.ParseFromCodedStream(&stream)) {
    model.Clear();
    google::protobuf::TextFormat::Parser parser;
    parser.AllowUnknownField(true);
    parser.SetRecursionLimit(tessera::kMaxGraphDefNesting);
    class Quiet : public google::protobuf::io::ErrorCollector {
     public:
      void AddError(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
      void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
    } quiet;
    parser.RecordErrorsTo(&quiet);
    if (!parser.ParseFromString(std::string(reinterpret_cast<const char*>(data), size), &model)) {
      return 0;
    }
  }
  for (const std::vector<std::string>& tags :
       {std::vector<std::string>{"serve"}, std::vector<std::string>{"serve", "gpu"}}) {
    absl::StatusOr<const tensorflow::MetaGraphDef*> found = tessera::FindMetaGraph(model, tags);
    (void)found;
  }
  for (const tensorflow::MetaGraphDef& meta_graph : model.meta_graphs()) {
    absl::StatusOr<std::string> init_op = tessera::InitOpName(meta_graph);
    absl::StatusOr<std::vector<tensorflow::AssetFileDef>> assets =
        tessera::AssetFileDefs(meta_graph);
    (void)init_op;
    (void)assets;
    for (const auto& [key, signature] : meta_graph.signature_def()) {
      absl::Status valid = tessera::ValidateSignature(key, signature, meta_graph.graph_def());
      (void)valid;
    }
  }
  return 0;
}
