// The host's kernels of TensorFlow's string ops that checkpoints and SavedModels name their files
// with (StringJoin, ShardedFilename, ShardedFilespec, StaticRegexFullMatch), and of Select and
// Pack of strings (a Saver's sharded save path picks and stacks file names with them). Strings
// live in host memory only, so these run on every device type with every input and output in
// host memory.
#ifndef TESSERA_HOST_KERNELS_STRING_OP_KERNELS_H_
#define TESSERA_HOST_KERNELS_STRING_OP_KERNELS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/kernels/op_kernel.h"

namespace tessera {

class Node;

// StringJoin, ShardedFilename, ShardedFilespec and StaticRegexFullMatch.
bool IsStringOp(absl::string_view op);

// Ops whose kernel the host has for strings only, named by their type attr: "T" for Select and
// Pack, nullptr for every other op.
const char* StringOnlyKernelTypeAttr(absl::string_view op);

// True for a node of IsStringOp, and for Select or Pack whose T is string.
bool IsStringOpNode(const Node& node);

// The kernel of an IsStringOpNode node. INVALID_ARGUMENT for a StaticRegexFullMatch pattern
// that does not compile, naming the node and RE2's error.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateStringOpKernel(const Node& node);

}  // namespace tessera

#endif  // TESSERA_HOST_KERNELS_STRING_OP_KERNELS_H_
