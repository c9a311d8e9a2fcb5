// Sparse variable updates and reads through a real session and the CPU plugin: Scatter* on ref
// variables (VariableV2 and TensorFlow's first Variable), ResourceScatter* and ResourceGather on
// resource variables, against a reference loop on random inputs, and TensorFlow's errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "host/client/ops.h"
#include "host/session/session.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<Session> MakeSession(const Scope& scope) {
  absl::StatusOr<tensorflow::GraphDef> def = scope.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), *def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

absl::StatusOr<Tensor> FetchOne(Session* session, const std::string& name,
                                const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  std::vector<Tensor> out;
  absl::Status status = session->Run(feeds, {name}, {}, &out);
  if (!status.ok()) return status;
  return out[0];
}

absl::Status RunTarget(Session* session, const std::string& target,
                       const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  std::vector<Tensor> out;
  return session->Run(feeds, {}, {target}, &out);
}

const char* const kOps[] = {"Update", "Add", "Sub", "Mul", "Div", "Min", "Max"};

// The reference: each index in order applies its slice of `updates` (or the scalar).
template <typename T>
std::vector<T> Reference(const std::string& op, std::vector<T> params, int64_t slice,
                         const std::vector<int64_t>& indices, const std::vector<T>& updates,
                         bool scalar) {
  for (size_t i = 0; i < indices.size(); ++i) {
    for (int64_t c = 0; c < slice; ++c) {
      T& p = params[indices[i] * slice + c];
      const T u = scalar ? updates[0] : updates[i * slice + c];
      if (op == "Update") p = u;
      if (op == "Add") p = p + u;
      if (op == "Sub") p = p - u;
      if (op == "Mul") p = p * u;
      if (op == "Div") p = p / u;
      if (op == "Min") p = std::min(p, u);
      if (op == "Max") p = std::max(p, u);
    }
  }
  return params;
}

// Ref and resource forms of every op on random variables, indices (with repeats, int32 and
// int64, empty) and updates (slices or a scalar), against the reference.
template <typename T>
void CheckAgainstReference(DataType dtype, bool resource) {
  std::mt19937 rng(resource ? 17 : 5);
  std::uniform_int_distribution<int> value(1, 9);
  struct Case {
    std::vector<int64_t> shape;  // the variable's
    std::vector<int64_t> indices_shape;
    bool scalar_updates;
    bool int64_indices;
  };
  const Case cases[] = {{{6, 3}, {4}, false, false},       {{5}, {7}, false, true},
                        {{4, 2, 3}, {2, 2}, false, false}, {{3, 2}, {5}, true, true},
                        {{4, 3}, {0}, false, false},       {{1, 1}, {3}, false, false},
                        {{3, 0}, {2}, false, true}};
  for (const char* op : kOps) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(resource ? "ResourceScatter" : "Scatter", op, " on ",
                                DataTypeString(dtype), " variable [", absl::StrJoin(c.shape, ","),
                                "] indices [", absl::StrJoin(c.indices_shape, ","), "]",
                                c.scalar_updates ? " scalar updates" : ""));
      TensorShape var_shape(c.shape);
      const int64_t rows = c.shape[0];
      const int64_t slice = rows == 0 ? 0 : var_shape.num_elements() / rows;
      std::vector<T> initial(var_shape.num_elements());
      for (T& v : initial) v = static_cast<T>(value(rng));
      TensorShape indices_shape(c.indices_shape);
      std::vector<int64_t> indices(indices_shape.num_elements());
      for (int64_t& i : indices) i = std::uniform_int_distribution<int64_t>(0, rows - 1)(rng);
      std::vector<int64_t> updates_dims = c.indices_shape;
      for (size_t d = 1; d < c.shape.size(); ++d) updates_dims.push_back(c.shape[d]);
      TensorShape updates_shape = c.scalar_updates ? TensorShape() : TensorShape(updates_dims);
      std::vector<T> updates(updates_shape.num_elements());
      for (T& u : updates) u = static_cast<T>(value(rng));

      Tensor indices_tensor =
          c.int64_indices
              ? Tensor::FromVector<int64_t>(indices_shape, indices)
              : Tensor::FromVector<int32_t>(indices_shape,
                                            std::vector<int32_t>(indices.begin(), indices.end()));
      Scope root = Scope::NewRootScope();
      auto init_value = ops::Const(root, Tensor::FromVector<T>(var_shape, initial));
      auto idx = ops::Const(root, indices_tensor);
      auto upd = ops::Const(root, Tensor::FromVector<T>(updates_shape, updates));
      if (resource) {
        auto v = ops::VarHandleOp(root.WithOpName("v"), dtype, PartialTensorShape(c.shape));
        ops::AssignVariableOp(root.WithOpName("init"), v, init_value);
        ops::ResourceScatter(root.WithOpName("update"), op, v, idx, upd);
        ops::ReadVariableOp(root.WithOpName("read"), v, dtype);
      } else {
        auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape(c.shape), dtype);
        ops::Assign(root.WithOpName("init"), w, init_value);
        const std::string name = std::string("Scatter") + op;
        if (name == "ScatterUpdate") ops::ScatterUpdate(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterAdd") ops::ScatterAdd(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterSub") ops::ScatterSub(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterMul") ops::ScatterMul(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterDiv") ops::ScatterDiv(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterMin") ops::ScatterMin(root.WithOpName("update"), w, idx, upd);
        if (name == "ScatterMax") ops::ScatterMax(root.WithOpName("update"), w, idx, upd);
        ops::Identity(root.WithOpName("read"), w);
      }
      std::unique_ptr<Session> session = MakeSession(root);
      ASSERT_NE(session, nullptr);
      ASSERT_TRUE(RunTarget(session.get(), "init").ok());
      if (!resource) {
        // The ref output is the updated variable.
        absl::StatusOr<Tensor> updated = FetchOne(session.get(), "update");
        ASSERT_TRUE(updated.ok()) << updated.status();
        EXPECT_EQ(Values<T>(*updated),
                  Reference(op, initial, slice, indices, updates, c.scalar_updates));
        ASSERT_TRUE(RunTarget(session.get(), "init").ok());
      }
      absl::Status status = RunTarget(session.get(), "update");
      ASSERT_TRUE(status.ok()) << status;
      absl::StatusOr<Tensor> read = FetchOne(session.get(), "read");
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->shape(), var_shape);
      EXPECT_EQ(Values<T>(*read),
                Reference(op, initial, slice, indices, updates, c.scalar_updates));
    }
  }
}

