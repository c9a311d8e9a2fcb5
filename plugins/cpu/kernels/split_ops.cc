// Split, SplitV and Unpack on CPU (every fixed-size dtype): each output is a run of consecutive
// indices along one axis, copied as one contiguous block per row of the dimensions before it.
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Allocates output i with shape `shapes[i]` and copies into it the `sizes[i]` indices of `input`
// along `axis` that follow those of the earlier outputs.
Status SplitAlongAxis(KernelContext& ctx, const TensorView& input, int axis,
                      const std::vector<int64_t>& sizes, const std::vector<Shape>& shapes) {
  const size_t num_outputs = sizes.size();
  std::vector<TensorView> outputs(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(static_cast<int>(i), shapes[i], &outputs[i]));
  }
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= input.dim(d);
  int64_t inner = 1;
  for (int d = axis + 1; d < input.rank(); ++d) inner *= input.dim(d);
  const int64_t element_size = static_cast<int64_t>(sdk::DataTypeSize(input.dtype()));
  const int64_t input_row_bytes = input.dim(axis) * inner * element_size;
  std::vector<int64_t> start_bytes(num_outputs, 0);
  for (size_t i = 1; i < num_outputs; ++i) {
    start_bytes[i] = start_bytes[i - 1] + sizes[i - 1] * inner * element_size;
  }
  if (rows == 0 || inner == 0 || input.dim(axis) == 0) return OkStatus();
  const char* src = static_cast<const char*>(input.raw_data());
  const int64_t total = static_cast<int64_t>(num_outputs) * rows;
  const int64_t cost = input_row_bytes / static_cast<int64_t>(num_outputs) / 4 + 8;
  ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const size_t i = static_cast<size_t>(task / rows);
      const int64_t row = task % rows;
      const int64_t bytes = sizes[i] * inner * element_size;
      if (bytes == 0) continue;
      std::memcpy(outputs[i].data<char>() + row * bytes,
                  src + row * input_row_bytes + start_bytes[i], static_cast<size_t>(bytes));
    }
  });
  return OkStatus();
}

// The axis from a split_dim value in [-rank, rank).
Status CanonicalSplitDim(const TensorView& input, int64_t split_dim, int* axis) {
  const int rank = input.rank();
  const int64_t canonical = split_dim < 0 ? split_dim + rank : split_dim;
  if (canonical < 0 || canonical >= rank) {
    return sdk::InvalidArgument("-input rank(-", rank, ") <= split_dim < input rank (", rank,
                                "), but got ", split_dim);
  }
  *axis = static_cast<int>(canonical);
  return OkStatus();
}

std::vector<Shape> ShapesWithAxisSizes(const TensorView& input, int axis,
                                       const std::vector<int64_t>& sizes) {
  std::vector<Shape> shapes(sizes.size(), input.shape());
  for (size_t i = 0; i < sizes.size(); ++i) shapes[i].set_dim(axis, sizes[i]);
  return shapes;
}

class SplitKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView split_dim;
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &split_dim));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &input));
    if (split_dim.rank() != 0) {
      return sdk::InvalidArgument("split_dim must be a scalar but has rank ", split_dim.rank());
    }
    int axis = 0;
    TESSERA_SDK_RETURN_IF_ERROR(CanonicalSplitDim(input, IntegerAt(split_dim, 0), &axis));
    const int num_split = ctx.num_outputs();
    if (num_split <= 0) {
      return sdk::InvalidArgument("Number of ways to split should be > 0, but got ", num_split);
    }
    const int64_t size = input.dim(axis);
    if (size % num_split != 0) {
      return sdk::InvalidArgument(
          "Number of ways to split should evenly divide the split dimension, but got split_dim ",
          axis, " (size = ", size, ") and num_split ", num_split);
    }
    if (num_split == 1) return ctx.SetOutputFromInput(0, 1);
    const std::vector<int64_t> sizes(static_cast<size_t>(num_split), size / num_split);
    return SplitAlongAxis(ctx, input, axis, sizes, ShapesWithAxisSizes(input, axis, sizes));
  }
};

class SplitVKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView size_splits;
    TensorView split_dim;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &size_splits));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &split_dim));
    const int num_split = ctx.num_outputs();
    if (split_dim.num_elements() != 1) {
      return sdk::InvalidArgument("split_dim_tensor must have exactly one element.");
    }
    if (size_splits.rank() != 1 || size_splits.num_elements() != num_split) {
      return sdk::InvalidArgument(
          "size of the split_tensor must be 1-D and have the same elements as outputs got ",
          size_splits.rank(), " -D and ", size_splits.num_elements(), " elements");
    }
    std::vector<int64_t> sizes = IntegersOf(size_splits);
    if (num_split <= 0) {
      return sdk::InvalidArgument("Number of ways to split should be > 0, but got ", num_split);
    }
    int axis = 0;
    TESSERA_SDK_RETURN_IF_ERROR(CanonicalSplitDim(input, IntegerAt(split_dim, 0), &axis));
    const int64_t dim = input.dim(axis);
    if (num_split == 1) {
      if (sizes[0] != dim) {
        return sdk::InvalidArgument(
            "If there is only one output, it must have the same size as the input. Input size: ",
            dim, " output size: ", sizes[0]);
      }
      return ctx.SetOutputFromInput(0, 0);
    }
    int wildcard = -1;
    int64_t determined = 0;
    for (int i = 0; i < num_split; ++i) {
      if (sizes[i] == -1) {
        if (wildcard != -1) return sdk::InvalidArgument("There can only be one -1 in the input.");
        wildcard = i;
      } else {
        determined += sizes[i];
      }
    }
    if (!((wildcard == -1 && determined == dim) || (wildcard >= 0 && determined <= dim))) {
      return sdk::InvalidArgument(
          "Determined shape must either match input shape along split_dim exactly if fully "
          "specified, or be less than the size of the input along split_dim if not fully "
          "specified.  Got: ",
          determined);
    }
    if (wildcard >= 0) sizes[wildcard] = dim - determined;
    for (int i = 0; i < num_split; ++i) {
      if (sizes[i] < 0) {
        return sdk::InvalidArgument("Split size at index ", i, " must be >= 0. Got: ", sizes[i]);
      }
    }
    return SplitAlongAxis(ctx, input, axis, sizes, ShapesWithAxisSizes(input, axis, sizes));
  }
};

class UnpackKernel : public sdk::Kernel {
 public:
  explicit UnpackKernel(KernelConstruction& ctx) { ctx.SetStatus(ctx.GetAttr("axis", &axis_)); }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    const int num = ctx.num_outputs();
    const int rank = input.rank();
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) {
      return sdk::InvalidArgument("axis = ", axis_, " not in [", -rank, ", ", rank, ")");
    }
    if (input.dim(static_cast<int>(axis)) != num) {
      return sdk::InvalidArgument("Input shape axis ", axis, " must equal ", num, ", got shape ",
                                  input.shape().DebugString());
    }
    Shape shape = input.shape();
    shape.RemoveDim(static_cast<int>(axis));
    if (num == 1) return ctx.SetOutputFromInput(0, 0, shape);
    return SplitAlongAxis(ctx, input, static_cast<int>(axis),
                          std::vector<int64_t>(static_cast<size_t>(num), 1),
                          std::vector<Shape>(static_cast<size_t>(num), shape));
  }

 private:
  int64_t axis_ = 0;
};

const std::vector<TSR_DataType>& SplitLengthTypes() {
  static const auto* types =
      new std::vector<TSR_DataType>{TSR_DTYPE_INT8, TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

}  // namespace

Status RegisterSplitKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SplitKernel>(
      registrar, "Split", kCpu, {{"T", AllTypes()}}, 0, 0, {"split_dim"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SplitVKernel>(
      registrar, "SplitV", kCpu, {{"T", AllTypes()}, {"Tlen", SplitLengthTypes()}}, 0, 0,
      {"size_splits", "split_dim"}));
  return sdk::RegisterKernel<UnpackKernel>(registrar, "Unpack", kCpu, {{"T", AllTypes()}});
}

}  // namespace tessera::cpu
