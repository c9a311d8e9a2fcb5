// A TensorFlow 1 export end to end: the MetaGraphDef TensorFlow 1's SavedModelBuilder writes
// (testdata/tf1_half_plus_two.meta.pbtxt: VariableV2 variables, the sharded V2 saver with
// StaticRegexFullMatch, Select, StringJoin, ShardedFilename, Pack and MergeV2Checkpoints, an asset,
// a main op) saves its variables with its own save op, is written as a SavedModel folder and as a
// `.meta` file, and loads back with TensorFlow's results.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/saved_model/saved_model.h"
#include "host/saved_model/saved_model_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing::Floats;

class SavedModelTf1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("tf1_saved_model");
    meta_ = testing::ReadTestMetaGraph("tf1_half_plus_two.meta.pbtxt");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Initializes the variables and saves them with the graph's own sharded save op, as
  // SavedModelBuilder.add_meta_graph_and_variables does.
  void SaveVariables(const std::string& prefix) {
    testing::RunInitAndSave(meta_.graph_def(), meta_.saver_def(), {"init"}, prefix);
  }

  fs::path dir_;
  tensorflow::MetaGraphDef meta_;
};

TEST_F(SavedModelTf1Test, TheShardedSaverWritesTensorFlowsCheckpoint) {
  const std::string prefix = (dir_ / "variables" / "variables").string();
  SaveVariables(prefix);
  // MergeV2Checkpoints merged the one shard into the prefix and removed the temporary folder.
  EXPECT_TRUE(fs::exists(prefix + ".index"));
  EXPECT_TRUE(fs::exists(prefix + ".data-00000-of-00001"));
  EXPECT_FALSE(fs::exists(prefix + "_temp"));
  absl::StatusOr<std::unique_ptr<checkpoint::BundleReader>> reader =
      checkpoint::BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<Tensor> a = (*reader)->Lookup("a");
  absl::StatusOr<Tensor> b = (*reader)->Lookup("b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_THAT(Floats(*a), ElementsAre(0.5f));
  EXPECT_THAT(Floats(*b), ElementsAre(2.0f));
}

TEST_F(SavedModelTf1Test, LoadsRestoresRunsTheMainOpAndTheSignatures) {
  testing::WriteTf1SavedModel(dir_, meta_);
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->signatures.size(), 2u);
  EXPECT_EQ(bundle->signatures.at("serving_default").method_name(), "tensorflow/serving/predict");
  EXPECT_FALSE(bundle->meta_graph.has_graph_def());
  EXPECT_EQ(bundle->meta_graph.saver_def().restore_op_name(), "save/restore_all");

  const Tensor x = Tensor::Vector<float>({1.0f, 2.0f, 5.0f});
  absl::StatusOr<std::map<std::string, Tensor>> served =
      RunSignature(*bundle, "serving_default", {{"x", x}});
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_THAT(Floats(served->at("y")), ElementsAre(2.5f, 3.0f, 4.5f));
  // z = y + counter: the main op initialized the local variable (after the asset check passed).
  absl::StatusOr<std::map<std::string, Tensor>> both =
      RunSignature(*bundle, "with_counter", {{"x", x}});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_THAT(Floats(both->at("z")), ElementsAre(9.5f, 10.0f, 11.5f));

  // Tensors by graph name work on the loaded session as well.
  std::vector<Tensor> out;
  ASSERT_TRUE(bundle->session->Run({{"x:0", x}}, {"Mul:0"}, {}, &out).ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(0.5f, 1.0f, 2.5f));
}

TEST_F(SavedModelTf1Test, TextSavedModelsLoadToo) {
  testing::WriteTf1SavedModel(dir_, meta_);
  fs::remove(dir_ / "saved_model.pb");
  testing::WriteSavedModel(dir_, meta_, /*text=*/true);
  absl::StatusOr<SavedModelBundle> bundle = LoadSavedModel(SessionOptions(), dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<std::map<std::string, Tensor>> served =
      RunSignature(*bundle, "serving_default", {{"x", Tensor::Vector<float>({4.0f})}});
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_THAT(Floats(served->at("y")), ElementsAre(4.0f));
}

TEST_F(SavedModelTf1Test, AMetaFileWithACheckpointRunsAfterTheRestore) {
  const std::string prefix = (dir_ / "ckpt" / "model.ckpt-100").string();
  SaveVariables(prefix);
  const std::string path = (dir_ / "model.meta").string();
  {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(meta_.SerializeToOstream(&out));
  }
  absl::StatusOr<tensorflow::MetaGraphDef> meta = ReadMetaGraphDefFile(path);
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->collection_def().at("saved_model_main_op").node_list().value(0), "main_op");
  absl::StatusOr<std::unique_ptr<Session>> session =
      LoadMetaGraph(SessionOptions(), *std::move(meta), prefix);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status run = (*session)->Run({{"x", Tensor::Vector<float>({2.0f})}}, {"y"}, {}, &out);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(Floats(out[0]), ElementsAre(3.0f));

  // Without the checkpoint the variables are uninitialized.
  absl::StatusOr<std::unique_ptr<Session>> fresh =
      LoadMetaGraph(SessionOptions(), meta_, /*checkpoint_prefix=*/"");
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  run = (*fresh)->Run({{"x", Tensor::Vector<float>({2.0f})}}, {"y"}, {}, &out);
  EXPECT_EQ(run.code(), absl::StatusCode::kFailedPrecondition) << run;

  // A checkpoint that is not there is the restore's NOT_FOUND, naming the prefix.
  absl::StatusOr<std::unique_ptr<Session>> missing =
      LoadMetaGraph(SessionOptions(), meta_, (dir_ / "nothing").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(missing.status().message(),
              HasSubstr(absl::StrCat("restoring the variables from '", (dir_ / "nothing").string(),
                                     "' (save/restore_all)")));
}

}  // namespace
}  // namespace tessera
