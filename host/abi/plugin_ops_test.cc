// Tests of plugin-defined ops: OpSpec conversion, registration and the ABI shape context.
#include "host/abi/plugin_ops.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host/ops/testing/infer_shapes.h"

// A minimal status for the test's host table (the real one lives in the registry).
struct TSR_Status {
  TSR_Code code;
  std::string message;
};

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InferShapes;

TSR_Status* StatusCreate(TSR_Code code, const char* message) {
  return code == TSR_CODE_OK ? nullptr : new TSR_Status{code, message};
}
void StatusDestroy(TSR_Status* status) { delete status; }
TSR_Code StatusGetCode(const TSR_Status* status) { return status->code; }
const char* StatusGetMessage(const TSR_Status* status) { return status->message.c_str(); }

TSR_HostApi MakeHost() {
  TSR_HostApi host{};
  host.struct_size = sizeof(TSR_HostApi);
  host.Status_Create = StatusCreate;
  host.Status_Destroy = StatusDestroy;
  host.Status_GetCode = StatusGetCode;
  host.Status_GetMessage = StatusGetMessage;
  FillShapeContextSlots(&host);
  return host;
}

const TSR_HostApi& Host() {
  static const TSR_HostApi host = MakeHost();
  return host;
}

// What the test's plugin shape function saw and does; reset by each test.
struct Probe {
  int num_inputs = -1;
  int num_outputs = -1;
  int64_t scale = 0;
  bool had_constant = false;
  int64_t constant_value = 0;
  std::string error_from;  // which call's error to return, if any
  TSR_Code error_code = TSR_CODE_OK;
  std::string error_message;
} probe;

// out = [in0 dims..., scale]: reads the shape, the int attr and a constant input.
TSR_Status* ScaleShapeFn(void* user_data, TSR_ShapeContext* ctx) {
  const TSR_HostApi& host = Host();
  probe.num_inputs = host.ShapeContext_NumInputs(ctx);
  probe.num_outputs = host.ShapeContext_NumOutputs(ctx);
  int32_t rank;
  const int64_t* dims;
  TSR_Status* status = host.ShapeContext_GetInputShape(ctx, 0, &rank, &dims);
  if (status != nullptr) return status;
  TSR_AttrValue attr{};
  attr.struct_size = sizeof(attr);
  status = host.ShapeContext_GetAttr(ctx, "scale", &attr);
  if (status != nullptr) return status;
  probe.scale = attr.i;
  TSR_TensorView view{};
  view.struct_size = sizeof(view);
  probe.had_constant = host.ShapeContext_GetInputConstant(ctx, 1, &view);
  if (probe.had_constant) probe.constant_value = *static_cast<const int32_t*>(view.data);
  if (probe.error_from == "bad_input") {
    return host.ShapeContext_GetInputShape(ctx, 7, &rank, &dims);
  }
  if (probe.error_from == "missing_attr") {
    return host.ShapeContext_GetAttr(ctx, "nope", &attr);
  }
  if (probe.error_from == "bad_output_index") {
    return host.ShapeContext_SetOutputShape(ctx, 3, 0, nullptr);
  }
  if (probe.error_from == "bad_rank") {
    return host.ShapeContext_SetOutputShape(ctx, 0, 9, dims);
  }
  if (probe.error_from == "bad_dim") {
    const int64_t bad[] = {-5};
    return host.ShapeContext_SetOutputShape(ctx, 0, 1, bad);
  }
  if (probe.error_from == "null_dims") {
    return host.ShapeContext_SetOutputShape(ctx, 0, 2, nullptr);
  }
  if (probe.error_from == "small_attr_value") {
    TSR_AttrValue small{};
    small.struct_size = 8;
    return host.ShapeContext_GetAttr(ctx, "scale", &small);
  }
  if (probe.error_from == "plugin") {
    return host.Status_Create(probe.error_code, probe.error_message.c_str());
  }
  if (rank < 0) return host.ShapeContext_SetOutputShape(ctx, 0, -1, nullptr);
  int64_t out[TSR_MAX_RANK + 1];
  for (int i = 0; i < rank; ++i) out[i] = dims[i];
  out[rank] = probe.scale;
  return host.ShapeContext_SetOutputShape(ctx, 0, rank + 1, out);
}

