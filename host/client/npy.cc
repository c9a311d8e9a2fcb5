// .npy parsing and serialization: the header dict, element types, byte order and Fortran order.
#include "host/client/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace tessera {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy pads the preamble + header to a multiple of this.
constexpr size_t kHeaderAlignment = 64;
// The largest array this reader accepts, as a guard against absurd shapes (numpy's own limit is
// the address space): 2^40 elements.
constexpr int64_t kMaxElements = int64_t{1} << 40;

struct NumpyType {
  DataType dtype;
  char kind;  // numpy's kind letter: f, c, i, u, b
  int size;
  const char* name;
};

constexpr NumpyType kNumpyTypes[] = {
    {TSR_DTYPE_HALF, 'f', 2, "float16"},
    {TSR_DTYPE_FLOAT, 'f', 4, "float32"},
    {TSR_DTYPE_DOUBLE, 'f', 8, "float64"},
    {TSR_DTYPE_COMPLEX64, 'c', 8, "complex64"},
    {TSR_DTYPE_COMPLEX128, 'c', 16, "complex128"},
    {TSR_DTYPE_INT8, 'i', 1, "int8"},
    {TSR_DTYPE_INT16, 'i', 2, "int16"},
    {TSR_DTYPE_INT32, 'i', 4, "int32"},
    {TSR_DTYPE_INT64, 'i', 8, "int64"},
    {TSR_DTYPE_UINT8, 'u', 1, "uint8"},
    {TSR_DTYPE_UINT16, 'u', 2, "uint16"},
    {TSR_DTYPE_UINT32, 'u', 4, "uint32"},
    {TSR_DTYPE_UINT64, 'u', 8, "uint64"},
    {TSR_DTYPE_BOOL, 'b', 1, "bool"},
};

const NumpyType* FindByDtype(DataType dtype) {
  for (const NumpyType& t : kNumpyTypes) {
    if (t.dtype == dtype) return &t;
  }
  return nullptr;
}

