// The gRPC transport's wire format: the bodies of its two methods, encoded by hand into
// grpc::ByteBuffers so that a tensor travels from the sender's own buffer (see
// docs/transports.md, "Wire format"). Decoding treats every byte as untrusted.
//
// All integers are little-endian and fixed width.
//   /tessera.Transport/Call        request:  u32 method_size, method, request bytes
//                                  response: u32 code, u32 message_size, message, response bytes
//   /tessera.Transport/RecvTensor  request:  u64 step_id, u32 key_size, key
//                                  response: u32 code, u32 message_size, message, u32 dtype,
//                                            u8 is_dead, u8 rank, u16 0, i64 dims[rank],
//                                            u64 byte_size, tensor bytes (byte_size of them)
// A change to any body gets new method names; a peer that does not know them answers gRPC
// UNIMPLEMENTED.
#ifndef TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_
#define TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include "plugins/grpc/error.h"
#include "tessera/plugin_api/transport.h"

namespace tessera::grpc_plugin {

inline constexpr char kCallMethod[] = "/tessera.Transport/Call";
inline constexpr char kRecvTensorMethod[] = "/tessera.Transport/RecvTensor";

// Tensors up to this size are copied into the header slice (a second slice costs more than the
// copy); larger ones are sent from the sender's buffer.
inline constexpr size_t kInlineTensorBytes = 1024;

// The largest gRPC message this transport sends (gRPC's message lengths are 32-bit and its
// internals use int): header and payload together.
inline constexpr size_t kMaxMessageBytes = 0x7fffffff;

// Reads the slices of a received ByteBuffer as one stream, without copying them.
class SliceReader {
 public:
  // Takes references to `buffer`'s slices (no copy).
  explicit SliceReader(const grpc::ByteBuffer& buffer);

  size_t remaining() const { return remaining_; }
  // Copies the next `size` bytes to `destination`; false (nothing consumed) when fewer remain.
  bool Read(void* destination, size_t size);
  bool ReadU8(uint8_t* value);
  bool ReadU16(uint16_t* value);
  bool ReadU32(uint32_t* value);
  bool ReadU64(uint64_t* value);
  bool ReadString(size_t size, std::string* value);
  // The remaining bytes as one view: borrowed from the slice when they lie in one, otherwise
  // copied into `storage`. Consumes them.
  std::string_view ReadRest(std::string* storage);

 private:
  std::vector<grpc::Slice> slices_;
  size_t slice_index_ = 0;
  size_t offset_ = 0;  // within slices_[slice_index_]
  size_t remaining_ = 0;
};

// ---- Call ------------------------------------------------------------------------------------

grpc::ByteBuffer EncodeCallRequest(std::string_view method, const void* request, size_t size);
// Decoders read from a SliceReader the caller keeps alive: views point into its slices.
// `request` views the reader's slices or `storage`.
Error DecodeCallRequest(SliceReader* reader, std::string* method, std::string* storage,
                        std::string_view* request);

grpc::ByteBuffer EncodeCallResponse(TSR_Code code, std::string_view message, const void* response,
                                    size_t size);
// `*code` and `*message` are the handler's status; `response` views the reader or `storage`.
Error DecodeCallResponse(SliceReader* reader, TSR_Code* code, std::string* message,
                         std::string* storage, std::string_view* response);

// ---- RecvTensor ------------------------------------------------------------------------------

grpc::ByteBuffer EncodeRecvTensorRequest(uint64_t step_id, std::string_view rendezvous_key);
Error DecodeRecvTensorRequest(SliceReader* reader, uint64_t* step_id,
                              std::string* rendezvous_key);

struct TensorHeader {
  TSR_Code code = TSR_CODE_OK;  // the sender's status; the fields below only when OK
  std::string message;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  bool is_dead = false;
  std::vector<int64_t> dims;
  uint64_t byte_size = 0;
};

// An OK response carrying `tensor` (a dead tensor carries no dims and no bytes). The tensor's
// bytes are released by calling release(release_arg) exactly once: before returning when they
// were copied or not sent (dead, small or invalid tensor), otherwise when gRPC drops the last
// reference to the returned buffer's payload slice. INVALID_ARGUMENT or RESOURCE_EXHAUSTED
// (too large for one gRPC message) when the view cannot be sent.
Error EncodeTensorResponse(const TSR_TensorView& tensor, bool is_dead, TSR_ReleaseFn release,
                           void* release_arg, grpc::ByteBuffer* buffer);
// A response that carries only a status (no tensor).
grpc::ByteBuffer EncodeTensorErrorResponse(TSR_Code code, std::string_view message);
// Reads the header; on success `reader` holds exactly `header->byte_size` payload bytes.
Error DecodeTensorHeader(SliceReader* reader, TensorHeader* header);

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_
