// The GPU's data-movement kernels behind the SDK: Transpose, Slice, ConcatV2, Pack, Tile, Pad and
// PadV2, each one or a few strided copies (copy_kernels.h). Permutations, offsets, sizes, axes,
// multiples and paddings are host-memory inputs, as TensorFlow's GPU kernels declare them.
#include <string>
#include <vector>

#include "plugins/cuda/copy_kernels.h"
#include "plugins/cuda/gpu_device.h"
#include "plugins/cuda/gpu_kernels.h"
#include "tessera/sdk/kernel.h"
#include "tessera/sdk/types.h"

namespace tessera::gpu {
namespace {

using sdk::KernelConstruction;
using sdk::KernelContext;
using sdk::Shape;
using sdk::Status;
using sdk::TensorView;

// Row-major element strides of `shape`.
std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim(d + 1);
  return strides;
}

Status Copy(KernelContext& ctx, TSR_DataType dtype, const void* src, void* dst,
            const CopyPlan& plan) {
  TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
  return Enqueued(
      LaunchStridedCopy(sdk::DataTypeSize(dtype), src, dst, plan, NativeStream(ctx.stream())),
      ctx);
}

// Copies all of `src` (shape `shape`, dense) into `dst` at element `offset` with the given
// destination strides.
Status CopyInto(KernelContext& ctx, const TensorView& src, void* dst, int64_t offset,
                const std::vector<int64_t>& dst_strides) {
  CopyPlan plan;
  plan.rank = src.rank();
  const std::vector<int64_t> src_strides = Strides(src.shape());
  for (int d = 0; d < src.rank(); ++d) {
    plan.dims[d] = src.dim(d);
    plan.src_strides[d] = src_strides[d];
    plan.dst_strides[d] = dst_strides[d];
  }
  plan.dst_offset = offset;
  return Copy(ctx, src.dtype(), src.raw_data(), dst, plan);
}

class TransposeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView perm_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &perm_view));
    if (perm_view.rank() != 1) {
      return sdk::InvalidArgument("perm must be rank 1, got shape ",
                                  perm_view.shape().DebugString());
    }
    const int rank = x.rank();
    if (perm_view.dim(0) != rank) {
      return sdk::InvalidArgument("transpose expects a vector of size ", rank,
                                  ". But input(1) is a vector of size ", perm_view.dim(0));
    }
    const std::vector<int64_t> perm = ReadIndexValues(perm_view);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t d : perm) {
      if (d < 0 || d >= rank) return sdk::InvalidArgument(d, " is out of range [0 .. ", rank, ")");
      seen[d] = true;
    }
    for (int i = 0; i < rank; ++i) {
      if (!seen[i]) return sdk::InvalidArgument(i, " is missing from the permutation");
    }
    Shape shape;
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      shape.AddDim(x.dim(static_cast<int>(perm[i])));
      identity = identity && perm[i] == i;
    }
    if (identity) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const std::vector<int64_t> x_strides = Strides(x.shape());
    const std::vector<int64_t> out_strides = Strides(shape);
    CopyPlan plan;
    plan.rank = rank;
    for (int i = 0; i < rank; ++i) {
      plan.dims[i] = shape.dim(i);
      plan.src_strides[i] = x_strides[perm[i]];
      plan.dst_strides[i] = out_strides[i];
    }
    return Copy(ctx, x.dtype(), x.raw_data(), out.raw_data(), plan);
  }
};

class SliceKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView begin_view;
    TensorView size_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &begin_view));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &size_view));
    const int rank = x.rank();
    if (begin_view.rank() != 1 || size_view.rank() != 1 || begin_view.dim(0) != rank ||
        size_view.dim(0) != rank) {
      return sdk::InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ",
                                  rank, ", but got shapes ", begin_view.shape().DebugString(),
                                  " and ", size_view.shape().DebugString(), " instead.");
    }
    const std::vector<int64_t> begin = ReadIndexValues(begin_view);
    std::vector<int64_t> size = ReadIndexValues(size_view);
    Shape shape;
    const std::vector<int64_t> x_strides = Strides(x.shape());
    CopyPlan plan;
    plan.rank = rank;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = x.dim(i);
      if (size[i] == -1) size[i] = dim - begin[i];
      if (dim == 0) {
        if (begin[i] != 0 || size[i] != 0) {
          return sdk::InvalidArgument("Expected begin[", i, "] == 0 (got ", begin[i],
                                      ") and size[", i, "] == 0 (got ", size[i],
                                      ") when input.dim_size(", i, ") == 0");
        }
      } else {
        if (begin[i] < 0 || begin[i] > dim) {
          return sdk::InvalidArgument("Expected begin[", i, "] in [0, ", dim, "], but got ",
                                      begin[i]);
        }
        if (size[i] < 0 || size[i] > dim - begin[i]) {
          return sdk::InvalidArgument("Expected size[", i, "] in [0, ", dim - begin[i],
                                      "], but got ", size[i]);
        }
      }
      shape.AddDim(size[i]);
      plan.dims[i] = size[i];
      plan.src_strides[i] = x_strides[i];
      plan.src_offset += begin[i] * x_strides[i];
    }
    if (shape == x.shape()) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const std::vector<int64_t> out_strides = Strides(shape);
    for (int i = 0; i < rank; ++i) plan.dst_strides[i] = out_strides[i];
    return Copy(ctx, x.dtype(), x.raw_data(), out.raw_data(), plan);
  }
};

class ConcatKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    const int num_values = ctx.num_inputs() - 1;
    if (num_values < 1) {
      return sdk::InvalidArgument("ConcatV2 node '", ctx.node_name(), "' has ", num_values,
                                  " values, expected at least 1");
    }
    TensorView axis_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(num_values, &axis_view));
    if (axis_view.rank() != 0) {
      return sdk::InvalidArgument("axis tensor should be a scalar integer, but got shape ",
                                  axis_view.shape().DebugString());
    }
    std::vector<TensorView> values(static_cast<size_t>(num_values));
    for (int i = 0; i < num_values; ++i) TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &values[i]));
    const TensorView& first = values[0];
    const int rank = first.rank();
    int64_t axis = ReadIndexValues(axis_view)[0];
    if (axis < -rank || axis >= rank) {
      return sdk::InvalidArgument("ConcatOp : Expected concatenating dimensions in the range [",
                                  -rank, ", ", rank, "), but got ", axis);
    }
    if (axis < 0) axis += rank;
    int64_t total = 0;
    for (int i = 0; i < num_values; ++i) {
      const TensorView& in = values[i];
      if (in.rank() != rank) {
        return sdk::InvalidArgument(
            "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
            first.shape().DebugString(), " vs. shape[", i, "] = ", in.shape().DebugString());
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim(d) != first.dim(d)) {
          return sdk::InvalidArgument("ConcatOp : Dimension ", d,
                                      " in both shapes must be equal: shape[0] = ",
                                      first.shape().DebugString(), " vs. shape[", i,
                                      "] = ", in.shape().DebugString());
        }
      }
      total += in.dim(static_cast<int>(axis));
    }
    Shape shape = first.shape();
    shape.set_dim(static_cast<int>(axis), total);
    if (num_values == 1) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const std::vector<int64_t> out_strides = Strides(shape);
    int64_t offset = 0;
    for (const TensorView& in : values) {
      TESSERA_SDK_RETURN_IF_ERROR(
          CopyInto(ctx, in, out.raw_data(), offset * out_strides[axis], out_strides));
      offset += in.dim(static_cast<int>(axis));
    }
    return sdk::OkStatus();
  }
};

class PackKernel : public sdk::Kernel {
 public:
  explicit PackKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("axis")) ctx.SetStatus(ctx.GetAttr("axis", &axis_));
  }

  Status Compute(KernelContext& ctx) override {
    const int num_values = ctx.num_inputs();
    if (num_values < 1) return sdk::InvalidArgument("Pack node '", ctx.node_name(), "' has no values");
    std::vector<TensorView> values(static_cast<size_t>(num_values));
    for (int i = 0; i < num_values; ++i) TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &values[i]));
    const Shape first_shape = values[0].shape();
    const int output_rank = first_shape.rank() + 1;
    int64_t axis = axis_;
    if (axis < -output_rank || axis >= output_rank) {
      return sdk::InvalidArgument("axis = ", axis_, " not in [", -output_rank, ", ", output_rank,
                                  ")");
    }
    if (output_rank > Shape::kMaxRank) {
      return sdk::InvalidArgument("node '", ctx.node_name(), "' would produce a tensor of rank ",
                                  output_rank, ", more than the maximum ", Shape::kMaxRank);
    }
    if (axis < 0) axis += output_rank;
    for (int i = 1; i < num_values; ++i) {
      if (values[i].shape() != first_shape) {
        return sdk::InvalidArgument("Shapes of all inputs must match: values[0].shape = ",
                                    first_shape.DebugString(), " != values[", i,
                                    "].shape = ", values[i].shape().DebugString());
      }
    }
    Shape shape = first_shape;
    shape.InsertDim(static_cast<int>(axis), num_values);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    // Value i fills the output's slice i along `axis`: the output's strides without that axis.
    std::vector<int64_t> out_strides = Strides(shape);
    const int64_t axis_stride = out_strides[axis];
    out_strides.erase(out_strides.begin() + axis);
    for (int i = 0; i < num_values; ++i) {
      TESSERA_SDK_RETURN_IF_ERROR(CopyInto(ctx, values[i], out.raw_data(), i * axis_stride,
                                           out_strides));
    }
    return sdk::OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

class TileKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView multiples_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &multiples_view));
    if (multiples_view.rank() != 1) {
      return sdk::InvalidArgument("Expected multiples to be 1-D, but got shape ",
                                  multiples_view.shape().DebugString());
    }
    const int rank = x.rank();
    if (multiples_view.dim(0) != rank) {
      return sdk::InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                                  " but got length ", multiples_view.dim(0));
    }
    const std::vector<int64_t> multiples = ReadIndexValues(multiples_view);
    Shape shape;
    for (int d = 0; d < rank; ++d) {
      if (multiples[d] < 0) {
        return sdk::InvalidArgument("Expected multiples[", d, "] >= 0, but got ", multiples[d]);
      }
      shape.AddDim(x.dim(d) * multiples[d]);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    // The output as [m0, d0, m1, d1, ...]: the input repeats over each m.
    const std::vector<int64_t> x_strides = Strides(x.shape());
    const std::vector<int64_t> out_strides = Strides(shape);
    CopyPlan plan;
    plan.rank = 2 * rank;
    for (int d = 0; d < rank; ++d) {
      plan.dims[2 * d] = multiples[d];
      plan.src_strides[2 * d] = 0;
      plan.dst_strides[2 * d] = x.dim(d) * out_strides[d];
      plan.dims[2 * d + 1] = x.dim(d);
      plan.src_strides[2 * d + 1] = x_strides[d];
      plan.dst_strides[2 * d + 1] = out_strides[d];
    }
    return Copy(ctx, x.dtype(), x.raw_data(), out.raw_data(), plan);
  }
};

// Pad (zeros) and PadV2 (constant_values, a device scalar of the input's type).
template <bool kWithConstant>
class PadKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView x;
    TensorView paddings_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &paddings_view));
    if (paddings_view.rank() != 2 || paddings_view.dim(1) != 2) {
      return sdk::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                  paddings_view.shape().DebugString());
    }
    const int rank = x.rank();
    if (paddings_view.dim(0) != rank) {
      return sdk::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                  paddings_view.shape().DebugString(), " ",
                                  x.shape().DebugString());
    }
    TensorView constant;
    if (kWithConstant) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &constant));
      if (constant.rank() != 0) {
        return sdk::InvalidArgument("constant_values must be a scalar. Found: ",
                                    constant.shape().DebugString());
      }
    }
    const std::vector<int64_t> paddings = ReadIndexValues(paddings_view);
    Shape shape;
    int64_t before_offset = 0;
    std::vector<int64_t> befores;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d];
      const int64_t after = paddings[2 * d + 1];
      if (before < 0 || after < 0) {
        return sdk::InvalidArgument("Paddings must be non-negative: ", before, " ", after);
      }
      befores.push_back(before);
      shape.AddDim(before + x.dim(d) + after);
    }
    if (shape == x.shape()) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    TESSERA_SDK_RETURN_IF_ERROR(UseDevice(ctx));
    if (kWithConstant) {
      ElementType type;
      TESSERA_SDK_RETURN_IF_ERROR(ElementTypeOf(x.dtype(), "the input", &type));
      TESSERA_SDK_RETURN_IF_ERROR(Enqueued(LaunchFill(type, constant.raw_data(), out.raw_data(),
                                                      shape.num_elements(),
                                                      NativeStream(ctx.stream())),
                                           ctx));
    } else {
      TESSERA_SDK_RETURN_IF_ERROR(GpuStatus(gpuMemsetAsync(out.raw_data(), 0, out.byte_size(),
                                                           NativeStream(ctx.stream())),
                                            sdk::StrCat("node '", ctx.node_name(), "'"),
                                            "MemsetAsync"));
    }
    const std::vector<int64_t> out_strides = Strides(shape);
    for (int d = 0; d < rank; ++d) before_offset += befores[d] * out_strides[d];
    return CopyInto(ctx, x, out.raw_data(), before_offset, out_strides);
  }
};

}  // namespace

Status RegisterArrayKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<TransposeKernel>(
      registrar, "Transpose", kDeviceType, {{"T", FixedSizeTypes()}, {"Tperm", IndexTypes()}}, 0, 0, {"perm"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SliceKernel>(
      registrar, "Slice", kDeviceType, {{"T", FixedSizeTypes()}, {"Index", IndexTypes()}}, 0, 0,
      {"begin", "size"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ConcatKernel>(
      registrar, "ConcatV2", kDeviceType, {{"T", FixedSizeTypes()}, {"Tidx", IndexTypes()}}, 0, 0, {"axis"}));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<PackKernel>(registrar, "Pack", kDeviceType, {{"T", FixedSizeTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<TileKernel>(
      registrar, "Tile", kDeviceType, {{"T", FixedSizeTypes()}, {"Tmultiples", IndexTypes()}}, 0, 0,
      {"multiples"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PadKernel<false>>(
      registrar, "Pad", kDeviceType, {{"T", FixedSizeTypes()}, {"Tpaddings", IndexTypes()}}, 0, 0,
      {"paddings"}));
  return sdk::RegisterKernel<PadKernel<true>>(
      registrar, "PadV2", kDeviceType, {{"T", ElementTypes()}, {"Tpaddings", IndexTypes()}}, 0, 0,
      {"paddings"});
}

}  // namespace tessera::gpu
