// Transpose, ReverseV2 and Reverse on CPU (every fixed-size dtype): validated index arguments,
// then one strided copy (permuted strides, or negated strides for reversed dimensions).
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// True when the dimensions larger than 1 keep their order: the transpose is then a reshape.
bool NonSingletonDimensionsAlign(const TensorView& input, const std::vector<int>& perm) {
  int last = -1;
  for (int d : perm) {
    if (input.dim(d) == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

class TransposeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView perm_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &perm_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, perm_view, "perm"));
    if (perm_view.rank() != 1) {
      return sdk::InvalidArgument("perm must be rank 1, got shape ",
                                  perm_view.shape().DebugString());
    }
    const int dims = input.rank();
    if (perm_view.dim(0) != dims) {
      return sdk::InvalidArgument("transpose expects a vector of size ", dims,
                                  ". But input(1) is a vector of size ", perm_view.dim(0));
    }
    std::vector<int> perm(static_cast<size_t>(dims));
    std::vector<bool> seen(static_cast<size_t>(dims), false);
    Shape shape;
    bool is_identity = true;
    for (int i = 0; i < dims; ++i) {
      int64_t d = IndexAt(perm_view, i);
      if (d < 0) d += dims;
      if (d < 0 || d >= dims) {
        return sdk::InvalidArgument(d, " is out of range [0 .. ", dims, ")");
      }
      perm[i] = static_cast<int>(d);
      seen[d] = true;
      shape.AddDim(input.dim(perm[i]));
      is_identity &= perm[i] == i;
    }
    for (int i = 0; i < dims; ++i) {
      if (seen[i]) continue;
      std::string joined;
      for (int j = 0; j < dims; ++j) joined += (j > 0 ? "," : "") + std::to_string(perm[j]);
      return sdk::InvalidArgument(i, " is missing from {", joined, "}.");
    }
    if (dims <= 1 || is_identity) return ctx.SetOutputFromInput(0, 0);
    if (NonSingletonDimensionsAlign(input, perm)) return ctx.SetOutputFromInput(0, 0, shape);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape, &out));
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<CopyDim> copy_dims(static_cast<size_t>(dims));
    for (int d = 0; d < dims; ++d) {
      copy_dims[d].size = shape.dim(d);
      copy_dims[d].stride = strides[perm[d]];
    }
    const StridedCopy copy(sdk::DataTypeSize(input.dtype()), 0, std::move(copy_dims));
    RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
    return OkStatus();
  }
};

// Writes `input` with the dimensions marked in `reversed` reversed to a new output 0.
Status ReverseAlong(KernelContext& ctx, const TensorView& input,
                    const std::vector<bool>& reversed) {
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &out));
  std::vector<CopyDim> copy_dims = IdentityDims(input);
  int64_t base = 0;
  for (int d = 0; d < input.rank(); ++d) {
    if (!reversed[d]) continue;
    base += (copy_dims[d].size - 1) * copy_dims[d].stride;
    copy_dims[d].stride = -copy_dims[d].stride;
  }
  const StridedCopy copy(sdk::DataTypeSize(input.dtype()), base, std::move(copy_dims));
  RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
  return OkStatus();
}

class ReverseV2Kernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView axis_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &axis_view));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, axis_view, "axis"));
    if (input.rank() == 0 || input.num_elements() == 0) return ctx.SetOutputFromInput(0, 0);
    if (axis_view.rank() != 1) {
      return sdk::InvalidArgument("'dims' must be 1-dimension, not ", axis_view.rank());
    }
    const int dims = input.rank();
    std::vector<bool> reversed(static_cast<size_t>(dims), false);
    bool any = false;
    for (int64_t i = 0; i < axis_view.dim(0); ++i) {
      const int64_t axis = IndexAt(axis_view, i);
      const int64_t canonical = axis < 0 ? axis + dims : axis;
      if (canonical < 0 || canonical >= dims) {
        return sdk::InvalidArgument("'axis'[", i, "] = ", axis, " is out of valid range [0, ",
                                    dims - 1);
      }
      if (reversed[canonical]) {
        return sdk::InvalidArgument("axis ", canonical, " specified more than once.");
      }
      reversed[canonical] = true;
      any |= input.dim(static_cast<int>(canonical)) > 1;
    }
    if (!any) return ctx.SetOutputFromInput(0, 0);
    return ReverseAlong(ctx, input, reversed);
  }
};

// Reverse (v1): a bool per dimension of the input says whether to reverse it.
class ReverseKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView dims_view;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &dims_view));
    if (input.rank() == 0) return ctx.SetOutputFromInput(0, 0);
    if (dims_view.dtype() != TSR_DTYPE_BOOL) {
      return sdk::InvalidArgument("dims of node '", ctx.node_name(), "' must be bool, got ",
                                  sdk::DataTypeName(dims_view.dtype()));
    }
    if (dims_view.rank() != 1) {
      return sdk::InvalidArgument("'dims' must be 1-dimension, not ", dims_view.rank());
    }
    if (dims_view.dim(0) != input.rank()) {
      return sdk::InvalidArgument(
          "'dims' must have the same number of values as 'input' has dimensions. 'input' has ",
          input.rank(), "'dims' has ", dims_view.dim(0), " values");
    }
    std::vector<bool> reversed(static_cast<size_t>(input.rank()), false);
    bool any = false;
    for (int d = 0; d < input.rank(); ++d) {
      reversed[d] = dims_view.data<const bool>()[d];
      any |= reversed[d] && input.dim(d) > 1;
    }
    if (!any || input.num_elements() == 0) return ctx.SetOutputFromInput(0, 0);
    return ReverseAlong(ctx, input, reversed);
  }
};

// ReverseV2's type list (TensorFlow's, less string).
const std::vector<TSR_DataType>& ReverseTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_UINT8,  TSR_DTYPE_INT8,      TSR_DTYPE_UINT16,    TSR_DTYPE_INT16, TSR_DTYPE_INT32,
      TSR_DTYPE_INT64,  TSR_DTYPE_BOOL,      TSR_DTYPE_BFLOAT16,  TSR_DTYPE_HALF,  TSR_DTYPE_FLOAT,
      TSR_DTYPE_DOUBLE, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};
  return *types;
}

}  // namespace

Status RegisterTransposeKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<TransposeKernel>(
      registrar, "Transpose", kCpu, {{"T", AllTypes()}, {"Tperm", IndexTypes()}}, 0, 0, {"perm"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ReverseV2Kernel>(
      registrar, "ReverseV2", kCpu, {{"T", ReverseTypes()}, {"Tidx", IndexTypes()}}, 0, 0,
      {"axis"}));
  return sdk::RegisterKernel<ReverseKernel>(registrar, "Reverse", kCpu, {{"T", ReverseTypes()}},
                                            0, 0, {"dims"});
}

}  // namespace tessera::cpu
