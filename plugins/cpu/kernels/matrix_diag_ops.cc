// MatrixDiag, MatrixDiagPart and MatrixSetDiag on CPU, all three versions (every fixed-size
// dtype; k, num_rows and num_cols int32 in host memory). Diagonal d = n - m of a [rows, cols]
// matrix has DiagLen(d) elements; a band k = [lower, upper] is stored as rows upper..lower of a
// [num_diags, max_diag_len] matrix, each diagonal left- or right-aligned as `align` says
// (version 2: LEFT_LEFT; version 1: the main diagonal only).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Which side each diagonal is packed against (the first word: superdiagonals, the second:
// subdiagonals; the main diagonal is left-aligned when either says LEFT).
struct Alignment {
  bool left_super = true;
  bool left_sub = true;
};

Status ParseAlignment(const std::string& align, Alignment* out) {
  if (align == "LEFT_LEFT") {
    *out = {true, true};
  } else if (align == "LEFT_RIGHT") {
    *out = {true, false};
  } else if (align == "RIGHT_LEFT") {
    *out = {false, true};
  } else if (align == "RIGHT_RIGHT") {
    *out = {false, false};
  } else {
    return sdk::InvalidArgument(
        "align must be one of LEFT_LEFT, LEFT_RIGHT, RIGHT_LEFT or "
        "RIGHT_RIGHT, got ",
        align);
  }
  return OkStatus();
}

int64_t DiagLen(int64_t d, int64_t rows, int64_t cols) {
  return std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
}

// Where diagonal d's elements start in its row of the packed [num_diags, max_diag_len] matrix.
int64_t ContentOffset(int64_t d, int64_t max_diag_len, int64_t rows, int64_t cols,
                      const Alignment& align) {
  const bool left = (d >= 0 && align.left_super) || (d <= 0 && align.left_sub);
  return left ? 0 : max_diag_len - DiagLen(d, rows, cols);
}

// The band [lower, upper] from a scalar or two-element int32 `k`.
Status ReadBand(const TensorView& k, int64_t* lower, int64_t* upper) {
  if (k.rank() > 1) {
    return sdk::InvalidArgument("diag_index must be a scalar or vector, received shape: ",
                                k.shape().DebugString());
  }
  if (k.num_elements() < 1 || k.num_elements() > 2) {
    return sdk::InvalidArgument("diag_index must have only one or two elements, received ",
                                k.num_elements(), " elements.");
  }
  *lower = IntegerAt(k, 0);
  *upper = k.num_elements() == 2 ? IntegerAt(k, 1) : *lower;
  if (*lower > *upper) {
    return sdk::InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: ", *lower, " > ", *upper);
  }
  return OkStatus();
}

// Each bound of the band must name a diagonal of a [rows, cols] matrix (0 always does).
Status CheckBandInMatrix(int64_t lower, int64_t upper, int64_t rows, int64_t cols) {
  for (const auto& [name, index] :
       {std::pair<const char*, int64_t>{"lower_diag_index", lower}, {"upper_diag_index", upper}}) {
    if (index != 0 && (index <= -rows || index >= cols)) {
      return sdk::InvalidArgument(name, " is out of bound: ", index, ". It must be between ", -rows,
                                  " and ", cols);
    }
  }
  return OkStatus();
}

Status ReadAlignmentAttr(KernelConstruction& ctx, int version, Alignment* align) {
  if (version < 3) return OkStatus();  // LEFT_LEFT
  std::string text;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("align", &text));
  return ParseAlignment(text, align);
}

Status ScalarInput(const KernelContext& ctx, int index, const char* name, TensorView* view) {
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(index, view));
  if (view->rank() != 0) {
    return sdk::InvalidArgument(name,
                                " must be a scalar, received shape: ", view->shape().DebugString());
  }
  return OkStatus();
}

