// Operation, Output and Input: the values the graph-building API passes between op wrappers.
#ifndef TESSERA_HOST_CLIENT_OUTPUT_H_
#define TESSERA_HOST_CLIENT_OUTPUT_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "host/framework/proto/tensor_shape.pb.h"
#include "host/runtime/tensor.h"

namespace tessera {

// TensorFlow's spelling of the common types, so client code reads like TensorFlow's.
inline constexpr DataType DT_FLOAT = TSR_DTYPE_FLOAT;
inline constexpr DataType DT_DOUBLE = TSR_DTYPE_DOUBLE;
inline constexpr DataType DT_HALF = TSR_DTYPE_HALF;
inline constexpr DataType DT_INT8 = TSR_DTYPE_INT8;
inline constexpr DataType DT_INT16 = TSR_DTYPE_INT16;
inline constexpr DataType DT_INT32 = TSR_DTYPE_INT32;
inline constexpr DataType DT_INT64 = TSR_DTYPE_INT64;
inline constexpr DataType DT_UINT8 = TSR_DTYPE_UINT8;
inline constexpr DataType DT_BOOL = TSR_DTYPE_BOOL;

// Identifies the graph (the state shared by a root scope and all scopes derived from it) an
// Output belongs to, so values from two graphs are never mixed.
using GraphId = const void*;

class Output;

// A node added to the graph: its name and the types of its outputs.
class Operation {
 public:
  Operation() = default;
  Operation(GraphId graph, std::string node_name, std::vector<DataType> output_types)
      : graph_(graph), node_name_(std::move(node_name)), output_types_(std::move(output_types)) {}

  // False for the Operation of an op whose construction failed.
  bool valid() const { return graph_ != nullptr; }
  GraphId graph() const { return graph_; }
  const std::string& node_name() const { return node_name_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_[i]; }
  // Output `i`; requires 0 <= i < num_outputs().
  Output output(int i) const;

 private:
  GraphId graph_ = nullptr;
  std::string node_name_;
  std::vector<DataType> output_types_;
};

// One output of a node: the node's name, the output index and its type.
class Output {
 public:
  Output() = default;
  Output(GraphId graph, std::string node_name, int index, DataType type)
      : graph_(graph), node_name_(std::move(node_name)), index_(index), type_(type) {}

  // False for the Output of an op whose construction failed.
  bool valid() const { return graph_ != nullptr; }
  GraphId graph() const { return graph_; }
  const std::string& node_name() const { return node_name_; }
  int index() const { return index_; }
  // The value's type: a ref variable's output (float_ref) reads as its base type (float), as every
  // op that takes it by value sees it.
  DataType type() const { return BaseType(type_); }
  // The edge's type, float_ref for a ref variable's output.
  DataType edge_type() const { return type_; }
  bool is_ref() const { return IsRefType(type_); }
  // "node:k", the name a fetch or feed uses.
  std::string name() const { return node_name_ + ":" + std::to_string(index_); }
  // The NodeDef input spelling: "node" for output 0, "node:k" otherwise.
  std::string InputString() const { return index_ == 0 ? node_name_ : name(); }

 private:
  GraphId graph_ = nullptr;
  std::string node_name_;
  int index_ = 0;
  DataType type_ = TSR_DTYPE_INVALID;
};

inline Output Operation::output(int i) const {
  return Output(graph_, node_name_, i, output_types_[i]);
}

// A shape whose rank or some dimensions may be unknown (-1), for Placeholder shapes. The
// default is an unknown rank.
class PartialTensorShape {
 public:
  PartialTensorShape() = default;
  PartialTensorShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialTensorShape(std::vector<int64_t> dims)
      : known_rank_(true), dims_(std::move(dims)) {}
  PartialTensorShape(const TensorShape& shape)  // NOLINT: a full shape is a partial one
      : known_rank_(true), dims_(shape.dims().begin(), shape.dims().end()) {}

