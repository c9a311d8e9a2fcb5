// How the kernel suite compares a plugin's outputs and status with the CPU oracle's: a tolerance
// per dtype, exact shapes, NaN equal to NaN, and messages that name the worst element.
#ifndef TESSERA_KIT_COMPARE_H_
#define TESSERA_KIT_COMPARE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "host/runtime/tensor.h"

namespace tessera::plugin_check {

// |actual - expected| <= absolute + relative * |expected| passes; both zero means exact.
struct Tolerance {
  double absolute = 0;
  double relative = 0;

  bool exact() const { return absolute == 0 && relative == 0; }
};

// Integers and bool: exact. float: 1e-6 + 1e-5 |e|; double: 1e-12 + 1e-10 |e|; half:
// 1e-3 + 2e-3 |e|; bfloat16: 1e-2 + 1.6e-2 |e|; complex types as their parts. Both terms are
// multiplied by `scale` (the number of products summed into an output element) when above 1.
Tolerance ToleranceFor(DataType dtype, double scale = 1);

// The outcome of one comparison. `message` reads on its own in a report, e.g. "largest
// difference 1 at element 0 (expected 2, got 3); tolerance 1e-05" or, when it passed, "largest
// difference 2.4e-07 (tolerance 1e-05)".
struct Comparison {
  bool ok = true;
  std::string message;
};

// Compares two host tensors: dtype and shape exactly, then every element within `tolerance`
// (NaN equals NaN, an infinity only the same infinity).
Comparison CompareTensors(const Tensor& expected, const Tensor& actual, const Tolerance& tolerance);

// Compares every output (`expected` from the oracle, `actual` from the plugin), each with
// ToleranceFor(its dtype, `tolerance_scale`); with several outputs, messages name the output.
Comparison CompareOutputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual,
                          double tolerance_scale);

// The verdict when at least one side failed: both with the same code pass ("both failed with
// INVALID_ARGUMENT: ..."); otherwise a failure naming both statuses.
Comparison CompareFailures(const absl::Status& oracle, const absl::Status& plugin);

}  // namespace tessera::plugin_check

#endif  // TESSERA_KIT_COMPARE_H_
