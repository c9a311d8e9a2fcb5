// Kernel selection and instantiation.
#include "host/kernels/kernel_factory.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/kernels/host_kernels.h"
#include "host/kernels/string_kernels.h"
#include "host/kernels/variable_access.h"
#include "host/ops/node_def_util.h"
#include "host/runtime/device.h"
#include "registry/kernel_handle.h"

namespace tessera {
namespace {

bool Allowed(const std::vector<TSR_DataType>& allowed, int dtype) {
  return std::find(allowed.begin(), allowed.end(), static_cast<TSR_DataType>(dtype)) !=
         allowed.end();
}

// True when every type attribute the kernel constrains has an allowed value on the node.
bool MeetsConstraints(const KernelSpec& spec, const Node& node) {
  for (const auto& [attr_name, allowed] : spec.type_constraints) {
    const tensorflow::AttrValue* value = node.attr(attr_name);
    if (value == nullptr) return false;
    if (value->value_case() == tensorflow::AttrValue::kType) {
      if (!Allowed(allowed, value->type())) return false;
    } else if (value->value_case() == tensorflow::AttrValue::kList) {
      for (int t : value->list().type()) {
        if (!Allowed(allowed, t)) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

std::string DescribeConstraints(const KernelSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& [attr_name, allowed] : spec.type_constraints) {
    std::vector<std::string> names;
    for (TSR_DataType t : allowed) names.push_back(DataTypeString(t));
    parts.push_back(absl::StrCat(attr_name, " in [", absl::StrJoin(names, ", "), "]"));
  }
  return parts.empty() ? "any types" : absl::StrJoin(parts, "; ");
}

std::string DescribeNodeTypes(const Node& node, const KernelSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& [attr_name, allowed] : spec.type_constraints) {
    const tensorflow::AttrValue* value = node.attr(attr_name);
    if (value == nullptr) {
      parts.push_back(absl::StrCat(attr_name, " unset"));
    } else if (value->value_case() == tensorflow::AttrValue::kType) {
      parts.push_back(
          absl::StrCat(attr_name, "=", DataTypeString(static_cast<DataType>(value->type()))));
    } else {
      parts.push_back(absl::StrCat(attr_name, "=<list>"));
    }
  }
  return absl::StrJoin(parts, ", ");
}

// Plugin kernels seen as OpKernels: one indirect call per Compute.
class PluginOpKernel final : public OpKernel {
 public:
  PluginOpKernel(Traits traits, std::unique_ptr<PluginKernel> kernel)
      : OpKernel(traits), kernel_(std::move(kernel)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    absl::Status status = kernel_->Compute(ctx);
    if (ctx->has_packed_strings && status.ok()) status = FinishPackedStringOutputs(ctx);
    return status;
  }
  void ComputeAsync(TSR_KernelContext* ctx, std::function<void(absl::Status)> done) override {
    kernel_->ComputeAsync(ctx, [ctx, done = std::move(done)](absl::Status status) {
      if (ctx->has_packed_strings && status.ok()) status = FinishPackedStringOutputs(ctx);
      done(std::move(status));
    });
  }

 private:
  std::unique_ptr<PluginKernel> kernel_;
};

}  // namespace

KernelFactory::KernelFactory(const std::vector<KernelSpec>& kernels) {
  for (const KernelSpec& spec : kernels) by_op_[spec.op_name].push_back(&spec);
  for (auto& [op, specs] : by_op_) {
    std::stable_sort(specs.begin(), specs.end(), [](const KernelSpec* a, const KernelSpec* b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      if (a->origin.plugin_priority != b->origin.plugin_priority) {
        return a->origin.plugin_priority > b->origin.plugin_priority;
      }
      return a->origin.plugin_name < b->origin.plugin_name;
    });
  }
}

bool KernelFactory::HasKernel(const Node& node, absl::string_view device_type) const {
  if (IsHostKernelOp(node.op()) || IsStringKernelNode(node)) return true;
  if (HasStringEdge(node)) return false;  // no plugin kernel takes strings
  auto it = by_op_.find(node.op());
  if (it == by_op_.end()) return false;
  for (const KernelSpec* spec : it->second) {
    if (spec->device_type == device_type && MeetsConstraints(*spec, node)) return true;
  }
  return false;
}

std::vector<std::string> KernelFactory::DeviceTypesWithKernelsFor(absl::string_view op) const {
  std::set<std::string> types;
  auto it = by_op_.find(op);
  if (it != by_op_.end()) {
    for (const KernelSpec* spec : it->second) types.insert(spec->device_type);
  }
  return std::vector<std::string>(types.begin(), types.end());
}

absl::StatusOr<const KernelSpec*> KernelFactory::FindKernel(const Node& node,
                                                            absl::string_view device_type) const {
  if (HasStringEdge(node)) {
    RETURN_IF_ERROR(CheckStringEdgesSupported(node));
    return absl::NotFoundError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                            ") has string tensors, which only the host's kernels "
                                            "take; no plugin kernel runs it"));
  }
  auto it = by_op_.find(node.op());
  std::vector<std::string> seen;
  if (it != by_op_.end()) {
    for (const KernelSpec* spec : it->second) {
      if (spec->device_type != device_type) continue;
      if (MeetsConstraints(*spec, node)) return spec;
      seen.push_back(absl::StrCat("'", spec->origin.plugin_name, "' (", DescribeConstraints(*spec),
                                  "; node has ", DescribeNodeTypes(node, *spec), ")"));
    }
  }
  if (seen.empty()) {
    return absl::NotFoundError(absl::StrCat("no kernel for op '", node.op(), "' on device type ",
                                            device_type, " (node '", node.name(), "')"));
  }
  return absl::NotFoundError(absl::StrCat("no kernel for op '", node.op(), "' on device type ",
                                          device_type, " matches node '", node.name(),
                                          "'; registered: ", absl::StrJoin(seen, ", ")));
}

namespace {

// Marks every tensor of the arguments named in `host_args` (`on_host` has one flag per tensor).
template <typename Flags>
absl::Status MarkHostArgs(const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& args,
                          const std::vector<int>& sizes, const std::vector<std::string>& host_args,
                          Flags* on_host) {
  size_t index = 0;
  for (int a = 0; a < args.size(); ++a) {
    bool host = std::find(host_args.begin(), host_args.end(), args[a].name()) != host_args.end();
    for (int k = 0; k < sizes[a]; ++k, ++index) {
      if (index >= on_host->size()) {
        return absl::InternalError("argument sizes disagree with the node's types");
      }
      (*on_host)[index] = host;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status KernelFactory::HostMemoryArgs(const Node& node, absl::string_view device_type,
                                           std::vector<bool>* inputs_on_host,
                                           std::vector<bool>* outputs_on_host) const {
  if (IsStringKernelNode(node)) {
    StringKernelMemoryTypes(node, inputs_on_host, outputs_on_host);
    return absl::OkStatus();
  }
  if (IsHostKernelOp(node.op()))
    return HostKernelMemoryTypes(node, inputs_on_host, outputs_on_host);
  inputs_on_host->assign(node.num_inputs(), false);
  outputs_on_host->assign(node.num_outputs(), false);
  ASSIGN_OR_RETURN(const KernelSpec* spec, FindKernel(node, device_type));
  const OpRegistration* registration = node.op_registration();
  if (spec->host_memory_args.empty() || registration == nullptr) return absl::OkStatus();
  const tensorflow::OpDef& op_def = registration->op_def;
  ASSIGN_OR_RETURN(std::vector<int> in_sizes, InputArgSizes(node.def(), op_def));
  ASSIGN_OR_RETURN(std::vector<int> out_sizes, OutputArgSizes(node.def(), op_def));
  RETURN_IF_ERROR(
      MarkHostArgs(op_def.input_arg(), in_sizes, spec->host_memory_args, inputs_on_host));
  return MarkHostArgs(op_def.output_arg(), out_sizes, spec->host_memory_args, outputs_on_host);
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelFactory::CreateKernel(
    const Node& node, Device* device, KernelNodeInfo* info, ResourceManager* resources) const {
  if (IsStringKernelNode(node)) return CreateStringKernel(node);
  if (HasStringEdge(node)) RETURN_IF_ERROR(CheckStringEdgesSupported(node));
  if (IsHostKernelOp(node.op())) {
    ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateHostKernel(node, device, resources));
    return WrapForVariableAccess(node, device, /*plugin_kernel=*/false, std::move(kernel));
  }
  ASSIGN_OR_RETURN(const KernelSpec* spec, FindKernel(node, device->device_type()));

  // Host-memory outputs, by argument name.
  const OpRegistration* registration = node.op_registration();
  if (!spec->host_memory_args.empty() && registration != nullptr) {
    const tensorflow::OpDef& op_def = registration->op_def;
    ASSIGN_OR_RETURN(std::vector<int> sizes, OutputArgSizes(node.def(), op_def));
    RETURN_IF_ERROR(MarkHostArgs(op_def.output_arg(), sizes, spec->host_memory_args,
                                 &info->output_in_host_memory));
  }

  TSR_KernelConstruction construction;
  construction.node = &node;
  construction.info = info;
  construction.device = device;
  ASSIGN_OR_RETURN(std::unique_ptr<PluginKernel> kernel,
                   PluginKernel::Create(*spec, &construction));
  OpKernel::Traits traits;
  traits.is_async = spec->is_async();
  traits.is_cheap = (spec->flags & TSR_KERNEL_FLAG_CHEAP) != 0;
  traits.constant_outputs = (spec->flags & TSR_KERNEL_FLAG_CONSTANT_OUTPUTS) != 0;
  return WrapForVariableAccess(
      node, device, /*plugin_kernel=*/true,
      std::unique_ptr<OpKernel>(new PluginOpKernel(traits, std::move(kernel))));
}

}  // namespace tessera
