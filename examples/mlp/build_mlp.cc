// Builds the example MLP with the C++ API and writes mlp.pb, mlp.pbtxt and input.npy.
//
// The network is a hand-made "dartboard" classifier: for a 2-D point (x, y) it says whether the
// point is in the bullseye (distance from the origin below 1), the ring (1 to 2) or outside
// (above 2). The weights are not trained; each one has a meaning:
//
//   hidden layer (16 ReLU units): unit k measures how far the point reaches in direction
//     theta_k = k * 22.5 degrees: h_k = relu(x cos(theta_k) + y sin(theta_k)). For any point at
//     distance r, the sum of the 16 units is r * sum_k max(0, cos(phi - theta_k)), which is
//     (16 / pi) * r to within 1% whatever the angle phi: the layer computes the distance.
//   output layer (3 logits): with r = (pi / 16) * sum_k h_k,
//     bullseye = 0,  ring = K (r - 1),  outside = K (2 r - 3).
//     These three lines cross so that "ring" beats "bullseye" exactly when r > 1 and "outside"
//     beats "ring" exactly when r > 2. K = 6 sets how sharp the softmax is near the borders.
//   predicted_class: the index of the largest logit, built from the ops this release has
//     (Max, Sub, Mul, Relu, Sum, Cast): one-hot = relu(1 - 1e4 * (max - logits)), then
//     sum(one-hot * [0, 1, 2]) as int64.
//
// Usage: tessera_build_mlp_example [OUTPUT_DIR]   (default: the current folder)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "host/client/npy.h"
#include "host/client/ops.h"

namespace tessera {
namespace {

constexpr int kDirections = 16;
constexpr float kSharpness = 6.0f;
constexpr double kPi = 3.14159265358979323846;

// cos/sin rounded to float, with the 1e-16 residues at multiples of 90 degrees made exact zeros.
float Clean(double value) { return std::fabs(value) < 1e-9 ? 0.0f : static_cast<float>(value); }

// Dense layer weights [2, 16]: column k is the unit vector at angle k * 22.5 degrees.
Tensor HiddenWeights() {
  Tensor w(DT_FLOAT, {2, kDirections});
  for (int k = 0; k < kDirections; ++k) {
    double theta = k * 2 * kPi / kDirections;
    w.data<float>()[k] = Clean(std::cos(theta));
    w.data<float>()[kDirections + k] = Clean(std::sin(theta));
  }
  return w;
}

// Output weights [16, 3]: every unit adds (pi / 16) * [0, K, 2K] per unit of its activation.
Tensor OutputWeights() {
  Tensor w(DT_FLOAT, {kDirections, 3});
  float scale = static_cast<float>(kPi / kDirections);
  for (int k = 0; k < kDirections; ++k) {
    w.data<float>()[3 * k + 0] = 0.0f;
    w.data<float>()[3 * k + 1] = kSharpness * scale;
    w.data<float>()[3 * k + 2] = 2 * kSharpness * scale;
  }
  return w;
}

absl::StatusOr<tensorflow::GraphDef> BuildGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({-1, 2}));

  Scope hidden = root.NewSubScope("hidden");
  auto w1 = ops::Const(hidden.WithOpName("weights"), HiddenWeights());
  auto b1 = ops::Const(hidden.WithOpName("bias"), Tensor::FromVector<float>(
                                                      {kDirections}, std::vector<float>(kDirections, 0.f)));
  auto h = ops::Relu(hidden, ops::BiasAdd(hidden, ops::MatMul(hidden, x, w1), b1));

  Scope output = root.NewSubScope("output");
  auto w2 = ops::Const(output.WithOpName("weights"), OutputWeights());
  auto b2 = ops::Const(output.WithOpName("bias"), {0.0f, -kSharpness, -3 * kSharpness});
  auto logits = ops::BiasAdd(root.WithOpName("logits"), ops::MatMul(output, h, w2), b2);
  ops::Softmax(root.WithOpName("probabilities"), logits);

  Scope argmax = root.NewSubScope("argmax");
  auto max = ops::Max(argmax, logits, {1}, ops::Max::KeepDims(true));
  auto gap = ops::Sub(argmax, max, logits);  // 0 for the winning class, > 0 for the others
  auto one_hot = ops::Relu(argmax, ops::Sub(argmax, 1.0f, ops::Mul(argmax, 1e4f, gap)));
  auto index = ops::Sum(argmax, ops::Mul(argmax, one_hot, {0.0f, 1.0f, 2.0f}), {1});
  ops::Cast(root.WithOpName("predicted_class"), index, DT_INT64);
  return root.ToGraphDef();
}

// Points of the example batch: two in the bullseye, two in the ring, one outside, and one just
// past the bullseye's edge (r = 1.03), where the network is unsure.
Tensor InputBatch() {
  return Tensor::FromVector<float>(
      {6, 2}, {0.2f, 0.3f, 1.2f, -0.5f, -2.5f, 1.0f, 0.0f, -1.8f, 0.6f, 0.6f, 0.7f, 0.75f});
}

// The text version spells float constants out as float_val lists (the same tensors, readable).
tensorflow::GraphDef Readable(tensorflow::GraphDef def) {
  for (tensorflow::NodeDef& node : *def.mutable_node()) {
    if (node.op() != "Const") continue;
    tensorflow::TensorProto* tensor = (*node.mutable_attr())["value"].mutable_tensor();
    if (tensor->dtype() != tensorflow::DT_FLOAT || tensor->tensor_content().empty()) continue;
    const std::string& content = tensor->tensor_content();
    std::vector<float> values(content.size() / sizeof(float));
    std::memcpy(values.data(), content.data(), values.size() * sizeof(float));
    tensor->clear_tensor_content();
    for (float v : values) tensor->add_float_val(v);
  }
  return def;
}

bool WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// Binary protobuf with map entries in a fixed order, so the committed file is reproducible.
std::string SerializeDeterministic(const tensorflow::GraphDef& def) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    def.SerializeToCodedStream(&coded);
  }
  return bytes;
}

int Main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  absl::StatusOr<tensorflow::GraphDef> graph = BuildGraph();
  if (!graph.ok()) {
    std::fprintf(stderr, "cannot build the graph: %s\n", graph.status().ToString().c_str());
    return 1;
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(Readable(*graph), &text);
  if (!WriteFile(dir + "/mlp.pb", SerializeDeterministic(*graph)) ||
      !WriteFile(dir + "/mlp.pbtxt", text)) {
    std::fprintf(stderr, "cannot write the graph into '%s'\n", dir.c_str());
    return 1;
  }
  absl::Status status = WriteNpy(InputBatch(), dir + "/input.npy");
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("wrote %s/mlp.pb, %s/mlp.pbtxt and %s/input.npy (%d nodes)\n", dir.c_str(),
              dir.c_str(), dir.c_str(), graph->node_size());
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
