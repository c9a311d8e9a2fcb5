// LRN and LRNGrad on CPU (float): local response normalization over the last (depth) dimension
// of a 4-D tensor, out = in / (bias + alpha * sum(in^2 over the depth window))^beta; positions
// (batch, row, column) sharded over the host's pool.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

struct LrnAttrs {
  explicit LrnAttrs(KernelConstruction& ctx) {
    int64_t radius = 5;
    ctx.SetStatus(ctx.GetAttr("depth_radius", &radius));
    ctx.SetStatus(ctx.GetAttr("bias", &bias));
    ctx.SetStatus(ctx.GetAttr("alpha", &alpha));
    ctx.SetStatus(ctx.GetAttr("beta", &beta));
    // TensorFlow's FastBoundsCheck: negative values fail too, with the same message.
    if (radius < 0 || radius >= std::numeric_limits<int>::max()) {
      ctx.SetStatus(sdk::InvalidArgument("depth_radius = ", radius, " larger than int max"));
    }
    depth_radius = radius;
  }
  // The window of channel d: [begin, end).
  int64_t Begin(int64_t d) const { return std::max<int64_t>(0, d - depth_radius); }
  int64_t End(int64_t d, int64_t depth) const { return std::min(depth, d + depth_radius + 1); }
  // bias + alpha * sum of squares over the window of d.
  float Norm(const float* v, int64_t d, int64_t depth) const {
    float sum = 0;
    for (int64_t k = Begin(d); k < End(d, depth); ++k) sum += v[k] * v[k];
    return bias + alpha * sum;
  }

  int64_t depth_radius = 5;
  float bias = 1.0f;
  float alpha = 1.0f;
  float beta = 0.5f;
};

class LrnKernel : public sdk::Kernel {
 public:
  explicit LrnKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView in;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &in));
    if (in.rank() != 4) return sdk::InvalidArgument("in must be 4-dimensional");
    if (in.dtype() != TSR_DTYPE_FLOAT) return UnsupportedType(ctx, in.dtype());
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.shape(), &out));
    const int64_t depth = in.dim(3);
    if (out.num_elements() == 0) return OkStatus();
    const float* x = in.data<const float>();
    float* y = out.data<float>();
    const int64_t width = attrs_.End(depth / 2, depth) - attrs_.Begin(depth / 2);
    ctx.ParallelFor(in.num_elements() / depth, depth * (width + 20), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const float* v = x + p * depth;
        float* o = y + p * depth;
        for (int64_t d = 0; d < depth; ++d) {
          o[d] = v[d] * std::pow(attrs_.Norm(v, d, depth), -attrs_.beta);
        }
      }
    });
    return OkStatus();
  }

 private:
  const LrnAttrs attrs_;
};

// d out[j] / d in[k] = [k == j] * norm_j^-beta - 2 * alpha * beta * in[k] * out[j] / norm_j for
// k in j's window; the input gradient sums these weighted by input_grads[j].
class LrnGradKernel : public sdk::Kernel {
 public:
  explicit LrnGradKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView grads;
    TensorView image;
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &grads));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &image));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &output));
    if (grads.rank() != 4 || image.rank() != 4) {
      return sdk::InvalidArgument("inputs must be 4-dimensional");
    }
    if (image.shape() != grads.shape() || output.shape() != grads.shape()) {
      return sdk::InvalidArgument(
          "input_grads, input_image, and out_image should have the same shape");
    }
    if (grads.dtype() != TSR_DTYPE_FLOAT) return UnsupportedType(ctx, grads.dtype());
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, grads.shape(), &out));
    const int64_t depth = grads.dim(3);
    if (out.num_elements() == 0) return OkStatus();
    const float* dy = grads.data<const float>();
    const float* x = image.data<const float>();
    const float* y = output.data<const float>();
    float* dx = out.data<float>();
    const int64_t width = attrs_.End(depth / 2, depth) - attrs_.Begin(depth / 2);
    ctx.ParallelFor(
        grads.num_elements() / depth, depth * (2 * width + 20), [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p) {
            Position(dy + p * depth, x + p * depth, y + p * depth, dx + p * depth, depth);
          }
        });
    return OkStatus();
  }

 private:
  void Position(const float* dy, const float* x, const float* y, float* dx, int64_t depth) const {
    std::fill(dx, dx + depth, 0.0f);
    for (int64_t j = 0; j < depth; ++j) {
      const float norm = attrs_.Norm(x, j, depth);
      const float scale = -2.0f * attrs_.alpha * attrs_.beta * y[j] / norm;
      for (int64_t k = attrs_.Begin(j); k < attrs_.End(j, depth); ++k) {
        float d = scale * x[k];
        if (k == j) d += std::pow(norm, -attrs_.beta);
        dx[k] += d * dy[j];
      }
    }
  }

  const LrnAttrs attrs_;
};

}  // namespace

Status RegisterLrnKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> float_only = {TSR_DTYPE_FLOAT};
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<LrnKernel>(registrar, "LRN", kCpu, {{"T", float_only}}));
  return sdk::RegisterKernel<LrnGradKernel>(registrar, "LRNGrad", kCpu, {{"T", float_only}});
}

}  // namespace tessera::cpu
