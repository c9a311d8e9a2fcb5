// The GEMM layer against double-precision reference loops: every library of this build on its
// own, the block partition over test pools of 1 to 4 threads, batches, degenerate sizes, BLAS's
// beta rules, determinism, and no OpenMP thread ever started.
#include "plugins/cpu/kernels/gemm/gemm.h"

#include <dirent.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/kernels/gemm/gemm_backends.h"
#include "plugins/cpu/kernels/gemm/parallel.h"
#include "plugins/cpu/kernels/gemm/sanitizer_options.h"
#include "tessera/sdk/host_api.h"

// The ABI leaves the pool opaque; this test's pool starts one std::thread per extra shard.
struct TSR_ThreadPool {
  int threads = 1;
};

namespace tessera::cpu {
namespace {

thread_local int t_pool_thread_id = -1;

int32_t PoolNumThreads(const TSR_ThreadPool* pool) { return pool->threads; }
int32_t PoolCurrentThreadId(const TSR_ThreadPool*) { return t_pool_thread_id; }
void PoolParallelFor(TSR_ThreadPool*, int64_t total, int64_t, TSR_ParallelForFn fn, void* arg) {
  std::vector<std::thread> threads;
  for (int64_t shard = 1; shard < total; ++shard) {
    threads.emplace_back([=] {
      t_pool_thread_id = static_cast<int>(shard);
      fn(arg, shard, shard + 1);
    });
  }
  fn(arg, 0, std::min<int64_t>(total, 1));
  for (std::thread& t : threads) t.join();
}

class GemmTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static TSR_HostApi api{};
    api.struct_size = sizeof(TSR_HostApi);
    api.ThreadPool_NumThreads = &PoolNumThreads;
    api.ThreadPool_CurrentThreadId = &PoolCurrentThreadId;
    api.ThreadPool_ParallelFor = &PoolParallelFor;
    sdk::SetHostApi(&api);
  }
};

// A product with operands stored with padded rows, and its reference result.
template <typename T>
struct Problem {
  GemmArgs<T> args;
  std::vector<T> a, b, c;
  std::vector<double> expected;
  std::vector<double> scale;  // sum of |terms| per element, for the tolerance

  Problem(int64_t m, int64_t n, int64_t k, bool ta, bool tb, T alpha, T beta, int64_t pad = 3) {
    std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 17 + k + ta * 7 + tb * 3));
    std::uniform_real_distribution<double> dist(-1, 1);
    args.transpose_a = ta;
    args.transpose_b = tb;
    args.m = m;
    args.n = n;
    args.k = k;
    args.alpha = alpha;
    args.beta = beta;
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
    const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
    args.lda = a_cols + pad;
    args.ldb = b_cols + pad;
    args.ldc = n + pad;
    a.resize(static_cast<size_t>(std::max<int64_t>(1, a_rows * args.lda)));
    b.resize(static_cast<size_t>(std::max<int64_t>(1, b_rows * args.ldb)));
    c.resize(static_cast<size_t>(std::max<int64_t>(1, m * args.ldc)));
    for (T& v : a) v = static_cast<T>(dist(rng));
    for (T& v : b) v = static_cast<T>(dist(rng));
    for (T& v : c) v = static_cast<T>(dist(rng));
    args.a = a.data();
    args.b = b.data();
    args.c = c.data();
    expected.assign(c.begin(), c.end());
    scale.assign(c.size(), 1.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, abs_sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double av = ta ? a[p * args.lda + i] : a[i * args.lda + p];
          const double bv = tb ? b[j * args.ldb + p] : b[p * args.ldb + j];
          sum += av * bv;
          abs_sum += std::fabs(av * bv);
        }
        const size_t at = static_cast<size_t>(i * args.ldc + j);
        const double old = beta == T(0) ? 0.0 : static_cast<double>(c[at]) * beta;
        expected[at] = alpha * sum + old;
        scale[at] = std::fabs(alpha) * abs_sum + std::fabs(old) + 1;
      }
    }
  }

  // Checks C against the reference; padding columns must be untouched.
  void Check(const std::string& what) const {
    const double eps = std::numeric_limits<T>::epsilon();
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_NEAR(static_cast<double>(c[i]), expected[i], 8 * eps * scale[i] * (args.k + 2))
          << what << " element " << i << " m=" << args.m << " n=" << args.n << " k=" << args.k
          << " ta=" << args.transpose_a << " tb=" << args.transpose_b;
    }
  }
};

