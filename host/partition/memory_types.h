// Memory types: whether each input and output of a node lives in device memory or host memory.
#ifndef TESSERA_HOST_PARTITION_MEMORY_TYPES_H_
#define TESSERA_HOST_PARTITION_MEMORY_TYPES_H_

#include <vector>

namespace tessera {

// Where a tensor argument lives on the node's device. On devices whose memory the host can
// touch directly (the CPU kind) the distinction does not matter: everything there is host memory.
enum class MemoryType { kDevice, kHost };

// One entry per input and per output of a node, in argument order.
struct MemoryTypes {
  std::vector<MemoryType> inputs;
  std::vector<MemoryType> outputs;
};

}  // namespace tessera

#endif  // TESSERA_HOST_PARTITION_MEMORY_TYPES_H_
