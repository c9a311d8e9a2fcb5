// The TensorArray and Stack kernels.
#include "host/kernels/data_flow_kernels.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/graph/graph.h"
#include "host/kernels/tensor_array.h"
#include "host/runtime/device.h"

namespace tessera {
namespace {

struct NodeAttrs {
  const Node& node;

  absl::StatusOr<DataType> Type(absl::string_view name) const {
    const tensorflow::AttrValue* value = node.attr(name);
    if (value == nullptr || value->value_case() != tensorflow::AttrValue::kType) {
      return absl::InvalidArgumentError(
          absl::StrCat(node.DebugString(), " needs a type attr '", name, "'"));
    }
    return static_cast<DataType>(value->type());
  }
  bool Bool(absl::string_view name, bool fallback) const {
    const tensorflow::AttrValue* value = node.attr(name);
    return value == nullptr ? fallback : value->b();
  }
  std::string String(absl::string_view name) const {
    const tensorflow::AttrValue* value = node.attr(name);
    return value == nullptr ? std::string() : value->s();
  }
  // Unknown rank when the attr is absent.
  absl::StatusOr<PartialShape> Shape(absl::string_view name) const {
    const tensorflow::AttrValue* value = node.attr(name);
    if (value == nullptr || value->value_case() != tensorflow::AttrValue::kShape) {
      return PartialShape::Unknown();
    }
    return PartialShape::FromProto(value->shape());
  }
};

absl::StatusOr<std::shared_ptr<TensorArray>> GetTensorArray(const Tensor& handle) {
  ASSIGN_OR_RETURN(std::shared_ptr<StepResource> resource,
                   StepResourceFromHandle(handle, "TensorArray"));
  std::shared_ptr<TensorArray> array = std::dynamic_pointer_cast<TensorArray>(resource);
  if (array == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a TensorArray handle, got the handle of ", resource->name()));
  }
  return array;
}

absl::StatusOr<std::shared_ptr<Stack>> GetStack(const Tensor& handle) {
  ASSIGN_OR_RETURN(std::shared_ptr<StepResource> resource, StepResourceFromHandle(handle, "Stack"));
  std::shared_ptr<Stack> stack = std::dynamic_pointer_cast<Stack>(resource);
  if (stack == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a Stack handle, got the handle of ", resource->name()));
  }
  return stack;
}

absl::StatusOr<int32_t> ScalarInt32(const Tensor& t, const char* what) {
  if (t.dtype() != TSR_DTYPE_INT32 || t.shape().rank() != 0 || !t.host_accessible()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be an int32 scalar, got ",
                                                   DataTypeString(t.dtype()), " ",
                                                   t.shape().DebugString()));
  }
  return *t.data<int32_t>();
}

absl::StatusOr<std::vector<int32_t>> Int32Vector(const Tensor& t, const char* what) {
  if (t.dtype() != TSR_DTYPE_INT32 || t.shape().rank() != 1 || !t.host_accessible()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected ", what, " to be a vector, but received shape: ", t.shape().DebugString()));
  }
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

absl::Status CheckElementType(const TensorArray& array, DataType requested) {
  if (array.dtype() != requested) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray dtype is ", DataTypeString(array.dtype()),
                     " but Op requested dtype ", DataTypeString(requested), "."));
  }
  return absl::OkStatus();
}

// Scatter and split check the value's dtype before writing any element.
absl::Status CheckWrittenType(const TensorArray& array, DataType written) {
  if (array.dtype() != written) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray dtype is ", DataTypeString(array.dtype()),
                     " but Op is trying to write dtype ", DataTypeString(written), "."));
  }
  return absl::OkStatus();
}

absl::Status CheckCopyable(DataType dtype) {
  if (!IsDenseDataType(dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "TensorArray gather, scatter, concat and split copy element bytes, which ",
        DataTypeString(dtype), " tensors do not have; read and write elements one by one"));
  }
  return absl::OkStatus();
}

