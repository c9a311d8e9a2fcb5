// Tensor names ("node", "node:k", "^node") and node-name validity.
#include "host/graph/tensor_id.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

absl::Status Malformed(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("tensor name '", name, "' is malformed: ", why,
                                                 " (expected 'node', 'node:k' or '^node')"));
}

}  // namespace

std::string TensorId::ToString() const {
  if (index == kControlSlot) return absl::StrCat("^", node);
  if (index == 0) return node;
  return absl::StrCat(node, ":", index);
}

absl::StatusOr<TensorId> ParseTensorName(absl::string_view name) {
  if (name.empty()) return Malformed(name, "it is empty");
  TensorId id;
  if (name[0] == '^') {
    absl::string_view node = name.substr(1);
    if (node.empty()) return Malformed(name, "the node name is empty");
    if (node.find(':') != absl::string_view::npos) {
      return Malformed(name, "a control input has no output index");
    }
    id.node = std::string(node);
    id.index = kControlSlot;
    return id;
  }
  const size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) {
    id.node = std::string(name);
    return id;
  }
  absl::string_view node = name.substr(0, colon);
  absl::string_view index = name.substr(colon + 1);
  if (node.empty()) return Malformed(name, "the node name is empty");
  if (index.empty()) return Malformed(name, "the output index is empty");
  for (char c : index) {
    if (!absl::ascii_isdigit(c)) return Malformed(name, "the output index is not a number");
  }
  int value;
  if (!absl::SimpleAtoi(index, &value)) {
    return Malformed(name, "the output index is out of range");
  }
  id.node = std::string(node);
  id.index = value;
  return id;
}

bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  if (!absl::ascii_isalnum(name[0]) && name[0] != '.') return false;
  for (char c : name.substr(1)) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '>' && c != '.' && c != '/' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace tessera
