// TensorFlow's frames and iterations: activation rules, loop iterations and frame retirement.
#include "host/executor/frame_propagator.h"

#include <algorithm>

namespace tessera {
namespace executor_internal {
namespace {

// Frame ids go into rendezvous keys, so every partition (and process) must compute the same one
// for the same (parent frame, iteration, frame name).
uint64_t CombineFrameId(uint64_t parent_id, int64_t iter, uint64_t name_hash) {
  uint64_t h = parent_id;
  for (uint64_t v : {static_cast<uint64_t>(iter), name_hash}) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  }
  return h == 0 ? 1 : h;  // 0 is the root frame
}

}  // namespace

FramePropagator::FramePropagator(const NodeTable* table)
    : table_(table), items_(table->items.data()), edges_(table->out_edges.data()) {
  root_ = std::make_unique<FrameState>();
  root_->info = &table->frames[0];
  root_->iterations.resize(2);
  root_->iterations[0] = std::make_unique<IterationState>(0, *root_->info);
  IterationState* iter0 = root_->iterations[0].get();
  for (const Prefill& prefill : table->prefills) iter0->inputs[prefill.slot] = *prefill.value;
}

void FramePropagator::AddRoots(const std::vector<int32_t>& roots, ReadyQueue* ready) {
  IterationState* iter0 = root_->iterations[0].get();
  iter0->outstanding_ops = static_cast<int64_t>(roots.size());
  for (int32_t id : roots) ready->push_back(TaggedNode{id, root_.get(), iter0, false});
}

void FramePropagator::Propagate(const TaggedNode& tagged, const NodeItem& item, Tensor* outputs,
                                ReadyQueue* ready) {
  bool is_dead = tagged.is_dead;
  FrameState* frame = tagged.frame;
  IterationState* iter = tagged.iter;
  std::lock_guard<std::mutex> lock(mu_);
  if (item.is_enter) {
    FrameState* child = FindOrCreateChildFrame(frame, iter, item);
    if (item.is_constant_enter) {
      Tensor value = outputs != nullptr ? outputs[0] : Tensor();
      child->inv_values.emplace_back(tagged.id, value);
      for (int64_t i = 0; i <= child->iteration_count; ++i) {
        Tensor copy = value;
        Activate(item, is_dead, child, child->GetIteration(i), &copy, ready);
      }
    } else {
      Activate(item, is_dead, child, child->GetIteration(0), outputs, ready);
    }
    --child->num_pending_inputs;
    IterationState* child_iter0 = child->GetIteration(0);
    if (child_iter0 != nullptr && child_iter0->outstanding_ops == 0 &&
        CleanupIterations(child, child_iter0, ready)) {
      DeleteFrame(child, ready);
      CleanupFrameIterations(frame, iter, ready);
    }
  } else if (item.is_exit) {
    if (is_dead || outputs == nullptr || !outputs[0].IsInitialized()) {
      if (iter->iter_num == frame->iteration_count) frame->dead_exits.push_back(tagged.id);
    } else {
      Activate(item, false, frame->parent, frame->parent_iter, outputs, ready);
    }
  } else if (item.is_next_iteration) {
    bool live = !is_dead && outputs != nullptr && outputs[0].IsInitialized();
    if (live) {
      if (iter->iter_num == frame->iteration_count &&
          frame->num_outstanding_iterations == frame->max_parallel_iterations) {
        frame->next_iter_roots.emplace_back(tagged.id, std::move(outputs[0]));
      } else {
        IterationState* next = iter->iter_num == frame->iteration_count
                                   ? IncrementIteration(frame, ready)
                                   : frame->GetIteration(iter->iter_num + 1);
        Activate(item, false, frame, next, outputs, ready);
      }
    }
    // A dead NextIteration ends deadness propagation: the loop is over for this value.
  } else {
    Activate(item, is_dead, frame, iter, outputs, ready);
  }
  if (--iter->outstanding_ops == 0 && CleanupIterations(frame, iter, ready)) {
    FrameState* parent = frame->parent;
    IterationState* parent_iter = frame->parent_iter;
    DeleteFrame(frame, ready);
    CleanupFrameIterations(parent, parent_iter, ready);
  }
}

// TensorFlow's activation rules: pending and dead counts per consumer, Merge firing on its
// first live input (or when all its inputs are dead), ControlTrigger never dead.
void FramePropagator::Activate(const NodeItem& item, bool is_dead, FrameState* frame,
                               IterationState* iter, Tensor* outputs, ReadyQueue* ready) {
  int64_t activated = 0;
  for (int32_t e = item.out_begin; e < item.out_end; ++e) {
    const OutEdge& edge = edges_[e];
    const NodeItem& dst = items_[edge.dst];
    PendingCount& count = iter->counts[dst.pending_id];
    bool dst_ready = false;
    bool dst_dead = false;
    if (edge.dst_slot >= 0) {
      bool dead_input = is_dead || outputs == nullptr || !outputs[edge.src_output].IsInitialized();
      bool take_input = false;
      if (dst.is_merge) {
        if (dead_input) {
          // A dead Enter makes its Merge dead at once: a loop on the untaken side of a cond
          // (or in a finished outer iteration) must not wait for a NextIteration.
          ++count.dead;
          dst_dead = count.dead == dst.num_inputs || item.is_enter;
          dst_ready = count.pending == 1 && dst_dead;
        } else {
          // Bit 0 is set until the first live input: only that one is kept and may fire it.
          int32_t before = count.pending;
          count.pending &= ~1;
          dst_ready = before == 1;
          take_input = (before & 1) == 1;
        }
      } else {
        if (dead_input) {
          ++count.dead;
        } else {
          take_input = true;
        }
        dst_ready = --count.pending == 0;
        dst_dead = count.dead > 0;
      }
      if (take_input) {
        Tensor& value = outputs[edge.src_output];
        if (edge.is_last_use) {
          iter->inputs[edge.dst_slot] = std::move(value);
        } else {
          iter->inputs[edge.dst_slot] = value;
        }
      }
    } else if (dst.is_merge) {
      count.pending -= 2;
      dst_dead = count.dead == dst.num_inputs;
      dst_ready = count.pending == 0 || (count.pending == 1 && dst_dead);
    } else {
      if (is_dead) ++count.dead;
      dst_ready = --count.pending == 0;
      dst_dead = count.dead > 0;
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{edge.dst, frame, iter, dst_dead});
      ++activated;
    }
  }
  iter->outstanding_ops += activated;
}

