// Reading and writing tensors in numpy's .npy format (versions 1.0, 2.0 and 3.0).
#ifndef TESSERA_HOST_CLIENT_NPY_H_
#define TESSERA_HOST_CLIENT_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/runtime/tensor.h"

namespace tessera {

// Reads a .npy file into a host tensor.
// Errors: NOT_FOUND when the file does not exist, PERMISSION_DENIED when it cannot be opened,
// INVALID_ARGUMENT (naming the file) for anything ParseNpy rejects.
absl::StatusOr<Tensor> ReadNpy(const std::string& path);

// Parses the bytes of a .npy file; `source_name` names them in error messages.
//
// Accepted element types ("descr"): f2 f4 f8 c8 c16 i1 i2 i4 i8 u1 u2 u4 u8 b1 with byte order
// '<', '>' (converted to host order) or '=', and '|' for the single-byte types. Fortran-ordered
// arrays are transposed into Tessera's row-major layout. Everything else (bad magic, unknown
// version, truncated header or data, malformed header dict, structured or object arrays, a data
// size that does not match the shape) is INVALID_ARGUMENT. Never crashes on any input.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source_name);

// The .npy bytes of a host tensor: version 1.0 (2.0 when the header needs it), little-endian,
// C order, header padded to 64 bytes as numpy writes it. INVALID_ARGUMENT for types numpy has no
// equivalent of (string, bfloat16, quantized, resource, variant) and non-host tensors.
absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor);

// Writes SerializeNpy(tensor) to `path` (replacing it). NOT_FOUND when the folder does not
// exist, PERMISSION_DENIED when it cannot be written.
absl::Status WriteNpy(const Tensor& tensor, const std::string& path);

// numpy's name for the type ("float32", "int64", "bool"), or "" when it has none.
std::string NumpyTypeName(DataType dtype);

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_NPY_H_
