// The master service and its sessions.
#include "host/distributed/master.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/distributed/cluster_spec.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/graph/tensor_id.h"
#include "host/ops/partial_shape.h"
#include "host/partition/graph_partition.h"
#include "host/passes/rewrite_for_execution.h"
#include "host/placer/placer.h"
#include "host/runtime/device.h"
#include "host/runtime/thread_pool.h"
#include "host/session/environment.h"

namespace tessera {

using Clock = std::chrono::steady_clock;

namespace {

// TensorFlow's step ids: random, with the top byte fixed to 0x01.
uint64_t NewStepId() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  return (rng() & ((uint64_t{1} << 56) - 1)) | (uint64_t{1} << 56);
}

// The task of a placed node's device (placed names are full, so they always have one).
std::string TaskOfDevice(absl::string_view device) {
  absl::StatusOr<std::string> task = TaskNameOf(device);
  return task.ok() ? *task : "";
}

// Counts calls down and keeps the first error.
struct CallGroup {
  std::mutex mu;
  std::condition_variable cv;
  int remaining = 0;
  absl::Status first_error;

  explicit CallGroup(int n) : remaining(n) {}
  void Done(const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu);
    // An unshared copy: the status's message is not shared with the transport's thread, whose
    // reference counting ThreadSanitizer cannot see in Debian's uninstrumented Abseil.
    if (!status.ok() && first_error.ok()) {
      first_error = absl::Status(status.code(), status.message());
    }
    if (--remaining == 0) cv.notify_all();
  }
  absl::Status Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return remaining == 0; });
    return first_error;
  }
};

// Sends `request` to every task at once and waits for all the answers (responses[i] is task
// i's); the first error, naming its task.
template <typename Response>
absl::Status CallEveryTask(TaskChannels* channels, const std::vector<std::string>& tasks,
                           absl::string_view method, const google::protobuf::Message& request,
                           int64_t timeout_ms, std::vector<Response>* responses) {
  responses->assign(tasks.size(), Response());
  auto group = std::make_shared<CallGroup>(static_cast<int>(tasks.size()));
  for (size_t i = 0; i < tasks.size(); ++i) {
    absl::StatusOr<Peer> peer = PeerOfTask(channels, tasks[i]);
    if (!peer.ok()) {
      group->Done(peer.status());
      continue;
    }
    CallAsync(*peer, method, request, timeout_ms, &(*responses)[i],
              [group](const absl::Status& status) { group->Done(status); });
  }
  return group->Wait();
}

}  // namespace

// One client session: the placed graph and, per signature, its registered partitions.
class Master::MasterSession {
 public:
  struct Part {
    std::string task;
    std::string graph_handle;
    bool has_args = false;  // the client task's piece: _Arg and _Retval nodes
    // Other tasks pull values from this piece (it has a _Send to another task): its step state
    // must outlive its run, until the step's CleanupGraph.
    bool sends_to_other_tasks = false;
  };
  struct Plan {
    std::vector<Part> parts;
    std::vector<DataType> feed_types;
    std::vector<PartialShape> feed_shapes;
    size_t num_fetches = 0;
  };

  MasterSession(Master* master, std::string handle, distributed::CreateSessionRequest request)
      : master_(master), handle_(std::move(handle)), request_(std::move(request)) {}

  const std::string& handle() const { return handle_; }
  // Idle since when; a session with a call in progress is never idle.
  bool IdleLongerThan(Clock::time_point now, std::chrono::milliseconds timeout) const {
    std::lock_guard<std::mutex> lock(use_mu_);
    return calls_in_progress_ == 0 && now - last_used_ > timeout;
  }
  void BeginCall() {
    std::lock_guard<std::mutex> lock(use_mu_);
    ++calls_in_progress_;
    last_used_ = Clock::now();
  }
  void EndCall() {
    std::lock_guard<std::mutex> lock(use_mu_);
    --calls_in_progress_;
    last_used_ = Clock::now();
  }

