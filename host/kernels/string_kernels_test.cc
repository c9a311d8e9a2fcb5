// String tensors through real sessions: feeds and fetches, Const, Identity, Placeholder and
// PlaceholderWithDefault of strings, transfers between CPU devices and through Switch/Merge, and
// the errors for strings headed where they cannot go (a device without host memory, plugin
// kernels, variables).
#include "host/kernels/string_kernels.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

SessionOptions Options(int cpus = 1, bool testdev = false) {
  SessionOptions options;
  options.device_count["CPU"] = cpus;
  if (testdev) options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
  return options;
}

std::unique_ptr<Session> MustCreate(const std::string& text,
                                    const SessionOptions& options = Options()) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, Parse(text));
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

std::vector<std::string> Strings(const Tensor& t) {
  EXPECT_EQ(t.dtype(), TSR_DTYPE_STRING);
  return std::vector<std::string>(t.flat<std::string>().begin(), t.flat<std::string>().end());
}

std::string StringConst(const std::string& name, const std::string& values,
                        const std::string& device = "") {
  return absl::StrCat("node { name: '", name, "' op: 'Const' device: '", device,
                      "' attr { key: 'dtype' value { type: DT_STRING } } ",
                      "attr { key: 'value' value { tensor { dtype: DT_STRING ", values,
                      " } } } }\n");
}

std::string Unary(const std::string& name, const std::string& op, const std::string& input,
                  const std::string& device = "") {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", input, "' device: '",
                      device, "' attr { key: 'T' value { type: DT_STRING } } }\n");
}

const char kPlaceholder[] = R"pb(
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
    attr {
      key: "shape"
      value { shape { dim { size: 2 } } }
    }
  }
)pb";

TEST(StringKernelsTest, FeedsPassThroughIdentityToFetches) {
  std::unique_ptr<Session> session = MustCreate(kPlaceholder + Unary("id", "Identity", "p"));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor feed = Tensor::Strings(TensorShape{2}, {"hello", std::string("\0bin", 4)});
  absl::Status status = session->Run({{"p", feed}}, {"id"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Strings(out[0]), ElementsAre("hello", std::string("\0bin", 4)));
}

// IdentityN with a string among its types (the node an inlined call with several results leaves):
// the host forwards every input, the float one too.
TEST(StringKernelsTest, IdentityNWithAStringForwardsEveryInput) {
  std::unique_ptr<Session> session = MustCreate(std::string(kPlaceholder) + R"pb(
    node {
      name: "f"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "both"
      op: "IdentityN"
      input: "p"
      input: "f"
      attr {
        key: "T"
        value { list { type: DT_STRING type: DT_FLOAT } }
      }
    }
  )pb");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"p", Tensor::Strings(TensorShape{2}, {"a", "bc"})},
                    {"f", Tensor::Vector<float>({1.5f})}},
                   {"both:0", "both:1"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Strings(out[0]), ElementsAre("a", "bc"));
  EXPECT_EQ(out[1].DebugString(), "float [1] 1.5");
}

TEST(StringKernelsTest, UnfedPlaceholderGivesTensorFlowsMessage) {
  std::unique_ptr<Session> session = MustCreate(kPlaceholder + Unary("id", "Identity", "p"));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status = session->Run({}, {"id"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("You must feed a value for placeholder tensor 'p' with dtype string and "
                        "shape [2]"));
  // A feed of another type is refused before the step runs.
  status = session->Run({{"p", Tensor::Vector<float>({1, 2})}}, {"id"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("feed 'p' has type float, but the graph expects string"));
}

TEST(StringKernelsTest, ConstIsComputedOnceAndFetchedAsACopy) {
  std::unique_ptr<Session> session =
      MustCreate(StringConst("c", R"pb(tensor_shape { dim { size: 3 } }
                                       string_val: "a"
                                       string_val: "bc")pb") +
                 Unary("id", "Identity", "c"));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"id"}, {}, &out).ok());
  EXPECT_THAT(Strings(out[0]), ElementsAre("a", "bc", "bc"));  // the last value repeats
  out[0].flat<std::string>()[0] = "changed by the client";
  ASSERT_TRUE(session->Run({}, {"c"}, {}, &out).ok());
  EXPECT_THAT(Strings(out[0]), ElementsAre("a", "bc", "bc"));
}

TEST(StringKernelsTest, PlaceholderWithDefaultUsesTheFeedOrTheDefault) {
  std::unique_ptr<Session> session =
      MustCreate(StringConst("default", R"pb(tensor_shape {}
                                             string_val: "model")pb") +
                 R"pb(
                   node {
                     name: "filename"
                     op: "PlaceholderWithDefault"
                     input: "default"
                     attr {
                       key: "dtype"
                       value { type: DT_STRING }
                     }
                     attr {
                       key: "shape"
                       value { shape {} }
                     }
                   })pb" +
                 Unary("read", "Identity", "filename"));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"read"}, {}, &out).ok());
  EXPECT_THAT(Strings(out[0]), ElementsAre("model"));
  absl::Status status =
      session->Run({{"filename", Tensor::Scalar<std::string>("/tmp/x")}}, {"read"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Strings(out[0]), ElementsAre("/tmp/x"));
}

