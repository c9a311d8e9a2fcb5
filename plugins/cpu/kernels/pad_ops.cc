// Pad, PadV2 and MirrorPad on CPU (every fixed-size dtype): one strided copy whose padded edges
// take a constant (zero, or PadV2's constant_values) or, for MirrorPad, mirrored source indices.
#include <string>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Checks `paddings` against `input` and reads its (before, after) pairs. `separator` goes
// between the two shapes of the rank error (Pad uses " ", MirrorPad ", ", as TensorFlow does).
Status ReadPaddings(const KernelContext& ctx, const TensorView& input, const TensorView& paddings,
                    const char* separator, std::vector<int64_t>* pairs) {
  TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, paddings, "paddings"));
  if (paddings.rank() != 2 || paddings.dim(1) != 2) {
    return sdk::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                paddings.shape().DebugString());
  }
  if (paddings.dim(0) != input.rank()) {
    return sdk::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                paddings.shape().DebugString(), separator,
                                input.shape().DebugString());
  }
  *pairs = IntegersOf(paddings);
  return OkStatus();
}

class PadKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView paddings;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &paddings));
    std::vector<int64_t> pads;
    TESSERA_SDK_RETURN_IF_ERROR(ReadPaddings(ctx, input, paddings, " ", &pads));
    alignas(16) unsigned char zero[16] = {};
    const void* fill = zero;
    if (ctx.num_inputs() == 3) {
      TensorView constant;
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &constant));
      if (constant.rank() != 0) {
        return sdk::InvalidArgument("constant_values must be a scalar. Found: ",
                                    constant.shape().DebugString());
      }
      fill = constant.raw_data();
    }
    const int rank = input.rank();
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<CopyDim> dims(static_cast<size_t>(rank));
    Shape out_shape;
    bool unpadded = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = pads[2 * d];
      const int64_t after = pads[2 * d + 1];
      if (before < 0 || after < 0) {
        return sdk::InvalidArgument("Paddings must be non-negative: ", before, " ", after);
      }
      if (__builtin_add_overflow(before, input.dim(d), &dims[d].size) ||
          __builtin_add_overflow(dims[d].size, after, &dims[d].size)) {
        return sdk::InvalidArgument("Pad: output dimension ", d, " = ", before, " + ", input.dim(d),
                                    " + ", after, " does not fit in int64");
      }
      dims[d].stride = strides[d];
      dims[d].pad_before = before;
      dims[d].pad_after = after;
      out_shape.AddDim(dims[d].size);
      unpadded &= before == 0 && after == 0;
    }
    if (unpadded) return ctx.SetOutputFromInput(0, 0);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    const StridedCopy copy(sdk::DataTypeSize(input.dtype()), 0, std::move(dims));
    RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data(), fill);
    return OkStatus();
  }
};

class MirrorPadKernel : public sdk::Kernel {
 public:
  explicit MirrorPadKernel(KernelConstruction& ctx) {
    std::string mode;
    ctx.SetStatus(ctx.GetAttr("mode", &mode));
    if (mode == "REFLECT") {
      offset_ = 1;
    } else if (mode == "SYMMETRIC") {
      offset_ = 0;
    } else if (ctx.ok()) {
      ctx.SetStatus(sdk::InvalidArgument("mode must be either REFLECT or SYMMETRIC."));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView paddings;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &paddings));
    std::vector<int64_t> pads;
    TESSERA_SDK_RETURN_IF_ERROR(ReadPaddings(ctx, input, paddings, ", ", &pads));
    const int rank = input.rank();
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    std::vector<CopyDim> dims(static_cast<size_t>(rank));
    Shape out_shape;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = pads[2 * d];
      const int64_t after = pads[2 * d + 1];
      const int64_t size = input.dim(d);
      if (before < 0 || after < 0) {
        return sdk::InvalidArgument("paddings must be non-negative: ", before, " ", after);
      }
      if (offset_ == 0 && (before > size || after > size)) {
        return sdk::InvalidArgument("paddings must be no greater than the dimension size: ", before,
                                    ", ", after, " greater than ", size);
      }
      if (offset_ == 1 && (before >= size || after >= size)) {
        return sdk::InvalidArgument("paddings must be less than the dimension size: ", before, ", ",
                                    after, " not less than ", size);
      }
      dims[d].size = before + size + after;
      dims[d].stride = strides[d];
      if (before > 0 || after > 0) {
        // Index j < 0 mirrors to -j - 1 + offset, j >= size to 2 * size - j - 1 - offset.
        dims[d].offsets.resize(static_cast<size_t>(dims[d].size));
        for (int64_t i = 0; i < dims[d].size; ++i) {
          const int64_t j = i - before;
          const int64_t source = j < 0       ? -j - 1 + offset_
                                 : j >= size ? 2 * size - j - 1 - offset_
                                             : j;
          dims[d].offsets[i] = source * strides[d];
        }
      }
      out_shape.AddDim(dims[d].size);
    }
    if (out_shape.num_elements() == input.num_elements()) {
      return ctx.SetOutputFromInput(0, 0, out_shape);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &out));
    const StridedCopy copy(sdk::DataTypeSize(input.dtype()), 0, std::move(dims));
    RunStridedCopy(ctx, copy, input.raw_data(), out.raw_data());
    return OkStatus();
  }

 private:
  int64_t offset_ = 0;  // 1 skips the edge element (REFLECT), 0 repeats it (SYMMETRIC)
};

}  // namespace

Status RegisterPadKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PadKernel>(
      registrar, "Pad", kCpu, {{"T", AllTypes()}, {"Tpaddings", IndexTypes()}}, 0, 0,
      {"paddings"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<PadKernel>(
      registrar, "PadV2", kCpu, {{"T", AllTypes()}, {"Tpaddings", IndexTypes()}}, 0, 0,
      {"paddings"}));
  return sdk::RegisterKernel<MirrorPadKernel>(registrar, "MirrorPad", kCpu,
                                              {{"T", AllTypes()}, {"Tpaddings", IndexTypes()}}, 0,
                                              0, {"paddings"});
}

}  // namespace tessera::cpu
