// The random op wrappers: each converts its inputs, checks types and adds one stateful node.
#include "host/client/random_ops.h"

#include "absl/strings/str_cat.h"
#include "host/client/op_builder.h"

namespace tessera {
namespace ops {
namespace {

constexpr std::initializer_list<DataType> kIndexTypes = {TSR_DTYPE_INT32, TSR_DTYPE_INT64};

bool IsRandomFloatType(DataType t) {
  return t == TSR_DTYPE_HALF || t == TSR_DTYPE_BFLOAT16 || t == TSR_DTYPE_FLOAT ||
         t == TSR_DTYPE_DOUBLE;
}

Output First(const Operation& op) { return op.valid() ? op.output(0) : Output(); }

// A RandomUniform-like node: input shape, attrs dtype, seed, seed2, T.
Operation RandomFloatOp(const Scope& scope, absl::string_view op, absl::string_view name,
                        const Input& shape, DataType dtype, const RandomAttrs& attrs) {
  if (!scope.ok()) return Operation();
  Output s = AsNodeOut(scope, shape);
  if (!scope.ok()) return Operation();
  OpBuilder builder(scope, op, name);
  if (!IsRandomFloatType(dtype)) {
    builder.SetError(absl::StrCat("attr 'dtype' must be half, bfloat16, float or double, got ",
                                  DataTypeString(dtype)));
  }
  builder.CheckType("T", s, kIndexTypes);
  builder.Input(s).AttrType("dtype", dtype).AttrInt("seed", attrs.seed_);
  builder.AttrInt("seed2", attrs.seed2_).AttrType("T", s.type());
  return builder.Finalize({dtype});
}

// Python's _truncate_seed: the non-negative remainder modulo 2^31 - 1.
int64_t TruncateSeed(int64_t seed) {
  constexpr int64_t kMaxInt32 = (int64_t{1} << 31) - 1;
  const int64_t remainder = seed % kMaxInt32;
  return remainder < 0 ? remainder + kMaxInt32 : remainder;
}

}  // namespace

RandomUniform::RandomUniform(const Scope& scope, Input shape, DataType dtype)
    : RandomUniform(scope, shape, dtype, Attrs()) {}

RandomUniform::RandomUniform(const Scope& scope, Input shape, DataType dtype, const Attrs& attrs)
    : operation(RandomFloatOp(scope, "RandomUniform", "RandomUniform", shape, dtype, attrs)),
      output(First(operation)) {}

RandomNormal::RandomNormal(const Scope& scope, Input shape, DataType dtype)
    : RandomNormal(scope, shape, dtype, Attrs()) {}

RandomNormal::RandomNormal(const Scope& scope, Input shape, DataType dtype, const Attrs& attrs)
    : operation(RandomFloatOp(scope, "RandomStandardNormal", "RandomNormal", shape, dtype, attrs)),
      output(First(operation)) {}

TruncatedNormal::TruncatedNormal(const Scope& scope, Input shape, DataType dtype)
    : TruncatedNormal(scope, shape, dtype, Attrs()) {}

TruncatedNormal::TruncatedNormal(const Scope& scope, Input shape, DataType dtype,
                                 const Attrs& attrs)
    : operation(RandomFloatOp(scope, "TruncatedNormal", "TruncatedNormal", shape, dtype, attrs)),
      output(First(operation)) {}

RandomUniformInt::RandomUniformInt(const Scope& scope, Input shape, Input minval, Input maxval)
    : RandomUniformInt(scope, shape, minval, maxval, Attrs()) {}

RandomUniformInt::RandomUniformInt(const Scope& scope, Input shape, Input minval, Input maxval,
                                   const Attrs& attrs) {
  if (!scope.ok()) return;
  Output s = AsNodeOut(scope, shape);
  Output lo = AsNodeOut(scope, minval);
  Output hi = AsNodeOut(scope, maxval);
  if (!scope.ok()) return;
  OpBuilder builder(scope, "RandomUniformInt");
  builder.CheckType("T", s, kIndexTypes);
  const DataType tout = builder.CommonType("Tout", {lo, hi});
  builder.CheckType("Tout", lo, kIndexTypes);
  builder.Input(s).Input(lo).Input(hi).AttrInt("seed", attrs.seed_);
  builder.AttrInt("seed2", attrs.seed2_).AttrType("Tout", tout).AttrType("T", s.type());
  operation = builder.Finalize({tout});
  output = First(operation);
}

RandomAttrs PythonSeeds(std::optional<int64_t> global_seed, int64_t op_seed) {
  constexpr int64_t kDefaultGraphSeed = 87654321;
  const int64_t seed = global_seed.has_value() ? TruncateSeed(*global_seed) : kDefaultGraphSeed;
  const int64_t seed2 = TruncateSeed(op_seed);
  if (seed == 0 && seed2 == 0) return RandomAttrs().Seed(0).Seed2((int64_t{1} << 31) - 1);
  return RandomAttrs().Seed(seed).Seed2(seed2);
}

}  // namespace ops
}  // namespace tessera
