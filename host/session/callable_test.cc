// Session::MakeCallable, RunCallable and ReleaseCallable: LocalSession's prepared signatures
// (the same results as Run, valid across Extend, every error) and the interface's default, which
// keeps the names and runs through Run (sessions on a cluster).
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Square" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "Neg" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

std::unique_ptr<Session> MakeSession() {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

TEST(CallableTest, ACallableRunsAsRunDoes) {
  std::unique_ptr<Session> session = MakeSession();
  ASSERT_NE(session, nullptr);
  absl::StatusOr<Session::CallableHandle> handle = session->MakeCallable({"x"}, {"z", "y:0"}, {});
  ASSERT_TRUE(handle.ok()) << handle.status();
  for (float x : {2.0f, -3.0f}) {
    std::vector<Tensor> out;
    RunMetadata metadata;
    absl::Status status =
        session->RunCallable(*handle, RunOptions(), {Tensor::Scalar<float>(x)}, &out, &metadata);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(out.size(), 2u);
    EXPECT_FLOAT_EQ(*out[0].data<float>(), -x * x);
    EXPECT_FLOAT_EQ(*out[1].data<float>(), x * x);
    EXPECT_EQ(metadata.partition_devices.size(), 1u);
  }
  // Nodes added later do not disturb it; a new callable sees them.
  tensorflow::GraphDef addition;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(node { name: "w" op: "Neg" input: "z" attr { key: "T" value { type: DT_FLOAT } } })pb",
      &addition));
  ASSERT_TRUE(session->Extend(addition).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session->RunCallable(*handle, RunOptions(), {Tensor::Scalar<float>(1.0f)}, &out,
                                   nullptr)
                  .ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), -1.0f);
  absl::StatusOr<Session::CallableHandle> grown = session->MakeCallable({"x"}, {"w"}, {});
  ASSERT_TRUE(grown.ok()) << grown.status();
  ASSERT_TRUE(
      session->RunCallable(*grown, RunOptions(), {Tensor::Scalar<float>(3.0f)}, &out, nullptr)
          .ok());
  EXPECT_FLOAT_EQ(*out[0].data<float>(), 9.0f);
  EXPECT_NE(*grown, *handle);
}

TEST(CallableTest, Errors) {
  std::unique_ptr<Session> session = MakeSession();
  ASSERT_NE(session, nullptr);
  absl::StatusOr<Session::CallableHandle> missing = session->MakeCallable({"x"}, {"nope"}, {});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  absl::StatusOr<Session::CallableHandle> handle = session->MakeCallable({"x"}, {"z"}, {});
  ASSERT_TRUE(handle.ok());
  std::vector<Tensor> out;
  absl::Status status = session->RunCallable(*handle, RunOptions(), {}, &out, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "callable 1 takes 1 feeds, got 0");
  status = session->RunCallable(*handle, RunOptions(), {Tensor::Scalar<int32_t>(1)}, &out, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "feed 'x' has type int32, but the graph expects float");
  EXPECT_TRUE(session->ReleaseCallable(*handle).ok());
  status = session->RunCallable(*handle, RunOptions(), {Tensor::Scalar<float>(1.0f)}, &out,
                                nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "no callable 1 in this session (released, or never made)");
  status = session->ReleaseCallable(*handle);
  EXPECT_EQ(status.message(), "no callable 1 in this session (released, or never made)");
}

// A session that only runs by name, as a cluster's does: the interface's callables.
class NamesOnlySession final : public Session {
 public:
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   RunMetadata* metadata) override {
    runs.push_back({feeds.empty() ? "" : feeds[0].first, fetches, targets});
    outputs->assign(fetches.size(), Tensor::Scalar<float>(7.0f));
    return absl::OkStatus();
  }
  std::vector<std::string> ListDevices() const override { return {}; }

  struct Call {
    std::string feed;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
  };
  std::vector<Call> runs;
};

TEST(CallableTest, TheDefaultRunsByName) {
  NamesOnlySession session;
  absl::StatusOr<Session::CallableHandle> handle = session.MakeCallable({"a"}, {"b", "c"}, {"d"});
  ASSERT_TRUE(handle.ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session.RunCallable(*handle, RunOptions(), {Tensor::Scalar<float>(1.0f)}, &out, nullptr)
          .ok());
  ASSERT_EQ(session.runs.size(), 1u);
  EXPECT_EQ(session.runs[0].feed, "a");
  EXPECT_THAT(session.runs[0].fetches, ElementsAre("b", "c"));
  EXPECT_THAT(session.runs[0].targets, ElementsAre("d"));
  EXPECT_EQ(out.size(), 2u);
  absl::Status status = session.RunCallable(*handle, RunOptions(), {}, &out, nullptr);
  EXPECT_EQ(status.message(), "callable 1 takes 1 feeds, got 0");
  EXPECT_TRUE(session.ReleaseCallable(*handle).ok());
  status = session.RunCallable(*handle, RunOptions(), {}, &out, nullptr);
  EXPECT_THAT(status.message(), HasSubstr("no callable 1 in this session"));
  EXPECT_EQ(session.ReleaseCallable(5).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera
