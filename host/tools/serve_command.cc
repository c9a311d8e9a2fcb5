// `tessera serve`: create the Server, announce it, wait for a stop signal, stop it.
#include "host/tools/serve_command.h"

#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host/distributed/server.h"

namespace tessera {
namespace cli {

namespace {

ServerOptions ToServerOptions(const ServeArgs& args) {
  ServerOptions options;
  options.cluster = args.cluster;
  options.job = args.job;
  options.task = args.task;
  options.transport = args.transport;
  options.transport_options = args.transport_options;
  options.plugin_paths = args.plugin_paths;
  options.plugin_policy = args.plugin_policy;
  options.inter_op_threads = args.inter_op_threads;
  options.intra_op_threads = args.intra_op_threads;
  options.device_count = args.device_count;
  options.device_options = args.device_options;
  // 0 means "not given": keep the server's defaults.
  if (args.call_timeout_ms > 0) options.call_timeout_ms = args.call_timeout_ms;
  if (args.session_idle_timeout_ms > 0) {
    options.session_idle_timeout_ms = args.session_idle_timeout_ms;
  }
  if (args.step_idle_timeout_ms > 0) options.step_idle_timeout_ms = args.step_idle_timeout_ms;
  return options;
}

}  // namespace

absl::Status ServeCommand(const ServeArgs& args, const sigset_t& stop_signals, std::ostream& out) {
  ServerOptions options = ToServerOptions(args);
  // Events come from the server's threads; each is one whole line.
  auto log_mutex = std::make_shared<std::mutex>();
  options.log = [&out, log_mutex](const std::string& line) {
    std::lock_guard<std::mutex> lock(*log_mutex);
    out << "tessera serve: " << line << std::endl;
  };
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
  if (!server.ok()) {
    return absl::Status(server.status().code(),
                        absl::StrCat("tessera serve: ", server.status().message()));
  }
  options.log(absl::StrCat((*server)->task_name(), " serving master and worker at ",
                           (*server)->address(), " over ", args.transport,
                           " (devices: ", absl::StrJoin((*server)->devices(), ", "), ")"));

  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) != 0) {
  }
  (*server)->Stop();
  options.log("stopped");
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tessera
