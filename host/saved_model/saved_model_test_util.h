// Helpers of the SavedModel tests: the test exports in testdata/, saving their variables with
// their own save ops, and writing SavedModel folders.
#ifndef TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_
#define TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/saved_model/saved_model.h"

namespace tessera {
namespace testing {

inline std::vector<float> Floats(const Tensor& t) {
  EXPECT_EQ(t.dtype(), TSR_DTYPE_FLOAT);
  return std::vector<float>(t.flat<float>().begin(), t.flat<float>().end());
}

// A fresh folder for the running test, under the test temp folder.
inline std::filesystem::path FreshTestDir(const std::string& kind) {
  const auto* test = ::testing::UnitTest::GetInstance();
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      absl::StrCat(kind, "_", test->random_seed(), "_", test->current_test_info()->test_suite_name(),
                   "_", test->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// testdata/NAME, a MetaGraphDef in text format.
inline tensorflow::MetaGraphDef ReadTestMetaGraph(const std::string& name) {
  absl::StatusOr<tensorflow::MetaGraphDef> meta =
      ReadMetaGraphDefFile(absl::StrCat(TESSERA_SAVED_MODEL_TESTDATA, "/", name));
  EXPECT_TRUE(meta.ok()) << meta.status();
  return meta.ok() ? *meta : tensorflow::MetaGraphDef();
}

// Runs `targets` (the variables' initializers) on a session of `graph`, then the save op of
// `saver` with the prefix `prefix`, as TensorFlow's exporters do.
inline absl::Status InitAndSave(const tensorflow::GraphDef& graph,
                                const tensorflow::SaverDef& saver,
                                const std::vector<std::string>& targets,
                                const std::string& prefix,
                                const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, graph);
  if (!session.ok()) return session.status();
  std::vector<Tensor> out;
  absl::Status status = (*session)->Run({}, {}, targets, &out);
  if (!status.ok()) return status;
  status = (*session)->Run(
      {{saver.filename_tensor_name(), Tensor::Strings(TensorShape{}, {prefix})}},
      {saver.save_tensor_name()}, {}, &out);
  if (!status.ok()) return status;
  if (out.size() != 1 || out[0].flat<std::string>()[0] != prefix) {
    return absl::InternalError("the save op did not return the prefix");
  }
  return absl::OkStatus();
}

// DIR/saved_model.pb (binary) or DIR/saved_model.pbtxt (text) holding `meta`.
inline absl::Status WriteSavedModelFile(const std::filesystem::path& dir,
                                        const tensorflow::MetaGraphDef& meta, bool text = false) {
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  *model.add_meta_graphs() = meta;
  std::ofstream out(dir / (text ? "saved_model.pbtxt" : "saved_model.pb"), std::ios::binary);
  std::string bytes;
  const bool printed = text ? google::protobuf::TextFormat::PrintToString(model, &bytes)
                            : model.SerializeToString(&bytes);
  out << bytes;
  out.close();
  if (!printed || !out) return absl::InternalError("cannot write the SavedModel");
  return absl::OkStatus();
}

// The TensorFlow 1 export of testdata/tf1_half_plus_two.meta.pbtxt in DIR: variables saved by
// its sharded saver, assets/vocab.txt, saved_model.pb.
inline absl::Status WriteTf1SavedModelTo(const std::filesystem::path& dir,
                                         const tensorflow::MetaGraphDef& meta) {
  std::filesystem::create_directories(dir / "assets");
  std::ofstream(dir / "assets" / "vocab.txt") << "alpha\nbeta\n";
  absl::Status saved = InitAndSave(meta.graph_def(), meta.saver_def(), {"init"},
                                   (dir / "variables" / "variables").string());
  if (!saved.ok()) return saved;
  return WriteSavedModelFile(dir, meta);
}

// The same, failing the running test on an error.
inline void RunInitAndSave(const tensorflow::GraphDef& graph, const tensorflow::SaverDef& saver,
                           const std::vector<std::string>& targets, const std::string& prefix,
                           const SessionOptions& options = SessionOptions()) {
  absl::Status status = InitAndSave(graph, saver, targets, prefix, options);
  ASSERT_TRUE(status.ok()) << status;
}
inline void WriteSavedModel(const std::filesystem::path& dir, const tensorflow::MetaGraphDef& meta,
                            bool text = false) {
  absl::Status status = WriteSavedModelFile(dir, meta, text);
  ASSERT_TRUE(status.ok()) << status;
}
inline void WriteTf1SavedModel(const std::filesystem::path& dir,
                               const tensorflow::MetaGraphDef& meta) {
  absl::Status status = WriteTf1SavedModelTo(dir, meta);
  ASSERT_TRUE(status.ok()) << status;
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_HOST_SAVED_MODEL_SAVED_MODEL_TEST_UTIL_H_
