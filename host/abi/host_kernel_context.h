// The host's kernel contexts: the structs behind the ABI's opaque TSR_KernelConstruction and
// TSR_KernelContext, and the TSR_HostApi slots through which plugin kernels use them.
#ifndef TESSERA_HOST_ABI_HOST_KERNEL_CONTEXT_H_
#define TESSERA_HOST_ABI_HOST_KERNEL_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "host/runtime/tensor.h"
#include "tessera/plugin_api/plugin.h"

namespace tessera {

class Device;
class Node;
class ThreadPool;
class Rendezvous;
struct CallFrame;
struct FrameAndIter;

// What a kernel knows of its node; built once per executor node.
struct KernelNodeInfo {
  std::string name;
  std::string op;
  absl::InlinedVector<DataType, 4> input_types;
  absl::InlinedVector<DataType, 4> output_types;
  absl::InlinedVector<bool, 4> output_in_host_memory;
};

// Per-step services that host kernels (_Arg, _Retval, _Send, _Recv) use.
struct StepServices {
  int64_t step_id = 0;
  Rendezvous* rendezvous = nullptr;
  CallFrame* call_frame = nullptr;
  // Set when the step is cancelled (deadline, client or master gone) and when a node of it
  // failed; either may be null. KernelContext_IsCancelled reads them.
  const std::atomic<bool>* cancelled = nullptr;
  const std::atomic<bool>* failed = nullptr;
};

// Storage for attribute values handed to plugins; lives as long as the construction context.
struct AttrScratch {
  std::deque<std::vector<int64_t>> dims;
  std::deque<Tensor> tensors;
  std::deque<std::string> strings;
  std::deque<std::vector<const char*>> pointers;
  std::deque<std::vector<size_t>> sizes;
  std::deque<std::vector<int32_t>> ranks;
  std::deque<std::vector<const int64_t*>> dim_lists;
  std::deque<std::vector<TSR_TensorView>> views;
  std::deque<std::vector<TSR_FuncAttr>> funcs;
  std::deque<std::vector<TSR_AttrValue>> values;
};

}  // namespace tessera

// Defined here (global namespace) because the ABI declares them as opaque C structs.
struct TSR_KernelConstruction {
  const tessera::Node* node = nullptr;
  const tessera::KernelNodeInfo* info = nullptr;
  tessera::Device* device = nullptr;
  tessera::AttrScratch scratch;
};

struct TSR_KernelContext {
  const tessera::KernelNodeInfo* info = nullptr;
  tessera::Device* device = nullptr;
  tessera::ThreadPool* intra_op_pool = nullptr;
  const tessera::StepServices* step = nullptr;
  // The node's input slots; kernels borrow them, and forwarding may take their buffers.
  tessera::Tensor* inputs = nullptr;
  int num_inputs = 0;
  absl::InlinedVector<tessera::Tensor, 4> outputs;
  absl::InlinedVector<tessera::Tensor, 2> temps;
  // Set for a transfer node (_Send) that runs with a dead input: it forwards the deadness.
  bool is_input_dead = false;
  // True once the node packed a string input or allocated a packed string output (below): one
  // flag for the executor's per-node checks, which almost never find strings.
  bool has_packed_strings = false;
  // Loop frame and iteration the node runs in; (0, 0) outside loops. Go into rendezvous keys.
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
  // String tensors in the ABI's packed layout: inputs packed for GetInput (kept until the kernel
  // completes) and outputs the kernel fills through AllocateStringOutput, unpacked into
  // outputs[index] by FinishPackedStringOutputs when it completes.
  // Each entry is its own allocation: views handed out point into entries, which must not move
  // (and an empty vector allocates nothing, unlike a deque, on the executor's per-node path).
  struct PackedInput {
    int32_t index;
    tessera::Tensor buffer;
  };
  struct PackedOutput {
    int32_t index;
    tessera::TensorShape shape;
    tessera::Tensor buffer;
  };
  std::mutex packed_mutex;  // GetInput may be called from several ParallelFor shards
  std::vector<std::unique_ptr<PackedInput>> packed_inputs;
  std::vector<std::unique_ptr<PackedOutput>> packed_outputs;

  // Resets per-node state so one context serves many nodes on a thread.
  void Reset(const tessera::KernelNodeInfo* node_info, tessera::Tensor* node_inputs, int n) {
    info = node_info;
    inputs = node_inputs;
    num_inputs = n;
    outputs.clear();
    outputs.resize(node_info->output_types.size());
    temps.clear();
    is_input_dead = false;
    if (has_packed_strings) {
      packed_inputs.clear();
      packed_outputs.clear();
      has_packed_strings = false;
    }
  }
};

namespace tessera {

// Fills the KernelConstruction_*, KernelContext_* and ThreadPool_* slots of `api`.
void FillKernelSlots(TSR_HostApi* api);

// Fills `view` to describe `tensor` (borrowed: valid while `tensor` is). Not for string tensors,
// which cross the ABI packed (host/runtime/packed_strings.h).
void FillTensorView(const Tensor& tensor, TSR_TensorView* view);

// Turns the string outputs a plugin kernel filled through AllocateStringOutput into string
// tensors; INTERNAL naming the node and the output when the kernel left one malformed. Called
// when the kernel completes (a no-op when it allocated none).
absl::Status FinishPackedStringOutputs(TSR_KernelContext* ctx);

}  // namespace tessera

#endif  // TESSERA_HOST_ABI_HOST_KERNEL_CONTEXT_H_
