// CropAndResize on CPU: crops of an NHWC image at normalized boxes, resized bilinearly or to the
// nearest pixel; samples outside the image take extrapolation_value. Computes in float, as
// TensorFlow's kernel does. A NaN coordinate counts as outside (TensorFlow's kernel would index
// the image with it).
#include <cmath>
#include <cstdint>
#include <string>

#include "plugins/cpu/kernels/image_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// Where crop pixel `i` of `crop_size` samples an image dimension of `image_size` for a box side
// from `a` to `b`. A single crop pixel samples the box's centre; the product with 0.5 is in double
// there, as in TensorFlow's kernel.
float CropCoordinate(int64_t i, int64_t crop_size, int64_t image_size, float a, float b) {
  if (crop_size > 1) {
    const float scale =
        (b - a) * static_cast<float>(image_size - 1) / static_cast<float>(crop_size - 1);
    return a * static_cast<float>(image_size - 1) + static_cast<float>(i) * scale;
  }
  return static_cast<float>(0.5 * (a + b) * static_cast<double>(image_size - 1));
}

// The checks of boxes [num_boxes, 4] and box_ind [num_boxes]; both may be empty together.
Status CheckBoxes(const TensorView& boxes, const TensorView& box_ind, int64_t* num_boxes) {
  if (boxes.num_elements() == 0 && box_ind.num_elements() == 0) {
    *num_boxes = 0;
    return OkStatus();
  }
  if (boxes.rank() != 2) {
    return sdk::InvalidArgument("boxes must be 2-D", boxes.shape().DebugString());
  }
  *num_boxes = boxes.dim(0);
  if (boxes.dim(1) != 4) return sdk::InvalidArgument("boxes must have 4 columns");
  if (box_ind.rank() != 1) {
    return sdk::InvalidArgument("box_index must be 1-D", box_ind.shape().DebugString());
  }
  if (box_ind.dim(0) != *num_boxes) {
    return sdk::InvalidArgument("box_index has incompatible shape");
  }
  return OkStatus();
}

class CropAndResizeKernel : public sdk::Kernel {
 public:
  explicit CropAndResizeKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ctx.GetAttr("method", &method_));
    ctx.SetStatus(ctx.GetAttr("extrapolation_value", &extrapolation_value_));
    if (method_ != "bilinear" && method_ != "nearest") {
      ctx.SetStatus(sdk::InvalidArgument("method must be 'bilinear' or 'nearest'", method_));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView image;
    TensorView boxes;
    TensorView box_ind;
    TensorView crop_size;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &image));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &boxes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &box_ind));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(3, &crop_size));
    if (image.rank() != 4) {
      return sdk::InvalidArgument("input image must be 4-D", image.shape().DebugString());
    }
    const int64_t batch = image.dim(0);
    const int64_t image_height = image.dim(1);
    const int64_t image_width = image.dim(2);
    const int64_t depth = image.dim(3);
    if (image_height <= 0 || image_width <= 0) {
      return sdk::InvalidArgument("image dimensions must be positive");
    }
    if (boxes.rank() != 2) {
      return sdk::InvalidArgument("boxes must be 2-D, got: ", boxes.shape().DebugString());
    }
    if (box_ind.rank() != 1) {
      return sdk::InvalidArgument("box_indices must be rank 1 but is shape ",
                                  box_ind.shape().DebugString());
    }
    int64_t num_boxes = 0;
    TESSERA_SDK_RETURN_IF_ERROR(CheckBoxes(boxes, box_ind, &num_boxes));
    if (crop_size.rank() != 1) {
      return sdk::InvalidArgument("crop_size must be 1-D", crop_size.shape().DebugString());
    }
    if (crop_size.dim(0) != 2) {
      return sdk::InvalidArgument("crop_size must have two elements",
                                  crop_size.shape().DebugString());
    }
    const int64_t crop_height = crop_size.data<const int32_t>()[0];
    const int64_t crop_width = crop_size.data<const int32_t>()[1];
    if (crop_height <= 0 || crop_width <= 0) {
      return sdk::InvalidArgument("crop dimensions must be positive");
    }
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, Shape({num_boxes, crop_height, crop_width, depth}), &output));
    const int32_t* indices = box_ind.data<const int32_t>();
    for (int64_t b = 0; b < num_boxes; ++b) {
      if (indices[b] < 0 || indices[b] >= batch) {
        return sdk::InvalidArgument("box_index has values outside [0, batch_size)");
      }
    }
    if (output.num_elements() == 0) return OkStatus();
    const float* box_data = boxes.data<const float>();
    float* out = output.data<float>();
    const bool bilinear = method_ == "bilinear";
    const float fill = extrapolation_value_;
    return DispatchImageType(ctx, image.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = image.data<const T>();
      auto pixel = [&](int64_t b, int64_t y, int64_t x, int64_t d) {
        return static_cast<float>(in[((b * image_height + y) * image_width + x) * depth + d]);
      };
      ctx.ParallelFor(
          num_boxes * crop_height, crop_width * depth * 12 + 1, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row) {
              const int64_t n = row / crop_height;
              const int64_t y = row % crop_height;
              const float* box = box_data + n * 4;
              const int64_t b = indices[n];
              float* dst = out + row * crop_width * depth;
              const float in_y = CropCoordinate(y, crop_height, image_height, box[0], box[2]);
              if (!(in_y >= 0 && in_y <= static_cast<float>(image_height - 1))) {
                for (int64_t i = 0; i < crop_width * depth; ++i) dst[i] = fill;
                continue;
              }
              const int64_t top = static_cast<int64_t>(std::floor(in_y));
              const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
              const float y_lerp = in_y - static_cast<float>(top);
              const int64_t nearest_y = static_cast<int64_t>(std::round(in_y));
              for (int64_t x = 0; x < crop_width; ++x) {
                float* px = dst + x * depth;
                const float in_x = CropCoordinate(x, crop_width, image_width, box[1], box[3]);
                if (!(in_x >= 0 && in_x <= static_cast<float>(image_width - 1))) {
                  for (int64_t d = 0; d < depth; ++d) px[d] = fill;
                  continue;
                }
                if (!bilinear) {
                  const int64_t nearest_x = static_cast<int64_t>(std::round(in_x));
                  for (int64_t d = 0; d < depth; ++d) px[d] = pixel(b, nearest_y, nearest_x, d);
                  continue;
                }
                const int64_t left = static_cast<int64_t>(std::floor(in_x));
                const int64_t right = static_cast<int64_t>(std::ceil(in_x));
                const float x_lerp = in_x - static_cast<float>(left);
                for (int64_t d = 0; d < depth; ++d) {
                  const float top_left = pixel(b, top, left, d);
                  const float top_right = pixel(b, top, right, d);
                  const float bottom_left = pixel(b, bottom, left, d);
                  const float bottom_right = pixel(b, bottom, right, d);
                  const float t = top_left + (top_right - top_left) * x_lerp;
                  const float u = bottom_left + (bottom_right - bottom_left) * x_lerp;
                  px[d] = t + (u - t) * y_lerp;
                }
              }
            }
          });
      return OkStatus();
    });
  }

 private:
  std::string method_;
  float extrapolation_value_ = 0.0f;
};

}  // namespace

Status RegisterCropAndResizeKernels(TSR_Registrar* registrar) {
  return sdk::RegisterKernel<CropAndResizeKernel>(registrar, "CropAndResize", kCpu,
                                                  {{"T", ImageTypes()}}, 0, 0, {"crop_size"});
}

}  // namespace tessera::cpu
