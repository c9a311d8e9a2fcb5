// FusedBatchNormV3 and FusedBatchNormGradV3 on CPU (T = U = float) for 4-D and 5-D tensors with
// channels last (NHWC, NDHWC) or first (NCHW, NCDHW), and the same kernels for FusedBatchNorm,
// FusedBatchNormV2 and their gradients (V3 without reserve_space_3). Per-channel sums accumulate in double;
// training normalizes with the biased batch variance and reports the Bessel-corrected one, as
// TensorFlow does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// x viewed as [outer, channels, inner]: inner is 1 with channels last.
struct ChannelLayout {
  ChannelLayout(const Shape& shape, bool channels_first) {
    const int channel_dim = channels_first ? 1 : shape.rank() - 1;
    channels = shape.dim(channel_dim);
    for (int d = channel_dim + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
    for (int d = 0; d < channel_dim; ++d) outer *= shape.dim(d);
  }
  // Elements per channel (TensorFlow's rest_size).
  int64_t per_channel() const { return outer * inner; }

  int64_t outer = 1;
  int64_t channels = 0;
  int64_t inner = 1;
};

// result[c] = sum of f(i, c) over the elements i of channel c, in double.
template <typename F>
void SumPerChannel(KernelContext& ctx, const ChannelLayout& l, std::vector<double>* result, F f) {
  const int64_t channels = l.channels;
  result->assign(static_cast<size_t>(channels), 0.0);
  double* out = result->data();
  if (l.inner > 1) {
    ctx.ParallelFor(channels, l.outer * l.inner * 4, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        double sum = 0;
        for (int64_t n = 0; n < l.outer; ++n) {
          const int64_t base = (n * channels + c) * l.inner;
          for (int64_t k = 0; k < l.inner; ++k) sum += f(base + k, c);
        }
        out[c] = sum;
      }
    });
    return;
  }
  // Channels last: blocks of rows sum into their own partial vectors.
  const int64_t rows = l.outer;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(rows, 4 * ctx.NumThreads()));
  std::vector<double> partial(static_cast<size_t>(blocks * channels), 0.0);
  ctx.ParallelFor(blocks, (rows / blocks + 1) * channels * 4, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      double* sums = partial.data() + b * channels;
      for (int64_t r = rows * b / blocks; r < rows * (b + 1) / blocks; ++r) {
        for (int64_t c = 0; c < channels; ++c) sums[c] += f(r * channels + c, c);
      }
    }
  });
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t c = 0; c < channels; ++c) out[c] += partial[b * channels + c];
  }
}

// out[i] = f(i, channel of i) for every element, sharded over the pool.
template <typename F>
void ForEachElement(KernelContext& ctx, const ChannelLayout& l, F f) {
  const int64_t runs = l.outer * l.channels;
  ctx.ParallelFor(runs, l.inner * 8, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run) {
      const int64_t c = run % l.channels;
      for (int64_t i = run * l.inner; i < (run + 1) * l.inner; ++i) f(i, c);
    }
  });
}

// The attributes both kernels read.
struct BatchNormAttrs {
  explicit BatchNormAttrs(KernelConstruction& ctx) {
    std::string data_format = "NHWC";
    ctx.SetStatus(ctx.GetAttr("epsilon", &epsilon));
    if (ctx.HasAttr("exponential_avg_factor")) {
      ctx.SetStatus(ctx.GetAttr("exponential_avg_factor", &exponential_avg_factor));
    }
    ctx.SetStatus(ctx.GetAttr("is_training", &is_training));
    if (ctx.HasAttr("data_format")) ctx.SetStatus(ctx.GetAttr("data_format", &data_format));
    if (data_format == "NCHW" || data_format == "NCDHW") {
      channels_first = true;
    } else if (data_format != "NHWC" && data_format != "NDHWC") {
      ctx.SetStatus(sdk::InvalidArgument("Invalid data format: '", data_format, "'"));
    }
  }
  float epsilon = 0.0001f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;
  bool channels_first = false;
};

Status CheckRank(const TensorView& t, int rank, const char* message) {
  if (t.rank() == rank) return OkStatus();
  return sdk::InvalidArgument(message, t.shape().DebugString());
}

Status CheckChannels(const TensorView& t, int64_t channels, const std::string& what) {
  if (t.num_elements() == channels) return OkStatus();
  return sdk::InvalidArgument(what,
                              " must have the same number of elements as the channels of x, got ",
                              t.num_elements(), " and ", channels);
}

void Fill(const TensorView& t, float value) {
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = value;
}