struct Size {
  int64_t m, n, k;
};
const std::vector<Size>& Sizes() {
  static const auto* sizes = new std::vector<Size>{
      {1, 1, 1},    {1, 7, 5},     {7, 1, 5},     {5, 6, 1},      {17, 33, 9},
      {64, 64, 64}, {100, 3, 250}, {3, 100, 250}, {129, 257, 65}, {300, 200, 100}};
  return *sizes;
}

int ThreadsOfThisProcess() {
  int count = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

// First in this file, before any other test has called into oneDNN or OpenBLAS.
TEST_F(GemmTest, StartsNoThreadOfItsOwn) {
  const int before = ThreadsOfThisProcess();
  if (before < 0) GTEST_SKIP() << "skipped: no /proc/self/task";
  TSR_ThreadPool pool{2};
  Problem<float> big(512, 512, 512, false, false, 1.0f, 0.0f);
  Gemm(big.args, &pool);
  Gemm(big.args, nullptr);
  Problem<double> big_double(256, 256, 256, true, true, 1.0, 0.0);
  Gemm(big_double.args, &pool);
  // The test pool's threads are joined when each call returns: anything left was started by a
  // library (an OpenMP team, a BLAS server).
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

template <typename T>
void CheckBackend(const std::string& name, bool (*backend)(const GemmArgs<T>&)) {
  for (const Size& s : Sizes()) {
    for (int t = 0; t < 4; ++t) {
      Problem<T> p(s.m, s.n, s.k, t & 1, t & 2, T(1.5), T(0.5));
      ASSERT_TRUE(backend(p.args)) << name;
      p.Check(name);
    }
  }
}

TEST_F(GemmTest, EveryLibraryOfThisBuildMatchesTheReference) {
  if (internal::HaveOneDnn()) {
    CheckBackend<float>("oneDNN", [](const GemmArgs<float>& a) { return internal::OneDnnGemm(a); });
  }
  if (internal::HaveOpenBlas()) {
    CheckBackend<float>("OpenBLAS float",
                        [](const GemmArgs<float>& a) { return internal::OpenBlasGemm(a); });
    CheckBackend<double>("OpenBLAS double",
                         [](const GemmArgs<double>& a) { return internal::OpenBlasGemm(a); });
  }
  CheckBackend<float>("Eigen float", [](const GemmArgs<float>& a) {
    internal::EigenGemm(a);
    return true;
  });
  CheckBackend<double>("Eigen double", [](const GemmArgs<double>& a) {
    internal::EigenGemm(a);
    return true;
  });
  EXPECT_FALSE(internal::OneDnnGemm(GemmArgs<double>()));
}

TEST_F(GemmTest, BackendNamesFollowTheBuild) {
  const char* float_name = GemmBackendName(TSR_DTYPE_FLOAT);
  const char* double_name = GemmBackendName(TSR_DTYPE_DOUBLE);
  EXPECT_STREQ(float_name, internal::HaveOneDnn()     ? "oneDNN"
                           : internal::HaveOpenBlas() ? "OpenBLAS"
                                                      : "Eigen");
  EXPECT_STREQ(double_name, internal::HaveOpenBlas() ? "OpenBLAS" : "Eigen");
}

template <typename T>
void CheckPartitions() {
  for (int threads = 1; threads <= 4; ++threads) {
    TSR_ThreadPool pool{threads};
    for (const Size& s : Sizes()) {
      for (int t = 0; t < 4; ++t) {
        Problem<T> p(s.m, s.n, s.k, t & 1, t & 2, T(1), T(0));
        Gemm(p.args, &pool);
        p.Check("threads=" + std::to_string(threads));
      }
    }
  }
}

TEST_F(GemmTest, PartitionsOverPoolsOfOneToFourThreadsMatchTheReference) {
  CheckPartitions<float>();
  CheckPartitions<double>();
}

// A cancellation that counts the questions and says stop from the `stop_at`-th on (0: never).
struct CountingCancellation {
  std::atomic<int> asked{0};
  int stop_at = 0;
  GemmCancellation Get(double flops_between_checks) {
    GemmCancellation cancellation;
    cancellation.cancelled = [](const void* arg) {
      auto* self = static_cast<CountingCancellation*>(const_cast<void*>(arg));
      const int n = self->asked.fetch_add(1) + 1;
      return self->stop_at > 0 && n >= self->stop_at;
    };
    cancellation.arg = this;
    cancellation.flops_between_checks = flops_between_checks;
    return cancellation;
  }
};

// With a cancellation, long products run in depth slices and row panels (every transpose, beta 0
// and 1, pools of 1 and 3 threads) and still match the reference; the layer asks before each
// piece.
TEST_F(GemmTest, ProductsCutForCancellationMatchTheReference) {
  for (int threads : {1, 3}) {
    TSR_ThreadPool pool{threads};
    for (const Size& s : {Size{300, 200, 1000}, Size{129, 257, 700}, Size{40, 33, 2000}}) {
      for (int t = 0; t < 4; ++t) {
        for (float beta : {0.0f, 1.0f}) {
          Problem<float> p(s.m, s.n, s.k, t & 1, t & 2, 1.5f, beta);
          CountingCancellation counter;
          // About 40 pieces per product.
          const double flops = 2.0 * s.m * s.n * s.k;
          ASSERT_TRUE(Gemm(p.args, &pool, counter.Get(flops / 40)));
          p.Check("cut for cancellation, threads=" + std::to_string(threads));
          EXPECT_GE(counter.asked.load(), 10) << s.m << "x" << s.n << "x" << s.k;
        }
      }
    }
  }
  Problem<double> p(300, 200, 1000, true, false, 1.0, 0.0);
  CountingCancellation counter;
  ASSERT_TRUE(Gemm(p.args, nullptr, counter.Get(1e6)));
  p.Check("double cut for cancellation");
}

// Once the cancellation says stop, the product ends at the next piece and says so; without one,
// nothing is asked and nothing is cut.
TEST_F(GemmTest, ACancelledProductStopsAtTheNextPiece) {
  TSR_ThreadPool pool{2};
  Problem<float> p(256, 256, 4096, false, false, 1.0f, 0.0f);
  CountingCancellation counter;
  counter.stop_at = 3;
  EXPECT_FALSE(Gemm(p.args, &pool, counter.Get(1e6)));
  // 2 * 256 * 256 * 4096 / 1e6 is about 537 pieces; it stopped after a handful.
  EXPECT_LT(counter.asked.load(), 20);

  Problem<float> batch(64, 64, 2048, false, false, 1.0f, 0.0f);
  const float* a[2] = {batch.args.a, batch.args.a};
  const float* b[2] = {batch.args.b, batch.args.b};
  std::vector<float> c2(batch.c.size());
  float* c[2] = {batch.args.c, c2.data()};
  CountingCancellation stopper;
  stopper.stop_at = 1;
  EXPECT_FALSE(BatchGemm(batch.args, 2, a, b, c, &pool, stopper.Get(1e5)));

  Problem<float> plain(300, 200, 1000, false, false, 1.0f, 0.0f);
  EXPECT_TRUE(Gemm(plain.args, &pool, GemmCancellation()));
  plain.Check("no cancellation");
}

TEST_F(GemmTest, NullPoolRunsOnTheCallingThread) {
  Problem<float> p(300, 200, 100, false, true, 2.0f, 1.0f);
  Gemm(p.args, nullptr);
  p.Check("null pool");
}

TEST_F(GemmTest, ZeroSizesAndBetaFollowBlas) {
  // k == 0: C = beta * C; beta == 0 overwrites even NaN.
  Problem<float> scaled(3, 4, 0, false, false, 1.0f, 2.0f);
  Gemm(scaled.args, nullptr);
  scaled.Check("k=0 beta=2");
  Problem<float> zeroed(3, 4, 0, false, false, 1.0f, 0.0f);
  std::fill(zeroed.c.begin(), zeroed.c.end(), std::numeric_limits<float>::quiet_NaN());
  Gemm(zeroed.args, nullptr);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(zeroed.c[i * zeroed.args.ldc + j], 0.0f);
  }
  Problem<double> nan_c(33, 17, 9, true, false, 1.0, 0.0);
  for (int64_t i = 0; i < 33; ++i) {
    for (int64_t j = 0; j < 17; ++j) {
      nan_c.c[i * nan_c.args.ldc + j] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  Gemm(nan_c.args, nullptr);
  nan_c.Check("NaN in C with beta=0");
  // alpha == 0 only scales.
  Problem<float> no_alpha(5, 5, 5, false, false, 0.0f, 0.5f);
  Gemm(no_alpha.args, nullptr);
  no_alpha.Check("alpha=0");
  // m == 0 or n == 0 touches nothing.
  for (Size s : {Size{0, 4, 3}, Size{4, 0, 3}}) {
    Problem<float> empty(s.m, s.n, s.k, false, false, 1.0f, 0.0f);
    const std::vector<float> before = empty.c;
    TSR_ThreadPool pool{2};
    Gemm(empty.args, &pool);
    EXPECT_EQ(empty.c, before);
  }
}

template <typename T>
void CheckBatch(int64_t batch, int threads, Size s, bool transpose_a) {
  // Products of one shape: sizes, transposes and leading dimensions are the same for all.
  std::vector<Problem<T>> problems;
  for (int64_t i = 0; i < batch; ++i) {
    problems.emplace_back(s.m, s.n, s.k, transpose_a, false, T(1), T(0));
  }
  std::vector<const T*> a, b;
  std::vector<T*> c;
  for (Problem<T>& p : problems) {
    a.push_back(p.a.data());
    b.push_back(p.b.data());
    c.push_back(p.c.data());
  }
  TSR_ThreadPool pool{threads};
  BatchGemm(problems[0].args, batch, a.data(), b.data(), c.data(), &pool);
  for (Problem<T>& p : problems) {
    p.Check("batch=" + std::to_string(batch) + " threads=" + std::to_string(threads));
  }
}

TEST_F(GemmTest, BatchesMatchTheReference) {
  for (int threads : {1, 2, 3}) {
    for (int64_t batch : {1, 2, 3, 5, 16}) {
      CheckBatch<float>(batch, threads, {96, 80, 70}, false);
      CheckBatch<double>(batch, threads, {9, 7, 5}, true);
      CheckBatch<float>(batch, threads, {1, 300, 200}, true);
    }
  }
}

TEST_F(GemmTest, BatchesMayShareOperands) {
  // One B (a broadcast batch dimension) for three products.
  Problem<float> p0(80, 96, 70, false, false, 1.0f, 0.0f);
  std::vector<float> c1(p0.c.size()), c2(p0.c.size());
  const float* a[3] = {p0.a.data(), p0.a.data(), p0.a.data()};
  const float* b[3] = {p0.b.data(), p0.b.data(), p0.b.data()};
  float* c[3] = {p0.c.data(), c1.data(), c2.data()};
  TSR_ThreadPool pool{2};
  BatchGemm(p0.args, 3, a, b, c, &pool);
  p0.Check("shared operands");
  for (int64_t i = 0; i < 80; ++i) {
    for (int64_t j = 0; j < 96; ++j) {
      const size_t at = static_cast<size_t>(i * p0.args.ldc + j);
      EXPECT_EQ(c1[at], p0.c[at]);
      EXPECT_EQ(c2[at], p0.c[at]);
    }
  }
}

TEST_F(GemmTest, ResultsAreTheSameBitForBitOnEveryRun) {
  for (int threads : {1, 2, 3}) {
    TSR_ThreadPool pool{threads};
    Problem<float> first(257, 129, 300, false, false, 1.0f, 0.0f);
    Problem<float> second(257, 129, 300, false, false, 1.0f, 0.0f);
    Gemm(first.args, &pool);
    Gemm(second.args, &pool);
    EXPECT_EQ(0, std::memcmp(first.c.data(), second.c.data(), first.c.size() * sizeof(float)));
  }
}

TEST_F(GemmTest, ParallelItemsRunsEveryItemOnceWithDistinctWorkers) {
  for (int threads : {1, 2, 4}) {
    TSR_ThreadPool pool{threads};
    std::vector<std::atomic<int>> seen(37);
    std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
    std::atomic<bool> overlap{false};
    ParallelItems(&pool, 37, 1e6, [&](int worker, int64_t item) {
      if (busy[static_cast<size_t>(worker)].fetch_add(1) != 0) overlap = true;
      seen[static_cast<size_t>(item)].fetch_add(1);
      busy[static_cast<size_t>(worker)].fetch_sub(1);
    });
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
    EXPECT_FALSE(overlap.load());
    EXPECT_EQ(ParallelWorkers(&pool, 37, 1e6), threads);
    EXPECT_EQ(ParallelWorkers(&pool, 1, 1e9), 1);
    // Tiny items stay on the calling thread.
    EXPECT_EQ(ParallelWorkers(&pool, 37, 1), 1);
  }
  EXPECT_EQ(UsableThreads(nullptr), 1);
}

}  // namespace
}  // namespace tessera::cpu
