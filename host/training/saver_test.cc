// Saver round trips through real sessions: ref and resource variables, variables on a device the
// host cannot reach, checkpoints written by BundleWriter and the reference (TensorFlow-format)
// checkpoint, TensorFlow's node names, and the errors of Create, Save and Restore.
#include "host/training/saver.h"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/testdata/reference_checkpoint.h"
#include "host/client/ops.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

std::string TestDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / (std::string("tessera_saver_") + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::unique_ptr<Session> MakeSession(const Scope& scope, bool testdev = false) {
  absl::StatusOr<tensorflow::GraphDef> def = scope.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  SessionOptions options;
  if (testdev) options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, *def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

absl::Status RunTargets(Session* session, const std::vector<std::string>& targets) {
  std::vector<Tensor> out;
  return session->Run({}, {}, targets, &out);
}

template <typename T>
std::vector<T> Fetch(Session* session, const std::string& name) {
  std::vector<Tensor> out;
  absl::Status status = session->Run({}, {name}, {}, &out);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return {};
  return std::vector<T>(out[0].flat<T>().begin(), out[0].flat<T>().end());
}

std::set<std::string> NodeNames(const Scope& scope) {
  std::set<std::string> names;
  absl::StatusOr<tensorflow::GraphDef> def = scope.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return names;
  for (const tensorflow::NodeDef& node : def->node()) names.insert(node.name());
  return names;
}

// Ref variables w (float [2,3]) and step (int64), with initializers and updates.
struct RefModel {
  explicit RefModel(const Scope& root)
      : w(ops::Variable(root.WithOpName("w"), {2, 3}, DT_FLOAT)),
        step(ops::Variable(root.WithOpName("global_step"), {}, DT_INT64)) {
    ops::Assign(root.WithOpName("init_w"), w, ops::Const(root, {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}));
    ops::Assign(root.WithOpName("init_step"), step, ops::Const(root, int64_t{7}));
    ops::Assign(root.WithOpName("zero_w"), w, ops::Const(root, {{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}}));
    ops::Assign(root.WithOpName("zero_step"), step, ops::Const(root, int64_t{0}));
  }
  ops::Variable w;
  ops::Variable step;
};

TEST(SaverTest, RoundTripsRefVariablesWithTensorFlowsNodeNames) {
  const std::string prefix = TestDir() + "/model.ckpt";
  Scope root = Scope::NewRootScope();
  RefModel model(root);
  absl::StatusOr<Saver> saver = Saver::Create(root, {model.w, model.step});
  ASSERT_TRUE(saver.ok()) << saver.status();
  EXPECT_EQ(saver->filename_tensor_name(), "save/Const:0");
  EXPECT_EQ(saver->save_tensor_name(), "save/control_dependency:0");
  EXPECT_EQ(saver->restore_op_name(), "save/restore_all");
  EXPECT_THAT(saver->saved_names(), ElementsAre("global_step", "w"));  // sorted by name
  EXPECT_THAT(NodeNames(root),
              IsSupersetOf({"save/filename/input", "save/filename", "save/Const",
                            "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices",
                            "save/SaveV2", "save/control_dependency", "save/RestoreV2/tensor_names",
                            "save/RestoreV2/shape_and_slices", "save/RestoreV2", "save/Assign",
                            "save/Assign_1", "save/restore_all"}));

  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init_w", "init_step"}).ok());
  ASSERT_TRUE(saver->Save(session.get(), prefix).ok());
  EXPECT_TRUE(std::filesystem::exists(prefix + ".index"));
  EXPECT_TRUE(std::filesystem::exists(prefix + ".data-00000-of-00001"));

  ASSERT_TRUE(RunTargets(session.get(), {"zero_w", "zero_step"}).ok());
  EXPECT_THAT(Fetch<float>(session.get(), "w"), ElementsAre(0, 0, 0, 0, 0, 0));
  absl::Status status = saver->Restore(session.get(), prefix);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Fetch<float>(session.get(), "w"), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(Fetch<int64_t>(session.get(), "global_step"), ElementsAre(7));

  // A second session restores into fresh (uninitialized) variables.
  std::unique_ptr<Session> fresh = MakeSession(root);
  ASSERT_NE(fresh, nullptr);
  ASSERT_TRUE(saver->Restore(fresh.get(), prefix).ok());
  EXPECT_THAT(Fetch<float>(fresh.get(), "w"), ElementsAre(1, 2, 3, 4, 5, 6));

  // The checkpoint is an ordinary bundle with the variables under their names.
  absl::StatusOr<std::unique_ptr<checkpoint::BundleReader>> reader =
      checkpoint::BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_THAT((*reader)->Keys(), ElementsAre("global_step", "w"));
}

TEST(SaverTest, RoundTripsResourceVariables) {
  const std::string prefix = TestDir() + "/resource";
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {3});
  auto counter = ops::VarHandleOp(root.WithOpName("counter"), DT_INT32, {});
  ops::AssignVariableOp(root.WithOpName("init_v"), v, ops::Const(root, {1.5f, 2.5f, 3.5f}));
  ops::AssignVariableOp(root.WithOpName("init_counter"), counter, ops::Const(root, 11));
  ops::AssignVariableOp(root.WithOpName("clear_v"), v, ops::Const(root, {0.f, 0.f, 0.f}));
  ops::ReadVariableOp(root.WithOpName("read_v"), v, DT_FLOAT);
  ops::ReadVariableOp(root.WithOpName("read_counter"), counter, DT_INT32);
  absl::StatusOr<Saver> saver = Saver::Create(root, {v, counter});
  ASSERT_TRUE(saver.ok()) << saver.status();
  EXPECT_THAT(NodeNames(root), IsSupersetOf({"save/AssignVariableOp", "save/AssignVariableOp_1",
                                             "save/ReadVariableOp", "save/ReadVariableOp_1"}));

  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init_v", "init_counter"}).ok());
  ASSERT_TRUE(saver->Save(session.get(), prefix).ok());
  ASSERT_TRUE(RunTargets(session.get(), {"clear_v"}).ok());
  EXPECT_THAT(Fetch<float>(session.get(), "read_v"), ElementsAre(0, 0, 0));
  absl::Status status = saver->Restore(session.get(), prefix);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Fetch<float>(session.get(), "read_v"), ElementsAre(1.5f, 2.5f, 3.5f));
  EXPECT_THAT(Fetch<int32_t>(session.get(), "read_counter"), ElementsAre(11));
}

