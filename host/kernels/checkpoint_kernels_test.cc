// SaveV2, RestoreV2 and MergeV2Checkpoints through real sessions: every numeric dtype, slices,
// sharded saves merged, tensors in the memory of a device the host cannot reach, and TensorFlow's
// errors with their codes and messages.
#include "host/kernels/checkpoint_kernels.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TestDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    (std::string("tessera_ckpt_ops_") + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Builds GraphDefs node by node.
class GraphBuilder {
 public:
  tensorflow::NodeDef* Add(const std::string& name, const std::string& op,
                           const std::vector<std::string>& inputs = {},
                           const std::string& device = "") {
    tensorflow::NodeDef* node = def_.add_node();
    node->set_name(name);
    node->set_op(op);
    node->set_device(device);
    for (const std::string& input : inputs) node->add_input(input);
    return node;
  }
  void Placeholder(const std::string& name, DataType dtype) {
    SetType(Add(name, "Placeholder"), "dtype", dtype);
  }
  void Strings(const std::string& name, const std::vector<std::string>& values) {
    tensorflow::NodeDef* node = Add(name, "Const");
    SetType(node, "dtype", TSR_DTYPE_STRING);
    tensorflow::TensorProto* tensor = (*node->mutable_attr())["value"].mutable_tensor();
    tensor->set_dtype(tensorflow::DT_STRING);
    tensor->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
    for (const std::string& v : values) tensor->add_string_val(v);
  }
  // SaveV2 of `tensors` with `dtypes`.
  void Save(const std::string& name, const std::vector<std::string>& tensors,
            const std::vector<DataType>& dtypes, const std::string& device = "",
            const std::string& prefix = "prefix", const std::string& names = "names",
            const std::string& slices = "slices") {
    std::vector<std::string> inputs = {prefix, names, slices};
    inputs.insert(inputs.end(), tensors.begin(), tensors.end());
    SetTypes(Add(name, "SaveV2", inputs, device), dtypes);
  }
  void Restore(const std::string& name, const std::vector<DataType>& dtypes,
               const std::string& device = "", const std::string& prefix = "prefix",
               const std::string& names = "names", const std::string& slices = "slices") {
    SetTypes(Add(name, "RestoreV2", {prefix, names, slices}, device), dtypes);
  }
  static void SetType(tensorflow::NodeDef* node, const std::string& attr, DataType dtype) {
    (*node->mutable_attr())[attr].set_type(static_cast<tensorflow::DataType>(dtype));
  }
  static void SetTypes(tensorflow::NodeDef* node, const std::vector<DataType>& dtypes) {
    auto* list = (*node->mutable_attr())["dtypes"].mutable_list();
    for (DataType t : dtypes) list->add_type(static_cast<tensorflow::DataType>(t));
  }
  const tensorflow::GraphDef& def() const { return def_; }

 private:
  tensorflow::GraphDef def_;
};

std::unique_ptr<Session> MustCreate(const GraphBuilder& graph, bool testdev = false) {
  SessionOptions options;
  if (testdev) options.plugin_paths.push_back(TESSERA_TESTDEVICE_PLUGIN_DIR);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(options, graph.def());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

Tensor RandomTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  auto* bytes = static_cast<unsigned char*>(t.data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) {
    bytes[i] = static_cast<unsigned char>(rng());
    if (dtype == TSR_DTYPE_BOOL) bytes[i] &= 1;
  }
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.TotalBytes()) == 0;
}

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

const std::vector<DataType> kNumericTypes = {
    TSR_DTYPE_FLOAT,    TSR_DTYPE_DOUBLE,    TSR_DTYPE_INT32,     TSR_DTYPE_INT64,
    TSR_DTYPE_BOOL,     TSR_DTYPE_UINT8,     TSR_DTYPE_INT8,      TSR_DTYPE_INT16,
    TSR_DTYPE_UINT16,   TSR_DTYPE_UINT32,    TSR_DTYPE_UINT64,    TSR_DTYPE_HALF,
    TSR_DTYPE_BFLOAT16, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};

