// ResizeBilinear, ResizeNearestNeighbor and their gradients on CPU (NHWC images), with
// TensorFlow's pixel mapping for each combination of align_corners and half_pixel_centers.
// Bilinear interpolation computes in float, as TensorFlow's kernel does, whatever the image type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plugins/cpu/kernels/image_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Where output pixel `i` samples the input, in input coordinates.
float SourceCoordinate(int64_t i, float scale, bool half_pixel_centers) {
  return half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                            : static_cast<float>(i) * scale;
}

// The two input pixels output pixel `i` blends, and the weight of the upper one.
struct Interpolation {
  int64_t lower;
  int64_t upper;
  float lerp;
};

std::vector<Interpolation> Interpolations(int64_t out_size, int64_t in_size, float scale,
                                          bool half_pixel_centers) {
  std::vector<Interpolation> out(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = SourceCoordinate(i, scale, half_pixel_centers);
    const float in_floor = std::floor(in);
    out[i].lower = std::max(static_cast<int64_t>(in_floor), int64_t{0});
    out[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    out[i].lerp = in - in_floor;
  }
  return out;
}

// The input pixel nearest to output pixel `i`: rounded with align_corners, else floored; with
// half_pixel_centers the centre (i + 0.5) * scale is floored.
int64_t NearestIndex(int64_t i, int64_t in_size, float scale, bool align_corners,
                     bool half_pixel_centers) {
  const float in =
      half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
  int64_t index = std::min(
      align_corners ? static_cast<int64_t>(std::round(in)) : static_cast<int64_t>(std::floor(in)),
      in_size - 1);
  if (half_pixel_centers) index = std::max(int64_t{0}, index);
  return index;
}

// The attrs of every resize kernel.
struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel_centers = false;

  explicit ResizeAttrs(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("align_corners", &align_corners));
    ctx.SetStatus(ctx.GetAttr("half_pixel_centers", &half_pixel_centers));
  }
};

// The checks of the forward resizes; fills the output height and width.
Status ValidateResize(const ResizeAttrs& attrs, const TensorView& input, const TensorView& size,
                      int64_t* out_height, int64_t* out_width) {
  if (attrs.half_pixel_centers && attrs.align_corners) {
    return sdk::InvalidArgument("If half_pixel_centers is True, align_corners must be False.");
  }
  if (input.rank() != 4) {
    return sdk::InvalidArgument("input must be 4-dimensional", input.shape().DebugString());
  }
  if (size.rank() != 1) {
    return sdk::InvalidArgument("shape_t must be 1-D", size.shape().DebugString());
  }
  if (size.num_elements() != 2) {
    return sdk::InvalidArgument("shape_t must have two elements", size.shape().DebugString());
  }
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (input.dim(1) >= kMaxInt32 || input.dim(2) >= kMaxInt32) {
    return sdk::InvalidArgument("input sizes must be between 0 and max int32");
  }
  *out_height = size.data<const int32_t>()[0];
  *out_width = size.data<const int32_t>()[1];
  if (*out_height <= 0 || *out_width <= 0) {
    return sdk::InvalidArgument("output dimensions must be positive");
  }
  if (input.dim(3) <= 0) return sdk::InvalidArgument("image must have at least one channel");
  if (input.dim(1) <= 0 || input.dim(2) <= 0) {
    return sdk::InvalidArgument("input image must be of non-zero size");
  }
  return OkStatus();
}

// The forward resizes' inputs, checked, and their [batch, height, width, channels] output.
Status PrepareResize(KernelContext& ctx, const ResizeAttrs& attrs, TensorView* input,
                     TensorView* output) {
  TensorView size;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, input));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &size));
  int64_t out_height = 0;
  int64_t out_width = 0;
  TESSERA_SDK_RETURN_IF_ERROR(ValidateResize(attrs, *input, size, &out_height, &out_width));
  return ctx.AllocateOutput(0, Shape({input->dim(0), out_height, out_width, input->dim(3)}),
                            output);
}

class ResizeBilinearKernel : public sdk::Kernel {
 public:
  explicit ResizeBilinearKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(PrepareResize(ctx, attrs_, &input, &output));
    if (output.num_elements() == 0) return OkStatus();
    const int64_t batch = input.dim(0);
    const int64_t in_height = input.dim(1);
    const int64_t in_width = input.dim(2);
    const int64_t channels = input.dim(3);
    const int64_t out_height = output.dim(1);
    const int64_t out_width = output.dim(2);
    const std::vector<Interpolation> ys = Interpolations(
        out_height, in_height, ResizeScale(in_height, out_height, attrs_.align_corners),
        attrs_.half_pixel_centers);
    const std::vector<Interpolation> xs =
        Interpolations(out_width, in_width, ResizeScale(in_width, out_width, attrs_.align_corners),
                       attrs_.half_pixel_centers);
    float* out = output.data<float>();
    return DispatchImageType(ctx, input.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = input.data<const T>();
      ctx.ParallelFor(
          batch * out_height, out_width * channels * 12 + 1, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row) {
              const int64_t b = row / out_height;
              const Interpolation& y = ys[row % out_height];
              const T* top = in + (b * in_height + y.lower) * in_width * channels;
              const T* bottom = in + (b * in_height + y.upper) * in_width * channels;
              float* dst = out + row * out_width * channels;
              for (int64_t x = 0; x < out_width; ++x) {
                const Interpolation& xi = xs[x];
                for (int64_t c = 0; c < channels; ++c) {
                  const float top_left = static_cast<float>(top[xi.lower * channels + c]);
                  const float top_right = static_cast<float>(top[xi.upper * channels + c]);
                  const float bottom_left = static_cast<float>(bottom[xi.lower * channels + c]);
                  const float bottom_right = static_cast<float>(bottom[xi.upper * channels + c]);
                  const float t = top_left + (top_right - top_left) * xi.lerp;
                  const float u = bottom_left + (bottom_right - bottom_left) * xi.lerp;
                  dst[x * channels + c] = t + (u - t) * y.lerp;
                }
              }
            }
          });
      return OkStatus();
    });
  }

 private:
  ResizeAttrs attrs_;
};

