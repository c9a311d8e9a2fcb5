// The file access the checkpoint code needs: positional reads (from disk or from memory, so the
// fuzzer and tests can feed bytes directly), buffered appends, renames and removals.
#ifndef TESSERA_HOST_CHECKPOINT_FILE_IO_H_
#define TESSERA_HOST_CHECKPOINT_FILE_IO_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace checkpoint {

// A file of fixed size read at any offset. Thread-safe.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  // Reads exactly [offset, offset + n) into `dst`; DATA_LOSS naming the file when that range is
  // not inside it (a file that shrank while open), an errno-based status on an I/O error.
  virtual absl::Status Read(uint64_t offset, size_t n, char* dst) const = 0;

 protected:
  RandomAccessFile(std::string name, uint64_t size) : name_(std::move(name)), size_(size) {}
  absl::Status CheckRange(uint64_t offset, size_t n) const;

 private:
  std::string name_;
  uint64_t size_;
};

// Opens a file by path: NOT_FOUND when it does not exist.
using FileOpener =
    std::function<absl::StatusOr<std::unique_ptr<RandomAccessFile>>(const std::string& path)>;

// The local file system.
absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path);
// `contents` presented as a file called `name`.
std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string contents);

// A new local file written front to back through a buffer. Not thread-safe.
class WritableFile {
 public:
  // Creates or truncates `path`.
  static absl::StatusOr<std::unique_ptr<WritableFile>> Create(const std::string& path);
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  absl::Status Append(absl::string_view data);
  // Flushes and closes; later calls do nothing.
  absl::Status Close();
  const std::string& path() const { return path_; }

 private:
  WritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  absl::Status Flush();
  absl::Status WriteAll(const char* p, size_t n);

  std::string path_;
  int fd_;
  std::string buffer_;
};

absl::Status RenameFile(const std::string& from, const std::string& to);
// Removes `path`; a missing file is OK.
absl::Status RemoveFile(const std::string& path);
// Creates `path` and its missing parents; an existing directory is OK.
absl::Status CreateDirectories(const std::string& path);
// Removes `path` if it is an empty directory (TensorFlow's Env::DeleteDir): NOT_FOUND when it does
// not exist, FAILED_PRECONDITION when it is not empty.
absl::Status RemoveEmptyDirectory(const std::string& path);
// True when `path` exists (any kind of file).
bool FileExists(const std::string& path);
// The part of `path` before its last '/', "" when there is none.
std::string Dirname(const std::string& path);

}  // namespace checkpoint
}  // namespace tessera

#endif  // TESSERA_HOST_CHECKPOINT_FILE_IO_H_
