// Loads the built CPU plugin with FakeHost (no host library) and checks its device, its
// registrations, a few kernels' numbers and its refusals.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/testing/cpu_plugin_host.h"
#include "plugins/cpu/testing/fake_host.h"

#if defined(__SANITIZE_ADDRESS__)
// The out-of-memory test asks for more than AddressSanitizer's allocator allows: let it fail
// with NULL (as the system allocator does) instead of aborting.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace tessera::cpu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

FakeTensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return FakeTensor::Make(TSR_DTYPE_FLOAT, std::move(dims), values);
}
FakeTensor Ints(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
  return FakeTensor::Make(TSR_DTYPE_INT32, std::move(dims), values);
}
FakeAttrs TypeT(TSR_DataType dtype) { return {{"T", FakeAttr::Type(dtype)}}; }

const TSR_DeviceTypeRegistration& CpuDeviceType() { return CpuPluginHost().device_types().at(0); }

TEST(CpuPluginSmokeTest, ReportsItsInfo) {
  const TSR_PluginInfo& info = CpuPluginHost().plugin_info();
  EXPECT_STREQ(info.name, "cpu");
  EXPECT_STREQ(info.version, "0.1.0");
  EXPECT_EQ(info.abi_version_major, TSR_ABI_VERSION_MAJOR);
  EXPECT_EQ(info.abi_version_minor, TSR_ABI_VERSION_MINOR);
  EXPECT_EQ(info.min_host_abi_version_minor, 0u);
}

TEST(CpuPluginSmokeTest, RegistersOneSynchronousHostMemoryCpuDevice) {
  ASSERT_EQ(CpuPluginHost().device_types().size(), 1u);
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  EXPECT_STREQ(r.device_type, "CPU");
  EXPECT_EQ(r.priority, 60);
  EXPECT_EQ(r.flags, static_cast<uint32_t>(TSR_DEVICE_FLAG_HOST_MEMORY));
  EXPECT_EQ(r.Stream_Create, nullptr);
  EXPECT_EQ(r.Event_Create, nullptr);
  int32_t count = 0;
  EXPECT_EQ(FakeHost::Code(r.GetDeviceCount(r.user_data, &count), nullptr), TSR_CODE_OK);
  EXPECT_EQ(count, 1);
}

TSR_Status* Allocate(TSR_Device* device, size_t size, size_t alignment, void** ptr,
                     int32_t kind = TSR_MEMORY_KIND_DEVICE) {
  TSR_Memory_Allocate_Args args{};
  args.struct_size = sizeof(args);
  args.size = size;
  args.alignment = alignment;
  args.kind = kind;
  args.ptr = reinterpret_cast<void*>(1);
  TSR_Status* status = CpuDeviceType().Memory_Allocate(device, &args);
  *ptr = args.ptr;
  return status;
}

TSR_Status* Free(TSR_Device* device, void* ptr, size_t size) {
  TSR_Memory_Free_Args args{};
  args.struct_size = sizeof(args);
  args.ptr = ptr;
  args.size = size;
  return CpuDeviceType().Memory_Free(device, &args);
}

TSR_Device* CreateCpu0() {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device_Create_Args args{};
  args.struct_size = sizeof(args);
  args.ordinal = 0;
  TSR_Device* device = nullptr;
  EXPECT_EQ(FakeHost::Code(r.Device_Create(r.user_data, &args, &device), nullptr), TSR_CODE_OK);
  return device;
}

