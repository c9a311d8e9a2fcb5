// Sparse variable updates and reads on CPU: ScatterUpdate/Add/Sub/Mul/Div/Min/Max on ref
// variables, their ResourceScatter* forms, and ResourceGather. The host hands each variable in as
// its own storage (locked as use_locking asks) and forwards the ref output itself; these kernels
// update or read the storage along its first dimension, one slice per index.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

enum class ScatterOp { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

// Every index in [0, limit): TensorFlow's error names the first that is not.
Status CheckIndices(const TensorView& indices, int64_t limit) {
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    const int64_t index = IndexAt(indices, i);
    if (index < 0 || index >= limit) {
      return sdk::InvalidArgument("indices", SliceIndexString(indices.shape(), i), " = ", index,
                                  " is not in [0, ", limit, ")");
    }
  }
  return OkStatus();
}

template <ScatterOp kOp, typename T>
void Apply(T& target, T value) {
  if constexpr (kOp == ScatterOp::kUpdate) {
    target = value;
  } else if constexpr (kOp == ScatterOp::kAdd) {
    target = WrappingAdd(target, value);
  } else if constexpr (kOp == ScatterOp::kSub) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      target = static_cast<T>(static_cast<U>(target) - static_cast<U>(value));
    } else {
      target = target - value;
    }
  } else if constexpr (kOp == ScatterOp::kMul) {
    target = WrappingMultiply(target, value);
  } else if constexpr (kOp == ScatterOp::kDiv) {
    // Integer zeros are refused before any update; the one quotient that overflows (the
    // lowest value over -1) wraps to itself.
    if constexpr (std::is_integral_v<T>) {
      if (!(value == T(-1) && target == std::numeric_limits<T>::lowest())) target = target / value;
    } else {
      target = target / value;
    }
  } else if constexpr (kOp == ScatterOp::kMin) {
    // NaN in either operand gives NaN, as std::min does not.
    if constexpr (std::is_floating_point_v<T>) {
      target = (target != target || value != value) ? target + value : std::min(target, value);
    } else {
      target = std::min(target, value);
    }
  } else {
    if constexpr (std::is_floating_point_v<T>) {
      target = (target != target || value != value) ? target + value : std::max(target, value);
    } else {
      target = std::max(target, value);
    }
  }
}

// Scatter<op> and ResourceScatter<op>: for each index i, params[indices[i], ...] op= the i-th
// slice of updates (or the scalar updates). Repeated indices all apply, in index order.
template <ScatterOp kOp>
class ScatterKernel : public sdk::Kernel {
 public:
  explicit ScatterKernel(KernelConstruction&) {}

  Status Compute(KernelContext& ctx) override {
    TensorView params;
    TensorView indices;
    TensorView updates;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &params));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &updates));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, indices, "indices"));
    if (params.rank() < 1) {
      return sdk::InvalidArgument("params must be at least 1-D, got shape ",
                                  params.shape().DebugString());
    }
    if (params.dtype() != updates.dtype()) {
      return sdk::InvalidArgument("the variable of node '", ctx.node_name(), "' is ",
                                  sdk::DataTypeName(params.dtype()), " but the updates are ",
                                  sdk::DataTypeName(updates.dtype()));
    }
    const bool scalar_updates = updates.rank() == 0;
    if (!scalar_updates) {
      bool matches = updates.rank() == indices.rank() + params.rank() - 1;
      for (int d = 0; matches && d < indices.rank(); ++d) {
        matches = updates.dim(d) == indices.dim(d);
      }
      for (int d = 1; matches && d < params.rank(); ++d) {
        matches = updates.dim(indices.rank() + d - 1) == params.dim(d);
      }
      if (!matches) {
        return sdk::InvalidArgument(
            "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            "got updates.shape ",
            updates.shape().DebugString(), ", indices.shape ", indices.shape().DebugString(),
            ", params.shape ", params.shape().DebugString());
      }
    }
    const int64_t num_indices = indices.num_elements();
    if (num_indices == 0) return OkStatus();
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndices(indices, params.dim(0)));
    const int64_t slice = params.num_elements() / params.dim(0);
    if (slice == 0) return OkStatus();
    if constexpr (kOp == ScatterOp::kUpdate) {
      // Only bytes move: every fixed-size type. A repeated index keeps its last update.
      const size_t element = sdk::DataTypeSize(params.dtype());
      char* dst = static_cast<char*>(params.raw_data());
      const char* src = static_cast<const char*>(updates.raw_data());
      const size_t slice_bytes = static_cast<size_t>(slice) * element;
      for (int64_t i = 0; i < num_indices; ++i) {
        char* row = dst + IndexAt(indices, i) * slice_bytes;
        if (scalar_updates) {
          FillWithElement(ctx, row, slice, element, src);
        } else {
          std::memcpy(row, src + i * slice_bytes, slice_bytes);
        }
      }
      return OkStatus();
    } else {
      return DispatchTypes<float, double, int32_t, int64_t>(ctx, params.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* src = updates.data<const T>();
        if constexpr (kOp == ScatterOp::kDiv && std::is_integral_v<T>) {
          const int64_t n = updates.num_elements();
          for (int64_t i = 0; i < n; ++i) {
            if (src[i] == 0) {
              return sdk::InvalidArgument("Integer division by zero in the updates of node '",
                                          ctx.node_name(), "'");
            }
          }
        }
        T* dst = params.data<T>();
        // Each worker takes a range of columns of every indexed slice, so repeated indices
        // apply in order without two workers touching one element.
        ctx.ParallelFor(slice, CostPerUnit(4.0 * static_cast<double>(num_indices)),
                        [&](int64_t begin, int64_t end) {
                          for (int64_t i = 0; i < num_indices; ++i) {
                            T* row = dst + IndexAt(indices, i) * slice;
                            for (int64_t c = begin; c < end; ++c) {
                              Apply<kOp>(row[c], scalar_updates ? src[0] : src[i * slice + c]);
                            }
                          }
                        });
        return OkStatus();
      });
    }
  }
};

