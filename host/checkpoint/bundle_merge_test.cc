// MergeBundles: sharded saves joined into one checkpoint, and its errors.
#include "host/checkpoint/bundle_merge.h"

#include <filesystem>
#include <functional>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/table_builder.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;
using testing_util::TestDir;

void WriteShard(const std::string& prefix, const std::function<void(BundleWriter*)>& fill) {
  auto writer = BundleWriter::Create(prefix);
  ASSERT_TRUE(writer.ok());
  fill(writer->get());
  ASSERT_TRUE((*writer)->Finish().ok());
}

TEST(BundleMergeTest, MergesShardsAndSliceLists) {
  const std::string dir = TestDir();
  const TensorShape full{4};
  WriteShard(dir + "/tmp/part-0", [&](BundleWriter* w) {
    ASSERT_TRUE(w->Add("a", Tensor::Scalar<int32_t>(1)).ok());
    ASSERT_TRUE(
        w->AddSlice("v", full, TensorSlice{{0, 2}}, Tensor::Vector<float>({1.0f, 2.0f})).ok());
  });
  WriteShard(dir + "/tmp/part-1", [&](BundleWriter* w) {
    ASSERT_TRUE(w->Add("b", Tensor::Vector<int64_t>({5, 6})).ok());
    ASSERT_TRUE(
        w->AddSlice("v", full, TensorSlice{{2, 2}}, Tensor::Vector<float>({3.0f, 4.0f})).ok());
  });
  const std::string merged = dir + "/model.ckpt";
  ASSERT_TRUE(MergeBundles({dir + "/tmp/part-0", dir + "/tmp/part-1"}, merged).ok());

  EXPECT_TRUE(std::filesystem::exists(DataFilename(merged, 0, 2)));
  EXPECT_TRUE(std::filesystem::exists(DataFilename(merged, 1, 2)));
  EXPECT_FALSE(std::filesystem::exists(MetaFilename(dir + "/tmp/part-0")));
  auto reader = BundleReader::Open(merged);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 2);
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"a", "b", "v"}));
  absl::StatusOr<Tensor> v = (*reader)->Lookup("v");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(std::vector<float>(v->data<float>(), v->data<float>() + 4),
            (std::vector<float>{1, 2, 3, 4}));
  absl::StatusOr<Tensor> b = (*reader)->Lookup("b");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->data<int64_t>()[1], 6);
  absl::StatusOr<Tensor> a = (*reader)->Lookup("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a->data<int32_t>(), 1);
}

TEST(BundleMergeTest, RejectsDuplicatesAndMissingInputs) {
  const std::string dir = TestDir();
  WriteShard(dir + "/p0",
             [](BundleWriter* w) { ASSERT_TRUE(w->Add("a", Tensor::Scalar<int32_t>(1)).ok()); });
  WriteShard(dir + "/p1",
             [](BundleWriter* w) { ASSERT_TRUE(w->Add("a", Tensor::Scalar<int32_t>(2)).ok()); });
  absl::Status status = MergeBundles({dir + "/p0", dir + "/p1"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("tensor 'a' of checkpoint '" + dir + "/p1' is also in an earlier input"));
  // Nothing was moved.
  EXPECT_TRUE(std::filesystem::exists(DataFilename(dir + "/p0", 0, 1)));

  status = MergeBundles({dir + "/p0", dir + "/missing"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(dir + "/missing.index"));

  status = MergeBundles({}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("no checkpoints to merge"));

  WriteShard(dir + "/s0", [](BundleWriter* w) {
    ASSERT_TRUE(
        w->AddSlice("v", TensorShape{4}, TensorSlice{{0, 2}}, Tensor::Vector<float>({1.0f, 2.0f}))
            .ok());
  });
  WriteShard(dir + "/s1", [](BundleWriter* w) {
    ASSERT_TRUE(
        w->AddSlice("v", TensorShape{5}, TensorSlice{{2, 2}}, Tensor::Vector<float>({1.0f, 2.0f}))
            .ok());
  });
  status = MergeBundles({dir + "/s0", dir + "/s1"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("slices of tensor 'v'"));
  EXPECT_THAT(status.message(), HasSubstr("disagree with earlier inputs"));
}

// Writes "<prefix>.index" by hand (no data file is needed to fail a merge).
void WriteIndex(const std::string& prefix, const tensorflow::BundleHeaderProto& header,
                const std::map<std::string, std::string>& entries) {
  TableBuilder table;
  table.Add("", header.SerializeAsString());
  for (const auto& [key, value] : entries) table.Add(key, value);
  testing_util::WriteFileBytes(MetaFilename(prefix), table.Finish());
}

TEST(BundleMergeTest, AllowMissingFilesSkipsAbsentInputs) {
  const std::string dir = TestDir();
  WriteShard(dir + "/p0",
             [](BundleWriter* w) { ASSERT_TRUE(w->Add("x", Tensor::Scalar(1.0f)).ok()); });
  absl::Status status = MergeBundles({dir + "/gone", dir + "/p0", dir + "/also_gone"},
                                     dir + "/merged", /*allow_missing_files=*/true);
  ASSERT_TRUE(status.ok()) << status;
  auto reader = BundleReader::Open(dir + "/merged");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"x"}));

  status = MergeBundles({dir + "/gone", dir + "/also_gone"}, dir + "/merged2",
                        /*allow_missing_files=*/true);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("none of the 2 checkpoints to merge into '" + dir +
                                          "/merged2' exists (first: '" + dir + "/gone')"));
}

TEST(BundleMergeTest, RejectsIncompatibleOrCorruptInputs) {
  const std::string dir = TestDir();
  WriteShard(dir + "/p0",
             [](BundleWriter* w) { ASSERT_TRUE(w->Add("a", Tensor::Scalar<int32_t>(1)).ok()); });
  tensorflow::BundleHeaderProto big = MakeHeader(1);
  big.set_endianness(tensorflow::BundleHeaderProto::BIG);
  WriteIndex(dir + "/big", big, {});
  absl::Status status = MergeBundles({dir + "/p0", dir + "/big"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("its byte order differs from the first input's"));

  tensorflow::BundleHeaderProto newer = MakeHeader(1);
  newer.mutable_version()->set_producer(2);
  WriteIndex(dir + "/newer", newer, {});
  status = MergeBundles({dir + "/p0", dir + "/newer"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("its format version (producer 2) differs"));

  tensorflow::BundleEntryProto far;
  far.set_dtype(tensorflow::DT_FLOAT);
  far.set_shard_id(5);
  WriteIndex(dir + "/far", MakeHeader(1), {{"f", far.SerializeAsString()}});
  status = MergeBundles({dir + "/far"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("tensor 'f' is in shard 5 of 1"));

  WriteIndex(dir + "/garbage", MakeHeader(1), {{"g", "\xff\xff"}});
  status = MergeBundles({dir + "/garbage"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("the entry of tensor 'g' is not a BundleEntryProto"));

  TableBuilder headerless;
  headerless.Add("a", "");
  testing_util::WriteFileBytes(MetaFilename(dir + "/headerless"), headerless.Finish());
  status = MergeBundles({dir + "/headerless"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("it has no header entry"));

  TableBuilder bad_header;
  bad_header.Add("", "\xff\xff");
  testing_util::WriteFileBytes(MetaFilename(dir + "/bad_header"), bad_header.Finish());
  status = MergeBundles({dir + "/bad_header"}, dir + "/merged");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("its header is not a BundleHeaderProto"));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
