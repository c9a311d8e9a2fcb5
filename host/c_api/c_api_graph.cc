// Graphs: building nodes, finishing them, introspection, shapes and GraphDef import/export.
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "host/c_api/c_api_internal.h"
#include "host/client/scope.h"
#include "host/graph/graph_extend.h"
#include "host/graph/tensor_id.h"
#include "host/ops/node_def_util.h"
#include "host/ops/op_registry.h"

namespace tessera {
namespace c_api {

void RegisterOperations(TF_Graph* graph, const std::vector<Node*>& nodes) {
  for (Node* node : nodes) {
    auto op = std::make_unique<TF_Operation>();
    op->graph = graph;
    op->node = node;
    for (int i = 0; i < node->num_outputs(); ++i) {
      op->output_names.push_back(absl::StrCat(node->name(), ":", i));
    }
    if (static_cast<int>(graph->by_id.size()) <= node->id()) graph->by_id.resize(node->id() + 1);
    graph->by_id[node->id()] = op.get();
    graph->ops.push_back(std::move(op));
  }
  graph->num_ops.store(graph->ops.size(), std::memory_order_release);
}

absl::Status CheckOutput(const TF_Output& output, const char* function) {
  if (output.oper == nullptr) return NullArgument(function, "an output's operation");
  if (output.index < 0 || output.index >= output.oper->node->num_outputs()) {
    return absl::OutOfRangeError(absl::StrCat(
        function, ": node '", output.oper->node->name(), "' has ",
        output.oper->node->num_outputs(), " outputs, output ", output.index, " was asked for"));
  }
  return absl::OkStatus();
}

absl::Status CheckOutputOf(const TF_Graph* graph, const TF_Output& output, const char* function) {
  RETURN_IF_ERROR(CheckOutput(output, function));
  if (output.oper->graph != graph) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": '", output.oper->node->name(), ":",
                                                   output.index,
                                                   "' belongs to another graph than the one it "
                                                   "is used with"));
  }
  return absl::OkStatus();
}

absl::Status CheckOperationOf(const TF_Graph* graph, const TF_Operation* operation,
                              const char* function) {
  if (operation == nullptr) return NullArgument(function, "an operation");
  if (operation->graph != graph) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": '", operation->node->name(),
                                                   "' belongs to another graph than the one it "
                                                   "is used with"));
  }
  return absl::OkStatus();
}

bool NameScopeInUse(const Graph& graph, const std::string& scope) {
  for (const Node* node : graph.op_nodes()) {
    if (node->name() == scope || absl::StartsWith(node->name(), scope + "/")) return true;
  }
  return false;
}

namespace {

std::string InputString(const TF_Output& output) {
  return output.index == 0 ? output.oper->node->name()
                           : absl::StrCat(output.oper->node->name(), ":", output.index);
}

// Sets the type and number attrs that the inputs determine and the caller did not set, as
// TensorFlow's node builder does, then writes the inputs into the NodeDef.
absl::Status ResolveInputs(TF_OperationDescription* desc, const tensorflow::OpDef& op_def) {
  tensorflow::NodeDef& node = desc->node;
  const std::string label = absl::StrCat("node '", node.name(), "' (", node.op(), ")");
  if (static_cast<int>(desc->input_args.size()) != op_def.input_arg_size()) {
    std::vector<std::string> names;
    for (const auto& arg : op_def.input_arg()) names.push_back(arg.name());
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": the op takes ", op_def.input_arg_size(), " input arguments (",
        absl::StrJoin(names, ", "), "), ", desc->input_args.size(), " were added"));
  }
  auto& attrs = *node.mutable_attr();
  for (int i = 0; i < op_def.input_arg_size(); ++i) {
    const tensorflow::OpDef::ArgDef& arg = op_def.input_arg(i);
    const std::vector<TF_Output>& values = desc->input_args[i];
    auto type_of = [&](const TF_Output& v) {
      DataType type = v.oper->node->output_type(v.index);
      return arg.is_ref() ? type : BaseType(type);
    };
    if (!arg.number_attr().empty() && !attrs.contains(arg.number_attr())) {
      attrs[arg.number_attr()].set_i(static_cast<int64_t>(values.size()));
    }
    if (!arg.type_attr().empty() && !attrs.contains(arg.type_attr()) && !values.empty()) {
      attrs[arg.type_attr()].set_type(static_cast<tensorflow::DataType>(BaseType(type_of(values[0]))));
    }
    if (!arg.type_list_attr().empty() && !attrs.contains(arg.type_list_attr())) {
      auto* list = attrs[arg.type_list_attr()].mutable_list();
      for (const TF_Output& v : values) {
        list->add_type(static_cast<tensorflow::DataType>(BaseType(type_of(v))));
      }
    }
    for (const TF_Output& v : values) node.add_input(InputString(v));
  }
  for (const std::string& control : desc->control_inputs) node.add_input("^" + control);
  return absl::OkStatus();
}