// Element `i` of `value`'s first dimension spans `[offset, offset + rows)` rows.
absl::StatusOr<Tensor> SliceRows(Device* device, const Tensor& value, int64_t offset,
                                 int64_t rows) {
  TensorShape shape = value.shape();
  shape.set_dim(0, rows);
  ASSIGN_OR_RETURN(Tensor piece, Tensor::Allocate(device->allocator(), value.dtype(), shape));
  const size_t row_bytes = value.shape().dim(0) == 0
                               ? 0
                               : value.TotalBytes() / static_cast<size_t>(value.shape().dim(0));
  RETURN_IF_ERROR(CopyTensorBytes(device, value, static_cast<size_t>(offset) * row_bytes, &piece, 0,
                                  static_cast<size_t>(rows) * row_bytes));
  return piece;
}

Tensor FlowScalar() { return Tensor::Scalar<float>(0.0f); }

// The kernel classes: each reads its node's attrs once.

class TensorArrayKernel final : public OpKernel {
 public:
  explicit TensorArrayKernel(TensorArrayOptions options)
      : OpKernel({false, true, false}), options_(std::move(options)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(int32_t size, ScalarInt32(ctx->inputs[0], "size"));
    if (size < 0) return absl::InvalidArgumentError("Size should be >= 0.");
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, TensorArray::Create(options_, size));
    ctx->outputs[0] = MakeStepResourceHandle(std::move(array));
    ctx->outputs[1] = FlowScalar();
    return absl::OkStatus();
  }

 private:
  TensorArrayOptions options_;
};

class TensorArrayGradKernel final : public OpKernel {
 public:
  TensorArrayGradKernel(std::string source, bool with_shape)
      : OpKernel({false, true, false}), source_(std::move(source)), with_shape_(with_shape) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    TensorShape prefix;
    if (with_shape_) {
      ASSIGN_OR_RETURN(std::vector<int32_t> dims, Int32Vector(ctx->inputs[2], "shape_to_prepend"));
      for (int32_t d : dims) {
        if (d < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("shape_to_prepend has a negative dimension ", d));
        }
        prefix.AddDim(d);
      }
    }
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> grad, array->Grad(source_, prefix));
    ctx->outputs[0] = MakeStepResourceHandle(std::move(grad));
    ctx->outputs[1] = ctx->inputs[1];
    return absl::OkStatus();
  }

 private:
  std::string source_;
  bool with_shape_;
};

class TensorArrayWriteKernel final : public OpKernel {
 public:
  explicit TensorArrayWriteKernel(Device* device)
      : OpKernel({false, true, false}), device_(device) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    ASSIGN_OR_RETURN(int32_t index, ScalarInt32(ctx->inputs[1], "index"));
    RETURN_IF_ERROR(array->Write(device_, index, ctx->inputs[2]));
    ctx->outputs[0] = ctx->inputs[3];
    return absl::OkStatus();
  }

 private:
  Device* device_;
};

class TensorArrayReadKernel final : public OpKernel {
 public:
  TensorArrayReadKernel(Device* device, DataType dtype)
      : OpKernel({false, true, false}), device_(device), dtype_(dtype) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    ASSIGN_OR_RETURN(int32_t index, ScalarInt32(ctx->inputs[1], "index"));
    RETURN_IF_ERROR(CheckElementType(*array, dtype_));
    return array->Read(device_, index, &ctx->outputs[0]);
  }

 private:
  Device* device_;
  DataType dtype_;
};

