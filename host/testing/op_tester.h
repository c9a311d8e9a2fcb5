// OpTester: runs one op on given input tensors through a real local session (plugins loaded from
// the build tree's plugin folder) and returns its outputs. For kernel tests.
#ifndef TESSERA_HOST_TESTING_OP_TESTER_H_
#define TESSERA_HOST_TESTING_OP_TESTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/framework/proto/attr_value.pb.h"
#include "host/runtime/tensor.h"

namespace tessera::testing {

class OpTester {
 public:
  // `op` is the op's name ("AddV2"); the node is placed on `device` ("/device:CPU:0").
  explicit OpTester(std::string op, std::string device = "/device:CPU:0");

  // Attributes. Attributes with defaults in the op's definition may be left out.
  OpTester& Attr(const std::string& name, int64_t value);
  OpTester& Attr(const std::string& name, float value);
  OpTester& Attr(const std::string& name, bool value);
  OpTester& Attr(const std::string& name, DataType value);
  OpTester& Attr(const std::string& name, const std::string& value);
  OpTester& Attr(const std::string& name, const std::vector<int64_t>& value);
  OpTester& Attr(const std::string& name, const std::vector<DataType>& value);
  OpTester& Attr(const std::string& name, const Tensor& value);  // a `tensor` attr (Const)
  OpTester& Attr(const std::string& name, const tensorflow::AttrValue& value);

  // Appends an input, fed through a Placeholder of the tensor's dtype. For a list input
  // (ConcatV2's `values`, Pack's `values`) add each element in order and set `N` yourself.
  OpTester& Input(const Tensor& value);

  // Builds the graph, runs it once and returns outputs 0..num_outputs-1.
  absl::StatusOr<std::vector<Tensor>> Run(int num_outputs = 1);

 private:
  std::string op_;
  std::string device_;
  std::vector<std::pair<std::string, tensorflow::AttrValue>> attrs_;
  std::vector<Tensor> inputs_;
};

}  // namespace tessera::testing

#endif  // TESSERA_HOST_TESTING_OP_TESTER_H_