absl::Status Finish(TF_OperationDescription* desc, TF_Operation** result) {
  RETURN_IF_ERROR(desc->status);
  TF_Graph* graph = desc->graph;
  const OpRegistry& ops = graph->graph.op_registry();
  absl::StatusOr<const OpRegistration*> registration = ops.LookUp(desc->node.op());
  if (!registration.ok()) {
    return WithContext(registration.status(),
                       absl::StrCat("node '", desc->node.name(), "'"));
  }
  RETURN_IF_ERROR(ResolveInputs(desc, (*registration)->op_def));
  absl::MutexLock lock(&graph->mu);
  std::vector<Node*> added;
  RETURN_IF_ERROR(ExtendGraph(&graph->graph, {desc->node}, &added));
  RegisterOperations(graph, added);
  *result = graph->ops.back().get();
  return absl::OkStatus();
}

void Serialize(const google::protobuf::MessageLite& message, TF_Buffer* buffer,
               TF_Status* status) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return SetStatus(status, absl::InternalError("could not serialize the message"));
  }
  SetBuffer(buffer, bytes);
  SetOk(status);
}

}  // namespace
}  // namespace c_api
}  // namespace tessera

using tessera::c_api::NullArgument;
using tessera::c_api::SetOk;
using tessera::c_api::SetStatus;

extern "C" {

TF_Graph* TF_NewGraph(void) {
  static const tessera::OpRegistry* const standard = tessera::OpRegistry::CreateStandard().release();
  absl::StatusOr<std::shared_ptr<tessera::Environment>> env =
      tessera::Environment::Get(tessera::c_api::DefaultEnvironmentOptions());
  TF_Graph* graph = env.ok() ? new TF_Graph(*env, &(*env)->ops()) : new TF_Graph(nullptr, standard);
  absl::MutexLock lock(&graph->mu);
  graph->graph.versions.set_producer(tessera::kGraphDefProducerVersion);
  return graph;
}

void TF_DeleteGraph(TF_Graph* graph) {
  if (graph == nullptr) return;
  {
    absl::MutexLock lock(&graph->mu);
    if (graph->num_sessions > 0) {
      graph->delete_requested = true;
      return;
    }
  }
  delete graph;
}

TF_OperationDescription* TF_NewOperation(TF_Graph* graph, const char* op_type,
                                         const char* oper_name) {
  if (graph == nullptr) return nullptr;
  auto* desc = new TF_OperationDescription();
  desc->graph = graph;
  if (op_type == nullptr) desc->status = NullArgument("TF_NewOperation", "op_type");
  if (oper_name == nullptr) desc->status = NullArgument("TF_NewOperation", "oper_name");
  desc->node.set_op(op_type == nullptr ? "" : op_type);
  desc->node.set_name(oper_name == nullptr ? "" : oper_name);
  return desc;
}

void TF_SetDevice(TF_OperationDescription* desc, const char* device) {
  if (desc == nullptr) return;
  desc->node.set_device(device == nullptr ? "" : device);
}

namespace {

void AddInputs(TF_OperationDescription* desc, const TF_Output* inputs, int num_inputs,
               const char* function) {
  if (desc == nullptr || !desc->status.ok()) return;
  if (num_inputs < 0 || (num_inputs > 0 && inputs == nullptr)) {
    desc->status = absl::InvalidArgumentError(
        absl::StrCat(function, ": node '", desc->node.name(), "': no inputs given"));
    return;
  }
  std::vector<TF_Output> arg;
  for (int i = 0; i < num_inputs; ++i) {
    absl::Status status = tessera::c_api::CheckOutput(inputs[i], function);
    if (status.ok() && inputs[i].oper->graph != desc->graph) {
      status = absl::InvalidArgumentError(absl::StrCat(
          function, ": input '", inputs[i].oper->node->name(), "' of node '", desc->node.name(),
          "' belongs to another graph"));
    }
    if (!status.ok()) {
      desc->status = status;
      return;
    }
    arg.push_back(inputs[i]);
  }
  desc->input_args.push_back(std::move(arg));
}

}  // namespace

void TF_AddInput(TF_OperationDescription* desc, TF_Output input) {
  AddInputs(desc, &input, 1, "TF_AddInput");
}

void TF_AddInputList(TF_OperationDescription* desc, const TF_Output* inputs, int num_inputs) {
  AddInputs(desc, inputs, num_inputs, "TF_AddInputList");
}

void TF_AddControlInput(TF_OperationDescription* desc, TF_Operation* input) {
  if (desc == nullptr || !desc->status.ok()) return;
  if (input == nullptr) {
    desc->status = NullArgument("TF_AddControlInput", "input");
    return;
  }
  if (input->graph != desc->graph) {
    desc->status = absl::InvalidArgumentError(absl::StrCat(
        "TF_AddControlInput: '", input->node->name(), "' belongs to another graph"));
    return;
  }
  desc->control_inputs.push_back(input->node->name());
}

void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op) {
  if (desc == nullptr || !desc->status.ok()) return;
  if (op == nullptr) {
    desc->status = NullArgument("TF_ColocateWith", "op");
    return;
  }
  (*desc->node.mutable_attr())["_class"].mutable_list()->add_s(
      absl::StrCat("loc:@", op->node->name()));
}

