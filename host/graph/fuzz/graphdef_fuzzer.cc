// Fuzz target: bytes parsed as a GraphDef (binary, else text format), then imported with the
// standard ops. Any input must give a status, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "host/graph/graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tessera::OpRegistry* ops = tessera::OpRegistry::CreateStandard().release();
  tensorflow::GraphDef def;
  google::protobuf::io::CodedInputStream stream(data, static_cast<int>(size));
  if (!def.ParseFromCodedStream(&stream)) {
    def.Clear();
    google::protobuf::TextFormat::Parser parser;
    parser.AllowPartialMessage(false);
    parser.SetRecursionLimit(tessera::kMaxGraphDefNesting);
    // Silence the text parser's log: most fuzz inputs are not text format.
    class Quiet : public google::protobuf::io::ErrorCollector {
     public:
      void AddError(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
    } quiet;
    parser.RecordErrorsTo(&quiet);
    if (!parser.ParseFromString(std::string(reinterpret_cast<const char*>(data), size), &def)) {
      return 0;
    }
  }
  absl::StatusOr<std::unique_ptr<tessera::Graph>> graph = tessera::ImportGraphDef(def, *ops);
  if (graph.ok()) {
    // Exercise export and cloning of whatever was accepted.
    tensorflow::GraphDef exported = (*graph)->ToGraphDef();
    std::unique_ptr<tessera::Graph> copy = (*graph)->Clone();
    (void)exported;
    (void)copy;
  }
  return 0;
}