// Reads `indices` and stacks them along a new first dimension.
class TensorArrayGatherKernel final : public OpKernel {
 public:
  TensorArrayGatherKernel(Device* device, DataType dtype, PartialShape element_shape)
      : OpKernel({false, false, false}),
        device_(device),
        dtype_(dtype),
        element_shape_(std::move(element_shape)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    ASSIGN_OR_RETURN(std::vector<int32_t> indices, Int32Vector(ctx->inputs[1], "indices"));
    RETURN_IF_ERROR(CheckElementType(*array, dtype_));
    RETURN_IF_ERROR(CheckCopyable(dtype_));
    TensorShape element;
    if (indices.empty()) {
      ASSIGN_OR_RETURN(PartialShape known,
                       PartialShape::Merge(array->element_shape(), element_shape_));
      if (!known.IsFullyDefined()) {
        return absl::UnimplementedError(absl::StrCat(
            "TensorArray has size zero, but element shape ", known.ToString(),
            " is not fully defined. Currently only static shapes are supported when packing "
            "zero-size TensorArrays."));
      }
      ASSIGN_OR_RETURN(element, known.ToTensorShape());
    }
    std::vector<Tensor> values;
    RETURN_IF_ERROR(array->ReadMany(device_, indices, &values));
    if (!values.empty()) {
      element = values[0].shape();
      if (!element_shape_.IsCompatibleWith(PartialShape::FromTensorShape(element))) {
        return absl::InvalidArgumentError(
            absl::StrCat("TensorArray was passed element_shape ", element_shape_.ToString(),
                         " which does not match the Tensor at index 0: ", element.DebugString()));
      }
    }
    for (size_t i = 1; i < values.size(); ++i) {
      if (values[i].shape() != element) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has inconsistent shapes.  Index 0 has shape: ", element.DebugString(),
            " but index ", i, " has shape: ", values[i].shape().DebugString()));
      }
    }
    TensorShape shape{static_cast<int64_t>(values.size())};
    for (int64_t d : element.dims()) shape.AddDim(d);
    ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(device_->allocator(), dtype_, shape));
    size_t offset = 0;
    for (const Tensor& v : values) {
      RETURN_IF_ERROR(CopyTensorBytes(device_, v, 0, &out, offset, v.TotalBytes()));
      offset += v.TotalBytes();
    }
    ctx->outputs[0] = std::move(out);
    return absl::OkStatus();
  }

 private:
  Device* device_;
  DataType dtype_;
  PartialShape element_shape_;
};

// Writes row i of `value` to indices[i].
class TensorArrayScatterKernel final : public OpKernel {
 public:
  explicit TensorArrayScatterKernel(Device* device)
      : OpKernel({false, false, false}), device_(device) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    ASSIGN_OR_RETURN(std::vector<int32_t> indices, Int32Vector(ctx->inputs[1], "indices"));
    const Tensor& value = ctx->inputs[2];
    RETURN_IF_ERROR(CheckWrittenType(*array, value.dtype()));
    RETURN_IF_ERROR(CheckCopyable(value.dtype()));
    if (value.shape().rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected value to be at least a vector, but received shape: ",
                       value.shape().DebugString()));
    }
    if (static_cast<int64_t>(indices.size()) != value.shape().dim(0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected len(indices) == values.shape[0], but saw: ", indices.size(),
                       " vs. ", value.shape().dim(0)));
    }
    if (!indices.empty() && !array->dynamic_size()) {
      ASSIGN_OR_RETURN(int32_t size, array->Size());
      const int32_t max_index = *std::max_element(indices.begin(), indices.end());
      if (max_index >= size) {
        return absl::InvalidArgumentError(
            absl::StrCat("Max index must be < array size (", max_index, " vs. ", size, ")"));
      }
    }
    std::vector<Tensor> rows;
    rows.reserve(indices.size());
    TensorShape row_shape(value.shape().dims().subspan(1));
    for (size_t i = 0; i < indices.size(); ++i) {
      ASSIGN_OR_RETURN(Tensor row, SliceRows(device_, value, static_cast<int64_t>(i), 1));
      rows.push_back(row.Reshaped(row_shape));
    }
    RETURN_IF_ERROR(array->WriteMany(device_, indices, rows));
    ctx->outputs[0] = ctx->inputs[3];
    return absl::OkStatus();
  }

 private:
  Device* device_;
};

