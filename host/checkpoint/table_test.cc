// Tests of the sorted-table writer and reader: layout, round trips, and corrupt input.
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/checkpoint/coding.h"
#include "host/checkpoint/crc32c.h"
#include "host/checkpoint/table_builder.h"
#include "host/checkpoint/table_reader.h"

namespace tessera {
namespace checkpoint {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<TableEntries> Read(const std::string& bytes) {
  std::unique_ptr<RandomAccessFile> file = NewMemoryFile("test.index", bytes);
  return ReadTable(*file);
}

TableEntries MakeEntries(int n) {
  TableEntries entries;
  for (int i = 0; i < n; ++i) {
    entries.emplace_back(absl::StrFormat("model/layer_%05d/kernel", i),
                         std::string(static_cast<size_t>(i % 50), static_cast<char>('a' + i % 26)));
  }
  return entries;
}

std::string Build(const TableEntries& entries, TableOptions options = TableOptions()) {
  TableBuilder builder(options);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  return builder.Finish();
}

TEST(TableTest, EmptyTableMatchesLevelDbsLayout) {
  // Two empty blocks (a lone restart offset 0 and the count 1, then type 0 and the masked CRC32C)
  // and the footer: handles {0, 8} and {13, 8}, zero padding, magic 0xdb4775248b80fb57.
  const std::string expected = absl::HexStringToBytes(
      "000000000100000000c0f2a1b0000000000100000000c0f2a1b000080d0800000000000000000000"
      "000000000000000000000000000000000000000000000000000057fb808b247547db");
  EXPECT_EQ(TableBuilder().Finish(), expected);
  absl::StatusOr<TableEntries> entries = Read(expected);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_TRUE(entries->empty());
}

TEST(TableTest, OneBlockLayoutIsPrefixCompressed) {
  const std::string table = Build({{"abc", "1"}, {"abd", "22"}});
  // Entry 1: shared 0, 3 new key bytes, 1 value byte; entry 2 shares "ab".
  EXPECT_EQ(table.substr(0, 13), absl::HexStringToBytes("000301616263"
                                                        "31"
                                                        "020102"
                                                        "64"
                                                        "3232"));
  EXPECT_EQ(DecodeFixed32(table.data() + 13), 0u);  // restart offset
  EXPECT_EQ(DecodeFixed32(table.data() + 17), 1u);  // restart count
  EXPECT_EQ(table[21], kNoCompression);
  EXPECT_EQ(DecodeFixed32(table.data() + 22), crc32c::Mask(crc32c::Value(table.data(), 22)));
  EXPECT_EQ(DecodeFixed64(table.data() + table.size() - 8), kTableMagicNumber);
}

TEST(TableTest, RoundTripsManyBlocks) {
  const TableEntries entries = MakeEntries(3000);
  TableOptions options;
  options.block_size = 1024;  // many data blocks, a long index
  const std::string table = Build(entries, options);
  absl::StatusOr<TableEntries> read = Read(table);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, entries);
  // With TensorFlow's default 256 KiB blocks, too.
  read = Read(Build(entries));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, entries);
}

TEST(TableTest, LargeEntryGetsABlockOfItsOwn) {
  TableOptions options;
  options.block_size = 100;
  const TableEntries entries = {{"a", "x"}, {"b", std::string(300, 'y')}, {"c", "z"}};
  const std::string table = Build(entries, options);
  // TensorFlow's rule (LevelDB's builder lacks it): an entry of twice the block size or more
  // starts a new block, so the first block holds "a" alone: the entry (5 bytes), one restart
  // offset and the count, then its trailer.
  EXPECT_EQ(table.substr(0, 5), absl::HexStringToBytes("000101"
                                                       "6178"));
  EXPECT_EQ(DecodeFixed32(table.data() + 5), 0u);
  EXPECT_EQ(DecodeFixed32(table.data() + 9), 1u);
  EXPECT_EQ(table[13], kNoCompression);
  EXPECT_EQ(DecodeFixed32(table.data() + 14), crc32c::Mask(crc32c::Value(table.data(), 14)));
  absl::StatusOr<TableEntries> read = Read(table);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, entries);
}