TF_Operation* TF_FinishOperation(TF_OperationDescription* desc, TF_Status* status) {
  if (desc == nullptr) {
    SetStatus(status, NullArgument("TF_FinishOperation", "desc"));
    return nullptr;
  }
  TF_Operation* result = nullptr;
  absl::Status finished = tessera::c_api::Finish(desc, &result);
  delete desc;
  SetStatus(status, finished);
  return finished.ok() ? result : nullptr;
}

const char* TF_OperationName(TF_Operation* oper) {
  return oper == nullptr ? "" : oper->node->name().c_str();
}

const char* TF_OperationOpType(TF_Operation* oper) {
  return oper == nullptr ? "" : oper->node->op().c_str();
}

const char* TF_OperationDevice(TF_Operation* oper) {
  return oper == nullptr ? "" : oper->node->requested_device().c_str();
}

int TF_OperationNumOutputs(TF_Operation* oper) {
  return oper == nullptr ? 0 : oper->node->num_outputs();
}

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  if (!tessera::c_api::CheckOutput(oper_out, "TF_OperationOutputType").ok()) {
    return static_cast<TF_DataType>(0);
  }
  return static_cast<TF_DataType>(oper_out.oper->node->output_type(oper_out.index));
}

namespace {

int ArgListLength(TF_Operation* oper, const char* arg_name, bool outputs, TF_Status* status) {
  const char* function =
      outputs ? "TF_OperationOutputListLength" : "TF_OperationInputListLength";
  if (oper == nullptr) return SetStatus(status, NullArgument(function, "oper")), -1;
  if (arg_name == nullptr) return SetStatus(status, NullArgument(function, "arg_name")), -1;
  const tensorflow::OpDef& op_def = oper->node->op_registration()->op_def;
  absl::StatusOr<std::vector<int>> sizes =
      outputs ? tessera::OutputArgSizes(oper->node->def(), op_def)
              : tessera::InputArgSizes(oper->node->def(), op_def);
  if (!sizes.ok()) return SetStatus(status, sizes.status()), -1;
  const auto& args = outputs ? op_def.output_arg() : op_def.input_arg();
  for (int i = 0; i < args.size(); ++i) {
    if (args[i].name() == arg_name) {
      SetOk(status);
      return (*sizes)[i];
    }
  }
  SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                        function, ": op '", oper->node->op(), "' has no ",
                        outputs ? "output" : "input", " argument '", arg_name, "'")));
  return -1;
}

}  // namespace

int TF_OperationOutputListLength(TF_Operation* oper, const char* arg_name, TF_Status* status) {
  return ArgListLength(oper, arg_name, /*outputs=*/true, status);
}

int TF_OperationNumInputs(TF_Operation* oper) {
  return oper == nullptr ? 0 : oper->node->num_inputs();
}

