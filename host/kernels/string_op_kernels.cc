// StringJoin, ShardedFilename, ShardedFilespec, StaticRegexFullMatch, and Select and Pack of
// strings, with TensorFlow's semantics and messages.
#include "host/kernels/string_op_kernels.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "host/abi/host_kernel_context.h"
#include "host/graph/graph.h"
#include "re2/re2.h"

namespace tessera {
namespace {

constexpr OpKernel::Traits kCheapHostKernel = {false, true, false};

std::string ShapeString(const Tensor& t) { return t.shape().DebugString(); }

// A scalar, or a vector of one element (TensorFlow's legacy scalars).
absl::Status RequireScalar(const Tensor& t, absl::string_view what) {
  if (t.shape().rank() > 1 || t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, got shape ", ShapeString(t)));
  }
  return absl::OkStatus();
}

// Joins the strings of its inputs element-wise; scalars broadcast against the others' one shape.
class StringJoinKernel final : public OpKernel {
 public:
  explicit StringJoinKernel(std::string separator)
      : OpKernel(kCheapHostKernel), separator_(std::move(separator)) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    const Tensor* shaped = nullptr;
    for (int i = 0; i < ctx->num_inputs; ++i) {
      const Tensor& input = ctx->inputs[i];
      if (input.shape().rank() == 0) continue;
      if (shaped == nullptr) {
        shaped = &input;
      } else if (input.shape() != shaped->shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input shapes do not match: ", ShapeString(*shaped), " vs. ", ShapeString(input)));
      }
    }
    const TensorShape shape = shaped == nullptr ? TensorShape{} : shaped->shape();
    Tensor out(TSR_DTYPE_STRING, shape);
    absl::Span<std::string> values = out.flat<std::string>();
    for (int64_t e = 0; e < static_cast<int64_t>(values.size()); ++e) {
      std::string& joined = values[e];
      for (int i = 0; i < ctx->num_inputs; ++i) {
        if (i > 0) joined += separator_;
        absl::Span<const std::string> in = ctx->inputs[i].flat<std::string>();
        joined += in[in.size() == 1 ? 0 : e];
      }
    }
    ctx->outputs[0] = std::move(out);
    return absl::OkStatus();
  }

 private:
  std::string separator_;
};

// ShardedFilename: BASENAME-00003-of-00008. ShardedFilespec: BASENAME-?????-of-00008.
class ShardedNameKernel final : public OpKernel {
 public:
  explicit ShardedNameKernel(bool spec) : OpKernel(kCheapHostKernel), spec_(spec) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    RETURN_IF_ERROR(RequireScalar(ctx->inputs[0], "basename"));
    const std::string& basename = ctx->inputs[0].flat<std::string>()[0];
    std::string name;
    if (spec_) {
      RETURN_IF_ERROR(RequireScalar(ctx->inputs[1], "num_shards"));
      name = absl::StrFormat("%s-?????" "-of-%05d", basename, *ctx->inputs[1].data<int32_t>());
    } else {
      RETURN_IF_ERROR(RequireScalar(ctx->inputs[1], "shard"));
      RETURN_IF_ERROR(RequireScalar(ctx->inputs[2], "num_shards"));
      name = absl::StrFormat("%s-%05d-of-%05d", basename, *ctx->inputs[1].data<int32_t>(),
                             *ctx->inputs[2].data<int32_t>());
    }
    ctx->outputs[0] = Tensor::Strings(TensorShape{}, {name});
    return absl::OkStatus();
  }

 private:
  bool spec_;
};

// True for each string the whole of which the pattern matches (RE2 syntax).
class StaticRegexFullMatchKernel final : public OpKernel {
 public:
  explicit StaticRegexFullMatchKernel(std::unique_ptr<RE2> regex)
      : OpKernel(kCheapHostKernel), regex_(std::move(regex)) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    const Tensor& input = ctx->inputs[0];
    Tensor out(TSR_DTYPE_BOOL, input.shape());
    absl::Span<const std::string> in = input.flat<std::string>();
    bool* matched = out.data<bool>();
    for (size_t i = 0; i < in.size(); ++i) matched[i] = RE2::FullMatch(in[i], *regex_);
    ctx->outputs[0] = std::move(out);
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<RE2> regex_;
};

