// The worker service.
#include "host/distributed/worker.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/distributed/proto/distributed.pb.h"
#include "host/distributed/rpc.h"
#include "host/framework/tensor_proto_util.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/kernels/shared_kernels.h"
#include "host/runtime/device.h"
#include "host/runtime/packed_strings.h"
#include "host/runtime/resource_manager.h"
#include "host/session/environment.h"
#include "host/session/execution_plan.h"

namespace tessera {

using Clock = std::chrono::steady_clock;

// What one master session keeps on this worker: its variables and registered graphs.
struct Worker::WorkerSession {
  std::string handle;
  std::shared_ptr<ResourceManager> resources = std::make_shared<ResourceManager>();
  std::shared_ptr<SharedKernels> shared_kernels = std::make_shared<SharedKernels>();
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const ExecutionPlan>> graphs;
  Clock::time_point last_used = Clock::now();  // guarded by the worker's mutex
  int running = 0;  // partitions running; a session with one never expires (worker's mutex)
};

// One step's state here: its rendezvous, shared by the step's partitions and the pulls of other
// tasks.
struct Worker::Step {
  std::shared_ptr<RemoteRendezvous> rendezvous;
  Clock::time_point last_used = Clock::now();  // guarded by the worker's mutex
  int running = 0;                             // partitions running; a running step never expires
  // Past it, a running step is aborted (its master may be gone); guarded by the worker's mutex.
  Clock::time_point deadline = Clock::time_point::max();
  // Set on abort: the step's executors start no further node (a loop that never touches the
  // rendezvous stops too).
  std::atomic<bool> cancelled{false};
  // The RunGraph calls running now, and whether the step was cancelled because their master
  // no longer waits; guarded by the worker's mutex.
  std::vector<std::shared_ptr<Caller>> callers;
  bool orphaned = false;

  void Abort(const absl::Status& status) {
    cancelled.store(true);
    rendezvous->StartAbort(status);
  }
};

// A RunGraph call while its partition runs; the expiry thread asks its reply whether the master
// still waits, and the completion answers it, each under `mu`.
struct Worker::Caller {
  std::mutex mu;
  TransportReply reply;
};

Worker::Worker(std::shared_ptr<Environment> env, TaskChannels* channels, WorkerOptions options)
    : env_(std::move(env)), channels_(channels), options_(std::move(options)) {}

Worker::~Worker() {
  Shutdown(absl::UnavailableError("the worker is shutting down"));
  std::unique_lock<std::mutex> lock(mu_);
  work_done_.wait(lock, [this] { return work_in_progress_ == 0; });
}

void Worker::BeginWork() {
  std::lock_guard<std::mutex> lock(mu_);
  ++work_in_progress_;
}

void Worker::EndWork() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--work_in_progress_ == 0) work_done_.notify_all();
}

void Worker::HandleCall(absl::string_view method, absl::string_view request, TransportReply reply) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!shutdown_.ok()) {
      Answer(std::move(reply), shutdown_, nullptr);
      return;
    }
  }
  if (method == kWorkerGetStatus) return GetStatus(request, std::move(reply));
  if (method == kWorkerCreateWorkerSession) return CreateWorkerSession(request, std::move(reply));
  if (method == kWorkerDeleteWorkerSession) return DeleteWorkerSession(request, std::move(reply));
  if (method == kWorkerRegisterGraph) return RegisterGraph(request, std::move(reply));
  if (method == kWorkerDeregisterGraph) return DeregisterGraph(request, std::move(reply));
  if (method == kWorkerRunGraph) return RunGraph(request, std::move(reply));
  if (method == kWorkerAbortStep) return AbortStep(request, std::move(reply));
  if (method == kWorkerCleanupGraph) return CleanupGraph(request, std::move(reply));
  Answer(std::move(reply),
         absl::UnimplementedError(absl::StrCat("the worker has no method '", method, "'")),
         nullptr);
}