// MatrixDiag, MatrixDiagV2, MatrixDiagV3: the band's diagonals placed in matrices of
// padding_value.
template <int kVersion>
class MatrixDiagKernel : public sdk::Kernel {
 public:
  explicit MatrixDiagKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadAlignmentAttr(ctx, kVersion, &align_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView diagonal;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &diagonal));
    int64_t lower = 0;
    int64_t upper = 0;
    int64_t rows = -1;
    int64_t cols = -1;
    const size_t size = sdk::DataTypeSize(diagonal.dtype());
    std::vector<char> padding(size, 0);
    if (kVersion >= 2) {
      TensorView k;
      TensorView rows_view;
      TensorView cols_view;
      TensorView padding_view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &k));
      TESSERA_SDK_RETURN_IF_ERROR(ReadBand(k, &lower, &upper));
      TESSERA_SDK_RETURN_IF_ERROR(ScalarInput(ctx, 2, "num_rows", &rows_view));
      TESSERA_SDK_RETURN_IF_ERROR(ScalarInput(ctx, 3, "num_cols", &cols_view));
      TESSERA_SDK_RETURN_IF_ERROR(ScalarInput(ctx, 4, "padding_value", &padding_view));
      rows = IntegerAt(rows_view, 0);
      cols = IntegerAt(cols_view, 0);
      std::memcpy(padding.data(), padding_view.raw_data(), size);
    }
    if (diagonal.rank() < 1) {
      return sdk::InvalidArgument("diagonal must be at least 1-dim, received shape: ",
                                  diagonal.shape().DebugString());
    }
    const int64_t num_diags = upper - lower + 1;
    const int64_t max_diag_len = diagonal.dim(diagonal.rank() - 1);
    if (num_diags > 1 && (diagonal.rank() < 2 || diagonal.dim(diagonal.rank() - 2) != num_diags)) {
      return sdk::InvalidArgument(
          "The number of diagonals provided in the input does not match the lower_diag_index "
          "and upper_diag_index range.");
    }
    const int64_t min_rows = max_diag_len - std::min<int64_t>(upper, 0);
    const int64_t min_cols = max_diag_len + std::max<int64_t>(lower, 0);
    if (rows != -1 && rows < min_rows) {
      return sdk::InvalidArgument("The number of rows is too small.");
    }
    if (cols != -1 && cols < min_cols) {
      return sdk::InvalidArgument("The number of columns is too small.");
    }
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    if (rows != min_rows && cols != min_cols) {
      return sdk::InvalidArgument(
          "The number of rows or columns is not consistent with the specified d_lower, "
          "d_upper, and diagonal.");
    }
    const int batch_rank = diagonal.rank() - (num_diags > 1 ? 2 : 1);
    Shape out_shape;
    for (int d = 0; d < batch_rank; ++d) out_shape.AddDim(diagonal.dim(d));
    out_shape.AddDim(rows);
    out_shape.AddDim(cols);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    const char* src = static_cast<const char*>(diagonal.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    const int64_t bytes = static_cast<int64_t>(size);
    ctx.ParallelFor(out.num_elements() / cols, cols + 1, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / rows;
        const int64_t m = row % rows;
        for (int64_t n = 0; n < cols; ++n) {
          const int64_t d = n - m;
          const char* from = padding.data();
          if (d >= lower && d <= upper) {
            const int64_t p = std::min(m, n) + ContentOffset(d, max_diag_len, rows, cols, align_);
            from = src + ((b * num_diags + (upper - d)) * max_diag_len + p) * bytes;
          }
          std::memcpy(dst + (row * cols + n) * bytes, from, size);
        }
      }
    });
    return OkStatus();
  }

 private:
  Alignment align_;
};

// MatrixDiagPart, MatrixDiagPartV2, MatrixDiagPartV3: the band's diagonals packed in rows,
// padding_value where a diagonal is shorter than the longest.
template <int kVersion>
class MatrixDiagPartKernel : public sdk::Kernel {
 public:
  explicit MatrixDiagPartKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadAlignmentAttr(ctx, kVersion, &align_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    int64_t lower = 0;
    int64_t upper = 0;
    const size_t size = sdk::DataTypeSize(input.dtype());
    std::vector<char> padding(size, 0);
    if (kVersion >= 2) {
      TensorView k;
      TensorView padding_view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &k));
      TESSERA_SDK_RETURN_IF_ERROR(ReadBand(k, &lower, &upper));
      TESSERA_SDK_RETURN_IF_ERROR(ScalarInput(ctx, 2, "padding_value", &padding_view));
      std::memcpy(padding.data(), padding_view.raw_data(), size);
    }
    if (input.rank() < 2) {
      return sdk::InvalidArgument("input must be at least 2-dim, received shape: ",
                                  input.shape().DebugString());
    }
    const int64_t rows = input.dim(input.rank() - 2);
    const int64_t cols = input.dim(input.rank() - 1);
    TESSERA_SDK_RETURN_IF_ERROR(CheckBandInMatrix(lower, upper, rows, cols));
    const int64_t num_diags = upper - lower + 1;
    const int64_t max_diag_len = std::max<int64_t>(
        0, std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0)));
    Shape out_shape;
    for (int d = 0; d < input.rank() - 2; ++d) out_shape.AddDim(input.dim(d));
    if (num_diags > 1) out_shape.AddDim(num_diags);
    out_shape.AddDim(max_diag_len);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    const int64_t bytes = static_cast<int64_t>(size);
    ctx.ParallelFor(out.num_elements() / max_diag_len, max_diag_len + 1,
                    [&](int64_t begin, int64_t end) {
                      for (int64_t unit = begin; unit < end; ++unit) {
                        const int64_t b = unit / num_diags;
                        const int64_t d = upper - unit % num_diags;
                        const int64_t offset = ContentOffset(d, max_diag_len, rows, cols, align_);
                        const int64_t length = DiagLen(d, rows, cols);
                        for (int64_t j = 0; j < max_diag_len; ++j) {
                          const int64_t p = j - offset;
                          const char* from = padding.data();
                          if (p >= 0 && p < length) {
                            const int64_t m = p + std::max<int64_t>(0, -d);
                            const int64_t n = p + std::max<int64_t>(0, d);
                            from = src + ((b * rows + m) * cols + n) * bytes;
                          }
                          std::memcpy(dst + (unit * max_diag_len + j) * bytes, from, size);
                        }
                      }
                    });
    return OkStatus();
  }

 private:
  Alignment align_;
};

