// An owning C++ handle for TSR_Status* and the helpers that build statuses through the host table.
#ifndef TESSERA_SDK_STATUS_H_
#define TESSERA_SDK_STATUS_H_

#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "tessera/plugin_api/common.h"
#include "tessera/sdk/host_api.h"

namespace tessera::sdk {

// Concatenates anything that streams into a std::ostream.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream stream;
  (stream << ... << args);
  return stream.str();
}

// Move-only owner of a host-created status. A default-constructed Status is OK (NULL). The
// destructor destroys a status nobody released; Release() hands it to the host (kernel returns).
class [[nodiscard]] Status {
 public:
  Status() = default;
  explicit Status(TSR_Status* status) : status_(status) {}
  Status(Status&& other) noexcept : status_(std::exchange(other.status_, nullptr)) {}
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      Reset();
      status_ = std::exchange(other.status_, nullptr);
    }
    return *this;
  }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  ~Status() { Reset(); }

  bool ok() const { return status_ == nullptr; }
  TSR_Code code() const { return ok() ? TSR_CODE_OK : HostApi()->Status_GetCode(status_); }
  std::string message() const {
    if (ok()) return std::string();
    const char* message = HostApi()->Status_GetMessage(status_);
    return message == nullptr ? std::string() : std::string(message);
  }
  // Gives up ownership: the caller (usually the host) now owns the returned pointer.
  TSR_Status* Release() { return std::exchange(status_, nullptr); }
  const TSR_Status* get() const { return status_; }

 private:
  void Reset() {
    if (status_ != nullptr) HostApi()->Status_Destroy(status_);
    status_ = nullptr;
  }
  TSR_Status* status_ = nullptr;
};

inline Status OkStatus() { return Status(); }

// A status with `code` and `message` created by the host (OK gives the OK status).
inline Status MakeStatus(TSR_Code code, const std::string& message) {
  if (code == TSR_CODE_OK) return Status();
  return Status(HostApi()->Status_Create(code, message.c_str()));
}

template <typename... Args>
Status InvalidArgument(const Args&... args) {
  return MakeStatus(TSR_CODE_INVALID_ARGUMENT, StrCat(args...));
}
template <typename... Args>
Status Internal(const Args&... args) {
  return MakeStatus(TSR_CODE_INTERNAL, StrCat(args...));
}
template <typename... Args>
Status Unimplemented(const Args&... args) {
  return MakeStatus(TSR_CODE_UNIMPLEMENTED, StrCat(args...));
}
template <typename... Args>
Status ResourceExhausted(const Args&... args) {
  return MakeStatus(TSR_CODE_RESOURCE_EXHAUSTED, StrCat(args...));
}
template <typename... Args>
Status FailedPrecondition(const Args&... args) {
  return MakeStatus(TSR_CODE_FAILED_PRECONDITION, StrCat(args...));
}
template <typename... Args>
Status NotFound(const Args&... args) {
  return MakeStatus(TSR_CODE_NOT_FOUND, StrCat(args...));
}
template <typename... Args>
Status Cancelled(const Args&... args) {
  return MakeStatus(TSR_CODE_CANCELLED, StrCat(args...));
}
template <typename... Args>
Status DataLoss(const Args&... args) {
  return MakeStatus(TSR_CODE_DATA_LOSS, StrCat(args...));
}

// Carries a status through code that cannot return one (constructors, deep helpers). The SDK's
// C trampolines turn it back into a status with the same code; any other exception becomes
// INTERNAL.
class StatusException : public std::exception {
 public:
  StatusException(TSR_Code code, std::string message) : code_(code), message_(std::move(message)) {}
  explicit StatusException(const Status& status)
      : code_(status.code()), message_(status.message()) {}
  TSR_Code code() const { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  TSR_Code code_;
  std::string message_;
};

// Throws StatusException when `status` is not OK.
inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusException(status);
}

}  // namespace tessera::sdk

// Returns the status of `expr` from the enclosing function when it is not OK.
#define TESSERA_SDK_RETURN_IF_ERROR(expr)                    \
  do {                                                       \
    ::tessera::sdk::Status tessera_sdk_status_ = (expr);     \
    if (!tessera_sdk_status_.ok()) return tessera_sdk_status_; \
  } while (false)

#endif  // TESSERA_SDK_STATUS_H_