void Worker::GetStatus(absl::string_view request, TransportReply reply) {
  distributed::GetStatusResponse response;
  response.set_task_name(options_.task_name);
  for (const Device* device : env_->devices().devices()) {
    distributed::DeviceAttributes* attributes = response.add_devices();
    attributes->set_name(device->name());
    attributes->set_device_type(device->device_type());
    attributes->set_type_priority(device->type_priority());
    attributes->set_flags(device->host_memory() ? TSR_DEVICE_FLAG_HOST_MEMORY : 0);
    attributes->set_incarnation(device->incarnation());
  }
  response.set_live_sessions(live_sessions());
  response.set_live_steps(live_steps());
  if (options_.master_sessions) response.set_live_master_sessions(options_.master_sessions());
  Answer(std::move(reply), absl::OkStatus(), &response);
}

void Worker::CreateWorkerSession(absl::string_view request, TransportReply reply) {
  distributed::CreateWorkerSessionRequest args;
  absl::Status status = ParseRequest(kWorkerCreateWorkerSession, request, &args);
  if (status.ok() && args.session_handle().empty()) {
    status = absl::InvalidArgumentError("CreateWorkerSession: the session handle is empty");
  }
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<WorkerSession>& session = sessions_[args.session_handle()];
    if (session == nullptr) {
      session = std::make_shared<WorkerSession>();
      session->handle = args.session_handle();
    }
  }
  distributed::CreateWorkerSessionResponse response;
  Answer(std::move(reply), status, &response);
}

void Worker::DeleteWorkerSession(absl::string_view request, TransportReply reply) {
  distributed::DeleteWorkerSessionRequest args;
  absl::Status status = ParseRequest(kWorkerDeleteWorkerSession, request, &args);
  std::shared_ptr<WorkerSession> session;
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(args.session_handle());
    if (it != sessions_.end()) {
      session = std::move(it->second);
      sessions_.erase(it);
    }
  }
  distributed::DeleteWorkerSessionResponse response;
  Answer(std::move(reply), status, &response);
}

absl::StatusOr<std::shared_ptr<Worker::WorkerSession>> Worker::FindSession(
    const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return absl::AbortedError(
        absl::StrCat(options_.task_name, " has no session '", handle,
                     "': the worker was probably restarted or the session expired; the next step "
                     "re-creates it"));
  }
  it->second->last_used = Clock::now();
  return it->second;
}

void Worker::RegisterGraph(absl::string_view request, TransportReply reply) {
  auto args = std::make_shared<distributed::RegisterGraphRequest>();
  absl::Status parsed = ParseRequest(kWorkerRegisterGraph, request, args.get());
  if (!parsed.ok()) {
    Answer(std::move(reply), parsed, nullptr);
    return;
  }
  // Importing and building executors is real work: off the transport's thread.
  auto shared_reply = std::make_shared<TransportReply>(std::move(reply));
  BeginWork();
  env_->inter_op_pool()->Schedule([this, args, shared_reply] {
    distributed::RegisterGraphResponse response;
    absl::Status status = [&]() -> absl::Status {
      ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session, FindSession(args->session_handle()));
      ImportGraphDefOptions import_options;
      import_options.allow_internal_names = true;
      ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                       ImportGraphDef(args->graph_def(), env_->ops(), import_options));
      for (Node* node : graph->op_nodes()) {
        Device* device = env_->devices().FindDevice(node->requested_device());
        if (device == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("node '", node->name(), "' is placed on '", node->requested_device(),
                           "', which is not a device of ", options_.task_name));
        }
        node->set_assigned_device(device->name());
      }
      auto plan = std::make_shared<ExecutionPlan>();
      // The client task's piece holds the step's _Arg and _Retval nodes: their types, by index.
      for (const tensorflow::NodeDef& def : args->graph_def().node()) {
        bool is_arg = def.op() == "_Arg";
        if (!is_arg && def.op() != "_Retval") continue;
        auto index = def.attr().find("index");
        auto type = def.attr().find("T");
        if (index == def.attr().end() || type == def.attr().end() || index->second.i() < 0 ||
            index->second.i() >= args->graph_def().node_size()) {
          return absl::InvalidArgumentError(
              absl::StrCat(def.op(), " node '", def.name(), "' has no valid index or T"));
        }
        std::vector<DataType>& types = is_arg ? plan->feed_types : plan->fetch_types;
        size_t i = static_cast<size_t>(index->second.i());
        if (types.size() <= i) types.resize(i + 1, TSR_DTYPE_INVALID);
        types[i] = static_cast<DataType>(type->second.type());
      }
      plan->resource_manager = session->resources;
      plan->shared_kernels = session->shared_kernels;
      plan->has_control_flow = args->has_control_flow();
      for (const Node* node : graph->op_nodes()) {
        plan->has_control_flow = plan->has_control_flow || IsControlFlow(*node);
      }
      RETURN_IF_ERROR(BuildPartitionedExecutors(*env_, std::move(graph),
                                                /*control_flow_added=*/true, plan.get(),
                                                !args->disable_op_fusion()));
      std::lock_guard<std::mutex> lock(session->mu);
      std::string handle;
      {
        std::lock_guard<std::mutex> worker_lock(mu_);
        handle = absl::StrCat("graph_", next_graph_id_++);
      }
      session->graphs.emplace(handle, std::move(plan));
      response.set_graph_handle(handle);
      return absl::OkStatus();
    }();
    Answer(std::move(*shared_reply),
           WithContext(status, absl::StrCat("while registering a graph on ", options_.task_name)),
           &response);
    EndWork();
  });
}

