// The client side of a distributed session.
#include "host/distributed/distributed_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/framework/tensor_proto_util.h"
#include "host/session/environment.h"
#include "registry/transport_handle.h"

namespace tessera {
namespace {

// Extra time a client gives a step beyond the step's own timeout, so that the master's answer
// (with the step's real error) arrives before the client's own deadline fires.
constexpr int64_t kClientGraceMs = 5000;

class DistributedSession final : public Session {
 public:
  DistributedSession(SessionOptions options, std::shared_ptr<Environment> env,
                     std::shared_ptr<PluginTransport> transport,
                     std::unique_ptr<TransportChannel> channel)
      : options_(std::move(options)),
        env_(std::move(env)),
        transport_(std::move(transport)),
        channel_(std::move(channel)) {}

  ~DistributedSession() override {
    if (handle_.empty()) return;
    distributed::CloseSessionRequest request;
    request.set_session_handle(handle_);
    distributed::CloseSessionResponse response;
    // Best effort: a master that is gone expires the session by itself.
    Call(master(), kMasterCloseSession, request, std::min<int64_t>(options_.call_timeout_ms, 5000),
         &response)
        .IgnoreError();
  }

  absl::Status Open(const tensorflow::GraphDef& graph) {
    distributed::CreateSessionRequest request;
    *request.mutable_graph_def() = graph;
    request.mutable_config()->set_allow_soft_placement(options_.allow_soft_placement);
    request.mutable_config()->set_log_device_placement(options_.log_device_placement);
    request.mutable_config()->set_disable_op_fusion(!options_.op_fusion);
    distributed::CreateSessionResponse response;
    RETURN_IF_ERROR(
        Call(master(), kMasterCreateSession, request, options_.call_timeout_ms, &response));
    handle_ = response.session_handle();
    devices_.assign(response.devices().begin(), response.devices().end());
    return absl::OkStatus();
  }

  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* metadata) override {
    if (options.collect_step_stats) {
      return absl::UnimplementedError(
          "step statistics (RunOptions::collect_step_stats, tessera run --trace) are not "
          "collected by a session on a cluster yet; run the graph in a local session to trace it");
    }
    distributed::RunStepRequest request;
    request.set_session_handle(handle_);
    for (const auto& [name, value] : feeds) {
      if (!value.host_accessible()) {
        return absl::InvalidArgumentError(
            absl::StrCat("feed '", name, "' must be a tensor in host memory"));
      }
      distributed::NamedTensor* feed = request.add_feeds();
      feed->set_name(name);
      TensorToProto(value, feed->mutable_tensor());
    }
    for (const std::string& fetch : fetches) request.add_fetches(fetch);
    for (const std::string& target : targets) request.add_targets(target);
    // With a step timeout the whole call ends by it: the master stops the step a little earlier
    // (a tenth, at most kClientGraceMs) so that its answer, with the step's real error, arrives
    // before the call's own deadline. Without one, the step gets the call timeout and the call
    // that plus the grace.
    int64_t step_timeout = options_.call_timeout_ms;
    int64_t call_timeout = options_.call_timeout_ms + kClientGraceMs;
    if (options.timeout_ms > 0) {
      call_timeout = options.timeout_ms;
      step_timeout = std::max<int64_t>(
          1, options.timeout_ms - std::min(kClientGraceMs, options.timeout_ms / 10));
    }
    request.set_timeout_ms(step_timeout);
    distributed::RunStepResponse response;
    RETURN_IF_ERROR(Call(master(), kMasterRunStep, request, call_timeout, &response));
    if (metadata != nullptr) {
      metadata->partition_devices.assign(response.partition_tasks().begin(),
                                         response.partition_tasks().end());
    }
    if (response.tensors_size() != static_cast<int>(fetches.size())) {
      return absl::InternalError(absl::StrCat("the master returned ", response.tensors_size(),
                                              " values for ", fetches.size(), " fetches"));
    }
    outputs->clear();
    for (int i = 0; i < response.tensors_size(); ++i) {
      absl::StatusOr<Tensor> value = TensorFromProto(response.tensors(i));
      if (!value.ok()) {
        return WithContext(value.status(), absl::StrCat("while reading fetch '", fetches[i], "'"));
      }
      outputs->push_back(*std::move(value));
    }
    return absl::OkStatus();
  }
  using Session::Run;

  std::vector<std::string> ListDevices() const override { return devices_; }

 private:
  Peer master() const { return Peer{"the master", channel_.get()}; }

  SessionOptions options_;
  std::shared_ptr<Environment> env_;
  std::shared_ptr<PluginTransport> transport_;
  std::unique_ptr<TransportChannel> channel_;
  std::string handle_;
  std::vector<std::string> devices_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> CreateDistributedSession(
    const SessionOptions& options, const tensorflow::GraphDef& graph) {
  const std::string& target = options.target;
  size_t scheme_end = target.find("://");
  std::string scheme = scheme_end == std::string::npos ? "" : target.substr(0, scheme_end);
  std::string address = scheme_end == std::string::npos ? "" : target.substr(scheme_end + 3);
  size_t colon = address.rfind(':');
  if (scheme.empty() || address.empty() || colon == std::string::npos || colon == 0 ||
      colon + 1 == address.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("session target '", target,
                     "' is not <transport>://host:port (e.g. grpc://localhost:2222)"));
  }
  EnvironmentOptions env_options;
  env_options.plugin_paths = options.plugin_paths;
  env_options.default_plugin_dir = options.default_plugin_dir;
  env_options.plugin_policy = options.plugin_policy;
  env_options.plugin_policy.NameSources("SessionOptions::plugin_policy");
  env_options.inter_op_threads = options.inter_op_threads;
  env_options.intra_op_threads = options.intra_op_threads;
  ASSIGN_OR_RETURN(std::shared_ptr<Environment> env, Environment::Get(env_options));
  const TransportSpec* spec = env->plugins().FindTransport(scheme);
  if (spec == nullptr) {
    std::vector<std::string> names;
    for (const TransportSpec& t : env->plugins().transports()) names.push_back(t.name);
    return absl::NotFoundError(absl::StrCat(
        "session target '", target, "': no transport plugin provides '", scheme,
        "'; loaded transports: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
  }
  std::shared_ptr<PluginTransport> transport =
      PluginTransport::Create(*spec, env->plugins().host_api());
  TransportOptions transport_options(options.transport_options.begin(),
                                     options.transport_options.end());
  ASSIGN_OR_RETURN(std::unique_ptr<TransportChannel> channel,
                   transport->Connect(address, transport_options));
  auto session = std::make_unique<DistributedSession>(options, std::move(env), std::move(transport),
                                                      std::move(channel));
  RETURN_IF_ERROR(session->Open(graph));
  return std::unique_ptr<Session>(std::move(session));
}

}  // namespace tessera
