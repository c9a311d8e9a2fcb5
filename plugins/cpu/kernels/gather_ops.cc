// GatherV2, Gather and OneHot on CPU (every fixed-size dtype): index-driven copies of whole inner
// slices (GatherV2; Gather is GatherV2 along axis 0) or of the on/off values (OneHot), by element
// size.
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// GatherV2(params, indices, axis), and Gather(params, indices), which has no axis input and
// gathers along axis 0 (its validate_indices attr changes nothing: indices are always checked).
class GatherV2Kernel : public sdk::Kernel {
 public:
  explicit GatherV2Kernel(KernelConstruction& ctx) : axis_input_(ctx.num_inputs() > 2) {
    if (ctx.HasAttr("batch_dims")) ctx.SetStatus(ctx.GetAttr("batch_dims", &batch_dims_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView params;
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &params));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, indices, "indices"));
    if (params.rank() < 1) {
      return sdk::InvalidArgument("params must be at least 1 dimensional");
    }
    int64_t axis = 0;
    if (axis_input_) {
      TensorView axis_view;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &axis_view));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, axis_view, "axis"));
      if (axis_view.rank() != 0) return sdk::InvalidArgument("axis must be scalar");
      axis = IndexAt(axis_view, 0);
    }
    const int64_t min_params_dim = axis < 0 ? -axis : axis + 1;
    if (params.rank() < min_params_dim) {
      return sdk::InvalidArgument("Shape must be at least rank ", min_params_dim, " but is rank ",
                                  params.rank());
    }
    if (axis < 0) axis += params.rank();
    int64_t batch_dims = batch_dims_;
    if (batch_dims != 0) {
      const int indices_rank = indices.rank();
      if (batch_dims < -indices_rank || batch_dims > indices_rank) {
        return sdk::InvalidArgument("Expected batch_dims in the range [", -indices_rank, ", ",
                                    indices_rank, "], but got ", batch_dims);
      }
      if (batch_dims < 0) batch_dims += indices_rank;
      if (batch_dims >= params.rank()) {
        return sdk::InvalidArgument("batch_dims (", batch_dims,
                                    ") must be less than rank(params) (", params.rank(), ").");
      }
      if (axis < batch_dims) {
        return sdk::InvalidArgument("batch_dims (", batch_dims,
                                    ") must be less than or equal to axis (", axis, ").");
      }
      for (int i = 0; i < batch_dims; ++i) {
        if (params.dim(i) != indices.dim(i)) {
          return sdk::InvalidArgument("params.shape[", i, "]: ", params.dim(i),
                                      " should be equal to indices.shape[", i,
                                      "]: ", indices.dim(i));
        }
      }
    }
    const int64_t gather_size = params.dim(static_cast<int>(axis));
    if (indices.dtype() == TSR_DTYPE_INT32 && gather_size > INT32_MAX) {
      return sdk::InvalidArgument(
          "params.shape[", axis, "] too large for int32 indexing: ", gather_size, " > ", INT32_MAX);
    }
    const int out_rank = params.rank() - 1 + indices.rank() - static_cast<int>(batch_dims);
    if (out_rank > Shape::kMaxRank) return RankAboveMaximum(ctx, out_rank);
    Shape out_shape;
    int64_t batch_size = 1;
    int64_t outer_size = 1;
    int64_t inner_size = 1;
    for (int i = 0; i < batch_dims; ++i) {
      out_shape.AddDim(params.dim(i));
      batch_size *= params.dim(i);
    }
    for (int i = static_cast<int>(batch_dims); i < axis; ++i) {
      out_shape.AddDim(params.dim(i));
      outer_size *= params.dim(i);
    }
    for (int i = static_cast<int>(batch_dims); i < indices.rank(); ++i) {
      out_shape.AddDim(indices.dim(i));
    }
    for (int i = static_cast<int>(axis) + 1; i < params.rank(); ++i) {
      out_shape.AddDim(params.dim(i));
      inner_size *= params.dim(i);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    const int64_t num_indices = indices.num_elements();
    if (num_indices == 0 || inner_size == 0 || batch_size * outer_size == 0) return OkStatus();
    for (int64_t i = 0; i < num_indices; ++i) {
      const int64_t index = IndexAt(indices, i);
      if (index < 0 || index >= gather_size) {
        return sdk::InvalidArgument("indices", SliceIndexString(indices.shape(), i), " = ", index,
                                    " is not in [0, ", gather_size, ")");
      }
    }
    const int64_t per_batch = num_indices / batch_size;
    const int64_t slice_bytes =
        inner_size * static_cast<int64_t>(sdk::DataTypeSize(params.dtype()));
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = out.data<char>();
    const int64_t total = batch_size * outer_size * per_batch;
    ctx.ParallelFor(total, slice_bytes / 4 + 8, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t j = task % per_batch;
        const int64_t batch_outer = task / per_batch;  // b * outer_size + o
        const int64_t b = batch_outer / outer_size;
        const int64_t index = IndexAt(indices, b * per_batch + j);
        std::memcpy(dst + task * slice_bytes,
                    src + (batch_outer * gather_size + index) * slice_bytes,
                    static_cast<size_t>(slice_bytes));
      }
    });
    return OkStatus();
  }

 private:
  bool axis_input_;
  int64_t batch_dims_ = 0;
};