void Worker::DeregisterGraph(absl::string_view request, TransportReply reply) {
  distributed::DeregisterGraphRequest args;
  absl::Status status = ParseRequest(kWorkerDeregisterGraph, request, &args);
  if (status.ok()) {
    absl::StatusOr<std::shared_ptr<WorkerSession>> session = FindSession(args.session_handle());
    if (session.ok()) {
      std::lock_guard<std::mutex> lock((*session)->mu);
      (*session)->graphs.erase(args.graph_handle());
    }
  }
  distributed::DeregisterGraphResponse response;
  Answer(std::move(reply), status, &response);
}

std::shared_ptr<Worker::Step> Worker::FindOrCreateStep(uint64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto make_step = [&] {
    auto step = std::make_shared<Step>();
    step->rendezvous = std::make_shared<RemoteRendezvous>(step_id, options_.task_name, channels_);
    step->rendezvous->set_pull_timeout_ms(options_.call_timeout_ms);
    return step;
  };
  if (steps_.find(step_id) == steps_.end() && ended_.contains(step_id)) {
    // A late call (an abort or a pull after the cleanup, a master's abort after the step was
    // dropped as orphaned) gets an aborted step of its own; nothing is kept for it.
    std::shared_ptr<Step> ended = make_step();
    ended->Abort(absl::AbortedError(
        absl::StrCat("step ", step_id, " already ended on ", options_.task_name)));
    return ended;
  }
  std::shared_ptr<Step>& step = steps_[step_id];
  if (step == nullptr) {
    step = make_step();
    if (!shutdown_.ok()) step->Abort(shutdown_);
  }
  step->last_used = Clock::now();
  return step;
}

