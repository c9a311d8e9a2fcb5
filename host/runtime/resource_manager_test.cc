// ResourceManager keys variables by kind, device, container and name; handles round-trip.
#include "host/runtime/resource_manager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(ResourceManagerTest, SameKeySameVariableOtherKeysDiffer) {
  ResourceManager resources;
  absl::StatusOr<Variable*> a =
      resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:0", "", "w", TSR_DTYPE_FLOAT);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(
      *resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:0", "", "w", TSR_DTYPE_FLOAT), *a);
  EXPECT_NE(
      *resources.LookupOrCreate(VariableKind::kResource, "/device:CPU:0", "", "w", TSR_DTYPE_FLOAT),
      *a);
  EXPECT_NE(
      *resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:1", "", "w", TSR_DTYPE_FLOAT), *a);
  EXPECT_NE(
      *resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:0", "c", "w", TSR_DTYPE_FLOAT),
      *a);
  EXPECT_EQ(resources.size(), 4u);
  EXPECT_FALSE((*a)->initialized());
  EXPECT_EQ((*a)->name(), "w");
  resources.Clear();
  EXPECT_EQ(resources.size(), 0u);
}

TEST(ResourceManagerTest, RejectsAnotherDtypeForTheSameVariable) {
  ResourceManager resources;
  ASSERT_TRUE(
      resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:0", "", "w", TSR_DTYPE_FLOAT).ok());
  absl::StatusOr<Variable*> other =
      resources.LookupOrCreate(VariableKind::kRef, "/device:CPU:0", "", "w", TSR_DTYPE_INT32);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("variable 'w' on /device:CPU:0 has dtype float, but a node asks for it "
                        "as int32"));
}

TEST(ResourceManagerTest, HandlesRoundTripAndOtherTensorsAreRejected) {
  ResourceManager resources;
  Variable* w =
      *resources.LookupOrCreate(VariableKind::kResource, "/device:CPU:0", "", "w", TSR_DTYPE_FLOAT);
  Tensor handle = MakeVariableHandle(w);
  EXPECT_EQ(handle.dtype(), TSR_DTYPE_RESOURCE);
  EXPECT_EQ(*VariableFromHandle(handle), w);
  absl::StatusOr<Variable*> bad = VariableFromHandle(Tensor::Scalar<float>(1));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("expected a resource handle (a resource scalar in host memory), got "
                        "float []"));
  EXPECT_FALSE(VariableFromHandle(Tensor()).ok());
}

TEST(ResourceManagerTest, RefTypesNameTheirBaseType) {
  EXPECT_TRUE(IsRefType(MakeRefType(TSR_DTYPE_FLOAT)));
  EXPECT_EQ(BaseType(MakeRefType(TSR_DTYPE_INT32)), TSR_DTYPE_INT32);
  EXPECT_EQ(MakeRefType(MakeRefType(TSR_DTYPE_FLOAT)), MakeRefType(TSR_DTYPE_FLOAT));
  EXPECT_EQ(DataTypeString(MakeRefType(TSR_DTYPE_FLOAT)), "float_ref");
  EXPECT_FALSE(IsRefType(TSR_DTYPE_RESOURCE));
}

}  // namespace
}  // namespace tessera