OpSpec ScaleSpec() {
  OpSpec spec;
  spec.name = "AcmeScale";
  spec.inputs.push_back(OpArgSpec{"x", TSR_DTYPE_INVALID, "T", "", "", false});
  spec.inputs.push_back(OpArgSpec{"factor", TSR_DTYPE_INT32, "", "", "", false});
  spec.outputs.push_back(OpArgSpec{"y", TSR_DTYPE_INVALID, "T", "", "", false});
  OpAttrSpec t;
  t.name = "T";
  t.type = TSR_ATTR_TYPE_TYPE;
  t.allowed_types = {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE};
  spec.attrs.push_back(t);
  OpAttrSpec scale;
  scale.name = "scale";
  scale.type = TSR_ATTR_TYPE_INT;
  AttrData two;
  two.type = TSR_ATTR_TYPE_INT;
  two.i = 2;
  scale.default_value = two;
  scale.has_minimum = true;
  scale.minimum = 1;
  spec.attrs.push_back(scale);
  spec.flags = TSR_OP_FLAG_STATEFUL;
  spec.shape_fn = ScaleShapeFn;
  spec.origin.plugin_name = "acme";
  return spec;
}

class PluginOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    probe = Probe();
    ASSERT_TRUE(RegisterPluginOps({ScaleSpec()}, Host(), &ops_).ok());
  }

  absl::StatusOr<std::vector<PartialShape>> Run(const Tensor* factor = nullptr) {
    return InferShapes(ops_, "AcmeScale", R"pb(attr {
                                                 key: "T"
                                                 value { type: DT_FLOAT }
                                               })pb",
                       {PartialShape({4, -1}), PartialShape::Scalar()}, {nullptr, factor});
  }

  void ExpectError(const std::string& from, absl::StatusCode code, const std::string& message) {
    probe.error_from = from;
    auto out = Run();
    ASSERT_FALSE(out.ok()) << from;
    EXPECT_EQ(out.status().code(), code) << out.status();
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("shape function of op 'AcmeScale' from plugin 'acme': " + message));
  }

  OpRegistry ops_;
};

TEST_F(PluginOpsTest, ConvertsTheSpecToAnOpDef) {
  const OpRegistration* op = ops_.Find("AcmeScale");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->origin, "plugin 'acme'");
  const tensorflow::OpDef& def = op->op_def;
  EXPECT_TRUE(def.is_stateful());
  EXPECT_FALSE(def.is_commutative());
  ASSERT_EQ(def.input_arg_size(), 2);
  EXPECT_EQ(def.input_arg(0).type_attr(), "T");
  EXPECT_EQ(def.input_arg(1).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def.attr(0).type(), "type");
  EXPECT_EQ(def.attr(0).allowed_values().list().type_size(), 2);
  EXPECT_EQ(def.attr(1).type(), "int");
  EXPECT_EQ(def.attr(1).default_value().i(), 2);
  EXPECT_EQ(def.attr(1).minimum(), 1);
}

TEST_F(PluginOpsTest, ShapeFunctionSeesShapesAttrsAndConstants) {
  Tensor factor = Tensor::Scalar<int32_t>(5);
  auto out = Run(&factor);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, ElementsAre(PartialShape({4, -1, 2})));
  EXPECT_EQ(probe.num_inputs, 2);
  EXPECT_EQ(probe.num_outputs, 1);
  EXPECT_EQ(probe.scale, 2);
  EXPECT_TRUE(probe.had_constant);
  EXPECT_EQ(probe.constant_value, 5);
  probe = Probe();
  ASSERT_TRUE(Run().ok());
  EXPECT_FALSE(probe.had_constant);
}

TEST_F(PluginOpsTest, ContextErrorsReachTheCaller) {
  ExpectError("bad_input", absl::StatusCode::kInvalidArgument,
              "input index 7 is out of range: node 'n' has 2 inputs");
  ExpectError("missing_attr", absl::StatusCode::kNotFound,
              "node 'n' (AcmeScale) has no attr 'nope'");
  ExpectError("bad_output_index", absl::StatusCode::kInvalidArgument,
              "output index 3 is out of range: node 'n' has 1 outputs");
  ExpectError("bad_rank", absl::StatusCode::kInvalidArgument,
              "output rank 9 is invalid: expected -1 (unknown) to 8");
  ExpectError("bad_dim", absl::StatusCode::kInvalidArgument,
              "output dimension 0 is -5, expected >= 0 or -1 for unknown");
  ExpectError("null_dims", absl::StatusCode::kInvalidArgument,
              "output shape of rank 2 has NULL dims");
  ExpectError("small_attr_value", absl::StatusCode::kInvalidArgument,
              "TSR_AttrValue is NULL or has a struct_size smaller than its first version's");
}