TEST(StringKernelsTest, StringsCrossCpuDevices) {
  std::unique_ptr<Session> session =
      MustCreate(StringConst("c", R"pb(tensor_shape { dim { size: 2 } }
                                       string_val: "x"
                                       string_val: "y")pb",
                             "/device:CPU:1") +
                     Unary("id", "Identity", "c", "/device:CPU:0") +
                     Unary("id1", "Identity", "id", "/device:CPU:1"),
                 Options(2));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(session->Run(RunOptions(), {}, {"id1"}, {}, &out, &metadata).ok());
  EXPECT_THAT(Strings(out[0]), ElementsAre("x", "y"));
  EXPECT_EQ(metadata.partition_devices.size(), 2u);
}

TEST(StringKernelsTest, SwitchAndMergeMoveStrings) {
  const std::string graph = StringConst("s", R"pb(tensor_shape {}
                                                  string_val: "taken")pb") +
                            R"pb(
    node {
      name: "pred"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_BOOL }
      }
    }
    node {
      name: "switch"
      op: "Switch"
      input: "s"
      input: "pred"
      attr {
        key: "T"
        value { type: DT_STRING }
      }
    }
    node {
      name: "merge"
      op: "Merge"
      input: "switch:0"
      input: "switch:1"
      attr {
        key: "T"
        value { type: DT_STRING }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    })pb";
  std::unique_ptr<Session> session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"pred", Tensor::Scalar<bool>(true)}}, {"merge", "merge:1"}, {}, &out).ok());
  EXPECT_THAT(Strings(out[0]), ElementsAre("taken"));
  EXPECT_EQ(*out[1].data<int32_t>(), 1);
}

TEST(StringKernelsTest, StringKernelsOnADeviceWithoutHostMemoryKeepStringsOnTheHost) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(
      Options(1, true), Parse(kPlaceholder + Unary("id", "Identity", "p", "/device:TESTDEV:0") +
                              StringConst("c", R"pb(tensor_shape {}
                                                    string_val: "on TESTDEV")pb",
                                          "/device:TESTDEV:0")));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status status =
      (*session)->Run(RunOptions(), {{"p", Tensor::Strings(TensorShape{2}, {"a", "b"})}},
                      {"id", "c"}, {}, &out, &metadata);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Strings(out[0]), ElementsAre("a", "b"));
  EXPECT_THAT(Strings(out[1]), ElementsAre("on TESTDEV"));
  EXPECT_THAT(metadata.partition_devices, ::testing::Contains(HasSubstr("TESTDEV:0")));
}

TEST(StringKernelsTest, StringsCannotGoIntoDeviceMemory) {
  // Switch keeps its data input in the memory of its device: for a string on TESTDEV, none.
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Options(1, true), Parse(std::string(kPlaceholder) + R"pb(
                        node {
                          name: "pred"
                          op: "Placeholder"
                          attr {
                            key: "dtype"
                            value { type: DT_BOOL }
                          }
                        }
                        node {
                          name: "switch"
                          op: "Switch"
                          input: "p"
                          input: "pred"
                          device: "/device:TESTDEV:0"
                          attr {
                            key: "T"
                            value { type: DT_STRING }
                          }
                        })pb"));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run(
      {{"p", Tensor::Strings(TensorShape{2}, {"a", "b"})}, {"pred", Tensor::Scalar<bool>(true)}},
      {"switch:1"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("string tensors live in host memory only"));
}

TEST(StringKernelsTest, OtherOpsRefuseStrings) {
  // No plugin kernel takes strings: placement finds none.
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Options(), Parse(std::string(kPlaceholder) + R"pb(
                        node {
                          name: "shape"
                          op: "Shape"
                          input: "p"
                          attr {
                            key: "T"
                            value { type: DT_STRING }
                          }
                          attr {
                            key: "out_type"
                            value { type: DT_INT32 }
                          }
                        })pb"));
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("cannot assign a device for node 'shape' (Shape)"));

  // The variable kernels copy flat bytes: string variables are refused by name.
  session = Session::Create(Options(), Parse(R"pb(
                              node {
                                name: "v"
                                op: "VariableV2"
                                attr {
                                  key: "dtype"
                                  value { type: DT_STRING }
                                }
                                attr {
                                  key: "shape"
                                  value { shape {} }
                                }
                              })pb"));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({}, {}, {"v"}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("node 'v' (VariableV2) takes or makes string tensors, which no kernel of "
                        "VariableV2 handles"));
}

TEST(StringKernelsTest, ConstChecksItsValue) {
  // A value of another dtype is refused when the graph is imported.
  const std::string mismatched =
      "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }";
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(Options(), Parse(mismatched));
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("value has dtype float, but attr dtype is string"));

  // Too many values: the kernel's parse of the value fails when the step is built.
  std::vector<Tensor> out;
  absl::Status status;
  session = Session::Create(Options(), Parse(StringConst("c", R"pb(tensor_shape { dim { size: 1 } }
                                                                   string_val: "a"
                                                                   string_val: "b")pb")));
  ASSERT_TRUE(session.ok()) << session.status();
  status = (*session)->Run({}, {"c"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("tensor proto for string [1] has 2 values in string_val"));
}

}  // namespace
}  // namespace tessera
