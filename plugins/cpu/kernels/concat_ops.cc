// ConcatV2, Concat and Pack on CPU (every fixed-size dtype): the output is rows of the inputs'
// rows, a byte copy per (row, input) sharded over the host's pool.
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// out row r = input 0 row r ++ input 1 row r ++ ...; input i's row has row_bytes[i] bytes.
void CopyRows(const KernelContext& ctx, const std::vector<TensorView>& inputs,
              const std::vector<size_t>& row_bytes, int64_t rows, char* out) {
  size_t out_row_bytes = 0;
  for (size_t bytes : row_bytes) out_row_bytes += bytes;
  if (out_row_bytes == 0) return;
  ctx.ParallelFor(
      rows, static_cast<int64_t>(out_row_bytes / 4 + 1), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          char* dst = out + r * out_row_bytes;
          for (size_t i = 0; i < inputs.size(); ++i) {
            if (row_bytes[i] == 0) continue;
            std::memcpy(dst, static_cast<const char*>(inputs[i].raw_data()) + r * row_bytes[i],
                        row_bytes[i]);
            dst += row_bytes[i];
          }
        }
      });
}

// ConcatV2(values..., axis), and Concat(concat_dim, values...) when kAxisFirst.
template <bool kAxisFirst>
class ConcatKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    const int num_values = ctx.num_inputs() - 1;
    const char* axis_name = kAxisFirst ? "concat_dim" : "axis";
    if (num_values < 1) {
      return sdk::InvalidArgument(kAxisFirst ? "Concat" : "ConcatV2", " node '", ctx.node_name(),
                                  "' has ", num_values, " values, expected at least 1");
    }
    const int first_value = kAxisFirst ? 1 : 0;
    TensorView axis_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(kAxisFirst ? 0 : num_values, &axis_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, axis_view, axis_name));
    if (axis_view.rank() != 0) {
      return sdk::InvalidArgument(axis_name, " tensor should be a scalar integer, but got shape ",
                                  axis_view.shape().DebugString());
    }
    std::vector<TensorView> inputs(static_cast<size_t>(num_values));
    for (int i = 0; i < num_values; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(first_value + i, &inputs[i]));
    }
    const TensorView& first = inputs[0];
    const int rank = first.rank();
    const int64_t concat_dim = IndexAt(axis_view, 0);
    const int64_t axis = concat_dim < 0 ? concat_dim + rank : concat_dim;
    if (axis < 0 || axis >= rank) {
      return sdk::InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [",
                                  -rank, ", ", rank, "), but got ", concat_dim);
    }
    Shape out_shape = first.shape();
    int64_t axis_total = 0;
    for (int i = 0; i < num_values; ++i) {
      const TensorView& in = inputs[i];
      if (in.rank() != rank) {
        return sdk::InvalidArgument(
            "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
            first.shape().DebugString(), " vs. shape[", i, "] = ", in.shape().DebugString());
      }
      for (int d = 0; d < rank; ++d) {
        if (d == axis || in.dim(d) == first.dim(d)) continue;
        return sdk::InvalidArgument(
            "ConcatOp : Dimension ", d,
            " in both shapes must be equal: shape[0] = ", first.shape().DebugString(),
            " vs. shape[", i, "] = ", in.shape().DebugString());
      }
      axis_total += in.dim(static_cast<int>(axis));
    }
    if (num_values == 1) return ctx.SetOutputFromInput(0, first_value);
    out_shape.set_dim(static_cast<int>(axis), axis_total);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    int64_t rows = 1;
    for (int d = 0; d < axis; ++d) rows *= out_shape.dim(d);
    const size_t element_size = sdk::DataTypeSize(out.dtype());
    std::vector<size_t> row_bytes(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      row_bytes[i] =
          rows == 0 ? 0 : static_cast<size_t>(inputs[i].num_elements() / rows) * element_size;
    }
    CopyRows(ctx, inputs, row_bytes, rows, out.data<char>());
    return OkStatus();
  }
};

class PackKernel : public sdk::Kernel {
 public:
  explicit PackKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("axis")) ctx.SetStatus(ctx.GetAttr("axis", &axis_));
  }

  Status Compute(KernelContext& ctx) override {
    const int num_values = ctx.num_inputs();
    if (num_values < 1) {
      return sdk::InvalidArgument("Pack node '", ctx.node_name(), "' has no values");
    }
    std::vector<TensorView> inputs(static_cast<size_t>(num_values));
    for (int i = 0; i < num_values; ++i) TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &inputs[i]));
    const Shape first_shape = inputs[0].shape();
    const int output_rank = first_shape.rank() + 1;
    const int64_t axis = axis_ < 0 ? axis_ + output_rank : axis_;
    if (axis < 0 || axis >= output_rank) {
      return sdk::InvalidArgument("axis = ", axis_, " not in [", -output_rank, ", ", output_rank,
                                  ")");
    }
    if (output_rank > Shape::kMaxRank) {
      return sdk::InvalidArgument("node '", ctx.node_name(), "' would produce a tensor of rank ",
                                  output_rank, ", more than the maximum ", Shape::kMaxRank);
    }
    for (int i = 1; i < num_values; ++i) {
      if (inputs[i].shape() != first_shape) {
        return sdk::InvalidArgument(
            "Shapes of all inputs must match: values[0].shape = ", first_shape.DebugString(),
            " != values[", i, "].shape = ", inputs[i].shape().DebugString());
      }
    }
    Shape out_shape = first_shape;
    out_shape.InsertDim(static_cast<int>(axis), num_values);
    if (num_values == 1) return ctx.SetOutputFromInput(0, 0, out_shape);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    int64_t rows = 1;
    for (int d = 0; d < axis; ++d) rows *= first_shape.dim(d);
    const size_t row_bytes =
        static_cast<size_t>(first_shape.num_elements() / rows) * sdk::DataTypeSize(out.dtype());
    CopyRows(ctx, inputs, std::vector<size_t>(inputs.size(), row_bytes), rows, out.data<char>());
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

Status RegisterConcatKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ConcatKernel<false>>(
      registrar, "ConcatV2", kCpu, {{"T", AllTypes()}, {"Tidx", IndexTypes()}}, 0, 0, {"axis"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ConcatKernel<true>>(
      registrar, "Concat", kCpu, {{"T", AllTypes()}}, 0, 0, {"concat_dim"}));
  return sdk::RegisterKernel<PackKernel>(registrar, "Pack", kCpu, {{"T", AllTypes()}});
}

}  // namespace tessera::cpu
