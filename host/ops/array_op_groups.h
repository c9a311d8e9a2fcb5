// The array op definitions are split over six files; RegisterArrayOps (array_ops.cc) calls the
// five groups declared here.
#ifndef TESSERA_HOST_OPS_ARRAY_OP_GROUPS_H_
#define TESSERA_HOST_OPS_ARRAY_OP_GROUPS_H_

#include "absl/status/status.h"
#include "host/ops/op_registry.h"

namespace tessera {

// Slice, StridedSlice, Split, SplitV, Unpack (array_slice_ops.cc).
absl::Status RegisterArraySliceOps(OpRegistry* registry);
// Transpose, ReverseV2, Reverse, ReverseSequence, Tile, BroadcastTo, Pad, PadV2, MirrorPad,
// GatherV2, Gather, OneHot, MatrixBandPart (array_transform_ops.cc).
absl::Status RegisterArrayTransformOps(OpRegistry* registry);
// Unique, DynamicStitch, ParallelDynamicStitch, GatherNd, ScatterNd (array_index_ops.cc).
absl::Status RegisterArrayIndexOps(OpRegistry* registry);
// SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth, DepthToSpace
// (array_layout_ops.cc).
absl::Status RegisterArrayLayoutOps(OpRegistry* registry);
// MatrixDiag, MatrixDiagPart, MatrixSetDiag and their V2 and V3 forms (array_diag_ops.cc).
absl::Status RegisterArrayDiagOps(OpRegistry* registry);

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_ARRAY_OP_GROUPS_H_
