// MergeBundles: read every input index, renumber data shards, move files, write one index.
#include "host/checkpoint/bundle_merge.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/checkpoint/bundle_format.h"
#include "host/checkpoint/file_io.h"
#include "host/checkpoint/table_builder.h"
#include "host/checkpoint/table_reader.h"

namespace tessera {
namespace checkpoint {
namespace {

struct MergeState {
  bool seen_first = false;
  tensorflow::BundleHeaderProto first_header;
  std::map<std::string, tensorflow::BundleEntryProto> entries;
  // Input data file -> shard number in the merged bundle, in order of first use.
  std::map<std::string, int> shard_ids;
  std::vector<std::string> shard_order;
};

absl::Status MergeOne(const std::string& prefix, MergeState* state) {
  const std::string index_name = MetaFilename(prefix);
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, OpenLocalFile(index_name));
  ASSIGN_OR_RETURN(TableEntries table, ReadTable(*file));
  if (table.empty() || !table.front().first.empty()) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index '", index_name, "' is corrupt: it has no header entry"));
  }
  tensorflow::BundleHeaderProto header;
  if (!header.ParseFromString(table.front().second)) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", index_name,
                                            "' is corrupt: its header is not a BundleHeaderProto"));
  }
  RETURN_IF_ERROR(CheckHeader(header, index_name));
  if (!state->seen_first) {
    state->seen_first = true;
    state->first_header = header;
  } else if (header.endianness() != state->first_header.endianness()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot merge checkpoint '", prefix, "': its byte order differs from the first input's"));
  } else if (header.version().SerializeAsString() !=
             state->first_header.version().SerializeAsString()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot merge checkpoint '", prefix, "': its format version (producer ",
                     header.version().producer(), ") differs from the first input's (producer ",
                     state->first_header.version().producer(), ")"));
  }

  for (size_t i = 1; i < table.size(); ++i) {
    const std::string& key = table[i].first;
    tensorflow::BundleEntryProto entry;
    if (!entry.ParseFromString(table[i].second)) {
      return absl::DataLossError(absl::StrCat("checkpoint index '", index_name,
                                              "' is corrupt: the entry of tensor '", key,
                                              "' is not a BundleEntryProto"));
    }
    auto existing = state->entries.find(key);
    if (existing != state->entries.end()) {
      tensorflow::BundleEntryProto& merged = existing->second;
      if (merged.slices_size() == 0 || entry.slices_size() == 0) {
        return absl::InvalidArgumentError(absl::StrCat("tensor '", key, "' of checkpoint '", prefix,
                                                       "' is also in an earlier input"));
      }
      if (merged.dtype() != entry.dtype() ||
          merged.shape().SerializeAsString() != entry.shape().SerializeAsString()) {
        return absl::InvalidArgumentError(
            absl::StrCat("slices of tensor '", key, "' in checkpoint '", prefix,
                         "' disagree with earlier inputs about its dtype or shape"));
      }
      for (const tensorflow::TensorSliceProto& slice : entry.slices()) {
        *merged.add_slices() = slice;
      }
      continue;
    }
    if (entry.slices_size() == 0) {
      if (entry.shard_id() < 0 || entry.shard_id() >= header.num_shards()) {
        return absl::DataLossError(absl::StrCat("checkpoint index '", index_name,
                                                "' is corrupt: tensor '", key, "' is in shard ",
                                                entry.shard_id(), " of ", header.num_shards()));
      }
      const std::string data_file = DataFilename(prefix, entry.shard_id(), header.num_shards());
      auto [it, inserted] =
          state->shard_ids.emplace(data_file, static_cast<int>(state->shard_order.size()));
      if (inserted) state->shard_order.push_back(data_file);
      entry.set_shard_id(it->second);
    }
    state->entries.emplace(key, std::move(entry));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MergeBundles(const std::vector<std::string>& all_prefixes,
                          const std::string& merged_prefix, bool allow_missing_files) {
  if (all_prefixes.empty()) return absl::InvalidArgumentError("no checkpoints to merge");
  std::vector<std::string> prefixes;
  for (const std::string& prefix : all_prefixes) {
    if (!allow_missing_files || FileExists(MetaFilename(prefix))) prefixes.push_back(prefix);
  }
  if (prefixes.empty()) {
    return absl::NotFoundError(absl::StrCat("none of the ", all_prefixes.size(),
                                            " checkpoints to merge into '", merged_prefix,
                                            "' exists (first: '", all_prefixes.front(), "')"));
  }
  MergeState state;
  for (const std::string& prefix : prefixes) {
    RETURN_IF_ERROR(WithContext(MergeOne(prefix, &state),
                                absl::StrCat("while merging into '", merged_prefix, "'")));
  }
  RETURN_IF_ERROR(CreateDirectories(Dirname(merged_prefix)));
  const int num_shards = std::max<int>(1, static_cast<int>(state.shard_order.size()));
  for (size_t i = 0; i < state.shard_order.size(); ++i) {
    RETURN_IF_ERROR(RenameFile(state.shard_order[i],
                               DataFilename(merged_prefix, static_cast<int>(i), num_shards)));
  }
  tensorflow::BundleHeaderProto header = state.first_header;
  header.set_num_shards(num_shards);
  TableBuilder table;
  table.Add(kHeaderEntryKey, header.SerializeAsString());
  for (const auto& [key, entry] : state.entries) table.Add(key, entry.SerializeAsString());
  const std::string index_name = MetaFilename(merged_prefix);
  const std::string temp = index_name + ".tempstate";
  {
    ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> out, WritableFile::Create(temp));
    absl::Status status = out->Append(table.Finish());
    absl::Status closed = out->Close();
    if (status.ok()) status = closed;
    if (status.ok()) status = RenameFile(temp, index_name);
    if (!status.ok()) {
      RemoveFile(temp).IgnoreError();
      return status;
    }
  }
  for (const std::string& prefix : prefixes) {
    if (prefix != merged_prefix) RemoveFile(MetaFilename(prefix)).IgnoreError();
  }
  return absl::OkStatus();
}

}  // namespace checkpoint
}  // namespace tessera
