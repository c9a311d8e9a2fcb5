// Checks that an OpDef is well formed (names, attr types and defaults, argument types).
#ifndef TESSERA_HOST_OPS_OP_DEF_UTIL_H_
#define TESSERA_HOST_OPS_OP_DEF_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "host/framework/proto/op_def.pb.h"

namespace tessera {

// True for op names TensorFlow accepts: an optional "_" then [A-Z][A-Za-z0-9_>]*.
bool IsValidOpName(absl::string_view name);

// INVALID_ARGUMENT naming the op and the faulty part: a bad op, arg or attr name, a duplicate
// name, an attr of an unknown type, a default value that does not fit its attr, an argument
// whose type is not given exactly once or that refers to a missing or mistyped attr, a number
// attr without a minimum >= 0, or a reference argument (not supported).
absl::Status ValidateOpDef(const tensorflow::OpDef& op_def);

// The attr definition, or nullptr.
const tensorflow::OpDef::AttrDef* FindAttrDef(const tensorflow::OpDef& op_def,
                                              absl::string_view name);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_OP_DEF_UTIL_H_
