// IdentityN, StopGradient, PreventGradient, Snapshot and OnesLike for every fixed-size dtype,
// empty and scalar inputs.
#include <complex>
#include <vector>

#include "tests/kernels/cpu/array_test_util.h"

namespace tessera::cpu::test {
namespace {

const std::vector<DataType>& EveryType() {
  static const auto* types = new std::vector<DataType>{
      TSR_DTYPE_FLOAT,    TSR_DTYPE_DOUBLE,    TSR_DTYPE_INT32,     TSR_DTYPE_INT64,
      TSR_DTYPE_BOOL,     TSR_DTYPE_UINT8,     TSR_DTYPE_INT8,      TSR_DTYPE_INT16,
      TSR_DTYPE_UINT16,   TSR_DTYPE_UINT32,    TSR_DTYPE_UINT64,    TSR_DTYPE_HALF,
      TSR_DTYPE_BFLOAT16, TSR_DTYPE_COMPLEX64, TSR_DTYPE_COMPLEX128};
  return *types;
}

TEST(IdentityNOpTest, ForwardsEveryInput) {
  const std::vector<DataType> types = {TSR_DTYPE_FLOAT, TSR_DTYPE_BOOL, TSR_DTYPE_COMPLEX128,
                                       TSR_DTYPE_INT64};
  std::vector<Tensor> inputs = {
      RandomOfType(types[0], Shape({2, 3})), RandomOfType(types[1], Shape({})),
      RandomOfType(types[2], Shape({0, 4})), RandomOfType(types[3], Shape({5}))};
  OpTester tester("IdentityN");
  tester.Attr("T", types);
  for (const Tensor& t : inputs) tester.Input(t);
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run(4);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  for (size_t i = 0; i < inputs.size(); ++i) ExpectSameBytes((*outputs)[i], inputs[i]);
}

TEST(StopGradientAndSnapshotOpTest, ReturnTheInputForEveryType) {
  for (const char* op : {"StopGradient", "PreventGradient", "Snapshot"}) {
    for (DataType dtype : EveryType()) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype));
      for (const TensorShape& shape : {Shape({}), Shape({3, 0}), Shape({2, 3, 4})}) {
        const Tensor input = RandomOfType(dtype, shape);
        OpTester tester(op);
        tester.Attr("T", dtype).Input(input);
        ExpectSameBytes(RunOk(tester), input);
      }
    }
  }
}

// The bytes of one in `dtype`.
Tensor One(DataType dtype) {
  switch (dtype) {
    case TSR_DTYPE_FLOAT:
      return Tensor::Scalar<float>(1);
    case TSR_DTYPE_DOUBLE:
      return Tensor::Scalar<double>(1);
    case TSR_DTYPE_INT32:
      return Tensor::Scalar<int32_t>(1);
    case TSR_DTYPE_INT64:
      return Tensor::Scalar<int64_t>(1);
    case TSR_DTYPE_BOOL:
      return Tensor::Scalar<bool>(true);
    case TSR_DTYPE_UINT8:
      return Tensor::Scalar<uint8_t>(1);
    case TSR_DTYPE_INT8:
      return Tensor::Scalar<int8_t>(1);
    case TSR_DTYPE_INT16:
      return Tensor::Scalar<int16_t>(1);
    case TSR_DTYPE_UINT16:
      return Tensor::Scalar<uint16_t>(1);
    case TSR_DTYPE_UINT32:
      return Tensor::Scalar<uint32_t>(1);
    case TSR_DTYPE_UINT64:
      return Tensor::Scalar<uint64_t>(1);
    default:
      break;
  }
  Tensor t(dtype, TensorShape{});
  if (dtype == TSR_DTYPE_HALF || dtype == TSR_DTYPE_BFLOAT16) {
    const uint16_t bits = dtype == TSR_DTYPE_HALF ? 0x3C00 : 0x3F80;
    std::memcpy(t.data(), &bits, 2);
  } else if (dtype == TSR_DTYPE_COMPLEX64) {
    const std::complex<float> one(1, 0);
    std::memcpy(t.data(), &one, sizeof(one));
  } else {
    const std::complex<double> one(1, 0);
    std::memcpy(t.data(), &one, sizeof(one));
  }
  return t;
}

TEST(OnesLikeOpTest, EveryType) {
  for (DataType dtype : EveryType()) {
    SCOPED_TRACE(DataTypeString(dtype));
    const Tensor one = One(dtype);
    for (const TensorShape& shape : {Shape({}), Shape({0}), Shape({3, 1, 2})}) {
      OpTester tester("OnesLike");
      tester.Attr("T", dtype).Input(RandomOfType(dtype, shape));
      ExpectSameBytes(RunOk(tester),
                      ReferenceCopy(one, shape, [](const std::vector<int64_t>&) { return 0; }));
    }
  }
}

}  // namespace
}  // namespace tessera::cpu::test
