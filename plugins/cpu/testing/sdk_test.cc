// Tests of the SDK's C++ helpers in process: kernels registered through RegisterKernel run
// through FakeHost, exceptions become statuses at the boundary, attribute getters check types,
// and InitializePlugin refuses hosts it cannot use.
#include "tessera/sdk/sdk.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/testing/fake_host.h"

namespace tessera::cpu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ThrowingKernel : public sdk::Kernel {
 public:
  sdk::Status Compute(sdk::KernelContext&) override { throw std::runtime_error("boom"); }
};

class ThrowingAnythingKernel : public sdk::Kernel {
 public:
  sdk::Status Compute(sdk::KernelContext&) override { throw 42; }
};

// input(5) on a node with one input: the host's OUT_OF_RANGE travels as a StatusException.
class BadInputKernel : public sdk::Kernel {
 public:
  sdk::Status Compute(sdk::KernelContext& ctx) override {
    ctx.input(5);
    return sdk::OkStatus();
  }
};

class FailingConstructionKernel : public sdk::Kernel {
 public:
  explicit FailingConstructionKernel(sdk::KernelConstruction& ctx) {
    ctx.SetStatus(sdk::InvalidArgument("refused by the constructor"));
    ctx.SetStatus(sdk::Internal("a second failure is ignored"));
  }
  sdk::Status Compute(sdk::KernelContext&) override { return sdk::OkStatus(); }
};

class ThrowingConstructionKernel : public sdk::Kernel {
 public:
  explicit ThrowingConstructionKernel(sdk::KernelConstruction&) {
    throw std::runtime_error("constructor exploded");
  }
  sdk::Status Compute(sdk::KernelContext&) override { return sdk::OkStatus(); }
};

// Reads one attribute of the type named by attr "kind" and writes it as a float vector.
class AttrKernel : public sdk::Kernel {
 public:
  explicit AttrKernel(sdk::KernelConstruction& ctx) {
    std::string kind;
    ctx.SetStatus(ctx.GetAttr("kind", &kind));
    if (kind == "int64") {
      int64_t v = 0;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      values_ = {static_cast<float>(v)};
    } else if (kind == "int32") {
      int32_t v = 0;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      values_ = {static_cast<float>(v)};
    } else if (kind == "bool") {
      bool v = false;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      values_ = {v ? 1.0f : 0.0f};
    } else if (kind == "list_int") {
      std::vector<int64_t> v;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      for (int64_t x : v) values_.push_back(static_cast<float>(x));
    } else if (kind == "list_type") {
      std::vector<TSR_DataType> v;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      for (TSR_DataType x : v) values_.push_back(static_cast<float>(x));
    } else if (kind == "type") {
      TSR_DataType v = TSR_DTYPE_INVALID;
      ctx.SetStatus(ctx.GetAttr("value", &v));
      values_ = {static_cast<float>(v)};
    }
  }
  sdk::Status Compute(sdk::KernelContext& ctx) override {
    sdk::TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(
        ctx.AllocateOutput(0, sdk::Shape{static_cast<int64_t>(values_.size())}, &out));
    for (size_t i = 0; i < values_.size(); ++i) out.data<float>()[i] = values_[i];
    return sdk::OkStatus();
  }

 private:
  std::vector<float> values_;
};

// ParallelFor covers [0, n) exactly once.
class ParallelKernel : public sdk::Kernel {
 public:
  sdk::Status Compute(sdk::KernelContext& ctx) override {
    sdk::TensorView in = ctx.input(0);
    sdk::TensorView out;
    TESSERA_SDK_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.shape(), &out));
    const float* x = in.data<const float>();
    float* y = out.data<float>();
    ctx.ParallelFor(in.num_elements(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = x[i] + 1;
    });
    return sdk::OkStatus();
  }
};

