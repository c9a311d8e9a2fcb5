// SpaceToDepth and DepthToSpace on CPU (every fixed-size dtype; NHWC and NCHW, NCHW_VECT_C refused
// as unimplemented). Depth index (y * block_size + x) * depth + c of a block-sized cell holds the
// element of channel c at offset (y, x) inside the spatial block.
#include <cstdint>
#include <cstring>
#include <string>

#include "plugins/cpu/kernels/array_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

template <bool kToDepth>
class SpaceDepthKernel : public sdk::Kernel {
 public:
  explicit SpaceDepthKernel(KernelConstruction& ctx) {
    std::string data_format;
    ctx.SetStatus(ctx.GetAttr("block_size", &block_size_));
    if (ctx.ok()) ctx.SetStatus(ctx.GetAttr("data_format", &data_format));
    if (!ctx.ok()) return;
    if (block_size_ <= 1) {
      ctx.SetStatus(sdk::InvalidArgument("Block size should be > 1, but was: ", block_size_));
    } else if (data_format == "NCHW_VECT_C") {
      ctx.SetStatus(sdk::Unimplemented(kToDepth ? "SpaceToDepth" : "DepthToSpace",
                                       " with data_format NCHW_VECT_C is not supported on CPU "
                                       "(TensorFlow runs it only for qint8 on GPU)"));
    } else if (data_format == "NCHW") {
      nchw_ = true;
    } else if (data_format != "NHWC") {
      ctx.SetStatus(sdk::InvalidArgument("Invalid data format: ", data_format));
    }
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    if (input.rank() != 4) {
      return sdk::InvalidArgument("Input rank should be: 4 instead of: ", input.rank());
    }
    const int h_dim = nchw_ ? 2 : 1;
    const int w_dim = nchw_ ? 3 : 2;
    const int c_dim = nchw_ ? 1 : 3;
    const int64_t bs = block_size_;
    // The spatial side (small depth) and the depth side (small height and width).
    Shape space = input.shape();
    Shape depth = input.shape();
    if (kToDepth) {
      if (input.dim(h_dim) % bs != 0 || input.dim(w_dim) % bs != 0) {
        return sdk::InvalidArgument("Image width ", input.dim(w_dim), " and height ",
                                    input.dim(h_dim), " should be divisible by block_size: ", bs);
      }
      depth.set_dim(h_dim, input.dim(h_dim) / bs);
      depth.set_dim(w_dim, input.dim(w_dim) / bs);
      depth.set_dim(c_dim, input.dim(c_dim) * bs * bs);
    } else {
      if (input.dim(c_dim) % (bs * bs) != 0) {
        return sdk::InvalidArgument("Input depth dimension ", input.dim(c_dim),
                                    " should be divisible by: ", bs * bs);
      }
      space.set_dim(h_dim, input.dim(h_dim) * bs);
      space.set_dim(w_dim, input.dim(w_dim) * bs);
      space.set_dim(c_dim, input.dim(c_dim) / (bs * bs));
    }
    TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, kToDepth ? depth : space, &out));
    if (out.num_elements() == 0) return OkStatus();
    const int64_t size = static_cast<int64_t>(sdk::DataTypeSize(input.dtype()));
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    const int64_t channels = space.dim(c_dim);
    const int64_t height = space.dim(h_dim);
    const int64_t width = space.dim(w_dim);
    const int64_t batch = space.dim(0);
    // Offsets, in elements, of space element (n, h, w, c) and of depth element (n, h/bs, w/bs,
    // ((h%bs)*bs + w%bs) * channels + c); one unit is a run of `channels` elements in NHWC and one
    // element in NCHW.
    auto space_index = [&](int64_t n, int64_t h, int64_t w, int64_t c) {
      return nchw_ ? ((n * channels + c) * height + h) * width + w
                   : ((n * height + h) * width + w) * channels + c;
    };
    const int64_t dh = height / bs;
    const int64_t dw = width / bs;
    const int64_t dc = channels * bs * bs;
    auto depth_index = [&](int64_t n, int64_t h, int64_t w, int64_t c) {
      const int64_t d = ((h % bs) * bs + w % bs) * channels + c;
      return nchw_ ? ((n * dc + d) * dh + h / bs) * dw + w / bs
                   : ((n * dh + h / bs) * dw + w / bs) * dc + d;
    };
    const int64_t run = nchw_ ? 1 : channels;
    const int64_t units = batch * height * width * (channels / run);
    ctx.ParallelFor(units, run * size / 4 + 8, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        int64_t n = 0;
        int64_t h = 0;
        int64_t w = 0;
        int64_t c = 0;
        if (nchw_) {
          w = unit % width;
          h = unit / width % height;
          c = unit / (width * height) % channels;
          n = unit / (width * height * channels);
        } else {
          w = unit % width;
          h = unit / width % height;
          n = unit / (width * height);
        }
        const int64_t s = space_index(n, h, w, c) * size;
        const int64_t d = depth_index(n, h, w, c) * size;
        if (kToDepth) {
          std::memcpy(dst + d, src + s, static_cast<size_t>(run * size));
        } else {
          std::memcpy(dst + s, src + d, static_cast<size_t>(run * size));
        }
      }
    });
    return OkStatus();
  }

 private:
  int64_t block_size_ = 0;
  bool nchw_ = false;
};

}  // namespace

Status RegisterDepthToSpaceKernels(TSR_Registrar* registrar) {
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<SpaceDepthKernel<true>>(
      registrar, "SpaceToDepth", kCpu, {{"T", AllTypes()}}));
  return sdk::RegisterKernel<SpaceDepthKernel<false>>(registrar, "DepthToSpace", kCpu,
                                                      {{"T", AllTypes()}});
}

}  // namespace tessera::cpu
