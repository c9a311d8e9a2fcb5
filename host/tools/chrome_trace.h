// Chrome trace export: turns one step's StepStats into the Trace Event Format JSON that
// chrome://tracing and ui.perfetto.dev open.
#ifndef TESSERA_HOST_TOOLS_CHROME_TRACE_H_
#define TESSERA_HOST_TOOLS_CHROME_TRACE_H_

#include <string>

#include "absl/status/status.h"
#include "host/runtime/step_stats.h"

namespace tessera {

// The trace as a JSON object: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData":
// {"step_id": "<decimal>", "step_duration_us": <number>}}:
//  - one process per device (pid 1, 2, ... in the order of stats.devices), named by a
//    "process_name" metadata event ("ph": "M") carrying the device name, and ordered by a
//    "process_sort_index" event;
//  - one thread per OS thread that ran nodes of that device (tid = NodeExecStats::thread_id),
//    named "thread N" by a "thread_name" metadata event;
//  - one complete event ("ph": "X") per node: name = node name, cat = op, ts and dur in
//    microseconds (fractional) relative to the step's start, args = {op, outputs (the
//    NodeExecStats::output_shapes strings), frame ("0x" and 16 hex digits at most) and iter when
//    nonzero, dead: true for dead nodes}.
// Ids that use 64 bits (step, frame) are strings: JavaScript viewers round numbers past 2^53.
// A node that started before stats.start_ns (or a stats without a start) moves the time origin
// back to the earliest node, so no timestamp is negative; an end before a start gives dur 0.
// Bytes that are not UTF-8 (in node, op or device names) are replaced by U+FFFD.
std::string StepStatsToChromeTrace(const StepStats& stats);

// Writes StepStatsToChromeTrace(stats) to `path`, replacing the file. NOT_FOUND when the folder
// does not exist, PERMISSION_DENIED when it may not be written, INVALID_ARGUMENT when `path` is a
// folder, UNKNOWN for other failures; each message says "cannot open for writing 'PATH': ..." or
// "cannot write 'PATH': ...".
absl::Status WriteChromeTrace(const StepStats& stats, const std::string& path);

}  // namespace tessera

#endif  // TESSERA_HOST_TOOLS_CHROME_TRACE_H_
