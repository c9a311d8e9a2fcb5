// The UCI handwritten digits (examples/data/digits.csv.gz): loading, a seeded train/test split
// and mini-batches as tensors.
#ifndef TESSERA_EXAMPLES_DIGITS_DIGITS_DATA_H_
#define TESSERA_EXAMPLES_DIGITS_DIGITS_DATA_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/runtime/tensor.h"

namespace tessera::digits {

constexpr int kPixels = 64;  // 8x8
constexpr int kClasses = 10;

struct Examples {
  std::vector<float> pixels;   // size() * 64, scaled to [0, 1]
  std::vector<int32_t> labels;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

// Reads the gzip'd CSV: 64 pixel values (0..16) and a label per row. INVALID_ARGUMENT naming the
// line for a malformed row; NOT_FOUND when the file is missing.
absl::StatusOr<Examples> LoadDigits(const std::string& path);

// Shuffles with `seed` and keeps the last `test_fraction` for testing.
void Split(const Examples& all, double test_fraction, uint32_t seed, Examples* train,
           Examples* test);

// Examples [begin, end) of `order` as a [n, 64] float tensor and a [n] int32 label tensor.
void Batch(const Examples& data, const std::vector<int64_t>& order, int64_t begin, int64_t end,
           Tensor* pixels, Tensor* labels);

}  // namespace tessera::digits

#endif  // TESSERA_EXAMPLES_DIGITS_DIGITS_DATA_H_