bool HostIsLittleEndian() {
  const uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

absl::Status Invalid(absl::string_view source, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invalid .npy file '", source, "': ", what));
}

// A value of the header dict: numpy writes only strings, booleans and tuples of integers.
struct HeaderValue {
  enum Kind { kString, kBool, kTuple, kList } kind = kString;
  std::string text;
  bool boolean = false;
  std::vector<int64_t> tuple;
};

// A recursive-descent parser for the Python dict literal of a .npy header.
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  absl::Status ParseDict(std::vector<std::pair<std::string, HeaderValue>>* entries) {
    SkipSpace();
    if (!Consume('{')) return Error("expected '{' at the start of the header");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Consume(':')) return Error(absl::StrCat("expected ':' after key '", key, "'"));
      HeaderValue value;
      RETURN_IF_ERROR(ParseValue(&value));
      entries->emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('}')) break;
      return Error("expected ',' or '}' in the header dict");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the header dict");
    return absl::OkStatus();
  }

 private:
  absl::Status ParseValue(HeaderValue* value) {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("the header ends inside a value");
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      value->kind = HeaderValue::kString;
      return ParseString(&value->text);
    }
    if (c == '(') return ParseTuple(value);
    if (c == '[') {
      // Structured dtypes are lists of (name, type) tuples; skip to the matching bracket.
      value->kind = HeaderValue::kList;
      int depth = 0;
      for (; pos_ < text_.size(); ++pos_) {
        if (text_[pos_] == '[') ++depth;
        if (text_[pos_] == ']' && --depth == 0) {
          ++pos_;
          return absl::OkStatus();
        }
      }
      return Error("unterminated list in the header");
    }
    if (ConsumeWord("True")) {
      value->kind = HeaderValue::kBool;
      value->boolean = true;
      return absl::OkStatus();
    }
    if (ConsumeWord("False")) {
      value->kind = HeaderValue::kBool;
      value->boolean = false;
      return absl::OkStatus();
    }
    return Error(absl::StrCat("unexpected character '", std::string(1, c), "' in the header"));
  }

  absl::Status ParseString(std::string* out) {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string in the header");
    }
    char quote = text_[pos_++];
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return Error("escape sequences are not supported in the header");
      ++pos_;
    }
    if (pos_ >= text_.size()) return Error("unterminated string in the header");
    *out = std::string(text_.substr(start, pos_ - start));
    ++pos_;
    return absl::OkStatus();
  }

  absl::Status ParseTuple(HeaderValue* value) {
    value->kind = HeaderValue::kTuple;
    Consume('(');
    while (true) {
      SkipSpace();
      if (Consume(')')) return absl::OkStatus();
      int64_t n;
      RETURN_IF_ERROR(ParseInteger(&n));
      value->tuple.push_back(n);
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume(')')) return absl::OkStatus();
      return Error("expected ',' or ')' in the shape tuple");
    }
  }

  absl::Status ParseInteger(int64_t* out) {
    SkipSpace();
    bool negative = Consume('-');
    size_t start = pos_;
    uint64_t n = 0;
    while (pos_ < text_.size() && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) {
      uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (n > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
        return Error("a shape dimension is too large");
      }
      n = n * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected an integer in the shape tuple");
    Consume('L');  // Python 2 long literals, as old numpy wrote them.
    *out = negative ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
    return absl::OkStatus();
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(what, " (at offset ", pos_, ")"));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

struct Header {
  const NumpyType* type = nullptr;
  bool swap_bytes = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

absl::Status ParseDescr(absl::string_view descr, Header* header) {
  if (descr.size() >= 2 && descr[1] == 'O') {
    return absl::InvalidArgumentError(absl::StrCat("object arrays (descr '", descr,
                                                   "') are not supported; save plain numeric "
                                                   "arrays"));
  }
  if (descr.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported dtype descr '", descr, "'"));
  }
  char order = descr[0];
  char kind = descr[1];
  int size = 0;
  for (char c : descr.substr(2)) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) || size > 1000) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported dtype descr '", descr, "'"));
    }
    size = size * 10 + (c - '0');
  }
  for (const NumpyType& t : kNumpyTypes) {
    if (t.kind == kind && t.size == size) header->type = &t;
  }
  if (header->type == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported dtype descr '", descr,
        "'; expected one of f2 f4 f8 c8 c16 i1 i2 i4 i8 u1 u2 u4 u8 b1 with byte order < > = |"));
  }
  bool little = HostIsLittleEndian();
  switch (order) {
    case '<':
      header->swap_bytes = !little;
      break;
    case '>':
      header->swap_bytes = little;
      break;
    case '=':
      header->swap_bytes = false;
      break;
    case '|':
      if (size != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dtype descr '", descr, "' uses byte order '|', which is only valid for 1-byte types"));
      }
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype descr '", descr, "' has unknown byte order '", std::string(1, order),
                       "'; expected one of < > = |"));
  }
  return absl::OkStatus();
}

absl::Status ParseHeaderDict(absl::string_view text, Header* header) {
  std::vector<std::pair<std::string, HeaderValue>> entries;
  RETURN_IF_ERROR(HeaderParser(text).ParseDict(&entries));
  bool have_descr = false, have_order = false, have_shape = false;
  for (const auto& [key, value] : entries) {
    if (key == "descr") {
      if (value.kind == HeaderValue::kList) {
        return absl::InvalidArgumentError(
            "structured arrays (a list 'descr') are not supported; save plain numeric arrays");
      }
      if (value.kind != HeaderValue::kString) {
        return absl::InvalidArgumentError("header key 'descr' must be a string");
      }
      RETURN_IF_ERROR(ParseDescr(value.text, header));
      have_descr = true;
    } else if (key == "fortran_order") {
      if (value.kind != HeaderValue::kBool) {
        return absl::InvalidArgumentError("header key 'fortran_order' must be True or False");
      }
      header->fortran_order = value.boolean;
      have_order = true;
    } else if (key == "shape") {
      if (value.kind != HeaderValue::kTuple) {
        return absl::InvalidArgumentError("header key 'shape' must be a tuple of integers");
      }
      header->shape = value.tuple;
      have_shape = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected header key '", key, "'; expected 'descr', 'fortran_order' and 'shape'"));
    }
  }
  if (!have_descr || !have_order || !have_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("the header lacks key '",
                     !have_descr ? "descr" : (!have_order ? "fortran_order" : "shape"), "'"));
  }
  return absl::OkStatus();
}

