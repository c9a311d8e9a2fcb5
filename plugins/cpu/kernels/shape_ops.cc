// Reshape, Shape, ExpandDims and Squeeze on CPU: metadata only, the output shares the input's
// buffer (Shape writes the dimensions to a host-memory output).
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

Status RankTooLarge(const KernelContext& ctx, int64_t rank) {
  return sdk::InvalidArgument("node '", ctx.node_name(), "' would produce a tensor of rank ", rank,
                              ", more than the maximum ", Shape::kMaxRank);
}

class ReshapeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView sizes;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &sizes));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, sizes, "shape"));
    if (sizes.rank() != 1) {
      return sdk::InvalidArgument("sizes input must be 1-D, not ", sizes.shape().DebugString());
    }
    const int64_t num_dims = sizes.dim(0);
    if (num_dims > Shape::kMaxRank) return RankTooLarge(ctx, num_dims);
    Shape shape;
    int64_t product = 1;
    int unknown_index = -1;
    bool sizes_has_zero_dim = false;
    for (int d = 0; d < num_dims; ++d) {
      const int64_t size = IndexAt(sizes, d);
      if (size == -1) {
        if (unknown_index != -1) {
          return sdk::InvalidArgument("Only one input size may be -1, not both ", unknown_index,
                                      " and ", d);
        }
        unknown_index = d;
        shape.AddDim(1);
      } else if (size < 0) {
        return sdk::InvalidArgument("Size ", d, " must be non-negative, not ", size);
      } else if (size == 0) {
        // Zero sizes stay out of the product so that -1 can still be inferred.
        shape.AddDim(0);
        sizes_has_zero_dim = true;
      } else {
        product *= size;
        shape.AddDim(size);
      }
    }
    const int64_t num_elements = input.num_elements();
    if (unknown_index != -1) {
      int64_t input_num_elements = 1;
      bool input_has_zero_dim = false;
      for (int d = 0; d < input.rank(); ++d) {
        if (input.dim(d) > 0 || !sizes_has_zero_dim) {
          input_num_elements *= input.dim(d);
        } else {
          input_has_zero_dim = true;
        }
      }
      const int64_t missing = input_num_elements / product;
      if (!input_has_zero_dim && product * missing != input_num_elements) {
        return sdk::InvalidArgument("Input to reshape is a tensor with ", input_num_elements,
                                    " values, but the requested shape requires a multiple of ",
                                    product);
      }
      shape.set_dim(unknown_index, missing);
    }
    if (shape.num_elements() != num_elements) {
      return sdk::InvalidArgument("Input to reshape is a tensor with ", num_elements,
                                  " values, but the requested shape has ", shape.num_elements());
    }
    return ctx.SetOutputFromInput(0, 0, shape);
  }
};

class ShapeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{input.rank()}, &out));
    if (out.dtype() == TSR_DTYPE_INT32) {
      for (int d = 0; d < input.rank(); ++d) {
        if (input.dim(d) > INT32_MAX) {
          return sdk::InvalidArgument("Shape output type is 32-bit but dim ", d, " is ",
                                      input.dim(d));
        }
        out.data<int32_t>()[d] = static_cast<int32_t>(input.dim(d));
      }
    } else if (out.dtype() == TSR_DTYPE_INT64) {
      for (int d = 0; d < input.rank(); ++d) out.data<int64_t>()[d] = input.dim(d);
    } else {
      return UnsupportedType(ctx, out.dtype());
    }
    return OkStatus();
  }
};

class ExpandDimsKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView dim;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &dim));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, dim, "dim"));
    if (dim.num_elements() != 1) {
      return sdk::InvalidArgument("'dim' must be a tensor with a single value");
    }
    int64_t index = IndexAt(dim, 0);
    const int rank = input.rank();
    if (index < -1 - rank || index > rank) {
      return sdk::InvalidArgument("Tried to expand dim index ", index, " for tensor with ", rank,
                                  " dimensions.");
    }
    if (rank + 1 > Shape::kMaxRank) return RankTooLarge(ctx, rank + 1);
    if (index < 0) index += rank + 1;
    Shape shape = input.shape();
    shape.InsertDim(static_cast<int>(index), 1);
    return ctx.SetOutputFromInput(0, 0, shape);
  }
};

class SqueezeKernel : public sdk::Kernel {
 public:
  explicit SqueezeKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("squeeze_dims")) ctx.SetStatus(ctx.GetAttr("squeeze_dims", &squeeze_dims_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    const int rank = input.rank();
    bool wrapped[Shape::kMaxRank] = {};
    for (int64_t dim : squeeze_dims_) {
      if (dim < -rank || dim >= rank) {
        return sdk::InvalidArgument("Tried to squeeze dim index ", dim, " for tensor with ", rank,
                                    " dimensions.");
      }
      wrapped[dim < 0 ? dim + rank : dim] = true;
    }
    Shape shape;
    for (int d = 0; d < rank; ++d) {
      const int64_t size = input.dim(d);
      if (squeeze_dims_.empty()) {
        if (size != 1) shape.AddDim(size);
      } else if (wrapped[d]) {
        if (size != 1) {
          return sdk::InvalidArgument("Can not squeeze dim[", d,
                                      "], expected a dimension of 1, got ", size);
        }
      } else {
        shape.AddDim(size);
      }
    }
    return ctx.SetOutputFromInput(0, 0, shape);
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

}  // namespace

Status RegisterShapeKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ReshapeKernel>(
      registrar, "Reshape", kCpu, {{"T", AllTypes()}, {"Tshape", IndexTypes()}}, kCheap, 0,
      {"shape"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ShapeKernel>(
      registrar, "Shape", kCpu, {{"T", AllTypes()}, {"out_type", IndexTypes()}}, kCheap, 0,
      {"output"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ExpandDimsKernel>(
      registrar, "ExpandDims", kCpu, {{"T", AllTypes()}, {"Tdim", IndexTypes()}}, kCheap, 0,
      {"dim"}));
  return sdk::RegisterKernel<SqueezeKernel>(registrar, "Squeeze", kCpu, {{"T", AllTypes()}},
                                            kCheap);
}

}  // namespace tessera::cpu
