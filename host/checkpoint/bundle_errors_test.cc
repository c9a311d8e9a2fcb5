// Every way a checkpoint can be missing, truncated or corrupt gives a specific error, never a
// crash or an absurd allocation.
#include <filesystem>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/bundle_reader.h"
#include "host/checkpoint/bundle_test_util.h"
#include "host/checkpoint/bundle_writer.h"
#include "host/checkpoint/crc32c.h"
#include "host/checkpoint/table_builder.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;
using testing_util::ReadFileBytes;
using testing_util::TestDir;
using testing_util::WriteFileBytes;

// Writes "<prefix>.index" from `header` and serialized `entries`, and `data` as shard 0.
void WriteRawBundle(const std::string& prefix, const tensorflow::BundleHeaderProto& header,
                    const std::map<std::string, std::string>& entries, const std::string& data) {
  TableBuilder table;
  table.Add("", header.SerializeAsString());
  for (const auto& [key, value] : entries) table.Add(key, value);
  WriteFileBytes(MetaFilename(prefix), table.Finish());
  WriteFileBytes(DataFilename(prefix, 0, header.num_shards()), data);
}

tensorflow::BundleEntryProto Entry(int dtype, std::initializer_list<int64_t> dims, int64_t offset,
                                   const std::string& bytes) {
  tensorflow::BundleEntryProto entry;
  entry.set_dtype(static_cast<tensorflow::DataType>(dtype));
  ShapeToProto(TensorShape(dims), entry.mutable_shape());
  entry.set_offset(offset);
  entry.set_size(static_cast<int64_t>(bytes.size()));
  entry.set_crc32c(crc32c::Mask(crc32c::Value(bytes.data(), bytes.size())));
  return entry;
}

std::string FloatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

void ExpectError(const absl::Status& status, absl::StatusCode code,
                 std::initializer_list<std::string> substrings) {
  EXPECT_EQ(status.code(), code) << status;
  for (const std::string& s : substrings) EXPECT_THAT(status.message(), HasSubstr(s)) << status;
}

// A good checkpoint with x = float[10] and y = int32[5].
std::string WriteGood(const std::string& dir) {
  const std::string prefix = dir + "/good";
  auto writer = BundleWriter::Create(prefix);
  EXPECT_TRUE(writer.ok());
  EXPECT_TRUE((*writer)->Add("x", testing_util::RandomTensor(TSR_DTYPE_FLOAT, {10}, 1)).ok());
  EXPECT_TRUE((*writer)->Add("y", testing_util::RandomTensor(TSR_DTYPE_INT32, {5}, 2)).ok());
  EXPECT_TRUE((*writer)->Finish().ok());
  return prefix;
}

TEST(BundleErrorsTest, MissingFilesAndKeysAreNotFound) {
  const std::string dir = TestDir();
  absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(dir + "/nothing");
  ExpectError(reader.status(), absl::StatusCode::kNotFound,
              {"cannot open checkpoint '" + dir + "/nothing'", dir + "/nothing.index"});

  const std::string prefix = WriteGood(dir);
  reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  ExpectError((*reader)->Lookup("z").status(), absl::StatusCode::kNotFound,
              {"Key z not found in checkpoint '" + prefix + "'"});
  DataType dtype;
  TensorShape shape;
  ExpectError((*reader)->LookupDtypeAndShape("z", &dtype, &shape), absl::StatusCode::kNotFound,
              {"Key z not found"});

  std::filesystem::remove(DataFilename(prefix, 0, 1));
  reader = BundleReader::Open(prefix);  // the index alone opens
  ASSERT_TRUE(reader.ok());
  ExpectError((*reader)->Lookup("x").status(), absl::StatusCode::kNotFound,
              {"data file 0 of checkpoint", "good.data-00000-of-00001"});
}

TEST(BundleErrorsTest, TruncatedDataFileIsDataLossNamingFileAndKey) {
  const std::string prefix = WriteGood(TestDir());
  const std::string data_path = DataFilename(prefix, 0, 1);
  const std::string data = ReadFileBytes(data_path);
  ASSERT_EQ(data.size(), 60u);
  for (size_t size = 0; size < data.size(); ++size) {
    WriteFileBytes(data_path, data.substr(0, size));
    auto reader = BundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok());
    absl::StatusOr<Tensor> x = (*reader)->Lookup("x");
    if (size < 40) {
      ExpectError(x.status(), absl::StatusCode::kDataLoss,
                  {"tensor 'x' lies at bytes [0, 40)", data_path, "truncated"});
    } else {
      EXPECT_TRUE(x.ok());
    }
    ExpectError((*reader)->Lookup("y").status(), absl::StatusCode::kDataLoss,
                {"tensor 'y' lies at bytes [40, 60)", data_path});
  }
}

