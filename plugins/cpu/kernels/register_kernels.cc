// Registers every CPU kernel group with the host.
#include "plugins/cpu/kernels/register_kernels.h"

#include "plugins/cpu/kernels/register_math_kernels.h"

namespace tessera::cpu {

sdk::Status RegisterAllKernels(TSR_Registrar* registrar) {
  using RegisterFn = sdk::Status (*)(TSR_Registrar*);
  static constexpr RegisterFn kGroups[] = {
      &RegisterBinaryArithmeticKernels,
      &RegisterBinaryDivisionExtremaKernels,
      &RegisterUnaryBasicKernels,
      &RegisterUnaryTranscendentalKernels,
      &RegisterMatMulKernels,
      &RegisterBatchMatMulKernels,
      &RegisterConv2DKernels,
      &RegisterConv2DBackpropKernels,
      &RegisterConv3DKernels,
      &RegisterDepthwiseConvKernels,
      &RegisterDepthwiseConvBackpropKernels,
      &RegisterBiasAddKernels,
      &RegisterSoftmaxKernels,
      &RegisterReductionKernels,
      &RegisterBinaryDivModKernels,
      &RegisterBinaryPowKernels,
      &RegisterUnaryRoundingKernels,
      &RegisterUnarySpecialKernels,
      &RegisterAddNKernels,
      &RegisterSelectKernels,
      &RegisterArgMinMaxKernels,
      &RegisterCumsumKernels,
      &RegisterConstantKernels,
      &RegisterShapeKernels,
      &RegisterConcatKernels,
      &RegisterFillKernels,
      &RegisterTransposeKernels,
      &RegisterSliceKernels,
      &RegisterSplitKernels,
      &RegisterTileKernels,
      &RegisterPadKernels,
      &RegisterGatherKernels,
      &RegisterSequenceKernels,
      &RegisterIdentityKernels,
      &RegisterMetadataKernels,
      &RegisterCastKernels,
      &RegisterComparisonKernels,
      &RegisterLogicalKernels,
      &RegisterActivationKernels,
      &RegisterBiasAddGradKernels,
      &RegisterLossKernels,
      &RegisterLrnKernels,
      &RegisterPoolKernels,
      &RegisterPoolGradKernels,
      &RegisterPool3DKernels,
      &RegisterBatchNormKernels,
      &RegisterTrainingKernels,
      &RegisterScatterKernels,
      &RegisterRandomKernels,
      &RegisterStridedSliceGradKernels,
      &RegisterMirrorPadGradKernels,
      &RegisterUnsortedSegmentSumKernels,
      &RegisterInvertPermutationKernels,
      &RegisterTrigonometricKernels,
      &RegisterFloatClassKernels,
      &RegisterCumprodKernels,
      &RegisterClipByValueKernels,
      &RegisterCheckNumericsKernels,
      &RegisterLinSpaceKernels,
      &RegisterBucketizeKernels,
      &RegisterUniqueKernels,
      &RegisterDynamicStitchKernels,
      &RegisterGatherNdKernels,
      &RegisterReverseSequenceKernels,
      &RegisterTopKKernels,
      &RegisterResizeKernels,
      &RegisterCropAndResizeKernels,
      &RegisterNonMaxSuppressionKernels,
      &RegisterSpaceToBatchKernels,
      &RegisterDepthToSpaceKernels,
      &RegisterMatrixDiagKernels,
      &RegisterMatrixBandPartKernels,
      &RegisterSegmentReductionKernels,
  };
  for (RegisterFn group : kGroups) {
    sdk::Status status = group(registrar);
    if (!status.ok()) return status;
  }
  return sdk::OkStatus();
}

}  // namespace tessera::cpu
