// Building and running execution plans.
#include "host/session/execution_plan.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/control_flow.h"
#include "host/graph/graph.h"
#include "host/partition/graph_partition.h"
#include "host/passes/op_fusion.h"
#include "host/rendezvous/rendezvous.h"
#include "host/runtime/device.h"
#include "host/session/environment.h"

namespace tessera {
namespace {

// Memory types of a node on its device, from the kernel chosen there.
absl::StatusOr<MemoryTypes> NodeMemoryTypes(const Environment& env, const Node& node) {
  Device* device = env.devices().FindDevice(node.assigned_device());
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat(
        "node '", node.name(), "' is placed on unknown device '", node.assigned_device(), "'"));
  }
  std::vector<bool> inputs_on_host;
  std::vector<bool> outputs_on_host;
  RETURN_IF_ERROR(
      env.kernels().HostMemoryArgs(node, device->device_type(), &inputs_on_host, &outputs_on_host));
  MemoryTypes types;
  for (bool host : inputs_on_host) {
    types.inputs.push_back(host ? MemoryType::kHost : MemoryType::kDevice);
  }
  for (bool host : outputs_on_host) {
    types.outputs.push_back(host ? MemoryType::kHost : MemoryType::kDevice);
  }
  return types;
}

// Builds the executor of one partition.
absl::Status AddPart(const Environment& env, Device* device, const Graph& graph,
                     ExecutionPlan* plan) {
  ExecutorParams params;
  params.device = device;
  params.intra_op_pool = env.intra_op_pool();
  params.kernel_factory = &env.kernels();
  params.resource_manager = plan->resource_manager.get();
  params.shared_kernels = plan->shared_kernels.get();
  params.dead_inputs_possible = plan->has_control_flow;
  absl::StatusOr<std::unique_ptr<Executor>> executor = Executor::Create(params, graph);
  if (!executor.ok()) {
    return WithContext(executor.status(),
                       absl::StrCat("while building the executor for ", device->name()));
  }
  plan->parts.push_back(ExecutionPlan::Part{device, *std::move(executor)});
  return absl::OkStatus();
}

}  // namespace

absl::Status BuildPartitionedExecutors(const Environment& env, std::unique_ptr<Graph> graph,
                                       bool control_flow_added, ExecutionPlan* plan,
                                       bool op_fusion) {
  if (op_fusion) {
    absl::Status fused = FuseOps(graph.get(), [&env](const Node& node) {
      Device* device = env.devices().FindDevice(node.assigned_device());
      return device != nullptr && env.kernels().HasKernel(node, device->device_type());
    });
    if (!fused.ok()) return WithContext(fused, "while fusing ops");
  }
  // All on one host-memory device (the common case): nothing to cut, nor any memory mismatch to
  // bridge, so the rewritten graph runs as it is.
  std::string only_device;
  bool one_device = true;
  for (const Node* node : graph->op_nodes()) {
    if (only_device.empty()) only_device = node->assigned_device();
    one_device = one_device && node->assigned_device() == only_device;
  }
  Device* single = one_device ? env.devices().FindDevice(only_device) : nullptr;
  if (single != nullptr && single->host_memory()) {
    return AddPart(env, single, *graph, plan);
  }

  PartitionOptions options;
  options.get_incarnation = [&env](const std::string& name) -> uint64_t {
    Device* device = env.devices().FindDevice(name);
    return device != nullptr ? device->incarnation() : 0;
  };
  options.memory_types = [&env](const Node& node) { return NodeMemoryTypes(env, node); };
  options.control_flow_added = control_flow_added;
  options.is_host_memory_device = [&env](const std::string& name) {
    Device* device = env.devices().FindDevice(name);
    return device != nullptr && device->host_memory();
  };
  std::map<std::string, tensorflow::GraphDef> partitions;
  RETURN_IF_ERROR(Partition(options, graph.get(), &partitions));

  for (auto& [device_name, def] : partitions) {
    Device* device = env.devices().FindDevice(device_name);
    if (device == nullptr) {
      return absl::InternalError(absl::StrCat("partition for unknown device '", device_name, "'"));
    }
    ImportGraphDefOptions import_options;
    import_options.allow_internal_names = true;
    absl::StatusOr<std::unique_ptr<Graph>> imported =
        ImportGraphDef(def, env.ops(), import_options);
    if (!imported.ok()) {
      return WithContext(imported.status(),
                         absl::StrCat("while importing the partition for ", device_name));
    }
    std::unique_ptr<Graph> part = *std::move(imported);
    for (Node* node : part->op_nodes()) node->set_assigned_device(device->name());
    RETURN_IF_ERROR(AddPart(env, device, *part, plan));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ExecutionPlan>> BuildExecutionPlan(
    const Environment& env, const Graph& placed, const ExecutionSignature& signature,
    std::shared_ptr<ResourceManager> resources, std::shared_ptr<SharedKernels> shared_kernels,
    bool op_fusion) {
  auto plan = std::make_unique<ExecutionPlan>();
  plan->resource_manager = std::move(resources);
  plan->shared_kernels = std::move(shared_kernels);
  std::unique_ptr<Graph> graph = placed.CloneReaching(SignatureNodes(placed, signature));
  Device* client = env.devices().client_device();

  // Shapes the graph promises for fed tensors, read before the rewrite replaces their producers.
  for (const std::string& feed : signature.feeds) {
    absl::StatusOr<TensorId> id = ParseTensorName(feed);
    const Node* node = id.ok() ? graph->FindNode(id->node) : nullptr;
    if (node != nullptr && id->index >= 0 && id->index < node->num_outputs()) {
      plan->feed_shapes.push_back(node->output_shape(id->index));
    } else {
      plan->feed_shapes.push_back(PartialShape());
    }
  }
  RewriteResult rewrite;
  RETURN_IF_ERROR(RewriteGraphForExecution(graph.get(), signature, client->name(), &rewrite));
  plan->feed_types = rewrite.feed_types;
  plan->fetch_types = rewrite.fetch_types;
  for (const Node* node : graph->op_nodes()) {
    plan->has_control_flow = plan->has_control_flow || IsControlFlow(*node);
  }

  RETURN_IF_ERROR(BuildPartitionedExecutors(env, std::move(graph), /*control_flow_added=*/false,
                                            plan.get(), op_fusion));
  return plan;
}

namespace {

// Counts partitions down; reports the rendezvous' abort status (the root cause) when there is one.
struct StepBarrier {
  std::mutex mu;
  int remaining = 0;
  absl::Status first_error;
  std::shared_ptr<Rendezvous> rendezvous;
  Executor::DoneCallback done;

  void PartDone(absl::Status status) {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!status.ok() && first_error.ok()) first_error = std::move(status);
      last = --remaining == 0;
    }
    if (!last) return;
    absl::Status result = first_error;
    if (!result.ok() && rendezvous != nullptr && !rendezvous->status().ok()) {
      result = rendezvous->status();
    }
    Executor::DoneCallback callback = std::move(done);
    delete this;
    callback(std::move(result));
  }
};

}  // namespace

