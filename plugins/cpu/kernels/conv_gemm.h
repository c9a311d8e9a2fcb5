// 2-D convolutions as matrix products on the GEMM layer, for float and double and any groups,
// strides, dilations and paddings: the forward pass through im2col, the input gradient through
// col2im, the filter gradient through im2col. Tensors are NHWC, filters HWIO.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CONV_GEMM_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CONV_GEMM_H_

#include "plugins/cpu/kernels/conv_params.h"
#include "tessera/plugin_api/plugin.h"

namespace tessera::cpu {

// output [batch, out_rows, out_cols, out_depth] = conv(input, filter).
template <typename T>
void ConvForwardGemm(const ConvGeometry& g, const T* input, const T* filter, T* output,
                     TSR_ThreadPool* pool);

// in_backprop [batch, in_rows, in_cols, in_depth] = d(output)/d(input) applied to out_backprop.
template <typename T>
void ConvBackpropInputGemm(const ConvGeometry& g, const T* filter, const T* out_backprop,
                           T* in_backprop, TSR_ThreadPool* pool);

// filter_backprop [filter_rows, filter_cols, filter_depth, out_depth] = d(output)/d(filter)
// applied to out_backprop.
template <typename T>
void ConvBackpropFilterGemm(const ConvGeometry& g, const T* input, const T* out_backprop,
                            T* filter_backprop, TSR_ThreadPool* pool);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CONV_GEMM_H_
