// Float 2-D convolutions as oneDNN primitives run on the host's intra-op pool: the output is cut
// into pieces (whole images, or groups of output channels, or bands of output rows), each piece
// one primitive executed on one thread, so oneDNN never starts a thread of its own.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_CONV_ONEDNN_H_
#define TESSERA_PLUGINS_CPU_KERNELS_CONV_ONEDNN_H_

#include <memory>

#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/fused_epilogue.h"
#include "tessera/plugin_api/plugin.h"

namespace tessera::cpu {

// What a convolution applies to its output before writing it: `bias` (out_depth values; null for
// none) and then an activation (as oneDNN post-ops).
struct ConvPostOps {
  const float* bias = nullptr;
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0;
};

// One per kernel: it keeps, per shape and thread count, a plan of its pieces (with their
// primitives and the filter's reorders) and the memory and oneDNN objects of its runs, so that a
// run of a shape seen before builds and allocates nothing. Thread-safe: concurrent Run calls share
// the plans, each with its own run memory.
class OneDnnConvolution {
 public:
  OneDnnConvolution();
  ~OneDnnConvolution();
  OneDnnConvolution(const OneDnnConvolution&) = delete;
  OneDnnConvolution& operator=(const OneDnnConvolution&) = delete;

  // Whether this build has oneDNN.
  static bool Available();

  // output [batch, out_rows, out_cols, out_depth] = conv(input NHWC, filter HWIO) for an
  // ungrouped convolution, plus `post`. Returns false, having written nothing, when oneDNN is
  // absent or cannot build a primitive for this geometry; the caller then uses another
  // implementation.
  bool Run(const ConvGeometry& g, const float* input, const float* filter, float* output,
           TSR_ThreadPool* pool, const ConvPostOps& post = ConvPostOps());

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_CONV_ONEDNN_H_
