// KernelRunner: runs one node, fed by Placeholders on the host, in a local session of one
// configuration of plugins, and answers which kernel that configuration picks for it.
#ifndef TESSERA_KIT_KERNEL_RUNNER_H_
#define TESSERA_KIT_KERNEL_RUNNER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/session/environment.h"
#include "host/session/session.h"
#include "kit/kernel_cases.h"

namespace tessera::plugin_check {

class KernelRunner {
 public:
  // Sessions loading `plugin_paths` first (then TESSERA_PLUGIN_PATH and the install's plugin
  // folder, as every session does). Fails as the session's environment does (no device...).
  static absl::StatusOr<KernelRunner> Create(std::vector<std::string> plugin_paths);

  // What the sessions loaded: plugins, op definitions, devices.
  const Environment& environment() const { return *environment_; }
  // True when the sessions have device `device_type`:0.
  bool HasDevice(const std::string& device_type) const;

  // The kernel a node of `op` with type attributes `types` gets on `device_type` (the host's
  // choice: highest kernel priority, then plugin priority, then plugin name, among kernels
  // whose type constraints the node meets), or nullptr.
  const KernelSpec* ChosenKernel(const std::string& op, const std::string& device_type,
                                 const std::map<std::string, DataType>& types) const;

  // Runs `kernel_case` (its attrs complete) as one node on "/device:<device_type>:0" and
  // returns its `num_outputs` outputs as host tensors. FAILED_PRECONDITION when the host ran
  // the node elsewhere or not at all (say, folded it away): then nothing was tested.
  absl::StatusOr<std::vector<Tensor>> Run(const std::string& op, const KernelCase& kernel_case,
                                          const std::string& device_type, int num_outputs) const;

 private:
  SessionOptions options_;
  std::shared_ptr<Environment> environment_;
};

// True when every type attribute `spec` constrains has an allowed value in `types`.
bool MeetsTypeConstraints(const KernelSpec& spec, const std::map<std::string, DataType>& types);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_KERNEL_RUNNER_H_