  // Learns the cluster's devices, creates the worker sessions and places the graph.
  absl::Status Initialize() {
    std::lock_guard<std::mutex> lock(mu_);
    return RefreshLocked();
  }

  std::vector<std::string> DeviceNames() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    for (const auto& device : devices_) names.push_back(device->name());
    return names;
  }

  // `caller_gone` says whether the client stopped waiting; the step is then cancelled.
  absl::Status RunStep(const distributed::RunStepRequest& request,
                       const std::function<bool()>& caller_gone,
                       distributed::RunStepResponse* response);

  // Deletes the worker sessions (best effort, not waited for).
  void Close() {
    distributed::DeleteWorkerSessionRequest args;
    args.set_session_handle(handle_);
    for (const std::string& task : master_->options_.cluster_tasks) {
      absl::StatusOr<Peer> peer = PeerOf(task);
      if (!peer.ok()) continue;
      auto response = std::make_shared<distributed::DeleteWorkerSessionResponse>();
      CallAsync(*peer, kWorkerDeleteWorkerSession, args, master_->options_.call_timeout_ms,
                response.get(), [response](const absl::Status&) {});
    }
  }

 private:
  absl::StatusOr<Peer> PeerOf(const std::string& task) const {
    return PeerOfTask(master_->channels_, task);
  }
  int64_t CallTimeout(int64_t step_timeout_ms) const {
    return step_timeout_ms > 0 ? step_timeout_ms : master_->options_.call_timeout_ms;
  }

  absl::Status RefreshLocked();
  absl::StatusOr<std::shared_ptr<const Plan>> GetOrCreatePlan(
      const distributed::RunStepRequest& request);
  absl::StatusOr<std::shared_ptr<const Plan>> CreatePlan(const ExecutionSignature& signature);
  absl::Status CheckFeeds(const Plan& plan, const distributed::RunStepRequest& request,
                          std::vector<Tensor>* feeds) const;
  absl::Status Execute(const Plan& plan, std::vector<Tensor> feeds, int64_t timeout_ms,
                       const std::function<bool()>& caller_gone,
                       distributed::RunStepResponse* response);
  void MarkStale() {
    std::lock_guard<std::mutex> lock(mu_);
    stale_ = true;
  }

  Master* master_;
  const std::string handle_;
  const distributed::CreateSessionRequest request_;

  mutable std::mutex use_mu_;  // guards the two below only (never held across a call)
  Clock::time_point last_used_ = Clock::now();
  int calls_in_progress_ = 0;

  mutable std::mutex mu_;
  bool stale_ = true;  // the cluster's devices must be (re)learned before the next step
  std::vector<std::unique_ptr<Device>> devices_;
  std::map<std::string, uint64_t> incarnations_;
  std::unique_ptr<Graph> placed_;
  std::map<std::string, std::shared_ptr<const Plan>> plans_;
};