TEST(BundleErrorsTest, EveryFlippedDataByteIsAChecksumMismatch) {
  const std::string prefix = WriteGood(TestDir());
  const std::string data_path = DataFilename(prefix, 0, 1);
  const std::string data = ReadFileBytes(data_path);
  for (size_t i = 0; i < data.size(); ++i) {
    std::string corrupt = data;
    corrupt[i] ^= 0x01;
    WriteFileBytes(data_path, corrupt);
    auto reader = BundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok());
    const char* key = i < 40 ? "x" : "y";
    ExpectError((*reader)->Lookup(key).status(), absl::StatusCode::kDataLoss,
                {std::string("checksum mismatch for tensor '") + key + "'", data_path});
    EXPECT_TRUE((*reader)->Lookup(i < 40 ? "y" : "x").ok());
  }
}

TEST(BundleErrorsTest, TruncatedOrFlippedIndexIsDataLoss) {
  const std::string prefix = WriteGood(TestDir());
  const std::string index_path = MetaFilename(prefix);
  const std::string index = ReadFileBytes(index_path);
  for (size_t size = 0; size < index.size(); ++size) {
    WriteFileBytes(index_path, index.substr(0, size));
    ExpectError(BundleReader::Open(prefix).status(), absl::StatusCode::kDataLoss, {index_path});
  }
  for (size_t i = 0; i < index.size(); ++i) {
    std::string corrupt = index;
    corrupt[i] ^= 0x20;
    WriteFileBytes(index_path, corrupt);
    auto reader = BundleReader::Open(prefix);
    if (reader.ok()) {
      EXPECT_GE(i, index.size() - kTableFooterSize) << "only footer padding may change";
      EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"x", "y"}));
    } else {
      ExpectError(reader.status(), absl::StatusCode::kDataLoss, {index_path});
    }
  }
  std::string bad_magic = index;
  bad_magic[index.size() - 3] = 'X';
  WriteFileBytes(index_path, bad_magic);
  ExpectError(BundleReader::Open(prefix).status(), absl::StatusCode::kDataLoss,
              {"is not a checkpoint index: bad magic number"});
}

TEST(BundleErrorsTest, BadHeadersAreReported) {
  const std::string prefix = TestDir() + "/ckpt";
  const std::string index_path = MetaFilename(prefix);

  TableBuilder no_header;
  no_header.Add("a", "");
  WriteFileBytes(index_path, no_header.Finish());
  ExpectError(BundleReader::Open(prefix).status(), absl::StatusCode::kDataLoss,
              {index_path, "it has no header entry"});

  TableBuilder bad_proto;
  bad_proto.Add("", "\xff\xff\xff");
  WriteFileBytes(index_path, bad_proto.Finish());
  ExpectError(BundleReader::Open(prefix).status(), absl::StatusCode::kDataLoss,
              {"its header is not a BundleHeaderProto"});

  struct Case {
    std::function<void(tensorflow::BundleHeaderProto*)> edit;
    absl::StatusCode code;
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](auto* h) { h->set_num_shards(0); }, absl::StatusCode::kDataLoss,
       "header has 0 data shards"},
      {[](auto* h) { h->set_endianness(static_cast<tensorflow::BundleHeaderProto_Endianness>(7)); },
       absl::StatusCode::kDataLoss, "unknown byte order 7"},
      {[](auto* h) { h->mutable_version()->set_min_consumer(2); },
       absl::StatusCode::kFailedPrecondition, "needs a reader of version 2 or newer"},
      {[](auto* h) { h->mutable_version()->add_bad_consumers(1); },
       absl::StatusCode::kFailedPrecondition, "disallows reader version 1"},
      {[](auto* h) { h->mutable_version()->set_producer(-1); },
       absl::StatusCode::kFailedPrecondition, "has producer version -1"},
  };
  for (const Case& c : cases) {
    tensorflow::BundleHeaderProto header = MakeHeader(1);
    c.edit(&header);
    WriteRawBundle(prefix, header, {}, "");
    ExpectError(BundleReader::Open(prefix).status(), c.code, {c.message});
  }
}