// ResourceGather: the slices params[indices[i], ...] of the variable, shaped
// indices.shape + params.shape[1:].
class ResourceGatherKernel : public sdk::Kernel {
 public:
  explicit ResourceGatherKernel(KernelConstruction& ctx) {
    if (ctx.HasAttr("batch_dims")) ctx.SetStatus(ctx.GetAttr("batch_dims", &batch_dims_));
  }

  Status Compute(KernelContext& ctx) override {
    if (batch_dims_ != 0) {
      return sdk::Unimplemented("ResourceGather of node '", ctx.node_name(),
                                "' with batch_dims = ", batch_dims_,
                                ": the CPU kernel gathers along the first dimension only "
                                "(batch_dims = 0)");
    }
    TensorView params;
    TensorView indices;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &params));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &indices));
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, indices, "indices"));
    if (params.rank() < 1) {
      return sdk::InvalidArgument("params must be at least 1 dimensional");
    }
    const int out_rank = indices.rank() + params.rank() - 1;
    if (out_rank > Shape::kMaxRank) return RankAboveMaximum(ctx, out_rank);
    Shape out_shape = indices.shape();
    for (int d = 1; d < params.rank(); ++d) out_shape.AddDim(params.dim(d));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    const int64_t num_indices = indices.num_elements();
    if (num_indices == 0) return OkStatus();
    TESSERA_SDK_RETURN_IF_ERROR(CheckIndices(indices, params.dim(0)));
    const int64_t slice = params.dim(0) == 0 ? 0 : params.num_elements() / params.dim(0);
    const size_t slice_bytes = static_cast<size_t>(slice) * sdk::DataTypeSize(params.dtype());
    if (slice_bytes == 0) return OkStatus();
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = out.data<char>();
    ctx.ParallelFor(num_indices, static_cast<int64_t>(slice_bytes / 4 + 8),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t i = begin; i < end; ++i) {
                        std::memcpy(dst + i * slice_bytes, src + IndexAt(indices, i) * slice_bytes,
                                    slice_bytes);
                      }
                    });
    return OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

template <ScatterOp kOp>
Status RegisterScatter(TSR_Registrar* registrar, const std::string& suffix,
                       const std::vector<TSR_DataType>& types) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ScatterKernel<kOp>>(
      registrar, ("Scatter" + suffix).c_str(), kCpu, {{"T", types}, {"Tindices", IndexTypes()}}));
  return sdk::RegisterKernel<ScatterKernel<kOp>>(registrar, ("ResourceScatter" + suffix).c_str(),
                                                 kCpu,
                                                 {{"dtype", types}, {"Tindices", IndexTypes()}});
}

}  // namespace

Status RegisterScatterKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(RegisterScatter<ScatterOp::kUpdate>(registrar, "Update", AllTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kAdd>(registrar, "Add", RealNumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kSub>(registrar, "Sub", RealNumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kMul>(registrar, "Mul", RealNumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kDiv>(registrar, "Div", RealNumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kMin>(registrar, "Min", RealNumberTypes()));
  TESSERA_SDK_RETURN_IF_ERROR(
      RegisterScatter<ScatterOp::kMax>(registrar, "Max", RealNumberTypes()));
  return sdk::RegisterKernel<ResourceGatherKernel>(
      registrar, "ResourceGather", kCpu, {{"dtype", AllTypes()}, {"Tindices", IndexTypes()}});
}

}  // namespace tessera::cpu
