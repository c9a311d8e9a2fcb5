// The rdma transport's messages: UCX Active Messages whose small headers the plugin encodes here
// (integers little-endian and fixed width) and whose data travels as UCX decides (inline for
// small data, UCX's rendezvous protocol straight into the destination for large data).
//
//   kCall         header  u64 exchange, i64 deadline_ms, u32 method_size, method
//                 data    the request
//   kPull         header  u64 exchange, i64 deadline_ms, u64 step_id
//                 data    the rendezvous key
//   kCallReply    header  u64 exchange, u32 code
//                 data    u32 message_size, message, the response
//   kTensorReply  header  u64 exchange, u32 code, u32 dtype, u8 is_dead, u8 rank, u16 0,
//                         i64 dims[rank], u64 byte_size
//                 data    code OK: the tensor's byte_size bytes; otherwise the message
//
// `exchange` is the caller's id of the call or pull, echoed in the answer. `deadline_ms` is the
// caller's relative deadline (<= 0: none), which the server uses to tell the host that nobody
// waits any more (Reply_IsCancelled). Every decoder checks sizes and returns false on malformed
// bytes; a peer's bytes are never trusted.
#ifndef TESSERA_PLUGINS_RDMA_WIRE_FORMAT_H_
#define TESSERA_PLUGINS_RDMA_WIRE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/plugin_api/common.h"

namespace tessera::rdma {

// Active Message ids. A change to any message's layout gets new ids.
enum AmId : unsigned {
  kCall = 0x7e51,
  kPull = 0x7e52,
  kCallReply = 0x7e53,
  kTensorReply = 0x7e54,
};

// Longest method name a call carries.
inline constexpr size_t kMaxMethodSize = 1024;
// Deadlines are cut to 2^40 ms (about 35 years), as the host cuts timeouts, so that adding one to
// the clock cannot overflow.
inline constexpr int64_t kMaxDeadlineMs = int64_t{1} << 40;

struct CallHeader {
  uint64_t exchange = 0;
  int64_t deadline_ms = 0;
  std::string method;
};
std::string EncodeCallHeader(const CallHeader& header);
bool DecodeCallHeader(const void* bytes, size_t size, CallHeader* header);

struct PullHeader {
  uint64_t exchange = 0;
  int64_t deadline_ms = 0;
  uint64_t step_id = 0;
};
std::string EncodePullHeader(const PullHeader& header);
bool DecodePullHeader(const void* bytes, size_t size, PullHeader* header);

struct CallReplyHeader {
  uint64_t exchange = 0;
  uint32_t code = 0;
};
std::string EncodeCallReplyHeader(const CallReplyHeader& header);
bool DecodeCallReplyHeader(const void* bytes, size_t size, CallReplyHeader* header);
// The data of a kCallReply: the message, then the response.
std::string EncodeCallReplyData(const std::string& message, const void* response,
                                size_t response_size);
bool DecodeCallReplyData(const std::string& data, std::string* message, std::string* response);

struct TensorReplyHeader {
  uint64_t exchange = 0;
  uint32_t code = 0;
  uint32_t dtype = 0;
  bool is_dead = false;
  std::vector<int64_t> dims;  // at most TSR_MAX_RANK
  uint64_t byte_size = 0;
};
std::string EncodeTensorReplyHeader(const TensorReplyHeader& header);
bool DecodeTensorReplyHeader(const void* bytes, size_t size, TensorReplyHeader* header);

}  // namespace tessera::rdma

#endif  // TESSERA_PLUGINS_RDMA_WIRE_FORMAT_H_
