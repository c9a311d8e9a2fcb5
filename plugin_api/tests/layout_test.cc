// Layout tests: the offsets and sizes of the ABI structs are part of the ABI. A change here is a
// breaking change (major bump) unless it only appends at the end of a struct.
#include <cstddef>

#include "gtest/gtest.h"
#include "tessera/plugin_api/plugin_api.h"

extern "C" int tessera_all_headers_compile_as_c(void);

namespace {

// x86-64 / aarch64 LP64 layouts.
static_assert(sizeof(void*) == 8, "layout tests assume an LP64 target");

static_assert(offsetof(TSR_TensorView, struct_size) == 0);
static_assert(offsetof(TSR_TensorView, dtype) == 8);
static_assert(offsetof(TSR_TensorView, rank) == 12);
static_assert(offsetof(TSR_TensorView, dims) == 16);
static_assert(offsetof(TSR_TensorView, data) == 24);
static_assert(offsetof(TSR_TensorView, byte_size) == 32);
static_assert(TSR_STRUCT_SIZE(TSR_TensorView, byte_size) == 40);

// The frozen prefix of the init arguments: readable by any host and any plugin of any major.
static_assert(offsetof(TSR_Plugin_Init_Args, struct_size) == 0);
static_assert(offsetof(TSR_Plugin_Init_Args, host_abi_version_major) == 8);
static_assert(offsetof(TSR_Plugin_Init_Args, host_abi_version_minor) == 12);
static_assert(offsetof(TSR_Plugin_Init_Args, host) == 16);
static_assert(offsetof(TSR_Plugin_Init_Args, info) == 24);

static_assert(offsetof(TSR_PluginInfo, struct_size) == 0);
static_assert(offsetof(TSR_PluginInfo, name) == 8);
static_assert(offsetof(TSR_PluginInfo, version) == 16);
static_assert(offsetof(TSR_PluginInfo, abi_version_major) == 24);
static_assert(offsetof(TSR_PluginInfo, abi_version_minor) == 28);
static_assert(offsetof(TSR_PluginInfo, min_host_abi_version_minor) == 32);

// Host table: the header fields, and the first slot of each group (slots only grow at the end).
static_assert(offsetof(TSR_HostApi, struct_size) == 0);
static_assert(offsetof(TSR_HostApi, extension_start) == 8);
static_assert(offsetof(TSR_HostApi, abi_version_major) == 16);
static_assert(offsetof(TSR_HostApi, abi_version_minor) == 20);
static_assert(offsetof(TSR_HostApi, host_version) == 24);
static_assert(offsetof(TSR_HostApi, Status_Create) == 32);
static_assert(offsetof(TSR_HostApi, Log) == 64);
static_assert(offsetof(TSR_HostApi, HostMemory_Allocate) == 72);
static_assert(offsetof(TSR_HostApi, Registrar_RegisterDeviceType) == 88);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_Create) == 120);
static_assert(offsetof(TSR_HostApi, ShapeContext_NumInputs) == 176);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetNodeName) == 224);
static_assert(offsetof(TSR_HostApi, KernelContext_GetNodeName) == 280);
static_assert(offsetof(TSR_HostApi, ThreadPool_NumThreads) == 376);
static_assert(TSR_STRUCT_SIZE(TSR_HostApi, ThreadPool_ParallelFor) == 408);
// Minor 3 appended one slot right after it.
static_assert(offsetof(TSR_HostApi, KernelContext_IsCancelled) == 408);
static_assert(TSR_STRUCT_SIZE(TSR_HostApi, KernelContext_IsCancelled) == 416);

static_assert(offsetof(TSR_DeviceTypeRegistration, device_type) == 16);
static_assert(offsetof(TSR_DeviceTypeRegistration, GetDeviceCount) == 40);
static_assert(TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, Event_Synchronize) == 176);
// Minor 2 appended one slot; a minor-1 plugin's struct_size (176) ends right before it.
static_assert(offsetof(TSR_DeviceTypeRegistration, GetDeviceCountForConfig) == 176);
static_assert(TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, GetDeviceCountForConfig) == 184);

static_assert(offsetof(TSR_KernelRegistration, op_name) == 16);
static_assert(offsetof(TSR_KernelRegistration, Create) == 80);
static_assert(TSR_STRUCT_SIZE(TSR_KernelRegistration, Destroy) == 112);

static_assert(TSR_STRUCT_SIZE(TSR_TransportRegistration, Memory_Deregister) == 128);
// Minor 3 appended one slot; a minor-2 transport's struct_size (128) ends right before it.
static_assert(offsetof(TSR_TransportRegistration, Reply_IsCancelled) == 128);
static_assert(TSR_STRUCT_SIZE(TSR_TransportRegistration, Reply_IsCancelled) == 136);

TEST(PluginApiLayoutTest, HeadersCompileAsC) {
  EXPECT_EQ(tessera_all_headers_compile_as_c(), 40 + TSR_ABI_VERSION_MAJOR);
}

TEST(PluginApiLayoutTest, DataTypesMatchTensorFlowNumbering) {
  EXPECT_EQ(TSR_DTYPE_FLOAT, 1);
  EXPECT_EQ(TSR_DTYPE_INT64, 9);
  EXPECT_EQ(TSR_DTYPE_BOOL, 10);
  EXPECT_EQ(TSR_DTYPE_BFLOAT16, 14);
  EXPECT_EQ(TSR_DTYPE_HALF, 19);
  EXPECT_EQ(TSR_DTYPE_UINT64, 23);
}

TEST(PluginApiLayoutTest, StatusCodesMatchAbseil) {
  EXPECT_EQ(TSR_CODE_INVALID_ARGUMENT, 3);
  EXPECT_EQ(TSR_CODE_FAILED_PRECONDITION, 9);
  EXPECT_EQ(TSR_CODE_UNAUTHENTICATED, 16);
}

TEST(PluginApiLayoutTest, StructHasFieldToleratesSmallerWriters) {
  TSR_TensorView view{};
  view.struct_size = TSR_STRUCT_SIZE(TSR_TensorView, rank);
  EXPECT_TRUE(TSR_STRUCT_HAS_FIELD(&view, TSR_TensorView, rank));
  EXPECT_FALSE(TSR_STRUCT_HAS_FIELD(&view, TSR_TensorView, data));
}

}  // namespace
