// TF_SessionRun from several threads at once on one session: each thread runs its own
// signatures and some shared ones, more than the session keeps prepared, so steps look the
// prepared signatures up while others publish new ones (run under ThreadSanitizer in CI).
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow/c/c_api.h"

namespace {

TF_Operation* ScalarConst(TF_Graph* graph, const std::string& name, float value,
                          TF_Status* status) {
  const int64_t dims[1] = {0};
  TF_Tensor* tensor = TF_AllocateTensor(TF_FLOAT, dims, 0, sizeof(float));
  *static_cast<float*>(TF_TensorData(tensor)) = value;
  TF_OperationDescription* desc = TF_NewOperation(graph, "Const", name.c_str());
  TF_SetAttrTensor(desc, "value", tensor, status);
  TF_SetAttrType(desc, "dtype", TF_FLOAT);
  TF_Operation* op = TF_FinishOperation(desc, status);
  TF_DeleteTensor(tensor);
  return op;
}

TEST(CApiThreadsTest, ConcurrentStepsShareTheSessionsPreparedSignatures) {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  constexpr int kConsts = 96;
  std::vector<TF_Operation*> consts;
  for (int i = 0; i < kConsts; ++i) {
    consts.push_back(ScalarConst(graph, "c" + std::to_string(i), static_cast<float>(i), status));
    ASSERT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);
  }
  TF_Session* session = TF_NewSession(graph, nullptr, status);
  ASSERT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);

  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TF_Status* s = TF_NewStatus();
      for (int round = 0; round < 3; ++round) {
        // Every thread walks all signatures, from a different start.
        for (int k = 0; k < kConsts; ++k) {
          const int i = (k + t * kConsts / kThreads) % kConsts;
          TF_Output output{consts[i], 0};
          TF_Tensor* value = nullptr;
          TF_SessionRun(session, nullptr, nullptr, nullptr, 0, &output, &value, 1, nullptr, 0,
                        nullptr, s);
          if (TF_GetCode(s) != TF_OK || value == nullptr ||
              *static_cast<const float*>(TF_TensorData(value)) != static_cast<float>(i)) {
            ++failures[t];
          }
          TF_DeleteTensor(value);
        }
      }
      TF_DeleteStatus(s);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  TF_DeleteSession(session, status);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
}

}  // namespace