absl::Status Master::MasterSession::RefreshLocked() {
  const MasterOptions& options = master_->options_;
  // Every task's devices, in parallel. A task that was just restarted may still be unreachable
  // for a moment (its transport backs off between connection attempts): UNAVAILABLE is retried
  // a few times within about a second, never past the call deadline.
  std::vector<distributed::GetStatusResponse> statuses;
  absl::Status reached;
  int64_t waited_ms = 0;
  for (int64_t backoff_ms = 100;; backoff_ms *= 2) {
    reached = CallEveryTask(master_->channels_, options.cluster_tasks, kWorkerGetStatus,
                            distributed::GetStatusRequest(), options.call_timeout_ms, &statuses);
    if (reached.code() != absl::StatusCode::kUnavailable || waited_ms + backoff_ms > 1600 ||
        waited_ms + backoff_ms >= options.call_timeout_ms) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
    waited_ms += backoff_ms;
  }
  RETURN_IF_ERROR(reached);

  std::map<std::string, uint64_t> incarnations;
  std::vector<std::unique_ptr<Device>> devices;
  for (const distributed::GetStatusResponse& status : statuses) {
    for (const distributed::DeviceAttributes& d : status.devices()) {
      incarnations[d.name()] = d.incarnation();
      devices.push_back(
          Device::Remote(d.name(), d.device_type(), d.type_priority(), d.flags(), d.incarnation()));
    }
  }
  // Worker sessions (idempotent: a worker that kept its session keeps its variables).
  distributed::CreateWorkerSessionRequest create;
  create.set_session_handle(handle_);
  std::vector<distributed::CreateWorkerSessionResponse> created;
  RETURN_IF_ERROR(CallEveryTask(master_->channels_, options.cluster_tasks,
                                kWorkerCreateWorkerSession, create, options.call_timeout_ms,
                                &created));

  if (placed_ != nullptr && incarnations == incarnations_) {
    stale_ = false;
    return absl::OkStatus();
  }
  // New devices (first time, or a worker restarted): place again and forget every partition,
  // whose _Send nodes carry the old incarnations.
  std::vector<Device*> device_ptrs;
  for (const auto& device : devices) device_ptrs.push_back(device.get());
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                   ImportGraphDef(request_.graph_def(), master_->env_->ops()));
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = request_.config().allow_soft_placement();
  placer_options.log_device_placement = request_.config().log_device_placement();
  placer_options.preferred_task = options.task_name;
  RETURN_IF_ERROR(PlaceGraph(graph.get(), device_ptrs, master_->env_->kernels(), placer_options));
  devices_ = std::move(devices);
  incarnations_ = std::move(incarnations);
  placed_ = std::move(graph);
  plans_.clear();
  stale_ = false;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Master::MasterSession::Plan>>
Master::MasterSession::GetOrCreatePlan(const distributed::RunStepRequest& request) {
  ExecutionSignature signature;
  std::string key;
  for (const distributed::NamedTensor& feed : request.feeds()) {
    signature.feeds.push_back(feed.name());
    absl::StrAppend(&key, feed.name(), ",");
  }
  key.append("->");
  for (const std::string& fetch : request.fetches()) {
    signature.fetches.push_back(fetch);
    absl::StrAppend(&key, fetch, ",");
  }
  key.append("/");
  for (const std::string& target : request.targets()) {
    signature.targets.push_back(target);
    absl::StrAppend(&key, target, ",");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stale_) RETURN_IF_ERROR(RefreshLocked());
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, CreatePlan(signature));
  plans_.emplace(key, plan);
  return plan;
}