TEST(CpuPluginSmokeTest, AllocatesAlignedMemoryAndCopies) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device* device = CreateCpu0();
  ASSERT_NE(device, nullptr);
  TSR_DeviceProperties properties{};
  properties.struct_size = sizeof(properties);
  ASSERT_EQ(FakeHost::Code(r.Device_GetProperties(device, &properties), nullptr), TSR_CODE_OK);
  EXPECT_EQ(properties.memory_alignment, 64u);
  EXPECT_THAT(properties.description, HasSubstr("CPU:0"));
  for (size_t size : {size_t{0}, size_t{1}, size_t{100}, size_t{1} << 20}) {
    void* ptr = nullptr;
    ASSERT_EQ(FakeHost::Code(Allocate(device, size, 0, &ptr), nullptr), TSR_CODE_OK);
    ASSERT_NE(ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
    EXPECT_EQ(FakeHost::Code(Free(device, ptr, size), nullptr), TSR_CODE_OK);
  }
  void* ptr = nullptr;
  ASSERT_EQ(FakeHost::Code(Allocate(device, 16, 256, &ptr), nullptr), TSR_CODE_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 256, 0u);
  const char src[16] = "fifteen chars!!";
  char back[16] = {};
  EXPECT_EQ(FakeHost::Code(r.Memcpy_HostToDevice(device, nullptr, ptr, src, 16), nullptr),
            TSR_CODE_OK);
  EXPECT_EQ(FakeHost::Code(r.Memcpy_DeviceToHost(device, nullptr, back, ptr, 16), nullptr),
            TSR_CODE_OK);
  EXPECT_STREQ(back, src);
  EXPECT_EQ(FakeHost::Code(Free(device, ptr, 16), nullptr), TSR_CODE_OK);
  EXPECT_EQ(FakeHost::Code(Free(device, nullptr, 0), nullptr), TSR_CODE_OK);
  r.Device_Destroy(device);
  r.Device_Destroy(nullptr);
}

TEST(CpuPluginSmokeTest, FreedLargeBlocksAreHandedOutAgain) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "skipped: AddressSanitizer builds keep no freed blocks";
#endif
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device* device = CreateCpu0();
  constexpr size_t kSize = (size_t{3} << 20) + 10;
  void* first = nullptr;
  ASSERT_EQ(FakeHost::Code(Allocate(device, kSize, 0, &first), nullptr), TSR_CODE_OK);
  static_cast<char*>(first)[kSize - 1] = 1;
  EXPECT_EQ(FakeHost::Code(Free(device, first, kSize), nullptr), TSR_CODE_OK);
  // The same size comes back from the kept block, also through another device handle.
  TSR_Device* other = CreateCpu0();
  void* second = nullptr;
  ASSERT_EQ(FakeHost::Code(Allocate(other, kSize, 0, &second), nullptr), TSR_CODE_OK);
  EXPECT_EQ(second, first);
  EXPECT_EQ(FakeHost::Code(Free(other, second, kSize), nullptr), TSR_CODE_OK);
  r.Device_Destroy(other);
  r.Device_Destroy(device);
}

TEST(CpuPluginSmokeTest, AllocationFailureIsResourceExhausted) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device* device = CreateCpu0();
  void* ptr = reinterpret_cast<void*>(1);
  std::string message;
  EXPECT_EQ(FakeHost::Code(Allocate(device, SIZE_MAX / 2, 0, &ptr), &message),
            TSR_CODE_RESOURCE_EXHAUSTED);
  EXPECT_THAT(message,
              HasSubstr("out of memory allocating " + std::to_string(SIZE_MAX / 2) + " bytes"));
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(FakeHost::Code(Allocate(device, 8, 48, &ptr), &message),
            TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("alignment 48"));
  EXPECT_EQ(FakeHost::Code(Allocate(device, 8, 0, &ptr, TSR_MEMORY_KIND_HOST_PINNED), &message),
            TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("CPU:0 has only device memory (kind 0); memory kind 1 was asked"));
  r.Device_Destroy(device);
}

TEST(CpuPluginSmokeTest, FreeRefusesPointersItDidNotHandOutAndWrongSizes) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device* device = CreateCpu0();
  void* ptr = nullptr;
  ASSERT_EQ(FakeHost::Code(Allocate(device, 256, 0, &ptr), nullptr), TSR_CODE_OK);
  std::string message;
  // Inside a block of its own (readable, 64-byte aligned), and unaligned.
  void* inside = static_cast<char*>(ptr) + 128;
  EXPECT_EQ(FakeHost::Code(Free(device, inside, 8), &message), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("is not memory the CPU device handed out"));
  EXPECT_EQ(FakeHost::Code(Free(device, static_cast<char*>(ptr) + 1, 8), &message),
            TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("is not memory the CPU device handed out"));
  EXPECT_EQ(FakeHost::Code(Free(device, ptr, 255), &message), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("holds 256 bytes but is freed as 255 bytes; it was not freed"));
  TSR_Memory_Free_Args pinned{};
  pinned.struct_size = sizeof(pinned);
  pinned.ptr = ptr;
  pinned.size = 256;
  pinned.kind = TSR_MEMORY_KIND_HOST_PINNED;
  EXPECT_EQ(FakeHost::Code(r.Memory_Free(device, &pinned), &message), TSR_CODE_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("memory kind 1, but the CPU device allocates only device memory"));
  // (A second free is not tried: the block's memory is gone, and reading its tag would be a
  // use after free; the tag catches a second free only while the block is still mapped.)
  EXPECT_EQ(FakeHost::Code(Free(device, ptr, 256), nullptr), TSR_CODE_OK);
  r.Device_Destroy(device);
}

