// Registration entry points of the CPU kernel groups, one per translation unit.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/status.h"

namespace tessera::cpu {

sdk::Status RegisterBinaryArithmeticKernels(TSR_Registrar* registrar);       // Add AddV2 Sub Mul
sdk::Status RegisterBinaryDivisionExtremaKernels(TSR_Registrar* registrar);  // RealDiv Max Min
sdk::Status RegisterUnaryBasicKernels(TSR_Registrar* registrar);  // Neg Abs Square Relu Relu6
sdk::Status RegisterUnaryTranscendentalKernels(TSR_Registrar* registrar);  // Exp Log Sqrt ...
sdk::Status RegisterMatMulKernels(TSR_Registrar* registrar);
sdk::Status RegisterBatchMatMulKernels(TSR_Registrar* registrar);     // BatchMatMulV2
sdk::Status RegisterConv2DKernels(TSR_Registrar* registrar);          // Conv2D
sdk::Status RegisterConv2DBackpropKernels(TSR_Registrar* registrar);  // Conv2D gradients
sdk::Status RegisterConv3DKernels(TSR_Registrar* registrar);          // Conv3D and its gradients
sdk::Status RegisterDepthwiseConvKernels(TSR_Registrar* registrar);   // DepthwiseConv2dNative
sdk::Status RegisterDepthwiseConvBackpropKernels(TSR_Registrar* registrar);  // its gradients
sdk::Status RegisterBiasAddKernels(TSR_Registrar* registrar);
sdk::Status RegisterSoftmaxKernels(TSR_Registrar* registrar);
sdk::Status RegisterReductionKernels(TSR_Registrar* registrar);     // Sum Mean Max Min Prod All Any
sdk::Status RegisterBinaryDivModKernels(TSR_Registrar* registrar);  // Div FloorDiv ... Mod
sdk::Status RegisterBinaryPowKernels(TSR_Registrar* registrar);     // Pow SquaredDifference
sdk::Status RegisterUnaryRoundingKernels(TSR_Registrar* registrar);  // Sign Floor Ceil Round
sdk::Status RegisterUnarySpecialKernels(TSR_Registrar* registrar);   // Log1p Expm1 Erf Reciprocal
sdk::Status RegisterAddNKernels(TSR_Registrar* registrar);
sdk::Status RegisterSelectKernels(TSR_Registrar* registrar);     // Select SelectV2
sdk::Status RegisterArgMinMaxKernels(TSR_Registrar* registrar);  // ArgMax ArgMin
sdk::Status RegisterCumsumKernels(TSR_Registrar* registrar);
sdk::Status RegisterConstantKernels(TSR_Registrar* registrar);   // Const Identity NoOp Placeholder*
sdk::Status RegisterShapeKernels(TSR_Registrar* registrar);      // Reshape Shape ExpandDims Squeeze
sdk::Status RegisterConcatKernels(TSR_Registrar* registrar);     // ConcatV2 Concat Pack
sdk::Status RegisterFillKernels(TSR_Registrar* registrar);       // Fill ZerosLike
sdk::Status RegisterTransposeKernels(TSR_Registrar* registrar);  // Transpose ReverseV2 Reverse
sdk::Status RegisterSliceKernels(TSR_Registrar* registrar);      // Slice StridedSlice
sdk::Status RegisterSplitKernels(TSR_Registrar* registrar);      // Split SplitV Unpack
sdk::Status RegisterTileKernels(TSR_Registrar* registrar);       // Tile BroadcastTo
sdk::Status RegisterPadKernels(TSR_Registrar* registrar);        // Pad PadV2 MirrorPad
sdk::Status RegisterGatherKernels(TSR_Registrar* registrar);     // GatherV2 Gather OneHot
sdk::Status RegisterSequenceKernels(TSR_Registrar* registrar);   // Range Where
sdk::Status RegisterIdentityKernels(TSR_Registrar* registrar);   // IdentityN StopGradient ...
sdk::Status RegisterMetadataKernels(TSR_Registrar* registrar);   // Size Rank ShapeN ConcatOffset ...
sdk::Status RegisterCastKernels(TSR_Registrar* registrar);
sdk::Status RegisterComparisonKernels(TSR_Registrar* registrar);  // Less ... NotEqual
sdk::Status RegisterLogicalKernels(TSR_Registrar* registrar);     // LogicalAnd LogicalOr LogicalNot
sdk::Status RegisterRandomKernels(TSR_Registrar* registrar);  // RandomUniform ... RandomUniformInt

sdk::Status RegisterActivationKernels(TSR_Registrar* registrar);  // Elu ... TanhGrad
sdk::Status RegisterBiasAddGradKernels(TSR_Registrar* registrar);
sdk::Status RegisterLossKernels(TSR_Registrar* registrar);       // *SoftmaxCrossEntropy*, L2Loss
sdk::Status RegisterLrnKernels(TSR_Registrar* registrar);        // LRN LRNGrad
sdk::Status RegisterPoolKernels(TSR_Registrar* registrar);       // MaxPool AvgPool
sdk::Status RegisterPoolGradKernels(TSR_Registrar* registrar);   // MaxPoolGrad AvgPoolGrad
sdk::Status RegisterPool3DKernels(TSR_Registrar* registrar);     // MaxPool3D AvgPool3D, gradients
sdk::Status RegisterBatchNormKernels(TSR_Registrar* registrar);  // FusedBatchNorm(Grad)V3
sdk::Status RegisterTrainingKernels(TSR_Registrar* registrar);   // AssignAdd/Sub, Apply*
sdk::Status RegisterScatterKernels(TSR_Registrar* registrar);  // (Resource)Scatter*, ResourceGather

// The ops that array gradients are built from.
sdk::Status RegisterStridedSliceGradKernels(TSR_Registrar* registrar);
sdk::Status RegisterMirrorPadGradKernels(TSR_Registrar* registrar);
sdk::Status RegisterUnsortedSegmentSumKernels(TSR_Registrar* registrar);
sdk::Status RegisterInvertPermutationKernels(TSR_Registrar* registrar);

// Ops that place elements by index.
sdk::Status RegisterUniqueKernels(TSR_Registrar* registrar);
sdk::Status RegisterDynamicStitchKernels(TSR_Registrar* registrar);  // and ParallelDynamicStitch
sdk::Status RegisterGatherNdKernels(TSR_Registrar* registrar);       // GatherNd ScatterNd
sdk::Status RegisterReverseSequenceKernels(TSR_Registrar* registrar);
sdk::Status RegisterTopKKernels(TSR_Registrar* registrar);  // TopKV2
// Image and detection ops.
sdk::Status RegisterResizeKernels(
    TSR_Registrar* registrar);  // ResizeBilinear(Grad) ResizeNearestNeighbor(Grad)
sdk::Status RegisterCropAndResizeKernels(TSR_Registrar* registrar);
sdk::Status RegisterNonMaxSuppressionKernels(TSR_Registrar* registrar);  // V2 to V5
// Ops that move blocks of space into the batch or the depth and back.
// SpaceToBatchND BatchToSpaceND SpaceToBatch BatchToSpace
sdk::Status RegisterSpaceToBatchKernels(TSR_Registrar* registrar);
sdk::Status RegisterDepthToSpaceKernels(TSR_Registrar* registrar);  // and SpaceToDepth
// MatrixDiag, MatrixDiagPart, MatrixSetDiag, each in versions 1 to 3.
sdk::Status RegisterMatrixDiagKernels(TSR_Registrar* registrar);
sdk::Status RegisterMatrixBandPartKernels(TSR_Registrar* registrar);
// SegmentSum SegmentMean SegmentMax UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd
sdk::Status RegisterSegmentReductionKernels(TSR_Registrar* registrar);

// All of the above, in order; stops at the first failure.
sdk::Status RegisterAllKernels(TSR_Registrar* registrar);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_REGISTER_KERNELS_H_