FrameState* FramePropagator::FindOrCreateChildFrame(FrameState* frame, IterationState* iter,
                                                    const NodeItem& enter) {
  std::pair<int64_t, int32_t> key(iter->iter_num, enter.enter_frame);
  auto it = frame->children.find(key);
  if (it != frame->children.end()) return it->second;
  auto* child = new FrameState;
  child->info = &table_->frames[enter.enter_frame];
  child->frame_id = CombineFrameId(frame->frame_id, iter->iter_num, child->info->name_hash);
  child->parent = frame;
  child->parent_iter = iter;
  child->max_parallel_iterations = std::max(1, enter.parallel_iterations);
  child->iterations.resize(static_cast<size_t>(child->max_parallel_iterations) + 1);
  child->iterations[0] = std::make_unique<IterationState>(0, *child->info);
  child->num_pending_inputs = child->info->num_enters;
  ++iter->outstanding_frame_count;
  frame->children.emplace(key, child);
  return child;
}

IterationState* FramePropagator::IncrementIteration(FrameState* frame, ReadyQueue* ready) {
  int64_t next_num = ++frame->iteration_count;
  auto& slot = frame->iterations[static_cast<size_t>(
      next_num % static_cast<int64_t>(frame->iterations.size()))];
  slot = std::make_unique<IterationState>(next_num, *frame->info);
  IterationState* next = slot.get();
  ++frame->num_outstanding_iterations;
  frame->dead_exits.clear();
  std::vector<std::pair<int32_t, Tensor>> parked;
  parked.swap(frame->next_iter_roots);
  for (auto& [id, value] : parked) Activate(items_[id], false, frame, next, &value, ready);
  for (const auto& [id, value] : frame->inv_values) {
    Tensor copy = value;
    Activate(items_[id], !copy.IsInitialized(), frame, next, &copy, ready);
  }
  return next;
}

bool FramePropagator::IsIterationDone(const FrameState* frame, const IterationState* iter) const {
  if (iter->outstanding_ops != 0 || iter->outstanding_frame_count != 0) return false;
  if (iter->iter_num == 0) return frame->num_pending_inputs == 0;
  return frame->GetIteration(iter->iter_num - 1) == nullptr;
}

// Retires finished iterations in order (starting parked ones); true when the frame is done.
// The root frame is never retired: the step's outstanding count decides when it ends.
bool FramePropagator::CleanupIterations(FrameState* frame, IterationState* iter,
                                        ReadyQueue* ready) {
  if (frame->parent == nullptr) return false;
  int64_t current = iter->iter_num;
  while (current <= frame->iteration_count && IsIterationDone(frame, iter)) {
    frame->iterations[static_cast<size_t>(current % static_cast<int64_t>(frame->iterations.size()))]
        .reset();
    --frame->num_outstanding_iterations;
    ++current;
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
    if (current > frame->iteration_count) break;
    iter = frame->GetIteration(current);
  }
  return frame->num_pending_inputs == 0 && frame->num_outstanding_iterations == 0;
}

// Propagates the frame's dead exits into its parent iteration and deletes it.
void FramePropagator::DeleteFrame(FrameState* frame, ReadyQueue* ready) {
  FrameState* parent = frame->parent;
  IterationState* parent_iter = frame->parent_iter;
  for (int32_t id : frame->dead_exits) {
    Activate(items_[id], true, parent, parent_iter, nullptr, ready);
  }
  for (auto it = parent->children.begin(); it != parent->children.end(); ++it) {
    if (it->second == frame) {
      parent->children.erase(it);
      break;
    }
  }
  delete frame;
}

// A child frame of (frame, iter) finished: retire what that completes, up the nesting.
void FramePropagator::CleanupFrameIterations(FrameState* frame, IterationState* iter,
                                             ReadyQueue* ready) {
  while (frame != nullptr) {
    --iter->outstanding_frame_count;
    if (!CleanupIterations(frame, iter, ready)) return;
    FrameState* parent = frame->parent;
    IterationState* parent_iter = frame->parent_iter;
    DeleteFrame(frame, ready);
    frame = parent;
    iter = parent_iter;
  }
}

}  // namespace executor_internal
}  // namespace tessera
