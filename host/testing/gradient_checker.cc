// Symbolic and numeric Jacobians, element by element.
#include "host/testing/gradient_checker.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "host/client/array_ops.h"
#include "host/client/gradients.h"
#include "host/session/session.h"

namespace tessera {
namespace testing {
namespace {

double At(const Tensor& t, int64_t i) {
  return t.dtype() == TSR_DTYPE_DOUBLE ? t.data<double>()[i] : t.data<float>()[i];
}

void Set(Tensor* t, int64_t i, double v) {
  if (t->dtype() == TSR_DTYPE_DOUBLE) {
    t->data<double>()[i] = v;
  } else {
    t->data<float>()[i] = static_cast<float>(v);
  }
}

absl::Status CheckFloating(const Output& o, const char* what) {
  if (o.type() != TSR_DTYPE_FLOAT && o.type() != TSR_DTYPE_DOUBLE) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", o.name(), "' is ",
                                                   DataTypeString(o.type()),
                                                   "; gradient checks need float or double"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<double> ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                            const std::vector<Tensor>& x_values,
                                            const std::vector<Output>& ys,
                                            const GradientCheckOptions& options) {
  if (xs.size() != x_values.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(xs.size(), " inputs but ", x_values.size(), " input values"));
  }
  for (const Output& x : xs) RETURN_IF_ERROR(CheckFloating(x, "input"));
  for (const Output& y : ys) RETURN_IF_ERROR(CheckFloating(y, "output"));
  std::vector<Output> dys;
  for (size_t j = 0; j < ys.size(); ++j) {
    dys.push_back(ops::Placeholder(scope.WithOpName("gradient_check_dy", j), ys[j].type()));
  }
  std::vector<Output> dxs;
  RETURN_IF_ERROR(AddSymbolicGradients(
      scope, ys, xs, dys, &dxs,
      options.registry != nullptr ? *options.registry : GradientRegistry::Standard()));
  // A gradient may be a fed dy itself (Identity's): fetch a copy, since a fed tensor cannot be
  // fetched in the same step.
  for (Output& dx : dxs) dx = ops::Identity(scope.WithOpName("gradient_check_dx"), dx);
  ASSIGN_OR_RETURN(tensorflow::GraphDef def, scope.ToGraphDef());
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(SessionOptions(), def));

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < xs.size(); ++i) feeds.push_back({xs[i].name(), x_values[i]});
  std::vector<std::string> y_names;
  for (const Output& y : ys) y_names.push_back(y.name());
  std::vector<Tensor> y_values;
  RETURN_IF_ERROR(session->Run(feeds, y_names, {}, &y_values));

  // Symbolic Jacobian, one output element at a time: dy = e_j.
  std::vector<std::string> dx_names;
  for (const Output& dx : dxs) dx_names.push_back(dx.name());
  int64_t total_x = 0;
  for (const Tensor& x : x_values) total_x += x.NumElements();
  int64_t total_y = 0;
  for (const Tensor& y : y_values) total_y += y.NumElements();
  std::vector<double> symbolic(static_cast<size_t>(total_x * total_y));
  int64_t column = 0;
  for (size_t j = 0; j < ys.size(); ++j) {
    for (int64_t e = 0; e < y_values[j].NumElements(); ++e, ++column) {
      std::vector<std::pair<std::string, Tensor>> step_feeds = feeds;
      for (size_t k = 0; k < ys.size(); ++k) {
        ASSIGN_OR_RETURN(Tensor dy,
                         Tensor::Allocate(HostAllocator(), ys[k].type(), y_values[k].shape()));
        for (int64_t i = 0; i < dy.NumElements(); ++i) Set(&dy, i, k == j && i == e ? 1 : 0);
        step_feeds.push_back({dys[k].name(), dy});
      }
      std::vector<Tensor> grads;
      RETURN_IF_ERROR(session->Run(step_feeds, dx_names, {}, &grads));
      int64_t row = 0;
      for (const Tensor& g : grads) {
        for (int64_t i = 0; i < g.NumElements(); ++i, ++row) {
          symbolic[static_cast<size_t>(row * total_y + column)] = At(g, i);
        }
      }
    }
  }

  // Numeric Jacobian by central differences, one input element at a time.
  double max_error = 0;
  int64_t row = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    for (int64_t e = 0; e < x_values[i].NumElements(); ++e, ++row) {
      std::vector<Tensor> sides[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<std::pair<std::string, Tensor>> step_feeds = feeds;
        ASSIGN_OR_RETURN(Tensor moved, x_values[i].DeepCopy());
        Set(&moved, e, At(moved, e) + (side == 0 ? options.delta : -options.delta));
        step_feeds[i].second = moved;
        RETURN_IF_ERROR(session->Run(step_feeds, y_names, {}, &sides[side]));
      }
      int64_t col = 0;
      for (size_t j = 0; j < ys.size(); ++j) {
        for (int64_t k = 0; k < sides[0][j].NumElements(); ++k, ++col) {
          const double numeric = (At(sides[0][j], k) - At(sides[1][j], k)) / (2 * options.delta);
          const double theoretical = symbolic[static_cast<size_t>(row * total_y + col)];
          max_error = std::max(max_error, std::abs(numeric - theoretical));
        }
      }
    }
  }
  return max_error;
}

}  // namespace testing
}  // namespace tessera