TEST(CpuPluginSmokeTest, MemoryStatsFollowAllocations) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  ASSERT_NE(r.Memory_GetStats, nullptr);
  TSR_Device* device = CreateCpu0();
  TSR_MemoryStats before{};
  before.struct_size = sizeof(before);
  ASSERT_EQ(FakeHost::Code(r.Memory_GetStats(device, &before), nullptr), TSR_CODE_OK);
  void* ptr = nullptr;
  ASSERT_EQ(FakeHost::Code(Allocate(device, 1000, 0, &ptr), nullptr), TSR_CODE_OK);
  TSR_MemoryStats during{};
  during.struct_size = sizeof(during);
  ASSERT_EQ(FakeHost::Code(r.Memory_GetStats(device, &during), nullptr), TSR_CODE_OK);
  EXPECT_EQ(during.bytes_in_use, before.bytes_in_use + 1000);
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  EXPECT_EQ(during.num_allocations, before.num_allocations + 1);
  EXPECT_GT(during.bytes_limit, 0);
  ASSERT_EQ(FakeHost::Code(Free(device, ptr, 1000), nullptr), TSR_CODE_OK);
  TSR_MemoryStats after{};
  after.struct_size = sizeof(after);
  ASSERT_EQ(FakeHost::Code(r.Memory_GetStats(device, &after), nullptr), TSR_CODE_OK);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  r.Device_Destroy(device);
}

TEST(CpuPluginSmokeTest, RejectsDeviceOrdinalOutOfRange) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  TSR_Device_Create_Args args{};
  args.struct_size = sizeof(args);
  TSR_Device* device = nullptr;
  std::string message;
  for (int32_t ordinal : {256, -1}) {
    args.ordinal = ordinal;
    EXPECT_EQ(FakeHost::Code(r.Device_Create(r.user_data, &args, &device), &message),
              TSR_CODE_INVALID_ARGUMENT);
    EXPECT_THAT(message,
                HasSubstr("ordinal " + std::to_string(ordinal) + " is out of range [0, 256)"));
    EXPECT_EQ(device, nullptr);
  }
}

TEST(CpuPluginSmokeTest, AnswersTheConfiguredDeviceCount) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  ASSERT_NE(r.GetDeviceCountForConfig, nullptr);
  const std::vector<std::pair<int32_t, int32_t>> cases = {
      {-1, 1}, {1, 1}, {2, 2}, {8, 8}, {256, 256}};
  for (auto [requested, expected] : cases) {
    int32_t count = -7;
    EXPECT_EQ(FakeHost::Code(r.GetDeviceCountForConfig(r.user_data, requested, &count), nullptr),
              TSR_CODE_OK);
    EXPECT_EQ(count, expected) << "requested " << requested;
  }
  for (int32_t requested : {257, -2}) {
    int32_t count = -7;
    std::string message;
    EXPECT_EQ(FakeHost::Code(r.GetDeviceCountForConfig(r.user_data, requested, &count), &message),
              TSR_CODE_INVALID_ARGUMENT);
    EXPECT_THAT(message, HasSubstr("CPU device count " + std::to_string(requested) +
                                   " is outside [0, 256]"));
  }
}

