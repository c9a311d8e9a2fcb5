// The common start of the UnsortedSegment* kernels (Sum, Max, Min, Prod): inputs (data,
// segment_ids, num_segments) checked with TensorFlow's messages, the output allocated as
// [num_segments] + data.shape[segment_ids.rank:], and the ids read.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_UNSORTED_SEGMENTS_H_
#define TESSERA_PLUGINS_CPU_KERNELS_UNSORTED_SEGMENTS_H_

#include <cstdint>
#include <vector>

#include "plugins/cpu/kernels/array_util.h"

namespace tessera::cpu {

struct UnsortedSegments {
  TensorView data;
  TensorView out;
  // One id per row of data (negative: the row is dropped); empty when data is empty.
  std::vector<int64_t> ids;
  // Elements per output row.
  int64_t row_length = 0;
};

inline Status PrepareUnsortedSegments(KernelContext& ctx, UnsortedSegments* s) {
  TensorView segment_ids;
  TensorView num_segments;
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(0, &s->data));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(1, &segment_ids));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.GetInput(2, &num_segments));
  TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, segment_ids, "segment_ids"));
  TESSERA_SDK_RETURN_IF_ERROR(CheckIndexType(ctx, num_segments, "num_segments"));
  if (num_segments.rank() != 0) {
    return sdk::InvalidArgument("num_segments should be a scalar, not shape ",
                                num_segments.shape().DebugString());
  }
  const TensorView& data = s->data;
  if (!ShapeStartsWith(data.shape(), segment_ids.shape())) {
    return sdk::InvalidArgument(
        "data.shape = ", data.shape().DebugString(),
        " does not start with segment_ids.shape = ", segment_ids.shape().DebugString());
  }
  const int64_t rows = IndexAt(num_segments, 0);
  if (rows < 0) {
    return sdk::InvalidArgument("Input num_segments == ", rows, " must not be negative.");
  }
  Shape out_shape;
  out_shape.AddDim(rows);
  for (int d = segment_ids.rank(); d < data.rank(); ++d) out_shape.AddDim(data.dim(d));
  TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, out_shape, &s->out));
  s->row_length = rows == 0 ? 0 : s->out.num_elements() / rows;
  if (data.num_elements() == 0) return OkStatus();
  s->ids = IntegersOf(segment_ids);
  for (size_t i = 0; i < s->ids.size(); ++i) {
    if (s->ids[i] >= rows) {
      return sdk::InvalidArgument("segment_ids",
                                  SliceIndexString(segment_ids.shape(), static_cast<int64_t>(i)),
                                  " = ", s->ids[i], " is out of range [0, ", rows, ")");
    }
  }
  return OkStatus();
}

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_UNSORTED_SEGMENTS_H_
