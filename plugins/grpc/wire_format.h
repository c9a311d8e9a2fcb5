// The gRPC transport's wire format: the bodies of its two methods, encoded by hand into
// grpc::ByteBuffers so that a tensor travels from the sender's own buffer (see
// docs/transports.md, "Wire format"). Decoding treats every byte as untrusted.
//
// All integers are little-endian and fixed width.
//   /tessera.Transport/Call        request:  u32 method_size, method, request bytes
//                                  response: u32 code, u32 message_size, message, response bytes
//   /tessera.Transport/RecvTensor  request:  u64 step_id, u32 key_size, key
//                                  responses (a stream): the header message, u32 code,
//                                            u32 message_size, message, and when OK: u32 dtype,
//                                            u8 is_dead, u8 rank, u16 0, i64 dims[rank],
//                                            u64 byte_size; then the tensor's bytes, in order,
//                                            after the header and in any later messages, until
//                                            byte_size of them have come
// A change to any body gets new method names; a peer that does not know them answers gRPC
// UNIMPLEMENTED.
#ifndef TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_
#define TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/grpc/error.h"
#include "tessera/plugin_api/transport.h"

namespace tessera::grpc_plugin {

inline constexpr char kCallMethod[] = "/tessera.Transport/Call";
inline constexpr char kRecvTensorMethod[] = "/tessera.Transport/RecvTensor";

// Tensors up to this size are copied into the header message (a second slice costs more than the
// copy); larger ones are sent from the sender's buffer.
inline constexpr size_t kInlineTensorBytes = 1024;

// Larger tensors follow the header in messages of this size, slices of the sender's buffer. The
// receiver copies each into the destination as it arrives, so gRPC never buffers a whole tensor
// (the allocator reuses its few MiB of receive buffers instead of faulting in fresh pages for
// every pull), and no tensor meets gRPC's 2 GiB message limit.
inline constexpr size_t kTensorChunkBytes = size_t{4} << 20;

// Strings on the wire (method names, keys, status messages) are clipped to this length.
inline constexpr size_t kMaxStringBytes = size_t{1} << 30;

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
Error DecodeRecvTensorRequest(SliceReader* reader, uint64_t* step_id, std::string* rendezvous_key);

struct TensorHeader {
  TSR_Code code = TSR_CODE_OK;  // the sender's status; the fields below only when OK
  std::string message;
  TSR_DataType dtype = TSR_DTYPE_INVALID;
  bool is_dead = false;
  std::vector<int64_t> dims;
  uint64_t byte_size = 0;
};

// The messages of an OK response carrying `tensor` (a dead tensor carries no dims and no bytes).
// The tensor's bytes are released by calling release(release_arg) exactly once: before returning
// when they were copied or not sent (dead, small or invalid tensor), otherwise when gRPC drops
// the last reference to the slices of the sender's buffer. INVALID_ARGUMENT when the view cannot
// be sent.
Error EncodeTensorResponse(const TSR_TensorView& tensor, bool is_dead, TSR_ReleaseFn release,
                           void* release_arg, std::vector<grpc::ByteBuffer>* messages);
// A response that carries only a status (no tensor).
grpc::ByteBuffer EncodeTensorErrorResponse(TSR_Code code, std::string_view message);
// Reads the header message; on success what remains in `reader` (at most `header->byte_size`
// bytes) is the start of the tensor's bytes.
Error DecodeTensorHeader(SliceReader* reader, TensorHeader* header);

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_WIRE_FORMAT_H_