TEST(SaverTest, SavesIntoDirectoriesItCreatesAndFetchesThePrefix) {
  const std::string prefix = TestDir() + "/not/yet/there/ckpt-100";
  Scope root = Scope::NewRootScope();
  RefModel model(root);
  absl::StatusOr<Saver> saver = Saver::Create(root, {model.w, model.step});
  ASSERT_TRUE(saver.ok());
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init_w", "init_step"}).ok());
  std::vector<Tensor> out;
  // Running the nodes by hand, as TensorFlow's SaverDef describes them.
  absl::Status status =
      session->Run({{saver->filename_tensor_name(), Tensor::Scalar<std::string>(prefix)}},
                   {saver->save_tensor_name()}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out[0].flat<std::string>()[0], prefix);
  EXPECT_TRUE(std::filesystem::exists(prefix + ".index"));
}

TEST(SaverTest, RestoresACheckpointWrittenByBundleWriter) {
  const std::string prefix = TestDir() + "/written";
  {
    absl::StatusOr<std::unique_ptr<checkpoint::BundleWriter>> writer =
        checkpoint::BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(
        (*writer)->Add("w", Tensor::FromVector<float>(TensorShape{2, 3}, {6, 5, 4, 3, 2, 1})).ok());
    ASSERT_TRUE((*writer)->Add("global_step", Tensor::Scalar<int64_t>(99)).ok());
    ASSERT_TRUE((*writer)->Add("unrelated", Tensor::Scalar<float>(1)).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  Scope root = Scope::NewRootScope();
  RefModel model(root);
  absl::StatusOr<Saver> saver = Saver::Create(root, {model.w, model.step});
  ASSERT_TRUE(saver.ok());
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(saver->Restore(session.get(), prefix).ok());
  EXPECT_THAT(Fetch<float>(session.get(), "w"), ElementsAre(6, 5, 4, 3, 2, 1));
  EXPECT_THAT(Fetch<int64_t>(session.get(), "global_step"), ElementsAre(99));
}

// The reference checkpoint is TensorFlow's format built byte by byte by an independent
// implementation; its "emb" is stored as two slices, which a whole-tensor restore assembles.
TEST(SaverTest, RestoresTheReferenceTensorFlowCheckpoint) {
  const std::string prefix = TestDir() + "/reference";
  checkpoint::reference::WriteReferenceCheckpoint(prefix);
  Scope root = Scope::NewRootScope();
  auto step = ops::Variable(root.WithOpName("global_step"), {}, DT_INT64);
  auto kernel = ops::Variable(root.WithOpName("dense/kernel"), {2, 3}, DT_FLOAT);
  auto bias = ops::VarHandleOp(root.WithOpName("dense/bias"), DT_FLOAT, {3});
  auto mask = ops::Variable(root.WithOpName("mask"), {4}, DT_BOOL);
  auto emb = ops::Variable(root.WithOpName("emb"), {4, 2}, DT_FLOAT);
  ops::ReadVariableOp(root.WithOpName("read_bias"), bias, DT_FLOAT);
  absl::StatusOr<Saver> saver = Saver::Create(root, {step, kernel, bias, mask, emb});
  ASSERT_TRUE(saver.ok()) << saver.status();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  absl::Status status = saver->Restore(session.get(), prefix);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Fetch<int64_t>(session.get(), "global_step"), ElementsAre(42));
  EXPECT_THAT(Fetch<float>(session.get(), "dense/kernel"),
              ElementsAre(0.5f, -1, 2, 3.25f, 0, -7.5f));
  EXPECT_THAT(Fetch<float>(session.get(), "read_bias"), ElementsAre(0.125f, 0.25f, 0.375f));
  EXPECT_THAT(Fetch<bool>(session.get(), "mask"), ElementsAre(true, false, false, true));
  EXPECT_THAT(Fetch<float>(session.get(), "emb"), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
}

TEST(SaverTest, VariablesOnADeviceWithoutHostMemory) {
  const std::string prefix = TestDir() + "/testdev";
  Scope root = Scope::NewRootScope();
  Scope dev = root.WithDevice("/device:TESTDEV:0");
  auto w = ops::Variable(dev.WithOpName("w"), {3}, DT_FLOAT);
  ops::Assign(dev.WithOpName("init"), w, ops::Const(dev, {1.f, -2.f, 4.f}));
  ops::Assign(dev.WithOpName("clear"), w, ops::Const(dev, {0.f, 0.f, 0.f}));
  absl::StatusOr<Saver> saver = Saver::Create(root, {w});
  ASSERT_TRUE(saver.ok()) << saver.status();
  std::unique_ptr<Session> session = MakeSession(root, /*testdev=*/true);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTargets(session.get(), {"init"}).ok());
  absl::Status status = saver->Save(session.get(), prefix);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(RunTargets(session.get(), {"clear"}).ok());
  EXPECT_THAT(Fetch<float>(session.get(), "w"), ElementsAre(0, 0, 0));
  status = saver->Restore(session.get(), prefix);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(Fetch<float>(session.get(), "w"), ElementsAre(1, -2, 4));
}

TEST(SaverTest, CreateRejectsWhatItCannotSave) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {2}, DT_FLOAT);
  auto read = ops::Identity(root.WithOpName("read"), w);
  absl::StatusOr<Saver> saver = Saver::Create(root, {});
  EXPECT_EQ(saver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(saver.status().message(), HasSubstr("No variables to save"));
  saver = Saver::Create(root, {read});
  EXPECT_EQ(saver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(saver.status().message(),
              HasSubstr("cannot save 'read:0': it is the output of a Identity node"));
  saver = Saver::Create(root, {w, w});
  EXPECT_EQ(saver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(saver.status().message(), HasSubstr("At least two variables have the same name: w"));
  saver = Saver::Create(root, {Output()});
  EXPECT_EQ(saver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(saver.status().message(), HasSubstr("variable 0 is an invalid Output"));
  Scope other = Scope::NewRootScope();
  auto elsewhere = ops::Variable(other.WithOpName("v"), {2}, DT_FLOAT);
  saver = Saver::Create(root, {elsewhere});
  EXPECT_EQ(saver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(saver.status().message(), HasSubstr("belongs to another graph"));

  // A second Saver in the same scope gets the name scope save_1.
  ASSERT_TRUE(Saver::Create(root, {w}).ok());
  absl::StatusOr<Saver> second = Saver::Create(root, {w});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->restore_op_name(), "save_1/restore_all");
}

TEST(SaverTest, SaveAndRestoreErrors) {
  const std::string dir = TestDir();
  Scope root = Scope::NewRootScope();
  RefModel model(root);
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {2});
  ops::AssignVariableOp(root.WithOpName("init_v"), v, ops::Const(root, {1.f, 2.f}));
  absl::StatusOr<Saver> saver = Saver::Create(root, {model.w, model.step, v});
  ASSERT_TRUE(saver.ok()) << saver.status();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);

  // Saving an uninitialized variable (the resource variable has its value, w and step do not).
  ASSERT_TRUE(RunTargets(session.get(), {"init_v"}).ok());
  absl::Status status = saver->Save(session.get(), dir + "/early");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("while saving checkpoint '" + dir + "/early'"));
  EXPECT_THAT(status.message(), HasSubstr("attempting to use uninitialized value")) << status;

  // A missing checkpoint.
  status = saver->Restore(session.get(), dir + "/absent");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("while restoring checkpoint '" + dir + "/absent'"));

  // A checkpoint without one of the variables, one with a dtype that differs, and one with a
  // shape that differs.
  const auto write = [&](const std::string& prefix, const Tensor& w, const Tensor& step,
                         bool with_v) {
    absl::StatusOr<std::unique_ptr<checkpoint::BundleWriter>> writer =
        checkpoint::BundleWriter::Create(prefix);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add("w", w).ok());
    ASSERT_TRUE((*writer)->Add("global_step", step).ok());
    if (with_v) {
      ASSERT_TRUE((*writer)->Add("v", Tensor::Vector<float>({1, 2})).ok());
    }
    ASSERT_TRUE((*writer)->Finish().ok());
  };
  const Tensor good_w(TSR_DTYPE_FLOAT, TensorShape{2, 3});
  write(dir + "/no_v", good_w, Tensor::Scalar<int64_t>(1), false);
  status = saver->Restore(session.get(), dir + "/no_v");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("Key v not found in checkpoint"));

  write(dir + "/int32_step", good_w, Tensor::Scalar<int32_t>(1), true);
  status = saver->Restore(session.get(), dir + "/int32_step");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("tensor_name = global_step; expected dtype int64 does not equal original "
                        "dtype int32"));

  ASSERT_TRUE(RunTargets(session.get(), {"init_w", "init_step"}).ok());
  write(dir + "/wide_w", Tensor(TSR_DTYPE_FLOAT, TensorShape{2, 4}), Tensor::Scalar<int64_t>(1),
        true);
  status = saver->Restore(session.get(), dir + "/wide_w");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("Assign requires shapes of both tensors to match. lhs shape= [2,3] rhs "
                        "shape= [2,4]"));
}

}  // namespace
}  // namespace tessera