TEST_F(PluginOpsTest, PluginErrorsKeepTheirCode) {
  probe.error_code = TSR_CODE_FAILED_PRECONDITION;
  probe.error_message = "needs a square input";
  ExpectError("plugin", absl::StatusCode::kFailedPrecondition, "needs a square input");
}

TEST_F(PluginOpsTest, RedefiningAStandardOpIsAlreadyExists) {
  std::unique_ptr<OpRegistry> standard = OpRegistry::CreateStandard();
  OpSpec spec = ScaleSpec();
  spec.name = "MatMul";
  absl::Status status = RegisterPluginOps({spec, ScaleSpec()}, Host(), standard.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("op 'MatMul' (from plugin 'acme') is already registered by standard"));
  // The other spec still registered.
  EXPECT_NE(standard->Find("AcmeScale"), nullptr);
}

TEST_F(PluginOpsTest, RejectsSpecsTheOpDefCannotHold) {
  OpSpec spec = ScaleSpec();
  spec.name = "AcmeOther";
  spec.attrs[0].type = TSR_ATTR_TYPE_UNSPECIFIED;
  absl::Status status = RegisterPluginOps({spec}, Host(), &ops_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("plugin 'acme': op 'AcmeOther': attr 'T' has no type"));

  spec = ScaleSpec();
  spec.name = "AcmeOther";
  AttrData tensor;
  tensor.type = TSR_ATTR_TYPE_TENSOR;
  spec.attrs[1].type = TSR_ATTR_TYPE_TENSOR;
  spec.attrs[1].has_minimum = false;
  spec.attrs[1].default_value = tensor;
  status = RegisterPluginOps({spec}, Host(), &ops_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("attr 'scale': a default value of type tensor cannot be given"));

  spec = ScaleSpec();
  spec.name = "AcmeOther";
  spec.inputs[0].type_attr = "Missing";
  status = RegisterPluginOps({spec}, Host(), &ops_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("input 'x' refers to type attr 'Missing', which is not defined (from "
                        "plugin 'acme')"));
}

// Reads every attr kind through the ABI.
TSR_Status* AttrKindsShapeFn(void*, TSR_ShapeContext* ctx) {
  const TSR_HostApi& host = Host();
  TSR_AttrValue value{};
  value.struct_size = sizeof(value);
  TSR_Status* status = host.ShapeContext_GetAttr(ctx, "dims", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_LIST_INT || value.list_size != 2 || value.list_i[1] != 7) {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad list(int)");
  }
  status = host.ShapeContext_GetAttr(ctx, "shape", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_SHAPE || value.shape_rank != 2 || value.shape_dims[1] != -1) {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad shape");
  }
  status = host.ShapeContext_GetAttr(ctx, "label", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_STRING || std::string(value.s, value.s_size) != "hi") {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad string");
  }
  status = host.ShapeContext_GetAttr(ctx, "types", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_LIST_TYPE || value.list_type[0] != TSR_DTYPE_INT64) {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad list(type)");
  }
  status = host.ShapeContext_GetAttr(ctx, "names", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_LIST_STRING || value.list_size != 1 ||
      std::string(value.list_s[0], value.list_s_size[0]) != "a") {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad list(string)");
  }
  return host.ShapeContext_GetAttr(ctx, "_bad", &value);
}

