// GatherNd (every fixed-size dtype) and ScatterNd (float, double, int32, int64) on CPU, indices
// int16/int32/int64: each row of the innermost dimension of `indices` names a slice of params
// (GatherNd copies it out) or of the output (ScatterNd adds an update into it, so repeated
// indices sum).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// "[3, 0]": the `depth` coordinates of index row `row`.
std::string RowString(const std::vector<int64_t>& indices, int64_t row, int64_t depth) {
  std::string out = "[";
  for (int64_t j = 0; j < depth; ++j) {
    out += (j > 0 ? ", " : "") + std::to_string(indices[row * depth + j]);
  }
  return out + "]";
}

Shape Prefix(const Shape& shape, int end) {
  Shape out;
  for (int d = 0; d < end; ++d) out.AddDim(shape.dim(d));
  return out;
}

// The flat offset, in slices, of each index row into the first `depth` dimensions of `shape`;
// -1 and the row number in `bad` for the first row out of range.
std::vector<int64_t> SliceOffsets(const std::vector<int64_t>& indices, int64_t rows,
                                  int64_t depth, const Shape& shape, int64_t* bad) {
  std::vector<int64_t> offsets(static_cast<size_t>(rows), 0);
  *bad = -1;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int64_t j = 0; j < depth; ++j) {
      const int64_t v = indices[r * depth + j];
      const int64_t dim = shape.dim(static_cast<int>(j));
      if (v < 0 || v >= dim) {
        *bad = r;
        return offsets;
      }
      offset = offset * dim + v;
    }
    offsets[r] = offset;
  }
  return offsets;
}

class GatherNdKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView params;
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &params));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &indices));
    if (params.rank() < 1) return sdk::InvalidArgument("params must be at least a vector");
    if (indices.rank() < 1) return sdk::InvalidArgument("indices must be at least a vector");
    const int64_t depth = indices.dim(indices.rank() - 1);
    if (depth > params.rank()) {
      return sdk::InvalidArgument("index innermost dimension length must be <= params rank; saw: ",
                                  depth, " vs. ", params.rank());
    }
    const Shape prefix = Prefix(indices.shape(), indices.rank() - 1);
    Shape out_shape = prefix;
    for (int d = static_cast<int>(depth); d < params.rank(); ++d) out_shape.AddDim(params.dim(d));
    const int64_t rows = prefix.num_elements();
    if (rows > 0 && params.num_elements() == 0) {
      return sdk::InvalidArgument("Requested more than 0 entries, but params is empty.  Params "
                                  "shape: ",
                                  params.shape().DebugString());
    }
    const std::vector<int64_t> values = IntegersOf(indices);
    int64_t bad = -1;
    const std::vector<int64_t> offsets =
        SliceOffsets(values, rows, depth, params.shape(), &bad);
    if (bad >= 0) {
      return sdk::InvalidArgument("indices", SliceIndexString(prefix, bad), " = ",
                                  RowString(values, bad, depth),
                                  " does not index into param shape ",
                                  params.shape().DebugString(), ", node name: ", ctx.node_name());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.byte_size() == 0) return OkStatus();
    const size_t slice_bytes = out.byte_size() / static_cast<size_t>(rows);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    ctx.ParallelFor(rows, static_cast<int64_t>(slice_bytes / 4 + depth + 1),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t r = begin; r < end; ++r) {
                        std::memcpy(dst + r * slice_bytes, src + offsets[r] * slice_bytes,
                                    slice_bytes);
                      }
                    });
    return OkStatus();
  }
};