void SwapElementBytes(char* data, int64_t count, int unit) {
  for (int64_t i = 0; i < count; ++i) {
    char* p = data + i * unit;
    for (int a = 0, b = unit - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

// Copies column-major `src` into row-major `dst` of the same shape.
void FortranToRowMajor(const char* src, char* dst, const std::vector<int64_t>& shape,
                       size_t element_size, int64_t count) {
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> fortran_stride(rank, 1);
  for (int d = 1; d < rank; ++d) fortran_stride[d] = fortran_stride[d - 1] * shape[d - 1];
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * fortran_stride[d];
    std::memcpy(dst + i * element_size, src + offset * element_size, element_size);
    for (int d = rank - 1; d >= 0; --d) {  // row-major increment of the index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

absl::StatusOr<Tensor> ParseNpyImpl(absl::string_view bytes) {
  if (bytes.size() < kMagicSize || bytes.substr(0, kMagicSize) != absl::string_view(kMagic)) {
    return absl::InvalidArgumentError("bad magic: the file does not start with \"\\x93NUMPY\"");
  }
  if (bytes.size() < kMagicSize + 2) {
    return absl::InvalidArgumentError("truncated header: the version bytes are missing");
  }
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported format version ", major, ".", minor,
                                                   "; expected 1.0, 2.0 or 3.0"));
  }
  size_t length_size = major == 1 ? 2 : 4;
  size_t preamble = kMagicSize + 2 + length_size;
  if (bytes.size() < preamble) {
    return absl::InvalidArgumentError("truncated header: the header length is missing");
  }
  uint64_t header_length = 0;
  for (size_t i = 0; i < length_size; ++i) {
    header_length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  }
  if (bytes.size() - preamble < header_length) {
    return absl::InvalidArgumentError(absl::StrCat("truncated header: expected ", header_length,
                                                   " header bytes, found ",
                                                   bytes.size() - preamble));
  }
  Header header;
  RETURN_IF_ERROR(ParseHeaderDict(bytes.substr(preamble, header_length), &header));

  TensorShape shape;
  int64_t count = 1;
  for (int64_t d : header.shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("negative dimension ", d, " in shape (",
                                                     absl::StrJoin(header.shape, ", "), ")"));
    }
    if (d != 0 && count > kMaxElements / d) {
      return absl::InvalidArgumentError(absl::StrCat("shape (", absl::StrJoin(header.shape, ", "),
                                                     ") has more than 2^40 elements"));
    }
    count *= d;
    shape.AddDim(d);
  }
  size_t element_size = static_cast<size_t>(header.type->size);
  uint64_t expected = static_cast<uint64_t>(count) * element_size;
  absl::string_view data = bytes.substr(preamble + header_length);
  if (data.size() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(data.size() < expected ? "truncated data" : "data size mismatch", ": shape ",
                     shape.DebugString(), " of ", header.type->name, " needs ", expected,
                     " bytes, found ", data.size()));
  }
  ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(HostAllocator(), header.type->dtype, shape));
  char* out = static_cast<char*>(tensor.data());
  if (count > 0) {
    if (header.fortran_order && shape.rank() > 1) {
      FortranToRowMajor(data.data(), out, header.shape, element_size, count);
    } else {
      std::memcpy(out, data.data(), expected);
    }
  }
  if (header.swap_bytes && element_size > 1) {
    bool complex = header.type->kind == 'c';
    int unit = complex ? header.type->size / 2 : header.type->size;
    SwapElementBytes(out, complex ? count * 2 : count, unit);
  }
  if (header.type->dtype == TSR_DTYPE_BOOL) {
    // A bool byte other than 0 or 1 is undefined behavior once read as bool; numpy treats any
    // nonzero byte as True.
    unsigned char* p = reinterpret_cast<unsigned char*>(out);
    for (int64_t i = 0; i < count; ++i) p[i] = p[i] != 0 ? 1 : 0;
  }
  return tensor;
}

