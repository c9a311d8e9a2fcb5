// Graphs and feeds a hostile client may send: shapes whose element count or byte size overflows,
// fed as tensors (so nothing is known at import) or as constants. Each gives INVALID_ARGUMENT
// naming the node, the shape and the limit, never a crash or a wrong result, and the session
// keeps working.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr int64_t k2p62 = int64_t{1} << 62;
constexpr char kLimit[] = "more than the limit of 4611686018427387904 bytes";

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs) {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: \"", input, "\"");
  return absl::StrCat(text, " ", attrs, " }\n");
}

std::string Attr(const std::string& key, const std::string& value) {
  return absl::StrCat("attr { key: \"", key, "\" value { ", value, " } }");
}

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return Node(name, "Placeholder", {}, Attr("dtype", "type: " + dtype));
}

class HostileGraphsTest : public ::testing::Test {
 protected:
  // Creates a session for `text` and runs it with `feeds`, fetching `fetch`.
  absl::Status Run(const std::string& text,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::string& fetch, std::vector<Tensor>* out = nullptr) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
    if (!session.ok()) return session.status();
    std::vector<Tensor> ignored;
    return (*session)->Run(feeds, {fetch}, {}, out != nullptr ? out : &ignored);
  }

  static void ExpectRefused(const absl::Status& status, const std::vector<std::string>& parts) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    for (const std::string& part : parts) EXPECT_THAT(status.message(), HasSubstr(part));
  }
};

std::string FillGraph() {
  return absl::StrCat(Placeholder("dims", "DT_INT64"), Placeholder("value", "DT_FLOAT"),
                      Node("f", "Fill", {"dims", "value"},
                           Attr("T", "type: DT_FLOAT") + Attr("index_type", "type: DT_INT64")));
}

TEST_F(HostileGraphsTest, FillWhoseByteCountWouldWrapIsRefused) {
  const Tensor value = Tensor::Scalar<float>(1.0f);
  // 2^62 floats: 2^64 bytes, which wrapped to 0 and let the kernel write past its buffer.
  ExpectRefused(
      Run(FillGraph(), {{"dims", Tensor::Vector<int64_t>({k2p62})}, {"value", value}}, "f"),
      {"node 'f' (Fill)", "output 0", "shape [4611686018427387904] of float",
       "4611686018427387904 elements (4 bytes each)", kLimit});
  // [INT64_MAX, 2]: the element count itself does not fit in 64 bits.
  ExpectRefused(Run(FillGraph(),
                    {{"dims", Tensor::Vector<int64_t>({std::numeric_limits<int64_t>::max(), 2})},
                     {"value", value}},
                    "f"),
                {"node 'f' (Fill)", "shape [9223372036854775807,2] of float",
                 "18446744073709551614 elements", kLimit});
  // [2^32, 2^32, 16]: 2^68 elements, which wrapped to 0 and made a 0-byte "success".
  ExpectRefused(Run(FillGraph(),
                    {{"dims", Tensor::Vector<int64_t>({int64_t{1} << 32, int64_t{1} << 32, 16})},
                     {"value", value}},
                    "f"),
                {"node 'f' (Fill)", "shape [4294967296,4294967296,16] of float",
                 "295147905179352825856 elements", kLimit});
  // The same graph still runs a sane shape.
  std::vector<Tensor> out;
  ASSERT_TRUE(
      Run(FillGraph(), {{"dims", Tensor::Vector<int64_t>({2, 3})}, {"value", value}}, "f", &out)
          .ok());
  EXPECT_EQ(out[0].shape(), (TensorShape{2, 3}));
}

TEST_F(HostileGraphsTest, ConstantDimsAreRefusedToo) {
  const std::string text = absl::StrCat(
      Node("dims", "Const", {},
           Attr("dtype", "type: DT_INT64") +
               Attr("value",
                    "tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } } "
                    "int64_val: 4611686018427387904 }")),
      Node("value", "Const", {},
           Attr("dtype", "type: DT_FLOAT") +
               Attr("value", "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }")),
      Node("f", "Fill", {"dims", "value"},
           Attr("T", "type: DT_FLOAT") + Attr("index_type", "type: DT_INT64")));
  ExpectRefused(Run(text, {}, "f"), {"node 'f' (Fill)", kLimit});
}

