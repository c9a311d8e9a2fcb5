// Reading and writing GraphDef files in binary (.pb) and text (.pbtxt) format.
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

enum class Format { kBinary, kText, kUnknown };

Format FormatFromPath(absl::string_view path) {
  if (absl::EndsWith(path, ".pb")) return Format::kBinary;
  if (absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt") ||
      absl::EndsWith(path, ".pbtext")) {
    return Format::kText;
  }
  return Format::kUnknown;
}

absl::Status ErrnoStatus(int error, absl::string_view what) {
  const std::string message = absl::StrCat(what, ": ", std::strerror(error));
  if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

// Collects the first text-format error with its 1-based line and column.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// How a file's messages name it: "graph file 'model.pb'" and "GraphDef".
struct FileKind {
  absl::string_view noun;
  absl::string_view type_name;
  bool allow_unknown_text_fields = false;
};

absl::Status ParseBinary(const std::string& bytes, const std::string& path, const FileKind& kind,
                         google::protobuf::Message* def) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!def->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(absl::StrCat(kind.noun, " '", path,
                                                   "' is not a valid binary ", kind.type_name,
                                                   " (", bytes.size(), " bytes)"));
  }
  return absl::OkStatus();
}

absl::Status ParseText(const std::string& text, const std::string& path, const FileKind& kind,
                       google::protobuf::Message* def) {
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(kind.allow_unknown_text_fields);
  // protobuf's text parser recurses once per nested message with no limit of its own: a file
  // nested a few thousand levels deep would overflow the stack. The binary parser's limit.
  parser.SetRecursionLimit(kMaxGraphDefNesting);
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, def)) {
    return absl::InvalidArgumentError(absl::StrCat(kind.noun, " '", path, "' is not a valid text ",
                                                   kind.type_name, ": ", errors.error()));
  }
  return absl::OkStatus();
}

absl::Status ReadFile(const std::string& path, const FileKind& kind,
                      google::protobuf::Message* def) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return ErrnoStatus(errno, absl::StrCat("cannot open ", kind.noun, " '", path, "'"));
  const std::streamoff size = file.tellg();
  if (size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind.noun, " '", path, "' is not a regular file"));
  }
  if (size > static_cast<std::streamoff>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat(kind.noun, " '", path, "' has ", size,
                                                   " bytes, above the 2 GiB protobuf limit"));
  }
  // Read straight into one buffer: graphs with embedded weights approach the 2 GiB limit.
  std::string bytes(static_cast<size_t>(size), '\0');
  file.seekg(0);
  if (!file.read(bytes.data(), size)) {
    return ErrnoStatus(errno, absl::StrCat("cannot read ", kind.noun, " '", path, "'"));
  }
  switch (FormatFromPath(path)) {
    case Format::kBinary:
      return ParseBinary(bytes, path, kind, def);
    case Format::kText:
      return ParseText(bytes, path, kind, def);
    case Format::kUnknown:
      break;
  }
  absl::Status binary = ParseBinary(bytes, path, kind, def);
  if (binary.ok()) return binary;
  def->Clear();
  absl::Status text = ParseText(bytes, path, kind, def);
  if (text.ok()) return text;
  return absl::InvalidArgumentError(absl::StrCat(kind.noun, " '", path,
                                                 "' is neither a binary nor a text ",
                                                 kind.type_name, " (as text: ", text.message(),
                                                 ")"));
}

}  // namespace

absl::StatusOr<tensorflow::GraphDef> ReadGraphDefFile(const std::string& path) {
  tensorflow::GraphDef def;
  RETURN_IF_ERROR(ReadFile(path, {"graph file", "GraphDef"}, &def));
  return def;
}

absl::Status ReadProtoFile(const std::string& path, absl::string_view noun,
                           bool allow_unknown_text_fields, google::protobuf::Message* message) {
  return ReadFile(path, {noun, message->GetDescriptor()->name(), allow_unknown_text_fields},
                  message);
}

absl::Status WriteGraphDefFile(const tensorflow::GraphDef& def, const std::string& path) {
  std::string bytes;
  if (FormatFromPath(path) == Format::kText) {
    if (!google::protobuf::TextFormat::PrintToString(def, &bytes)) {
      return absl::InternalError(absl::StrCat("cannot print the GraphDef for '", path, "'"));
    }
  } else if (!def.SerializeToString(&bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot serialize the GraphDef for '", path,
                                                   "' (", def.ByteSizeLong(),
                                                   " bytes; the limit is 2 GiB)"));
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return ErrnoStatus(errno, absl::StrCat("cannot create graph file '", path, "'"));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return ErrnoStatus(errno, absl::StrCat("cannot write graph file '", path, "'"));
  return absl::OkStatus();
}

}  // namespace tessera