// Scatters each incoming gradient to the four input pixels it was blended from, with the same
// weights; sums in the image's type, as TensorFlow does.
class ResizeBilinearGradKernel : public sdk::Kernel {
 public:
  explicit ResizeBilinearGradKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView grads;
    TensorView original;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &grads));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &original));
    if (attrs_.half_pixel_centers && attrs_.align_corners) {
      return sdk::InvalidArgument("If half_pixel_centers is True, align_corners must be False.");
    }
    if (grads.rank() != 4) {
      return sdk::InvalidArgument("input_grad must be 4-dimensional", grads.shape().DebugString());
    }
    if (original.rank() != 4) {
      return sdk::InvalidArgument("original_image must be 4-dimensional",
                                  original.shape().DebugString());
    }
    const int64_t batch = grads.dim(0);
    const int64_t resized_height = grads.dim(1);
    const int64_t resized_width = grads.dim(2);
    const int64_t channels = grads.dim(3);
    if (resized_height <= 0 || resized_width <= 0) {
      return sdk::InvalidArgument("resized dimensions must be positive");
    }
    const int64_t height = original.dim(1);
    const int64_t width = original.dim(2);
    if (height <= 0 || width <= 0) {
      return sdk::InvalidArgument("original dimensions must be positive");
    }
    constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
    if (height >= kMaxInt32 || width >= kMaxInt32) {
      return sdk::InvalidArgument("original sizes must be between 0 and max int32");
    }
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, Shape({batch, height, width, channels}), &output));
    const std::vector<Interpolation> ys = Interpolations(
        resized_height, height, ResizeScale(height, resized_height, attrs_.align_corners),
        attrs_.half_pixel_centers);
    const std::vector<Interpolation> xs = Interpolations(
        resized_width, width, ResizeScale(width, resized_width, attrs_.align_corners),
        attrs_.half_pixel_centers);
    const float* in = grads.data<const float>();
    return DispatchImageType(ctx, output.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* out = output.data<T>();
      std::fill(out, out + output.num_elements(), T(0));
      // Each image writes only its own slice of the output.
      ctx.ParallelFor(batch, resized_height * resized_width * channels * 16 + 1,
                      [&](int64_t begin, int64_t end) {
                        for (int64_t b = begin; b < end; ++b) {
                          T* image = out + b * height * width * channels;
                          const float* g = in + b * resized_height * resized_width * channels;
                          for (int64_t y = 0; y < resized_height; ++y) {
                            const Interpolation& yi = ys[y];
                            for (int64_t x = 0; x < resized_width; ++x) {
                              const Interpolation& xi = xs[x];
                              T* top = image + yi.lower * width * channels;
                              T* bottom = image + yi.upper * width * channels;
                              for (int64_t c = 0; c < channels; ++c) {
                                const float v = g[(y * resized_width + x) * channels + c];
                                const float up = 1.0f - yi.lerp;
                                const float left = 1.0f - xi.lerp;
                                top[xi.lower * channels + c] += T(v * up * left);
                                top[xi.upper * channels + c] += T(v * up * xi.lerp);
                                bottom[xi.lower * channels + c] += T(v * yi.lerp * left);
                                bottom[xi.upper * channels + c] += T(v * yi.lerp * xi.lerp);
                              }
                            }
                          }
                        }
                      });
      return OkStatus();
    });
  }

 private:
  ResizeAttrs attrs_;
};

