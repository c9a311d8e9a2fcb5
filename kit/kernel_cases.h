// The kernel suite's cases: for an op and a choice of its type attributes, the inputs (random,
// seeded), attributes and tolerance scale of each variant to run on the plugin and the oracle.
#ifndef TESSERA_KIT_KERNEL_CASES_H_
#define TESSERA_KIT_KERNEL_CASES_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/framework/proto/attr_value.pb.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/runtime/tensor.h"

namespace tessera::plugin_check {

// One variant of an op: the node's inputs (each fed through a Placeholder, in the op's input
// order) and attributes.
struct KernelCase {
  // Shown after "Op/dtype/" in the case name, e.g. "broadcast[3,1]x[4]" or "transpose_b".
  std::string variant;
  std::vector<Tensor> inputs;
  // Attributes of the node, type attributes included. Attributes left out take the op's
  // defaults.
  std::map<std::string, tensorflow::AttrValue> attrs;
  // Multiplies the dtype's tolerance: the number of products summed into one output element
  // (MatMul's inner dimension, a reduction's size, a convolution's window), 1 otherwise.
  double tolerance_scale = 1;
};

// What a generator is asked for.
struct CaseRequest {
  const tensorflow::OpDef* op_def = nullptr;
  // Every type attribute of the op (from its type constraints and defaults): "T" -> float.
  std::map<std::string, DataType> types;
  // The attribute the suite iterates over ("T" for most ops); its value names the case.
  std::string primary_type_attr;
  std::mt19937_64* random = nullptr;
};

// OK when cases can be generated for the op: it has a generator of its own, or the generic
// one (ops whose inputs all take the same type attribute: unary and n-ary element-wise ops,
// their gradients, AddN) applies. Otherwise FAILED_PRECONDITION for ops that are not compared at
// all (stateful ops, whose results depend on more than their inputs; ops without outputs) and
// UNIMPLEMENTED "no input generator for op X (why the generic one does not apply)".
absl::Status CheckCaseGenerator(const tensorflow::OpDef& op_def);

// Generates the cases of `request.op_def`, which passed CheckCaseGenerator. UNIMPLEMENTED "no
// input generator for op X with T=string" for a type no value generator fills.
absl::StatusOr<std::vector<KernelCase>> GenerateKernelCases(const CaseRequest& request);

// True when the op has a generator of its own (not the generic one).
bool HasOwnCaseGenerator(const std::string& op_name);

// "[3,1]x[4]": the shapes of `inputs`, joined.
std::string ShapesName(const std::vector<Tensor>& inputs);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_KERNEL_CASES_H_
