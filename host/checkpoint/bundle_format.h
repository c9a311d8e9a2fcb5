// Constants and small helpers of TensorFlow's tensor bundle (checkpoint V2) format shared by the
// reader, the writer and the merger: file names, the header entry, versions, shapes and dtypes.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_FORMAT_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_FORMAT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "host/checkpoint/proto/tensor_bundle.pb.h"
#include "host/runtime/tensor.h"

namespace tessera {
namespace checkpoint {

// The key of the BundleHeaderProto, which therefore sorts first.
inline constexpr absl::string_view kHeaderEntryKey = "";
// Format versions, as TensorFlow's: a writer stamps producer = kTensorBundleVersion; a reader of
// version kTensorBundleVersion accepts producers >= kTensorBundleMinProducer.
inline constexpr int kTensorBundleVersion = 1;
inline constexpr int kTensorBundleMinProducer = 0;
inline constexpr int kTensorBundleMinConsumer = 0;
// The most dimensions a stored shape may have (TensorFlow's limit).
inline constexpr int kMaxStoredRank = 254;

// "<prefix>.index".
std::string MetaFilename(absl::string_view prefix);
// "<prefix>.data-00000-of-00001".
std::string DataFilename(absl::string_view prefix, int shard_id, int num_shards);

// The header a writer of this host stores: num_shards, the host's byte order, the versions.
tensorflow::BundleHeaderProto MakeHeader(int num_shards);
// FAILED_PRECONDITION when the header's versions exclude this reader (producer too old,
// min_consumer too new, or this version listed as bad); DATA_LOSS for num_shards < 1 or an
// unknown byte order. `file` names the index in messages.
absl::Status CheckHeader(const tensorflow::BundleHeaderProto& header, absl::string_view file);

// A stored shape: known rank up to kMaxStoredRank, dimensions >= 0, element count inside int64.
// INVALID_ARGUMENT otherwise (callers turn it into DATA_LOSS naming the key).
absl::StatusOr<TensorShape> ShapeFromProto(const tensorflow::TensorShapeProto& proto);
void ShapeToProto(const TensorShape& shape, tensorflow::TensorShapeProto* proto);

// The name of a stored dtype for messages, including the ones Tessera has no DataType for.
std::string StoredDtypeName(int dtype);
// OK when Tessera's host tensors can hold `dtype` (every fixed-size type of the runtime, and
// strings); UNIMPLEMENTED naming `key` otherwise (variants, resources, 8-bit floats, 4-bit ints,
// reference types, unknown values).
absl::Status CheckSupportedDtype(int dtype, absl::string_view key);

// True on a little-endian host; BundleHeaderProto::LITTLE is then the native order.
constexpr bool HostIsLittleEndian() { return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; }
// Reverses the bytes of each element (each half of a complex element) of a dense buffer.
void ByteSwapElements(DataType dtype, char* data, size_t bytes);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_FORMAT_H_