TEST(TableTest, EveryTruncationIsDataLoss) {
  TableOptions options;
  options.block_size = 256;
  const std::string table = Build(MakeEntries(60), options);
  for (size_t size = 0; size < table.size(); ++size) {
    absl::StatusOr<TableEntries> read = Read(table.substr(0, size));
    ASSERT_FALSE(read.ok()) << size;
    EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << size;
    EXPECT_THAT(read.status().message(), HasSubstr("test.index")) << size;
  }
}

TEST(TableTest, EveryFlippedByteIsCaughtOrHarmless) {
  TableOptions options;
  options.block_size = 256;
  const TableEntries entries = MakeEntries(40);
  const std::string table = Build(entries, options);
  for (size_t i = 0; i < table.size(); ++i) {
    std::string corrupt = table;
    corrupt[i] ^= 0x5a;
    absl::StatusOr<TableEntries> read = Read(corrupt);
    if (read.ok()) {
      // Only the footer's padding is read by nothing.
      EXPECT_GE(i, table.size() - kTableFooterSize) << i;
      EXPECT_EQ(*read, entries) << i;
    } else {
      EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << i;
    }
  }
}

TEST(TableTest, ReportsWhatIsWrong) {
  const std::string table = Build(MakeEntries(5));
  std::string bad_magic = table;
  bad_magic[bad_magic.size() - 1] ^= 1;
  absl::StatusOr<TableEntries> read = Read(bad_magic);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("'test.index' is not a checkpoint index: bad "
                                                 "magic number"));

  std::string bad_crc = table;
  bad_crc[3] ^= 1;
  read = Read(bad_crc);
  EXPECT_THAT(read.status().message(), HasSubstr("checksum mismatch in data block 0"));

  read = Read("short");
  EXPECT_THAT(read.status().message(), HasSubstr("it has 5 bytes, fewer than the 48"));
}

// Appends `contents` with its trailer (type and masked CRC32C) to `out`; returns its offset.
uint64_t AppendBlock(std::string* out, const std::string& contents, char type) {
  const uint64_t offset = out->size();
  std::string block = contents;
  block.push_back(type);
  PutFixed32(&block, crc32c::Mask(crc32c::Value(block.data(), block.size())));
  *out += block;
  return offset;
}

std::string Footer(uint64_t meta_offset, uint64_t meta_size, uint64_t index_offset,
                   uint64_t index_size) {
  std::string footer;
  PutVarint64(&footer, meta_offset);
  PutVarint64(&footer, meta_size);
  PutVarint64(&footer, index_offset);
  PutVarint64(&footer, index_size);
  footer.resize(40, '\0');
  PutFixed64(&footer, kTableMagicNumber);
  return footer;
}

std::string Entry(int shared, int non_shared, absl::string_view key, absl::string_view value);
std::string Restarts(std::string block, int count);

// A table whose only data block is `block` (stored with block type `type`).
std::string WithFirstBlock(const std::string& block, char type) {
  std::string out;
  AppendBlock(&out, block, type);
  const uint64_t meta_offset = AppendBlock(&out, Restarts("", 1), kNoCompression);
  std::string handle;
  PutVarint64(&handle, 0);
  PutVarint64(&handle, block.size());
  const std::string index = Restarts(Entry(0, 1, "z", handle), 1);
  const uint64_t index_offset = AppendBlock(&out, index, kNoCompression);
  return out + Footer(meta_offset, 8, index_offset, index.size());
}

std::string Entry(int shared, int non_shared, absl::string_view key, absl::string_view value) {
  std::string out;
  PutVarint32(&out, shared);
  PutVarint32(&out, non_shared);
  PutVarint32(&out, value.size());
  return out + std::string(key) + std::string(value);
}

std::string Restarts(std::string block, int count) {
  for (int i = 0; i < count; ++i) PutFixed32(&block, 0);
  PutFixed32(&block, count);
  return block;
}

