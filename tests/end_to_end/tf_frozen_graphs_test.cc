// Runs GraphDefs written in the exact form TensorFlow 1.x emits for frozen graphs (Const weights
// with packed tensor_content, '/read' Identity nodes with '_class' colocation, TensorFlow's attr
// sets), from .pbtxt and from the binary .pb of the same graph, and compares every fetched tensor
// with numpy's result.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "host/client/npy.h"
#include "host/graph/graph.h"
#include "host/session/session.h"

namespace tessera {
namespace {

std::string Path(const std::string& name) { return absl::StrCat(TESSERA_TF_FROZEN_DIR, "/", name); }

Tensor MustReadNpy(const std::string& name) {
  absl::StatusOr<Tensor> t = ReadNpy(Path(name));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

void ExpectNear(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < actual.NumElements(); ++i) {
    switch (actual.dtype()) {
      case TSR_DTYPE_FLOAT: {
        float a = actual.data<float>()[i], e = expected.data<float>()[i];
        ASSERT_NEAR(a, e, 1e-5f + 1e-5f * std::fabs(e)) << what << " element " << i;
        break;
      }
      case TSR_DTYPE_INT32:
        ASSERT_EQ(actual.data<int32_t>()[i], expected.data<int32_t>()[i]) << what << " element " << i;
        break;
      default:
        FAIL() << what << ": unexpected dtype " << DataTypeString(actual.dtype());
    }
  }
}

std::vector<tensorflow::GraphDef> BothEncodings(const std::string& pbtxt) {
  absl::StatusOr<tensorflow::GraphDef> text = ReadGraphDefFile(Path(pbtxt));
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return {};
  // The binary encoding of the same graph, as TensorFlow's tf.io.write_graph(as_text=False) writes.
  std::string pb = ::testing::TempDir() + "/" + pbtxt + ".pb";
  EXPECT_TRUE(WriteGraphDefFile(*text, pb).ok());
  absl::StatusOr<tensorflow::GraphDef> binary = ReadGraphDefFile(pb);
  EXPECT_TRUE(binary.ok()) << binary.status();
  return {*text, binary.ok() ? *binary : *text};
}

TEST(TfFrozenGraphsTest, MlpClassifierMatchesNumpy) {
  for (const tensorflow::GraphDef& def : BothEncodings("mlp.pbtxt")) {
    auto session = Session::Create(SessionOptions(), def);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({{"input", MustReadNpy("mlp_input.npy")}}, {"probabilities"}, {},
                                &out).ok());
    ExpectNear(out[0], MustReadNpy("mlp_expected_probabilities.npy"), "probabilities");
  }
}

TEST(TfFrozenGraphsTest, EveryOpOfTheSetMatchesNumpy) {
  std::ifstream list(Path("ops_mix_fetches.txt"));
  std::vector<std::string> fetches;
  for (std::string line; std::getline(list, line);) {
    if (!line.empty()) fetches.push_back(line);
  }
  ASSERT_GT(fetches.size(), 30u);
  for (const tensorflow::GraphDef& def : BothEncodings("ops_mix.pbtxt")) {
    auto session = Session::Create(SessionOptions(), def);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run(
        {{"a", MustReadNpy("ops_mix_a.npy")}, {"b", MustReadNpy("ops_mix_b.npy")}}, fetches,
        {"noop"}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(out.size(), fetches.size());
    for (size_t i = 0; i < fetches.size(); ++i) {
      ExpectNear(out[i], MustReadNpy(absl::StrCat("ops_mix_expected_", fetches[i], ".npy")),
                 fetches[i]);
    }
  }
}

}  // namespace
}  // namespace tessera
