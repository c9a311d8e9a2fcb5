// Status, buffers, data types and the version: the C API's plain values.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "host/c_api/c_api_internal.h"
#include "host/runtime/types.h"

namespace tessera {
namespace c_api {

void SetStatus(TF_Status* status, const absl::Status& value) {
  if (status == nullptr) return;
  status->code = static_cast<TF_Code>(value.code());
  if (value.ok()) {
    status->message.clear();
  } else {
    status->message.assign(value.message().data(), value.message().size());
  }
}

absl::Status NullArgument(const char* function, const char* what) {
  return absl::InvalidArgumentError(absl::StrCat(function, ": ", what, " is NULL"));
}

void SetBuffer(TF_Buffer* buffer, const std::string& bytes) {
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  void* copy = std::malloc(bytes.empty() ? 1 : bytes.size());
  std::memcpy(copy, bytes.data(), bytes.size());
  buffer->data = copy;
  buffer->length = bytes.size();
  buffer->data_deallocator = [](void* data, size_t) { std::free(data); };
}

}  // namespace c_api
}  // namespace tessera

extern "C" {

TF_Status* TF_NewStatus(void) { return new TF_Status(); }

void TF_DeleteStatus(TF_Status* s) { delete s; }

void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  if (s == nullptr) return;
  s->code = code;
  s->message = code == TF_OK || msg == nullptr ? "" : msg;
}

void TF_SetStatusFromIOError(TF_Status* s, int error_code, const char* context) {
  if (s == nullptr) return;
  TF_Code code = TF_UNKNOWN;
  switch (error_code) {
    case 0: code = TF_OK; break;
    case ENOENT: case ENODEV: case ENXIO: case ESRCH: code = TF_NOT_FOUND; break;
    case EEXIST: case EADDRINUSE: case EADDRNOTAVAIL: code = TF_ALREADY_EXISTS; break;
    case EACCES: case EPERM: case EROFS: code = TF_PERMISSION_DENIED; break;
    case EINVAL: case EISDIR: case ENOTDIR: case ENAMETOOLONG: case E2BIG: case EDOM:
    case EFAULT: case EILSEQ: case ENOTSOCK: case ESPIPE: code = TF_INVALID_ARGUMENT; break;
    case ENOSPC: case ENOMEM: case EMFILE: case ENFILE: case EDQUOT: code = TF_RESOURCE_EXHAUSTED;
      break;
    case ETIMEDOUT: code = TF_DEADLINE_EXCEEDED; break;
    case EAGAIN: case EBUSY: case ECONNREFUSED: case ECONNRESET: case EHOSTUNREACH:
    case ENETDOWN: case ENETUNREACH: case EPIPE: code = TF_UNAVAILABLE; break;
    case ECANCELED: code = TF_CANCELLED; break;
    case ENOSYS: case ENOTSUP: case EAFNOSUPPORT: case EPROTONOSUPPORT: code = TF_UNIMPLEMENTED;
      break;
    case EFBIG: case EOVERFLOW: case ERANGE: code = TF_OUT_OF_RANGE; break;
    default: code = TF_UNKNOWN; break;
  }
  if (code == TF_OK) {
    TF_SetStatus(s, TF_OK, "");
    return;
  }
  std::string message = context == nullptr ? "" : absl::StrCat(context, "; ");
  absl::StrAppend(&message, std::strerror(error_code));
  TF_SetStatus(s, code, message.c_str());
}

TF_Code TF_GetCode(const TF_Status* s) { return s == nullptr ? TF_OK : s->code; }

const char* TF_Message(const TF_Status* s) { return s == nullptr ? "" : s->message.c_str(); }

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  TF_Buffer* buffer = TF_NewBuffer();
  if (proto == nullptr && proto_len > 0) return buffer;
  tessera::c_api::SetBuffer(
      buffer, std::string(static_cast<const char*>(proto == nullptr ? "" : proto), proto_len));
  return buffer;
}

TF_Buffer* TF_NewBuffer(void) { return new TF_Buffer{nullptr, 0, nullptr}; }

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  delete buffer;
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) {
  return buffer == nullptr ? TF_Buffer{nullptr, 0, nullptr} : *buffer;
}

size_t TF_DataTypeSize(TF_DataType dt) {
  if (dt == TF_STRING || dt == TF_RESOURCE || dt == TF_VARIANT) return 0;
  return tessera::DataTypeSize(static_cast<tessera::DataType>(dt));
}

const char* TF_Version(void) { return TESSERA_VERSION "-tf-c-api-2.15"; }

}  // extern "C"
