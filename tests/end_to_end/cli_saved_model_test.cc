// `tessera show` and `tessera run` on TensorFlow's exports, run as a user runs them: the
// TensorFlow 1 SavedModel and `.meta` + checkpoint of host/saved_model/testdata, their signatures
// printed, run by signature key and by tensor name, and their errors.
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/client/npy.h"
#include "host/saved_model/saved_model_test_util.h"
#include "tests/end_to_end/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

class CliSavedModelTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    meta_ = testing::ReadTestMetaGraph("tf1_half_plus_two.meta.pbtxt");
    testing::WriteTf1SavedModel(Path("model"), meta_);
    ASSERT_TRUE(WriteNpy(Tensor::Vector<float>({1.0f, 2.0f, 5.0f}), Path("in.npy")).ok());
  }

  tensorflow::MetaGraphDef meta_;
};

TEST_F(CliSavedModelTest, ShowsTagSetsSignaturesAndTheirTensors) {
  Result r = Tessera({"show", "--saved-model", Path("model")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("SavedModel ", Path("model"), ": 1 MetaGraph\n",
                                "MetaGraph { serve } (TensorFlow 1.15.5): 47 nodes, 0 functions\n"
                                "  saver: restore op save/restore_all, filename tensor save/Const:0\n"
                                "  init op: main_op (saved_model_main_op)\n"
                                "  asset: vocab.txt -> asset_filepath:0\n"
                                "  signature 'serving_default' (tensorflow/serving/predict):\n"
                                "    input  'x': float [?] x:0\n"
                                "    output 'y': float [?] y:0\n"
                                "  signature 'with_counter' (tensorflow/serving/predict):\n"
                                "    input  'x': float [?] x:0\n"
                                "    output 'y': float [?] y:0\n"
                                "    output 'z': float [?] z:0\n"));
  r = Tessera({"show", "--saved-model", Path("model"), "--signature-def", "with_counter"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  signature 'with_counter'"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("serving_default")));

  std::ofstream(Path("model.meta"), std::ios::binary) << meta_.SerializeAsString();
  r = Tessera({"show", "--meta-graph", Path("model.meta")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  collection saved_model_main_op: main_op\n"));
  EXPECT_THAT(r.out, HasSubstr("  collection trainable_variables: 2 serialized protos\n"));
}

TEST_F(CliSavedModelTest, RunsASignatureByItsKeys) {
  Result r = Tessera({"run", "--saved-model", Path("model"), "--input", "x=" + Path("in.npy"),
                      "--signature-def", "with_counter", "--output-dir", Path("out")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("y  float32  [3]  2.5 3 4.5\n"
                                "z  float32  [3]  9.5 10 11.5\n"
                                "wrote ", Path("out"), "/y.npy\n",
                                "wrote ", Path("out"), "/z.npy\n"));
  absl::StatusOr<Tensor> z = ReadNpy(Path("out/z.npy"));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->DebugString(), "float [3] 9.5 10 11.5");
}

TEST_F(CliSavedModelTest, SignatureOutputsThatShareAFileAreRefused) {
  auto& outputs = *(*meta_.mutable_signature_def())["with_counter"].mutable_outputs();
  outputs["a/b"] = outputs["y"];
  outputs["a_b"] = outputs["z"];
  testing::WriteSavedModel(Path("model"), meta_);
  Result r = Tessera({"run", "--saved-model", Path("model"), "--signature-def", "with_counter",
                      "--input", "x=" + Path("in.npy"), "--output-dir", Path("out")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera run: signature 'with_counter' outputs 'a/b' and 'a_b' would both be "
                   "written to 'a_b.npy' in --output-dir\n");
  EXPECT_FALSE(std::filesystem::exists(Path("out")));
}

TEST_F(CliSavedModelTest, RunsTensorsByGraphNameAfterTheRestore) {
  Result r = Tessera({"run", "--saved-model", Path("model"), "--input", "x=" + Path("in.npy"),
                      "--fetch", "Mul:0", "--fetch", "b"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "Mul:0  float32  [3]  0.5 1 2.5\nb:0    float32  []   2\n");
}

TEST_F(CliSavedModelTest, RunsAMetaGraphWithItsCheckpoint) {
  std::ofstream(Path("model.meta"), std::ios::binary) << meta_.SerializeAsString();
  Result r = Tessera({"run", Path("model.meta"), "--checkpoint", Path("model/variables/variables"),
                      "--feed", "x=" + Path("in.npy"), "--fetch", "y"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "y:0  float32  [3]  2.5 3 4.5\n");
  // In text format too.
  r = Tessera({"run", TESSERA_SAVED_MODEL_TESTDATA "/tf1_half_plus_two.meta.pbtxt", "--checkpoint",
               Path("model/variables/variables"), "--feed", "x=" + Path("in.npy"), "--fetch", "y"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "y:0  float32  [3]  2.5 3 4.5\n");
  // Without --checkpoint the variables are not initialized.
  r = Tessera({"run", Path("model.meta"), "--feed", "x=" + Path("in.npy"), "--fetch", "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, HasSubstr("tessera run: the step failed: "));
}

TEST_F(CliSavedModelTest, ErrorsNameWhatIsMissing) {
  Result r = Tessera({"show", "--saved-model", Path("model"), "--tag-set", "train"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera show: no MetaGraph has the tag-set { train }; the SavedModel's "
                   "tag-sets are { serve }\n");
  r = Tessera({"show", "--saved-model", Path("model"), "--signature-def", "predict"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera show: the MetaGraph { serve } has no signature 'predict'; its "
                   "signatures: serving_default, with_counter\n");
  r = Tessera({"show", "--saved-model", Path("nothing")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, absl::StrCat("tessera show: SavedModel folder '", Path("nothing"),
                                "' does not exist\n"));

  r = Tessera({"run", "--saved-model", Path("model"), "--input", "w=" + Path("in.npy")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera run: the step failed: signature 'serving_default' has no input 'w'; "
                   "its inputs: x\n");
  r = Tessera({"run", "--saved-model", Path("model"), "--input", "w=" + Path("in.npy"), "--fetch",
               "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera run: signature 'serving_default' has no dense input 'w'\n");
  r = Tessera({"run", "--saved-model", Path("model"), "--signature-def", "nope", "--input",
               "x=" + Path("in.npy"), "--fetch", "y"});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(r.err, "tessera run: the SavedModel has no signature 'nope' (--signature-def); its "
                   "signatures: serving_default, with_counter\n");
  std::filesystem::remove_all(Path("model/variables"));
  r = Tessera({"run", "--saved-model", Path("model"), "--input", "x=" + Path("in.npy")});
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_THAT(r.err, HasSubstr("tessera run: cannot load the SavedModel: SavedModel '"));
  EXPECT_THAT(r.err, HasSubstr("' has a saver (restore op 'save/restore_all') but no variables"));
}

}  // namespace
}  // namespace tessera
