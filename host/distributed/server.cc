// The server of one task: environment, transport server, master, worker and the expiry thread.
#include "host/distributed/server.h"

#include <malloc.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/distributed/in_process_channel.h"
#include "host/distributed/master.h"
#include "host/distributed/rpc.h"
#include "host/distributed/worker.h"
#include "host/runtime/device.h"
#include "host/session/environment.h"
#include "registry/transport_handle.h"

namespace tessera {

class Server::Impl final : public TransportHandler, public TaskChannels {
 public:
  Impl(const ServerOptions& options, std::string task_name, std::string address)
      : options_(options), task_name_(std::move(task_name)), address_(std::move(address)) {}
  ~Impl() override { Stop(); }

  absl::Status Start();
  void Stop();

  // TransportHandler.
  void HandleCall(absl::string_view method, absl::string_view request,
                  TransportReply reply) override {
    {
      std::lock_guard<std::mutex> lock(calls_mu_);
      auto it = calls_received_.find(method);
      if (it == calls_received_.end()) it = calls_received_.emplace(std::string(method), 0).first;
      ++it->second;
    }
    if (absl::StartsWith(method, "Worker/")) {
      worker_->HandleCall(method, request, std::move(reply));
    } else if (absl::StartsWith(method, "Master/")) {
      master_->HandleCall(method, request, std::move(reply));
    } else {
      Answer(std::move(reply),
             absl::UnimplementedError(absl::StrCat(task_name_, " has no method '", method, "'")),
             nullptr);
    }
  }
  void HandleRecvTensor(uint64_t step_id, absl::string_view rendezvous_key,
                        TransportReply reply) override {
    worker_->HandleRecvTensor(step_id, rendezvous_key, std::move(reply));
  }

  // TaskChannels.
  absl::StatusOr<TransportChannel*> ChannelTo(const std::string& task_name) override {
    ASSIGN_OR_RETURN(std::string address, options_.cluster.AddressOf(task_name));
    return channels_->Get(address);
  }
  InProcessChannel* InProcessChannelTo(const std::string& task_name) override {
    return task_name == task_name_ ? own_worker_.get() : nullptr;
  }

  const std::string& task_name() const { return task_name_; }
  const std::string& transport_name() const { return options_.transport; }
  const std::string& address() const { return bound_address_; }
  Server::State state() const {
    Server::State state;
    state.master_sessions = master_->live_sessions();
    state.worker_sessions = worker_->live_sessions();
    state.worker_steps = worker_->live_steps();
    {
      std::lock_guard<std::mutex> lock(calls_mu_);
      state.calls_received.insert(calls_received_.begin(), calls_received_.end());
    }
    state.in_process_calls = own_worker_->calls();
    return state;
  }
  std::vector<std::string> devices() const {
    std::vector<std::string> names;
    for (const Device* d : env_->devices().devices()) names.push_back(d->name());
    return names;
  }

 private:
  void ExpiryLoop();

  const ServerOptions options_;
  const std::string task_name_;
  const std::string address_;
  std::string bound_address_;
  std::shared_ptr<Environment> env_;
  std::shared_ptr<PluginTransport> transport_;
  std::unique_ptr<ChannelCache> channels_;
  std::unique_ptr<Worker> worker_;
  // The master's calls to this task's worker; destroyed after the master, before the worker.
  std::unique_ptr<InProcessChannel> own_worker_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<TransportServer> server_;

