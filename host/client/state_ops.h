// Typed wrappers of TensorFlow's variable ops: ref variables (Variable, Assign, AssignAdd,
// AssignSub, IsVariableInitialized, Scatter*) and resource variables (VarHandleOp,
// ReadVariableOp, AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp, VarIsInitializedOp,
// ResourceScatter*, ResourceGather).
#ifndef TESSERA_HOST_CLIENT_STATE_OPS_H_
#define TESSERA_HOST_CLIENT_STATE_OPS_H_

#include <string>

#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// Attributes shared by the variable wrappers; each wrapper reads only those its op has.
struct VariableAttrs {
  VariableAttrs Container(std::string x) const {
    VariableAttrs ret = *this;
    ret.container_ = std::move(x);
    return ret;
  }
  VariableAttrs SharedName(std::string x) const {
    VariableAttrs ret = *this;
    ret.shared_name_ = std::move(x);
    return ret;
  }
  VariableAttrs ValidateShape(bool x) const {
    VariableAttrs ret = *this;
    ret.validate_shape_ = x;
    return ret;
  }
  VariableAttrs UseLocking(bool x) const {
    VariableAttrs ret = *this;
    ret.use_locking_ = x;
    return ret;
  }
  std::string container_;
  std::string shared_name_;
  bool validate_shape_ = true;  // Assign's default (AssignVariableOp's is false)
  bool use_locking_ = true;     // Assign's default (AssignAdd/AssignSub's is false)
};

// VariableV2: a ref variable of `shape` and `dtype`, shared by name within the session (the node
// name unless SharedName is set). Its output has type dtype_ref.
class Variable {
 public:
  Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
           const VariableAttrs& attrs = VariableAttrs());
  operator Output() const { return ref; }
  Operation operation;
  Output ref;
};

// ref = value; outputs the ref. validate_shape (default true), use_locking (default true).
class Assign {
 public:
  Assign(const Scope& scope, Input ref, Input value, const VariableAttrs& attrs = VariableAttrs());
  operator Output() const { return output_ref; }
  Operation operation;
  Output output_ref;
};

// ref += value / ref -= value; use_locking (default false here).
class AssignAdd {
 public:
  AssignAdd(const Scope& scope, Input ref, Input value, bool use_locking = false);
  operator Output() const { return output_ref; }
  Operation operation;
  Output output_ref;
};
class AssignSub {
 public:
  AssignSub(const Scope& scope, Input ref, Input value, bool use_locking = false);
  operator Output() const { return output_ref; }
  Operation operation;
  Output output_ref;
};

// A bool scalar: whether the ref variable has a value.
class IsVariableInitialized {
 public:
  IsVariableInitialized(const Scope& scope, Input ref);
  operator Output() const { return is_initialized; }
  Operation operation;
  Output is_initialized;
};

// The handle of a resource variable of `dtype` and `shape`.
class VarHandleOp {
 public:
  VarHandleOp(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
              const VariableAttrs& attrs = VariableAttrs());
  operator Output() const { return resource; }
  Operation operation;
  Output resource;
};

// The resource variable's current value.
class ReadVariableOp {
 public:
  ReadVariableOp(const Scope& scope, Input resource, DataType dtype);
  operator Output() const { return value; }
  Operation operation;
  Output value;
};

// resource = value (no output; run it as a target). validate_shape defaults to false.
class AssignVariableOp {
 public:
  AssignVariableOp(const Scope& scope, Input resource, Input value, bool validate_shape = false);
  Operation operation;
};
class AssignAddVariableOp {
 public:
  AssignAddVariableOp(const Scope& scope, Input resource, Input value);
  Operation operation;
};
class AssignSubVariableOp {
 public:
  AssignSubVariableOp(const Scope& scope, Input resource, Input value);
  Operation operation;
};

class VarIsInitializedOp {
 public:
  VarIsInitializedOp(const Scope& scope, Input resource);
  operator Output() const { return is_initialized; }
  Operation operation;
  Output is_initialized;
};

// Sparse updates of a ref variable along its first dimension: ref[indices[i], ...] = (or +=, -=,
// *=, /=, min=, max=) the i-th slice of `updates`, whose shape is indices.shape + ref.shape[1:]
// (or a scalar for every slice). Outputs the ref. use_locking defaults as TensorFlow's: true for
// ScatterUpdate, false for the others.
class ScatterUpdate {
 public:
  ScatterUpdate(const Scope& scope, Input ref, Input indices, Input updates,
                bool use_locking = true);
  operator Output() const { return output_ref; }
  Operation operation;
  Output output_ref;
};
// One class per arithmetic update, all shaped like ScatterUpdate.
class ScatterArithmetic {
 public:
  operator Output() const { return output_ref; }
  Operation operation;
  Output output_ref;

 protected:
  ScatterArithmetic(const Scope& scope, const char* op, const Input& ref, const Input& indices,
                    const Input& updates, bool use_locking);
};
class ScatterAdd : public ScatterArithmetic {
 public:
  ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterAdd", ref, indices, updates, use_locking) {}
};
class ScatterSub : public ScatterArithmetic {
 public:
  ScatterSub(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterSub", ref, indices, updates, use_locking) {}
};
class ScatterMul : public ScatterArithmetic {
 public:
  ScatterMul(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterMul", ref, indices, updates, use_locking) {}
};
class ScatterDiv : public ScatterArithmetic {
 public:
  ScatterDiv(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterDiv", ref, indices, updates, use_locking) {}
};
class ScatterMin : public ScatterArithmetic {
 public:
  ScatterMin(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterMin", ref, indices, updates, use_locking) {}
};
class ScatterMax : public ScatterArithmetic {
 public:
  ScatterMax(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking = false)
      : ScatterArithmetic(scope, "ScatterMax", ref, indices, updates, use_locking) {}
};

// The same updates of a resource variable (no output; run it as a target): `op` is one of
// "Update", "Add", "Sub", "Mul", "Div", "Min", "Max" (ResourceScatterUpdate...).
class ResourceScatter {
 public:
  ResourceScatter(const Scope& scope, const std::string& op, Input resource, Input indices,
                  Input updates);
  Operation operation;
};

// The slices resource[indices[i], ...] of a resource variable of `dtype`:
// indices.shape + resource.shape[1:].
class ResourceGather {
 public:
  ResourceGather(const Scope& scope, Input resource, Input indices, DataType dtype);
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_STATE_OPS_H_
