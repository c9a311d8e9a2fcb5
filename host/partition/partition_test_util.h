// Helpers shared by the partitioner's tests: importing text GraphDefs, placing nodes by hand,
// partitioning, and finding nodes and attrs in the partitions.
#ifndef TESSERA_HOST_PARTITION_PARTITION_TEST_UTIL_H_
#define TESSERA_HOST_PARTITION_PARTITION_TEST_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/graph/graph.h"
#include "host/ops/attr_util.h"
#include "host/partition/graph_partition.h"

namespace tessera {
namespace partition_test {

inline constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
inline constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
inline constexpr char kDev0[] = "/job:localhost/replica:0/task:0/device:TESTDEV:0";

using Partitions = std::map<std::string, tensorflow::GraphDef>;

class PartitionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Graph> Import(const std::string& text) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    absl::StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, *ops_);
    EXPECT_TRUE(graph.ok()) << graph.status();
    return graph.ok() ? std::move(*graph) : nullptr;
  }

  // Places every op node on `device`, except those named in `overrides`.
  static void Place(Graph* graph, const std::string& device,
                    const std::map<std::string, std::string>& overrides = {}) {
    for (Node* node : graph->op_nodes()) {
      auto it = overrides.find(node->name());
      node->set_assigned_device(it == overrides.end() ? device : it->second);
    }
  }

  // Options for CPU devices as host-memory devices, incarnation 0xabcd for CPU:0.
  static PartitionOptions DefaultOptions() {
    PartitionOptions options;
    options.is_host_memory_device = [](const std::string& device) {
      return device.find("/device:CPU:") != std::string::npos;
    };
    options.get_incarnation = [](const std::string& device) -> uint64_t {
      return device == kCpu0 ? 0xabcd : 7;
    };
    return options;
  }

  // Partitions and checks that every partition imports again.
  Partitions PartitionOk(const PartitionOptions& options, Graph* graph) {
    Partitions partitions;
    absl::Status status = Partition(options, graph, &partitions);
    EXPECT_TRUE(status.ok()) << status;
    for (const auto& [location, def] : partitions) {
      absl::StatusOr<std::unique_ptr<Graph>> imported = ImportGraphDef(def, *ops_);
      EXPECT_TRUE(imported.ok()) << location << ": " << imported.status() << "\n"
                                 << def.DebugString();
    }
    return partitions;
  }

  // The node named `name`, or nullptr.
  static const tensorflow::NodeDef* Find(const tensorflow::GraphDef& def, const std::string& name) {
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.name() == name) return &node;
    }
    return nullptr;
  }

  static std::vector<const tensorflow::NodeDef*> WithOp(const tensorflow::GraphDef& def,
                                                         const std::string& op) {
    std::vector<const tensorflow::NodeDef*> nodes;
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.op() == op) nodes.push_back(&node);
    }
    return nodes;
  }

  static std::vector<std::string> Inputs(const tensorflow::NodeDef& node) {
    return std::vector<std::string>(node.input().begin(), node.input().end());
  }

  static std::string StringAttr(const tensorflow::NodeDef& node, const std::string& name) {
    std::string value;
    EXPECT_TRUE(GetNodeAttr(node, name, &value).ok()) << name << " of " << node.name();
    return value;
  }
  static int64_t IntAttr(const tensorflow::NodeDef& node, const std::string& name) {
    int64_t value = -1;
    EXPECT_TRUE(GetNodeAttr(node, name, &value).ok()) << name << " of " << node.name();
    return value;
  }
  static bool BoolAttr(const tensorflow::NodeDef& node, const std::string& name) {
    bool value = false;
    EXPECT_TRUE(GetNodeAttr(node, name, &value).ok()) << name << " of " << node.name();
    return value;
  }
  static DataType TypeAttr(const tensorflow::NodeDef& node, const std::string& name) {
    DataType value = TSR_DTYPE_INVALID;
    EXPECT_TRUE(GetNodeAttr(node, name, &value).ok()) << name << " of " << node.name();
    return value;
  }

  std::unique_ptr<OpRegistry> ops_ = OpRegistry::CreateStandard();
};

}  // namespace partition_test
}  // namespace tessera

#endif  // TESSERA_HOST_PARTITION_PARTITION_TEST_UTIL_H_
