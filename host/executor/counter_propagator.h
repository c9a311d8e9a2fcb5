// The propagator of graphs without frames: one atomic pending counter per node, no dead values.
// Private to host/executor/.
#ifndef TESSERA_HOST_EXECUTOR_COUNTER_PROPAGATOR_H_
#define TESSERA_HOST_EXECUTOR_COUNTER_PROPAGATOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "host/executor/node_table.h"

namespace tessera {
namespace executor_internal {

class CounterPropagator {
 public:
  struct TaggedNode {
    int32_t id;
  };
  using ReadyQueue = absl::InlinedVector<TaggedNode, 16>;

  explicit CounterPropagator(const NodeTable* table)
      : edges_(table->out_edges.data()),
        pending_(new std::atomic<int32_t>[table->items.size()]),
        inputs_(new Tensor[table->total_input_slots]) {
    for (size_t i = 0; i < table->items.size(); ++i) {
      pending_[i].store(table->items[i].initial_pending, std::memory_order_relaxed);
    }
    for (const Prefill& prefill : table->prefills) inputs_[prefill.slot] = *prefill.value;
  }

  void AddRoots(const std::vector<int32_t>& roots, ReadyQueue* ready) const {
    for (int32_t id : roots) ready->push_back(TaggedNode{id});
  }

  static int32_t Id(TaggedNode tagged) { return tagged.id; }
  static constexpr bool IsDead(TaggedNode) { return false; }
  static constexpr bool AllowsMissingOutputs(const NodeItem&) { return false; }
  static constexpr uint64_t FrameId(TaggedNode) { return 0; }
  static constexpr int64_t IterId(TaggedNode) { return 0; }
  static void SetFrame(TaggedNode, TSR_KernelContext*) {}

  Tensor* Inputs(TaggedNode, const NodeItem& item) { return &inputs_[item.input_start]; }

  // Hands `outputs` (never null here: no node is dead) to the consumers and adds those that
  // became ready to `ready`.
  void Propagate(TaggedNode, const NodeItem& item, Tensor* outputs, ReadyQueue* ready) {
    for (int32_t e = item.out_begin; e < item.out_end; ++e) {
      const OutEdge& edge = edges_[e];
      if (edge.dst_slot >= 0) {
        Tensor& value = outputs[edge.src_output];
        if (edge.is_last_use) {
          inputs_[edge.dst_slot] = std::move(value);
        } else {
          inputs_[edge.dst_slot] = value;
        }
      }
      // A node with a single in-edge is ready as soon as that edge fires: no counter needed.
      if (edge.dst_single_input ||
          pending_[edge.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back(TaggedNode{edge.dst});
      }
    }
  }

 private:
  const OutEdge* edges_;
  std::unique_ptr<std::atomic<int32_t>[]> pending_;
  std::unique_ptr<Tensor[]> inputs_;
};

}  // namespace executor_internal
}  // namespace tessera

#endif  // TESSERA_HOST_EXECUTOR_COUNTER_PROPAGATOR_H_
