// Tests of GraphDef files: text and binary round trips, and each read error.
#include <cstdio>
#include <fstream>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/tessera_graph_io_" +
         std::to_string(::getpid()) + "_" + name;
}

tensorflow::GraphDef SampleGraph() {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
                                                              node {
                                                                name: "a"
                                                                op: "Placeholder"
                                                                attr {
                                                                  key: "dtype"
                                                                  value { type: DT_FLOAT }
                                                                }
                                                              }
                                                              node {
                                                                name: "r"
                                                                op: "Relu"
                                                                input: "a"
                                                                attr {
                                                                  key: "T"
                                                                  value { type: DT_FLOAT }
                                                                }
                                                              }
                                                              versions { producer: 27 })pb",
                                                            &def));
  return def;
}

void WriteRaw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(GraphIoTest, RoundTripsTextAndBinary) {
  for (const char* name : {"g.pbtxt", "g.pb", "g.graph"}) {
    const std::string path = TempPath(name);
    ASSERT_TRUE(WriteGraphDefFile(SampleGraph(), path).ok());
    absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->DebugString(), SampleGraph().DebugString()) << name;
    std::remove(path.c_str());
  }
}

TEST(GraphIoTest, TextFileIsText) {
  const std::string path = TempPath("t.pbtxt");
  ASSERT_TRUE(WriteGraphDefFile(SampleGraph(), path).ok());
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "node {");
  std::remove(path.c_str());
}

TEST(GraphIoTest, UnknownExtensionAcceptsText) {
  const std::string path = TempPath("graph.def");
  std::string text;
  google::protobuf::TextFormat::PrintToString(SampleGraph(), &text);
  WriteRaw(path, text);
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->node_size(), 2);
  std::remove(path.c_str());
}

TEST(GraphIoTest, MissingFileIsNotFound) {
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(TempPath("missing.pb"));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("cannot open graph file"));
}

TEST(GraphIoTest, BadTextNamesFileLineAndColumn) {
  const std::string path = TempPath("bad.pbtxt");
  WriteRaw(path, "node {\n  name: \"a\"\n  opp: \"X\"\n}\n");
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("graph file '" + path + "' is not a valid text GraphDef: 3:"));
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("opp"));
  std::remove(path.c_str());
}

// An attr value inside a function attr inside an attr value ..., `depth` levels deep.
std::string NestedGraph(int depth) {
  std::string text = "node { name: \"a\" op: \"NoOp\" attr { key: \"k\" value { ";
  for (int i = 0; i < depth; ++i) text += "func { name: \"f\" attr { key: \"k\" value { ";
  text += "i: 1";
  for (int i = 0; i < 3 * depth + 3; ++i) text += " }";
  return text;
}

TEST(GraphIoTest, DeeplyNestedTextIsRefusedNotACrash) {
  const std::string path = TempPath("deep.pbtxt");
  WriteRaw(path, NestedGraph(5000));  // about 250 KB; overflowed the stack without a limit
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("graph file '" + path + "' is not a valid text GraphDef: 1:"));
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("recursion limit of 100"));
  // Within the limit the same shape of graph reads.
  WriteRaw(path, NestedGraph(30));
  EXPECT_TRUE(ReadGraphDefFile(path).ok());
  std::remove(path.c_str());
}

TEST(GraphIoTest, BadBinaryNamesFile) {
  const std::string path = TempPath("bad.pb");
  WriteRaw(path, "\x0a\xff\xff\xff\x0f garbage");
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("graph file '" + path + "' is not a valid binary GraphDef"));
  std::remove(path.c_str());
}

TEST(GraphIoTest, GarbageWithUnknownExtensionNamesBothFormats) {
  const std::string path = TempPath("bad.bin");
  WriteRaw(path, "\x0a\xff\xff\xff\x0f garbage");
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("is neither a binary nor a text GraphDef"));
  std::remove(path.c_str());
}

TEST(GraphIoTest, WriteToMissingDirectoryIsNotFound) {
  absl::Status status = WriteGraphDefFile(SampleGraph(), "/nonexistent-dir/x/g.pb");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot create graph file"));
}

TEST(GraphIoTest, FailedWriteIsReported) {
  // /dev/full accepts the open and fails the write with ENOSPC.
  absl::Status status = WriteGraphDefFile(SampleGraph(), "/dev/full");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot write graph file '/dev/full'"));
}

TEST(GraphIoTest, DirectoryIsNotAGraphFile) {
  absl::StatusOr<tensorflow::GraphDef> read = ReadGraphDefFile("/");
  EXPECT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("graph file '/'"));
}

TEST(GraphIoTest, ImportExportRoundTripKeepsTheGraph) {
  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(SampleGraph(), *ops);
  ASSERT_TRUE(graph.ok()) << graph.status();
  tensorflow::GraphDef exported = (*graph)->ToGraphDef();
  // Defaults are filled in on export.
  EXPECT_TRUE(exported.node(0).attr().contains("shape"));
  absl::StatusOr<std::unique_ptr<Graph>> again = ImportGraphDef(exported, *ops);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->ToGraphDef().DebugString(), exported.DebugString());
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// The valid fuzz seeds import; the invalid ones fail with their intended error.
TEST(GraphIoTest, FuzzSeedsImportAsIntended) {
  std::unique_ptr<OpRegistry> ops = OpRegistry::CreateStandard();
  const std::string dir = TESSERA_GRAPH_FUZZ_CORPUS;
  for (const char* name : {"matmul", "shapes", "control_flow", "send_recv", "math"}) {
    absl::StatusOr<tensorflow::GraphDef> def = ReadGraphDefFile(dir + "/" + name + ".pbtxt");
    ASSERT_TRUE(def.ok()) << def.status();
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(*def, *ops);
    EXPECT_TRUE(graph.ok()) << name << ": " << graph.status();
  }
  absl::StatusOr<tensorflow::GraphDef> def = ReadGraphDefFile(dir + "/cycle.pbtxt");
  ASSERT_TRUE(def.ok());
  EXPECT_THAT(std::string(ImportGraphDef(*def, *ops).status().message()),
              HasSubstr("graph has a cycle: a -> b -> c -> a"));
  def = ReadGraphDefFile(dir + "/bad_attrs.pbtxt");
  ASSERT_TRUE(def.ok());
  EXPECT_THAT(std::string(ImportGraphDef(*def, *ops).status().message()),
              HasSubstr("attr 'T' of node 'x' (Add): expected type, got int"));
}

}  // namespace
}  // namespace tessera