class FusedBatchNormKernel : public sdk::Kernel {
 public:
  explicit FusedBatchNormKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView x, scale, offset, mean, variance;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &scale));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &offset));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &mean));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(4, &variance));
    if (x.rank() != 4 && x.rank() != 5) {
      return sdk::InvalidArgument("input must be 4 or 5-dimensional", x.shape().DebugString());
    }
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(scale, 1, "scale must be 1-dimensional"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(offset, 1, "offset must be 1-dimensional"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(mean, 1, "estimated_mean must be 1-dimensional"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(variance, 1, "estimated_variance must be 1-dimensional"));
    const ChannelLayout l(x.shape(), attrs_.channels_first);
    TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(scale, l.channels, "scale"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(offset, l.channels, "offset"));
    const bool use_moving = !attrs_.is_training || attrs_.exponential_avg_factor != 1.0f;
    if (use_moving) {
      const std::string prefix =
          attrs_.is_training ? "When exponential_avg_factor != 1" : "When is_training=false";
      TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(mean, l.channels, prefix + ", mean"));
      TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(variance, l.channels, prefix + ", variance"));
    }
    if (x.dtype() != TSR_DTYPE_FLOAT) return UnsupportedType(ctx, x.dtype());
    TensorView y, batch_mean, batch_var, saved_mean, saved_var, reserve_3;
    const Shape channel_shape({l.channels});
    TESSERA_SDK_RETURN_IF_ERROR(ctx.ForwardInputOrAllocateOutput({0}, 0, x.shape(), &y));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, channel_shape, &batch_mean));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(2, channel_shape, &batch_var));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(3, channel_shape, &saved_mean));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(4, channel_shape, &saved_var));
    if (ctx.num_outputs() > 5) {  // V3 only
      TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(5, Shape(), &reserve_3));
      *reserve_3.data<float>() = 0.0f;
    }
    if (x.num_elements() == 0) {
      // TensorFlow's statistics of an empty batch.
      for (const TensorView* t : {&batch_mean, &batch_var, &saved_mean, &saved_var}) {
        Fill(*t, std::numeric_limits<float>::quiet_NaN());
      }
      return OkStatus();
    }
    const float* in = x.data<const float>();
    float* m = saved_mean.data<float>();
    float* v = saved_var.data<float>();
    if (attrs_.is_training) {
      const double count = static_cast<double>(l.per_channel());
      std::vector<double> sums;
      SumPerChannel(ctx, l, &sums, [&](int64_t i, int64_t) { return double(in[i]); });
      for (int64_t c = 0; c < l.channels; ++c) sums[c] /= count;
      const std::vector<double> means = sums;
      SumPerChannel(ctx, l, &sums, [&](int64_t i, int64_t c) {
        const double centered = in[i] - means[c];
        return centered * centered;
      });
      const double bessel = count / std::max(count - 1, 1.0);
      const double factor = attrs_.exponential_avg_factor;
      const float* old_mean = mean.data<const float>();
      const float* old_var = variance.data<const float>();
      for (int64_t c = 0; c < l.channels; ++c) {
        m[c] = static_cast<float>(means[c]);
        v[c] = static_cast<float>(sums[c] / count);
        const double unbiased = sums[c] / count * bessel;
        batch_mean.data<float>()[c] = static_cast<float>(
            factor == 1.0 ? means[c] : (1 - factor) * old_mean[c] + factor * means[c]);
        batch_var.data<float>()[c] = static_cast<float>(
            factor == 1.0 ? unbiased : (1 - factor) * old_var[c] + factor * unbiased);
      }
    } else {
      for (int64_t c = 0; c < l.channels; ++c) {
        m[c] = batch_mean.data<float>()[c] = mean.data<const float>()[c];
        v[c] = batch_var.data<float>()[c] = variance.data<const float>()[c];
      }
    }
    // y = (x - mean) * scale / sqrt(variance + epsilon) + offset.
    std::vector<float> multiplier(static_cast<size_t>(l.channels));
    for (int64_t c = 0; c < l.channels; ++c) {
      multiplier[c] = scale.data<const float>()[c] / std::sqrt(v[c] + attrs_.epsilon);
    }
    const float* shift = offset.data<const float>();
    float* out = y.data<float>();
    ForEachElement(
        ctx, l, [&](int64_t i, int64_t c) { out[i] = (in[i] - m[c]) * multiplier[c] + shift[c]; });
    return OkStatus();
  }

 private:
  const BatchNormAttrs attrs_;
};