absl::StatusOr<std::shared_ptr<const Master::MasterSession::Plan>>
Master::MasterSession::CreatePlan(const ExecutionSignature& signature) {
  const MasterOptions& options = master_->options_;
  const Environment& env = *master_->env_;
  auto plan = std::make_shared<Plan>();
  std::unique_ptr<Graph> graph = placed_->CloneReaching(SignatureNodes(*placed_, signature));
  for (const std::string& feed : signature.feeds) {
    absl::StatusOr<TensorId> id = ParseTensorName(feed);
    const Node* node = id.ok() ? graph->FindNode(id->node) : nullptr;
    plan->feed_shapes.push_back(node != nullptr && id->index >= 0 && id->index < node->num_outputs()
                                    ? node->output_shape(id->index)
                                    : PartialShape());
  }
  // Feeds and fetches cross on this task's first CPU device: the client task's piece holds every
  // _Arg and _Retval.
  std::string client_device;
  for (const auto& device : devices_) {
    if (TaskOfDevice(device->name()) == options.task_name && device->device_type() == "CPU") {
      client_device = device->name();
      break;
    }
  }
  if (client_device.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the master's task ", options.task_name, " has no CPU device"));
  }
  RewriteResult rewrite;
  RETURN_IF_ERROR(RewriteGraphForExecution(graph.get(), signature, client_device, &rewrite));
  plan->feed_types = rewrite.feed_types;
  plan->num_fetches = signature.fetches.size();
  bool has_control_flow = false;
  for (const Node* node : graph->op_nodes()) {
    has_control_flow = has_control_flow || IsControlFlow(*node);
  }

  std::map<std::string, const Device*> by_name;
  for (const auto& device : devices_) by_name[device->name()] = device.get();
  PartitionOptions partition;
  partition.node_to_loc = [](const Node& node) { return TaskOfDevice(node.assigned_device()); };
  partition.get_incarnation = [this](const std::string& name) -> uint64_t {
    auto it = incarnations_.find(name);
    return it != incarnations_.end() ? it->second : 0;
  };
  partition.memory_types = [&env, &by_name](const Node& node) -> absl::StatusOr<MemoryTypes> {
    auto it = by_name.find(node.assigned_device());
    if (it == by_name.end()) {
      return absl::InternalError(absl::StrCat("node '", node.name(), "' is placed on unknown '",
                                              node.assigned_device(), "'"));
    }
    std::vector<bool> inputs_on_host;
    std::vector<bool> outputs_on_host;
    RETURN_IF_ERROR(env.kernels().HostMemoryArgs(node, it->second->device_type(), &inputs_on_host,
                                                 &outputs_on_host));
    MemoryTypes types;
    for (bool host : inputs_on_host) {
      types.inputs.push_back(host ? MemoryType::kHost : MemoryType::kDevice);
    }
    for (bool host : outputs_on_host) {
      types.outputs.push_back(host ? MemoryType::kHost : MemoryType::kDevice);
    }
    return types;
  };
  partition.is_host_memory_device = [&by_name](const std::string& name) {
    auto it = by_name.find(name);
    return it != by_name.end() && it->second->host_memory();
  };
  std::map<std::string, tensorflow::GraphDef> pieces;
  RETURN_IF_ERROR(Partition(partition, graph.get(), &pieces));

  // Registration of every piece, in parallel.
  std::vector<distributed::RegisterGraphResponse> responses(pieces.size());
  auto group = std::make_shared<CallGroup>(static_cast<int>(pieces.size()));
  size_t i = 0;
  for (auto& [task, def] : pieces) {
    Part part;
    part.task = task;
    part.has_args = TaskOfDevice(client_device) == task;
    // The pieces are cut by task, so each of their _Send nodes feeds another task.
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.op() == "_Send" || node.op() == "_HostSend") part.sends_to_other_tasks = true;
    }
    plan->parts.push_back(part);
    distributed::RegisterGraphRequest args;
    args.set_session_handle(handle_);
    *args.mutable_graph_def() = std::move(def);
    args.set_has_control_flow(has_control_flow);
    args.set_disable_op_fusion(request_.config().disable_op_fusion());
    absl::StatusOr<Peer> peer = PeerOf(task);
    if (!peer.ok()) {
      group->Done(peer.status());
    } else {
      CallAsync(*peer, kWorkerRegisterGraph, args, options.call_timeout_ms, &responses[i],
                [group](const absl::Status& status) { group->Done(status); });
    }
    ++i;
  }
  absl::Status registered = group->Wait();
  if (!registered.ok()) {
    if (registered.code() == absl::StatusCode::kUnavailable ||
        registered.code() == absl::StatusCode::kAborted) {
      stale_ = true;
    }
    return registered;
  }
  for (size_t j = 0; j < plan->parts.size(); ++j) {
    plan->parts[j].graph_handle = responses[j].graph_handle();
  }
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::Status Master::MasterSession::CheckFeeds(const Plan& plan,
                                               const distributed::RunStepRequest& request,
                                               std::vector<Tensor>* feeds) const {
  for (int i = 0; i < request.feeds_size(); ++i) {
    const distributed::NamedTensor& feed = request.feeds(i);
    absl::StatusOr<Tensor> read = TensorFromProto(feed.tensor());
    if (!read.ok()) {
      return WithContext(read.status(), absl::StrCat("while reading feed '", feed.name(), "'"));
    }
    Tensor value = *std::move(read);
    if (value.dtype() != plan.feed_types[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed '", feed.name(), "' has type ", DataTypeString(value.dtype()),
                       ", but the graph expects ", DataTypeString(plan.feed_types[i])));
    }
    if (!plan.feed_shapes[i].IsCompatibleWith(PartialShape::FromTensorShape(value.shape()))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot feed a value of shape ", value.shape().DebugString(), " for tensor '",
          feed.name(), "', which has shape ", plan.feed_shapes[i].ToString()));
    }
    feeds->push_back(std::move(value));
  }
  return absl::OkStatus();
}

