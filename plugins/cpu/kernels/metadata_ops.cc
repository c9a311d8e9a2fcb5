// Size, Rank, ShapeN, BroadcastGradientArgs and ConcatOffset on CPU: results computed from shapes
// alone, written to host-memory outputs.
#include <algorithm>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

class SizeKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{}, &out));
    const int64_t size = input.num_elements();
    if (out.dtype() == TSR_DTYPE_INT32) {
      if (size > INT32_MAX) {
        return sdk::InvalidArgument(
            "Number of elements was larger than representable by 32-bit output type");
      }
      *out.data<int32_t>() = static_cast<int32_t>(size);
    } else if (out.dtype() == TSR_DTYPE_INT64) {
      *out.data<int64_t>() = size;
    } else {
      return UnsupportedType(ctx, out.dtype());
    }
    return OkStatus();
  }
};

class RankKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, Shape{}, &out));
    *out.data<int32_t>() = input.rank();
    return OkStatus();
  }
};

// Writes `values` to the int32 or int64 vector `out`.
void WriteIntegers(const std::vector<int64_t>& values, TensorView& out) {
  for (size_t k = 0; k < values.size(); ++k) {
    if (out.dtype() == TSR_DTYPE_INT32) {
      out.data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    } else {
      out.data<int64_t>()[k] = values[k];
    }
  }
}

// Output i is the shape of input i.
class ShapeNKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TensorView input;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &input));
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(i, Shape{input.rank()}, &out));
      if (out.dtype() != TSR_DTYPE_INT32 && out.dtype() != TSR_DTYPE_INT64) {
        return UnsupportedType(ctx, out.dtype());
      }
      std::vector<int64_t> dims(input.dims(), input.dims() + input.rank());
      for (int d = 0; d < input.rank(); ++d) {
        if (out.dtype() == TSR_DTYPE_INT32 && dims[d] > INT32_MAX) {
          return sdk::InvalidArgument("ShapeN output type is 32-bit but shape ", i, " dim ", d,
                                      " is ", dims[d]);
        }
      }
      WriteIntegers(dims, out);
    }
    return OkStatus();
  }
};

std::string ShapeVectorString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

// For shapes s0 and s1 that broadcast together: r0 and r1 list the dimensions (of the broadcast
// result) that each input's gradient must be summed over, i.e. where that input, padded with
// leading ones, has size 1.
class BroadcastGradientArgsKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      TensorView in;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &in));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, in, "shape"));
      if (in.rank() != 1) {
        return sdk::InvalidArgument("In[", i, "] must be a vector.", in.shape().DebugString());
      }
      shapes[i] = IntegersOf(in);
    }
    const size_t rank = std::max(shapes[0].size(), shapes[1].size());
    std::vector<int64_t> padded[2];
    for (int i = 0; i < 2; ++i) {
      padded[i].assign(rank - shapes[i].size(), 1);
      padded[i].insert(padded[i].end(), shapes[i].begin(), shapes[i].end());
    }
    for (size_t d = 0; d < rank; ++d) {
      const int64_t a = padded[0][d];
      const int64_t b = padded[1][d];
      if (a != b && a != 1 && b != 1) {
        return sdk::InvalidArgument("Incompatible shapes: ", ShapeVectorString(shapes[0]), " vs. ",
                                    ShapeVectorString(shapes[1]));
      }
    }
    for (int i = 0; i < 2; ++i) {
      std::vector<int64_t> reduce;
      for (size_t d = 0; d < rank; ++d) {
        if (padded[i][d] == 1) reduce.push_back(static_cast<int64_t>(d));
      }
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(
          ctx.AllocateOutput(i, Shape{static_cast<int64_t>(reduce.size())}, &out));
      for (size_t k = 0; k < reduce.size(); ++k) {
        if (out.dtype() == TSR_DTYPE_INT32) {
          out.data<int32_t>()[k] = static_cast<int32_t>(reduce[k]);
        } else {
          out.data<int64_t>()[k] = reduce[k];
        }
      }
    }
    return OkStatus();
  }
};

// TensorFlow's SummarizeValue of a short integer vector: "2 3 5".
std::string SpacedValues(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i > 0 ? " " : "") + std::to_string(values[i]);
  return out;
}

// ConcatOffset(concat_dim, shape_0..shape_N-1): offset i is zero except along the concatenation
// axis, where it is the sum of the earlier shapes' sizes there. Every other dimension must match
// shape_0's.
class ConcatOffsetKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView concat_dim;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &concat_dim));
    if (concat_dim.rank() != 0) {
      return sdk::InvalidArgument("Concat dim tensor should be a scalar integer, but got shape ",
                                  concat_dim.shape().DebugString());
    }
    const int n = ctx.num_inputs() - 1;
    std::vector<std::vector<int64_t>> shapes;
    for (int i = 0; i < n; ++i) {
      TensorView shape;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i + 1, &shape));
      TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, shape, "shape"));
      if (shape.rank() != 1) {
        return sdk::InvalidArgument("input ", i, " should be a vector, but got shape ",
                                    shape.shape().DebugString());
      }
      shapes.push_back(IntegersOf(shape));
    }
    if (n < 1) return sdk::InvalidArgument("ConcatOffset needs at least one shape input");
    const int64_t dims = static_cast<int64_t>(shapes[0].size());
    const int64_t cdim = IndexAt(concat_dim, 0);
    const int64_t axis = cdim < 0 ? cdim + dims : cdim;
    if (axis < 0 || axis >= dims) {
      return sdk::InvalidArgument("Concat dim is out of range: ", cdim, " vs. ", dims);
    }
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const std::vector<int64_t>& shape = shapes[i];
      if (static_cast<int64_t>(shape.size()) != dims) {
        return sdk::InvalidArgument("input ", i, " should contain ", dims, " elements, but got ",
                                    shape.size());
      }
      std::vector<int64_t> out_values(static_cast<size_t>(dims), 0);
      for (int64_t j = 0; j < dims; ++j) {
        if (j == axis) {
          out_values[j] = offset;
          offset += shape[j];
        } else if (shape[j] != shapes[0][j]) {
          return sdk::InvalidArgument("All dimensions except ", axis, " must match. Input ", i,
                                      " has shape [", SpacedValues(shape),
                                      "] and doesn't match input 0 with shape [",
                                      SpacedValues(shapes[0]), "].");
        }
      }
      TensorView out;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(i, Shape{dims}, &out));
      WriteIntegers(out_values, out);
    }
    return OkStatus();
  }
};

}  // namespace

Status RegisterMetadataKernels(TSR_Registrar* registrar) {
  constexpr uint32_t kCheap = TSR_KERNEL_FLAG_CHEAP;
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SizeKernel>(
      registrar, "Size", kCpu, {{"T", AllTypes()}, {"out_type", IndexTypes()}}, kCheap, 0,
      {"output"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<RankKernel>(
      registrar, "Rank", kCpu, {{"T", AllTypes()}}, kCheap, 0, {"output"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ShapeNKernel>(
      registrar, "ShapeN", kCpu, {{"T", AllTypes()}, {"out_type", IndexTypes()}}, kCheap, 0,
      {"output"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BroadcastGradientArgsKernel>(
      registrar, "BroadcastGradientArgs", kCpu, {{"T", IndexTypes()}}, kCheap, 0,
      {"s0", "s1", "r0", "r1"}));
  return sdk::RegisterKernel<ConcatOffsetKernel>(registrar, "ConcatOffset", kCpu,
                                                 {{"shape_type", IndexTypes()}}, kCheap, 0,
                                                 {"concat_dim", "shape", "offset"});
}

}  // namespace tessera::cpu
