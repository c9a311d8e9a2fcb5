// OpDefBuilder: a fluent C++ builder for op definitions (no string mini-language).
//
//   OpDefBuilder("AddV2")
//       .Input("x", "T").Input("y", "T").Output("z", "T")
//       .TypeAttr("T", {TSR_DTYPE_FLOAT, TSR_DTYPE_INT32})
//       .SetIsCommutative().SetShapeFn(BroadcastBinaryOpShape)
//       .Build();
#ifndef TESSERA_HOST_OPS_OP_DEF_BUILDER_H_
#define TESSERA_HOST_OPS_OP_DEF_BUILDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "host/framework/proto/op_def.pb.h"
#include "host/ops/op_registry.h"
#include "host/ops/partial_shape.h"
#include "host/runtime/types.h"

namespace tessera {

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);

  // Arguments. `type_attr` names a "type" attr; a DataType gives a fixed type.
  OpDefBuilder& Input(std::string name, std::string type_attr);
  OpDefBuilder& Input(std::string name, DataType type);
  // `number_attr` copies of one type ("values: N * T").
  OpDefBuilder& InputList(std::string name, std::string number_attr, std::string type_attr);
  OpDefBuilder& InputList(std::string name, std::string number_attr, DataType type);
  // One tensor per entry of a "list(type)" attr.
  OpDefBuilder& InputTypeList(std::string name, std::string type_list_attr);
  OpDefBuilder& Output(std::string name, std::string type_attr);
  OpDefBuilder& Output(std::string name, DataType type);
  // TensorFlow's "Ref(T)" arguments: the edge carries a ref variable, not a value.
  OpDefBuilder& RefInput(std::string name, std::string type_attr);
  OpDefBuilder& RefOutput(std::string name, std::string type_attr);
  OpDefBuilder& OutputList(std::string name, std::string number_attr, std::string type_attr);
  OpDefBuilder& OutputList(std::string name, std::string number_attr, DataType type);
  OpDefBuilder& OutputTypeList(std::string name, std::string type_list_attr);

  // Attributes. An empty `allowed` list allows every type; no default makes the attr required.
  OpDefBuilder& TypeAttr(std::string name, std::vector<DataType> allowed = {},
                         std::optional<DataType> default_value = std::nullopt);
  OpDefBuilder& TypeListAttr(std::string name, std::vector<DataType> allowed = {},
                             std::optional<int64_t> min_length = std::nullopt);
  OpDefBuilder& IntAttr(std::string name, std::optional<int64_t> default_value = std::nullopt,
                        std::optional<int64_t> minimum = std::nullopt);
  OpDefBuilder& FloatAttr(std::string name, std::optional<float> default_value = std::nullopt);
  OpDefBuilder& BoolAttr(std::string name, std::optional<bool> default_value = std::nullopt);
  OpDefBuilder& StringAttr(std::string name,
                           std::optional<std::string> default_value = std::nullopt,
                           std::vector<std::string> allowed = {});
  OpDefBuilder& ShapeAttr(std::string name,
                          std::optional<PartialShape> default_value = std::nullopt);
  OpDefBuilder& TensorAttr(std::string name);
  OpDefBuilder& IntListAttr(std::string name,
                            std::optional<std::vector<int64_t>> default_value = std::nullopt,
                            std::optional<int64_t> min_length = std::nullopt);
  OpDefBuilder& StringListAttr(std::string name,
                               std::optional<std::vector<std::string>> default_value = std::nullopt);
  // Any attr definition, for what the typed helpers above do not cover.
  OpDefBuilder& Attr(tensorflow::OpDef::AttrDef attr);

  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsDistributedCommunication();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetShapeFn(ShapeFn shape_fn);
  OpDefBuilder& SetKernelFlagsHint(uint32_t flags);
  OpDefBuilder& SetOrigin(std::string origin);

  // The registration, after ValidateOpDef (INVALID_ARGUMENT naming the fault).
  absl::StatusOr<OpRegistration> Build() const;

 private:
  tensorflow::OpDef::ArgDef* AddArg(bool input, std::string name);
  tensorflow::OpDef::AttrDef* AddAttr(std::string name, const char* type);

  OpRegistration registration_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_OPS_OP_DEF_BUILDER_H_
