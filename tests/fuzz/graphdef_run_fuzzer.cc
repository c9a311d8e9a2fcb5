// A structure-aware fuzz target over binary GraphDefs that are imported and run in a local
// session with the CPU plugin. Its custom mutator parses the input, changes the graph the way a
// hostile client would (a dimension or an integer attr set to a value that breaks arithmetic, an
// op swapped for another, an input rewired, a node duplicated or dropped) and serializes it again,
// so mutations stay valid GraphDefs instead of bytes the parser refuses. Debian has no
// libprotobuf-mutator; this is the mutator of our own over the parsed proto.
//
// Tensors are capped at 64 MiB for the process (SetTensorByteLimit). The seed corpus
// (tests/fuzz/corpus/graphdef_run/*.pbtxt, converted to binary at build time) holds every graph
// that once crashed a process.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/framework/proto/graph.pb.h"
#include "host/ops/op_registry.h"
#include "host/runtime/tensor.h"
#include "host/session/session.h"

#if defined(TESSERA_LIBFUZZER)
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
#endif

namespace tessera {
namespace {

#if defined(TESSERA_LIBFUZZER)
constexpr int64_t kSpecial[] = {-1,
                                0,
                                1,
                                2,
                                int64_t{1} << 31,
                                int64_t{1} << 32,
                                int64_t{1} << 40,
                                int64_t{1} << 61,
                                int64_t{1} << 62,
                                std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::min()};

int64_t Special(std::mt19937_64& rng) {
  return kSpecial[rng() % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
}

const OpRegistry& Ops() {
  static const OpRegistry* ops = OpRegistry::CreateStandard().release();
  return *ops;
}

// One change to `def`, chosen by `rng`.
void MutateGraph(tensorflow::GraphDef* def, std::mt19937_64& rng) {
  if (def->node_size() == 0) return;
  tensorflow::NodeDef* node = def->mutable_node(static_cast<int>(rng() % def->node_size()));
  switch (rng() % 6) {
    case 0: {  // a dimension of a constant or a shape attr
      for (auto& [name, value] : *node->mutable_attr()) {
        tensorflow::TensorShapeProto* shape = nullptr;
        if (value.has_tensor()) shape = value.mutable_tensor()->mutable_tensor_shape();
        if (value.has_shape()) shape = value.mutable_shape();
        if (shape == nullptr) continue;
        if (shape->dim_size() == 0 || rng() % 4 == 0) {
          shape->add_dim()->set_size(Special(rng));
        } else {
          shape->mutable_dim(static_cast<int>(rng() % shape->dim_size()))->set_size(Special(rng));
        }
        break;
      }
      break;
    }
    case 1: {  // an integer, in an int attr, a list(int) attr or an int64 constant's values
      for (auto& [name, value] : *node->mutable_attr()) {
        if (value.value_case() == tensorflow::AttrValue::kI) {
          value.set_i(Special(rng));
          break;
        }
        if (value.has_list() && value.list().i_size() > 0) {
          value.mutable_list()->set_i(static_cast<int>(rng() % value.list().i_size()),
                                      Special(rng));
          break;
        }
        if (value.has_tensor()) {
          tensorflow::TensorProto* t = value.mutable_tensor();
          if (t->dtype() == tensorflow::DT_INT64) {
            t->add_int64_val(Special(rng));
          } else if (t->dtype() == tensorflow::DT_INT32) {
            t->add_int_val(static_cast<int32_t>(Special(rng)));
          }
          break;
        }
      }
      break;
    }
    case 2: {  // another op with the same inputs and attrs
      const std::vector<std::string> names = Ops().ListOpNames();
      const std::string& op = names[rng() % names.size()];
      if (op.empty() || op[0] == '_' || op == "SaveV2" || op == "RestoreV2" ||
          op == "MergeV2Checkpoints") {
        break;
      }
      node->set_op(op);
      break;
    }
    case 3: {  // an input rewired to another node
      if (node->input_size() == 0) break;
      const tensorflow::NodeDef& other = def->node(static_cast<int>(rng() % def->node_size()));
      node->set_input(static_cast<int>(rng() % node->input_size()),
                      rng() % 2 == 0 ? other.name() : absl::StrCat(other.name(), ":1"));
      break;
    }
    case 4: {  // a copy of the node under a new name
      tensorflow::NodeDef copy = *node;
      copy.set_name(absl::StrCat(copy.name(), "_", rng() % 1000));
      *def->add_node() = copy;
      break;
    }
    default:  // a node dropped
      def->mutable_node()->DeleteSubrange(static_cast<int>(rng() % def->node_size()), 1);
      break;
  }
}

#endif  // TESSERA_LIBFUZZER

void Run(const tensorflow::GraphDef& def) {
  if (def.node_size() == 0) return;
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = 1;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  if (!session.ok()) return;
  RunOptions run;
  run.timeout_ms = 5000;
  std::vector<Tensor> outputs;
  // The last node's first output: the seeds put the node under test last.
  (*session)
      ->Run(run, {}, {def.node(def.node_size() - 1).name()}, {}, &outputs, nullptr)
      .IgnoreError();
}

}  // namespace
}  // namespace tessera

#if defined(TESSERA_LIBFUZZER)
// libFuzzer's hook (the replay program has no mutator).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  tensorflow::GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::mt19937_64 rng(seed);
  const int changes = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < changes; ++i) tessera::MutateGraph(&def, rng);
  const std::string bytes = def.SerializeAsString();
  if (bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::copy(bytes.begin(), bytes.end(), data);
  return bytes.size();
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool limited = (tessera::SetTensorByteLimit(int64_t{64} << 20), true);
  (void)limited;
  tensorflow::GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) return 0;
  tessera::Run(def);
  return 0;
}