TEST(ScatterTest, RefFormsMatchTheReference) {
  CheckAgainstReference<float>(DT_FLOAT, /*resource=*/false);
  CheckAgainstReference<double>(DT_DOUBLE, false);
  CheckAgainstReference<int32_t>(DT_INT32, false);
  CheckAgainstReference<int64_t>(DT_INT64, false);
}

TEST(ScatterTest, ResourceFormsMatchTheReference) {
  CheckAgainstReference<float>(DT_FLOAT, /*resource=*/true);
  CheckAgainstReference<double>(DT_DOUBLE, true);
  CheckAgainstReference<int32_t>(DT_INT32, true);
  CheckAgainstReference<int64_t>(DT_INT64, true);
}

TEST(ScatterTest, ExactValuesWithRepeatedIndices) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {3, 2}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w,
              ops::Const(root, {{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}}));
  ops::ScatterAdd(root.WithOpName("add"), w, ops::Const(root, {2, 0, 2}),
                  ops::Const(root, {{1.0f, 1.0f}, {10.0f, 10.0f}, {100.0f, 100.0f}}));
  // ScatterUpdate with a repeated index keeps the last update.
  ops::ScatterUpdate(root.WithOpName("set"), w, ops::Const(root, {1, 1}),
                     ops::Const(root, {{7.0f, 7.0f}, {8.0f, 9.0f}}));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTarget(session.get(), "init").ok());
  EXPECT_THAT(Values<float>(*FetchOne(session.get(), "add")), ElementsAre(11, 12, 3, 4, 106, 107));
  EXPECT_THAT(Values<float>(*FetchOne(session.get(), "set")), ElementsAre(11, 12, 8, 9, 106, 107));
}

TEST(ScatterTest, MinAndMaxPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {3}, DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, {1.0f, nan, 3.0f}));
  ops::ScatterMax(root.WithOpName("max"), w, ops::Const(root, {0, 1, 2}),
                  ops::Const(root, {nan, 5.0f, 2.0f}));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTarget(session.get(), "init").ok());
  std::vector<float> out = Values<float>(*FetchOne(session.get(), "max"));
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 3.0f);
}

// Bad indices, updates or divisors fail the step with TensorFlow's code and message and leave
// the variable as it was.
TEST(ScatterTest, ErrorsLeaveTheVariableUnchanged) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), {3, 2}, DT_INT32);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, {{1, 2}, {3, 4}, {5, 6}}));
  auto indices = ops::Placeholder(root.WithOpName("indices"), DT_INT32);
  auto updates = ops::Placeholder(root.WithOpName("updates"), DT_INT32);
  ops::ScatterAdd(root.WithOpName("add"), w, indices, updates);
  ops::ScatterDiv(root.WithOpName("div"), w, indices, updates);
  ops::Identity(root.WithOpName("read"), w);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTarget(session.get(), "init").ok());
  struct Bad {
    const char* target;
    Tensor indices;
    Tensor updates;
    const char* message;
  };
  const Bad cases[] = {
      {"add", Tensor::FromVector<int32_t>({2}, {0, 3}),
       Tensor::FromVector<int32_t>({2, 2}, {1, 1, 1, 1}), "indices[1] = 3 is not in [0, 3)"},
      {"add", Tensor::FromVector<int32_t>({2}, {-1, 0}),
       Tensor::FromVector<int32_t>({2, 2}, {1, 1, 1, 1}), "indices[0] = -1 is not in [0, 3)"},
      {"add", Tensor::FromVector<int32_t>({1, 2}, {0, 9}),
       Tensor::FromVector<int32_t>({1, 2, 2}, {1, 1, 1, 1}), "indices[0,1] = 9 is not in [0, 3)"},
      {"add", Tensor::FromVector<int32_t>({2}, {0, 1}),
       Tensor::FromVector<int32_t>({2, 3}, {1, 1, 1, 1, 1, 1}),
       "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
       "updates.shape [2,3], indices.shape [2], params.shape [3,2]"},
      {"div", Tensor::FromVector<int32_t>({2}, {0, 1}),
       Tensor::FromVector<int32_t>({2, 2}, {1, 1, 0, 1}),
       "Integer division by zero in the updates of node 'div'"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.message);
    absl::Status status =
        RunTarget(session.get(), bad.target, {{"indices", bad.indices}, {"updates", bad.updates}});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr(bad.message));
    EXPECT_THAT(Values<int32_t>(*FetchOne(session.get(), "read")), ElementsAre(1, 2, 3, 4, 5, 6));
  }
}