void Worker::RememberEndedLocked(uint64_t step_id) {
  if (!ended_.insert(step_id).second) return;
  ended_order_.push_back(step_id);
  if (ended_order_.size() > kEndedStepsKept) {
    ended_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
}

void Worker::RunGraph(absl::string_view request, TransportReply reply) {
  auto args = std::make_shared<distributed::RunGraphRequest>();
  absl::Status parsed = ParseRequest(kWorkerRunGraph, request, args.get());
  if (!parsed.ok()) {
    Answer(std::move(reply), parsed, nullptr);
    return;
  }
  absl::StatusOr<std::shared_ptr<WorkerSession>> session = FindSession(args->session_handle());
  std::shared_ptr<const ExecutionPlan> plan;
  if (session.ok()) {
    std::lock_guard<std::mutex> lock((*session)->mu);
    auto it = (*session)->graphs.find(args->graph_handle());
    if (it != (*session)->graphs.end()) plan = it->second;
  }
  if (!session.ok() || plan == nullptr) {
    Answer(std::move(reply),
           session.ok() ? absl::AbortedError(absl::StrCat(options_.task_name, " has no graph '",
                                                          args->graph_handle(), "' in session '",
                                                          args->session_handle(), "'"))
                        : session.status(),
           nullptr);
    return;
  }
  struct StepRun {
    distributed::RunGraphRequest args;
    CallFrame frame;
    std::shared_ptr<const ExecutionPlan> plan;
    std::shared_ptr<Step> step;
    std::shared_ptr<WorkerSession> session;
    std::shared_ptr<Caller> caller = std::make_shared<Caller>();
  };
  auto run = std::make_shared<StepRun>();
  run->args = std::move(*args);
  run->plan = std::move(plan);
  run->session = *session;
  run->caller->reply = std::move(reply);
  for (const tensorflow::TensorProto& proto : run->args.args()) {
    absl::StatusOr<Tensor> value = TensorFromProto(proto);
    if (!value.ok()) {
      Answer(std::move(run->caller->reply),
             WithContext(value.status(), "while reading a RunGraph feed"), nullptr);
      return;
    }
    run->frame.args.push_back(*std::move(value));
  }
  if (run->frame.args.size() != run->plan->feed_types.size()) {
    Answer(std::move(run->caller->reply),
           absl::InvalidArgumentError(absl::StrCat("RunGraph on ", options_.task_name, ": ",
                                                   run->frame.args.size(), " values for ",
                                                   run->plan->feed_types.size(), " feeds")),
           nullptr);
    return;
  }
  run->frame.retvals.resize(run->plan->fetch_types.size());
  run->step = FindOrCreateStep(run->args.step_id());
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++run->step->running;
    run->step->callers.push_back(run->caller);
    ++run->session->running;
    // The master enforces the step's deadline; this one, a little later, holds when the master
    // is gone.
    // Bounded, so that a timeout from the network cannot overflow the deadline arithmetic.
    int64_t timeout_ms = std::min(
        run->args.timeout_ms() > 0 ? run->args.timeout_ms() : options_.call_timeout_ms,
        kMaxTimeoutMs);
    run->step->deadline =
        std::min(run->step->deadline, Clock::now() + std::chrono::milliseconds(timeout_ms + 1000));
  }
  // Pulls wait as long as the step's worker-side deadline: the master's own deadline, a little
  // earlier, is what ends a step that runs too long (and names it so); a pull's deadline only
  // holds when the master is gone. Were both equal, whichever fired first would name the failure.
  if (run->args.timeout_ms() > 0) {
    run->step->rendezvous->set_pull_timeout_ms(
        std::min(run->args.timeout_ms(), kMaxTimeoutMs) + 1000);
  }
  ThreadPool* pool = env_->inter_op_pool();
  BeginWork();
  pool->Schedule([this, run, pool] {
    StepArgs step_args;
    step_args.step_id = static_cast<int64_t>(run->args.step_id());
    step_args.rendezvous = run->step->rendezvous;
    step_args.call_frame = &run->frame;
    step_args.cancelled = &run->step->cancelled;
    step_args.runner = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
    RunPlanStep(*run->plan, step_args, nullptr, [this, run](absl::Status status) {
      distributed::RunGraphResponse response;
      if (status.ok()) {
        for (Tensor& value : run->frame.retvals) {
          bool dead = !value.IsInitialized();
          response.add_retval_is_dead(dead);
          tensorflow::TensorProto* proto = response.add_retvals();
          if (dead) continue;
          if (!value.host_accessible()) {
            Device* device = value.buffer()->allocator()->device();
            Tensor host;
            absl::Status copied = device != nullptr
                                      ? device->CopyToHost(value, &host)
                                      : absl::InternalError("a fetched value is in unknown memory");
            if (!copied.ok()) {
              status = copied;
              break;
            }
            value = std::move(host);
          }
          TensorToProto(value, proto);
        }
      } else {
        // Every partition of this step here stops; pulls from other tasks fail with the cause.
        run->step->Abort(status);
      }
      TransportReply reply;
      {
        std::lock_guard<std::mutex> lock(run->caller->mu);
        reply = std::move(run->caller->reply);
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        --run->session->running;
        run->session->last_used = Clock::now();
      }
      FinishRun(run->step, run->args.step_id(), run->caller.get(), run->args.ends_step());
      Answer(std::move(reply), status, &response);
      EndWork();
    });
  });
}

