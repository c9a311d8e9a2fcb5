// A shape-aware fuzz target: the bytes choose a small graph (ops from the standard registry, their
// attrs, the dtypes, shapes and values of constant inputs, huge and negative dimensions among
// them) which is imported, placed and run in a local session with the CPU plugin. Anything may be
// refused with an error; nothing may crash, hang or write out of bounds. Tensors are capped at
// 64 MiB for the process (SetTensorByteLimit), so that a legitimately large request is an error
// rather than a fuzzer out-of-memory report.
//
// Built as a libFuzzer binary with clang (TESSERA_BUILD_FUZZERS=ON) and, always, as a replay
// program over the seed corpus (tests/fuzz/corpus/graph_run), which holds every graph that once
// crashed a process.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/framework/proto/graph.pb.h"
#include "host/ops/op_registry.h"
#include "host/runtime/tensor.h"
#include "host/session/session.h"

namespace tessera {
namespace {

// Reads the fuzzer's bytes as a stream of choices; zeros once they run out.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in [0, n).
  uint32_t Below(uint32_t n) {
    if (n <= 1) return 0;
    uint32_t v = Byte();
    if (n > 256) v = (v << 8) | Byte();
    return v % n;
  }
  bool Flip() { return (Byte() & 1) != 0; }
  // Mostly small values, sometimes the ones that break arithmetic.
  int64_t Int() {
    static constexpr int64_t kSpecial[] = {
        -1,
        -2,
        int64_t{1} << 31,
        (int64_t{1} << 31) - 1,
        int64_t{1} << 32,
        int64_t{1} << 40,
        int64_t{1} << 61,
        int64_t{1} << 62,
        std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min(),
        std::numeric_limits<int32_t>::min(),
    };
    const uint8_t kind = Byte();
    if (kind < 200) return kind % 9;  // 0..8
    return kSpecial[kind % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  }
  double Real() {
    static constexpr double kSpecial[] = {0.0, 1.0, -1.0, 0.5, 1e30, -1e30, 1e-30};
    const uint8_t kind = Byte();
    if (kind < 240) return (static_cast<int>(kind) - 120) / 8.0;
    return kSpecial[kind % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

constexpr tensorflow::DataType kTypes[] = {
    tensorflow::DT_FLOAT, tensorflow::DT_INT32,  tensorflow::DT_INT64,
    tensorflow::DT_BOOL,  tensorflow::DT_DOUBLE, tensorflow::DT_HALF,
    tensorflow::DT_UINT8, tensorflow::DT_INT8,   tensorflow::DT_STRING};

// Ops that touch files, that only the runtime inserts, or whose kernels run on host state the
// fuzzer cannot reproduce between runs.
bool Skipped(const std::string& op) {
  return op.empty() || op[0] == '_' || op == "SaveV2" || op == "RestoreV2" ||
         op == "MergeV2Checkpoints" || op == "Enter" || op == "Exit" || op == "NextIteration" ||
         op == "LoopCond" || op == "Merge" || op == "Switch" || op == "ControlTrigger";
}

// A constant of `dtype` with a small fuzzed shape (or a huge one, which the graph must refuse).
tensorflow::NodeDef* AddConst(Choices& in, tensorflow::DataType dtype, const std::string& name,
                              tensorflow::GraphDef* def) {
  tensorflow::NodeDef* node = def->add_node();
  node->set_name(name);
  node->set_op("Const");
  (*node->mutable_attr())["dtype"].set_type(dtype);
  tensorflow::TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(dtype);
  const int rank = static_cast<int>(in.Below(4));
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = in.Below(8) == 0 ? in.Int() : in.Below(5);
    value->mutable_tensor_shape()->add_dim()->set_size(size);
    // Only whether there are a few values matters here: the count stops growing at 64.
    elements = size <= 0 ? 0 : std::min<int64_t>(64, elements * std::min<int64_t>(size, 64));
  }
  // A few values: the proto repeats the last one to the shape's size, as TensorFlow does.
  const int values = static_cast<int>(std::min<int64_t>(elements, 1 + in.Below(6)));
  for (int i = 0; i < values; ++i) {
    switch (dtype) {
      case tensorflow::DT_FLOAT:
      case tensorflow::DT_HALF:
        value->add_float_val(static_cast<float>(in.Real()));
        break;
      case tensorflow::DT_DOUBLE:
        value->add_double_val(in.Real());
        break;
      case tensorflow::DT_INT64:
        value->add_int64_val(in.Int());
        break;
      case tensorflow::DT_BOOL:
        value->add_bool_val(in.Flip());
        break;
      case tensorflow::DT_STRING:
        value->add_string_val(std::string(in.Below(4), 'a' + static_cast<char>(in.Below(26))));
        break;
      default:
        value->add_int_val(static_cast<int32_t>(in.Int()));
        break;
    }
  }
  return node;
}

// Fills the attr `attr` of `node` from the fuzzer's choices.
void FuzzAttr(Choices& in, const tensorflow::OpDef::AttrDef& attr, tensorflow::NodeDef* node) {
  tensorflow::AttrValue& value = (*node->mutable_attr())[attr.name()];
  const std::string& type = attr.type();
  if (in.Below(4) == 0 && attr.has_default_value()) {
    value = attr.default_value();
    return;
  }
  if (type == "type") {
    const auto& allowed = attr.allowed_values().list().type();
    value.set_type(allowed.empty() ? kTypes[in.Below(sizeof(kTypes) / sizeof(kTypes[0]))]
                                   : static_cast<tensorflow::DataType>(
                                         allowed[static_cast<int>(in.Below(allowed.size()))]));
  } else if (type == "int") {
    // Mostly at or just above the attr's minimum (N of AddN, num_split, ...), sometimes anything.
    const int64_t minimum = attr.has_minimum() ? attr.minimum() : 0;
    value.set_i(in.Below(8) != 0 ? minimum + in.Below(3) : in.Int());
  } else if (type == "float") {
    value.set_f(static_cast<float>(in.Real()));
  } else if (type == "bool") {
    value.set_b(in.Flip());
  } else if (type == "string") {
    const auto& allowed = attr.allowed_values().list().s();
    static const char* kStrings[] = {"NHWC", "NCHW", "SAME", "VALID", "EXPLICIT", "", "x"};
    value.set_s(allowed.empty() ? kStrings[in.Below(7)]
                                : allowed[static_cast<int>(in.Below(allowed.size()))]);
  } else if (type == "shape") {
    const int rank = static_cast<int>(in.Below(4));
    for (int d = 0; d < rank; ++d) value.mutable_shape()->add_dim()->set_size(in.Int());
  } else if (type == "list(int)") {
    // Mostly four small values (strides, dilations, ksize), sometimes anything.
    value.mutable_list();
    const bool usual = in.Below(4) != 0;
    const int n = usual ? 4 : static_cast<int>(in.Below(6));
    for (int i = 0; i < n; ++i) value.mutable_list()->add_i(usual ? 1 + in.Below(2) : in.Int());
  } else if (type == "list(float)") {
    value.mutable_list();
    const int n = static_cast<int>(in.Below(4));
    for (int i = 0; i < n; ++i) value.mutable_list()->add_f(static_cast<float>(in.Real()));
  } else if (type == "list(type)") {
    value.mutable_list();
    const int n = static_cast<int>(in.Below(4));
    for (int i = 0; i < n; ++i) {
      value.mutable_list()->add_type(kTypes[in.Below(sizeof(kTypes) / sizeof(kTypes[0]))]);
    }
  } else if (type == "list(shape)") {
    value.mutable_list();
    const int n = static_cast<int>(in.Below(3));
    for (int i = 0; i < n; ++i) value.mutable_list()->add_shape()->add_dim()->set_size(in.Int());
  } else if (type == "tensor") {
    tensorflow::GraphDef scratch;
    *value.mutable_tensor() =
        AddConst(in, tensorflow::DT_FLOAT, "scratch", &scratch)->attr().at("value").tensor();
  } else if (attr.has_default_value()) {
    value = attr.default_value();
  } else {
    node->mutable_attr()->erase(attr.name());  // func and the rest: left out, import refuses
  }
}

// The dtype of one input of `node` as its attrs say, or DT_FLOAT when they do not.
tensorflow::DataType ArgType(const tensorflow::OpDef::ArgDef& arg, const tensorflow::NodeDef& node,
                             int index) {
  if (arg.type() != tensorflow::DT_INVALID) return arg.type();
  auto find = [&](const std::string& name) -> const tensorflow::AttrValue* {
    auto it = node.attr().find(name);
    return it == node.attr().end() ? nullptr : &it->second;
  };
  if (!arg.type_attr().empty()) {
    const tensorflow::AttrValue* t = find(arg.type_attr());
    return t != nullptr ? t->type() : tensorflow::DT_FLOAT;
  }
  if (!arg.type_list_attr().empty()) {
    const tensorflow::AttrValue* list = find(arg.type_list_attr());
    if (list != nullptr && index < list->list().type_size()) return list->list().type(index);
  }
  return tensorflow::DT_FLOAT;
}

// How many tensors an input arg takes.
int ArgCount(const tensorflow::OpDef::ArgDef& arg, const tensorflow::NodeDef& node) {
  if (!arg.number_attr().empty()) {
    auto it = node.attr().find(arg.number_attr());
    if (it == node.attr().end()) return 1;
    return static_cast<int>(std::clamp<int64_t>(it->second.i(), 0, 4));
  }
  if (!arg.type_list_attr().empty()) {
    auto it = node.attr().find(arg.type_list_attr());
    return it == node.attr().end() ? 0 : std::min(it->second.list().type_size(), 4);
  }
  return 1;
}

void BuildAndRun(Choices& in) {
  static const OpRegistry* ops = OpRegistry::CreateStandard().release();
  static const std::vector<std::string>* names = [] {
    auto* list = new std::vector<std::string>();
    for (const std::string& name : ops->ListOpNames()) {
      if (!Skipped(name)) list->push_back(name);
    }
    return list;
  }();
  tensorflow::GraphDef def;
  const int nodes = 1 + static_cast<int>(in.Below(4));
  std::string last;
  tensorflow::DataType last_type = tensorflow::DT_INVALID;
  for (int n = 0; n < nodes; ++n) {
    const std::string& op_name = (*names)[in.Below(static_cast<uint32_t>(names->size()))];
    const tensorflow::OpDef& op = ops->Find(op_name)->op_def;
    tensorflow::NodeDef node;
    node.set_name(absl::StrCat("n", n));
    node.set_op(op_name);
    for (const tensorflow::OpDef::AttrDef& attr : op.attr()) FuzzAttr(in, attr, &node);
    int input = 0;
    for (const tensorflow::OpDef::ArgDef& arg : op.input_arg()) {
      const int count = ArgCount(arg, node);
      for (int i = 0; i < count; ++i, ++input) {
        const tensorflow::DataType dtype = ArgType(arg, node, i);
        // The previous node's first output when its type fits (and now and then when it does
        // not), otherwise a new constant.
        const uint32_t pick = in.Below(8);
        if (!last.empty() && ((last_type == dtype && pick < 5) || pick == 7)) {
          node.add_input(last);
        } else {
          const std::string name = absl::StrCat(node.name(), "/in", input);
          AddConst(in, dtype, name, &def);
          node.add_input(name);
        }
      }
    }
    last_type =
        op.output_arg_size() > 0 ? ArgType(op.output_arg(0), node, 0) : tensorflow::DT_INVALID;
    *def.add_node() = node;
    last = node.name();
  }
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = 1;
  // TESSERA_FUZZ_VERBOSE=1: say what each input built and how far it got (corpus upkeep).
  static const bool verbose = std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, def);
  if (!session.ok()) {
    if (verbose)
      std::fprintf(stderr, "%s\n  create: %s\n", def.ShortDebugString().c_str(),
                   session.status().ToString().c_str());
    return;
  }
  RunOptions run;
  run.timeout_ms = 5000;
  std::vector<Tensor> outputs;
  absl::Status status = (*session)->Run(run, {}, {last}, {}, &outputs, nullptr);
  if (verbose)
    std::fprintf(stderr, "%s\n  run: %s\n", def.ShortDebugString().c_str(),
                 status.ToString().c_str());
}

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool limited = (tessera::SetTensorByteLimit(int64_t{64} << 20), true);
  (void)limited;
  tessera::Choices in(data, size);
  tessera::BuildAndRun(in);
  return 0;
}
