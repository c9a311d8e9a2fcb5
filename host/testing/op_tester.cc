// OpTester: a Placeholder per input, the node under test, one session run.
#include "host/testing/op_tester.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/framework/tensor_proto_util.h"
#include "host/session/session.h"

namespace tessera::testing {
namespace {

tensorflow::AttrValue TypeValue(DataType dtype) {
  tensorflow::AttrValue v;
  v.set_type(static_cast<tensorflow::DataType>(dtype));
  return v;
}

}  // namespace

OpTester::OpTester(std::string op, std::string device)
    : op_(std::move(op)), device_(std::move(device)) {}

OpTester& OpTester::Attr(const std::string& name, int64_t value) {
  tensorflow::AttrValue v;
  v.set_i(value);
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, float value) {
  tensorflow::AttrValue v;
  v.set_f(value);
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, bool value) {
  tensorflow::AttrValue v;
  v.set_b(value);
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, DataType value) {
  return Attr(name, TypeValue(value));
}

OpTester& OpTester::Attr(const std::string& name, const std::string& value) {
  tensorflow::AttrValue v;
  v.set_s(value);
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, const std::vector<int64_t>& value) {
  tensorflow::AttrValue v;
  auto* list = v.mutable_list();
  for (int64_t i : value) list->add_i(i);
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, const std::vector<DataType>& value) {
  tensorflow::AttrValue v;
  auto* list = v.mutable_list();
  for (DataType t : value) list->add_type(static_cast<tensorflow::DataType>(t));
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, const Tensor& value) {
  tensorflow::AttrValue v;
  TensorToProto(value, v.mutable_tensor());
  return Attr(name, v);
}

OpTester& OpTester::Attr(const std::string& name, const tensorflow::AttrValue& value) {
  attrs_.emplace_back(name, value);
  return *this;
}

OpTester& OpTester::Input(const Tensor& value) {
  inputs_.push_back(value);
  return *this;
}

absl::StatusOr<std::vector<Tensor>> OpTester::Run(int num_outputs) {
  tensorflow::GraphDef graph;
  tensorflow::NodeDef* node = nullptr;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    tensorflow::NodeDef* input = graph.add_node();
    input->set_name(absl::StrCat("input_", i));
    input->set_op("Placeholder");
    input->set_device(device_);
    (*input->mutable_attr())["dtype"] = TypeValue(inputs_[i].dtype());
    feeds.emplace_back(input->name(), inputs_[i]);
  }
  node = graph.add_node();
  node->set_name("op_under_test");
  node->set_op(op_);
  node->set_device(device_);
  for (size_t i = 0; i < inputs_.size(); ++i) node->add_input(absl::StrCat("input_", i));
  for (const auto& [name, value] : attrs_) (*node->mutable_attr())[name] = value;

  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(SessionOptions(), graph));
  std::vector<std::string> fetches;
  for (int i = 0; i < num_outputs; ++i) fetches.push_back(absl::StrCat("op_under_test:", i));
  std::vector<std::string> targets;
  if (num_outputs == 0) targets.push_back("op_under_test");
  std::vector<Tensor> outputs;
  RETURN_IF_ERROR(session->Run(feeds, fetches, targets, &outputs));
  return outputs;
}

}  // namespace tessera::testing
