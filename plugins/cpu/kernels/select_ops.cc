// Select and SelectV2 on CPU (every fixed-size type; elements are moved as bytes). Select follows
// TensorFlow's rule (condition scalar, of the same shape as t and e, or a vector over their first
// dimension); SelectV2 broadcasts condition, t and e together like numpy's where.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

struct Bytes16 {
  uint64_t low;
  uint64_t high;
};

// Calls fn(E{}) with E a trivially copyable type of the element size of `dtype`.
template <typename Fn>
Status DispatchElementSize(const KernelContext& ctx, TSR_DataType dtype, Fn&& fn) {
  switch (sdk::DataTypeSize(dtype)) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    case 16:
      return fn(Bytes16{});
    default:
      return UnsupportedType(ctx, dtype);
  }
}

Status SameSizeError(const TensorView& then, const TensorView& else_) {
  return sdk::InvalidArgument("'then' and 'else' must have the same size.  but received: ",
                              then.shape().DebugString(), " vs. ", else_.shape().DebugString());
}

// out[k] = cond[k] ? then[k] : else[k] over equal shapes.
Status SelectElementwise(KernelContext& ctx, const TensorView& cond, const TensorView& then,
                         const TensorView& else_) {
  TensorView out;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({1, 2}, 0, then.shape(), &out));
  if (out.num_elements() == 0) return OkStatus();
  return DispatchElementSize(ctx, out.dtype(), [&](auto tag) {
    using E = decltype(tag);
    const bool* c = cond.data<const bool>();
    const E* t = then.data<const E>();
    const E* e = else_.data<const E>();
    E* o = out.data<E>();
    ctx.ParallelFor(out.num_elements(), 2, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) o[k] = c[k] ? t[k] : e[k];
    });
    return OkStatus();
  });
}

class SelectKernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView cond;
    TensorView then;
    TensorView else_;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &cond));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &then));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &else_));
    if (cond.rank() == 0) {
      if (then.shape() != else_.shape()) return SameSizeError(then, else_);
      return ctx.SetOutputFromInput(0, *cond.data<const bool>() ? 1 : 2);
    }
    if (cond.rank() == 1 && then.rank() != 1) return SelectRows(ctx, cond, then, else_);
    const TensorView* inputs[] = {&cond, &then, &else_};
    for (int i = 1; i < 3; ++i) {
      if (inputs[i]->shape() != cond.shape()) {
        return sdk::InvalidArgument("Inputs to operation ", ctx.node_name(),
                                    " of type Select must have the same size and shape.  Input 0: ",
                                    cond.shape().DebugString(), " != input ", i, ": ",
                                    inputs[i]->shape().DebugString());
      }
    }
    return SelectElementwise(ctx, cond, then, else_);
  }

 private:
  // cond[r] picks row r (everything below the first dimension) of then or else.
  static Status SelectRows(KernelContext& ctx, const TensorView& cond, const TensorView& then,
                           const TensorView& else_) {
    if (then.rank() < 1) {
      return sdk::InvalidArgument("'then' must be at least a vector, but saw shape: ",
                                  then.shape().DebugString());
    }
    if (then.dim(0) != cond.num_elements()) {
      return sdk::InvalidArgument(
          "Number of batches of 'then' must match size of 'cond', but saw: ", then.dim(0), " vs. ",
          cond.num_elements());
    }
    if (then.shape() != else_.shape()) return SameSizeError(then, else_);
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({1, 2}, 0, then.shape(), &out));
    if (out.num_elements() == 0) return OkStatus();
    const int64_t rows = cond.num_elements();
    const size_t row_bytes =
        static_cast<size_t>(out.num_elements() / rows) * sdk::DataTypeSize(out.dtype());
    const bool* c = cond.data<const bool>();
    const char* t = then.data<const char>();
    const char* e = else_.data<const char>();
    char* o = out.data<char>();
    ctx.ParallelFor(rows, static_cast<int64_t>(row_bytes / 8 + 1), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const char* src = (c[r] ? t : e) + r * row_bytes;
        char* dst = o + r * row_bytes;
        if (src != dst) std::memcpy(dst, src, row_bytes);
      }
    });
    return OkStatus();
  }
};

