// StringJoin, ShardedFilename, ShardedFilespec, StaticRegexFullMatch, and Select and Pack of
// strings through real sessions, with TensorFlow's results and every error.
#include "host/kernels/string_op_kernels.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "base/status_macros.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Strings(const Tensor& t) {
  EXPECT_EQ(t.dtype(), TSR_DTYPE_STRING);
  return std::vector<std::string>(t.flat<std::string>().begin(), t.flat<std::string>().end());
}

std::string Placeholder(const std::string& name, const std::string& type) {
  return absl::StrCat("node { name: '", name, "' op: 'Placeholder' attr { key: 'dtype' value { ",
                      "type: ", type, " } } }\n");
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs) {
  std::string text = absl::StrCat("node { name: '", name, "' op: '", op, "'");
  for (const std::string& input : inputs) absl::StrAppend(&text, " input: '", input, "'");
  return absl::StrCat(text, " ", attrs, " }\n");
}

// Runs `graph` (text format) feeding `feeds` and fetching `fetch`.
absl::StatusOr<Tensor> RunOne(const std::string& graph,
                              const std::vector<std::pair<std::string, Tensor>>& feeds,
                              const std::string& fetch) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(graph, &def)) << graph;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(SessionOptions(), def));
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session->Run(feeds, {fetch}, {}, &out));
  return out[0];
}

Tensor Strs(std::vector<std::string> values, TensorShape shape) {
  return Tensor::Strings(shape, values);
}
Tensor Str(const std::string& value) { return Tensor::Strings(TensorShape{}, {value}); }

const std::string kJoin = Placeholder("a", "DT_STRING") + Placeholder("b", "DT_STRING") +
                          Node("j", "StringJoin", {"a", "b"},
                               "attr { key: 'N' value { i: 2 } } "
                               "attr { key: 'separator' value { s: '/' } }");

TEST(StringOpKernelsTest, StringJoinBroadcastsScalars) {
  absl::StatusOr<Tensor> out =
      RunOne(kJoin, {{"a", Str("dir")}, {"b", Strs({"x", "y"}, TensorShape{2})}}, "j");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape{2});
  EXPECT_THAT(Strings(*out), ElementsAre("dir/x", "dir/y"));
  out = RunOne(kJoin, {{"a", Str("p")}, {"b", Str("")}}, "j");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Strings(*out), ElementsAre("p/"));
}

TEST(StringOpKernelsTest, StringJoinRefusesShapesThatDiffer) {
  absl::StatusOr<Tensor> out = RunOne(kJoin,
                                      {{"a", Strs({"1", "2"}, TensorShape{2})},
                                       {"b", Strs({"1", "2", "3"}, TensorShape{3})}},
                                      "j");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), ::testing::HasSubstr("Input shapes do not match: [2] vs. [3]"));
}

TEST(StringOpKernelsTest, ShardedFileNamesAreTensorFlows) {
  const std::string graph =
      Placeholder("base", "DT_STRING") + Placeholder("shard", "DT_INT32") +
      Placeholder("n", "DT_INT32") + Node("name", "ShardedFilename", {"base", "shard", "n"}, "") +
      Node("spec", "ShardedFilespec", {"base", "n"}, "");
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"base", Str("/ckpt/model")}, {"shard", Tensor::Scalar<int32_t>(3)},
      {"n", Tensor::Scalar<int32_t>(8)}};
  absl::StatusOr<Tensor> name = RunOne(graph, feeds, "name");
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_THAT(Strings(*name), ElementsAre("/ckpt/model-00003-of-00008"));
  absl::StatusOr<Tensor> spec = RunOne(graph, feeds, "spec");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(Strings(*spec), ElementsAre("/ckpt/model-?????" "-of-00008"));

  // TensorFlow's legacy scalars: vectors of one element.
  absl::StatusOr<Tensor> legacy = RunOne(
      graph, {{"base", Strs({"p"}, TensorShape{1})}, {"shard", Tensor::Vector<int32_t>({1})},
              {"n", Tensor::Vector<int32_t>({2})}}, "name");
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_THAT(Strings(*legacy), ElementsAre("p-00001-of-00002"));
  absl::StatusOr<Tensor> shards = RunOne(
      graph, {feeds[0], {"shard", Tensor::Vector<int32_t>({1, 2})}, feeds[2]}, "name");
  EXPECT_EQ(shards.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shards.status().message(),
              ::testing::HasSubstr("shard must be a scalar, got shape [2]"));

  absl::StatusOr<Tensor> bad = RunOne(
      graph,
      {{"base", Strs({"a", "b"}, TensorShape{2})}, feeds[1], feeds[2]}, "name");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              ::testing::HasSubstr("basename must be a scalar, got shape [2]"));
}

