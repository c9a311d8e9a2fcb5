// tessera_peer_runner: Tessera as one column of the peer benchmark harness (bench/README.md).
//
//   tessera_peer_runner --workload W --threads T [--layout NHWC|NCHW] [--inter-op N]
//                       [--profile STEPS] [--no-op-fusion]
//
// Builds workload W as a TensorFlow GraphDef (w1_chain_N, w2_fan, w3_identity, w4_mlp_bB, w5_cnn,
// w6_gemm_N, defined by the harness), runs it in a local session on the CPU plugin, and prints one
// JSON line: the median of the timed runs in the workload's metric and the output's checksum,
// which must match the other runtimes'. Weights come from the harness's seeded generator, so the
// checksums are comparable. T is applied as the harness applies it to ONNX Runtime: T intra-op
// threads and one inter-op thread, except w2_fan at T > 1, which gets T inter-op threads and one
// intra-op thread (independent nodes run concurrently). --layout picks w5_cnn's layout inside the
// graph (the fed input is NCHW either way; NHWC transposes it first). --profile STEPS runs that
// many more steps with step stats after the timed ones and prints each node's median time to
// stderr. --no-op-fusion turns the op fusion pass off (SessionOptions::op_fusion).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host/session/session.h"

namespace tessera {
namespace {

struct Args {
  std::string workload;
  int threads = 1;
  std::string layout = "NHWC";
  int inter_op = 0;  // 0: as the harness applies T (see above)
  int profile_steps = 0;
  bool op_fusion = true;
};

// The harness's counter-based generator (splitmix64): element i of a tensor seeded `seed`, in
// [-1, 1), then times `scale` in float.
float SeededValue(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return static_cast<float>(static_cast<double>(z >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
}

std::vector<float> Seeded(uint64_t seed, size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = SeededValue(seed, i) * scale;
  return v;
}

float FanInScale(int64_t fan_in) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(fan_in)));
}

// The harness's output checksum: sum_i out[i] * ((i mod 13) + 1) in double.
double Checksum(const float* p, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(p[i]) * static_cast<double>(i % 13 + 1);
  return s;
}

// A GraphDef under construction, float32 throughout.
class GraphBuilder {
 public:
  tensorflow::NodeDef* Node(const std::string& name, const std::string& op,
                            std::vector<std::string> inputs, bool typed = true) {
    tensorflow::NodeDef* node = def_.add_node();
    node->set_name(name);
    node->set_op(op);
    for (std::string& input : inputs) node->add_input(std::move(input));
    if (typed) (*node->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    return node;
  }

  void Placeholder(const std::string& name) {
    (*Node(name, "Placeholder", {}, false)->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  }

  void Const(const std::string& name, const std::vector<int64_t>& shape,
             const std::vector<float>& values) {
    tensorflow::NodeDef* node = Node(name, "Const", {}, false);
    (*node->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    tensorflow::TensorProto* t = (*node->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(tensorflow::DT_FLOAT);
    for (int64_t d : shape) t->mutable_tensor_shape()->add_dim()->set_size(d);
    t->set_tensor_content(std::string(reinterpret_cast<const char*>(values.data()),
                                      values.size() * sizeof(float)));
  }

  void IntConst(const std::string& name, const std::vector<int32_t>& values) {
    tensorflow::NodeDef* node = Node(name, "Const", {}, false);
    (*node->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    tensorflow::TensorProto* t = (*node->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(tensorflow::DT_INT32);
    t->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
    for (int32_t v : values) t->add_int_val(v);
  }

  // y = x W^T + b with W stored [out, in] (ONNX Gemm with transB = 1).
  std::string Dense(const std::string& name, const std::string& x, int64_t in, int64_t out,
                    uint64_t weight_seed, uint64_t bias_seed) {
    const float scale = FanInScale(in);
    Const(name + "/w", {out, in}, Seeded(weight_seed, static_cast<size_t>(out * in), scale));
    Const(name + "/b", {out}, Seeded(bias_seed, static_cast<size_t>(out), scale));
    tensorflow::NodeDef* mm = Node(name + "/matmul", "MatMul", {x, name + "/w"});
    (*mm->mutable_attr())["transpose_b"].set_b(true);
    Node(name, "BiasAdd", {name + "/matmul", name + "/b"});
    return name;
  }

  // 3x3 convolution, stride 1, padding 1 (SAME), from ONNX's [Cout, Cin, 3, 3] weights, + bias.
  std::string Conv3x3(const std::string& name, const std::string& x, int64_t cin, int64_t cout,
                      uint64_t weight_seed, uint64_t bias_seed, bool nchw) {
    const float scale = FanInScale(cin * 9);
    std::vector<float> oihw = Seeded(weight_seed, static_cast<size_t>(cout * cin * 9), scale);
    std::vector<float> hwio(oihw.size());
    for (int64_t o = 0; o < cout; ++o) {
      for (int64_t i = 0; i < cin; ++i) {
        for (int64_t k = 0; k < 9; ++k) hwio[(k * cin + i) * cout + o] = oihw[(o * cin + i) * 9 + k];
      }
    }
    Const(name + "/k", {3, 3, cin, cout}, hwio);
    Const(name + "/b", {cout}, Seeded(bias_seed, static_cast<size_t>(cout), scale));
    tensorflow::NodeDef* conv = Node(name + "/conv", "Conv2D", {x, name + "/k"});
    auto& attrs = *conv->mutable_attr();
    for (int64_t s : {1, 1, 1, 1}) attrs["strides"].mutable_list()->add_i(s);
    attrs["padding"].set_s("SAME");
    attrs["data_format"].set_s(nchw ? "NCHW" : "NHWC");
    tensorflow::NodeDef* bias = Node(name, "BiasAdd", {name + "/conv", name + "/b"});
    (*bias->mutable_attr())["data_format"].set_s(nchw ? "NCHW" : "NHWC");
    return name;
  }

  std::string MaxPool2x2(const std::string& name, const std::string& x, bool nchw) {
    tensorflow::NodeDef* pool = Node(name, "MaxPool", {x});
    auto& attrs = *pool->mutable_attr();
    const std::vector<int64_t> window = nchw ? std::vector<int64_t>{1, 1, 2, 2}
                                             : std::vector<int64_t>{1, 2, 2, 1};
    for (int64_t k : window) attrs["ksize"].mutable_list()->add_i(k);
    for (int64_t k : window) attrs["strides"].mutable_list()->add_i(k);
    attrs["padding"].set_s("VALID");
    attrs["data_format"].set_s(nchw ? "NCHW" : "NHWC");
    return name;
  }

  tensorflow::GraphDef& def() { return def_; }

 private:
  tensorflow::GraphDef def_;
};

// One workload: its graph, feeds, the fetched tensor and how a median time becomes its metric.
struct Workload {
  tensorflow::GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::string fetch;
  std::string metric;
  std::function<double(double median_ns)> value;
  int warmup = 3;
  int reps = 11;
};

Tensor FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  Tensor t(TSR_DTYPE_FLOAT, shape);
  std::copy(values.begin(), values.end(), t.flat<float>().begin());
  return t;
}

int TrailingInt(const std::string& s) {
  size_t p = s.size();
  while (p > 0 && s[p - 1] >= '0' && s[p - 1] <= '9') --p;
  return std::atoi(s.c_str() + p);
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Builds `args.workload`; false when it is not one of the harness's workloads.
bool BuildWorkload(const Args& args, Workload* w) {
  GraphBuilder g;
  const std::string& name = args.workload;
  if (StartsWith(name, "w1_chain_")) {
    const int n = TrailingInt(name);
    if (n <= 0) return false;
    g.Placeholder("x");
    g.Const("c", {1}, {1.0f});
    std::string prev = "x";
    for (int i = 0; i < n; ++i) {
      std::string node = absl::StrCat("add", i);
      g.Node(node, "AddV2", {prev, "c"});
      prev = node;
    }
    w->feeds = {{"x", FloatTensor({1}, Seeded(1, 1))}};
    w->fetch = prev;
    w->metric = "ns_per_node";
    w->value = [n](double ns) { return ns / n; };
    w->warmup = 5;
    w->reps = 21;
  } else if (name == "w2_fan") {
    constexpr int kFan = 1000;
    g.Placeholder("x");
    std::vector<std::string> terms;
    for (int j = 0; j < kFan; ++j) {
      const std::string c = absl::StrCat("c", j);
      g.Const(c, {1}, {static_cast<float>((j + 1) * 0.001)});
      terms.push_back(absl::StrCat("t", j));
      g.Node(terms.back(), "AddV2", {"x", c});
    }
    (*g.Node("y", "AddN", terms)->mutable_attr())["N"].set_i(kFan);
    w->feeds = {{"x", FloatTensor({1}, Seeded(1, 1))}};
    w->fetch = "y";
    w->metric = "ns_per_node";
    w->value = [](double ns) { return ns / (kFan + 1); };
    w->warmup = 5;
    w->reps = 41;
  } else if (name == "w3_identity") {
    g.Placeholder("x");
    g.Node("y", "Identity", {"x"});
    w->feeds = {{"x", FloatTensor({1}, Seeded(1, 1))}};
    w->fetch = "y";
    w->metric = "us";
    w->value = [](double ns) { return ns / 1e3; };
    w->warmup = 2000;
    w->reps = 20000;
  } else if (StartsWith(name, "w4_mlp_b")) {
    const int batch = TrailingInt(name);
    if (batch <= 0) return false;
    g.Placeholder("x");
    g.Node("relu1", "Relu", {g.Dense("fc1", "x", 784, 1024, 11, 12)});
    g.Node("relu2", "Relu", {g.Dense("fc2", "relu1", 1024, 1024, 21, 22)});
    g.Node("y", "Softmax", {g.Dense("fc3", "relu2", 1024, 10, 31, 32)});
    w->feeds = {{"x", FloatTensor({batch, 784}, Seeded(2, static_cast<size_t>(batch) * 784))}};
    w->fetch = "y";
    w->metric = "ms";
    w->value = [](double ns) { return ns / 1e6; };
    w->warmup = batch == 1 ? 20 : 5;
    w->reps = batch == 1 ? 301 : 51;
  } else if (name == "w5_cnn") {
    const bool nchw = args.layout == "NCHW";
    g.Placeholder("x");  // [8, 3, 64, 64], NCHW as the harness feeds it
    std::string x = "x";
    if (!nchw) {
      g.IntConst("to_nhwc", {0, 2, 3, 1});
      tensorflow::NodeDef* t = g.Node("x_nhwc", "Transpose", {"x", "to_nhwc"});
      (*t->mutable_attr())["Tperm"].set_type(tensorflow::DT_INT32);
      x = "x_nhwc";
    }
    g.Node("relu1", "Relu", {g.Conv3x3("conv1", x, 3, 32, 101, 102, nchw)});
    g.MaxPool2x2("pool1", "relu1", nchw);
    g.Node("relu2", "Relu", {g.Conv3x3("conv2", "pool1", 32, 64, 201, 202, nchw)});
    g.MaxPool2x2("pool2", "relu2", nchw);
    g.Node("relu3", "Relu", {g.Conv3x3("conv3", "pool2", 64, 128, 301, 302, nchw)});
    g.IntConst("spatial", nchw ? std::vector<int32_t>{2, 3} : std::vector<int32_t>{1, 2});
    tensorflow::NodeDef* mean = g.Node("gap", "Mean", {"relu3", "spatial"});
    (*mean->mutable_attr())["Tidx"].set_type(tensorflow::DT_INT32);
    (*mean->mutable_attr())["keep_dims"].set_b(false);
    g.Node("y", "Softmax", {g.Dense("fc", "gap", 128, 10, 401, 402)});
    w->feeds = {{"x", FloatTensor({8, 3, 64, 64}, Seeded(3, 8 * 3 * 64 * 64))}};
    w->fetch = "y";
    w->metric = "ms";
    w->value = [](double ns) { return ns / 1e6; };
    w->warmup = 3;
    w->reps = 21;
  } else if (StartsWith(name, "w6_gemm_")) {
    const int n = TrailingInt(name);
    if (n <= 0) return false;
    g.Placeholder("a");
    g.Placeholder("b");
    g.Node("c", "MatMul", {"a", "b"});
    const size_t count = static_cast<size_t>(n) * static_cast<size_t>(n);
    w->feeds = {{"a", FloatTensor({n, n}, Seeded(1001, count))},
                {"b", FloatTensor({n, n}, Seeded(1002, count))}};
    w->fetch = "c";
    w->metric = "gflops";
    const double flops = 2.0 * n * n * static_cast<double>(n);
    w->value = [flops](double ns) { return flops / ns; };
    w->warmup = n <= 256 ? 10 : n <= 1024 ? 2 : 1;
    w->reps = n <= 256 ? 101 : n <= 1024 ? 15 : n <= 2048 ? 7 : 1;
  } else {
    return false;
  }
  w->graph = std::move(g.def());
  return true;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string JsonNumber(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", d);
  return buf;
}

void EmitStatus(const Args& args, const std::string& status, const std::string& reason) {
  std::printf("{\"peer\":\"tessera\",\"workload\":%s,\"threads\":%d,\"status\":%s,\"reason\":%s}\n",
              JsonString(args.workload).c_str(), args.threads, JsonString(status).c_str(),
              JsonString(reason).c_str());
}

double Quantile(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1,
                         static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5))];
}

// Runs `steps` steps collecting step stats and prints, per node, the median of its time over the
// steps (slowest first), with its op and output shapes, to stderr.
absl::Status Profile(Session& session, const Workload& w, const std::vector<std::string>& fetches,
                     int steps) {
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, std::string> what;
  std::vector<double> step_times;
  RunOptions options;
  options.collect_step_stats = true;
  for (int i = 0; i < steps; ++i) {
    std::vector<Tensor> outputs;
    RunMetadata metadata;
    absl::Status status = session.Run(options, w.feeds, fetches, {}, &outputs, &metadata);
    if (!status.ok()) return status;
    step_times.push_back(
        static_cast<double>(metadata.step_stats.end_ns - metadata.step_stats.start_ns));
    for (const DeviceStepStats& device : metadata.step_stats.devices) {
      for (const NodeExecStats& node : device.nodes) {
        times[node.node_name].push_back(static_cast<double>(node.end_ns - node.start_ns));
        std::string shapes;
        for (const std::string& shape : node.output_shapes) absl::StrAppend(&shapes, " ", shape);
        what[node.node_name] = absl::StrCat(node.op, shapes);
      }
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<std::pair<double, std::string>> order;
  double total = 0;
  for (const auto& [name, t] : times) {
    order.emplace_back(median(t), name);
    total += order.back().first;
  }
  std::sort(order.rbegin(), order.rend());
  std::fprintf(stderr, "step (median of %d): %.3f ms; nodes: %.3f ms\n", steps,
               median(step_times) / 1e6, total / 1e6);
  for (const auto& [t, name] : order) {
    std::fprintf(stderr, "%10.3f ms %5.1f%%  %-24s %s\n", t / 1e6, 100 * t / total, name.c_str(),
                 what[name].c_str());
  }
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (key == "--no-op-fusion") {
      args.op_fusion = false;
      continue;
    }
    const bool known = key == "--workload" || key == "--threads" || key == "--layout" ||
                       key == "--inter-op" || key == "--profile";
    if (!known || i + 1 >= argc) {
      args.workload = args.workload.empty() ? "?" : args.workload;
      EmitStatus(args, "error",
                 known ? absl::StrCat(key, " needs a value")
                       : absl::StrCat("unknown option '", key,
                                      "' (--workload W --threads T [--layout NHWC|NCHW] "
                                      "[--inter-op N] [--profile STEPS] [--no-op-fusion])"));
      return 2;
    }
    const std::string value = argv[++i];
    if (key == "--workload") {
      args.workload = value;
    } else if (key == "--threads") {
      args.threads = std::max(1, std::atoi(value.c_str()));
    } else if (key == "--layout") {
      args.layout = value;
    } else if (key == "--inter-op") {
      args.inter_op = std::max(0, std::atoi(value.c_str()));
    } else {
      args.profile_steps = std::max(0, std::atoi(value.c_str()));
    }
  }
  if (args.layout != "NHWC" && args.layout != "NCHW") {
    EmitStatus(args, "error", "--layout must be NHWC or NCHW");
    return 2;
  }
  Workload w;
  if (!BuildWorkload(args, &w)) {
    EmitStatus(args, "unsupported", absl::StrCat("unknown workload '", args.workload, "'"));
    return 0;
  }
  SessionOptions options;
  const bool fan = args.workload == "w2_fan" && args.threads > 1;
  options.intra_op_threads = fan ? 1 : args.threads;
  options.inter_op_threads = args.inter_op > 0 ? args.inter_op : fan ? args.threads : 1;
  options.op_fusion = args.op_fusion;
  const auto create_start = std::chrono::steady_clock::now();
  auto session = Session::Create(options, std::move(w.graph));
  if (!session.ok()) {
    EmitStatus(args, "error", std::string(session.status().message()));
    return 1;
  }
  const std::vector<std::string> fetches = {w.fetch};
  std::vector<Tensor> outputs;
  absl::Status status = (*session)->Run(w.feeds, fetches, {}, &outputs);
  const double create_ms = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - create_start)
                               .count();
  if (!status.ok()) {
    EmitStatus(args, "error", std::string(status.message()));
    return 1;
  }
  for (int i = 0; i < w.warmup && status.ok(); ++i) {
    status = (*session)->Run(w.feeds, fetches, {}, &outputs);
  }
  std::vector<double> times;
  times.reserve(static_cast<size_t>(w.reps));
  for (int i = 0; i < w.reps && status.ok(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    status = (*session)->Run(w.feeds, fetches, {}, &outputs);
    times.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  if (!status.ok()) {
    EmitStatus(args, "error", std::string(status.message()));
    return 1;
  }
  if (args.profile_steps > 0) {
    status = Profile(**session, w, fetches, args.profile_steps);
    if (!status.ok()) {
      EmitStatus(args, "error", std::string(status.message()));
      return 1;
    }
  }
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  const double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  const Tensor& out = outputs[0];
  const double checksum =
      Checksum(out.flat<float>().data(), static_cast<size_t>(out.shape().num_elements()));
  std::printf(
      "{\"peer\":\"tessera\",\"workload\":%s,\"threads\":%d,\"status\":\"ok\",\"metric\":%s,"
      "\"value\":%s,\"reps\":%zu,\"raw_unit\":\"ns_per_call\",\"raw_median\":%s,\"raw_min\":%s,"
      "\"raw_p10\":%s,\"raw_p90\":%s,\"raw_max\":%s,\"checksum\":%s,\"session_create_ms\":%s,"
      "\"layout\":%s,\"inter_op_threads\":%d,\"intra_op_threads\":%d,\"op_fusion\":%s,"
      "\"version\":\"tessera\"}\n",
      JsonString(args.workload).c_str(), args.threads, JsonString(w.metric).c_str(),
      JsonNumber(w.value(median)).c_str(), n, JsonNumber(median).c_str(),
      JsonNumber(times.front()).c_str(), JsonNumber(Quantile(times, 0.1)).c_str(),
      JsonNumber(Quantile(times, 0.9)).c_str(), JsonNumber(times.back()).c_str(),
      JsonNumber(checksum).c_str(), JsonNumber(create_ms).c_str(),
      JsonString(args.layout).c_str(), options.inter_op_threads, options.intra_op_threads,
      args.op_fusion ? "true" : "false");
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
