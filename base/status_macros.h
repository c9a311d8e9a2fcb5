// Status helpers shared by the registry and the host: RETURN_IF_ERROR, ASSIGN_OR_RETURN and
// WithContext (the Debian Abseil has no status macros).
#ifndef TESSERA_BASE_STATUS_MACROS_H_
#define TESSERA_BASE_STATUS_MACROS_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tessera {

// Returns `status` with `context` prepended ("context: original message"); OK stays OK.
inline absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

namespace internal {
[[noreturn]] inline void CheckFailed(const char* file, int line, const char* condition,
                                     absl::string_view message) {
  std::fprintf(stderr, "%s:%d: check failed: %s: %.*s\n", file, line, condition,
               static_cast<int>(message.size()), message.data());
  std::abort();
}
}  // namespace internal

}  // namespace tessera

// Aborts with a message when a broken invariant is found (never for bad input).
#define TESSERA_CHECK(condition, message)                                                          \
  do {                                                                                             \
    if (!(condition)) ::tessera::internal::CheckFailed(__FILE__, __LINE__, #condition, (message)); \
  } while (0)

#define TESSERA_STATUS_CONCAT_INNER_(a, b) a##b
#define TESSERA_STATUS_CONCAT_(a, b) TESSERA_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status tsr_status_ = (expr);       \
    if (!tsr_status_.ok()) return tsr_status_; \
  } while (0)

// `lhs = value of expr` (an absl::StatusOr<T>), or returns its status from the enclosing function.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(TESSERA_STATUS_CONCAT_(tsr_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                           \
  if (!statusor.ok()) return statusor.status();     \
  lhs = std::move(statusor).value()

#endif  // TESSERA_BASE_STATUS_MACROS_H_