void RunPlanStep(const ExecutionPlan& plan, const StepArgs& args,
                 std::function<void(std::function<void(const absl::Status&)>)> abort,
                 Executor::DoneCallback done) {
  Executor::Args exec_args;
  exec_args.step_id = args.step_id;
  exec_args.call_frame = args.call_frame;
  exec_args.runner = args.runner;
  exec_args.cancelled = args.cancelled;
  exec_args.stats = args.stats;
  if (args.rendezvous != nullptr) {
    // A rendezvous shared with others (a worker's step, which other tasks pull values from).
    std::shared_ptr<Rendezvous> rendezvous = args.rendezvous;
    if (abort) {
      abort([rendezvous](const absl::Status& status) { rendezvous->StartAbort(status); });
    }
    exec_args.rendezvous = rendezvous.get();
    if (plan.parts.size() == 1) {
      plan.parts.front().executor->RunAsync(
          exec_args, [rendezvous, done = std::move(done)](absl::Status status) {
            // The root cause when a remote failure aborted the step, not the derived error.
            if (!status.ok() && !rendezvous->status().ok()) status = rendezvous->status();
            done(std::move(status));
          });
      return;
    }
  }
  if (plan.parts.size() == 1) {
    // One device: no rendezvous to abort; cancellation stops the executor between nodes.
    if (abort) abort(nullptr);
    plan.parts.front().executor->RunAsync(exec_args, std::move(done));
    return;
  }
  auto* barrier = new StepBarrier;
  barrier->remaining = static_cast<int>(plan.parts.size());
  barrier->rendezvous = args.rendezvous;
  barrier->done = std::move(done);
  if (barrier->rendezvous != nullptr) {
    for (const ExecutionPlan::Part& part : plan.parts) {
      part.executor->RunAsync(
          exec_args, [barrier](absl::Status status) { barrier->PartDone(std::move(status)); });
    }
    return;
  }
  barrier->rendezvous = std::make_shared<LocalRendezvous>();
  std::shared_ptr<Rendezvous> rendezvous = barrier->rendezvous;
  if (abort) {
    // Holds the rendezvous, so aborting after the step ended is harmless.
    abort([rendezvous](const absl::Status& status) { rendezvous->StartAbort(status); });
  }
  exec_args.rendezvous = rendezvous.get();
  for (const ExecutionPlan::Part& part : plan.parts) {
    part.executor->RunAsync(
        exec_args, [barrier](absl::Status status) { barrier->PartDone(std::move(status)); });
  }
}

}  // namespace tessera