TEST(CpuPluginSmokeTest, CreatesDevicesWithHigherOrdinals) {
  const TSR_DeviceTypeRegistration& r = CpuDeviceType();
  std::vector<TSR_Device*> devices;
  for (int32_t ordinal : {1, 7, 255}) {
    TSR_Device_Create_Args args{};
    args.struct_size = sizeof(args);
    args.ordinal = ordinal;
    TSR_Device* device = nullptr;
    ASSERT_EQ(FakeHost::Code(r.Device_Create(r.user_data, &args, &device), nullptr), TSR_CODE_OK);
    TSR_DeviceProperties properties{};
    properties.struct_size = sizeof(properties);
    ASSERT_EQ(FakeHost::Code(r.Device_GetProperties(device, &properties), nullptr), TSR_CODE_OK);
    EXPECT_THAT(properties.description, HasSubstr("CPU:" + std::to_string(ordinal) + " "));
    devices.push_back(device);
  }
  // Each device allocates and copies on its own, all in host memory.
  for (TSR_Device* device : devices) {
    void* ptr = nullptr;
    ASSERT_EQ(FakeHost::Code(Allocate(device, 8, 0, &ptr), nullptr), TSR_CODE_OK);
    const int64_t value = 42;
    ASSERT_EQ(FakeHost::Code(r.Memcpy_HostToDevice(device, nullptr, ptr, &value, 8), nullptr),
              TSR_CODE_OK);
    EXPECT_EQ(*static_cast<int64_t*>(ptr), 42);
    EXPECT_EQ(FakeHost::Code(Free(device, ptr, 8), nullptr), TSR_CODE_OK);
  }
  for (TSR_Device* device : devices) r.Device_Destroy(device);
}

TEST(CpuPluginSmokeTest, RegistersTheStandardKernels) {
  for (const char* op :
       {"Const",   "Identity",   "NoOp",    "Placeholder", "PlaceholderWithDefault",
        "Add",     "AddV2",      "Sub",     "Mul",         "RealDiv",
        "Maximum", "Minimum",    "Neg",     "Abs",         "Exp",
        "Log",     "Sqrt",       "Rsqrt",   "Square",      "Tanh",
        "Sigmoid", "Relu",       "Relu6",   "MatMul",      "BiasAdd",
        "Softmax", "Sum",        "Mean",    "Max",         "Reshape",
        "Shape",   "ExpandDims", "Squeeze", "ConcatV2",    "Cast",
        "Fill",    "ZerosLike",  "Pack"}) {
    EXPECT_NE(CpuPluginHost().FindKernel(op, {}), nullptr) << op;
  }
  const KernelRecord* reshape = CpuPluginHost().FindKernel("Reshape", {});
  EXPECT_THAT(reshape->host_memory_args, ElementsAre("shape"));
  EXPECT_TRUE(reshape->flags & TSR_KERNEL_FLAG_CHEAP);
  EXPECT_FALSE(CpuPluginHost().FindKernel("MatMul", {})->flags & TSR_KERNEL_FLAG_CHEAP);
  EXPECT_TRUE(CpuPluginHost().FindKernel("Const", {})->flags & TSR_KERNEL_FLAG_CONSTANT_OUTPUTS);
  EXPECT_THAT(CpuPluginHost().FindKernel("Sum", {})->host_memory_args, ElementsAre("reduction_indices"));
  EXPECT_THAT(CpuPluginHost().FindKernel("Shape", {})->host_memory_args, ElementsAre("output"));
  // TensorFlow registers no integer RealDiv on CPU.
  EXPECT_EQ(CpuPluginHost().FindKernel("RealDiv", TypeT(TSR_DTYPE_INT32)), nullptr);
  EXPECT_NE(CpuPluginHost().FindKernel("Identity", TypeT(TSR_DTYPE_BOOL)), nullptr);
}

TEST(CpuPluginSmokeTest, AddV2BroadcastsAndForwards) {
  RunResult r = CpuPluginHost().Run("AddV2", {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({3}, {10, 20, 30})},
                           TypeT(TSR_DTYPE_FLOAT));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].dims, ElementsAre(2, 3));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_EQ(r.forwarded_inputs[0], 0);

  r = CpuPluginHost().Run("AddV2", {Ints({}, {5}), Ints({2, 2}, {1, 2, 3, 4})}, TypeT(TSR_DTYPE_INT32));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<int32_t>(), ElementsAre(6, 7, 8, 9));

  r = CpuPluginHost().Run("AddV2", {Floats({2, 1}, {1, 2}), Floats({1, 3}, {10, 20, 30})},
                 TypeT(TSR_DTYPE_FLOAT));
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(11, 21, 31, 12, 22, 32));
}