  mutable std::mutex calls_mu_;
  std::map<std::string, int64_t, std::less<>> calls_received_;  // through the transport

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::thread expiry_;
};

absl::Status Server::Impl::Start() {
  EnvironmentOptions env_options;
  env_options.plugin_paths = options_.plugin_paths;
  env_options.plugin_policy = options_.plugin_policy;
  env_options.plugin_policy.NameSources("ServerOptions::plugin_policy");
  env_options.inter_op_threads = options_.inter_op_threads;
  env_options.intra_op_threads = options_.intra_op_threads;
  env_options.device_count = options_.device_count;
  env_options.device_options = options_.device_options;
  env_options.job = options_.job;
  env_options.task = options_.task;
  ASSIGN_OR_RETURN(env_, Environment::Create(env_options));
  const TransportSpec* spec = env_->plugins().FindTransport(options_.transport);
  if (spec == nullptr) {
    std::vector<std::string> names;
    for (const TransportSpec& t : env_->plugins().transports()) names.push_back(t.name);
    return absl::NotFoundError(
        absl::StrCat("no transport plugin provides '", options_.transport,
                     "'; loaded transports: ", names.empty() ? "none" : absl::StrJoin(names, ", "),
                     " (`tessera plugins` lists the plugins found and why any was rejected)"));
  }
  transport_ = PluginTransport::Create(*spec, env_->plugins().host_api());
  TransportOptions client_options(options_.transport_options.begin(),
                                  options_.transport_options.end());
  TransportOptions server_options = client_options;
  server_options.erase("tls_server_name");
  channels_ = std::make_unique<ChannelCache>(transport_, client_options);

  WorkerOptions worker_options;
  worker_options.task_name = task_name_;
  worker_options.call_timeout_ms = options_.call_timeout_ms;
  worker_options.step_idle_timeout_ms = options_.step_idle_timeout_ms;
  worker_options.session_idle_timeout_ms = options_.session_idle_timeout_ms;
  worker_options.master_sessions = [this] { return master_->live_sessions(); };
  worker_options.log = options_.log;
  worker_ = std::make_unique<Worker>(env_, this, worker_options);
  own_worker_ = std::make_unique<InProcessChannel>(task_name_, worker_.get());
  MasterOptions master_options;
  master_options.task_name = task_name_;
  master_options.cluster_tasks = options_.cluster.TaskNames();
  master_options.call_timeout_ms = options_.call_timeout_ms;
  master_options.session_idle_timeout_ms = options_.session_idle_timeout_ms;
  master_options.log = options_.log;
  master_ = std::make_unique<Master>(env_, this, master_options);

  absl::StatusOr<std::unique_ptr<TransportServer>> server =
      transport_->Listen(address_, server_options, this);
  if (!server.ok()) {
    return WithContext(server.status(),
                       absl::StrCat("while starting ", task_name_, " at ", address_));
  }
  server_ = *std::move(server);
  bound_address_ = server_->address();
  expiry_ = std::thread([this] { ExpiryLoop(); });
  return absl::OkStatus();
}

void Server::Impl::ExpiryLoop() {
  int64_t shortest = std::min(options_.session_idle_timeout_ms, options_.step_idle_timeout_ms);
  // Idle state is looked at a few times per timeout; orphaned steps every kOrphanCheckPeriod.
  auto period = std::min<std::chrono::milliseconds>(
      kOrphanCheckPeriod,
      std::chrono::milliseconds(std::max<int64_t>(50, std::min<int64_t>(1000, shortest / 4))));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, period, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    auto now = std::chrono::steady_clock::now();
    master_->ExpireIdle(now);
    worker_->ExpireIdle(now);
    worker_->CancelOrphanedSteps();
    lock.lock();
  }
}

void Server::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (expiry_.joinable()) expiry_.join();
  absl::Status down = absl::UnavailableError(absl::StrCat(task_name_, " is shutting down"));
  if (worker_ != nullptr) worker_->Shutdown(down);
  if (server_ != nullptr) server_->Stop();
  if (master_ != nullptr) master_->Shutdown(down);
}

absl::StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  // A worker pulls large tensors: the transport reads them into buffers it frees chunk by chunk.
  // With glibc's default trim threshold every free hands the pages back and every pull faults
  // them in again (half the speed of a raw socket for 64 MiB); keeping up to 32 MiB of freed
  // memory per arena avoids that (docs/transports.md).
  static const bool trimmed = [] { return mallopt(M_TRIM_THRESHOLD, 32 << 20) == 1; }();
  (void)trimmed;
  ASSIGN_OR_RETURN(std::string address, options.cluster.TaskAddress(options.job, options.task));
  std::string task_name = absl::StrCat("/job:", options.job, "/replica:0/task:", options.task);
  auto impl = std::make_unique<Impl>(options, task_name, address);
  RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { Stop(); }

const std::string& Server::task_name() const { return impl_->task_name(); }
const std::string& Server::address() const { return impl_->address(); }
std::string Server::target() const {
  return absl::StrCat(impl_->transport_name(), "://", impl_->address());
}
std::vector<std::string> Server::devices() const { return impl_->devices(); }
Server::State Server::state() const { return impl_->state(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace tessera