absl::Status Master::MasterSession::RunStep(const distributed::RunStepRequest& request,
                                            const std::function<bool()>& caller_gone,
                                            distributed::RunStepResponse* response) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, GetOrCreatePlan(request));
  std::vector<Tensor> feeds;
  RETURN_IF_ERROR(CheckFeeds(*plan, request, &feeds));
  return Execute(*plan, std::move(feeds), request.timeout_ms(), caller_gone, response);
}

absl::Status Master::MasterSession::Execute(const Plan& plan, std::vector<Tensor> feeds,
                                            int64_t timeout_ms,
                                            const std::function<bool()>& caller_gone,
                                            distributed::RunStepResponse* response) {
  const uint64_t step_id = NewStepId();
  // A timeout from the network is bounded so that the deadline arithmetic below cannot overflow.
  const int64_t deadline_ms = std::min(CallTimeout(timeout_ms), kMaxTimeoutMs);
  // The master ends the step at its deadline itself: it aborts every piece and gives them this
  // long to stop before their calls time out, so that the pieces still running then (a stopped
  // or hung task) are told apart from those that stopped. It fits in the margin a client leaves
  // between the step's timeout and its own call's deadline.
  // (A client leaves min(5 s, timeout / 10); the grace is at most a twentieth of the step's.)
  const int64_t grace_ms = std::clamp<int64_t>(deadline_ms / 20, 1, 1000);
  const auto step_deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline_ms);
  struct StepCalls {
    std::mutex mu;
    std::condition_variable cv;
    int remaining = 0;
    absl::Status first_error;
    std::vector<distributed::RunGraphResponse> responses;
    std::vector<bool> finished;
    // Set when the step reached its deadline: the pieces unfinished then, and those of them that
    // had not stopped `grace_ms` after the abort (their calls timed out).
    bool past_deadline = false;
    bool deadline_was_cause = false;
    std::vector<std::string> running_at_deadline;
    std::vector<std::string> did_not_stop;
  };
  auto calls = std::make_shared<StepCalls>();
  calls->remaining = static_cast<int>(plan.parts.size());
  calls->responses.resize(plan.parts.size());
  calls->finished.assign(plan.parts.size(), false);
  std::vector<std::string> tasks;
  for (const Part& part : plan.parts) tasks.push_back(part.task);
  std::vector<Peer> peers;
  for (const Part& part : plan.parts) {
    absl::StatusOr<Peer> peer = PeerOf(part.task);
    if (!peer.ok()) return peer.status();
    peers.push_back(*peer);
  }
  auto abort_all = [step_id, peers, deadline_ms](const absl::Status& cause) {
    distributed::AbortStepRequest abort;
    abort.set_step_id(step_id);
    abort.set_code(static_cast<int>(cause.code()));
    abort.set_message(std::string(cause.message()));
    // The failed task too: when its call failed in the transport (deadline, lost connection) its
    // piece may still be running.
    for (const Peer& peer : peers) {
      auto ignored = std::make_shared<distributed::AbortStepResponse>();
      CallAsync(peer, kWorkerAbortStep, abort, deadline_ms, ignored.get(),
                [ignored](const absl::Status&) {});
    }
  };
  // Every piece's call starts before any answer is awaited: the pieces of other tasks first,
  // whose calls cross the transport, then the master's own task's, a direct call in process.
  std::vector<size_t> order;
  for (size_t i = 0; i < peers.size(); ++i) {
    if (peers[i].in_process == nullptr) order.push_back(i);
  }
  for (size_t i = 0; i < peers.size(); ++i) {
    if (peers[i].in_process != nullptr) order.push_back(i);
  }
  for (size_t i : order) {
    distributed::RunGraphRequest args;
    args.set_session_handle(handle_);
    args.set_graph_handle(plan.parts[i].graph_handle);
    args.set_step_id(step_id);
    args.set_timeout_ms(deadline_ms);
    args.set_ends_step(!plan.parts[i].sends_to_other_tasks);
    if (plan.parts[i].has_args) {
      for (const Tensor& feed : feeds) TensorToProto(feed, args.add_args());
    }
    CallAsync(peers[i], kWorkerRunGraph, args, deadline_ms + grace_ms, &calls->responses[i],
              [calls, abort_all, i, tasks](const absl::Status& status) mutable {
                bool first = false;
                {
                  std::lock_guard<std::mutex> lock(calls->mu);
                  if (!status.ok() && calls->first_error.ok()) {
                    // Unshared, as in CallGroup::Done.
                    calls->first_error = absl::Status(status.code(), status.message());
                    first = true;
                  }
                  // A piece whose call the transport timed out after the step's own deadline
                  // (rpc's "did not answer") did not stop when it was aborted; one that stopped
                  // answers with the abort's status.
                  if (calls->past_deadline &&
                      status.code() == absl::StatusCode::kDeadlineExceeded &&
                      absl::StrContains(status.message(), " did not answer ")) {
                    calls->did_not_stop.push_back(tasks[i]);
                  }
                  calls->finished[i] = true;
                }
                // The root cause is kept; the other pieces stop with it.
                if (first) abort_all(status);
                StepCalls* state = calls.get();
                std::lock_guard<std::mutex> lock(state->mu);
                if (--state->remaining == 0) state->cv.notify_all();
                // Dropped under the lock, while the master's thread (which cannot return before
                // taking it) still holds the state: that thread, which reads the step's
                // statuses, always frees them. Abseil's reference counts are invisible to
                // ThreadSanitizer (Debian's Abseil is not instrumented), so a status freed on
                // another thread than the one that read it last would be reported as a race.
                calls.reset();
              });
  }
  {
    // Waits for every piece; while they run, asks every kOrphanCheckPeriod whether the client
    // still waits, and cancels the step everywhere when it does not.
    std::unique_lock<std::mutex> lock(calls->mu);
    bool checked_caller = caller_gone == nullptr;
    auto next_wait = [&] {
      if (calls->past_deadline)
        return std::chrono::duration_cast<std::chrono::milliseconds>(kOrphanCheckPeriod);
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          step_deadline - std::chrono::steady_clock::now());
      return std::clamp<std::chrono::milliseconds>(left, std::chrono::milliseconds(1),
                                                   kOrphanCheckPeriod);
    };
    while (!calls->cv.wait_for(lock, next_wait(), [&] { return calls->remaining == 0; })) {
      if (!calls->past_deadline && std::chrono::steady_clock::now() >= step_deadline) {
        calls->past_deadline = true;
        absl::Status cause = absl::DeadlineExceededError(
            absl::StrCat("step ", step_id, " ran past its deadline of ", deadline_ms, " ms"));
        // An earlier failure stays the step's reason; the deadline is reported only as its own.
        calls->deadline_was_cause = calls->first_error.ok();
        if (calls->first_error.ok()) calls->first_error = cause;
        for (size_t j = 0; j < tasks.size(); ++j) {
          if (!calls->finished[j]) calls->running_at_deadline.push_back(tasks[j]);
        }
        lock.unlock();
        abort_all(cause);
        lock.lock();
        continue;
      }
      if (checked_caller || !caller_gone()) continue;
      checked_caller = true;
      absl::Status cause = absl::CancelledError(absl::StrCat(
          "step ", step_id, " of session '", handle_, "' was cancelled on ",
          master_->options_.task_name,
          ": its client no longer waits for it (the client died, its connection broke or its "
          "call's deadline passed)"));
      if (calls->first_error.ok()) calls->first_error = cause;
      lock.unlock();
      if (master_->options_.log) master_->options_.log(std::string(cause.message()));
      abort_all(cause);
      lock.lock();
    }
  }
  // The step's state goes now from the tasks that kept it for other tasks' pulls; nobody waits
  // for it (TensorFlow's master cleans up asynchronously too). The other pieces' state went
  // when their runs ended (RunGraphRequest.ends_step), unless the step failed: a piece whose
  // RunGraph was refused before it ran (or never arrived) may have had state made for it by
  // the step's AbortStep, so every task is cleaned up then.
  distributed::CleanupGraphRequest cleanup;
  cleanup.set_step_id(step_id);
  for (size_t i = 0; i < peers.size(); ++i) {
    if (!plan.parts[i].sends_to_other_tasks && calls->first_error.ok()) continue;
    auto ignored = std::make_shared<distributed::CleanupGraphResponse>();
    CallAsync(peers[i], kWorkerCleanupGraph, cleanup, master_->options_.call_timeout_ms,
              ignored.get(), [ignored](const absl::Status&) {});
  }
  for (const Part& part : plan.parts) response->add_partition_tasks(part.task);
  if (!calls->first_error.ok()) {
    absl::StatusCode code = calls->first_error.code();
    if (code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kAborted ||
        code == absl::StatusCode::kDeadlineExceeded) {
      MarkStale();
    }
    if (calls->deadline_was_cause && !calls->did_not_stop.empty()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "step ", step_id, " ran past its deadline of ", deadline_ms, " ms; still running on ",
          absl::StrJoin(calls->did_not_stop, ", "), ", which did not stop within ", grace_ms,
          " ms of being aborted (stopped, hung or unreachable)"));
    }
    if (calls->deadline_was_cause && !calls->running_at_deadline.empty()) {
      return absl::DeadlineExceededError(
          absl::StrCat("step ", step_id, " ran past its deadline of ", deadline_ms,
                       " ms and was stopped; its pieces on ",
                       absl::StrJoin(calls->running_at_deadline, ", "), " had not finished"));
    }
    return calls->first_error;
  }
  for (size_t i = 0; i < plan.parts.size(); ++i) {
    if (!plan.parts[i].has_args) continue;
    const distributed::RunGraphResponse& result = calls->responses[i];
    if (static_cast<size_t>(result.retvals_size()) != plan.num_fetches) {
      return absl::InternalError(absl::StrCat(plan.parts[i].task, " returned ",
                                              result.retvals_size(), " values for ",
                                              plan.num_fetches, " fetches"));
    }
    for (int j = 0; j < result.retvals_size(); ++j) {
      if (j < result.retval_is_dead_size() && result.retval_is_dead(j)) {
        return absl::InvalidArgumentError(
            absl::StrCat("fetch ", j,
                         " is dead: it depends on the untaken side of a Switch, so it was not "
                         "computed in this step"));
      }
      *response->add_tensors() = result.retvals(j);
    }
  }
  return absl::OkStatus();
}

