// The attributes and geometry of the 3-D convolution kernels (Conv3D and its gradients), checked
// with TensorFlow's rules and messages, and their computation as im2col / col2im products on the
// GEMM layer. Tensors are NDHWC (NCDHW ones are transposed first), filters DHWIO.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CONV3D_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CONV3D_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

// strides, dilations, padding and data_format of one node.
struct Conv3DAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::string padding;  // "SAME" or "VALID"
  bool ncdhw = false;

  int depth_dim() const { return ncdhw ? 1 : 4; }
  // The index of spatial dimension i (0 planes, 1 rows, 2 columns).
  int spatial_dim(int i) const { return ncdhw ? 2 + i : 1 + i; }
  // A 5-D shape in this data format's order.
  Shape MakeShape(int64_t batch, const int64_t spatial[3], int64_t depth) const;
};

// Reads and checks the attributes as TensorFlow's Conv3D kernels do. The V1 gradients have no
// data_format attribute (NDHWC).
Status ReadConv3DAttrs(KernelConstruction& ctx, Conv3DAttrs* attrs);

// One 3-D convolution in NDHWC terms: input [batch, in[0], in[1], in[2], in_depth], filter
// [filter[0], filter[1], filter[2], in_depth, out_depth], output [batch, out[0..2], out_depth].
struct Conv3DGeometry {
  int64_t batch = 0, in_depth = 0, out_depth = 0;
  int64_t in[3] = {0, 0, 0};
  int64_t filter[3] = {0, 0, 0};
  int64_t out[3] = {0, 0, 0};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad_before[3] = {0, 0, 0};

  int64_t in_pixels() const { return in[0] * in[1] * in[2]; }
  int64_t out_pixels() const { return out[0] * out[1] * out[2]; }
  int64_t taps() const { return filter[0] * filter[1] * filter[2]; }
  // Columns of the implicit GEMM: one per filter tap and input channel.
  int64_t gemm_depth() const { return taps() * in_depth; }
};

// Conv3D's geometry from its input and filter shapes.
Status ComputeConv3DGeometry(const Conv3DAttrs& attrs, const Shape& input, const Shape& filter,
                             Conv3DGeometry* g);

// The gradients' geometry: `label` starts every message ("Conv3DBackpropInputOp").
Status ComputeConv3DBackpropGeometry(const char* label, const Conv3DAttrs& attrs,
                                     const Shape& input, const Shape& filter,
                                     const Shape& out_backprop, Conv3DGeometry* g);

// A shape from the values of a 1-D int32/int64 tensor (input_sizes, filter_sizes).
Status Conv3DShapeFromSizes(const char* label, const TensorView& sizes, Shape* shape);

// output = conv(input, filter).
template <typename T>
void Conv3DForward(const Conv3DGeometry& g, const T* input, const T* filter, T* output,
                   TSR_ThreadPool* pool);
// in_backprop = d(output)/d(input) applied to out_backprop.
template <typename T>
void Conv3DBackpropInput(const Conv3DGeometry& g, const T* filter, const T* out_backprop,
                         T* in_backprop, TSR_ThreadPool* pool);
// filter_backprop = d(output)/d(filter) applied to out_backprop.
template <typename T>
void Conv3DBackpropFilter(const Conv3DGeometry& g, const T* input, const T* out_backprop,
                          T* filter_backprop, TSR_ThreadPool* pool);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CONV3D_H_
