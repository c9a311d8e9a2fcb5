// How `tessera run` shows fetched tensors: one aligned line per fetch, and file names for them.
#ifndef TESSERA_HOST_TOOLS_TENSOR_SUMMARY_H_
#define TESSERA_HOST_TOOLS_TENSOR_SUMMARY_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace cli {

// "x" -> "x:0"; "x:1" stays.
std::string CanonicalTensorName(absl::string_view name);

// The .npy file name of a fetch: '/' and ':' become '_' ("dense/MatMul:0" ->
// "dense_MatMul_0.npy").
std::string OutputFileName(absl::string_view tensor_name);

// The numpy name of the type ("float32"), or Tessera's for types numpy lacks ("bfloat16").
std::string TypeName(DataType dtype);

// The first `max_values` values, space separated, then "... (N values)" when there are more.
// For rank 2 and above, rows (of the last dimension) are separated by " | " and only whole rows
// are shown when at least one fits. Floating-point values have 4 decimals without trailing zeros,
// or 4 significant digits with an exponent when the largest shown value is >= 1e5 or < 1e-3.
std::string FormatValues(const Tensor& tensor, int max_values);

// One line per tensor: "name  type  [shape]  values", columns aligned across the lines. Names are
// tensor names, shown canonical ("y" as "y:0"), unless `tensor_names` is false (a signature's
// output keys, shown as given).
std::string FormatFetches(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, int max_values = 10,
                          bool tensor_names = true);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_TENSOR_SUMMARY_H_
