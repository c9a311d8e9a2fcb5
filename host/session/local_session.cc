// The local session.
#include "host/session/local_session.h"

#include <chrono>
#include <condition_variable>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/placer/placer.h"
#include "host/runtime/device.h"
#include "host/runtime/step_stats.h"

namespace tessera {
namespace {

// "x:0,y:0->z:0/t1,t2": the signature's cache key, in the order given.
std::string SignatureKey(const std::vector<std::pair<std::string, Tensor>>& feeds,
                         const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets) {
  std::string key;
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (i > 0) key.push_back(',');
    key.append(feeds[i].first);
  }
  key.append("->");
  key.append(absl::StrJoin(fetches, ","));
  key.push_back('/');
  key.append(absl::StrJoin(targets, ","));
  return key;
}

int64_t InitialStepId() {
  // Random high bits keep step ids of different sessions apart in logs and traces.
  std::mt19937_64 rng(std::random_device{}());
  return static_cast<int64_t>((rng() & ((uint64_t{1} << 40) - 1)) << 16);
}

// The session's environment for `options`.
absl::StatusOr<std::shared_ptr<Environment>> SessionEnvironment(const SessionOptions& options) {
  EnvironmentOptions env_options;
  env_options.plugin_paths = options.plugin_paths;
  env_options.default_plugin_dir = options.default_plugin_dir;
  env_options.plugin_policy = options.plugin_policy;
  env_options.plugin_policy.NameSources("SessionOptions::plugin_policy");
  env_options.inter_op_threads = options.inter_op_threads;
  env_options.intra_op_threads = options.intra_op_threads;
  env_options.device_count = options.device_count;
  env_options.device_options = options.device_options;
  return Environment::Get(env_options);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> LocalSession::Create(const SessionOptions& options,
                                                              const tensorflow::GraphDef& def) {
  ASSIGN_OR_RETURN(std::shared_ptr<Environment> env, SessionEnvironment(options));
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ImportGraphDef(def, env->ops()));
  return FromGraph(options, std::move(env), std::move(graph));
}

absl::StatusOr<std::unique_ptr<Session>> LocalSession::Create(const SessionOptions& options,
                                                              tensorflow::GraphDef&& def) {
  ASSIGN_OR_RETURN(std::shared_ptr<Environment> env, SessionEnvironment(options));
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ImportGraphDef(std::move(def), env->ops()));
  return FromGraph(options, std::move(env), std::move(graph));
}

absl::StatusOr<std::unique_ptr<Session>> LocalSession::FromGraph(const SessionOptions& options,
                                                                 std::shared_ptr<Environment> env,
                                                                 std::unique_ptr<Graph> graph) {
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options.allow_soft_placement;
  placer_options.log_device_placement = options.log_device_placement;
  RETURN_IF_ERROR(
      PlaceGraph(graph.get(), env->devices().devices(), env->kernels(), placer_options));
  return std::unique_ptr<Session>(new LocalSession(options, std::move(env), std::move(graph)));
}

LocalSession::LocalSession(const SessionOptions& options, std::shared_ptr<Environment> env,
                           std::unique_ptr<Graph> graph)
    : options_(options),
      env_(std::move(env)),
      graph_(std::move(graph)),
      next_step_id_(InitialStepId()) {}

LocalSession::~LocalSession() = default;

std::vector<std::string> LocalSession::ListDevices() const {
  std::vector<std::string> names;
  for (const Device* d : env_->devices().devices()) names.push_back(d->name());
  return names;
}

absl::Status LocalSession::Extend(const tensorflow::GraphDef& addition) {
  // The placed graph is exported (with the devices placement chose and the runtime's own node
  // names, hence allow_internal_names) and imported again with the new nodes, which must not use
  // the runtime's reserved names themselves.
  for (const tensorflow::NodeDef& node : addition.node()) {
    if (!node.name().empty() && node.name()[0] == '_') {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot extend the session's graph with node '", node.name(), "' (", node.op(),
          "): names starting with '_' are reserved for the runtime"));
    }
  }
  std::lock_guard<std::mutex> extend_lock(extend_mu_);
  std::shared_ptr<const Graph> current;
  {
    std::lock_guard<std::mutex> lock(mu_);
    current = graph_;
  }
  tensorflow::GraphDef def = current->ToGraphDef();
  for (const tensorflow::NodeDef& node : addition.node()) *def.add_node() = node;
  for (const tensorflow::FunctionDef& function : addition.library().function()) {
    *def.mutable_library()->add_function() = function;
  }
  for (const tensorflow::GradientDef& gradient : addition.library().gradient()) {
    *def.mutable_library()->add_gradient() = gradient;
  }
  ImportGraphDefOptions import_options;
  import_options.allow_internal_names = true;
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(std::move(def), env_->ops(), import_options);
  if (!graph.ok()) {
    return WithContext(graph.status(), "while extending the session's graph");
  }
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options_.allow_soft_placement;
  placer_options.log_device_placement = options_.log_device_placement;
  RETURN_IF_ERROR(PlaceGraph(graph->get(), env_->devices().devices(), env_->kernels(),
                             placer_options));
  std::lock_guard<std::mutex> lock(mu_);
  graph_ = *std::move(graph);
  plans_.clear();
  return absl::OkStatus();
}

