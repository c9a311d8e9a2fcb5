// FuseOps: the op fusion pass (TensorFlow's grappler remapper, for the patterns it fuses on CPU).
// Conv2D or MatMul followed by BiasAdd, optionally followed by Relu, Relu6, Elu or LeakyRelu,
// becomes one _FusedConv2D or _FusedMatMul node when the device the chain is placed on has a
// kernel for it (docs/op_fusion.md).
#ifndef TESSERA_HOST_PASSES_OP_FUSION_H_
#define TESSERA_HOST_PASSES_OP_FUSION_H_

#include <functional>

#include "absl/status/status.h"

namespace tessera {

class Graph;
class Node;

// Whether the device `node` is assigned to has a kernel for it (a candidate fused node, built in a
// scratch graph).
using HasKernelFn = std::function<bool(const Node& node)>;

// Rewrites `graph` (placed: every op node has an assigned device) in place. A chain is fused only
// when its nodes share the assigned device and dtype, each intermediate output feeds only the next
// node of the chain (not fetched, no other consumer) and no intermediate node has control edges
// out, and the BiasAdd's data_format matches the convolution's. The fused node takes the name,
// requested device and outputs of the chain's last node, the data inputs of the convolution or
// product and of the BiasAdd's bias, and every control input of the chain. `fused` (may be null)
// gets the number of chains fused.
absl::Status FuseOps(Graph* graph, const HasKernelFn& has_kernel, int* fused = nullptr);

}  // namespace tessera

#endif  // TESSERA_HOST_PASSES_OP_FUSION_H_