// MatrixSetDiag, MatrixSetDiagV2, MatrixSetDiagV3: the input with the band's diagonals replaced.
template <int kVersion>
class MatrixSetDiagKernel : public sdk::Kernel {
 public:
  explicit MatrixSetDiagKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadAlignmentAttr(ctx, kVersion, &align_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView diagonal;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &diagonal));
    int64_t lower = 0;
    int64_t upper = 0;
    if (kVersion >= 2) {
      TensorView k;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &k));
      TESSERA_SDK_RETURN_IF_ERROR(ReadBand(k, &lower, &upper));
    }
    if (input.rank() < 2) {
      return sdk::InvalidArgument("input must be at least 2-dim, received shape: ",
                                  input.shape().DebugString());
    }
    if (diagonal.rank() < 1) {
      return sdk::InvalidArgument("diagonal must be at least 1-dim, received shape: ",
                                  diagonal.shape().DebugString());
    }
    const int64_t rows = input.dim(input.rank() - 2);
    const int64_t cols = input.dim(input.rank() - 1);
    TESSERA_SDK_RETURN_IF_ERROR(CheckBandInMatrix(lower, upper, rows, cols));
    const int64_t num_diags = upper - lower + 1;
    const int64_t max_diag_len = std::max<int64_t>(
        0, std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0)));
    Shape expected;
    for (int d = 0; d < input.rank() - 2; ++d) expected.AddDim(input.dim(d));
    if (num_diags > 1) expected.AddDim(num_diags);
    expected.AddDim(max_diag_len);
    if (!(diagonal.shape() == expected)) {
      return sdk::InvalidArgument("diagonal must have shape ", expected.DebugString(),
                                  " for input shape ", input.shape().DebugString(), " and k [",
                                  lower, ", ", upper,
                                  "], received shape: ", diagonal.shape().DebugString());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, input.shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    const size_t size = sdk::DataTypeSize(input.dtype());
    const int64_t bytes = static_cast<int64_t>(size);
    const char* src = static_cast<const char*>(input.raw_data());
    const char* diag = static_cast<const char*>(diagonal.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    ctx.ParallelFor(out.num_elements() / cols, cols + 1, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / rows;
        const int64_t m = row % rows;
        for (int64_t n = 0; n < cols; ++n) {
          const int64_t d = n - m;
          const int64_t at = (row * cols + n) * bytes;
          const char* from = src + at;
          if (d >= lower && d <= upper) {
            const int64_t p = std::min(m, n) + ContentOffset(d, max_diag_len, rows, cols, align_);
            from = diag + ((b * num_diags + (upper - d)) * max_diag_len + p) * bytes;
          }
          if (dst + at != from) std::memcpy(dst + at, from, size);
        }
      }
    });
    return OkStatus();
  }

 private:
  Alignment align_;
};

}  // namespace

Status RegisterMatrixDiagKernels(TSR_Registrar* registrar) {
  using sdk::RegisterKernel;
  const std::vector<sdk::TypeConstraint> types = {{"T", AllTypes()}};
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterKernel<MatrixDiagKernel<1>>(registrar, "MatrixDiag", kCpu, types));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterKernel<MatrixDiagKernel<2>>(registrar, "MatrixDiagV2", kCpu, types, 0, 0,
                                          {"k", "num_rows", "num_cols", "padding_value"}));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterKernel<MatrixDiagKernel<3>>(registrar, "MatrixDiagV3", kCpu, types, 0, 0,
                                          {"k", "num_rows", "num_cols", "padding_value"}));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterKernel<MatrixDiagPartKernel<1>>(registrar, "MatrixDiagPart", kCpu, types));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterKernel<MatrixDiagPartKernel<2>>(
      registrar, "MatrixDiagPartV2", kCpu, types, 0, 0, {"k", "padding_value"}));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterKernel<MatrixDiagPartKernel<3>>(
      registrar, "MatrixDiagPartV3", kCpu, types, 0, 0, {"k", "padding_value"}));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterKernel<MatrixSetDiagKernel<1>>(registrar, "MatrixSetDiag", kCpu, types));
  TESSERA_SDK_RETURN_IF_ERROR(RegisterKernel<MatrixSetDiagKernel<2>>(registrar, "MatrixSetDiagV2",
                                                                     kCpu, types, 0, 0, {"k"}));
  return RegisterKernel<MatrixSetDiagKernel<3>>(registrar, "MatrixSetDiagV3", kCpu, types, 0, 0,
                                                {"k"});
}

}  // namespace tessera::cpu