// Concatenates every element along its first dimension; also outputs each element's length.
class TensorArrayConcatKernel final : public OpKernel {
 public:
  TensorArrayConcatKernel(Device* device, DataType dtype, PartialShape element_shape_except0)
      : OpKernel({false, false, false}),
        device_(device),
        dtype_(dtype),
        element_shape_except0_(std::move(element_shape_except0)) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    RETURN_IF_ERROR(CheckElementType(*array, dtype_));
    RETURN_IF_ERROR(CheckCopyable(dtype_));
    ASSIGN_OR_RETURN(int32_t size, array->Size());
    std::vector<int32_t> indices(static_cast<size_t>(size));
    for (int32_t i = 0; i < size; ++i) indices[i] = i;
    std::vector<Tensor> values;
    RETURN_IF_ERROR(array->ReadMany(device_, indices, &values));
    TensorShape rest;
    if (values.empty()) {
      if (!element_shape_except0_.IsFullyDefined()) {
        return absl::UnimplementedError(
            absl::StrCat("TensorArray has size zero, but element_shape_except0 ",
                         element_shape_except0_.ToString(),
                         " is not fully defined. Currently only static shapes are supported when "
                         "concatenating zero-size TensorArrays."));
      }
      ASSIGN_OR_RETURN(rest, element_shape_except0_.ToTensorShape());
    }
    ASSIGN_OR_RETURN(Tensor lengths, Tensor::Allocate(HostAllocator(), TSR_DTYPE_INT64,
                                                      TensorShape{static_cast<int64_t>(size)}));
    int64_t total = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorShape& shape = values[i].shape();
      if (shape.rank() == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Concat saw a scalar shape at index ", i,
                         " but requires at least vectors.  Did you mean to call pack?"));
      }
      TensorShape except0(shape.dims().subspan(1));
      if (i == 0) {
        rest = except0;
        if (!element_shape_except0_.IsCompatibleWith(PartialShape::FromTensorShape(rest))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "TensorArray was passed element_shape_except0 ", element_shape_except0_.ToString(),
              " but index 0 has (excepting dimension 0) shape: ", rest.DebugString(),
              " which does not match."));
        }
      } else if (except0 != rest) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: ",
            rest.DebugString(), " but index ", i,
            " has (excepting dimension 0) shape: ", except0.DebugString()));
      }
      lengths.data<int64_t>()[i] = shape.dim(0);
      total += shape.dim(0);
    }
    TensorShape shape{total};
    for (int64_t d : rest.dims()) shape.AddDim(d);
    ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(device_->allocator(), dtype_, shape));
    size_t offset = 0;
    for (const Tensor& v : values) {
      RETURN_IF_ERROR(CopyTensorBytes(device_, v, 0, &out, offset, v.TotalBytes()));
      offset += v.TotalBytes();
    }
    ctx->outputs[0] = std::move(out);
    ctx->outputs[1] = std::move(lengths);
    return absl::OkStatus();
  }

 private:
  Device* device_;
  DataType dtype_;
  PartialShape element_shape_except0_;
};

// Splits `value` along its first dimension into pieces of `lengths` rows, written to 0..n-1.
class TensorArraySplitKernel final : public OpKernel {
 public:
  explicit TensorArraySplitKernel(Device* device)
      : OpKernel({false, false, false}), device_(device) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    const Tensor& value = ctx->inputs[1];
    const Tensor& lengths = ctx->inputs[2];
    RETURN_IF_ERROR(CheckCopyable(value.dtype()));
    if (value.shape().rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected value to be at least a vector, but received shape: ",
                       value.shape().DebugString()));
    }
    if (lengths.dtype() != TSR_DTYPE_INT64 || lengths.shape().rank() != 1 ||
        !lengths.host_accessible()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected lengths to be a vector, received shape: ", lengths.shape().DebugString()));
    }
    const int64_t n = lengths.NumElements();
    int64_t sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t length = lengths.data<int64_t>()[i];
      if (length < 0) {
        return absl::InvalidArgumentError(absl::StrCat("lengths[", i, "] is negative: ", length));
      }
      sum += length;
    }
    if (sum != value.shape().dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is ", sum,
          " and value's shape is: ", value.shape().DebugString()));
    }
    ASSIGN_OR_RETURN(int32_t size, array->Size());
    if (array->dynamic_size() && size < n) size = static_cast<int32_t>(n);  // grows to fit
    if (n != size) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray's size is not equal to the size of lengths (", size, " vs. ", n,
                       "), and the TensorArray is not marked as dynamically resizeable"));
    }
    RETURN_IF_ERROR(CheckWrittenType(*array, value.dtype()));
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat("too many lengths: ", n));
    }
    std::vector<int32_t> indices(static_cast<size_t>(n));
    std::vector<Tensor> pieces;
    pieces.reserve(indices.size());
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      indices[i] = static_cast<int32_t>(i);
      const int64_t length = lengths.data<int64_t>()[i];
      ASSIGN_OR_RETURN(Tensor piece, SliceRows(device_, value, offset, length));
      pieces.push_back(std::move(piece));
      offset += length;
    }
    RETURN_IF_ERROR(array->WriteMany(device_, indices, pieces));
    ctx->outputs[0] = ctx->inputs[3];
    return absl::OkStatus();
  }

 private:
  Device* device_;
};

