// Tensor names ("node", "node:k", "^node") and node-name validity.
#ifndef TESSERA_HOST_GRAPH_TENSOR_ID_H_
#define TESSERA_HOST_GRAPH_TENSOR_ID_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The output slot of a control edge (and the index of a "^node" tensor name).
inline constexpr int kControlSlot = -1;

// One output of a node ("node:k"), or a control dependency on it (index kControlSlot).
struct TensorId {
  std::string node;
  int index = 0;

  bool IsControl() const { return index == kControlSlot; }
  // "node" for output 0, "node:k", "^node" for control.
  std::string ToString() const;
  bool operator==(const TensorId& other) const {
    return node == other.node && index == other.index;
  }
};

// Parses "node" (output 0), "node:k" (k decimal) and "^node" (control). INVALID_ARGUMENT for an
// empty name or node, a non-numeric or out-of-range index, or an index on a control input.
absl::StatusOr<TensorId> ParseTensorName(absl::string_view name);

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_>./-]*.
bool IsValidNodeName(absl::string_view name);

}  // namespace tessera

#endif  // TESSERA_HOST_GRAPH_TENSOR_ID_H_
