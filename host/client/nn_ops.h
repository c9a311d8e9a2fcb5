// Typed wrappers of TensorFlow's neural-network ops: Relu, Relu6, BiasAdd, Softmax.
#ifndef TESSERA_HOST_CLIENT_NN_OPS_H_
#define TESSERA_HOST_CLIENT_NN_OPS_H_

#include <string>

#include "host/client/math_ops.h"
#include "host/client/output.h"
#include "host/client/scope.h"

namespace tessera {
namespace ops {

// max(features, 0). Attr T.
class Relu {
 public:
  Relu(const Scope& scope, Input features)
      : operation(internal::UnaryOp(scope, "Relu", features)),
        activations(internal::FirstOutput(operation)) {}
  operator Output() const { return activations; }
  Operation operation;
  Output activations;
};

// min(max(features, 0), 6). Attr T.
class Relu6 {
 public:
  Relu6(const Scope& scope, Input features)
      : operation(internal::UnaryOp(scope, "Relu6", features)),
        activations(internal::FirstOutput(operation)) {}
  operator Output() const { return activations; }
  Operation operation;
  Output activations;
};

// `value` plus the vector `bias` along the channel dimension. Attrs T, data_format ("NHWC", the
// default: the last dimension; "NCHW": dimension 1).
class BiasAdd {
 public:
  struct Attrs {
    Attrs DataFormat(std::string x) const {
      Attrs ret = *this;
      ret.data_format_ = std::move(x);
      return ret;
    }
    std::string data_format_ = "NHWC";
  };
  BiasAdd(const Scope& scope, Input value, Input bias);
  BiasAdd(const Scope& scope, Input value, Input bias, const Attrs& attrs);
  static Attrs DataFormat(std::string x) { return Attrs().DataFormat(std::move(x)); }
  operator Output() const { return output; }
  Operation operation;
  Output output;
};

// exp(logits) / sum(exp(logits)) over the last dimension. Attr T.
class Softmax {
 public:
  Softmax(const Scope& scope, Input logits)
      : operation(internal::UnaryOp(scope, "Softmax", logits)),
        softmax(internal::FirstOutput(operation)) {}
  operator Output() const { return softmax; }
  Operation operation;
  Output softmax;
};

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_HOST_CLIENT_NN_OPS_H_