// Element strides of one operand against the broadcast output (0 where it is broadcast).
void BroadcastStrides(const TensorView& in, const Shape& out, int64_t* strides) {
  const int offset = out.rank() - in.rank();
  int64_t stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int in_d = d - offset;
    const int64_t size = in_d >= 0 ? in.dim(in_d) : 1;
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
}

class SelectV2Kernel : public sdk::Kernel {
 public:
  Status Compute(KernelContext& ctx) override {
    TensorView views[3];
    for (int i = 0; i < 3; ++i) TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(i, &views[i]));
    Shape out_shape;
    if (!BroadcastShape(views, &out_shape)) {
      return sdk::InvalidArgument("condition ", views[0].shape().DebugString(), ", then ",
                                  views[1].shape().DebugString(), ", and else ",
                                  views[2].shape().DebugString(), " must be broadcastable");
    }
    const TensorView& cond = views[0];
    const TensorView& then = views[1];
    const TensorView& else_ = views[2];
    if (cond.shape() == then.shape() && then.shape() == else_.shape()) {
      return SelectElementwise(ctx, cond, then, else_);
    }
    if (cond.num_elements() == 1 && then.shape() == out_shape && else_.shape() == out_shape) {
      return ctx.SetOutputFromInput(0, *cond.data<const bool>() ? 1 : 2);
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({1, 2}, 0, out_shape, &out));
    if (out.num_elements() == 0) return OkStatus();
    int64_t strides[3][Shape::kMaxRank];
    for (int i = 0; i < 3; ++i) BroadcastStrides(views[i], out_shape, strides[i]);
    return DispatchElementSize(ctx, out.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const bool* c = cond.data<const bool>();
      const E* t = then.data<const E>();
      const E* e = else_.data<const E>();
      E* o = out.data<E>();
      const int rank = out_shape.rank();
      ctx.ParallelFor(out.num_elements(), 4, [&](int64_t begin, int64_t end) {
        int64_t index[Shape::kMaxRank] = {};
        int64_t offsets[3] = {0, 0, 0};
        int64_t rest = begin;
        for (int d = rank - 1; d >= 0; --d) {
          index[d] = rest % out_shape.dim(d);
          rest /= out_shape.dim(d);
          for (int i = 0; i < 3; ++i) offsets[i] += index[d] * strides[i][d];
        }
        for (int64_t k = begin; k < end; ++k) {
          o[k] = c[offsets[0]] ? t[offsets[1]] : e[offsets[2]];
          // Advance the odometer, innermost dimension first.
          for (int d = rank - 1; d >= 0; --d) {
            for (int i = 0; i < 3; ++i) offsets[i] += strides[i][d];
            if (++index[d] < out_shape.dim(d)) break;
            for (int i = 0; i < 3; ++i) offsets[i] -= index[d] * strides[i][d];
            index[d] = 0;
          }
        }
      });
      return OkStatus();
    });
  }

 private:
  // numpy's broadcast of the three shapes; false when some dimension differs and is not 1.
  static bool BroadcastShape(const TensorView (&views)[3], Shape* out) {
    int rank = 0;
    for (const TensorView& v : views) rank = std::max(rank, v.rank());
    *out = Shape();
    for (int d = 0; d < rank; ++d) {
      int64_t size = 1;
      for (const TensorView& v : views) {
        const int vd = d - (rank - v.rank());
        const int64_t dim = vd >= 0 ? v.dim(vd) : 1;
        if (dim == 1) continue;
        if (size != 1 && size != dim) return false;
        size = dim;
      }
      out->AddDim(size);
    }
    return true;
  }
};

}  // namespace

Status RegisterSelectKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SelectKernel>(
      registrar, "Select", kCpu, {{"T", AllTypes()}}, TSR_KERNEL_FLAG_CHEAP));
  return sdk::RegisterKernel<SelectV2Kernel>(registrar, "SelectV2", kCpu, {{"T", AllTypes()}},
                                             TSR_KERNEL_FLAG_CHEAP);
}

}  // namespace tessera::cpu