// Select(condition, t, e) of strings: a condition of the inputs' shape picks element-wise, a
// scalar picks a whole input, a vector picks rows (TensorFlow's three forms).
class StringSelectKernel final : public OpKernel {
 public:
  StringSelectKernel() : OpKernel(kCheapHostKernel) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    const Tensor& cond = ctx->inputs[0];
    const Tensor& then_t = ctx->inputs[1];
    const Tensor& else_t = ctx->inputs[2];
    if (then_t.shape() != else_t.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'then' and 'else' must have the same size.  but received: ",
                       ShapeString(then_t), " vs. ", ShapeString(else_t)));
    }
    const bool* pick = cond.data<bool>();
    absl::Span<const std::string> a = then_t.flat<std::string>();
    absl::Span<const std::string> b = else_t.flat<std::string>();
    int64_t row = 0;  // elements each condition value picks
    if (cond.shape().rank() == 0) {
      row = static_cast<int64_t>(a.size());
    } else if (cond.shape() == then_t.shape()) {
      row = 1;
    } else if (cond.shape().rank() == 1 && then_t.shape().rank() >= 1 &&
               cond.shape().dim(0) == then_t.shape().dim(0)) {
      row = then_t.shape().dim(0) == 0 ? 0 : static_cast<int64_t>(a.size()) / cond.shape().dim(0);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "'condition' must be a scalar, a vector of the inputs' first dimension or of their "
          "shape, but condition has shape ",
          ShapeString(cond), " and the inputs ", ShapeString(then_t)));
    }
    Tensor out(TSR_DTYPE_STRING, then_t.shape());
    absl::Span<std::string> values = out.flat<std::string>();
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = pick[row == 0 ? 0 : i / row] ? a[i] : b[i];
    }
    ctx->outputs[0] = std::move(out);
    return absl::OkStatus();
  }
};

// Pack of strings along `axis`: N inputs of one shape make a tensor one dimension longer.
class StringPackKernel final : public OpKernel {
 public:
  explicit StringPackKernel(int64_t axis) : OpKernel(kCheapHostKernel), axis_(axis) {}

  absl::Status Compute(TSR_KernelContext* ctx) override {
    const TensorShape& shape = ctx->inputs[0].shape();
    const int64_t rank = shape.rank() + 1;
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis = ", axis_, " not in [", -rank, ", ", rank, ")"));
    }
    for (int i = 1; i < ctx->num_inputs; ++i) {
      if (ctx->inputs[i].shape() != shape) {
        return absl::InvalidArgumentError(absl::StrCat("Shapes of all inputs must match: values[0].shape = ",
                                                       ShapeString(ctx->inputs[0]), " != values[", i,
                                                       "].shape = ", ShapeString(ctx->inputs[i])));
      }
    }
    std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
    dims.insert(dims.begin() + axis, ctx->num_inputs);
    int64_t inner = 1;  // elements after the axis in each input
    for (int d = static_cast<int>(axis); d < shape.rank(); ++d) inner *= shape.dim(d);
    Tensor out(TSR_DTYPE_STRING, TensorShape(absl::MakeConstSpan(dims)));
    absl::Span<std::string> values = out.flat<std::string>();
    const int64_t outer = shape.num_elements() / (inner == 0 ? 1 : inner);
    size_t next = 0;
    for (int64_t o = 0; o < outer && inner > 0; ++o) {
      for (int i = 0; i < ctx->num_inputs; ++i) {
        absl::Span<const std::string> in = ctx->inputs[i].flat<std::string>();
        for (int64_t k = 0; k < inner; ++k) values[next++] = in[o * inner + k];
      }
    }
    ctx->outputs[0] = std::move(out);
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

bool TypeIsString(const Node& node, absl::string_view attr) {
  const tensorflow::AttrValue* value = node.attr(attr);
  return value != nullptr && value->value_case() == tensorflow::AttrValue::kType &&
         value->type() == tensorflow::DT_STRING;
}

std::string StringAttr(const Node& node, absl::string_view name) {
  const tensorflow::AttrValue* value = node.attr(name);
  return value == nullptr ? std::string() : value->s();
}

}  // namespace

bool IsStringOp(absl::string_view op) {
  return op == "StringJoin" || op == "ShardedFilename" || op == "ShardedFilespec" ||
         op == "StaticRegexFullMatch";
}

const char* StringOnlyKernelTypeAttr(absl::string_view op) {
  return op == "Select" || op == "Pack" ? "T" : nullptr;
}

bool IsStringOpNode(const Node& node) {
  if (IsStringOp(node.op())) return true;
  const char* type_attr = StringOnlyKernelTypeAttr(node.op());
  return type_attr != nullptr && TypeIsString(node, type_attr);
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateStringOpKernel(const Node& node) {
  const std::string& op = node.op();
  if (op == "StringJoin") {
    return std::unique_ptr<OpKernel>(new StringJoinKernel(StringAttr(node, "separator")));
  }
  if (op == "ShardedFilename" || op == "ShardedFilespec") {
    return std::unique_ptr<OpKernel>(new ShardedNameKernel(op == "ShardedFilespec"));
  }
  if (op == "StaticRegexFullMatch") {
    const std::string pattern = StringAttr(node, "pattern");
    auto regex = std::make_unique<RE2>(pattern, RE2::Quiet);
    if (!regex->ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid pattern: ", pattern, ", error: ",
                                                     regex->error(), " (node '", node.name(), "')"));
    }
    return std::unique_ptr<OpKernel>(new StaticRegexFullMatchKernel(std::move(regex)));
  }
  if (op == "Select") return std::unique_ptr<OpKernel>(new StringSelectKernel());
  if (op == "Pack") {
    const tensorflow::AttrValue* axis = node.attr("axis");
    return std::unique_ptr<OpKernel>(new StringPackKernel(axis == nullptr ? 0 : axis->i()));
  }
  return absl::NotFoundError(absl::StrCat("op '", op, "' has no string kernel"));
}

}  // namespace tessera