// ---- Master ---------------------------------------------------------------------------------

Master::Master(std::shared_ptr<Environment> env, TaskChannels* channels, MasterOptions options)
    : env_(std::move(env)),
      channels_(channels),
      options_(std::move(options)),
      pool_(std::make_unique<ThreadPool>("master", 4)),
      next_session_id_(std::random_device{}()) {}

Master::~Master() { Shutdown(absl::UnavailableError("the master is shutting down")); }

void Master::HandleCall(absl::string_view method, absl::string_view request, TransportReply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!shutdown_.ok()) {
    Answer(std::move(reply), shutdown_, nullptr);
    return;
  }
  auto shared_reply = std::make_shared<TransportReply>(std::move(reply));
  std::string bytes(request);
  std::string name(method);
  pool_->Schedule([this, shared_reply, bytes = std::move(bytes), name = std::move(name)] {
    TransportReply reply = std::move(*shared_reply);
    if (name == kMasterCreateSession) return CreateSession(bytes, std::move(reply));
    if (name == kMasterRunStep) return RunStep(bytes, std::move(reply));
    if (name == kMasterCloseSession) return CloseSession(bytes, std::move(reply));
    if (name == kMasterListDevices) return ListDevices(bytes, std::move(reply));
    Answer(std::move(reply),
           absl::UnimplementedError(absl::StrCat("the master has no method '", name, "'")),
           nullptr);
  });
}

