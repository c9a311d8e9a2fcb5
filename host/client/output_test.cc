// Tests of Output, Operation, PartialTensorShape and Input's constant conversions.
#include "host/client/output.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string Describe(const Input::Initializer& init) {
  if (!init.status.ok()) return std::string(init.status.message());
  return init.tensor.DebugString(8);
}

TEST(OutputTest, NamesAndInputSpelling) {
  int graph = 0;
  Output first(&graph, "dense/MatMul", 0, DT_FLOAT);
  Output second(&graph, "split", 2, DT_INT32);
  EXPECT_TRUE(first.valid());
  EXPECT_EQ(first.name(), "dense/MatMul:0");
  EXPECT_EQ(first.InputString(), "dense/MatMul");
  EXPECT_EQ(second.InputString(), "split:2");
  EXPECT_FALSE(Output().valid());
}

TEST(OutputTest, OperationOutputs) {
  int graph = 0;
  Operation op(&graph, "n", {DT_FLOAT, DT_INT64});
  EXPECT_EQ(op.num_outputs(), 2);
  EXPECT_EQ(op.output(1).name(), "n:1");
  EXPECT_EQ(op.output(1).type(), DT_INT64);
  EXPECT_EQ(op.output_type(0), DT_FLOAT);
  EXPECT_FALSE(Operation().valid());
}

TEST(OutputTest, PartialTensorShapeProto) {
  tensorflow::TensorShapeProto proto;
  PartialTensorShape().ToProto(&proto);
  EXPECT_TRUE(proto.unknown_rank());
  EXPECT_EQ(proto.dim_size(), 0);
  PartialTensorShape({-1, 4}).ToProto(&proto);
  EXPECT_FALSE(proto.unknown_rank());
  ASSERT_EQ(proto.dim_size(), 2);
  EXPECT_EQ(proto.dim(0).size(), -1);
  EXPECT_EQ(proto.dim(1).size(), 4);
  PartialTensorShape(TensorShape{}).ToProto(&proto);  // a scalar: known rank 0
  EXPECT_FALSE(proto.unknown_rank());
  EXPECT_EQ(proto.dim_size(), 0);
}

TEST(InitializerTest, ScalarTypesFollowTensorFlow) {
  EXPECT_EQ(Describe(1), "int32 [] 1");
  EXPECT_EQ(Describe(int64_t{5}), "int64 [] 5");
  EXPECT_EQ(Describe(2.5f), "float [] 2.5");
  EXPECT_EQ(Describe(2.5), "double [] 2.5");
  EXPECT_EQ(Describe(true), "bool [] true");
  EXPECT_EQ(Describe(uint8_t{7}), "uint8 [] 7");
}

TEST(InitializerTest, ListsAndNestedLists) {
  EXPECT_EQ(Describe({1.f, 2.f, 3.f}), "float [3] 1 2 3");
  EXPECT_EQ(Describe({{1, 2}, {3, 4}}), "int32 [2,2] 1 2 3 4");
  EXPECT_EQ(Describe({{{1.0}, {2.0}}}), "double [1,2,1] 1 2");
  EXPECT_EQ(Describe(Input::Initializer({1, 2, 3, 4, 5, 6}, TensorShape{3, 2})),
            "int32 [3,2] 1 2 3 4 5 6");
}

TEST(InitializerTest, FromTensor) {
  Tensor t = Tensor::FromVector<int64_t>({2}, {8, 9});
  Input::Initializer init(t);
  EXPECT_TRUE(init.tensor.SharesBufferWith(t));
}

TEST(InputTest, KindsOfInput) {
  int graph = 0;
  Input from_output(Output(&graph, "x", 0, DT_FLOAT));
  EXPECT_FALSE(from_output.is_constant());
  EXPECT_EQ(from_output.output().node_name(), "x");
  Input from_number(3.f);
  EXPECT_TRUE(from_number.is_constant());
  EXPECT_EQ(from_number.tensor().DebugString(), "float [] 3");
  Input from_list({1, 2});
  EXPECT_EQ(from_list.tensor().DebugString(), "int32 [2] 1 2");
  Input from_tensor(Tensor::Scalar<double>(4));
  EXPECT_EQ(from_tensor.tensor().DebugString(), "double [] 4");
  InputList list({Output(&graph, "a", 0, DT_FLOAT), 1.f});
  EXPECT_EQ(list.size(), 2u);
}

// ---- Errors -------------------------------------------------------------------------------

TEST(InitializerErrorTest, MixedTypes) {
  Input::Initializer init({Input::Initializer(1), Input::Initializer(2.5)});
  EXPECT_EQ(init.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(init.status.message()),
              HasSubstr("initializer list elements must have one type: element 0 is int32 but "
                        "element 1 is double"));
}

TEST(InitializerErrorTest, RaggedLists) {
  Input::Initializer init({{1, 2}, {3}});
  EXPECT_EQ(init.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(init.status.message()),
              HasSubstr("must have one shape: element 0 is [2] but element 1 is [1]"));
}

TEST(InitializerErrorTest, ErrorsOfInnerListsPropagate) {
  Input::Initializer init({{{1, 2}, {3}}, {{1, 2}, {3, 4}}});
  EXPECT_THAT(std::string(init.status.message()), HasSubstr("must have one shape"));
}

TEST(InitializerErrorTest, EmptyList) {
  Input::Initializer init(std::initializer_list<Input::Initializer>{});
  EXPECT_EQ(init.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(init.status.message()), HasSubstr("an empty initializer list has no type"));
}

TEST(InitializerErrorTest, UninitializedTensorElement) {
  Input::Initializer init({Input::Initializer(Tensor()), Input::Initializer(Tensor())});
  EXPECT_THAT(std::string(init.status.message()),
              HasSubstr("element 0 of an initializer list is an uninitialized tensor"));
}

TEST(InitializerErrorTest, ValueCountDoesNotMatchShape) {
  Input::Initializer init({1.f, 2.f, 3.f}, TensorShape{2, 2});
  EXPECT_EQ(init.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(init.status.message()),
              HasSubstr("initializer has 3 values but shape [2,2] needs 4"));
}

}  // namespace
}  // namespace tessera