absl::Status FileError(absl::string_view verb, const std::string& path, int error) {
  std::string message = absl::StrCat("cannot ", verb, " '", path, "': ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  if (error == EISDIR) return absl::InvalidArgumentError(message);
  return absl::UnknownError(message);
}

}  // namespace

std::string NumpyTypeName(DataType dtype) {
  const NumpyType* t = FindByDtype(dtype);
  return t == nullptr ? "" : t->name;
}

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source_name) {
  absl::StatusOr<Tensor> tensor = ParseNpyImpl(bytes);
  if (!tensor.ok()) return Invalid(source_name, tensor.status().message());
  return tensor;
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return FileError("open", path, errno);
  std::string bytes;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes.append(chunk, n);
  int read_error = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (read_error != 0) return FileError("read", path, read_error);
  return ParseNpy(bytes, path);
}

absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  const NumpyType* type = FindByDtype(tensor.dtype());
  if (type == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write a tensor of type ",
                                                   DataTypeString(tensor.dtype()),
                                                   " as .npy: numpy has no such type"));
  }
  if (!tensor.host_accessible()) {
    return absl::InvalidArgumentError(
        "cannot write a tensor in device memory as .npy; copy it "
        "to the host first");
  }
  std::string shape;
  for (int64_t d : tensor.shape().dims()) absl::StrAppend(&shape, d, ", ");
  if (tensor.shape().rank() > 1) shape.resize(shape.size() - 2);  // "(2, 3)" but "(5,)"
  if (tensor.shape().rank() == 1) shape.resize(shape.size() - 1);
  const char* order = type->size == 1 ? "|" : "<";
  std::string dict = absl::StrCat("{'descr': '", order, std::string(1, type->kind), type->size,
                                  "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad with spaces so that the preamble + header + '\n' is a multiple of 64 bytes.
  size_t preamble = kMagicSize + 2 + 2;
  int major = 1;
  size_t total =
      (preamble + dict.size() + 1 + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  if (total - preamble > 0xFFFF) {
    major = 2;
    preamble += 2;
    total =
        (preamble + dict.size() + 1 + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  }
  size_t header_length = total - preamble;
  dict.append(header_length - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::string out(kMagic, kMagicSize);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) {
    out.push_back(static_cast<char>((header_length >> (8 * i)) & 0xFF));
  }
  out.append(dict);
  size_t data_start = out.size();
  out.append(static_cast<const char*>(tensor.data()), tensor.TotalBytes());
  if (!HostIsLittleEndian() && type->size > 1) {
    bool complex = type->kind == 'c';
    int unit = complex ? type->size / 2 : type->size;
    SwapElementBytes(&out[data_start], complex ? tensor.NumElements() * 2 : tensor.NumElements(),
                     unit);
  }
  return out;
}

absl::Status WriteNpy(const Tensor& tensor, const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(tensor));
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return FileError("open for writing", path, errno);
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  int write_error = written != bytes.size() ? errno : 0;
  if (std::fclose(file) != 0 && write_error == 0) write_error = errno;
  if (write_error != 0) return FileError("write", path, write_error);
  return absl::OkStatus();
}

}  // namespace tessera