TEST(CheckpointKernelsTest, SavesAndRestoresEveryNumericDtype) {
  const std::string prefix = TestDir() + "/model.ckpt";
  GraphBuilder graph;
  graph.Placeholder("prefix", TSR_DTYPE_STRING);
  std::vector<std::string> names, tensors, fetches;
  std::vector<std::pair<std::string, Tensor>> feeds = {{"prefix", Str(prefix)}};
  std::vector<Tensor> values;
  for (size_t i = 0; i < kNumericTypes.size(); ++i) {
    const DataType dtype = kNumericTypes[i];
    names.push_back(absl::StrCat("v_", DataTypeString(dtype)));
    tensors.push_back(absl::StrCat("p", i));
    fetches.push_back(absl::StrCat("restore:", i));
    graph.Placeholder(tensors.back(), dtype);
    values.push_back(RandomTensor(dtype, TensorShape{2, static_cast<int64_t>(i % 3 + 1)},
                                  static_cast<uint32_t>(i)));
    feeds.push_back({tensors.back(), values.back()});
  }
  graph.Strings("names", names);
  graph.Strings("slices", std::vector<std::string>(names.size(), ""));
  graph.Save("save", tensors, kNumericTypes);
  graph.Restore("restore", kNumericTypes);
  std::unique_ptr<Session> session = MustCreate(graph);
  ASSERT_NE(session, nullptr);

  std::vector<Tensor> out;
  absl::Status status = session->Run(feeds, {}, {"save"}, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(std::filesystem::exists(prefix + ".index"));
  ASSERT_TRUE(std::filesystem::exists(prefix + ".data-00000-of-00001"));

  status = session->Run({{"prefix", Str(prefix)}}, fetches, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(out.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(SameBytes(out[i], values[i])) << DataTypeString(kNumericTypes[i]);
  }
  // The files are an ordinary bundle.
  absl::StatusOr<std::unique_ptr<checkpoint::BundleReader>> reader =
      checkpoint::BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys().size(), names.size());
}

TEST(CheckpointKernelsTest, SavesAndRestoresStrings) {
  const std::string prefix = TestDir() + "/strings";
  GraphBuilder graph;
  graph.Placeholder("prefix", TSR_DTYPE_STRING);
  graph.Placeholder("vocab", TSR_DTYPE_STRING);
  graph.Strings("names", {"vocab"});
  graph.Strings("slices", {""});
  graph.Save("save", {"vocab"}, {TSR_DTYPE_STRING});
  graph.Restore("restore", {TSR_DTYPE_STRING});
  std::unique_ptr<Session> session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor vocab = Tensor::Strings(TensorShape{3}, {"the", "", "checkpoint"});
  ASSERT_TRUE(session->Run({{"prefix", Str(prefix)}, {"vocab", vocab}}, {}, {"save"}, &out).ok());
  ASSERT_TRUE(session->Run({{"prefix", Str(prefix)}}, {"restore"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<std::string>(), ElementsAre("the", "", "checkpoint"));
}

TEST(CheckpointKernelsTest, SavesSlicesAndRestoresPartsOfThem) {
  const std::string prefix = TestDir() + "/sliced";
  GraphBuilder graph;
  graph.Placeholder("prefix", TSR_DTYPE_STRING);
  graph.Placeholder("top", TSR_DTYPE_FLOAT);
  graph.Placeholder("bottom", TSR_DTYPE_FLOAT);
  graph.Strings("names", {"emb", "emb"});
  graph.Strings("slices", {"4 2 0,2:-", "4 2 2,2:-"});
  graph.Save("save", {"top", "bottom"}, {TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT});
  graph.Strings("restore_names", {"emb", "emb"});
  graph.Strings("restore_slices", {"", "4 2 1,2:1,1"});
  graph.Restore("restore", {TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT}, "", "prefix", "restore_names",
                "restore_slices");
  std::unique_ptr<Session> session = MustCreate(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status =
      session->Run({{"prefix", Str(prefix)},
                    {"top", Tensor::FromVector<float>(TensorShape{2, 2}, {1, 2, 3, 4})},
                    {"bottom", Tensor::FromVector<float>(TensorShape{2, 2}, {5, 6, 7, 8})}},
                   {}, {"save"}, &out);
  ASSERT_TRUE(status.ok()) << status;
  status = session->Run({{"prefix", Str(prefix)}}, {"restore:0", "restore:1"}, {}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out[0].shape(), (TensorShape{4, 2}));
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(out[1].shape(), (TensorShape{2, 1}));
  EXPECT_THAT(out[1].flat<float>(), ElementsAre(4, 6));  // rows 1-2, column 1
}

TEST(CheckpointKernelsTest, MergesShardedSavesAndRemovesTheirDirectories) {
  const std::string dir = TestDir();
  GraphBuilder graph;
  graph.Placeholder("prefix", TSR_DTYPE_STRING);
  graph.Placeholder("x", TSR_DTYPE_FLOAT);
  graph.Strings("names", {"x"});
  graph.Strings("slices", {""});
  graph.Save("save", {"x"}, {TSR_DTYPE_FLOAT});
  graph.Placeholder("prefix2", TSR_DTYPE_STRING);
  graph.Placeholder("y", TSR_DTYPE_INT64);
  graph.Strings("names2", {"y"});
  graph.Save("save2", {"y"}, {TSR_DTYPE_INT64}, "", "prefix2", "names2", "slices");
  graph.Placeholder("inputs", TSR_DTYPE_STRING);
  graph.Placeholder("destination", TSR_DTYPE_STRING);
  graph.Add("merge", "MergeV2Checkpoints", {"inputs", "destination"});
  tensorflow::NodeDef* keep =
      graph.Add("merge_keep", "MergeV2Checkpoints", {"inputs", "destination"});
  (*keep->mutable_attr())["delete_old_dirs"].set_b(false);
  (*keep->mutable_attr())["allow_missing_files"].set_b(true);
  graph.Strings("both", {"x", "y"});
  graph.Restore("restore", {TSR_DTYPE_FLOAT, TSR_DTYPE_INT64}, "", "prefix", "both", "slices2");
  graph.Strings("slices2", {"", ""});
  std::unique_ptr<Session> session = MustCreate(graph);
  ASSERT_NE(session, nullptr);

  std::vector<Tensor> out;
  const std::string part0 = dir + "/tmp0/part", part1 = dir + "/tmp1/part";
  ASSERT_TRUE(session
                  ->Run({{"prefix", Str(part0)},
                         {"x", Tensor::Vector<float>({1.5f})},
                         {"prefix2", Str(part1)},
                         {"y", Tensor::Vector<int64_t>({7, 8})}},
                        {}, {"save", "save2"}, &out)
                  .ok());
  const std::string merged = dir + "/model.ckpt";
  Tensor inputs = Tensor::Strings(TensorShape{2}, {part0, part1});
  absl::Status status =
      session->Run({{"inputs", inputs}, {"destination", Str(merged)}}, {}, {"merge"}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(std::filesystem::exists(dir + "/tmp0"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/tmp1"));
  ASSERT_TRUE(session->Run({{"prefix", Str(merged)}}, {"restore:0", "restore:1"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1.5f));
  EXPECT_THAT(out[1].flat<int64_t>(), ElementsAre(7, 8));

  // allow_missing_files: a missing input is skipped; without it, it is NOT_FOUND.
  ASSERT_TRUE(
      session
          ->Run({{"prefix", Str(part0)}, {"x", Tensor::Vector<float>({2.5f})}}, {}, {"save"}, &out)
          .ok());
  Tensor with_missing = Tensor::Strings(TensorShape{2}, {part0, dir + "/never/written"});
  status = session->Run({{"inputs", with_missing}, {"destination", Str(dir + "/m2")}}, {},
                        {"merge"}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  status = session->Run({{"inputs", with_missing}, {"destination", Str(dir + "/m2")}}, {},
                        {"merge_keep"}, &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(std::filesystem::exists(dir + "/tmp0"));  // delete_old_dirs = false
  EXPECT_TRUE(std::filesystem::exists(dir + "/m2.index"));
}

TEST(CheckpointKernelsTest, CopiesTensorsOfADeviceWithoutHostMemory) {
  const std::string prefix = TestDir() + "/device";
  GraphBuilder graph;
  graph.Placeholder("prefix", TSR_DTYPE_STRING);
  tensorflow::NodeDef* c = graph.Add("c", "Const", {}, "/device:TESTDEV:0");
  GraphBuilder::SetType(c, "dtype", TSR_DTYPE_FLOAT);
  tensorflow::TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_FLOAT);
  value->mutable_tensor_shape()->add_dim()->set_size(3);
  for (float f : {1.0f, -2.0f, 3.5f}) value->add_float_val(f);
  graph.Strings("names", {"c"});
  graph.Strings("slices", {""});
  // Both checkpoint nodes run on TESTDEV: their string inputs arrive in host memory, the tensor
  // goes through the plugin's copies.
  graph.Save("save", {"c"}, {TSR_DTYPE_FLOAT}, "/device:TESTDEV:0");
  graph.Restore("restore", {TSR_DTYPE_FLOAT}, "/device:TESTDEV:0");
  std::unique_ptr<Session> session = MustCreate(graph, /*testdev=*/true);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status status = session->Run({{"prefix", Str(prefix)}}, {}, {"save"}, &out);
  ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<std::unique_ptr<checkpoint::BundleReader>> reader =
      checkpoint::BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<Tensor> saved = (*reader)->Lookup("c");
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_THAT(saved->flat<float>(), ElementsAre(1.0f, -2.0f, 3.5f));

  RunMetadata metadata;
  status = session->Run(RunOptions(), {{"prefix", Str(prefix)}}, {"restore"}, {}, &out, &metadata);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1.0f, -2.0f, 3.5f));
  EXPECT_THAT(metadata.partition_devices, ::testing::Contains(HasSubstr("TESTDEV:0")));
}

// A session with `prefix`, `names`, `slices` (string placeholders, any shape) and SaveV2 of `x`
// (float) and RestoreV2 of one float and of one int32 tensor, for the error tests.
class CheckpointErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir();
    GraphBuilder graph;
    for (const char* name : {"prefix", "names", "slices"}) {
      graph.Placeholder(name, TSR_DTYPE_STRING);
    }
    graph.Placeholder("x", TSR_DTYPE_FLOAT);
    graph.Save("save", {"x"}, {TSR_DTYPE_FLOAT});
    graph.Restore("restore", {TSR_DTYPE_FLOAT});
    graph.Restore("restore_int", {TSR_DTYPE_INT32});
    graph.Placeholder("inputs", TSR_DTYPE_STRING);
    graph.Placeholder("destination", TSR_DTYPE_STRING);
    graph.Add("merge", "MergeV2Checkpoints", {"inputs", "destination"});
    session_ = MustCreate(graph);
    ASSERT_NE(session_, nullptr);
    // A good checkpoint holding x = [1, 2, 3].
    ASSERT_TRUE(
        Save(Str(dir_ + "/good"), Names({"x"}), Names({""}), Tensor::Vector<float>({1, 2, 3}))
            .ok());
  }

  static Tensor Names(const std::vector<std::string>& names) {
    return Tensor::Strings(TensorShape{static_cast<int64_t>(names.size())}, names);
  }
  absl::Status Save(const Tensor& prefix, const Tensor& names, const Tensor& slices,
                    const Tensor& x) {
    std::vector<Tensor> out;
    return session_->Run({{"prefix", prefix}, {"names", names}, {"slices", slices}, {"x", x}}, {},
                         {"save"}, &out);
  }
  absl::Status Restore(const std::string& node, const Tensor& prefix, const Tensor& names,
                       const Tensor& slices) {
    std::vector<Tensor> out;
    return session_->Run({{"prefix", prefix}, {"names", names}, {"slices", slices}}, {node}, {},
                         &out);
  }
  static void Expect(const absl::Status& status, absl::StatusCode code,
                     const std::string& message) {
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(message));
  }

  std::string dir_;
  std::unique_ptr<Session> session_;
};

TEST_F(CheckpointErrorsTest, MissingKeyAndDtypeMismatch) {
  const Tensor good = Str(dir_ + "/good");
  Expect(Restore("restore", good, Names({"w"}), Names({""})), absl::StatusCode::kNotFound,
         "Key w not found in checkpoint");
  Expect(Restore("restore_int", good, Names({"x"}), Names({""})),
         absl::StatusCode::kInvalidArgument,
         "tensor_name = x; expected dtype int32 does not equal original dtype float");
}

TEST_F(CheckpointErrorsTest, MissingOrCorruptFiles) {
  Expect(Restore("restore", Str(dir_ + "/absent"), Names({"x"}), Names({""})),
         absl::StatusCode::kNotFound, "cannot open checkpoint '" + dir_ + "/absent'");
  // A flipped byte in the data file.
  const std::string data = checkpoint::DataFilename(dir_ + "/good", 0, 1);
  std::string bytes;
  {
    std::ifstream in(data, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_EQ(bytes.size(), 12u);
  bytes[5] ^= 0x40;
  std::ofstream(data, std::ios::binary | std::ios::trunc) << bytes;
  Expect(Restore("restore", Str(dir_ + "/good"), Names({"x"}), Names({""})),
         absl::StatusCode::kDataLoss, "checksum mismatch for tensor 'x'");
  // A truncated index.
  const std::string index = checkpoint::MetaFilename(dir_ + "/good");
  std::filesystem::resize_file(index, 10);
  Expect(Restore("restore", Str(dir_ + "/good"), Names({"x"}), Names({""})),
         absl::StatusCode::kDataLoss, "good.index");
  // The data file gone.
  ASSERT_TRUE(
      Save(Str(dir_ + "/other"), Names({"x"}), Names({""}), Tensor::Vector<float>({1})).ok());
  std::filesystem::remove(checkpoint::DataFilename(dir_ + "/other", 0, 1));
  Expect(Restore("restore", Str(dir_ + "/other"), Names({"x"}), Names({""})),
         absl::StatusCode::kNotFound, "data file 0 of checkpoint");
}

TEST_F(CheckpointErrorsTest, BadInputsGiveTensorFlowsMessages) {
  const Tensor good = Str(dir_ + "/good");
  const Tensor x = Tensor::Vector<float>({1, 2, 3});
  using C = absl::StatusCode;
  Expect(Save(Names({"a", "b"}), Names({"x"}), Names({""}), x), C::kInvalidArgument,
         "Input prefix should have a single element, got 2 instead.");
  Expect(Save(good, Tensor::Strings(TensorShape{1, 1}, {"x"}), Names({""}), x), C::kInvalidArgument,
         "Input tensor_names and shape_and_slices should be an 1-D tensors, got [1,1] and [1] "
         "instead.");
  Expect(Save(good, Names({"x"}), Names({"", ""}), x), C::kInvalidArgument,
         "tensor_names and shape_and_slices have different number of elements: 1 vs. 2");
  Expect(Save(good, Names({"x", "y"}), Names({"", ""}), x), C::kInvalidArgument,
         "Got 2 tensor names but 1 tensors.");
  Expect(Save(good, Names({"x"}), Names({"4 0,2"}), x), C::kInvalidArgument,
         "Slice in shape_and_slice specification does not match the shape of the tensor to save: "
         "4 0,2, tensor: [3]");
  Expect(Save(good, Names({"x"}), Names({"3 0,2,1"}), x), C::kInvalidArgument,
         "in shape_and_slice spec '3 0,2,1': bad tensor slice");
  Expect(Restore("restore", good, Names({"x", "y"}), Names({"", ""})), C::kInvalidArgument,
         "Got 2 tensor names, but 1 expected dtypes.");
  Expect(Restore("restore", good, Names({"x"}), Names({"5 0,2"})), C::kInvalidArgument,
         "tensor_name = x; shape in shape_and_slice spec [5]");
}

TEST_F(CheckpointErrorsTest, MergeChecksItsInputs) {
  std::vector<Tensor> out;
  const auto merge = [&](const Tensor& inputs, const Tensor& destination) {
    return session_->Run({{"inputs", inputs}, {"destination", destination}}, {}, {"merge"}, &out);
  };
  Expect(merge(Str(dir_ + "/good"), Str(dir_ + "/m")), absl::StatusCode::kInvalidArgument,
         "Input checkpoint_prefixes should be an 1-D tensor, got [] instead.");
  Expect(merge(Names({dir_ + "/good"}), Names({dir_ + "/m"})), absl::StatusCode::kInvalidArgument,
         "Input destination_prefix should be a scalar tensor, got [1] instead.");
  Expect(merge(Names({dir_ + "/good", dir_ + "/absent"}), Str(dir_ + "/m")),
         absl::StatusCode::kNotFound, dir_ + "/absent.index");
}

}  // namespace
}  // namespace tessera