TF_DataType TF_OperationInputType(TF_Input oper_in) {
  if (oper_in.oper == nullptr || oper_in.index < 0 ||
      oper_in.index >= oper_in.oper->node->num_inputs()) {
    return static_cast<TF_DataType>(0);
  }
  return static_cast<TF_DataType>(oper_in.oper->node->input_type(oper_in.index));
}

int TF_OperationInputListLength(TF_Operation* oper, const char* arg_name, TF_Status* status) {
  return ArgListLength(oper, arg_name, /*outputs=*/false, status);
}

TF_Output TF_OperationInput(TF_Input oper_in) {
  if (oper_in.oper == nullptr || oper_in.index < 0 ||
      oper_in.index >= oper_in.oper->node->num_inputs()) {
    return TF_Output{nullptr, -1};
  }
  TF_Graph* graph = oper_in.oper->graph;
  absl::MutexLock lock(&graph->mu);
  const tessera::Edge* edge = oper_in.oper->node->input_edge(oper_in.index);
  if (edge == nullptr) return TF_Output{nullptr, -1};
  return TF_Output{graph->by_id[edge->src->id()], edge->src_output};
}

void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs, int max_inputs) {
  if (oper == nullptr || inputs == nullptr) return;
  const int n = std::min(max_inputs, oper->node->num_inputs());
  for (int i = 0; i < n; ++i) inputs[i] = TF_OperationInput(TF_Input{oper, i});
}

int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers, int max_consumers) {
  if (oper_out.oper == nullptr) return 0;
  TF_Graph* graph = oper_out.oper->graph;
  absl::MutexLock lock(&graph->mu);
  int count = 0;
  for (const tessera::Edge* edge : oper_out.oper->node->out_edges()) {
    if (edge->IsControlEdge() || edge->src_output != oper_out.index) continue;
    if (consumers != nullptr && count < max_consumers) {
      consumers[count] = TF_Input{graph->by_id[edge->dst->id()], edge->dst_input};
    }
    ++count;
  }
  return count;
}

int TF_OperationOutputNumConsumers(TF_Output oper_out) {
  return TF_OperationOutputConsumers(oper_out, nullptr, 0);
}

namespace {

int ControlEdges(TF_Operation* oper, bool inputs, TF_Operation** result, int max_result) {
  if (oper == nullptr) return 0;
  TF_Graph* graph = oper->graph;
  absl::MutexLock lock(&graph->mu);
  int count = 0;
  for (const tessera::Edge* edge : inputs ? oper->node->in_edges() : oper->node->out_edges()) {
    if (!edge->IsControlEdge()) continue;
    const tessera::Node* other = inputs ? edge->src : edge->dst;
    if (!other->IsOp()) continue;
    if (result != nullptr && count < max_result) result[count] = graph->by_id[other->id()];
    ++count;
  }
  return count;
}

}  // namespace

int TF_OperationNumControlInputs(TF_Operation* oper) {
  return ControlEdges(oper, true, nullptr, 0);
}

int TF_OperationGetControlInputs(TF_Operation* oper, TF_Operation** control_inputs,
                                 int max_control_inputs) {
  return ControlEdges(oper, true, control_inputs, max_control_inputs);
}

int TF_OperationNumControlOutputs(TF_Operation* oper) {
  return ControlEdges(oper, false, nullptr, 0);
}

int TF_OperationGetControlOutputs(TF_Operation* oper, TF_Operation** control_outputs,
                                  int max_control_outputs) {
  return ControlEdges(oper, false, control_outputs, max_control_outputs);
}

TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name) {
  if (graph == nullptr || oper_name == nullptr) return nullptr;
  absl::MutexLock lock(&graph->mu);
  tessera::Node* node = graph->graph.FindNode(oper_name);
  if (node == nullptr || !node->IsOp()) return nullptr;
  return graph->by_id[node->id()];
}

TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos) {
  if (graph == nullptr || pos == nullptr) return nullptr;
  absl::MutexLock lock(&graph->mu);
  if (*pos >= graph->ops.size()) return nullptr;
  return graph->ops[(*pos)++].get();
}

void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def, TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_GraphToGraphDef", "graph"));
  if (output_graph_def == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphToGraphDef", "output_graph_def"));
  }
  tensorflow::GraphDef def;
  {
    absl::MutexLock lock(&graph->mu);
    def = graph->graph.ToGraphDef();
  }
  tessera::c_api::Serialize(def, output_graph_def, status);
}

