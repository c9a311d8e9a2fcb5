// Shared pieces of the CPU image kernels: dispatch over the image types (half and bfloat16
// included) and TensorFlow's resize scale.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_IMAGE_UTIL_H_
#define TESSERA_PLUGINS_CPU_KERNELS_IMAGE_UTIL_H_

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// The image types of ResizeBilinear, ResizeNearestNeighbor and CropAndResize.
inline const std::vector<TSR_DataType>& ImageTypes() {
  static const auto* types = new std::vector<TSR_DataType>{
      TSR_DTYPE_INT8,  TSR_DTYPE_UINT8,    TSR_DTYPE_INT16, TSR_DTYPE_UINT16, TSR_DTYPE_INT32,
      TSR_DTYPE_INT64, TSR_DTYPE_BFLOAT16, TSR_DTYPE_HALF,  TSR_DTYPE_FLOAT,  TSR_DTYPE_DOUBLE};
  return *types;
}

// Calls fn(T{}) with the C++ type of `dtype` among the image types; UNIMPLEMENTED for others.
template <typename Fn>
Status DispatchImageType(const KernelContext& ctx, TSR_DataType dtype, Fn&& fn) {
  switch (dtype) {
    case TSR_DTYPE_INT8:
      return fn(int8_t{});
    case TSR_DTYPE_UINT8:
      return fn(uint8_t{});
    case TSR_DTYPE_INT16:
      return fn(int16_t{});
    case TSR_DTYPE_UINT16:
      return fn(uint16_t{});
    case TSR_DTYPE_INT32:
      return fn(int32_t{});
    case TSR_DTYPE_INT64:
      return fn(int64_t{});
    case TSR_DTYPE_BFLOAT16:
      return fn(Eigen::bfloat16{});
    case TSR_DTYPE_HALF:
      return fn(Eigen::half{});
    case TSR_DTYPE_FLOAT:
      return fn(float{});
    case TSR_DTYPE_DOUBLE:
      return fn(double{});
    default:
      return UnsupportedType(ctx, dtype);
  }
}

// TensorFlow's ratio of input to output size: with align_corners (and more than one output
// pixel) the corner pixels' centres map onto each other.
inline float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return align_corners && out_size > 1
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_IMAGE_UTIL_H_