// ScatterNd's checks of indices and updates against the output shape, with TensorFlow's
// messages.
Status ValidateScatterShapes(const TensorView& indices, const TensorView& updates,
                             const Shape& shape) {
  if (indices.rank() < 1) {
    return sdk::InvalidArgument("Indices shape must have rank at least one. Found:",
                                indices.shape().DebugString());
  }
  if (updates.rank() < 1) {
    return sdk::InvalidArgument("Updates shape must have rank at least one. Found:",
                                updates.shape().DebugString());
  }
  if (shape.rank() < 1) {
    return sdk::InvalidArgument("Output must be at least 1-D, got shape: ", shape.DebugString());
  }
  if (shape.num_elements() == 0 && (indices.num_elements() > 0 || updates.num_elements() > 0)) {
    return sdk::InvalidArgument("Indices and updates specified for empty output.  indices shape: ",
                                indices.shape().DebugString());
  }
  if (updates.dim(0) != indices.dim(0)) {
    return sdk::InvalidArgument("Dimensions [0,1) of indices[shape=", indices.shape().DebugString(),
                                "] = ", indices.dim(0), " must match dimensions [0,1) of updates[shape=",
                                updates.shape().DebugString(), "] = ", updates.dim(0));
  }
  const int64_t slice_dim = indices.rank() > 1 ? indices.dim(indices.rank() - 1) : 1;
  const int64_t batch_dim = indices.rank() > 1 ? indices.rank() - 1 : 1;
  auto prefix_error = [&] {
    return sdk::InvalidArgument("Dimensions [0,", batch_dim, ") of indices[shape=",
                                indices.shape().DebugString(), "] must match dimensions [0,",
                                batch_dim, ") of updates[shape=", updates.shape().DebugString(),
                                "]");
  };
  auto suffix_error = [&] {
    return sdk::InvalidArgument("Dimensions [", slice_dim, ",", shape.rank(), ") of input[shape=",
                                shape.DebugString(), "] must match dimensions [", slice_dim, ",",
                                updates.rank(), ") of updates[shape=",
                                updates.shape().DebugString(), "]");
  };
  if (updates.rank() < batch_dim) return prefix_error();
  if (shape.rank() < slice_dim + (updates.rank() - batch_dim) ||
      updates.rank() != batch_dim + shape.rank() - slice_dim) {
    return suffix_error();
  }
  for (int d = 0; d < batch_dim; ++d) {
    if (updates.dim(d) != indices.dim(d)) return prefix_error();
  }
  for (int64_t d = 0; d < updates.rank() - batch_dim; ++d) {
    if (updates.dim(static_cast<int>(d + batch_dim)) !=
        shape.dim(static_cast<int>(d + slice_dim))) {
      return suffix_error();
    }
  }
  return OkStatus();
}

class ScatterNdKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView indices;
    TensorView updates;
    TensorView shape_input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &updates));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &shape_input));
    if (shape_input.rank() != 1) return sdk::InvalidArgument("Shape must be a vector");
    Shape shape;
    for (int64_t v : IntegersOf(shape_input)) {
      if (v < 0) return sdk::InvalidArgument("Dimension ", v, " must be >= 0");
      shape.AddDim(v);
    }
    TESSERA_SDK_RETURN_IF_ERROR(ValidateScatterShapes(indices, updates, shape));
    const int64_t depth = indices.rank() > 1 ? indices.dim(indices.rank() - 1) : 1;
    const int64_t rows = depth == 0 ? 0 : indices.num_elements() / depth;
    const std::vector<int64_t> values = IntegersOf(indices);
    int64_t bad = -1;
    const std::vector<int64_t> offsets = SliceOffsets(values, rows, depth, shape, &bad);
    if (bad >= 0) {
      // A vector of indices holds one-coordinate rows.
      const Shape rows_shape =
          indices.rank() > 1 ? Prefix(indices.shape(), indices.rank() - 1) : indices.shape();
      return sdk::InvalidArgument(
          "indices", SliceIndexString(rows_shape, bad), " = ",
          RowString(values, bad, depth), " does not index into shape ", shape.DebugString());
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    return DispatchTypes<float, double, int32_t, int64_t>(ctx, out.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* dst = out.data<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) dst[i] = T(0);
      if (rows == 0 || out.num_elements() == 0) return OkStatus();
      const int64_t slice = out.num_elements() / ShapePrefixElements(shape, depth);
      const T* src = updates.data<const T>();
      // Shards split each slice's columns, so that no two threads add to one element.
      ctx.ParallelFor(slice, rows + 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = 0; r < rows; ++r) {
          T* row = dst + offsets[r] * slice;
          const T* update = src + r * slice;
          for (int64_t c = begin; c < end; ++c) row[c] = WrappingAdd(row[c], update[c]);
        }
      });
      return OkStatus();
    });
  }

 private:
  // The number of slices the first `depth` dimensions of `shape` hold.
  static int64_t ShapePrefixElements(const Shape& shape, int64_t depth) {
    int64_t n = 1;
    for (int d = 0; d < depth; ++d) n *= shape.dim(d);
    return n;
  }
};

}  // namespace

Status RegisterGatherNdKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> index_types = {TSR_DTYPE_INT16, TSR_DTYPE_INT32,
                                                 TSR_DTYPE_INT64};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<GatherNdKernel>(
      registrar, "GatherNd", kCpu, {{"Tparams", AllTypes()}, {"Tindices", index_types}}));
  return sdk::RegisterKernel<ScatterNdKernel>(registrar, "ScatterNd", kCpu,
                                              {{"T", RealNumberTypes()}, {"Tindices", index_types}},
                                              0, 0, {"shape"});
}

}  // namespace tessera::cpu
