// The README's C++ API example: build a small graph with the client API, run it in a local
// session, print the result. Built and run as a test so the README stays true.
#include <cstdio>

#include "host/client/ops.h"
#include "host/client/scope.h"
#include "host/session/session.h"

int main() {
  using namespace tessera;

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w"),
                      Tensor::FromVector<float>(TensorShape{2, 2}, {1, 2, 3, 4}));
  auto y = ops::Relu(root.WithOpName("y"), ops::MatMul(root, x, w));
  absl::StatusOr<tensorflow::GraphDef> graph = root.ToGraphDef();
  if (!graph.ok()) {
    std::fprintf(stderr, "%s\n", graph.status().ToString().c_str());
    return 1;
  }

  auto session = Session::Create(SessionOptions(), *graph);  // imports, checks, places
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  std::vector<Tensor> outputs;
  absl::Status s = (*session)->Run(
      {{"x", Tensor::FromVector<float>(TensorShape{1, 2}, {1, -1})}}, {"y"}, {}, &outputs);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  // [1, -1] x [[1, 2], [3, 4]] = [-2, -2], and Relu gives [0, 0]; print it.
  std::printf("y = %s\n", outputs[0].DebugString().c_str());
  return outputs[0].data<float>()[0] == 0.0f ? 0 : 1;
}