TEST(ResourceGatherTest, GathersSlicesAndRefusesBadIndices) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, {4, 2});
  ops::AssignVariableOp(root.WithOpName("init"), v,
                        ops::Const(root, {{0.0f, 1.0f}, {2.0f, 3.0f}, {4.0f, 5.0f}, {6.0f, 7.0f}}));
  auto indices = ops::Placeholder(root.WithOpName("indices"), DT_INT64);
  ops::ResourceGather(root.WithOpName("gather"), v, indices, DT_FLOAT);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(RunTarget(session.get(), "init").ok());

  absl::StatusOr<Tensor> rows = FetchOne(
      session.get(), "gather", {{"indices", Tensor::FromVector<int64_t>({2, 2}, {3, 0, 1, 3})}});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), TensorShape({2, 2, 2}));
  EXPECT_THAT(Values<float>(*rows), ElementsAre(6, 7, 0, 1, 2, 3, 6, 7));
  absl::StatusOr<Tensor> none =
      FetchOne(session.get(), "gather", {{"indices", Tensor::FromVector<int64_t>({0}, {})}});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), TensorShape({0, 2}));

  absl::StatusOr<Tensor> bad =
      FetchOne(session.get(), "gather", {{"indices", Tensor::FromVector<int64_t>({2}, {1, 4})}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("indices[1] = 4 is not in [0, 4)"));
}

// A TensorFlow 1 graph with the first Variable op, updated by ScatterSub and read through the
// ref, and a ResourceGather with batch_dims, which the CPU kernel refuses clearly.
TEST(ScatterTest, ImportsTheFirstVariableOpAndRefusesBatchDims) {
  tensorflow::GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "w"
          op: "Variable"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value { shape { dim { size: 3 } } }
          }
        }
        node {
          name: "w/init_value"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_FLOAT
                tensor_shape { dim { size: 3 } }
                float_val: 1
                float_val: 2
                float_val: 3
              }
            }
          }
        }
        node {
          name: "w/Assign"
          op: "Assign"
          input: "w"
          input: "w/init_value"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "idx"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_INT32
                tensor_shape { dim { size: 1 } }
                int_val: 2
              }
            }
          }
        }
        node {
          name: "delta"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_FLOAT
                tensor_shape { dim { size: 1 } }
                float_val: 0.5
              }
            }
          }
        }
        node {
          name: "sub"
          op: "ScatterSub"
          input: "w"
          input: "idx"
          input: "delta"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "Tindices"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "h"
          op: "VarHandleOp"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value { shape { dim { size: 3 } } }
          }
        }
        node {
          name: "h/Assign"
          op: "AssignVariableOp"
          input: "h"
          input: "w/init_value"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "batched"
          op: "ResourceGather"
          input: "h"
          input: "idx"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "Tindices"
            value { type: DT_INT32 }
          }
          attr {
            key: "batch_dims"
            value { i: 1 }
          }
        }
      )pb",
      &def));
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(SessionOptions(), def);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE(RunTarget(session->get(), "w/Assign").ok());
  absl::StatusOr<Tensor> after = FetchOne(session->get(), "sub");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_THAT(Values<float>(*after), ElementsAre(1, 2, 2.5));
  EXPECT_THAT(Values<float>(*FetchOne(session->get(), "w")), ElementsAre(1, 2, 2.5));

  ASSERT_TRUE(RunTarget(session->get(), "h/Assign").ok());
  absl::StatusOr<Tensor> batched = FetchOne(session->get(), "batched");
  EXPECT_EQ(batched.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(batched.status().message()),
              HasSubstr("ResourceGather of node 'batched' with batch_dims = 1: the CPU kernel "
                        "gathers along the first dimension only (batch_dims = 0)"));
}

}  // namespace
}  // namespace tessera