TSR_Status* InitSdkTestPlugin(const TSR_Plugin_Init_Args* args) {
  const sdk::PluginInitResult init = sdk::InitializePlugin(args, {"sdk-test", "1.2.3", 0});
  if (!init.proceed) return init.status;
  TSR_Registrar* r = args->registrar;
  auto register_all = [r]() -> sdk::Status {
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<ThrowingKernel>(r, "Throw", "CPU", {}));
    TESSERA_SDK_RETURN_IF_ERROR(
        sdk::RegisterKernel<ThrowingAnythingKernel>(r, "ThrowAnything", "CPU", {}));
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<BadInputKernel>(r, "BadInput", "CPU", {}));
    TESSERA_SDK_RETURN_IF_ERROR(
        sdk::RegisterKernel<FailingConstructionKernel>(r, "FailConstruct", "CPU", {}));
    TESSERA_SDK_RETURN_IF_ERROR(
        sdk::RegisterKernel<ThrowingConstructionKernel>(r, "ThrowConstruct", "CPU", {}));
    TESSERA_SDK_RETURN_IF_ERROR(sdk::RegisterKernel<AttrKernel>(r, "Attr", "CPU", {}));
    return sdk::RegisterKernel<ParallelKernel>(
        r, "Parallel", "CPU", {{"T", {TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE}}},
        TSR_KERNEL_FLAG_CHEAP | TSR_KERNEL_FLAG_ASYNC, 7, {"x"});
  };
  return register_all().Release();
}

TSR_Status* InitNeedingMinorSeven(const TSR_Plugin_Init_Args* args) {
  const sdk::PluginInitResult init = sdk::InitializePlugin(args, {"future", "2.0.0", 7});
  return init.status;
}

FakeHost& Host() {
  static FakeHost* host = [] {
    auto* h = new FakeHost();
    std::string message;
    EXPECT_EQ(h->InitPlugin(&InitSdkTestPlugin, &message), TSR_CODE_OK) << message;
    return h;
  }();
  return *host;
}

FakeTensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return FakeTensor::Make(TSR_DTYPE_FLOAT, std::move(dims), values);
}

TEST(SdkTest, RegisterKernelCopiesConstraintsFlagsAndHostMemoryArgs) {
  const KernelRecord* k = Host().FindKernel("Parallel", {});
  ASSERT_NE(k, nullptr);
  EXPECT_THAT(k->constraints.at("T"), ElementsAre(TSR_DTYPE_FLOAT, TSR_DTYPE_DOUBLE));
  EXPECT_THAT(k->host_memory_args, ElementsAre("x"));
  EXPECT_EQ(k->priority, 7);
  // The SDK builds synchronous kernels only: the async flag is dropped.
  EXPECT_EQ(k->flags, static_cast<uint32_t>(TSR_KERNEL_FLAG_CHEAP));
  EXPECT_EQ(Host().plugin_info().min_host_abi_version_minor, 0u);
  EXPECT_STREQ(Host().plugin_info().version, "1.2.3");
}

TEST(SdkTest, ParallelForCoversEveryElementOnce) {
  std::vector<float> values(1001);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  RunResult r = Host().Run("Parallel", {Floats({1001}, values)}, {});
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  std::vector<float> out = r.outputs[0].values<float>();
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], values[i] + 1) << i;
}

TEST(SdkTest, ExceptionInComputeBecomesInternal) {
  RunResult r = Host().Run("Throw", {}, {});
  EXPECT_EQ(r.code, TSR_CODE_INTERNAL);
  EXPECT_THAT(r.message, HasSubstr("computing of node 'node'"));
  EXPECT_THAT(r.message, HasSubstr("threw an exception: boom"));
  r = Host().Run("ThrowAnything", {}, {});
  EXPECT_EQ(r.code, TSR_CODE_INTERNAL);
  EXPECT_THAT(r.message, HasSubstr("threw an unknown exception"));
}

TEST(SdkTest, StatusExceptionKeepsItsCode) {
  RunResult r = Host().Run("BadInput", {Floats({1}, {1})}, {});
  EXPECT_EQ(r.code, TSR_CODE_OUT_OF_RANGE);
  EXPECT_THAT(r.message, HasSubstr("input index 5 out of range"));
}

TEST(SdkTest, ConstructionFailureIsReturnedFirstWins) {
  RunResult r = Host().Run("FailConstruct", {}, {});
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "refused by the constructor");
}

