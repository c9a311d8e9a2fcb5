// DynamicStitch and ParallelDynamicStitch on CPU (every fixed-size dtype; int32 indices in host
// memory): merged[indices_k[j], ...] = data_k[j, ...]. Inputs are applied in order, so where an
// index repeats the last input holding it wins; ParallelDynamicStitch leaves that order
// unspecified and gets the same answer here.
#include <cstdint>
#include <cstring>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// True when data0's dimensions past indices0's equal data1's past indices1's.
bool SameExtraShape(const TensorView& data0, const TensorView& indices0, const TensorView& data1,
                    const TensorView& indices1) {
  const int extra0 = data0.rank() - indices0.rank();
  const int extra1 = data1.rank() - indices1.rank();
  if (extra0 != extra1) return false;
  for (int d = 0; d < extra0; ++d) {
    if (data0.dim(indices0.rank() + d) != data1.dim(indices1.rank() + d)) return false;
  }
  return true;
}

class DynamicStitchKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    if (ctx.num_inputs() == 0 || ctx.num_inputs() % 2 != 0) {
      return sdk::InvalidArgument("node '", ctx.node_name(),
                                  "' needs as many data inputs as indices inputs, got ",
                                  ctx.num_inputs(), " inputs in all");
    }
    const int n = ctx.num_inputs() / 2;
    std::vector<TensorView> indices(static_cast<size_t>(n));
    std::vector<TensorView> data(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(k, &indices[k]));
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(n + k, &data[k]));
      if (indices[k].dtype() != TSR_DTYPE_INT32) {
        return sdk::InvalidArgument("indices[", k, "] of node '", ctx.node_name(),
                                    "' must be int32, got ",
                                    sdk::DataTypeName(indices[k].dtype()));
      }
    }
    int64_t max_index = -1;
    for (const TensorView& ids : indices) {
      const int32_t* values = ids.data<const int32_t>();
      for (int64_t j = 0; j < ids.num_elements(); ++j) {
        if (values[j] > max_index) max_index = values[j];
      }
    }
    const int64_t rows = max_index + 1;
    for (int k = 0; k < n; ++k) {
      const int32_t* values = indices[k].data<const int32_t>();
      for (int64_t j = 0; j < indices[k].num_elements(); ++j) {
        if (values[j] < 0 || values[j] >= rows) {
          return sdk::InvalidArgument("indices[", j, "] is out of range: ", values[j],
                                      " (input ", k, ") is not in [0, ", rows, ")");
        }
      }
    }
    for (int k = 0; k < n; ++k) {
      if (!ShapeStartsWith(data[k].shape(), indices[k].shape())) {
        return sdk::InvalidArgument("data[", k, "].shape = ", data[k].shape().DebugString(),
                                    " does not start with indices[", k,
                                    "].shape = ", indices[k].shape().DebugString());
      }
      if (k > 0 && !SameExtraShape(data[0], indices[0], data[k], indices[k])) {
        return sdk::InvalidArgument(
            "Need data[0].shape[", indices[0].rank(), ":] = data[", k, "].shape[",
            indices[k].rank(), ":], got data[0].shape = ", data[0].shape().DebugString(),
            ", data[", k, "].shape = ", data[k].shape().DebugString(),
            ", indices[0].shape = ", indices[0].shape().DebugString(), ", indices[", k,
            "].shape = ", indices[k].shape().DebugString());
      }
    }
    Shape out_shape;
    out_shape.AddDim(rows);
    for (int d = indices[0].rank(); d < data[0].rank(); ++d) out_shape.AddDim(data[0].dim(d));
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.byte_size() == 0) return OkStatus();
    // Rows no index names stay zero, as in TensorFlow.
    std::memset(out.raw_data(), 0, out.byte_size());
    const size_t row_bytes = out.byte_size() / static_cast<size_t>(rows);
    char* dst = static_cast<char*>(out.raw_data());
    for (int k = 0; k < n; ++k) {
      const int32_t* values = indices[k].data<const int32_t>();
      const char* src = static_cast<const char*>(data[k].raw_data());
      for (int64_t j = 0; j < indices[k].num_elements(); ++j) {
        std::memcpy(dst + static_cast<size_t>(values[j]) * row_bytes,
                    src + static_cast<size_t>(j) * row_bytes, row_bytes);
      }
    }
    return OkStatus();
  }
};

}  // namespace

Status RegisterDynamicStitchKernels(TSR_Registrar* registrar) {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<DynamicStitchKernel>(
        registrar, op, kCpu, {{"T", AllTypes()}}, 0, 0, {"indices"}));
  }
  return OkStatus();
}

}  // namespace tessera::cpu