TEST_F(HostileGraphsTest, TilePadBroadcastRandomAndRangeAreRefused) {
  const Tensor x = Tensor::Vector<float>({1, 2});
  // Tile: 2 * 2^62 does not fit in int64.
  const std::string tile =
      absl::StrCat(Placeholder("x", "DT_FLOAT"), Placeholder("m", "DT_INT64"),
                   Node("t", "Tile", {"x", "m"},
                        Attr("T", "type: DT_FLOAT") + Attr("Tmultiples", "type: DT_INT64")));
  ExpectRefused(Run(tile, {{"x", x}, {"m", Tensor::Vector<int64_t>({k2p62})}}, "t"),
                {"node 't' (Tile)",
                 "Tile: output dimension 0 = 2 * 4611686018427387904 does not fit in int64"});
  // Tile within int64 but past the limit.
  ExpectRefused(Run(tile, {{"x", x}, {"m", Tensor::Vector<int64_t>({int64_t{1} << 61})}}, "t"),
                {"node 't' (Tile)", "shape [4611686018427387904] of float", kLimit});
  // Pad: 2^62 + 2 + 2^62 does not fit in int64.
  const std::string pad =
      absl::StrCat(Placeholder("x", "DT_FLOAT"), Placeholder("p", "DT_INT64"),
                   Node("p2", "Pad", {"x", "p"},
                        Attr("T", "type: DT_FLOAT") + Attr("Tpaddings", "type: DT_INT64")));
  ExpectRefused(
      Run(pad, {{"x", x}, {"p", Tensor::FromVector<int64_t>(TensorShape{1, 2}, {k2p62, k2p62})}},
          "p2"),
      {"node 'p2' (Pad)", "does not fit in int64"});
  // BroadcastTo a scalar to 2^62 elements.
  const std::string broadcast =
      absl::StrCat(Placeholder("s", "DT_FLOAT"), Placeholder("shape", "DT_INT64"),
                   Node("b", "BroadcastTo", {"s", "shape"},
                        Attr("T", "type: DT_FLOAT") + Attr("Tidx", "type: DT_INT64")));
  ExpectRefused(
      Run(broadcast, {{"s", Tensor::Scalar<float>(1)}, {"shape", Tensor::Vector<int64_t>({k2p62})}},
          "b"),
      {"node 'b' (BroadcastTo)", kLimit});
  // RandomUniform of 2^62 elements.
  const std::string random =
      absl::StrCat(Placeholder("shape", "DT_INT64"),
                   Node("r", "RandomUniform", {"shape"},
                        Attr("T", "type: DT_INT64") + Attr("dtype", "type: DT_FLOAT")));
  ExpectRefused(Run(random, {{"shape", Tensor::Vector<int64_t>({k2p62})}}, "r"),
                {"node 'r' (RandomUniform)"});
  // Range(0, 2^61) of int64: 2^61 elements of 8 bytes.
  const std::string range =
      absl::StrCat(Placeholder("start", "DT_INT64"), Placeholder("limit", "DT_INT64"),
                   Placeholder("delta", "DT_INT64"),
                   Node("g", "Range", {"start", "limit", "delta"}, Attr("Tidx", "type: DT_INT64")));
  ExpectRefused(Run(range,
                    {{"start", Tensor::Scalar<int64_t>(0)},
                     {"limit", Tensor::Scalar<int64_t>(int64_t{1} << 61)},
                     {"delta", Tensor::Scalar<int64_t>(1)}},
                    "g"),
                {"node 'g' (Range)", "shape [2305843009213693952] of int64", kLimit});
  // Range whose span does not fit in int64.
  ExpectRefused(Run(range,
                    {{"start", Tensor::Scalar<int64_t>(std::numeric_limits<int64_t>::min())},
                     {"limit", Tensor::Scalar<int64_t>(std::numeric_limits<int64_t>::max())},
                     {"delta", Tensor::Scalar<int64_t>(1)}},
                    "g"),
                {"node 'g' (Range)", "Requires ((limit - start) / delta) <= "});
}

// A single long MatMul (8192 x 8192 x 8192, about 1.1 TFlop: many seconds on a few cores) stops
// at the session's deadline instead of running to its end: the GEMM layer asks the host between
// pieces of at most 16 GFlop (kGemmFlopsBetweenChecks) whether the step was cancelled.
TEST_F(HostileGraphsTest, ALongMatMulStopsAtTheDeadline) {
  const std::string dims =
      Node("dims", "Const", {},
           Attr("dtype", "type: DT_INT64") +
               Attr("value",
                    "tensor { dtype: DT_INT64 tensor_shape { dim { size: 2 } } int64_val: 8192 "
                    "int64_val: 8192 }"));
  const std::string one =
      Node("one", "Const", {},
           Attr("dtype", "type: DT_FLOAT") +
               Attr("value", "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }"));
  const std::string fill = Attr("T", "type: DT_FLOAT") + Attr("index_type", "type: DT_INT64");
  const std::string text = absl::StrCat(
      dims, one, Node("a", "Fill", {"dims", "one"}, fill), Node("b", "Fill", {"dims", "one"}, fill),
      Node("product", "MatMul", {"a", "b"}, Attr("T", "type: DT_FLOAT")));
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions options;
  options.timeout_ms = 300;
  std::vector<Tensor> out;
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = (*session)->Run(options, {}, {"product"}, {}, &out, nullptr);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("timeout of 300 ms"));
  // Run returns once the step's work has stopped. The bound is a correctness bound with room for
  // a loaded machine, not a speed figure: the uncancelled product takes many times longer.
  std::cout << "Run with a 300 ms deadline returned after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace
}  // namespace tessera