TEST(SdkTest, ExceptionInConstructorBecomesInternal) {
  RunResult r = Host().Run("ThrowConstruct", {}, {});
  EXPECT_EQ(r.code, TSR_CODE_INTERNAL);
  EXPECT_THAT(r.message, HasSubstr("creating the kernel of node 'node' (ThrowConstruct)"));
  EXPECT_THAT(r.message, HasSubstr("constructor exploded"));
}

RunResult RunAttr(const std::string& kind, FakeAttr value) {
  return Host().Run("Attr", {}, {{"kind", FakeAttr::String(kind)}, {"value", std::move(value)}});
}

TEST(SdkTest, GettersReadEveryAttributeType) {
  RunResult r = RunAttr("int64", FakeAttr::Int(-5));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(-5));
  r = RunAttr("int32", FakeAttr::Int(9));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(9));
  r = RunAttr("bool", FakeAttr::Bool(true));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(1));
  r = RunAttr("list_int", FakeAttr::IntList({3, 4}));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(3, 4));
  r = RunAttr("type", FakeAttr::Type(TSR_DTYPE_INT64));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(static_cast<float>(TSR_DTYPE_INT64)));
  // An empty list carries no element type: it reads as any list.
  r = RunAttr("list_type", FakeAttr::IntList({}));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_TRUE(r.outputs[0].values<float>().empty());
}

TEST(SdkTest, GetterRejectsAttributeOfAnotherType) {
  RunResult r = RunAttr("bool", FakeAttr::Int(1));
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "attribute 'value' of node 'node' is a int, expected bool");
  r = RunAttr("list_type", FakeAttr::IntList({1}));
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "attribute 'value' of node 'node' is a list(int), expected list(type)");
  r = RunAttr("list_int", FakeAttr::Int(1));
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(r.message, HasSubstr("expected list(int)"));
}

TEST(SdkTest, GetterRejectsInt32Overflow) {
  RunResult r = RunAttr("int32", FakeAttr::Int(int64_t{1} << 40));
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(r.message, HasSubstr("is 1099511627776, which does not fit in int32"));
}

TEST(SdkTest, GetterReportsMissingAttribute) {
  RunResult r = Host().Run("Attr", {}, {{"kind", FakeAttr::String("int64")}});
  EXPECT_EQ(r.code, TSR_CODE_NOT_FOUND);
  EXPECT_THAT(r.message, HasSubstr("no attribute 'value'"));
}

TEST(SdkTest, InitializePluginRefusesOlderHostMinor) {
  FakeHost host;
  std::string message;
  EXPECT_EQ(host.InitPlugin(&InitNeedingMinorSeven, &message), TSR_CODE_FAILED_PRECONDITION);
  EXPECT_THAT(message, HasSubstr("plugin 'future' 2.0.0 needs host ABI >= " +
                                 std::to_string(TSR_ABI_VERSION_MAJOR) + ".7; this host is " +
                                 std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                 std::to_string(TSR_ABI_VERSION_MINOR)));
  EXPECT_EQ(host.plugin_info().min_host_abi_version_minor, 7u);
}

TEST(SdkTest, ShapeAndTypeHelpers) {
  sdk::Shape shape{2, 3};
  shape.InsertDim(1, 1);
  EXPECT_EQ(shape.DebugString(), "[2,1,3]");
  shape.RemoveDim(0);
  EXPECT_EQ(shape.DebugString(), "[1,3]");
  EXPECT_EQ(sdk::Shape().DebugString(), "[]");
  EXPECT_EQ(shape.num_elements(), 3);
  EXPECT_STREQ(sdk::DataTypeName(TSR_DTYPE_BFLOAT16), "bfloat16");
  EXPECT_EQ(sdk::DataTypeSize(TSR_DTYPE_COMPLEX128), 16u);
  EXPECT_EQ(sdk::DataTypeSize(TSR_DTYPE_STRING), 0u);
  sdk::Shape full{1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_THROW(full.AddDim(1), std::length_error);
}

}  // namespace
}  // namespace tessera::cpu::testing
