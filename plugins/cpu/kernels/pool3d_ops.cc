// MaxPool3D and MaxPool3DGrad (float), AvgPool3D and AvgPool3DGrad (float, double) on CPU,
// NDHWC and NCDHW, with TensorFlow's CPU semantics: MaxPool3D's windows that reach into SAME
// padding also see the padding value -FLT_MAX (so a window of only -inf gives -inf when it lies
// inside the input and the lowest float when it is padded); AvgPool3D divides by the number of
// window elements inside the input; MaxPool3DGrad gives a window's gradient to every element of
// it within 1e-5 of the window's maximum.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/conv_params.h"
#include "plugins/cpu/kernels/kernel_util.h"
#include "plugins/cpu/kernels/register_kernels.h"

namespace tessera::cpu {
namespace {

// ksize, strides, padding and data_format of one node.
struct Pool3DAttrs {
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string padding;
  bool ncdhw = false;

  int depth_dim() const { return ncdhw ? 1 : 4; }
  int spatial_dim(int i) const { return ncdhw ? 2 + i : 1 + i; }
};

// `op` names the op in the depth-dimension error ("MaxPooling3d").
Status ReadPool3DAttrs(KernelConstruction& ctx, const char* op, Pool3DAttrs* attrs) {
  std::string data_format;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  if (data_format != "NDHWC" && data_format != "NCDHW") {
    return sdk::InvalidArgument("Invalid data format");
  }
  attrs->ncdhw = data_format == "NCDHW";
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("ksize", &attrs->ksize));
  if (attrs->ksize.size() != 5) {
    return sdk::InvalidArgument("Sliding window ksize field must specify 5 dimensions");
  }
  for (int64_t k : attrs->ksize) {
    if (k <= 0) return sdk::InvalidArgument("ksize must be a positive int32 value, got:", k);
  }
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->strides));
  if (attrs->strides.size() != 5) {
    return sdk::InvalidArgument("Sliding window stride field must specify 5 dimensions");
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("ksize", attrs->ksize));
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("strides", attrs->strides));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("padding", &attrs->padding));
  if (attrs->padding != "SAME" && attrs->padding != "VALID") {
    return sdk::InvalidArgument("Invalid padding: '", attrs->padding, "'");
  }
  if (attrs->ksize[0] != 1 || attrs->strides[0] != 1) {
    return sdk::Unimplemented("Pooling is not yet supported on the batch dimension.");
  }
  if (attrs->ksize[attrs->depth_dim()] != 1 || attrs->strides[attrs->depth_dim()] != 1) {
    return sdk::Unimplemented(op, " is not yet supported on the depth dimension.");
  }
  return OkStatus();
}

// The windows of one pooling over a 5-D input, and the element strides of input and output.
struct Pool3DGeometry {
  Status Init(const Pool3DAttrs& attrs, const Shape& input) {
    if (input.rank() != 5) return sdk::InvalidArgument("tensor_in must be 5-dimensional");
    batch = input.dim(0);
    depth = input.dim(attrs.depth_dim());
    for (int i = 0; i < 3; ++i) {
      in[i] = input.dim(attrs.spatial_dim(i));
      window[i] = attrs.ksize[attrs.spatial_dim(i)];
      stride[i] = attrs.strides[attrs.spatial_dim(i)];
      int64_t pad_after = 0;
      TESSERA_SDK_RETURN_IF_ERROR(WindowedOutputSize(in[i], window[i], 1, stride[i], attrs.padding,
                                                     &out[i], &pad_before[i], &pad_after));
    }
    const int64_t in_spatial = in[0] * in[1] * in[2];
    const int64_t out_spatial = out[0] * out[1] * out[2];
    if (attrs.ncdhw) {
      in_step[2] = out_step[2] = 1;
      in_depth_step = in_spatial;
      out_depth_step = out_spatial;
    } else {
      in_step[2] = out_step[2] = depth;
      in_depth_step = out_depth_step = 1;
    }
    in_step[1] = in_step[2] * in[2];
    in_step[0] = in_step[1] * in[1];
    out_step[1] = out_step[2] * out[2];
    out_step[0] = out_step[1] * out[1];
    in_batch_step = in_spatial * depth;
    out_batch_step = out_spatial * depth;
    return OkStatus();
  }

  Shape OutputShape(bool ncdhw) const {
    return ncdhw ? Shape{batch, depth, out[0], out[1], out[2]}
                 : Shape{batch, out[0], out[1], out[2], depth};
  }
  int64_t out_positions() const { return out[0] * out[1] * out[2]; }