int64_t LocalSession::NewStepId() { return next_step_id_.fetch_add(1, std::memory_order_relaxed); }

absl::StatusOr<std::shared_ptr<const ExecutionPlan>> LocalSession::GetOrCreatePlan(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  std::string key = SignatureKey(feeds, fetches, targets);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  std::vector<std::string> feed_names;
  feed_names.reserve(feeds.size());
  for (const auto& feed : feeds) feed_names.push_back(feed.first);
  ASSIGN_OR_RETURN(std::shared_ptr<const ExecutionPlan> plan,
                   CreatePlan(feed_names, fetches, targets));
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = plans_.emplace(key, std::move(plan));
  return it->second;
}

absl::StatusOr<std::shared_ptr<const ExecutionPlan>> LocalSession::CreatePlan(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  ExecutionSignature signature{feeds, fetches, targets};
  std::shared_ptr<const Graph> graph;
  {
    std::lock_guard<std::mutex> lock(mu_);
    graph = graph_;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ExecutionPlan> plan,
                   BuildExecutionPlan(*env_, *graph, signature, resources_, shared_kernels_,
                                      options_.op_fusion));
  return std::shared_ptr<const ExecutionPlan>(std::move(plan));
}

absl::Status LocalSession::CheckFeed(const ExecutionPlan& plan, size_t i, const std::string& name,
                                     const Tensor& value) const {
  if (value.dtype() != plan.feed_types[i]) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", name, "' has type ", DataTypeString(value.dtype()),
                     ", but the graph expects ", DataTypeString(plan.feed_types[i])));
  }
  if (!value.host_accessible()) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", name, "' must be a tensor in host memory"));
  }
  if (!plan.feed_shapes[i].IsCompatibleWith(PartialShape::FromTensorShape(value.shape()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot feed a value of shape ", value.shape().DebugString(), " for tensor '", name,
        "', which has shape ", plan.feed_shapes[i].ToString()));
  }
  return absl::OkStatus();
}

absl::Status LocalSession::Execute(const RunOptions& options, const ExecutionPlan& plan,
                                   CallFrame* frame, StepStatsCollector* stats) {
  struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    absl::Status status;
  } waiter;
  std::atomic<bool> cancelled{false};
  ThreadPool* pool = env_->inter_op_pool();
  StepArgs args;
  args.step_id = stats != nullptr ? stats->step_id() : NewStepId();
  args.call_frame = frame;
  args.cancelled = &cancelled;
  args.stats = stats;
  args.runner = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
  std::function<void(const absl::Status&)> abort;
  std::mutex abort_mu;
  auto start = [&] {
    RunPlanStep(
        plan, args,
        [&](std::function<void(const absl::Status&)> fn) {
          std::lock_guard<std::mutex> lock(abort_mu);
          abort = std::move(fn);
        },
        [&waiter](absl::Status status) {
          std::lock_guard<std::mutex> lock(waiter.mu);
          waiter.status = std::move(status);
          waiter.done = true;
          waiter.cv.notify_all();
        });
  };
  // A step starts on the calling thread (no hop for small graphs), except under a deadline: then
  // the caller stays free to watch the clock, even if the graph never ends.
  if (options.timeout_ms > 0) {
    pool->Schedule(start);
  } else {
    start();
  }
  std::unique_lock<std::mutex> lock(waiter.mu);
  if (options.timeout_ms > 0) {
    bool finished = waiter.cv.wait_for(lock, std::chrono::milliseconds(options.timeout_ms),
                                       [&] { return waiter.done; });
    if (!finished) {
      absl::Status deadline =
          absl::DeadlineExceededError(absl::StrCat("the step did not finish within its timeout of ",
                                                   options.timeout_ms, " ms and was cancelled"));
      cancelled.store(true);
      // Receivers waiting on other partitions are released too. Their callbacks may finish the
      // step on this thread, so the waiter's lock is not held meanwhile.
      lock.unlock();
      {
        std::lock_guard<std::mutex> abort_lock(abort_mu);
        if (abort) abort(deadline);
      }
      lock.lock();
      waiter.cv.wait(lock, [&] { return waiter.done; });
      return deadline;
    }
  } else {
    waiter.cv.wait(lock, [&] { return waiter.done; });
  }
  return waiter.status;
}