class OneHotKernel : public sdk::Kernel {
 public:
  explicit OneHotKernel(KernelConstruction& ctx) { ctx.SetStatus(ctx.GetAttr("axis", &axis_)); }

  Status Compute(KernelContext& ctx) override {
    TensorView indices;
    TensorView depth_view;
    TensorView on_value;
    TensorView off_value;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &depth_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &on_value));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &off_value));
    const int output_dims = indices.rank() + 1;
    if (!(axis_ == -1 || (axis_ >= 0 && axis_ < output_dims))) {
      return sdk::InvalidArgument("Expected axis to be -1 or between [0, ", output_dims,
                                  ").  But received: ", axis_);
    }
    if (depth_view.rank() != 0) {
      return sdk::InvalidArgument("depth must be a scalar, but got: ",
                                  depth_view.shape().DebugString());
    }
    if (on_value.rank() != 0) {
      return sdk::InvalidArgument("on_value must be a scalar, but got: ",
                                  on_value.shape().DebugString());
    }
    if (off_value.rank() != 0) {
      return sdk::InvalidArgument("off_value must be a scalar, but got: ",
                                  off_value.shape().DebugString());
    }
    const int axis = axis_ == -1 ? indices.rank() : static_cast<int>(axis_);
    const int64_t depth = IntegerAt(depth_view, 0);
    if (depth < 0) return sdk::InvalidArgument("depth must be non-negative, got: ", depth);
    if (output_dims > Shape::kMaxRank) return RankAboveMaximum(ctx, output_dims);
    Shape out_shape = indices.shape();
    out_shape.InsertDim(axis, depth);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    const size_t element_size = sdk::DataTypeSize(out.dtype());
    FillWithElement(ctx, out.raw_data(), out.num_elements(), element_size, off_value.raw_data());
    int64_t prefix = 1;
    for (int d = 0; d < axis; ++d) prefix *= indices.dim(d);
    const int64_t suffix = indices.num_elements() / prefix;
    char* dst = out.data<char>();
    const int64_t size = static_cast<int64_t>(element_size);
    ctx.ParallelFor(indices.num_elements(), 4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t index = IntegerAt(indices, i);
        if (index < 0 || index >= depth) continue;  // out-of-range indices stay all "off"
        const int64_t p = i / suffix;
        const int64_t s = i % suffix;
        std::memcpy(dst + ((p * depth + index) * suffix + s) * size, on_value.raw_data(),
                    element_size);
      }
    });
    return OkStatus();
  }

 private:
  int64_t axis_ = -1;
};

const std::vector<TSR_DataType>& OneHotIndexTypes() {
  static const auto* types = new std::vector<TSR_DataType>{TSR_DTYPE_UINT8, TSR_DTYPE_INT8,
                                                           TSR_DTYPE_INT32, TSR_DTYPE_INT64};
  return *types;
}

}  // namespace

Status RegisterGatherKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<GatherV2Kernel>(
      registrar, "GatherV2", kCpu,
      {{"Tparams", AllTypes()}, {"Tindices", IndexTypes()}, {"Taxis", IndexTypes()}}, 0, 0,
      {"axis"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<GatherV2Kernel>(
      registrar, "Gather", kCpu, {{"Tparams", AllTypes()}, {"Tindices", IndexTypes()}}));
  return sdk::RegisterKernel<OneHotKernel>(
      registrar, "OneHot", kCpu, {{"T", AllTypes()}, {"TI", OneHotIndexTypes()}}, 0, 0, {"depth"});
}

}  // namespace tessera::cpu