void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name, TF_Buffer* output_op_def,
                      TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_GraphGetOpDef", "graph"));
  if (op_name == nullptr) return SetStatus(status, NullArgument("TF_GraphGetOpDef", "op_name"));
  if (output_op_def == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphGetOpDef", "output_op_def"));
  }
  absl::StatusOr<const tessera::OpRegistration*> registration =
      graph->graph.op_registry().LookUp(op_name);
  if (!registration.ok()) return SetStatus(status, registration.status());
  tessera::c_api::Serialize((*registration)->op_def, output_op_def, status);
}

void TF_GraphVersions(TF_Graph* graph, TF_Buffer* output_version_def, TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_GraphVersions", "graph"));
  if (output_version_def == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphVersions", "output_version_def"));
  }
  tensorflow::VersionDef versions;
  {
    absl::MutexLock lock(&graph->mu);
    versions = graph->graph.versions;
  }
  tessera::c_api::Serialize(versions, output_version_def, status);
}

void TF_OperationToNodeDef(TF_Operation* oper, TF_Buffer* output_node_def, TF_Status* status) {
  if (oper == nullptr) return SetStatus(status, NullArgument("TF_OperationToNodeDef", "oper"));
  if (output_node_def == nullptr) {
    return SetStatus(status, NullArgument("TF_OperationToNodeDef", "output_node_def"));
  }
  tessera::c_api::Serialize(oper->node->def(), output_node_def, status);
}

// ---- Shapes ------------------------------------------------------------------------------------

void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output, const int64_t* dims,
                            const int num_dims, TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_GraphSetTensorShape", "graph"));
  absl::Status valid = tessera::c_api::CheckOutputOf(graph, output, "TF_GraphSetTensorShape");
  if (!valid.ok()) return SetStatus(status, valid);
  if (num_dims > 0 && dims == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphSetTensorShape", "dims"));
  }
  tessera::PartialShape shape;
  if (num_dims >= 0) {
    shape = tessera::PartialShape(absl::MakeConstSpan(dims, num_dims));
    for (int i = 0; i < num_dims; ++i) {
      if (dims[i] < -1) {
        return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                     "TF_GraphSetTensorShape: dimension ", i, " is ", dims[i],
                                     "; sizes are >= 0, or -1 when unknown")));
      }
    }
  }
  absl::MutexLock lock(&graph->mu);
  tessera::Node* node = output.oper->node;
  absl::StatusOr<tessera::PartialShape> merged =
      tessera::PartialShape::Merge(node->output_shape(output.index), shape);
  if (!merged.ok()) {
    return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                 "TF_GraphSetTensorShape: shape ", shape.ToString(),
                                 " is not compatible with ",
                                 node->output_shape(output.index).ToString(), ", the shape ",
                                 "known for '", node->name(), ":", output.index, "'")));
  }
  node->set_output_shape(output.index, *std::move(merged));
  SetOk(status);
}

int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output, TF_Status* status) {
  if (graph == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphGetTensorNumDims", "graph")), -1;
  }
  absl::Status valid = tessera::c_api::CheckOutputOf(graph, output, "TF_GraphGetTensorNumDims");
  if (!valid.ok()) return SetStatus(status, valid), -1;
  absl::MutexLock lock(&graph->mu);
  SetOk(status);
  return output.oper->node->output_shape(output.index).rank();
}

void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output, int64_t* dims, int num_dims,
                            TF_Status* status) {
  if (graph == nullptr) return SetStatus(status, NullArgument("TF_GraphGetTensorShape", "graph"));
  absl::Status valid = tessera::c_api::CheckOutputOf(graph, output, "TF_GraphGetTensorShape");
  if (!valid.ok()) return SetStatus(status, valid);
  absl::MutexLock lock(&graph->mu);
  const tessera::PartialShape& shape = output.oper->node->output_shape(output.index);
  if (num_dims != shape.rank()) {
    return SetStatus(status, absl::InvalidArgumentError(absl::StrCat(
                                 "TF_GraphGetTensorShape: '", output.oper->node->name(), ":",
                                 output.index, "' has rank ", shape.rank(), ", but num_dims is ",
                                 num_dims)));
  }
  if (num_dims > 0 && dims == nullptr) {
    return SetStatus(status, NullArgument("TF_GraphGetTensorShape", "dims"));
  }
  for (int i = 0; i < num_dims; ++i) dims[i] = shape.dim(i);
  SetOk(status);
}

}  // extern "C"