TEST(StringOpKernelsTest, StaticRegexFullMatchMatchesWholeStrings) {
  const std::string graph =
      Placeholder("s", "DT_STRING") +
      Node("m", "StaticRegexFullMatch", {"s"}, "attr { key: 'pattern' value { s: '^s3://.*' } }");
  absl::StatusOr<Tensor> out =
      RunOne(graph, {{"s", Strs({"s3://bucket/x", "/tmp/s3://", "s3:/"}, TensorShape{3})}}, "m");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->flat<bool>(), ElementsAre(true, false, false));

  const std::string broken =
      Placeholder("s", "DT_STRING") +
      Node("m", "StaticRegexFullMatch", {"s"}, "attr { key: 'pattern' value { s: '(a' } }");
  out = RunOne(broken, {{"s", Str("a")}}, "m");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              ::testing::HasSubstr("Invalid pattern: (a, error: missing ): (a (node 'm')"));
}

TEST(StringOpKernelsTest, SelectOfStringsTakesTensorFlowsThreeConditionForms) {
  const std::string graph =
      Placeholder("c", "DT_BOOL") + Placeholder("t", "DT_STRING") + Placeholder("e", "DT_STRING") +
      Node("s", "Select", {"c", "t", "e"}, "attr { key: 'T' value { type: DT_STRING } }");
  const Tensor t = Strs({"t0", "t1", "t2", "t3"}, TensorShape{2, 2});
  const Tensor e = Strs({"e0", "e1", "e2", "e3"}, TensorShape{2, 2});
  absl::StatusOr<Tensor> out =
      RunOne(graph, {{"c", Tensor::Scalar<bool>(false)}, {"t", t}, {"e", e}}, "s");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Strings(*out), ElementsAre("e0", "e1", "e2", "e3"));
  out = RunOne(graph, {{"c", Tensor::Vector<bool>({true, false})}, {"t", t}, {"e", e}}, "s");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Strings(*out), ElementsAre("t0", "t1", "e2", "e3"));
  out = RunOne(graph,
               {{"c", Tensor::FromVector<bool>(TensorShape{2, 2}, {true, false, false, true})},
                {"t", t},
                {"e", e}},
               "s");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Strings(*out), ElementsAre("t0", "e1", "e2", "t3"));

  // Zero-size inputs select nothing.
  out = RunOne(graph,
               {{"c", Tensor::Vector<bool>({})},
                {"t", Strs({}, TensorShape{0})},
                {"e", Strs({}, TensorShape{0})}},
               "s");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->NumElements(), 0);

  out = RunOne(graph, {{"c", Tensor::Vector<bool>({true, false, true})}, {"t", t}, {"e", e}}, "s");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              ::testing::HasSubstr("'condition' must be a scalar, a vector of the inputs' first "
                                   "dimension or of their shape, but condition has shape [3] and "
                                   "the inputs [2,2]"));
  out = RunOne(graph,
               {{"c", Tensor::Scalar<bool>(true)}, {"t", t}, {"e", Strs({"x"}, TensorShape{1})}},
               "s");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              ::testing::HasSubstr("'then' and 'else' must have the same size.  but received: "
                                   "[2,2] vs. [1]"));
}

TEST(StringOpKernelsTest, PackOfStringsStacksAlongItsAxis) {
  auto graph = [](int axis) {
    return Placeholder("a", "DT_STRING") + Placeholder("b", "DT_STRING") +
           Node("p", "Pack", {"a", "b"},
                absl::StrCat("attr { key: 'N' value { i: 2 } } attr { key: 'T' value { type: "
                             "DT_STRING } } attr { key: 'axis' value { i: ",
                             axis, " } }"));
  };
  const Tensor a = Strs({"a0", "a1"}, TensorShape{2});
  const Tensor b = Strs({"b0", "b1"}, TensorShape{2});
  absl::StatusOr<Tensor> out = RunOne(graph(0), {{"a", a}, {"b", b}}, "p");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), (TensorShape{2, 2}));
  EXPECT_THAT(Strings(*out), ElementsAre("a0", "a1", "b0", "b1"));
  out = RunOne(graph(-1), {{"a", a}, {"b", b}}, "p");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Strings(*out), ElementsAre("a0", "b0", "a1", "b1"));

  // Rank 2 along axis 1: [2,3] inputs make [2,2,3].
  const Tensor m = Strs({"a0", "a1", "a2", "a3", "a4", "a5"}, TensorShape{2, 3});
  const Tensor n = Strs({"b0", "b1", "b2", "b3", "b4", "b5"}, TensorShape{2, 3});
  out = RunOne(graph(1), {{"a", m}, {"b", n}}, "p");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), (TensorShape{2, 2, 3}));
  EXPECT_THAT(Strings(*out),
              ElementsAre("a0", "a1", "a2", "b0", "b1", "b2", "a3", "a4", "a5", "b3", "b4", "b5"));
  // Empty inputs stack to an empty tensor.
  out = RunOne(graph(0), {{"a", Strs({}, TensorShape{0})}, {"b", Strs({}, TensorShape{0})}}, "p");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), (TensorShape{2, 0}));
  out = RunOne(graph(3), {{"a", a}, {"b", b}}, "p");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);

  out = RunOne(graph(0), {{"a", a}, {"b", Strs({"b0"}, TensorShape{1})}}, "p");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              ::testing::HasSubstr("Shapes of all inputs must match: values[0].shape = [2] != "
                                   "values[1].shape = [1]"));
}

}  // namespace
}  // namespace tessera