void Worker::FinishRun(const std::shared_ptr<Step>& step, uint64_t step_id, const Caller* caller,
                       bool ends_step) {
  bool ended = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --step->running;
    step->last_used = Clock::now();
    std::vector<std::shared_ptr<Caller>>& callers = step->callers;
    callers.erase(
        std::remove_if(callers.begin(), callers.end(),
                       [caller](const std::shared_ptr<Caller>& c) { return c.get() == caller; }),
        callers.end());
    // Nobody will clean up after an orphaned step, nor after one whose master sends no
    // CleanupGraph: its values go as soon as it stops.
    if ((step->orphaned || ends_step) && step->running == 0) {
      auto it = steps_.find(step_id);
      if (it != steps_.end() && it->second == step) {
        steps_.erase(it);
        ended = !step->orphaned;
      }
      RememberEndedLocked(step_id);
    }
  }
  // As CleanupGraph does: anything still waiting in the step's rendezvous fails.
  if (ended) {
    step->Abort(
        absl::CancelledError(absl::StrCat("step ", step_id, " ended on ", options_.task_name)));
  }
}

int Worker::CancelOrphanedSteps() {
  std::vector<std::pair<uint64_t, std::shared_ptr<Step>>> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, step] : steps_) {
      if (step->running > 0 && !step->orphaned) running.emplace_back(id, step);
    }
  }
  int cancelled = 0;
  for (const auto& [id, step] : running) {
    std::vector<std::shared_ptr<Caller>> callers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      callers = step->callers;
    }
    bool gone = false;
    for (const std::shared_ptr<Caller>& caller : callers) {
      std::lock_guard<std::mutex> lock(caller->mu);
      if (caller->reply.cancelled()) gone = true;
    }
    if (!gone) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (step->orphaned) continue;
      step->orphaned = true;
      if (step->running == 0) {
        auto it = steps_.find(id);
        if (it != steps_.end() && it->second == step) steps_.erase(it);
        RememberEndedLocked(id);
      }
    }
    absl::Status cause = absl::CancelledError(absl::StrCat(
        "step ", id, " was cancelled on ", options_.task_name,
        ": its master no longer waits for it (the master died, its connection broke or its "
        "call's deadline passed)"));
    // Said before the abort, which can take a while (stopping the executors): a status query may
    // already find the step gone.
    if (options_.log) options_.log(std::string(cause.message()));
    step->Abort(cause);
    ++cancelled;
  }
  return cancelled;
}

void Worker::AbortStep(absl::string_view request, TransportReply reply) {
  distributed::AbortStepRequest args;
  absl::Status status = ParseRequest(kWorkerAbortStep, request, &args);
  if (status.ok()) {
    absl::StatusCode code = static_cast<absl::StatusCode>(args.code());
    if (code == absl::StatusCode::kOk) code = absl::StatusCode::kAborted;
    FindOrCreateStep(args.step_id())->Abort(absl::Status(code, args.message()));
  }
  distributed::AbortStepResponse response;
  Answer(std::move(reply), status, &response);
}

void Worker::CleanupGraph(absl::string_view request, TransportReply reply) {
  distributed::CleanupGraphRequest args;
  absl::Status status = ParseRequest(kWorkerCleanupGraph, request, &args);
  std::shared_ptr<Step> step;
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(args.step_id());
    if (it != steps_.end()) {
      step = std::move(it->second);
      steps_.erase(it);
    }
    RememberEndedLocked(args.step_id());
  }
  if (step != nullptr) {
    step->Abort(absl::CancelledError(
        absl::StrCat("step ", args.step_id(), " was cleaned up on ", options_.task_name)));
  }
  distributed::CleanupGraphResponse response;
  Answer(std::move(reply), status, &response);
}

absl::Status Worker::CheckIncarnation(absl::string_view rendezvous_key) const {
  ASSIGN_OR_RETURN(ParsedRendezvousKey key, ParseRendezvousKey(rendezvous_key));
  Device* device = env_->devices().FindDevice(key.src_device);
  if (device == nullptr || device->name() != key.src_device) {
    return absl::InvalidArgumentError(
        absl::StrCat("RecvTensor: '", key.src_device, "' is not a device of ", options_.task_name));
  }
  if (device->incarnation() != key.src_incarnation) {
    return absl::AbortedError(absl::StrCat(
        "RecvTensor expects a different device incarnation: ", key.src_incarnation, " vs. ",
        device->incarnation(), ". Your worker job (\"", options_.task_name,
        "\") was probably restarted. Check your worker job for the reason why it was restarted."));
  }
  return absl::OkStatus();
}