  // The input range [begin[i], end[i]) of the window of output position `o` (o[0..2]) in each
  // spatial dimension; returns whether the window reaches into padding.
  bool Window(const int64_t o[3], int64_t begin[3], int64_t end[3]) const {
    bool padded = false;
    for (int i = 0; i < 3; ++i) {
      const int64_t start = o[i] * stride[i] - pad_before[i];
      begin[i] = std::max<int64_t>(start, 0);
      end[i] = std::min(start + window[i], in[i]);
      padded = padded || start < 0 || start + window[i] > in[i];
    }
    return padded;
  }
  // Calls fn(n, d, o, begin, end, in_base, out_index) for every output element of the units
  // [u0, u1), a unit being one (image, channel).
  template <typename Fn>
  void ForEachWindow(int64_t u0, int64_t u1, Fn fn) const {
    for (int64_t unit = u0; unit < u1; ++unit) {
      const int64_t n = unit / depth;
      const int64_t d = unit % depth;
      const int64_t in_base = n * in_batch_step + d * in_depth_step;
      const int64_t out_base = n * out_batch_step + d * out_depth_step;
      int64_t o[3];
      for (o[0] = 0; o[0] < out[0]; ++o[0]) {
        for (o[1] = 0; o[1] < out[1]; ++o[1]) {
          for (o[2] = 0; o[2] < out[2]; ++o[2]) {
            int64_t begin[3], end[3];
            const bool padded = Window(o, begin, end);
            fn(in_base, begin, end, padded,
               out_base + o[0] * out_step[0] + o[1] * out_step[1] + o[2] * out_step[2]);
          }
        }
      }
    }
  }

  int64_t batch = 0, depth = 0;
  int64_t in[3] = {0, 0, 0}, out[3] = {0, 0, 0};
  int64_t window[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad_before[3] = {0, 0, 0};
  int64_t in_step[3] = {0, 0, 0}, out_step[3] = {0, 0, 0};
  int64_t in_depth_step = 0, out_depth_step = 0, in_batch_step = 0, out_batch_step = 0;
};

// Calls fn(offset) for every input element in [begin, end) (offsets from `base`).
template <typename Fn>
void ForEachInWindow(const Pool3DGeometry& g, int64_t base, const int64_t begin[3],
                     const int64_t end[3], Fn fn) {
  for (int64_t i0 = begin[0]; i0 < end[0]; ++i0) {
    for (int64_t i1 = begin[1]; i1 < end[1]; ++i1) {
      for (int64_t i2 = begin[2]; i2 < end[2]; ++i2) {
        fn(base + i0 * g.in_step[0] + i1 * g.in_step[1] + i2 * g.in_step[2]);
      }
    }
  }
}

int64_t WindowCost(const Pool3DGeometry& g) {
  return CostPerUnit(static_cast<double>(g.out_positions()) *
                     static_cast<double>(g.window[0] * g.window[1] * g.window[2]));
}

class Pool3DKernel : public sdk::Kernel {
 public:
  Pool3DKernel(KernelConstruction& ctx, bool max) : max_(max) {
    ctx.SetStatus(ReadPool3DAttrs(ctx, max ? "MaxPooling3d" : "AvgPooling3d", &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    Pool3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs_, input.shape()));
    TensorView output;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, g.OutputShape(attrs_.ncdhw), &output));
    if (output.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = input.data<const T>();
      T* y = output.data<T>();
      const bool max = max_;
      ctx.ParallelFor(g.batch * g.depth, WindowCost(g), [&](int64_t u0, int64_t u1) {
        g.ForEachWindow(u0, u1,
                        [&](int64_t base, const int64_t* begin, const int64_t* end, bool padded,
                            int64_t out_index) {
                          if (max) {
                            // Padding holds -FLT_MAX, as in TensorFlow's volume patches.
                            T acc = padded ? T(-std::numeric_limits<float>::max())
                                           : -std::numeric_limits<T>::infinity();
                            ForEachInWindow(g, base, begin, end, [&](int64_t i) {
                              if (acc < x[i]) acc = x[i];
                            });
                            y[out_index] = acc;
                          } else {
                            T sum = T(0);
                            int64_t count = 0;
                            ForEachInWindow(g, base, begin, end, [&](int64_t i) {
                              sum += x[i];
                              ++count;
                            });
                            y[out_index] = sum / static_cast<T>(count);
                          }
                        });
      });
      return OkStatus();
    });
  }

 private:
  bool max_;
  Pool3DAttrs attrs_;
};

Status ExpectShape(const char* what, const Shape& expected, const Shape& actual) {
  if (expected == actual) return OkStatus();
  return sdk::InvalidArgument("Expected ", what, " shape to be ", expected.DebugString(),
                              ", but got ", actual.DebugString());
}