  bool known_rank() const { return known_rank_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // TensorFlow's encoding: unknown_rank, or one dim per dimension with size -1 when unknown.
  void ToProto(tensorflow::TensorShapeProto* proto) const;

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

// The element type a C++ initializer value becomes (TensorFlow's rules: int -> int32, a double
// literal -> double, long -> int64).
template <typename T>
constexpr DataType InitializerDataType() {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return TSR_DTYPE_BOOL;
  else if constexpr (std::is_same_v<U, float>)
    return TSR_DTYPE_FLOAT;
  else if constexpr (std::is_same_v<U, double>)
    return TSR_DTYPE_DOUBLE;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    return sizeof(U) == 1   ? TSR_DTYPE_INT8
           : sizeof(U) == 2 ? TSR_DTYPE_INT16
           : sizeof(U) == 4 ? TSR_DTYPE_INT32
                            : TSR_DTYPE_INT64;
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) {
    return sizeof(U) == 1   ? TSR_DTYPE_UINT8
           : sizeof(U) == 2 ? TSR_DTYPE_UINT16
           : sizeof(U) == 4 ? TSR_DTYPE_UINT32
                            : TSR_DTYPE_UINT64;
  } else {
    return TSR_DTYPE_INVALID;
  }
}

// An op argument: an Output of another op, or a constant (a Tensor or C++ numbers in nested
// initializer lists) for which the op wrapper adds a Const node.
class Input {
 public:
  // A constant value; a failed conversion (ragged lists, mixed types) is kept in `status` and
  // reported to the scope when the Input is used.
  struct Initializer {
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Initializer(const T& value) {  // NOLINT: implicit like TensorFlow's
      tensor = Tensor(InitializerDataType<T>(), TensorShape{});
      *static_cast<std::decay_t<T>*>(tensor.data()) = value;
    }
    Initializer(const Tensor& t);  // NOLINT
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Initializer(const std::initializer_list<T>& values) {  // NOLINT
      FromValues(values, TensorShape{static_cast<int64_t>(values.size())});
    }
    // The values laid out in `shape` (row-major); their count must match.
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Initializer(const std::initializer_list<T>& values, const TensorShape& shape) {
      FromValues(values, shape);
    }
    // Nested lists: every element must have the same type and shape; the result has one more
    // dimension ({{1, 2}, {3, 4}} is int32 [2,2]).
    Initializer(const std::initializer_list<Initializer>& values);  // NOLINT

    Tensor tensor;
    absl::Status status;

   private:
    template <typename T>
    void FromValues(const std::initializer_list<T>& values, const TensorShape& shape) {
      if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
        status = CountMismatch(values.size(), shape);
        return;
      }
      tensor = Tensor(InitializerDataType<T>(), shape);
      std::copy(values.begin(), values.end(), static_cast<std::decay_t<T>*>(tensor.data()));
    }
    static absl::Status CountMismatch(size_t count, const TensorShape& shape);
  };

  Input(const Output& output) : output_(output) {}  // NOLINT
  // Any op wrapper object that converts to its Output (ops::MatMul, ops::Placeholder, ...).
  template <typename T, typename = std::enable_if_t<std::is_convertible_v<T, Output> &&
                                                    !std::is_same_v<std::decay_t<T>, Output>>>
  Input(const T& op) : output_(static_cast<Output>(op)) {}  // NOLINT
  // A number becomes a scalar Const (TensorFlow's C++ API needs {1.f} here; this is shorter).
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Input(const T& value) : initializer_(value), is_constant_(true) {}          // NOLINT
  Input(const Tensor& tensor) : initializer_(tensor), is_constant_(true) {}   // NOLINT
  Input(const Initializer& init) : initializer_(init), is_constant_(true) {}  // NOLINT
  Input(const std::initializer_list<Initializer>& values)                     // NOLINT
      : initializer_(values), is_constant_(true) {}

  // True when the op wrapper must add a Const node for this input.
  bool is_constant() const { return is_constant_; }
  const Output& output() const { return output_; }
  const Tensor& tensor() const { return initializer_.tensor; }
  const absl::Status& status() const { return initializer_.status; }

 private:
  Output output_;
  Initializer initializer_ = Initializer(Tensor());
  bool is_constant_ = false;
};

// The list argument of ops such as Concat and Pack.
class InputList {
 public:
  InputList(std::initializer_list<Input> inputs) : inputs_(inputs) {}   // NOLINT
  InputList(std::vector<Input> inputs) : inputs_(std::move(inputs)) {}  // NOLINT
  InputList(const std::vector<Output>& outputs)                         // NOLINT
      : inputs_(outputs.begin(), outputs.end()) {}

  const std::vector<Input>& inputs() const { return inputs_; }
  size_t size() const { return inputs_.size(); }

 private:
  std::vector<Input> inputs_;
};

}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_OUTPUT_H_
