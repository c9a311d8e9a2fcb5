// Parsing digits.csv.gz with zlib.
#include "examples/digits/digits_data.h"

#include <zlib.h>

#include <algorithm>
#include <numeric>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessera::digits {

absl::StatusOr<Examples> LoadDigits(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  Examples out;
  char line[4096];
  int line_number = 0;
  absl::Status status;
  while (gzgets(file, line, sizeof(line)) != nullptr) {
    ++line_number;
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(text, ',');
    if (fields.size() != kPixels + 1) {
      status = absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": ",
                                                       fields.size(), " fields, expected 65"));
      break;
    }
    for (int i = 0; i <= kPixels && status.ok(); ++i) {
      int value = 0;
      const int limit = i < kPixels ? 16 : kClasses - 1;
      if (!absl::SimpleAtoi(fields[i], &value) || value < 0 || value > limit) {
        status = absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": field ",
                                                         i + 1, " '", fields[i],
                                                         "' is not an integer in [0, ", limit,
                                                         "]"));
      } else if (i < kPixels) {
        out.pixels.push_back(static_cast<float>(value) / 16.0f);
      } else {
        out.labels.push_back(value);
      }
    }
    if (!status.ok()) break;
  }
  gzclose(file);
  if (!status.ok()) return status;
  if (out.labels.empty()) return absl::InvalidArgumentError(absl::StrCat(path, " has no rows"));
  return out;
}

void Split(const Examples& all, double test_fraction, uint32_t seed, Examples* train,
           Examples* test) {
  std::vector<int64_t> order(static_cast<size_t>(all.size()));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const int64_t num_test = static_cast<int64_t>(static_cast<double>(all.size()) * test_fraction);
  *train = Examples();
  *test = Examples();
  for (int64_t k = 0; k < all.size(); ++k) {
    Examples* dst = k < all.size() - num_test ? train : test;
    const int64_t i = order[static_cast<size_t>(k)];
    dst->pixels.insert(dst->pixels.end(), all.pixels.begin() + i * kPixels,
                       all.pixels.begin() + (i + 1) * kPixels);
    dst->labels.push_back(all.labels[static_cast<size_t>(i)]);
  }
}

void Batch(const Examples& data, const std::vector<int64_t>& order, int64_t begin, int64_t end,
           Tensor* pixels, Tensor* labels) {
  const int64_t n = end - begin;
  *pixels = Tensor(TSR_DTYPE_FLOAT, TensorShape{n, kPixels});
  *labels = Tensor(TSR_DTYPE_INT32, TensorShape{n});
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = order[static_cast<size_t>(begin + k)];
    std::copy(data.pixels.begin() + i * kPixels, data.pixels.begin() + (i + 1) * kPixels,
              pixels->data<float>() + k * kPixels);
    labels->data<int32_t>()[k] = data.labels[static_cast<size_t>(i)];
  }
}

}  // namespace tessera::digits
