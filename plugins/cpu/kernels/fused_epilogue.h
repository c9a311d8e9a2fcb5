// The epilogue of _FusedConv2D and _FusedMatMul: what their fused_ops attr names after the
// convolution or product (a BiasAdd over the last axis, then maybe Relu, Relu6, Elu or LeakyRelu),
// parsed once per kernel and applied in place with the unfused kernels' formulas.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_FUSED_EPILOGUE_H_
#define TESSERA_PLUGINS_CPU_KERNELS_FUSED_EPILOGUE_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernels/kernel_util.h"

namespace tessera::cpu {

enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu };

struct FusedEpilogue {
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;

  // Reads fused_ops, num_args and leakyrelu_alpha: fused_ops must be ["BiasAdd"] or ["BiasAdd",
  // activation] with one arg (the bias). `op` names the kernel's op in errors.
  Status Parse(KernelConstruction& ctx, const char* op) {
    std::vector<std::string> fused_ops;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("fused_ops", &fused_ops));
    int64_t num_args = 0;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("num_args", &num_args));
    if (ctx.HasAttr("leakyrelu_alpha")) {
      TESSERA_SDK_RETURN_IF_ERROR(ctx.GetAttr("leakyrelu_alpha", &leakyrelu_alpha));
    }
    std::string names;
    for (const std::string& name : fused_ops) names += (names.empty() ? "" : ",") + name;
    const bool bias = !fused_ops.empty() && fused_ops[0] == "BiasAdd";
    bool known = bias && fused_ops.size() <= 2;
    if (known && fused_ops.size() == 2) {
      const std::string& name = fused_ops[1];
      if (name == "Relu") {
        activation = FusedActivation::kRelu;
      } else if (name == "Relu6") {
        activation = FusedActivation::kRelu6;
      } else if (name == "Elu") {
        activation = FusedActivation::kElu;
      } else if (name == "LeakyRelu") {
        activation = FusedActivation::kLeakyRelu;
      } else {
        known = false;
      }
    }
    if (!known) {
      return sdk::Unimplemented(op, " on CPU does not implement fused_ops [", names,
                                "]; it fuses BiasAdd, optionally followed by Relu, Relu6, Elu or "
                                "LeakyRelu");
    }
    if (num_args != 1) {
      return sdk::InvalidArgument(op, " with fused_ops [", names,
                                  "] takes one argument (the bias), got num_args = ", num_args);
    }
    return OkStatus();
  }

  // Calls fn(activation, cycles): `activation` a functor T -> T with the unfused kernel's formula
  // (a NaN stays NaN), `cycles` its rough cost per element.
  template <typename T, typename Fn>
  void WithActivation(Fn&& fn) const {
    switch (activation) {
      case FusedActivation::kNone:
        return fn([](T x) { return x; }, 1);
      case FusedActivation::kRelu:
        return fn([](T x) { return x < T(0) ? T(0) : x; }, 1);
      case FusedActivation::kRelu6:
        return fn([](T x) { return x < T(0) ? T(0) : x > T(6) ? T(6) : x; }, 1);
      case FusedActivation::kElu:
        return fn([](T x) { return x < T(0) ? std::expm1(x) : x; }, 20);
      case FusedActivation::kLeakyRelu: {
        const T alpha = static_cast<T>(leakyrelu_alpha);
        return fn([alpha](T x) { return x > T(0) ? x : x * alpha; }, 1);
      }
    }
  }

  // data[r, c] = activation(data[r, c] + bias[c]) for `rows` rows of `channels`, rows sharded
  // over the host's pool.
  template <typename T>
  void Apply(const KernelContext& ctx, const T* bias, T* data, int64_t rows,
             int64_t channels) const {
    WithActivation<T>([&](auto activate, int64_t cycles) {
      ctx.ParallelFor(rows, channels * (cycles + 1), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          T* row = data + r * channels;
          for (int64_t c = 0; c < channels; ++c) row[c] = activate(row[c] + bias[c]);
        }
      });
    });
  }

  // data[i] = activation(data[i]) for `count` values, on the calling thread.
  template <typename T>
  void Activate(T* data, int64_t count) const {
    if (activation == FusedActivation::kNone) return;
    WithActivation<T>([&](auto activate, int64_t) {
      for (int64_t i = 0; i < count; ++i) data[i] = activate(data[i]);
    });
  }
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_FUSED_EPILOGUE_H_
