// The device suite's foreign-free case: Memory_Free of a pointer the device did not allocate must
// be an error. A plugin that passes such a pointer to free() aborts, so the call runs in a child
// process and a crash becomes a failing case instead of the end of the report.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kit/device_cases.h"

namespace tessera::plugin_check {
namespace {

// Exit statuses of the child.
constexpr int kRefused = 0;        // Memory_Free answered an error
constexpr int kAccepted = 10;      // Memory_Free answered OK
constexpr int kSetupFailed = 11;   // the block to point into could not be allocated
constexpr auto kChildTimeout = std::chrono::seconds(20);

// In the child: frees a pointer 64 bytes inside a block the device allocated (never a pointer
// it returned) and exits with what happened.
[[noreturn]] void FreeForeignPointer(PluginDevice& device, size_t alignment) {
  absl::StatusOr<void*> block = device.Allocate(4096, alignment);
  if (!block.ok()) _exit(kSetupFailed);
  absl::Status freed = device.Free(static_cast<char*>(*block) + 64, 4096);
  _exit(freed.ok() ? kAccepted : kRefused);
}

}  // namespace

void RunForeignFreeCase(DeviceTarget& target, CaseList& cases) {
  const char* name = "free/foreign_pointer";
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    cases.Skip(name, absl::StrCat("fork failed: ", std::strerror(errno)));
    return;
  }
  if (child == 0) FreeForeignPointer(*target.devices[0], target.alignment);

  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + kChildTimeout;
  pid_t done = 0;
  while ((done = waitpid(child, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    cases.Fail(name, absl::StrCat("Memory_Free of a pointer inside an allocation did not return "
                                  "within ", kChildTimeout.count(), " s (in a forked process)"));
    return;
  }
  if (WIFSIGNALED(status)) {
    cases.Fail(name, absl::StrCat("Memory_Free of a pointer 64 bytes inside a 4096-byte "
                                  "allocation crashed the process (signal ", WTERMSIG(status),
                                  ", ", strsignal(WTERMSIG(status)),
                                  "); it must answer INVALID_ARGUMENT"));
  } else if (WEXITSTATUS(status) == kRefused) {
    cases.Pass(name, "a pointer the device did not return is refused");
  } else if (WEXITSTATUS(status) == kAccepted) {
    cases.Fail(name, "Memory_Free accepted a pointer 64 bytes inside a 4096-byte allocation (not "
                     "a pointer Memory_Allocate returned); it must answer INVALID_ARGUMENT");
  } else if (WEXITSTATUS(status) == kSetupFailed) {
    cases.Fail(name, "allocating 4096 bytes failed in the forked process");
  } else {
    cases.Fail(name, absl::StrCat("the forked process exited with status ", WEXITSTATUS(status)));
  }
}

}  // namespace tessera::plugin_check