TEST(BundleErrorsTest, BadEntriesAreReportedWithoutHugeAllocations) {
  const std::string prefix = TestDir() + "/ckpt";
  const std::string data = FloatBytes({1, 2, 3});
  std::map<std::string, std::string> entries;
  entries["good"] = Entry(TSR_DTYPE_FLOAT, {3}, 0, data).SerializeAsString();
  entries["garbage"] = "\xff\xff\xff\xff";
  tensorflow::BundleEntryProto e = Entry(TSR_DTYPE_FLOAT, {3}, 0, data);
  e.mutable_shape()->mutable_dim(0)->set_size(-1);
  entries["negative_dim"] = e.SerializeAsString();
  e = Entry(TSR_DTYPE_FLOAT, {3}, 0, data);
  e.mutable_shape()->set_unknown_rank(true);
  entries["unknown_rank"] = e.SerializeAsString();
  e = Entry(TSR_DTYPE_FLOAT, {3}, 0, data);
  e.set_size(8);
  entries["wrong_size"] = e.SerializeAsString();
  e = Entry(TSR_DTYPE_FLOAT, {3}, 0, data);
  e.set_shard_id(3);
  entries["bad_shard"] = e.SerializeAsString();
  e = Entry(TSR_DTYPE_FLOAT, {3}, 0, data);
  e.set_offset(-5);
  entries["negative_offset"] = e.SerializeAsString();
  // 4 TiB claimed: rejected against the data file's size before anything is allocated.
  e = Entry(TSR_DTYPE_FLOAT, {int64_t{1} << 40}, 0, "");
  e.set_size(int64_t{4} << 40);
  entries["huge"] = e.SerializeAsString();
  e = Entry(TSR_DTYPE_FLOAT, {int64_t{1} << 62, 4}, 0, "");
  e.set_size(0);
  entries["overflow"] = e.SerializeAsString();
  entries["names"] = Entry(TSR_DTYPE_STRING, {2}, 0, "").SerializeAsString();
  entries["float8"] = Entry(25, {3}, 0, data.substr(0, 3)).SerializeAsString();
  entries["unknown_dtype"] = Entry(999, {3}, 0, data).SerializeAsString();
  WriteRawBundle(prefix, MakeHeader(1), entries, data);

  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  BundleReader& r = **reader;
  EXPECT_TRUE(r.Lookup("good").ok());
  using C = absl::StatusCode;
  ExpectError(r.Lookup("garbage").status(), C::kDataLoss,
              {"the entry of tensor 'garbage' is not a BundleEntryProto"});
  ExpectError(r.Lookup("negative_dim").status(), C::kDataLoss,
              {"tensor 'negative_dim' has an invalid shape has dimension -1"});
  ExpectError(r.Lookup("unknown_rank").status(), C::kDataLoss, {"shape has unknown rank"});
  ExpectError(r.Lookup("wrong_size").status(), C::kDataLoss,
              {"tensor 'wrong_size' has 8 bytes stored but float [3] needs 12"});
  ExpectError(r.Lookup("bad_shard").status(), C::kDataLoss,
              {"tensor 'bad_shard' is in data shard 3 of 1"});
  ExpectError(r.Lookup("negative_offset").status(), C::kDataLoss,
              {"tensor 'negative_offset' has offset -5"});
  ExpectError(r.Lookup("huge").status(), C::kDataLoss,
              {"tensor 'huge' lies at bytes [0, 4398046511104)", "has 12 bytes"});
  ExpectError(r.Lookup("overflow").status(), C::kDataLoss, {"has more elements than int64 holds"});
  ExpectError(r.Lookup("names").status(), C::kDataLoss,
              {"string tensor 'names'", "0 stored bytes cannot hold the lengths of 2 strings"});
  ExpectError(r.Lookup("float8").status(), C::kUnimplemented,
              {"tensor 'float8' has dtype DT_FLOAT8_E4M3FN"});
  ExpectError(r.Lookup("unknown_dtype").status(), C::kUnimplemented, {"unknown dtype 999"});
  ExpectError(r.LookupShapeAndSlice("names", "2 0,1").status(), C::kUnimplemented,
              {"cannot read slice '0,1' of string tensor 'names'"});

  DataType dtype;
  TensorShape shape;
  ASSERT_TRUE(r.LookupDtypeAndShape("names", &dtype, &shape).ok());
  EXPECT_EQ(dtype, TSR_DTYPE_STRING);
  EXPECT_EQ(shape, TensorShape{2});
  ExpectError(r.LookupDtypeAndShape("float8", &dtype, &shape), C::kUnimplemented,
              {"tensor 'float8' has dtype DT_FLOAT8_E4M3FN, which Tessera has no DataType for"});
}