class TensorArraySizeKernel final : public OpKernel {
 public:
  TensorArraySizeKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    ASSIGN_OR_RETURN(int32_t size, array->Size());
    ctx->outputs[0] = Tensor::Scalar<int32_t>(size);
    return absl::OkStatus();
  }
};

class TensorArrayCloseKernel final : public OpKernel {
 public:
  TensorArrayCloseKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> array, GetTensorArray(ctx->inputs[0]));
    array->Close();
    return absl::OkStatus();
  }
};

class StackKernel final : public OpKernel {
 public:
  StackKernel(std::string name, DataType elem_type)
      : OpKernel({false, true, false}), name_(std::move(name)), elem_type_(elem_type) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    const Tensor& size = ctx->inputs[0];
    if (size.dtype() != TSR_DTYPE_INT32 || size.shape().rank() != 0 || !size.host_accessible()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Stack size must be a scalar, but had shape: ", size.shape().DebugString()));
    }
    const int32_t max_size = *size.data<int32_t>();
    ctx->outputs[0] = MakeStepResourceHandle(std::make_shared<Stack>(name_, elem_type_, max_size));
    return absl::OkStatus();
  }

 private:
  std::string name_;
  DataType elem_type_;
};

class StackPushKernel final : public OpKernel {
 public:
  StackPushKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, GetStack(ctx->inputs[0]));
    RETURN_IF_ERROR(stack->Push(ctx->inputs[1]));
    ctx->outputs[0] = ctx->inputs[1];
    return absl::OkStatus();
  }
};

class StackPopKernel final : public OpKernel {
 public:
  explicit StackPopKernel(DataType elem_type)
      : OpKernel({false, true, false}), elem_type_(elem_type) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, GetStack(ctx->inputs[0]));
    ASSIGN_OR_RETURN(ctx->outputs[0], stack->Pop(elem_type_));
    return absl::OkStatus();
  }

 private:
  DataType elem_type_;
};

class StackCloseKernel final : public OpKernel {
 public:
  StackCloseKernel() : OpKernel({false, true, false}) {}
  absl::Status Compute(TSR_KernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, GetStack(ctx->inputs[0]));
    stack->Close();
    return absl::OkStatus();
  }
};

std::string NameOr(const std::string& name, const Node& node) {
  return name.empty() ? node.name() : name;
}

}  // namespace

bool IsDataFlowKernelOp(absl::string_view op) {
  return op == "TensorArrayV3" || op == "TensorArrayGradV3" || op == "TensorArrayGradWithShape" ||
         op == "TensorArrayWriteV3" || op == "TensorArrayReadV3" || op == "TensorArrayGatherV3" ||
         op == "TensorArrayScatterV3" || op == "TensorArrayConcatV3" ||
         op == "TensorArraySplitV3" || op == "TensorArraySizeV3" || op == "TensorArrayCloseV3" ||
         op == "StackV2" || op == "StackPushV2" || op == "StackPopV2" || op == "StackCloseV2";
}

