// Encoding and decoding of the gRPC transport's message bodies.
#include "plugins/grpc/wire_format.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tessera::grpc_plugin {
namespace {

// Appends little-endian integers and bytes to a string (the header slice).
class Writer {
 public:
  void U8(uint8_t value) { bytes_.push_back(static_cast<char>(value)); }
  void U16(uint16_t value) { Little(value, 2); }
  void U32(uint32_t value) { Little(value, 4); }
  void U64(uint64_t value) { Little(value, 8); }
  void Bytes(const void* data, size_t size) {
    if (size > 0) bytes_.append(static_cast<const char*>(data), size);
  }
  void String(std::string_view value) {
    U32(static_cast<uint32_t>(value.size()));
    Bytes(value.data(), value.size());
  }
  void Reserve(size_t size) { bytes_.reserve(size); }
  const std::string& bytes() const { return bytes_; }

 private:
  void Little(uint64_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  std::string bytes_;
};

grpc::ByteBuffer OneSlice(const std::string& bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

std::string_view Clip(std::string_view value) {
  return value.substr(0, std::min(value.size(), kMaxStringBytes));
}

Error Malformed(const char* what, const char* detail) {
  return MakeError(TSR_CODE_INTERNAL, "malformed ", what, ": ", detail);
}

bool ReadCodeAndMessage(SliceReader* reader, TSR_Code* code, std::string* message) {
  uint32_t raw_code = 0;
  uint32_t size = 0;
  if (!reader->ReadU32(&raw_code) || !reader->ReadU32(&size)) return false;
  if (!reader->ReadString(size, message)) return false;
  *code = static_cast<TSR_Code>(raw_code);
  return true;
}

// Owns the release callback of a zero-copy payload slice.
struct PayloadRelease {
  TSR_ReleaseFn release;
  void* release_arg;
};

void ReleaseSlice(void* arg) {
  auto* payload = static_cast<PayloadRelease*>(arg);
  if (payload->release != nullptr) payload->release(payload->release_arg);
  delete payload;
}

}  // namespace

// ---- SliceReader -----------------------------------------------------------------------------

SliceReader::SliceReader(const grpc::ByteBuffer& buffer) {
  if (buffer.Valid()) {
    // Dump only takes references; it fails only for a buffer it cannot read (never ours).
    if (!buffer.Dump(&slices_).ok()) slices_.clear();
  }
  for (const grpc::Slice& slice : slices_) remaining_ += slice.size();
}

bool SliceReader::Read(void* destination, size_t size) {
  if (size > remaining_) return false;
  char* out = static_cast<char*>(destination);
  while (size > 0) {
    const grpc::Slice& slice = slices_[slice_index_];
    const size_t available = slice.size() - offset_;
    const size_t n = std::min(available, size);
    std::memcpy(out, slice.begin() + offset_, n);
    out += n;
    size -= n;
    remaining_ -= n;
    offset_ += n;
    if (offset_ == slice.size()) {
      ++slice_index_;
      offset_ = 0;
    }
  }
  return true;
}

bool SliceReader::ReadU8(uint8_t* value) { return Read(value, 1); }

bool SliceReader::ReadU16(uint16_t* value) {
  uint8_t bytes[2];
  if (!Read(bytes, 2)) return false;
  *value = static_cast<uint16_t>(bytes[0] | (bytes[1] << 8));
  return true;
}

bool SliceReader::ReadU32(uint32_t* value) {
  uint8_t bytes[4];
  if (!Read(bytes, 4)) return false;
  *value = 0;
  for (int i = 3; i >= 0; --i) *value = (*value << 8) | bytes[i];
  return true;
}

bool SliceReader::ReadU64(uint64_t* value) {
  uint8_t bytes[8];
  if (!Read(bytes, 8)) return false;
  *value = 0;
  for (int i = 7; i >= 0; --i) *value = (*value << 8) | bytes[i];
  return true;
}

bool SliceReader::ReadString(size_t size, std::string* value) {
  if (size > remaining_) return false;
  value->resize(size);
  return Read(value->data(), size);
}

std::string_view SliceReader::ReadRest(std::string* storage) {
  // Skip exhausted slices so that a rest lying in one slice is borrowed.
  while (slice_index_ < slices_.size() && offset_ == slices_[slice_index_].size()) {
    ++slice_index_;
    offset_ = 0;
  }
  if (remaining_ == 0) return std::string_view();
  const grpc::Slice& slice = slices_[slice_index_];
  if (slice.size() - offset_ == remaining_) {
    std::string_view rest(reinterpret_cast<const char*>(slice.begin()) + offset_, remaining_);
    offset_ = slice.size();
    remaining_ = 0;
    return rest;
  }
  ReadString(remaining_, storage);
  return *storage;
}

// ---- Call ------------------------------------------------------------------------------------

grpc::ByteBuffer EncodeCallRequest(std::string_view method, const void* request, size_t size) {
  Writer writer;
  writer.Reserve(4 + method.size() + size);
  writer.String(method);
  writer.Bytes(request, size);
  return OneSlice(writer.bytes());
}

Error DecodeCallRequest(SliceReader* reader, std::string* method, std::string* storage,
                        std::string_view* request) {
  uint32_t size = 0;
  if (!reader->ReadU32(&size)) return Malformed("call request", "shorter than its method size");
  if (!reader->ReadString(size, method)) {
    return Malformed("call request", "method name runs past the end");
  }
  *request = reader->ReadRest(storage);
  return OkError();
}

grpc::ByteBuffer EncodeCallResponse(TSR_Code code, std::string_view message, const void* response,
                                    size_t size) {
  message = Clip(message);
  Writer writer;
  writer.Reserve(8 + message.size() + size);
  writer.U32(static_cast<uint32_t>(code));
  writer.String(message);
  writer.Bytes(response, size);
  return OneSlice(writer.bytes());
}

Error DecodeCallResponse(SliceReader* reader, TSR_Code* code, std::string* message,
                         std::string* storage, std::string_view* response) {
  if (!ReadCodeAndMessage(reader, code, message)) {
    return Malformed("call response", "status runs past the end");
  }
  *response = reader->ReadRest(storage);
  return OkError();
}

// ---- RecvTensor ------------------------------------------------------------------------------

grpc::ByteBuffer EncodeRecvTensorRequest(uint64_t step_id, std::string_view rendezvous_key) {
  Writer writer;
  writer.U64(step_id);
  writer.String(Clip(rendezvous_key));
  return OneSlice(writer.bytes());
}

Error DecodeRecvTensorRequest(SliceReader* reader, uint64_t* step_id, std::string* rendezvous_key) {
  uint32_t size = 0;
  if (!reader->ReadU64(step_id) || !reader->ReadU32(&size)) {
    return Malformed("tensor request", "shorter than its step id and key size");
  }
  if (!reader->ReadString(size, rendezvous_key)) {
    return Malformed("tensor request", "rendezvous key runs past the end");
  }
  if (reader->remaining() != 0) {
    return Malformed("tensor request", "bytes follow the rendezvous key");
  }
  return OkError();
}

Error EncodeTensorResponse(const TSR_TensorView& tensor, bool is_dead, TSR_ReleaseFn release,
                           void* release_arg, std::vector<grpc::ByteBuffer>* messages) {
  const size_t byte_size = is_dead ? 0 : tensor.byte_size;
  const int32_t rank = is_dead ? 0 : tensor.rank;
  Error error;
  if (rank < 0 || rank > TSR_MAX_RANK) {
    error = MakeError(TSR_CODE_INVALID_ARGUMENT, "tensor rank ", rank, " is outside [0, ",
                      TSR_MAX_RANK, "]");
  } else if (rank > 0 && tensor.dims == nullptr) {
    error = MakeError(TSR_CODE_INVALID_ARGUMENT, "tensor of rank ", rank, " has no dims");
  } else if (byte_size > 0 && tensor.data == nullptr) {
    error = MakeError(TSR_CODE_INVALID_ARGUMENT, "tensor of ", byte_size, " bytes has no data");
  }
  for (int32_t i = 0; error.ok() && i < rank; ++i) {
    if (tensor.dims[i] < 0) {
      error = MakeError(TSR_CODE_INVALID_ARGUMENT, "tensor dimension ", i, " is negative (",
                        tensor.dims[i], ")");
    }
  }
  if (!error.ok()) {
    if (release != nullptr) release(release_arg);
    return error;
  }

  const bool inline_payload = byte_size <= kInlineTensorBytes;
  Writer writer;
  writer.Reserve(32 + 8 * rank + (inline_payload ? byte_size : 0));
  writer.U32(TSR_CODE_OK);
  writer.U32(0);  // empty message
  writer.U32(static_cast<uint32_t>(tensor.dtype));
  writer.U8(is_dead ? 1 : 0);
  writer.U8(static_cast<uint8_t>(rank));
  writer.U16(0);
  for (int32_t i = 0; i < rank; ++i) writer.U64(static_cast<uint64_t>(tensor.dims[i]));
  writer.U64(byte_size);
  messages->clear();
  if (inline_payload) {
    writer.Bytes(tensor.data, byte_size);
    if (release != nullptr) release(release_arg);
    messages->push_back(OneSlice(writer.bytes()));
    return OkError();
  }
  messages->reserve(1 + (byte_size + kTensorChunkBytes - 1) / kTensorChunkBytes);
  messages->push_back(OneSlice(writer.bytes()));
  // One refcounted slice over the whole buffer; each chunk is a sub-slice holding a reference.
  const grpc::Slice payload(tensor.data, byte_size, &ReleaseSlice,
                            new PayloadRelease{release, release_arg});
  for (size_t begin = 0; begin < byte_size; begin += kTensorChunkBytes) {
    grpc::Slice chunk = payload.sub(begin, std::min(byte_size, begin + kTensorChunkBytes));
    messages->emplace_back(&chunk, 1);
  }
  return OkError();
}

grpc::ByteBuffer EncodeTensorErrorResponse(TSR_Code code, std::string_view message) {
  message = Clip(message);
  Writer writer;
  writer.U32(static_cast<uint32_t>(code));
  writer.String(message);
  return OneSlice(writer.bytes());
}

Error DecodeTensorHeader(SliceReader* reader, TensorHeader* header) {
  if (!ReadCodeAndMessage(reader, &header->code, &header->message)) {
    return Malformed("tensor response", "status runs past the end");
  }
  if (header->code != TSR_CODE_OK) return OkError();
  uint32_t dtype = 0;
  uint8_t is_dead = 0;
  uint8_t rank = 0;
  uint16_t reserved = 0;
  if (!reader->ReadU32(&dtype) || !reader->ReadU8(&is_dead) || !reader->ReadU8(&rank) ||
      !reader->ReadU16(&reserved)) {
    return Malformed("tensor response", "shorter than its tensor header");
  }
  if (rank > TSR_MAX_RANK) {
    return MakeError(TSR_CODE_INTERNAL, "malformed tensor response: rank ", static_cast<int>(rank),
                     " exceeds ", TSR_MAX_RANK);
  }
  if (dtype > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
    return MakeError(TSR_CODE_INTERNAL, "malformed tensor response: dtype ", dtype,
                     " is out of range");
  }
  header->dtype = static_cast<TSR_DataType>(dtype);
  header->is_dead = is_dead != 0;
  header->dims.resize(rank);
  for (uint8_t i = 0; i < rank; ++i) {
    uint64_t dim = 0;
    if (!reader->ReadU64(&dim)) return Malformed("tensor response", "dims run past the end");
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return MakeError(TSR_CODE_INTERNAL, "malformed tensor response: dimension ",
                       static_cast<int>(i), " is negative");
    }
    header->dims[i] = static_cast<int64_t>(dim);
  }
  if (!reader->ReadU64(&header->byte_size)) {
    return Malformed("tensor response", "shorter than its byte size");
  }
  if (reader->remaining() > header->byte_size) {
    return MakeError(TSR_CODE_INTERNAL, "malformed tensor response: header says ",
                     header->byte_size, " tensor bytes but ", reader->remaining(),
                     " follow it in its message");
  }
  return OkError();
}

}  // namespace tessera::grpc_plugin
