// PoolAttrs and PoolGeometry: TensorFlow's checks of the pooling attributes and its windowed
// output sizes (GetWindowedOutputSizeVerbose, CheckValidPadding, CheckPaddingSize).
#include "plugins/cpu/kernels/pooling.h"

#include "plugins/cpu/kernels/conv_params.h"

namespace tessera::cpu {
namespace {

Status CheckExplicitPaddings(const PoolAttrs& attrs) {
  const std::vector<int64_t>& p = attrs.explicit_paddings;
  if (p.size() != 8) {
    return sdk::InvalidArgument("explicit_paddings attribute must contain 8 values, but got: ",
                                p.size());
  }
  for (int64_t value : p) {
    if (value < 0) {
      return sdk::InvalidArgument("All elements of explicit_paddings must be nonnegative");
    }
  }
  for (int dim : {attrs.batch_dim(), attrs.depth_dim()}) {
    if (p[2 * dim] != 0 || p[2 * dim + 1] != 0) {
      return sdk::InvalidArgument(
          "Nonzero explicit padding in the batch or depth dimensions is not supported");
    }
  }
  const char* names[] = {"Top", "Bottom", "Left", "Right"};
  const int dims[] = {attrs.rows_dim(), attrs.rows_dim(), attrs.cols_dim(), attrs.cols_dim()};
  for (int i = 0; i < 4; ++i) {
    const int64_t pad = p[2 * dims[i] + i % 2];
    const int64_t window = attrs.ksize[dims[i]];
    if (pad >= window) {
      return sdk::InvalidArgument(names[i], " padding ", pad,
                                  " needs to be smaller than the window size ", window);
    }
  }
  return OkStatus();
}

// The sizes of ksize and strides, and no pooling over the batch dimension.
Status CheckWindow(const PoolAttrs& attrs) {
  if (attrs.ksize.size() != 4) {
    return sdk::InvalidArgument("Sliding window ksize field must specify 4 dimensions");
  }
  for (size_t i = 0; i < 4; ++i) {
    if (attrs.ksize[i] <= 0) {
      return sdk::InvalidArgument("Sliding window ksize for dimension ", i, " was zero.");
    }
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("ksize", attrs.ksize));
  if (attrs.strides.size() != 4) {
    return sdk::InvalidArgument("Sliding window stride field must specify 4 dimensions");
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("strides", attrs.strides));
  if (attrs.ksize[attrs.batch_dim()] != 1 || attrs.strides[attrs.batch_dim()] != 1) {
    return sdk::Unimplemented("Pooling is not yet supported on the batch dimension.");
  }
  return OkStatus();
}

Status ParseAttrs(KernelConstruction& ctx, bool allow_explicit, bool window_attrs,
                  PoolAttrs* attrs) {
  std::string data_format = "NHWC";
  if (ctx.HasAttr("data_format")) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("data_format", &data_format));
  }
  if (data_format == "NCHW") {
    attrs->channels_first = true;
  } else if (data_format != "NHWC") {
    return sdk::InvalidArgument("Invalid data format: '", data_format,
                                "'; the CPU pooling kernels support NHWC and NCHW");
  }
  if (window_attrs) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("ksize", &attrs->ksize));
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->strides));
    TESSERA_SDK_RETURN_IF_ERROR(CheckWindow(*attrs));
  }
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("padding", &attrs->padding));
  if (attrs->padding != "SAME" && attrs->padding != "VALID" &&
      (attrs->padding != "EXPLICIT" || !allow_explicit)) {
    return sdk::InvalidArgument("Invalid padding: '", attrs->padding, "'");
  }
  if (ctx.HasAttr("explicit_paddings")) {
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("explicit_paddings", &attrs->explicit_paddings));
  }
  TESSERA_SDK_RETURN_IF_ERROR(CheckWindowAttr("explicit_paddings", attrs->explicit_paddings));
  if (attrs->padding == "EXPLICIT") {
    TESSERA_SDK_RETURN_IF_ERROR(CheckExplicitPaddings(*attrs));
  } else if (!attrs->explicit_paddings.empty()) {
    return sdk::InvalidArgument(
        "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  return OkStatus();
}

}  // namespace

void PoolAttrs::Parse(KernelConstruction& ctx, bool allow_explicit, bool window_attrs) {
  ctx.SetStatus(ParseAttrs(ctx, allow_explicit, window_attrs, this));
}

Status PoolAttrs::SetWindow(const TensorView& ksize_values, const TensorView& stride_values) {
  ksize.clear();
  strides.clear();
  for (int64_t i = 0; i < ksize_values.num_elements(); ++i) {
    ksize.push_back(IndexAt(ksize_values, i));
  }
  for (int64_t i = 0; i < stride_values.num_elements(); ++i) {
    strides.push_back(IndexAt(stride_values, i));
  }
  return CheckWindow(*this);
}

Status PoolGeometry::Init(const PoolAttrs& attrs, const Shape& input) {
  if (input.rank() != 4) return sdk::InvalidArgument("tensor_in must be 4-dimensional");
  batch = input.dim(attrs.batch_dim());
  rows = input.dim(attrs.rows_dim());
  cols = input.dim(attrs.cols_dim());
  depth = input.dim(attrs.depth_dim());
  window_rows = attrs.ksize[attrs.rows_dim()];
  window_cols = attrs.ksize[attrs.cols_dim()];
  stride_rows = attrs.strides[attrs.rows_dim()];
  stride_cols = attrs.strides[attrs.cols_dim()];
  int64_t pad_bottom = 0;
  int64_t pad_right = 0;
  if (attrs.padding == "EXPLICIT") {
    pad_top = attrs.explicit_paddings[2 * attrs.rows_dim()];
    pad_bottom = attrs.explicit_paddings[2 * attrs.rows_dim() + 1];
    pad_left = attrs.explicit_paddings[2 * attrs.cols_dim()];
    pad_right = attrs.explicit_paddings[2 * attrs.cols_dim() + 1];
  }
  TESSERA_SDK_RETURN_IF_ERROR(WindowedOutputSize(rows, window_rows, 1, stride_rows, attrs.padding,
                                             &out_rows, &pad_top, &pad_bottom));
  TESSERA_SDK_RETURN_IF_ERROR(WindowedOutputSize(cols, window_cols, 1, stride_cols, attrs.padding,
                                             &out_cols, &pad_left, &pad_right));
  if (attrs.channels_first) {
    in_col_stride = out_col_stride = 1;
    in_row_stride = cols;
    out_row_stride = out_cols;
    in_depth_stride = rows * cols;
    out_depth_stride = out_rows * out_cols;
    in_batch_stride = depth * in_depth_stride;
    out_batch_stride = depth * out_depth_stride;
  } else {
    in_depth_stride = out_depth_stride = 1;
    in_col_stride = out_col_stride = depth;
    in_row_stride = cols * depth;
    out_row_stride = out_cols * depth;
    in_batch_stride = rows * in_row_stride;
    out_batch_stride = out_rows * out_row_stride;
  }
  return OkStatus();
}

Shape PoolGeometry::InputShape(bool channels_first) const {
  return channels_first ? Shape({batch, depth, rows, cols}) : Shape({batch, rows, cols, depth});
}

Shape PoolGeometry::OutputShape(bool channels_first) const {
  return channels_first ? Shape({batch, depth, out_rows, out_cols})
                        : Shape({batch, out_rows, out_cols, depth});
}

}  // namespace tessera::cpu