TEST(CpuPluginSmokeTest, AddV2RejectsIncompatibleShapes) {
  RunResult r = CpuPluginHost().Run(
      "AddV2", {Floats({2, 3}, std::vector<float>(6)), Floats({4}, std::vector<float>(4))},
      TypeT(TSR_DTYPE_FLOAT));
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "Incompatible shapes: [2,3] vs. [4]");
}

TEST(CpuPluginSmokeTest, MatMulMultipliesWithTransposes) {
  FakeAttrs attrs = TypeT(TSR_DTYPE_FLOAT);
  attrs["transpose_a"] = FakeAttr::Bool(false);
  attrs["transpose_b"] = FakeAttr::Bool(false);
  RunResult r = CpuPluginHost().Run(
      "MatMul", {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({3, 2}, {7, 8, 9, 10, 11, 12})}, attrs);
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].dims, ElementsAre(2, 2));
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(58, 64, 139, 154));

  attrs["transpose_a"] = FakeAttr::Bool(true);
  attrs["transpose_b"] = FakeAttr::Bool(true);
  // a^T with a = [[1,4],[2,5],[3,6]], b^T with b = [[7,9,11],[8,10,12]].
  r = CpuPluginHost().Run(
      "MatMul", {Floats({3, 2}, {1, 4, 2, 5, 3, 6}), Floats({2, 3}, {7, 9, 11, 8, 10, 12})}, attrs);
  ASSERT_EQ(r.code, TSR_CODE_OK) << r.message;
  EXPECT_THAT(r.outputs[0].values<float>(), ElementsAre(58, 64, 139, 154));
}

TEST(CpuPluginSmokeTest, MatMulRejectsMismatchedInnerDimensions) {
  FakeAttrs attrs = TypeT(TSR_DTYPE_FLOAT);
  attrs["transpose_a"] = FakeAttr::Bool(false);
  attrs["transpose_b"] = FakeAttr::Bool(false);
  RunResult r = CpuPluginHost().Run(
      "MatMul", {Floats({2, 3}, std::vector<float>(6)), Floats({4, 5}, std::vector<float>(20))},
      attrs);
  EXPECT_EQ(r.code, TSR_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
}

TEST(CpuPluginSmokeTest, KernelsRejectMissingAttributes) {
  // MatMul without transpose_a: the SDK's attribute getter reports the host's NOT_FOUND.
  RunResult r =
      CpuPluginHost().Run("MatMul", {Floats({1, 1}, {1}), Floats({1, 1}, {1})}, TypeT(TSR_DTYPE_FLOAT));
  EXPECT_EQ(r.code, TSR_CODE_NOT_FOUND);
  EXPECT_THAT(r.message, HasSubstr("transpose_a"));
}

TEST(CpuPluginSmokeTest, RefusesHostTableWithoutMinorZeroSlots) {
  TSR_HostApi small = *CpuPluginHost().api();
  small.struct_size = TSR_STRUCT_SIZE(TSR_HostApi, KernelContext_GetThreadPool);
  FakeHost host;
  std::string message;
  EXPECT_EQ(host.LoadPlugin(TESSERA_CPU_PLUGIN_PATH, &message, &small),
            TSR_CODE_FAILED_PRECONDITION);
  EXPECT_THAT(message, HasSubstr("needs a host table of at least"));
  EXPECT_TRUE(host.kernels().empty());
}

TEST(CpuPluginSmokeTest, RegistersNothingForAnotherMajor) {
  FakeHost host;
  std::string message;
  // The plugin only fills its info; the host refuses from the versions it reports.
  EXPECT_EQ(host.LoadPlugin(TESSERA_CPU_PLUGIN_PATH, &message, nullptr, TSR_ABI_VERSION_MAJOR + 1),
            TSR_CODE_OK);
  EXPECT_EQ(host.plugin_info().abi_version_major, TSR_ABI_VERSION_MAJOR);
  EXPECT_TRUE(host.kernels().empty());
  EXPECT_TRUE(host.device_types().empty());
}

}  // namespace
}  // namespace tessera::cpu::testing
