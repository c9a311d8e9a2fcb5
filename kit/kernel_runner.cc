// KernelRunner: a Placeholder per input on the host, the node under test pinned to its device,
// one session run with step statistics to confirm where the node ran.
#include "kit/kernel_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/runtime/device.h"

namespace tessera::plugin_check {
namespace {

constexpr char kNodeName[] = "op_under_test";

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue attr;
  attr.set_type(static_cast<tensorflow::DataType>(dtype));
  return attr;
}

}  // namespace

bool MeetsTypeConstraints(const KernelSpec& spec, const std::map<std::string, DataType>& types) {
  for (const auto& [attr, allowed] : spec.type_constraints) {
    auto it = types.find(attr);
    if (it == types.end()) return false;
    if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end()) return false;
  }
  return true;
}

absl::StatusOr<KernelRunner> KernelRunner::Create(std::vector<std::string> plugin_paths) {
  KernelRunner runner;
  runner.options_.plugin_paths = std::move(plugin_paths);
  // The environment the sessions get: Session::Create looks it up by the same options.
  EnvironmentOptions environment;
  environment.plugin_paths = runner.options_.plugin_paths;
  environment.inter_op_threads = runner.options_.inter_op_threads;
  environment.intra_op_threads = runner.options_.intra_op_threads;
  environment.device_count = runner.options_.device_count;
  ASSIGN_OR_RETURN(runner.environment_, Environment::Get(environment));
  return runner;
}

bool KernelRunner::HasDevice(const std::string& device_type) const {
  for (const Device* device : environment_->devices().devices()) {
    if (device->device_type() == device_type &&
        absl::EndsWith(device->name(), absl::StrCat("device:", device_type, ":0"))) {
      return true;
    }
  }
  return false;
}

const KernelSpec* KernelRunner::ChosenKernel(const std::string& op,
                                             const std::string& device_type,
                                             const std::map<std::string, DataType>& types) const {
  std::vector<const KernelSpec*> kernels = environment_->plugins().FindKernels(op, device_type);
  // KernelFactory's order.
  std::stable_sort(kernels.begin(), kernels.end(), [](const KernelSpec* a, const KernelSpec* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    if (a->origin.plugin_priority != b->origin.plugin_priority) {
      return a->origin.plugin_priority > b->origin.plugin_priority;
    }
    return a->origin.plugin_name < b->origin.plugin_name;
  });
  for (const KernelSpec* kernel : kernels) {
    if (MeetsTypeConstraints(*kernel, types)) return kernel;
  }
  return nullptr;
}

absl::StatusOr<std::vector<Tensor>> KernelRunner::Run(const std::string& op,
                                                      const KernelCase& kernel_case,
                                                      const std::string& device_type,
                                                      int num_outputs) const {
  const std::string device = absl::StrCat("/device:", device_type, ":0");
  tensorflow::GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < kernel_case.inputs.size(); ++i) {
    tensorflow::NodeDef* input = graph.add_node();
    input->set_name(absl::StrCat("input_", i));
    input->set_op("Placeholder");
    input->set_device("/device:CPU:0");
    (*input->mutable_attr())["dtype"] = TypeAttr(kernel_case.inputs[i].dtype());
    feeds.emplace_back(input->name(), kernel_case.inputs[i]);
  }
  tensorflow::NodeDef* node = graph.add_node();
  node->set_name(kNodeName);
  node->set_op(op);
  node->set_device(device);
  for (size_t i = 0; i < kernel_case.inputs.size(); ++i) {
    node->add_input(absl::StrCat("input_", i));
  }
  for (const auto& [name, value] : kernel_case.attrs) (*node->mutable_attr())[name] = value;

  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options_, std::move(graph)));
  std::vector<std::string> fetches;
  for (int k = 0; k < num_outputs; ++k) fetches.push_back(absl::StrCat(kNodeName, ":", k));
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  RETURN_IF_ERROR(session->Run(run_options, feeds, fetches, {}, &outputs, &metadata));

  // The node ran on its device when its step statistics say so, or, for a node the executor
  // computes once (Const), when that device ran a partition.
  std::vector<std::string> ran_on;
  for (const DeviceStepStats& stats : metadata.step_stats.devices) {
    for (const NodeExecStats& node_stats : stats.nodes) {
      if (node_stats.node_name == kNodeName) ran_on.push_back(stats.device);
    }
  }
  auto on_device = [&](const std::string& name) { return absl::EndsWith(name, device.substr(1)); };
  const bool ran_here =
      ran_on.empty() ? std::any_of(metadata.partition_devices.begin(),
                                   metadata.partition_devices.end(), on_device)
                     : ran_on.size() == 1 && on_device(ran_on[0]);
  if (!ran_here) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the host did not run the node on ", device, " (it ran on: ",
        ran_on.empty() ? "no device" : absl::StrJoin(ran_on, ", "), ")"));
  }
  for (int k = 0; k < num_outputs; ++k) {
    if (!outputs[k].host_accessible()) {
      return absl::InternalError(absl::StrCat("output ", k, " came back outside host memory"));
    }
  }
  return outputs;
}

}  // namespace tessera::plugin_check