class MaxPool3DGradKernel : public sdk::Kernel {
 public:
  explicit MaxPool3DGradKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadPool3DAttrs(ctx, "MaxPooling3dGrad", &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView input;
    TensorView output;
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &input));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &output));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &grad));
    if (input.rank() != 5) return sdk::InvalidArgument("tensor_in must be 5-dimensional");
    if (output.rank() != 5) return sdk::InvalidArgument("tensor_out must be 5-dimensional");
    if (grad.rank() != 5) return sdk::InvalidArgument("out_backprop must be 5-dimensional");
    Pool3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs_, input.shape()));
    const Shape out_shape = g.OutputShape(attrs_.ncdhw);
    TESSERA_SDK_RETURN_IF_ERROR(ExpectShape("orig_output", out_shape, output.shape()));
    TESSERA_SDK_RETURN_IF_ERROR(ExpectShape("grad", out_shape, grad.shape()));
    TensorView in_grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input.shape(), &in_grad));
    if (in_grad.num_elements() == 0) return OkStatus();
    std::memset(in_grad.raw_data(), 0, in_grad.byte_size());
    if (grad.num_elements() == 0) return OkStatus();
    return DispatchTypes<float>(ctx, input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = input.data<const T>();
      const T* y = output.data<const T>();
      const T* dy = grad.data<const T>();
      T* dx = in_grad.data<T>();
      // A unit (image, channel) writes only its own elements.
      ctx.ParallelFor(g.batch * g.depth, WindowCost(g), [&](int64_t u0, int64_t u1) {
        g.ForEachWindow(
            u0, u1,
            [&](int64_t base, const int64_t* begin, const int64_t* end, bool, int64_t out_index) {
              const T max = y[out_index];
              const T delta = dy[out_index];
              ForEachInWindow(g, base, begin, end, [&](int64_t i) {
                if (std::abs(x[i] - max) < T(1e-5)) dx[i] += delta;
              });
            });
      });
      return OkStatus();
    });
  }

 private:
  Pool3DAttrs attrs_;
};

class AvgPool3DGradKernel : public sdk::Kernel {
 public:
  explicit AvgPool3DGradKernel(KernelConstruction& ctx) {
    ctx.SetStatus(ReadPool3DAttrs(ctx, "AvgPooling3dGrad", &attrs_));
  }

  Status Compute(KernelContext& ctx) override {
    TensorView sizes;
    TensorView grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &sizes));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &grad));
    if (sizes.rank() != 1 || sizes.num_elements() != 5) {
      return sdk::InvalidArgument("tensor_in must be 1-dimensional and 5 elements");
    }
    if (grad.rank() != 5) return sdk::InvalidArgument("out_backprop must be 5-dimensional");
    Shape input_shape;
    for (int i = 0; i < 5; ++i) {
      const int64_t size = IndexAt(sizes, i);
      if (size < 0) return sdk::InvalidArgument("Dimension ", size, " must be >= 0");
      input_shape.AddDim(size);
    }
    Pool3DGeometry g;
    TESSERA_SDK_RETURN_IF_ERROR(g.Init(attrs_, input_shape));
    TESSERA_SDK_RETURN_IF_ERROR(ExpectShape("grad", g.OutputShape(attrs_.ncdhw), grad.shape()));
    TensorView in_grad;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, input_shape, &in_grad));
    if (in_grad.num_elements() == 0) return OkStatus();
    std::memset(in_grad.raw_data(), 0, in_grad.byte_size());
    if (grad.num_elements() == 0) return OkStatus();
    return DispatchTypes<float, double>(ctx, grad.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* dy = grad.data<const T>();
      T* dx = in_grad.data<T>();
      ctx.ParallelFor(g.batch * g.depth, WindowCost(g), [&](int64_t u0, int64_t u1) {
        g.ForEachWindow(
            u0, u1,
            [&](int64_t base, const int64_t* begin, const int64_t* end, bool, int64_t out_index) {
              const int64_t count = (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
              const T share = dy[out_index] / static_cast<T>(count);
              ForEachInWindow(g, base, begin, end, [&](int64_t i) { dx[i] += share; });
            });
      });
      return OkStatus();
    });
  }

 private:
  Pool3DAttrs attrs_;
};

class MaxPool3DKernel : public Pool3DKernel {
 public:
  explicit MaxPool3DKernel(KernelConstruction& ctx) : Pool3DKernel(ctx, true) {}
};
class AvgPool3DKernel : public Pool3DKernel {
 public:
  explicit AvgPool3DKernel(KernelConstruction& ctx) : Pool3DKernel(ctx, false) {}
};

}  // namespace

Status RegisterPool3DKernels(TSR_Registrar* registrar) {
  const std::vector<TSR_DataType> float_only = {TSR_DTYPE_FLOAT};
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<MaxPool3DKernel>(registrar, "MaxPool3D", kCpu, {{"T", float_only}}));
  TESSERA_SDK_RETURN_IF_ERROR(
      sdk::RegisterKernel<AvgPool3DKernel>(registrar, "AvgPool3D", kCpu, {{"T", FloatingTypes()}}));
  TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<MaxPool3DGradKernel>(
      registrar, "MaxPool3DGrad", kCpu, {{"T", float_only}, {"TInput", float_only}}));
  return sdk::RegisterKernel<AvgPool3DGradKernel>(
      registrar, "AvgPool3DGrad", kCpu, {{"T", FloatingTypes()}}, 0, 0, {"orig_input_shape"});
}

}  // namespace tessera::cpu