void DataFlowKernelMemoryTypes(const Node& node, std::vector<bool>* inputs_on_host,
                               std::vector<bool>* outputs_on_host) {
  inputs_on_host->assign(node.num_inputs(), true);
  outputs_on_host->assign(node.num_outputs(), true);
  const std::string& op = node.op();
  auto device_input = [&](int i) {
    if (i < node.num_inputs()) (*inputs_on_host)[i] = false;
  };
  auto device_output = [&](int i) {
    if (i < node.num_outputs()) (*outputs_on_host)[i] = false;
  };
  if (op == "TensorArrayWriteV3" || op == "TensorArrayScatterV3") device_input(2);
  if (op == "TensorArraySplitV3" || op == "StackPushV2") device_input(1);
  if (op == "TensorArrayReadV3" || op == "TensorArrayGatherV3" || op == "TensorArrayConcatV3" ||
      op == "StackPushV2" || op == "StackPopV2") {
    device_output(0);
  }
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateDataFlowKernel(const Node& node, Device* device) {
  const NodeAttrs attrs{node};
  const std::string& op = node.op();
  if (op == "TensorArrayV3") {
    TensorArrayOptions options;
    options.name = NameOr(attrs.String("tensor_array_name"), node);
    ASSIGN_OR_RETURN(options.dtype, attrs.Type("dtype"));
    ASSIGN_OR_RETURN(options.element_shape, attrs.Shape("element_shape"));
    options.dynamic_size = attrs.Bool("dynamic_size", false);
    options.clear_after_read = attrs.Bool("clear_after_read", true);
    options.identical_element_shapes = attrs.Bool("identical_element_shapes", false);
    return std::unique_ptr<OpKernel>(new TensorArrayKernel(std::move(options)));
  }
  if (op == "TensorArrayGradV3" || op == "TensorArrayGradWithShape") {
    return std::unique_ptr<OpKernel>(
        new TensorArrayGradKernel(attrs.String("source"), op == "TensorArrayGradWithShape"));
  }
  if (op == "TensorArrayWriteV3")
    return std::unique_ptr<OpKernel>(new TensorArrayWriteKernel(device));
  if (op == "TensorArrayReadV3") {
    ASSIGN_OR_RETURN(DataType dtype, attrs.Type("dtype"));
    return std::unique_ptr<OpKernel>(new TensorArrayReadKernel(device, dtype));
  }
  if (op == "TensorArrayGatherV3") {
    ASSIGN_OR_RETURN(DataType dtype, attrs.Type("dtype"));
    ASSIGN_OR_RETURN(PartialShape shape, attrs.Shape("element_shape"));
    return std::unique_ptr<OpKernel>(new TensorArrayGatherKernel(device, dtype, std::move(shape)));
  }
  if (op == "TensorArrayScatterV3") {
    return std::unique_ptr<OpKernel>(new TensorArrayScatterKernel(device));
  }
  if (op == "TensorArrayConcatV3") {
    ASSIGN_OR_RETURN(DataType dtype, attrs.Type("dtype"));
    ASSIGN_OR_RETURN(PartialShape shape, attrs.Shape("element_shape_except0"));
    return std::unique_ptr<OpKernel>(new TensorArrayConcatKernel(device, dtype, std::move(shape)));
  }
  if (op == "TensorArraySplitV3")
    return std::unique_ptr<OpKernel>(new TensorArraySplitKernel(device));
  if (op == "TensorArraySizeV3") return std::unique_ptr<OpKernel>(new TensorArraySizeKernel());
  if (op == "TensorArrayCloseV3") return std::unique_ptr<OpKernel>(new TensorArrayCloseKernel());
  if (op == "StackV2") {
    ASSIGN_OR_RETURN(DataType elem_type, attrs.Type("elem_type"));
    return std::unique_ptr<OpKernel>(
        new StackKernel(NameOr(attrs.String("stack_name"), node), elem_type));
  }
  if (op == "StackPushV2") return std::unique_ptr<OpKernel>(new StackPushKernel());
  if (op == "StackPopV2") {
    ASSIGN_OR_RETURN(DataType elem_type, attrs.Type("elem_type"));
    return std::unique_ptr<OpKernel>(new StackPopKernel(elem_type));
  }
  if (op == "StackCloseV2") return std::unique_ptr<OpKernel>(new StackCloseKernel());
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no TensorArray or Stack kernel"));
}

}  // namespace tessera
