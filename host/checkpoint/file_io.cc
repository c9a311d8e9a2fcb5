// Local and in-memory files for the checkpoint reader and writer (POSIX).
#include "host/checkpoint/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace checkpoint {
namespace {

constexpr size_t kWriteBufferBytes = size_t{8} << 20;

absl::Status ErrnoStatus(int error, absl::string_view what, absl::string_view path) {
  const std::string message = absl::StrCat(what, " '", path, "': ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

class LocalFile final : public RandomAccessFile {
 public:
  LocalFile(std::string name, uint64_t size, int fd)
      : RandomAccessFile(std::move(name), size), fd_(fd) {}
  ~LocalFile() override { ::close(fd_); }

  absl::Status Read(uint64_t offset, size_t n, char* dst) const override {
    if (absl::Status range = CheckRange(offset, n); !range.ok()) return range;
    while (n > 0) {
      const ssize_t got = ::pread(fd_, dst, n, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(errno, "cannot read", name());
      }
      if (got == 0) {
        return absl::DataLossError(
            absl::StrCat("file '", name(), "' ended at offset ", offset, " while reading"));
      }
      dst += got;
      n -= static_cast<size_t>(got);
      offset += static_cast<uint64_t>(got);
    }
    return absl::OkStatus();
  }

 private:
  int fd_;
};

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string name, std::string contents)
      : RandomAccessFile(std::move(name), contents.size()), contents_(std::move(contents)) {}

  absl::Status Read(uint64_t offset, size_t n, char* dst) const override {
    if (absl::Status range = CheckRange(offset, n); !range.ok()) return range;
    if (n > 0) std::memcpy(dst, contents_.data() + offset, n);
    return absl::OkStatus();
  }

 private:
  std::string contents_;
};

}  // namespace

absl::Status RandomAccessFile::CheckRange(uint64_t offset, size_t n) const {
  if (offset > size_ || n > size_ - offset) {
    return absl::DataLossError(absl::StrCat("read of bytes [", offset, ", ", offset + n,
                                            ") is past the end of '", name_, "' (", size_,
                                            " bytes)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "cannot stat", path);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat("'", path, "' is not a regular file"));
  }
  return std::unique_ptr<RandomAccessFile>(
      new LocalFile(path, static_cast<uint64_t>(info.st_size), fd));
}

std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string contents) {
  return std::make_unique<MemoryFile>(std::move(name), std::move(contents));
}

absl::StatusOr<std::unique_ptr<WritableFile>> WritableFile::Create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
  return std::unique_ptr<WritableFile>(new WritableFile(path, fd));
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status WritableFile::Append(absl::string_view data) {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat("'", path_, "' is closed"));
  if (buffer_.size() + data.size() > kWriteBufferBytes) {
    if (absl::Status flushed = Flush(); !flushed.ok()) return flushed;
  }
  // Large appends go straight to the file.
  if (data.size() >= kWriteBufferBytes) return WriteAll(data.data(), data.size());
  buffer_.append(data.data(), data.size());
  return absl::OkStatus();
}

absl::Status WritableFile::Flush() {
  absl::Status status = WriteAll(buffer_.data(), buffer_.size());
  buffer_.clear();
  return status;
}

absl::Status WritableFile::WriteAll(const char* p, size_t n) {
  while (n > 0) {
    const ssize_t wrote = ::write(fd_, p, n);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", path_);
    }
    p += wrote;
    n -= static_cast<size_t>(wrote);
  }
  return absl::OkStatus();
}

absl::Status WritableFile::Close() {
  if (fd_ < 0) return absl::OkStatus();
  absl::Status status = Flush();
  if (::close(fd_) != 0 && status.ok()) status = ErrnoStatus(errno, "cannot close", path_);
  fd_ = -1;
  return status;
}

absl::Status RenameFile(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot rename to '", to, "' from"), from);
  }
  return absl::OkStatus();
}

absl::Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, "cannot remove", path);
  }
  return absl::OkStatus();
}

absl::Status CreateDirectories(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return ErrnoStatus(error.value(), "cannot create directory", path);
  return absl::OkStatus();
}

absl::Status RemoveEmptyDirectory(const std::string& path) {
  if (::rmdir(path.c_str()) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot remove directory '", path, "': it is not empty"));
    }
    return ErrnoStatus(errno, "cannot remove directory", path);
  }
  return absl::OkStatus();
}

bool FileExists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace checkpoint
}  // namespace tessera