absl::Status LocalSession::Run(const RunOptions& options,
                               const std::vector<std::pair<std::string, Tensor>>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               std::vector<Tensor>* outputs, RunMetadata* metadata) {
  ASSIGN_OR_RETURN(std::shared_ptr<const ExecutionPlan> plan,
                   GetOrCreatePlan(feeds, fetches, targets));
  CallFrame frame;
  frame.args.reserve(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    RETURN_IF_ERROR(CheckFeed(*plan, i, feeds[i].first, feeds[i].second));
    frame.args.push_back(feeds[i].second);
  }
  return RunPlan(options, *plan, &frame, fetches, outputs, metadata);
}

absl::StatusOr<Session::CallableHandle> LocalSession::MakeCallable(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  // The plan is looked up by names only; the values stay empty.
  std::vector<std::pair<std::string, Tensor>> named(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) named[i].first = feeds[i];
  ASSIGN_OR_RETURN(std::shared_ptr<const ExecutionPlan> plan,
                   GetOrCreatePlan(named, fetches, targets));
  auto callable = std::make_shared<Callable>(Callable{std::move(plan), feeds, fetches});
  std::lock_guard<std::mutex> lock(mu_);
  const CallableHandle handle = next_callable_++;
  callables_.emplace(handle, std::move(callable));
  return handle;
}

absl::Status LocalSession::RunCallable(CallableHandle handle, const RunOptions& options,
                                       const std::vector<Tensor>& feeds,
                                       std::vector<Tensor>* outputs, RunMetadata* metadata) {
  std::shared_ptr<const Callable> callable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) return UnknownCallable(handle);
    callable = it->second;
  }
  if (feeds.size() != callable->feeds.size()) {
    return absl::InvalidArgumentError(absl::StrCat("callable ", handle, " takes ",
                                                   callable->feeds.size(), " feeds, got ",
                                                   feeds.size()));
  }
  CallFrame frame;
  frame.args.reserve(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    RETURN_IF_ERROR(CheckFeed(*callable->plan, i, callable->feeds[i], feeds[i]));
    frame.args.push_back(feeds[i]);
  }
  return RunPlan(options, *callable->plan, &frame, callable->fetches, outputs, metadata);
}

absl::Status LocalSession::ReleaseCallable(CallableHandle handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (callables_.erase(handle) == 0) return UnknownCallable(handle);
  return absl::OkStatus();
}

absl::Status LocalSession::RunPlan(const RunOptions& options, const ExecutionPlan& plan,
                                   CallFrame* frame, const std::vector<std::string>& fetches,
                                   std::vector<Tensor>* outputs, RunMetadata* metadata) {
  frame->retvals.resize(fetches.size());
  std::unique_ptr<StepStatsCollector> stats;
  if (options.collect_step_stats) stats = std::make_unique<StepStatsCollector>(NewStepId());
  absl::Status status = Execute(options, plan, frame, stats.get());
  if (metadata != nullptr) {
    metadata->partition_devices.clear();
    for (const ExecutionPlan::Part& part : plan.parts) {
      metadata->partition_devices.push_back(part.device->name());
    }
    if (stats != nullptr) metadata->step_stats = stats->Finish();
  }
  RETURN_IF_ERROR(status);
  outputs->clear();
  outputs->reserve(fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    Tensor& value = frame->retvals[i];
    if (!value.IsInitialized()) {
      return absl::InvalidArgumentError(
          absl::StrCat("fetch '", fetches[i],
                       "' is dead: it depends on the untaken side of a Switch, so it "
                       "was not computed in this step"));
    }
    if (!value.host_accessible()) {
      Tensor host;
      Device* device = value.buffer()->allocator()->device();
      if (device == nullptr) {
        return absl::InternalError(absl::StrCat("fetch '", fetches[i], "' is in unknown memory"));
      }
      RETURN_IF_ERROR(device->CopyToHost(value, &host));
      value = std::move(host);
    }
    outputs->push_back(std::move(value));
  }
  return absl::OkStatus();
}

}  // namespace tessera
