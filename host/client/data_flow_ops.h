// Typed wrappers of TensorFlow's TensorArray (V3) and Stack (V2) ops, named as TensorFlow's C++
// API names them (TensorArray for TensorArrayV3, Stack for StackV2, ...). A TensorArray's `flow`
// output orders its reads and writes: pass each op's flow_out to the next one.
#ifndef TESSERA_HOST_CLIENT_DATA_FLOW_OPS_H_
#define TESSERA_HOST_CLIENT_DATA_FLOW_OPS_H_

#include <string>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// TensorArrayV3: an array of `size` tensors of `dtype` (outputs `handle`, a resource, and `flow`).
class TensorArray {
 public:
  struct Attrs {
    Attrs ElementShape(const PartialTensorShape& x) const {
      Attrs ret = *this;
      ret.element_shape_ = x;
      return ret;
    }
    Attrs DynamicSize(bool x) const {
      Attrs ret = *this;
      ret.dynamic_size_ = x;
      return ret;
    }
    Attrs ClearAfterRead(bool x) const {
      Attrs ret = *this;
      ret.clear_after_read_ = x;
      return ret;
    }
    Attrs IdenticalElementShapes(bool x) const {
      Attrs ret = *this;
      ret.identical_element_shapes_ = x;
      return ret;
    }
    Attrs TensorArrayName(std::string x) const {
      Attrs ret = *this;
      ret.tensor_array_name_ = std::move(x);
      return ret;
    }
    PartialTensorShape element_shape_;  // unknown rank
    bool dynamic_size_ = false;
    bool clear_after_read_ = true;
    bool identical_element_shapes_ = false;
    std::string tensor_array_name_;
  };
  TensorArray(const Scope& scope, Input size, DataType dtype);
  TensorArray(const Scope& scope, Input size, DataType dtype, const Attrs& attrs);
  static Attrs ElementShape(const PartialTensorShape& x) { return Attrs().ElementShape(x); }
  static Attrs DynamicSize(bool x) { return Attrs().DynamicSize(x); }
  static Attrs ClearAfterRead(bool x) { return Attrs().ClearAfterRead(x); }
  static Attrs IdenticalElementShapes(bool x) { return Attrs().IdenticalElementShapes(x); }
  static Attrs TensorArrayName(std::string x) { return Attrs().TensorArrayName(std::move(x)); }
  Operation operation;
  Output handle;
  Output flow;
};

// TensorArrayGradV3: the gradient array of `handle` for `source` (one per source).
class TensorArrayGrad {
 public:
  TensorArrayGrad(const Scope& scope, Input handle, Input flow_in, const std::string& source);
  Operation operation;
  Output grad_handle;
  Output flow_out;
};

// TensorArrayGradWithShape: as TensorArrayGrad, each element shape with `shape_to_prepend` in
// front.
class TensorArrayGradWithShape {
 public:
  TensorArrayGradWithShape(const Scope& scope, Input handle, Input flow_in, Input shape_to_prepend,
                           const std::string& source);
  Operation operation;
  Output grad_handle;
  Output flow_out;
};

// TensorArrayWriteV3: value at `index`.
class TensorArrayWrite {
 public:
  TensorArrayWrite(const Scope& scope, Input handle, Input index, Input value, Input flow_in);
  operator Output() const { return flow_out; }
  Operation operation;
  Output flow_out;
};

// TensorArrayReadV3: the element at `index`.
class TensorArrayRead {
 public:
  TensorArrayRead(const Scope& scope, Input handle, Input index, Input flow_in, DataType dtype);
  operator Output() const { return value; }
  Operation operation;
  Output value;
};

// TensorArrayGatherV3: the elements at `indices`, stacked along a new first dimension.
class TensorArrayGather {
 public:
  struct Attrs {
    Attrs ElementShape(const PartialTensorShape& x) const {
      Attrs ret = *this;
      ret.element_shape_ = x;
      return ret;
    }
    PartialTensorShape element_shape_;
  };
  TensorArrayGather(const Scope& scope, Input handle, Input indices, Input flow_in, DataType dtype);
  TensorArrayGather(const Scope& scope, Input handle, Input indices, Input flow_in, DataType dtype,
                    const Attrs& attrs);
  static Attrs ElementShape(const PartialTensorShape& x) { return Attrs().ElementShape(x); }
  operator Output() const { return value; }
  Operation operation;
  Output value;
};

// TensorArrayScatterV3: row i of `value` to index indices[i].
class TensorArrayScatter {
 public:
  TensorArrayScatter(const Scope& scope, Input handle, Input indices, Input value, Input flow_in);
  operator Output() const { return flow_out; }
  Operation operation;
  Output flow_out;
};

// TensorArrayConcatV3: every element concatenated along the first dimension, and their lengths.
class TensorArrayConcat {
 public:
  struct Attrs {
    Attrs ElementShapeExcept0(const PartialTensorShape& x) const {
      Attrs ret = *this;
      ret.element_shape_except0_ = x;
      return ret;
    }
    PartialTensorShape element_shape_except0_;
  };
  TensorArrayConcat(const Scope& scope, Input handle, Input flow_in, DataType dtype);
  TensorArrayConcat(const Scope& scope, Input handle, Input flow_in, DataType dtype,
                    const Attrs& attrs);
  static Attrs ElementShapeExcept0(const PartialTensorShape& x) {
    return Attrs().ElementShapeExcept0(x);
  }
  Operation operation;
  Output value;
  Output lengths;
};

// TensorArraySplitV3: `value` split along the first dimension into `lengths` (int64) rows,
// written to indices 0..n-1.
class TensorArraySplit {
 public:
  TensorArraySplit(const Scope& scope, Input handle, Input value, Input lengths, Input flow_in);
  operator Output() const { return flow_out; }
  Operation operation;
  Output flow_out;
};

// TensorArraySizeV3: the current size (int32).
class TensorArraySize {
 public:
  TensorArraySize(const Scope& scope, Input handle, Input flow_in);
  operator Output() const { return size; }
  Operation operation;
  Output size;
};

// TensorArrayCloseV3: releases the elements; later uses are errors.
class TensorArrayClose {
 public:
  TensorArrayClose(const Scope& scope, Input handle);
  Operation operation;
};

// StackV2: a stack of `elem_type` holding at most `max_size` values (< 0: unbounded).
class Stack {
 public:
  struct Attrs {
    Attrs StackName(std::string x) const {
      Attrs ret = *this;
      ret.stack_name_ = std::move(x);
      return ret;
    }
    std::string stack_name_;
  };
  Stack(const Scope& scope, Input max_size, DataType elem_type);
  Stack(const Scope& scope, Input max_size, DataType elem_type, const Attrs& attrs);
  static Attrs StackName(std::string x) { return Attrs().StackName(std::move(x)); }
  operator Output() const { return handle; }
  Operation operation;
  Output handle;
};

// StackPushV2: pushes `elem` and outputs it. swap_memory (default false) is accepted and ignored.
class StackPush {
 public:
  StackPush(const Scope& scope, Input handle, Input elem, bool swap_memory = false);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// StackPopV2: the value pushed last.
class StackPop {
 public:
  StackPop(const Scope& scope, Input handle, DataType elem_type);
  operator Output() const { return elem; }
  Operation operation;
  Output elem;
};

// StackCloseV2.
class StackClose {
 public:
  StackClose(const Scope& scope, Input handle);
  Operation operation;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_DATA_FLOW_OPS_H_