TEST(TableTest, RejectsMalformedBlocks) {
  struct Case {
    std::string block;
    char type;
    absl::StatusCode code;
    const char* message;
  };
  const std::vector<Case> cases = {
      {Restarts(Entry(0, 1, "a", "v"), 1), kSnappyCompression, absl::StatusCode::kUnimplemented,
       "snappy-compressed data block 0"},
      {Restarts(Entry(0, 1, "a", "v"), 1), 7, absl::StatusCode::kDataLoss, "unknown block type 7"},
      {"ab", kNoCompression, absl::StatusCode::kDataLoss, "shorter than 4 bytes"},
      {Restarts("", 5).substr(4), kNoCompression, absl::StatusCode::kDataLoss,
       "claims 5 restart points"},
      {Restarts(Entry(2, 1, "a", "v"), 1), kNoCompression, absl::StatusCode::kDataLoss,
       "bad entry in data block 0 (2 shared"},
      {Restarts(Entry(0, 9, "a", "v"), 1), kNoCompression, absl::StatusCode::kDataLoss,
       "bad entry in data block 0"},
      {Restarts(Entry(0, 1, "b", "") + Entry(0, 1, "a", ""), 1), kNoCompression,
       absl::StatusCode::kDataLoss, "keys out of order in data block 0"},
      {Restarts(Entry(0, 1, "a", "") + Entry(1, 0, "", ""), 1), kNoCompression,
       absl::StatusCode::kDataLoss, "keys out of order"},
      {Restarts("\xff\xff\xff\xff\xff\xff", 1), kNoCompression, absl::StatusCode::kDataLoss,
       "bad entry header in data block 0"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TableEntries> read = Read(WithFirstBlock(c.block, c.type));
    ASSERT_FALSE(read.ok()) << c.message;
    EXPECT_EQ(read.status().code(), c.code) << read.status();
    EXPECT_THAT(read.status().message(), HasSubstr(c.message));
  }
  // An index entry whose value is not a block handle.
  std::string out;
  const uint64_t meta_offset = AppendBlock(&out, Restarts("", 1), kNoCompression);
  const std::string index = Restarts(Entry(0, 1, "z", "\xff"), 1);
  const uint64_t index_offset = AppendBlock(&out, index, kNoCompression);
  absl::StatusOr<TableEntries> bad_handle =
      Read(out + Footer(meta_offset, 8, index_offset, index.size()));
  EXPECT_EQ(bad_handle.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(bad_handle.status().message(), HasSubstr("bad block handle for data block 0"));
  // A well-formed hand-built block reads back.
  absl::StatusOr<TableEntries> read = Read(
      WithFirstBlock(Restarts(Entry(0, 2, "ab", "1") + Entry(1, 1, "c", "2"), 1), kNoCompression));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (TableEntries{{"ab", "1"}, {"ac", "2"}}));
}

TEST(TableTest, BoundsWhatPrefixCompressionCanExpand) {
  // One long key shared by thousands of entries: a few bytes each on disk, 10 KB each decoded.
  TableEntries entries;
  const std::string stem(10000, 'k');
  for (int i = 0; i < 3000; ++i) entries.emplace_back(stem + absl::StrFormat("%05d", i), "");
  TableOptions options;
  options.block_restart_interval = 1 << 30;
  options.block_size = 1 << 30;
  absl::StatusOr<TableEntries> read = Read(Build(entries, options));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("entries decode to more than"));
}

TEST(TableTest, RejectsBlocksOutsideTheFileOrReadTwice) {
  const std::string table = Build(MakeEntries(3));
  // Point the index handle far past the end.
  const std::string footer = Footer(1u << 30, 100, 1u << 30, 100);
  std::string bad = table.substr(0, table.size() - kTableFooterSize) + footer;
  absl::StatusOr<TableEntries> read = Read(bad);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("metaindex block at offset 1073741824"));
  EXPECT_THAT(read.status().message(), HasSubstr("lies outside the file"));

  // An index naming the same (empty) data block many times.
  const std::string block = Restarts("", 1);
  std::string out;
  AppendBlock(&out, block, kNoCompression);
  const uint64_t meta_offset = AppendBlock(&out, block, kNoCompression);
  std::string index;
  for (int i = 0; i < 20; ++i) {
    std::string handle;
    PutVarint64(&handle, 0);
    PutVarint64(&handle, block.size());
    index += Entry(0, 2, absl::StrFormat("%02d", i), handle);
  }
  index = Restarts(index, 1);
  const uint64_t index_offset = AppendBlock(&out, index, kNoCompression);
  const std::string footer2 = Footer(meta_offset, block.size(), index_offset, index.size());
  read = Read(out + footer2);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("overlaps blocks read before it"));
}

}  // namespace
}  // namespace checkpoint
}  // namespace tessera
