// Test helpers for the client API: find a node in a GraphDef and compare it with text format.
#ifndef TESSERA_HOST_CLIENT_CLIENT_TEST_UTIL_H_
#define TESSERA_HOST_CLIENT_CLIENT_TEST_UTIL_H_

#include <string>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "host/client/scope.h"
#include "host/framework/proto/graph.pb.h"

namespace tessera {
namespace testing {

// The GraphDef of `scope`, failing the test when the scope has an error.
inline tensorflow::GraphDef GraphOf(const Scope& scope) {
  absl::StatusOr<tensorflow::GraphDef> def = scope.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : tensorflow::GraphDef();
}

inline const tensorflow::NodeDef* FindNode(const tensorflow::GraphDef& def,
                                           const std::string& name) {
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.name() == name) return &node;
  }
  return nullptr;
}

// Checks that node `name` of `def` equals the NodeDef written in text format.
inline ::testing::AssertionResult NodeEquals(const tensorflow::GraphDef& def,
                                             const std::string& name,
                                             const std::string& expected_text) {
  const tensorflow::NodeDef* node = FindNode(def, name);
  if (node == nullptr) {
    return ::testing::AssertionFailure() << "no node '" << name << "' in\n" << def.DebugString();
  }
  tensorflow::NodeDef expected;
  if (!google::protobuf::TextFormat::ParseFromString(expected_text, &expected)) {
    return ::testing::AssertionFailure() << "bad expected text for '" << name << "'";
  }
  std::string diff;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  if (!differencer.Compare(expected, *node)) {
    return ::testing::AssertionFailure() << "node '" << name << "' differs: " << diff << "actual:\n"
                                         << node->DebugString();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_CLIENT_TEST_UTIL_H_