void Master::CreateSession(const std::string& request, TransportReply reply) {
  distributed::CreateSessionRequest args;
  absl::Status status = ParseRequest(kMasterCreateSession, request, &args);
  if (!status.ok()) return Answer(std::move(reply), status, nullptr);
  std::string handle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    handle = absl::StrCat(options_.task_name, "/session_", next_session_id_++);
  }
  auto session = std::make_shared<MasterSession>(this, handle, std::move(args));
  status = session->Initialize();
  distributed::CreateSessionResponse response;
  if (status.ok()) {
    response.set_session_handle(handle);
    for (const std::string& name : session->DeviceNames()) response.add_devices(name);
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.emplace(handle, session);
  } else {
    session->Close();
  }
  Answer(std::move(reply), WithContext(status, "while creating the session"), &response);
}

void Master::RunStep(const std::string& request, TransportReply reply) {
  distributed::RunStepRequest args;
  absl::Status status = ParseRequest(kMasterRunStep, request, &args);
  if (!status.ok()) return Answer(std::move(reply), status, nullptr);
  std::shared_ptr<MasterSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(args.session_handle());
    if (it != sessions_.end()) session = it->second;
  }
  if (session == nullptr) {
    return Answer(std::move(reply),
                  absl::NotFoundError(absl::StrCat("session '", args.session_handle(),
                                                   "' is not open on this master: it was closed "
                                                   "or expired after being idle")),
                  nullptr);
  }
  session->BeginCall();
  distributed::RunStepResponse response;
  status = session->RunStep(
      args, [&reply] { return reply.cancelled(); }, &response);
  session->EndCall();
  Answer(std::move(reply), status, &response);
}

