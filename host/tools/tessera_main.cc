// The `tessera` program: parse the arguments and dispatch to a subcommand.
#include <signal.h>

#include <iostream>
#include <string>
#include <vector>

#include "host/tools/cli_args.h"
#include "host/tools/ops_command.h"
#include "host/tools/plugins_command.h"
#include "host/tools/run_command.h"
#include "host/tools/serve_command.h"
#include "host/tools/show_command.h"

int main(int argc, char** argv) {
  using tessera::cli::Command;
  std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<tessera::cli::CliArgs> parsed = tessera::cli::ParseCliArgs(args);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 2;
  }
  absl::Status status;
  switch (parsed->command) {
    case Command::kHelp:
      std::cout << tessera::cli::CommandUsage(parsed->help_topic);
      return 0;
    case Command::kVersion:
      std::cout << tessera::cli::VersionString() << "\n";
      return 0;
    case Command::kRun:
      status = tessera::cli::RunCommand(parsed->run, std::cout);
      break;
    case Command::kServe: {
      // Blocked here, before the server starts any thread, so that every thread inherits the
      // mask and the signals reach only ServeCommand's sigwait().
      sigset_t stop_signals;
      sigemptyset(&stop_signals);
      sigaddset(&stop_signals, SIGTERM);
      sigaddset(&stop_signals, SIGINT);
      pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
      status = tessera::cli::ServeCommand(parsed->serve, stop_signals, std::cout);
      break;
    }
    case Command::kPlugins:
      status = tessera::cli::PluginsCommand(parsed->plugins, std::cout);
      break;
    case Command::kOps:
      status = tessera::cli::OpsCommand(parsed->ops, std::cout);
      break;
    case Command::kShow:
      status = tessera::cli::ShowCommand(parsed->show, std::cout);
      break;
  }
  if (!status.ok()) {
    std::cout.flush();
    std::cerr << status.message() << "\n";
    return 1;
  }
  return 0;
}
