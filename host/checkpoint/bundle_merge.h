// MergeBundles: joins checkpoints written separately (one per device or task) into one, as
// TensorFlow's MergeV2Checkpoints does for sharded saves.
#ifndef TESSERA_HOST_CHECKPOINT_BUNDLE_MERGE_H_
#define TESSERA_HOST_CHECKPOINT_BUNDLE_MERGE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {
namespace checkpoint {

// Moves the data files of every bundle in `prefixes` to "<merged_prefix>.data-<i>-of-<n>"
// (renames, no copies), writes "<merged_prefix>.index" holding all their entries, then removes
// the inputs' index files. A tensor saved in slices by several inputs gets one entry listing all
// its slices. Every input index is read and checked before anything is moved.
//
// INVALID_ARGUMENT when no prefixes are given, a key other than a sliced tensor's appears in
// two inputs, a sliced tensor has different dtypes or shapes in two inputs, or the inputs differ
// in byte order or format version; the reader's errors (NOT_FOUND, DATA_LOSS, ...) for inputs.
// The merged header counts the data files actually moved (TensorFlow sums the inputs' counts,
// which is the same unless an input has a data file without tensors).
//
// With `allow_missing_files` (MergeV2Checkpoints' attr of that name), inputs whose index does not
// exist are skipped; NOT_FOUND when none exists.
absl::Status MergeBundles(const std::vector<std::string>& prefixes,
                          const std::string& merged_prefix, bool allow_missing_files = false);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_BUNDLE_MERGE_H_