TEST(PluginOpsAttrTest, PassesAttrKindsIncludingListOfString) {
  OpSpec spec;
  spec.name = "AcmeAttrs";
  spec.origin.plugin_name = "acme";
  spec.shape_fn = AttrKindsShapeFn;
  OpAttrSpec dims;
  dims.name = "dims";
  dims.type = TSR_ATTR_TYPE_LIST_INT;
  OpAttrSpec shape;
  shape.name = "shape";
  shape.type = TSR_ATTR_TYPE_SHAPE;
  OpAttrSpec label;
  label.name = "label";
  label.type = TSR_ATTR_TYPE_STRING;
  OpAttrSpec types;
  types.name = "types";
  types.type = TSR_ATTR_TYPE_LIST_TYPE;
  OpAttrSpec names;
  names.name = "names";
  names.type = TSR_ATTR_TYPE_LIST_STRING;
  spec.attrs = {dims, shape, label, types, names};
  OpRegistry ops;
  ASSERT_TRUE(RegisterPluginOps({spec}, Host(), &ops).ok());
  auto out = InferShapes(ops, "AcmeAttrs", R"pb(
                           attr {
                             key: "dims"
                             value { list { i: 1 i: 7 } }
                           }
                           attr {
                             key: "shape"
                             value {
                               shape {
                                 dim { size: 3 }
                                 dim { size: -1 }
                               }
                             }
                           }
                           attr {
                             key: "label"
                             value { s: "hi" }
                           }
                           attr {
                             key: "types"
                             value { list { type: DT_INT64 } }
                           }
                           attr {
                             key: "names"
                             value { list { s: "a" } }
                           }
                           attr {
                             key: "_bad"
                             value { placeholder: "T" }
                           })pb",
                         {});
  // Every kind reads; the shape function fails only at the placeholder, which no node may hold.
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("attr '_bad' of node 'n': attribute is the unresolved placeholder '$T'"));
}

// Reads a tensor attr (float, or a packed string tensor) and a func attr.
TSR_Status* TensorAttrShapeFn(void*, TSR_ShapeContext* ctx) {
  const TSR_HostApi& host = Host();
  TSR_AttrValue value{};
  value.struct_size = sizeof(value);
  TSR_Status* status = host.ShapeContext_GetAttr(ctx, "value", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_TENSOR || value.tensor.rank != 1) {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad tensor");
  }
  if (value.tensor.dtype == TSR_DTYPE_STRING) {
    if (value.tensor.byte_size != TSR_STRING_OFFSETS_SIZE(1) + 1 ||
        static_cast<const char*>(value.tensor.data)[16] != 'a') {
      return host.Status_Create(TSR_CODE_INTERNAL, "bad string tensor");
    }
    return nullptr;
  }
  if (static_cast<const float*>(value.tensor.data)[1] != 2.5f) {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad float tensor");
  }
  status = host.ShapeContext_GetAttr(ctx, "_fn", &value);
  if (status != nullptr) return status;
  if (value.type != TSR_ATTR_TYPE_FUNC || std::string(value.func->name) != "f") {
    return host.Status_Create(TSR_CODE_INTERNAL, "bad func");
  }
  return host.Status_Create(TSR_CODE_ABORTED, "read them all");
}

TEST(PluginOpsAttrTest, PassesTensorsStringTensorsAndFuncs) {
  OpSpec spec;
  spec.name = "AcmeTensor";
  spec.origin.plugin_name = "acme";
  spec.shape_fn = TensorAttrShapeFn;
  OpAttrSpec value;
  value.name = "value";
  value.type = TSR_ATTR_TYPE_TENSOR;
  spec.attrs = {value};
  OpRegistry ops;
  ASSERT_TRUE(RegisterPluginOps({spec}, Host(), &ops).ok());
  // Internal ("_") attrs are not checked against the definition.
  auto out = InferShapes(ops, "AcmeTensor", R"pb(
                           attr {
                             key: "value"
                             value {
                               tensor {
                                 dtype: DT_FLOAT
                                 tensor_shape { dim { size: 2 } }
                                 float_val: 1
                                 float_val: 2.5
                               }
                             }
                           }
                           attr {
                             key: "_fn"
                             value { func { name: "f" } }
                           })pb",
                         {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted) << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("read them all"));

  // A string tensor arrives packed.
  auto strings = InferShapes(ops, "AcmeTensor", R"pb(
                               attr {
                                 key: "value"
                                 value {
                                   tensor {
                                     dtype: DT_STRING
                                     tensor_shape { dim { size: 1 } }
                                     string_val: "a"
                                   }
                                 }
                               })pb",
                             {});
  EXPECT_TRUE(strings.ok()) << strings.status();
}

}  // namespace
}  // namespace tessera