TEST(BundleErrorsTest, InconsistentSlicesAreDataLoss) {
  const std::string prefix = TestDir() + "/ckpt";
  const std::string data = FloatBytes({1, 2, 3, 4});
  std::map<std::string, std::string> entries;
  auto full_entry = [](std::initializer_list<TensorSlice> slices, int64_t size = 4) {
    tensorflow::BundleEntryProto entry;
    entry.set_dtype(tensorflow::DT_FLOAT);
    ShapeToProto(TensorShape{size}, entry.mutable_shape());
    for (const TensorSlice& slice : slices) slice.ToProto(entry.add_slices());
    return entry.SerializeAsString();
  };
  // Slice listed without an entry.
  entries["missing"] = full_entry({TensorSlice{{0, 4}}});
  // Two stored slices that overlap.
  entries["overlap"] = full_entry({TensorSlice{{0, 3}}, TensorSlice{{2, 2}}});
  entries[EncodeTensorNameSlice("overlap", TensorSlice{{0, 3}})] =
      Entry(TSR_DTYPE_FLOAT, {3}, 0, data.substr(0, 12)).SerializeAsString();
  // A slice entry whose shape is not the slice's.
  entries["misshapen"] = full_entry({TensorSlice{{0, 2}}, TensorSlice{{2, 2}}});
  entries[EncodeTensorNameSlice("misshapen", TensorSlice{{0, 2}})] =
      Entry(TSR_DTYPE_FLOAT, {4}, 0, data).SerializeAsString();
  // A stored slice outside the full shape.
  entries["outside"] = full_entry({TensorSlice{{3, 2}}});
  // Three slices of 8 bytes each in a 16-byte file: more than it can hold without overlap.
  entries["crowded"] =
      full_entry({TensorSlice{{0, 2}}, TensorSlice{{2, 2}}, TensorSlice{{4, 2}}}, 6);
  for (int i = 0; i < 3; ++i) {
    entries[EncodeTensorNameSlice("crowded", TensorSlice{{2 * i, 2}})] =
        Entry(TSR_DTYPE_FLOAT, {2}, 4 * i, data.substr(4 * i, 8)).SerializeAsString();
  }
  tensorflow::BundleEntryProto bad_slice;
  bad_slice.set_dtype(tensorflow::DT_FLOAT);
  ShapeToProto(TensorShape{4}, bad_slice.mutable_shape());
  bad_slice.add_slices()->add_extent()->set_start(2);  // start without a length
  entries["bad_slice_proto"] = bad_slice.SerializeAsString();
  WriteRawBundle(prefix, MakeHeader(1), entries, data);

  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  BundleReader& r = **reader;
  using C = absl::StatusCode;
  ExpectError(r.Lookup("missing").status(), C::kDataLoss,
              {"tensor 'missing (slice 0,4)' is listed but has no entry"});
  ExpectError(r.Lookup("overlap").status(), C::kDataLoss,
              {"tensor 'overlap' has overlapping stored slices '0,3' and '2,2'"});
  ExpectError(r.Lookup("misshapen").status(), C::kDataLoss,
              {"tensor 'misshapen (slice 0,2)' is stored as float [4], expected float [2]"});
  ExpectError(r.Lookup("outside").status(), C::kDataLoss,
              {"tensor 'outside' has a stored slice '3,2' does not fit"});
  ExpectError(r.Lookup("crowded").status(), C::kDataLoss,
              {"the slices of tensor 'crowded'", "need more than its 16 bytes"});
  ExpectError(r.Lookup("bad_slice_proto").status(), C::kDataLoss,
              {"tensor 'bad_slice_proto' has a bad tensor slice extent"});
  ExpectError(r.LookupTensorSlices("bad_slice_proto").status(), C::kDataLoss,
              {"bad tensor slice extent"});
  // Keys still lists every tensor, not the slice entries.
  EXPECT_EQ(r.Keys(), (std::vector<std::string>{"bad_slice_proto", "crowded", "misshapen",
                                                "missing", "outside", "overlap"}));
}

TEST(BundleErrorsTest, ReadsBigEndianBundlesBySwappingBytes) {
  const std::string prefix = TestDir() + "/big_endian";
  // float 1.5 and int16 0x0102, complex64 (1, 2), stored big-endian.
  const std::string f = std::string("\x3f\xc0\x00\x00", 4);
  const std::string s = std::string("\x01\x02", 2);
  const std::string c = std::string("\x3f\x80\x00\x00\x40\x00\x00\x00", 8);
  tensorflow::BundleHeaderProto header = MakeHeader(1);
  header.set_endianness(tensorflow::BundleHeaderProto::BIG);
  WriteRawBundle(prefix, header,
                 {{"f", Entry(TSR_DTYPE_FLOAT, {}, 0, f).SerializeAsString()},
                  {"s", Entry(TSR_DTYPE_INT16, {}, 4, s).SerializeAsString()},
                  {"c", Entry(TSR_DTYPE_COMPLEX64, {}, 6, c).SerializeAsString()}},
                 f + s + c);
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<Tensor> t = (*reader)->Lookup("f");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->data<float>(), 1.5f);
  t = (*reader)->Lookup("s");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->data<int16_t>(), 0x0102);
  t = (*reader)->Lookup("c");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<float>()[0], 1.0f);
  EXPECT_EQ(t->data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
