// Encoders and decoders of the rdma transport's Active Message headers.
#include "plugins/rdma/wire_format.h"

#include <cstring>

namespace tessera::rdma {
namespace {

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86-64 and aarch64 Linux: little-endian
  out->append(bytes, sizeof(T));
}

// Reads fixed-width values from a byte range; every read checks the remaining size.
class Reader {
 public:
  Reader(const void* bytes, size_t size) : at_(static_cast<const char*>(bytes)), left_(size) {}
  template <typename T>
  bool Get(T* value) {
    if (left_ < sizeof(T)) return false;
    std::memcpy(value, at_, sizeof(T));
    at_ += sizeof(T);
    left_ -= sizeof(T);
    return true;
  }
  bool GetString(size_t size, std::string* value) {
    if (left_ < size) return false;
    value->assign(at_, size);
    at_ += size;
    left_ -= size;
    return true;
  }
  size_t left() const { return left_; }

 private:
  const char* at_;
  size_t left_;
};

}  // namespace

std::string EncodeCallHeader(const CallHeader& header) {
  std::string out;
  Put(&out, header.exchange);
  Put(&out, header.deadline_ms);
  Put(&out, static_cast<uint32_t>(header.method.size()));
  out += header.method;
  return out;
}

bool DecodeCallHeader(const void* bytes, size_t size, CallHeader* header) {
  Reader reader(bytes, size);
  uint32_t method_size = 0;
  return reader.Get(&header->exchange) && reader.Get(&header->deadline_ms) &&
         reader.Get(&method_size) && method_size <= kMaxMethodSize &&
         reader.GetString(method_size, &header->method) && reader.left() == 0;
}

std::string EncodePullHeader(const PullHeader& header) {
  std::string out;
  Put(&out, header.exchange);
  Put(&out, header.deadline_ms);
  Put(&out, header.step_id);
  return out;
}

bool DecodePullHeader(const void* bytes, size_t size, PullHeader* header) {
  Reader reader(bytes, size);
  return reader.Get(&header->exchange) && reader.Get(&header->deadline_ms) &&
         reader.Get(&header->step_id) && reader.left() == 0;
}

std::string EncodeCallReplyHeader(const CallReplyHeader& header) {
  std::string out;
  Put(&out, header.exchange);
  Put(&out, header.code);
  return out;
}

bool DecodeCallReplyHeader(const void* bytes, size_t size, CallReplyHeader* header) {
  Reader reader(bytes, size);
  return reader.Get(&header->exchange) && reader.Get(&header->code) && reader.left() == 0;
}

std::string EncodeCallReplyData(const std::string& message, const void* response,
                                size_t response_size) {
  std::string out;
  out.reserve(sizeof(uint32_t) + message.size() + response_size);
  Put(&out, static_cast<uint32_t>(message.size()));
  out += message;
  if (response_size > 0) out.append(static_cast<const char*>(response), response_size);
  return out;
}

bool DecodeCallReplyData(const std::string& data, std::string* message, std::string* response) {
  Reader reader(data.data(), data.size());
  uint32_t message_size = 0;
  if (!reader.Get(&message_size) || !reader.GetString(message_size, message)) return false;
  return reader.GetString(reader.left(), response);
}

std::string EncodeTensorReplyHeader(const TensorReplyHeader& header) {
  std::string out;
  Put(&out, header.exchange);
  Put(&out, header.code);
  Put(&out, header.dtype);
  Put(&out, static_cast<uint8_t>(header.is_dead ? 1 : 0));
  Put(&out, static_cast<uint8_t>(header.dims.size()));
  Put(&out, static_cast<uint16_t>(0));
  for (int64_t dim : header.dims) Put(&out, dim);
  Put(&out, header.byte_size);
  return out;
}

bool DecodeTensorReplyHeader(const void* bytes, size_t size, TensorReplyHeader* header) {
  Reader reader(bytes, size);
  uint8_t is_dead = 0, rank = 0;
  uint16_t zero = 0;
  if (!reader.Get(&header->exchange) || !reader.Get(&header->code) ||
      !reader.Get(&header->dtype) || !reader.Get(&is_dead) || !reader.Get(&rank) ||
      !reader.Get(&zero) || is_dead > 1 || rank > TSR_MAX_RANK || zero != 0) {
    return false;
  }
  header->is_dead = is_dead == 1;
  header->dims.assign(rank, 0);
  for (int64_t& dim : header->dims) {
    if (!reader.Get(&dim) || dim < 0) return false;
  }
  return reader.Get(&header->byte_size) && reader.left() == 0;
}

}  // namespace tessera::rdma