class ResizeNearestNeighborKernel : public sdk::Kernel {
 public:
  explicit ResizeNearestNeighborKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(PrepareResize(ctx, attrs_, &input, &output));
    if (output.num_elements() == 0) return OkStatus();
    const int64_t batch = input.dim(0);
    const int64_t in_height = input.dim(1);
    const int64_t in_width = input.dim(2);
    const int64_t channels = input.dim(3);
    const int64_t out_height = output.dim(1);
    const int64_t out_width = output.dim(2);
    const float height_scale = ResizeScale(in_height, out_height, attrs_.align_corners);
    const float width_scale = ResizeScale(in_width, out_width, attrs_.align_corners);
    std::vector<int64_t> xs(static_cast<size_t>(out_width));
    for (int64_t x = 0; x < out_width; ++x) {
      xs[x] =
          NearestIndex(x, in_width, width_scale, attrs_.align_corners, attrs_.half_pixel_centers);
    }
    const size_t pixel_bytes = static_cast<size_t>(channels) * sdk::DataTypeSize(input.dtype());
    const char* in = static_cast<const char*>(input.raw_data());
    char* out = static_cast<char*>(output.raw_data());
    ctx.ParallelFor(batch * out_height, out_width * channels + 1, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / out_height;
        const int64_t in_y = NearestIndex(row % out_height, in_height, height_scale,
                                          attrs_.align_corners, attrs_.half_pixel_centers);
        const char* src = in + (b * in_height + in_y) * in_width * pixel_bytes;
        char* dst = out + row * out_width * pixel_bytes;
        for (int64_t x = 0; x < out_width; ++x) {
          std::copy_n(src + xs[x] * pixel_bytes, pixel_bytes, dst + x * pixel_bytes);
        }
      }
    });
    return OkStatus();
  }

 private:
  ResizeAttrs attrs_;
};

// Sums each incoming gradient into the input pixel the forward resize copied it from.
class ResizeNearestNeighborGradKernel : public sdk::Kernel {
 public:
  explicit ResizeNearestNeighborGradKernel(KernelConstruction& ctx) : attrs_(ctx) {}

  Status Compute(KernelContext& ctx) override {
    TensorView grads;
    TensorView size;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &grads));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &size));
    if (grads.rank() != 4) {
      return sdk::InvalidArgument("input must be 4-dimensional", grads.shape().DebugString());
    }
    if (size.rank() != 1) {
      return sdk::InvalidArgument("shape_t must be 1-dimensional", size.shape().DebugString());
    }
    if (size.num_elements() != 2) {
      return sdk::InvalidArgument("shape_t must have two elements", size.shape().DebugString());
    }
    const int64_t out_height = size.data<const int32_t>()[0];
    const int64_t out_width = size.data<const int32_t>()[1];
    if (out_height <= 0 || out_width <= 0) {
      return sdk::InvalidArgument("shape_t's elements must be positive");
    }
    const int64_t batch = grads.dim(0);
    const int64_t in_height = grads.dim(1);
    const int64_t in_width = grads.dim(2);
    const int64_t channels = grads.dim(3);
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, Shape({batch, out_height, out_width, channels}), &output));
    if (output.num_elements() == 0) return OkStatus();
    // The forward op mapped the output (here: out_*) onto the input (here: in_*) sizes.
    const float height_scale = ResizeScale(out_height, in_height, attrs_.align_corners);
    const float width_scale = ResizeScale(out_width, in_width, attrs_.align_corners);
    std::vector<int64_t> ys(static_cast<size_t>(in_height));
    for (int64_t y = 0; y < in_height; ++y) {
      ys[y] = NearestIndex(y, out_height, height_scale, attrs_.align_corners,
                           attrs_.half_pixel_centers);
    }
    std::vector<int64_t> xs(static_cast<size_t>(in_width));
    for (int64_t x = 0; x < in_width; ++x) {
      xs[x] =
          NearestIndex(x, out_width, width_scale, attrs_.align_corners, attrs_.half_pixel_centers);
    }
    return DispatchImageType(ctx, grads.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = grads.data<const T>();
      T* out = output.data<T>();
      std::fill(out, out + output.num_elements(), T(0));
      ctx.ParallelFor(batch, in_height * in_width * channels + 1, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          for (int64_t y = 0; y < in_height; ++y) {
            for (int64_t x = 0; x < in_width; ++x) {
              const T* src = in + ((b * in_height + y) * in_width + x) * channels;
              T* dst = out + ((b * out_height + ys[y]) * out_width + xs[x]) * channels;
              for (int64_t c = 0; c < channels; ++c) dst[c] = WrappingAdd(dst[c], src[c]);
            }
          }
        }
      });
      return OkStatus();
    });
  }

 private:
  ResizeAttrs attrs_;
};

}  // namespace

Status RegisterResizeKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ResizeBilinearKernel>(
      registrar, "ResizeBilinear", kCpu, {{"T", ImageTypes()}}, 0, 0, {"size"}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ResizeBilinearGradKernel>(
      registrar, "ResizeBilinearGrad", kCpu,
      {{"T", {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE, TSR_DTYPE_HALF, TSR_DTYPE_BFLOAT16}}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ResizeNearestNeighborKernel>(
      registrar, "ResizeNearestNeighbor", kCpu, {{"T", ImageTypes()}}, 0, 0, {"size"}));
  return sdk::RegisterKernel<ResizeNearestNeighborGradKernel>(
      registrar, "ResizeNearestNeighborGrad", kCpu,
      {{"T",
        {TSR_DTYPE_UINT8, TSR_DTYPE_INT8, TSR_DTYPE_INT32, TSR_DTYPE_HALF, TSR_DTYPE_FLOAT,
         TSR_DTYPE_DOUBLE, TSR_DTYPE_BFLOAT16}}},
      0, 0, {"size"});
}

}  // namespace tessera::cpu
