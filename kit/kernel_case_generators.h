// The case generators of kernel_cases.cc's table, by family, and the helpers they share.
// Internal to the kernel suite.
#ifndef TESSERA_KIT_KERNEL_CASE_GENERATORS_H_
#define TESSERA_KIT_KERNEL_CASE_GENERATORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kit/kernel_case_values.h"
#include "kit/kernel_cases.h"

namespace tessera::plugin_check {

tensorflow::AttrValue BoolAttr(bool value);
tensorflow::AttrValue StringAttr(const std::string& value);
tensorflow::AttrValue IntsAttr(const std::vector<int64_t>& values);
tensorflow::AttrValue TypeAttr(DataType dtype);

// The dtype of input `index` of the op: its fixed type or its type attribute's value.
DataType InputType(const CaseRequest& request, int index);
// Random values for input `index` of `shape`.
Tensor In(const CaseRequest& request, int index, const TensorShape& shape,
          ValueDomain domain = ValueDomain::kAny);

// kernel_cases_nn.cc: linear algebra, convolutions, pooling.
std::vector<KernelCase> MatMulCases(const CaseRequest& request);
std::vector<KernelCase> BatchMatMulCases(const CaseRequest& request);
std::vector<KernelCase> ConvolutionCases(const CaseRequest& request, bool depthwise);
std::vector<KernelCase> BiasAddCases(const CaseRequest& request);
std::vector<KernelCase> PoolCases(const CaseRequest& request);
std::vector<KernelCase> Conv3DCases(const CaseRequest& request);
std::vector<KernelCase> Pool3DCases(const CaseRequest& request);
// Image and detection ops.
std::vector<KernelCase> ResizeCases(const CaseRequest& request);
std::vector<KernelCase> ResizeGradCases(const CaseRequest& request, bool bilinear);
std::vector<KernelCase> CropAndResizeCases(const CaseRequest& request);
std::vector<KernelCase> NonMaxSuppressionCases(const CaseRequest& request, int version);

// kernel_cases_array.cc: ops that build, reshape and select.
std::vector<KernelCase> ConstCases(const CaseRequest& request);
std::vector<KernelCase> CastCases(const CaseRequest& request);
std::vector<KernelCase> TransposeCases(const CaseRequest& request);
std::vector<KernelCase> ConcatCases(const CaseRequest& request);
std::vector<KernelCase> SelectCases(const CaseRequest& request, bool v2);
std::vector<KernelCase> FillCases(const CaseRequest& request);
std::vector<KernelCase> ReshapeCases(const CaseRequest& request);
std::vector<KernelCase> ExpandDimsCases(const CaseRequest& request);
std::vector<KernelCase> TileCases(const CaseRequest& request);
std::vector<KernelCase> PadCases(const CaseRequest& request);
std::vector<KernelCase> SliceCases(const CaseRequest& request);
std::vector<KernelCase> GatherCases(const CaseRequest& request);
std::vector<KernelCase> CumsumCases(const CaseRequest& request);
std::vector<KernelCase> RangeCases(const CaseRequest& request);
std::vector<KernelCase> InvertPermutationCases(const CaseRequest& request);
std::vector<KernelCase> ConcatOffsetCases(const CaseRequest& request);
std::vector<KernelCase> UniqueCases(const CaseRequest& request);
std::vector<KernelCase> DynamicStitchCases(const CaseRequest& request);
std::vector<KernelCase> ReverseSequenceCases(const CaseRequest& request);
std::vector<KernelCase> GatherNdCases(const CaseRequest& request);
std::vector<KernelCase> ScatterNdCases(const CaseRequest& request);
std::vector<KernelCase> TopKCases(const CaseRequest& request);
std::vector<KernelCase> GatherV1Cases(const CaseRequest& request);
std::vector<KernelCase> ReverseV1Cases(const CaseRequest& request);
std::vector<KernelCase> ConcatV1Cases(const CaseRequest& request);
std::vector<KernelCase> MatrixBandPartCases(const CaseRequest& request);
std::vector<KernelCase> SpaceToBatchNdCases(const CaseRequest& request);
std::vector<KernelCase> BatchToSpaceNdCases(const CaseRequest& request);
std::vector<KernelCase> SpaceToDepthCases(const CaseRequest& request);
std::vector<KernelCase> DepthToSpaceCases(const CaseRequest& request);
std::vector<KernelCase> MatrixDiagPartV3Cases(const CaseRequest& request);
std::vector<KernelCase> MatrixSetDiagV3Cases(const CaseRequest& request);
std::vector<KernelCase> MatrixDiagV3Cases(const CaseRequest& request);
std::vector<KernelCase> SegmentCases(const CaseRequest& request);
std::vector<KernelCase> UnsortedSegmentCases(const CaseRequest& request);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_KERNEL_CASE_GENERATORS_H_