class FusedBatchNormGradKernel : public sdk::Kernel {
 public:
  explicit FusedBatchNormGradKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView dy, x, scale, saved_mean, saved_var;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &dy));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &x));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &scale));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &saved_mean));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(4, &saved_var));
    for (const TensorView* t : {&dy, &x}) {
      if (t->rank() != 4 && t->rank() != 5) {
        return sdk::InvalidArgument("input must be 4 or 5-dimensional", t->shape().DebugString());
      }
    }
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(scale, 1, "scale must be 1-dimensional"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(saved_mean, 1, "saved mean must be 1-dimensional"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckRank(saved_var, 1, "saved variance must be 1-dimensional"));
    if (x.shape() != dy.shape()) {
      return sdk::InvalidArgument("x and y_backprop must have same shape, but x has shape ",
                                  x.shape().DebugString(), " and y_backprop has shape ",
                                  dy.shape().DebugString());
    }
    const ChannelLayout l(x.shape(), attrs_.channels_first);
    TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(scale, l.channels, "scale"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(saved_mean, l.channels, "reserve_space_1"));
    TESSERA_SDK_RETURN_IF_ERROR(CheckChannels(saved_var, l.channels, "reserve_space_2"));
    if (x.dtype() != TSR_DTYPE_FLOAT) return UnsupportedType(ctx, x.dtype());
    TensorView dx, dscale, doffset, reserve_4, reserve_5;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.shape(), &dx));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(1, Shape({l.channels}), &dscale));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(2, Shape({l.channels}), &doffset));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(3, Shape({0}), &reserve_4));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(4, Shape({0}), &reserve_5));
    if (x.num_elements() == 0) {
      Fill(dscale, 0.0f);
      Fill(doffset, 0.0f);
      return OkStatus();
    }
    const float* g = dy.data<const float>();
    const float* in = x.data<const float>();
    const float* m = saved_mean.data<const float>();
    const float* s = scale.data<const float>();
    // In training the saved statistics are the batch's (biased variance); in inference the
    // population's, which make the normalization affine in x.
    std::vector<double> rstd(static_cast<size_t>(l.channels));
    for (int64_t c = 0; c < l.channels; ++c) {
      rstd[c] = 1.0 / std::sqrt(double(saved_var.data<const float>()[c]) + attrs_.epsilon);
    }
    std::vector<double> sum_dy;
    std::vector<double> sum_dy_centered;
    SumPerChannel(ctx, l, &sum_dy, [&](int64_t i, int64_t) { return double(g[i]); });
    SumPerChannel(ctx, l, &sum_dy_centered,
                  [&](int64_t i, int64_t c) { return double(g[i]) * (double(in[i]) - m[c]); });
    const double count = static_cast<double>(l.per_channel());
    std::vector<float> a(static_cast<size_t>(l.channels));  // dx = a * dy + b * (x - m) + k
    std::vector<float> b(a.size());
    std::vector<float> k(a.size());
    for (int64_t c = 0; c < l.channels; ++c) {
      dscale.data<float>()[c] = static_cast<float>(sum_dy_centered[c] * rstd[c]);
      doffset.data<float>()[c] = static_cast<float>(sum_dy[c]);
      a[c] = static_cast<float>(s[c] * rstd[c]);
      if (attrs_.is_training) {
        b[c] = static_cast<float>(-s[c] * rstd[c] * rstd[c] * rstd[c] * sum_dy_centered[c] / count);
        k[c] = static_cast<float>(-s[c] * rstd[c] * sum_dy[c] / count);
      } else {
        b[c] = k[c] = 0.0f;
      }
    }
    float* out = dx.data<float>();
    ForEachElement(
        ctx, l, [&](int64_t i, int64_t c) { out[i] = a[c] * g[i] + b[c] * (in[i] - m[c]) + k[c]; });
    return OkStatus();
  }

 private:
  const BatchNormAttrs attrs_;
};

}  // namespace

Status RegisterBatchNormKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> float_only = {TSR_DTYPE_FLOAT};
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FusedBatchNormKernel>(
      registrar, "FusedBatchNormV3", kCpu, {{"T", float_only}, {"U", float_only}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FusedBatchNormKernel>(
      registrar, "FusedBatchNormV2", kCpu, {{"T", float_only}, {"U", float_only}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FusedBatchNormKernel>(
      registrar, "FusedBatchNorm", kCpu, {{"T", float_only}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FusedBatchNormGradKernel>(
      registrar, "FusedBatchNormGradV2", kCpu, {{"T", float_only}, {"U", float_only}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<FusedBatchNormGradKernel>(
      registrar, "FusedBatchNormGrad", kCpu, {{"T", float_only}}));
  return sdk::RegisterKernel<FusedBatchNormGradKernel>(registrar, "FusedBatchNormGradV3", kCpu,
                                                       {{"T", float_only}, {"U", float_only}});
}

}  // namespace tessera::cpu