void Master::CloseSession(const std::string& request, TransportReply reply) {
  distributed::CloseSessionRequest args;
  absl::Status status = ParseRequest(kMasterCloseSession, request, &args);
  std::shared_ptr<MasterSession> session;
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(args.session_handle());
    if (it != sessions_.end()) {
      session = std::move(it->second);
      sessions_.erase(it);
    }
  }
  if (session != nullptr) session->Close();
  distributed::CloseSessionResponse response;
  Answer(std::move(reply), status, &response);
}

void Master::ListDevices(const std::string& request, TransportReply reply) {
  distributed::ListDevicesResponse response;
  std::vector<distributed::GetStatusResponse> statuses;
  absl::Status status =
      CallEveryTask(channels_, options_.cluster_tasks, kWorkerGetStatus,
                    distributed::GetStatusRequest(), options_.call_timeout_ms, &statuses);
  for (const distributed::GetStatusResponse& s : statuses) {
    for (const distributed::DeviceAttributes& d : s.devices()) *response.add_devices() = d;
  }
  Answer(std::move(reply), status, &response);
}

int Master::ExpireIdle(Clock::time_point now) {
  std::vector<std::shared_ptr<MasterSession>> expired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->IdleLongerThan(now,
                                     std::chrono::milliseconds(options_.session_idle_timeout_ms))) {
        expired.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& session : expired) session->Close();
  return static_cast<int>(expired.size());
}

void Master::Shutdown(const absl::Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!shutdown_.ok()) return;
    shutdown_ = status;
  }
  pool_.reset();  // waits for calls in progress
}

int Master::live_sessions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(sessions_.size());
}

}  // namespace tessera
