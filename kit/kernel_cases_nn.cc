// Case generators for linear algebra, convolutions and pooling (NHWC, NDHWC for the 3-D ones) and the
// image ops.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kit/kernel_case_generators.h"

namespace tessera::plugin_check {

std::vector<KernelCase> MatMulCases(const CaseRequest& request) {
  struct Shape { std::string name; TensorShape a, b; bool ta, tb; int64_t k; };
  const std::vector<Shape> shapes = {
      {"", {2, 3}, {3, 4}, false, false, 3},   {"transpose_a", {3, 2}, {3, 4}, true, false, 3},
      {"transpose_b", {2, 3}, {4, 3}, false, true, 3},
      {"transpose_ab", {3, 2}, {4, 3}, true, true, 3},
      {"empty", {0, 3}, {3, 4}, false, false, 3}, {"inner0", {2, 0}, {0, 4}, false, false, 1},
      {"ones", {1, 1}, {1, 1}, false, false, 1}, {"deep", {4, 67}, {67, 5}, false, false, 67},
  };
  std::vector<KernelCase> cases;
  for (const Shape& s : shapes) {
    KernelCase c;
    c.inputs = {In(request, 0, s.a), In(request, 1, s.b)};
    c.attrs["transpose_a"] = BoolAttr(s.ta);
    c.attrs["transpose_b"] = BoolAttr(s.tb);
    c.variant = s.name + ShapesName(c.inputs);
    c.tolerance_scale = static_cast<double>(s.k);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> BatchMatMulCases(const CaseRequest& request) {
  struct Shape { std::string name; TensorShape x, y; bool adj_x, adj_y; };
  const std::vector<Shape> shapes = {
      {"", {2, 2, 3}, {2, 3, 4}, false, false},
      {"broadcast", {2, 3}, {3, 3, 4}, false, false},
      {"adj_x", {2, 3, 2}, {2, 3, 4}, true, false},
      {"adj_y", {2, 2, 3}, {2, 4, 3}, false, true},
      {"empty", {0, 2, 3}, {0, 3, 4}, false, false},
  };
  std::vector<KernelCase> cases;
  for (const Shape& s : shapes) {
    KernelCase c;
    c.inputs = {In(request, 0, s.x), In(request, 1, s.y)};
    c.attrs["adj_x"] = BoolAttr(s.adj_x);
    c.attrs["adj_y"] = BoolAttr(s.adj_y);
    c.variant = s.name + ShapesName(c.inputs);
    c.tolerance_scale = 3;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> ConvolutionCases(const CaseRequest& request, bool depthwise) {
  std::vector<KernelCase> cases;
  for (const std::string padding : {"VALID", "SAME"}) {
    for (int64_t stride : {1, 2}) {
      KernelCase c;
      c.inputs = {In(request, 0, {2, 5, 6, 2}),
                  In(request, 1, {3, 3, 2, depthwise ? int64_t{2} : int64_t{3}})};
      c.attrs["strides"] = IntsAttr({1, stride, stride, 1});
      c.attrs["padding"] = StringAttr(padding);
      c.variant = absl::StrCat(padding, "/strides", stride, ShapesName(c.inputs));
      c.tolerance_scale = depthwise ? 9 : 18;  // the window: 3x3, times 2 input channels
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::vector<KernelCase> BiasAddCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const TensorShape& shape : {TensorShape{2, 3}, TensorShape{2, 2, 2, 3}, TensorShape{0, 3}}) {
    KernelCase c;
    c.inputs = {In(request, 0, shape), In(request, 1, {3})};
    c.variant = ShapesName(c.inputs);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> PoolCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::string padding : {"VALID", "SAME"}) {
    for (const auto& [window, stride] : {std::pair<int64_t, int64_t>{2, 2}, {3, 1}}) {
      KernelCase c;
      c.inputs = {In(request, 0, {2, 5, 6, 3})};
      c.attrs["ksize"] = IntsAttr({1, window, window, 1});
      c.attrs["strides"] = IntsAttr({1, stride, stride, 1});
      c.attrs["padding"] = StringAttr(padding);
      c.variant = absl::StrCat(padding, "/window", window, "/strides", stride,
                               ShapesName(c.inputs));
      c.tolerance_scale = static_cast<double>(window * window);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

// The resizes: up- and down-sampling in each pixel mapping.
std::vector<KernelCase> ResizeCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const auto& [align, half] :
       {std::pair<bool, bool>{false, false}, {true, false}, {false, true}}) {
    for (const auto& [height, width] : {std::pair<int64_t, int64_t>{5, 3}, {2, 7}}) {
      KernelCase c;
      c.inputs = {In(request, 0, {2, 3, 4, 2}), IntVector(TSR_DTYPE_INT32, {height, width})};
      c.attrs["align_corners"] = BoolAttr(align);
      c.attrs["half_pixel_centers"] = BoolAttr(half);
      c.variant = absl::StrCat("[2,3,4,2]/to", height, "x", width, align ? "/align_corners" : "",
                               half ? "/half_pixel_centers" : "");
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

// The resize gradients: gradients of a [2,5,3,2] resize back to a 3x4 image.
std::vector<KernelCase> ResizeGradCases(const CaseRequest& request, bool bilinear) {
  std::vector<KernelCase> cases;
  for (const auto& [align, half] :
       {std::pair<bool, bool>{false, false}, {true, false}, {false, true}}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 5, 3, 2}),
                bilinear ? In(request, 1, {2, 3, 4, 2}) : IntVector(TSR_DTYPE_INT32, {3, 4})};
    c.attrs["align_corners"] = BoolAttr(align);
    c.attrs["half_pixel_centers"] = BoolAttr(half);
    c.variant = absl::StrCat("[2,5,3,2]/to3x4", align ? "/align_corners" : "",
                             half ? "/half_pixel_centers" : "");
    c.tolerance_scale = 4;
    cases.push_back(std::move(c));
  }
  return cases;
}

// CropAndResize: three boxes (values in [-2, 2]: partly outside the image) of a batch of two.
std::vector<KernelCase> CropAndResizeCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::string method : {"bilinear", "nearest"}) {
    KernelCase c;
    c.inputs = {In(request, 0, {2, 4, 5, 2}), In(request, 1, {3, 4}),
                IntVector(TSR_DTYPE_INT32, {0, 1, 0}), IntVector(TSR_DTYPE_INT32, {3, 2})};
    c.attrs["method"] = StringAttr(method);
    c.variant = absl::StrCat("[2,4,5,2]/3boxes/3x2/", method);
    cases.push_back(std::move(c));
  }
  return cases;
}

// NonMaxSuppressionV2 to V5 over 8 random boxes: IOU threshold 1 and score threshold 0 (values
// every float type holds exactly), V5 also with soft-NMS (sigma 1).
std::vector<KernelCase> NonMaxSuppressionCases(const CaseRequest& request, int version) {
  const DataType threshold_type = InputType(request, 3);
  std::vector<KernelCase> cases;
  for (const int64_t sigma : version == 5 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}) {
    KernelCase c;
    c.inputs = {In(request, 0, {8, 4}), In(request, 1, {8}), IntScalar(TSR_DTYPE_INT32, 5),
                SmallIntegerScalar(threshold_type, 1)};
    if (version >= 3) c.inputs.push_back(SmallIntegerScalar(threshold_type, 0));
    if (version == 5) c.inputs.push_back(SmallIntegerScalar(threshold_type, sigma));
    c.variant = absl::StrCat("8boxes/max5", sigma > 0 ? "/soft" : "");
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<KernelCase> Conv3DCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::string padding : {"VALID", "SAME"}) {
    for (int64_t stride : {1, 2}) {
      KernelCase c;
      c.inputs = {In(request, 0, {2, 4, 5, 4, 2}), In(request, 1, {2, 3, 2, 2, 3})};
      c.attrs["strides"] = IntsAttr({1, stride, stride, stride, 1});
      c.attrs["padding"] = StringAttr(padding);
      c.variant = absl::StrCat(padding, "/strides", stride, ShapesName(c.inputs));
      c.tolerance_scale = 24;  // the window: 2x3x2, times 2 input channels
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::vector<KernelCase> Pool3DCases(const CaseRequest& request) {
  std::vector<KernelCase> cases;
  for (const std::string padding : {"VALID", "SAME"}) {
    for (const auto& [window, stride] : {std::pair<int64_t, int64_t>{2, 2}, {3, 1}}) {
      KernelCase c;
      c.inputs = {In(request, 0, {2, 4, 5, 3, 2})};
      c.attrs["ksize"] = IntsAttr({1, window, window, window, 1});
      c.attrs["strides"] = IntsAttr({1, stride, stride, stride, 1});
      c.attrs["padding"] = StringAttr(padding);
      c.variant =
          absl::StrCat(padding, "/window", window, "/strides", stride, ShapesName(c.inputs));
      c.tolerance_scale = static_cast<double>(window * window * window);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace tessera::plugin_check
