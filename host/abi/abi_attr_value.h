// Conversion of a node's attribute (tensorflow::AttrValue) into the ABI's borrowed TSR_AttrValue.
#ifndef TESSERA_HOST_ABI_ABI_ATTR_VALUE_H_
#define TESSERA_HOST_ABI_ABI_ATTR_VALUE_H_

#include "absl/status/status.h"
#include "host/abi/host_kernel_context.h"
#include "host/framework/proto/attr_value.pb.h"
#include "tessera/plugin_api/op.h"

namespace tessera {

// Fills `out` from `value`. Pointers in `out` borrow from `value` and from `scratch`, which must
// outlive every use of `out`.
absl::Status FillAbiAttrValue(const tensorflow::AttrValue& value, AttrScratch* scratch,
                              TSR_AttrValue* out);

}  // namespace tessera

#endif  // TESSERA_HOST_ABI_ABI_ATTR_VALUE_H_