void Worker::HandleRecvTensor(uint64_t step_id, absl::string_view rendezvous_key,
                              TransportReply reply) {
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status = shutdown_;
  }
  if (status.ok()) status = CheckIncarnation(rendezvous_key);
  if (!status.ok()) {
    reply.SendTensor(status, TSR_TensorView{sizeof(TSR_TensorView)}, false, [] {});
    return;
  }
  auto shared_reply = std::make_shared<TransportReply>(std::move(reply));
  std::shared_ptr<Step> step = FindOrCreateStep(step_id);
  step->rendezvous->RecvLocal(
      rendezvous_key, [shared_reply, key = std::string(rendezvous_key)](
                          const absl::Status& status, const Tensor& value, bool is_dead) {
        absl::Status result = status;
        auto held = std::make_shared<Tensor>();
        // A string tensor crosses packed (the ABI's layout): `held` keeps the shape, `packed`
        // the bytes the transport reads.
        auto packed = std::make_shared<Tensor>();
        if (result.ok() && !is_dead) {
          if (value.dtype() == TSR_DTYPE_STRING) {
            *held = value;
            absl::StatusOr<Tensor> bytes = PackStringsToBuffer(value);
            if (bytes.ok()) {
              *packed = std::move(*bytes);
            } else {
              result = WithContext(bytes.status(), absl::StrCat("packing '", key, "'"));
            }
          } else if (!value.host_accessible()) {
            Device* device = value.buffer()->allocator()->device();
            result = device != nullptr ? device->CopyToHost(value, held.get())
                                       : absl::InternalError("a sent value is in unknown memory");
          } else {
            *held = value;
          }
        }
        TSR_TensorView view{};
        view.struct_size = sizeof(TSR_TensorView);
        if (result.ok() && !is_dead) {
          view.dtype = held->dtype();
          view.rank = held->shape().rank();
          view.dims = held->shape().data();
          view.data = packed->IsInitialized() ? packed->data() : held->data();
          view.byte_size = packed->IsInitialized() ? static_cast<size_t>(packed->NumElements())
                                                   : held->TotalBytes();
        }
        shared_reply->SendTensor(result, view, result.ok() && is_dead, [held, packed] {});
      });
}

std::pair<int, int> Worker::ExpireIdle(Clock::time_point now) {
  std::vector<std::shared_ptr<Step>> steps;
  std::vector<std::shared_ptr<Step>> overdue;
  std::vector<std::shared_ptr<WorkerSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = steps_.begin(); it != steps_.end();) {
      if (it->second->running > 0 && now > it->second->deadline) {
        overdue.push_back(it->second);
        it->second->deadline = Clock::time_point::max();  // aborted once
      }
      if (it->second->running == 0 &&
          now - it->second->last_used > std::chrono::milliseconds(options_.step_idle_timeout_ms)) {
        steps.push_back(std::move(it->second));
        it = steps_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->running == 0 &&
          now - it->second->last_used >
              std::chrono::milliseconds(options_.session_idle_timeout_ms)) {
        sessions.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const std::shared_ptr<Step>& step : overdue) {
    step->Abort(absl::DeadlineExceededError(absl::StrCat(
        "the step ran past its deadline on ", options_.task_name, " and was cancelled")));
  }
  for (const std::shared_ptr<Step>& step : steps) {
    step->Abort(absl::DeadlineExceededError(
        absl::StrCat("the step's state on ", options_.task_name, " expired after ",
                     options_.step_idle_timeout_ms, " ms without a call")));
  }
  return {static_cast<int>(steps.size()), static_cast<int>(sessions.size())};
}

void Worker::Shutdown(const absl::Status& status) {
  std::map<uint64_t, std::shared_ptr<Step>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_.ok()) shutdown_ = status;
    steps = steps_;
  }
  for (auto& [id, step] : steps) step->Abort(status);
}

int Worker::live_sessions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(sessions_.size());
}

int Worker::live_steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(steps_.size());
}

}  // namespace tessera
