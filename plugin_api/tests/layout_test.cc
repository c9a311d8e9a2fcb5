// Layout tests: the offsets and sizes of the ABI structs are part of the ABI. A change here is a
// breaking change (major bump) unless it only appends at the end of a struct.
#include <cstddef>

#include "gtest/gtest.h"
#include "tessera/plugin_api/plugin_api.h"

extern "C" int tessera_all_headers_compile_as_c(void);

namespace {

// x86-64 / aarch64 LP64 layouts.
static_assert(sizeof(void*) == 8, "layout tests assume an LP64 target");

// ABI 1.0, frozen: every field of every struct, and the size of each. Within major 1 a struct
// only grows at its end (a new minor appends fields and slots after the last one below), so these
// assertions stay true for as long as the major is 1.
// common.h
static_assert(offsetof(TSR_Extension, type) == 8);
static_assert(offsetof(TSR_Extension, next) == 16);
static_assert(sizeof(TSR_Extension) == 24);
static_assert(offsetof(TSR_TensorView, dtype) == 8);
static_assert(offsetof(TSR_TensorView, rank) == 12);
static_assert(offsetof(TSR_TensorView, dims) == 16);
static_assert(offsetof(TSR_TensorView, data) == 24);
static_assert(offsetof(TSR_TensorView, byte_size) == 32);
static_assert(sizeof(TSR_TensorView) == 40);

// device.h
static_assert(offsetof(TSR_Device_Create_Args, ordinal) == 8);
static_assert(offsetof(TSR_Device_Create_Args, num_options) == 16);
static_assert(offsetof(TSR_Device_Create_Args, option_keys) == 24);
static_assert(offsetof(TSR_Device_Create_Args, option_values) == 32);
static_assert(sizeof(TSR_Device_Create_Args) == 40);
static_assert(offsetof(TSR_DeviceProperties, description) == 8);
static_assert(offsetof(TSR_DeviceProperties, memory_bytes) == 16);
static_assert(offsetof(TSR_DeviceProperties, compute_units) == 24);
static_assert(offsetof(TSR_DeviceProperties, memory_alignment) == 32);
static_assert(offsetof(TSR_DeviceProperties, name) == 40);
static_assert(offsetof(TSR_DeviceProperties, vendor) == 48);
static_assert(offsetof(TSR_DeviceProperties, compute_capability_major) == 56);
static_assert(offsetof(TSR_DeviceProperties, compute_capability_minor) == 60);
static_assert(offsetof(TSR_DeviceProperties, bus_id) == 64);
static_assert(offsetof(TSR_DeviceProperties, numa_node) == 72);
static_assert(offsetof(TSR_DeviceProperties, memory_kinds) == 76);
static_assert(offsetof(TSR_DeviceProperties, driver_version) == 80);
static_assert(sizeof(TSR_DeviceProperties) == 88);
static_assert(offsetof(TSR_Memory_Allocate_Args, size) == 8);
static_assert(offsetof(TSR_Memory_Allocate_Args, alignment) == 16);
static_assert(offsetof(TSR_Memory_Allocate_Args, kind) == 24);
static_assert(offsetof(TSR_Memory_Allocate_Args, ptr) == 32);
static_assert(sizeof(TSR_Memory_Allocate_Args) == 40);
static_assert(offsetof(TSR_Memory_Free_Args, ptr) == 8);
static_assert(offsetof(TSR_Memory_Free_Args, size) == 16);
static_assert(offsetof(TSR_Memory_Free_Args, kind) == 24);
static_assert(sizeof(TSR_Memory_Free_Args) == 32);
static_assert(offsetof(TSR_MemoryStats, bytes_in_use) == 8);
static_assert(offsetof(TSR_MemoryStats, peak_bytes_in_use) == 16);
static_assert(offsetof(TSR_MemoryStats, bytes_limit) == 24);
static_assert(offsetof(TSR_MemoryStats, bytes_reserved) == 32);
static_assert(offsetof(TSR_MemoryStats, num_allocations) == 40);
static_assert(sizeof(TSR_MemoryStats) == 48);
static_assert(offsetof(TSR_Stream_Create_Args, kind) == 8);
static_assert(offsetof(TSR_Stream_Create_Args, priority) == 12);
static_assert(offsetof(TSR_Stream_Create_Args, stream) == 16);
static_assert(sizeof(TSR_Stream_Create_Args) == 24);
static_assert(offsetof(TSR_DeviceTypeRegistration, extension_start) == 8);
static_assert(offsetof(TSR_DeviceTypeRegistration, device_type) == 16);
static_assert(offsetof(TSR_DeviceTypeRegistration, priority) == 24);
static_assert(offsetof(TSR_DeviceTypeRegistration, flags) == 28);
static_assert(offsetof(TSR_DeviceTypeRegistration, user_data) == 32);
static_assert(offsetof(TSR_DeviceTypeRegistration, GetDeviceCount) == 40);
static_assert(offsetof(TSR_DeviceTypeRegistration, GetDeviceCountForConfig) == 48);
static_assert(offsetof(TSR_DeviceTypeRegistration, Device_Create) == 56);
static_assert(offsetof(TSR_DeviceTypeRegistration, Device_Destroy) == 64);
static_assert(offsetof(TSR_DeviceTypeRegistration, Device_GetProperties) == 72);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memory_Allocate) == 80);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memory_Free) == 88);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memory_GetStats) == 96);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memcpy_HostToDevice) == 104);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memcpy_DeviceToHost) == 112);
static_assert(offsetof(TSR_DeviceTypeRegistration, Memcpy_DeviceToDevice) == 120);
static_assert(offsetof(TSR_DeviceTypeRegistration, Stream_Create) == 128);
static_assert(offsetof(TSR_DeviceTypeRegistration, Stream_Destroy) == 136);
static_assert(offsetof(TSR_DeviceTypeRegistration, Stream_Synchronize) == 144);
static_assert(offsetof(TSR_DeviceTypeRegistration, Stream_WaitEvent) == 152);
static_assert(offsetof(TSR_DeviceTypeRegistration, Event_Create) == 160);
static_assert(offsetof(TSR_DeviceTypeRegistration, Event_Destroy) == 168);
static_assert(offsetof(TSR_DeviceTypeRegistration, Event_Record) == 176);
static_assert(offsetof(TSR_DeviceTypeRegistration, Event_Query) == 184);
static_assert(offsetof(TSR_DeviceTypeRegistration, Event_Synchronize) == 192);
static_assert(sizeof(TSR_DeviceTypeRegistration) == 200);
static_assert(offsetof(TSR_DeviceProfilingExtension, Event_ElapsedMicros) == 24);
static_assert(sizeof(TSR_DeviceProfilingExtension) == 32);

// op.h
static_assert(offsetof(TSR_FuncAttr, name) == 8);
static_assert(offsetof(TSR_FuncAttr, num_attrs) == 16);
static_assert(offsetof(TSR_FuncAttr, attr_names) == 24);
static_assert(offsetof(TSR_FuncAttr, attr_values) == 32);
static_assert(sizeof(TSR_FuncAttr) == 40);
static_assert(offsetof(TSR_AttrValue, type) == 8);
static_assert(offsetof(TSR_AttrValue, i) == 16);
static_assert(offsetof(TSR_AttrValue, f) == 24);
static_assert(offsetof(TSR_AttrValue, b) == 28);
static_assert(offsetof(TSR_AttrValue, dtype) == 32);
static_assert(offsetof(TSR_AttrValue, s) == 40);
static_assert(offsetof(TSR_AttrValue, s_size) == 48);
static_assert(offsetof(TSR_AttrValue, shape_rank) == 56);
static_assert(offsetof(TSR_AttrValue, shape_dims) == 64);
static_assert(offsetof(TSR_AttrValue, tensor) == 72);
static_assert(offsetof(TSR_AttrValue, list_size) == 112);
static_assert(offsetof(TSR_AttrValue, list_i) == 120);
static_assert(offsetof(TSR_AttrValue, list_f) == 128);
static_assert(offsetof(TSR_AttrValue, list_b) == 136);
static_assert(offsetof(TSR_AttrValue, list_type) == 144);
static_assert(offsetof(TSR_AttrValue, list_s) == 152);
static_assert(offsetof(TSR_AttrValue, list_s_size) == 160);
static_assert(offsetof(TSR_AttrValue, list_shape_rank) == 168);
static_assert(offsetof(TSR_AttrValue, list_shape_dims) == 176);
static_assert(offsetof(TSR_AttrValue, list_tensor) == 184);
static_assert(offsetof(TSR_AttrValue, func) == 192);
static_assert(sizeof(TSR_AttrValue) == 200);
static_assert(offsetof(TSR_OpArg, name) == 8);
static_assert(offsetof(TSR_OpArg, dtype) == 16);
static_assert(offsetof(TSR_OpArg, type_attr) == 24);
static_assert(offsetof(TSR_OpArg, number_attr) == 32);
static_assert(offsetof(TSR_OpArg, type_list_attr) == 40);
static_assert(offsetof(TSR_OpArg, is_ref) == 48);
static_assert(sizeof(TSR_OpArg) == 56);
static_assert(offsetof(TSR_OpAttr, name) == 8);
static_assert(offsetof(TSR_OpAttr, type) == 16);
static_assert(offsetof(TSR_OpAttr, default_value) == 24);
static_assert(offsetof(TSR_OpAttr, allowed_types) == 32);
static_assert(offsetof(TSR_OpAttr, num_allowed_types) == 40);
static_assert(offsetof(TSR_OpAttr, has_minimum) == 48);
static_assert(offsetof(TSR_OpAttr, minimum) == 56);
static_assert(sizeof(TSR_OpAttr) == 64);

// kernel.h
static_assert(offsetof(TSR_TypeConstraint, attr_name) == 8);
static_assert(offsetof(TSR_TypeConstraint, dtypes) == 16);
static_assert(offsetof(TSR_TypeConstraint, num_dtypes) == 24);
static_assert(sizeof(TSR_TypeConstraint) == 32);
static_assert(offsetof(TSR_KernelRegistration, extension_start) == 8);
static_assert(offsetof(TSR_KernelRegistration, op_name) == 16);
static_assert(offsetof(TSR_KernelRegistration, device_type) == 24);
static_assert(offsetof(TSR_KernelRegistration, type_constraints) == 32);
static_assert(offsetof(TSR_KernelRegistration, num_type_constraints) == 40);
static_assert(offsetof(TSR_KernelRegistration, host_memory_args) == 48);
static_assert(offsetof(TSR_KernelRegistration, num_host_memory_args) == 56);
static_assert(offsetof(TSR_KernelRegistration, priority) == 64);
static_assert(offsetof(TSR_KernelRegistration, flags) == 68);
static_assert(offsetof(TSR_KernelRegistration, user_data) == 72);
static_assert(offsetof(TSR_KernelRegistration, Create) == 80);
static_assert(offsetof(TSR_KernelRegistration, Compute) == 88);
static_assert(offsetof(TSR_KernelRegistration, Compute_Async) == 96);
static_assert(offsetof(TSR_KernelRegistration, Destroy) == 104);
static_assert(sizeof(TSR_KernelRegistration) == 112);

// transport.h
static_assert(offsetof(TSR_TransportHandlers, handler_arg) == 8);
static_assert(offsetof(TSR_TransportHandlers, HandleCall) == 16);
static_assert(offsetof(TSR_TransportHandlers, HandleRecvTensor) == 24);
static_assert(sizeof(TSR_TransportHandlers) == 32);
static_assert(offsetof(TSR_Transport_Listen_Args, address) == 8);
static_assert(offsetof(TSR_Transport_Listen_Args, num_options) == 16);
static_assert(offsetof(TSR_Transport_Listen_Args, option_keys) == 24);
static_assert(offsetof(TSR_Transport_Listen_Args, option_values) == 32);
static_assert(offsetof(TSR_Transport_Listen_Args, handlers) == 40);
static_assert(sizeof(TSR_Transport_Listen_Args) == 48);
static_assert(offsetof(TSR_Transport_Connect_Args, address) == 8);
static_assert(offsetof(TSR_Transport_Connect_Args, num_options) == 16);
static_assert(offsetof(TSR_Transport_Connect_Args, option_keys) == 24);
static_assert(offsetof(TSR_Transport_Connect_Args, option_values) == 32);
static_assert(sizeof(TSR_Transport_Connect_Args) == 40);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, step_id) == 8);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, rendezvous_key) == 16);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, deadline_ms) == 24);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, allocate) == 32);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, allocate_arg) == 40);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, done) == 48);
static_assert(offsetof(TSR_Channel_RecvTensor_Args, done_arg) == 56);
static_assert(sizeof(TSR_Channel_RecvTensor_Args) == 64);
static_assert(offsetof(TSR_TransportRegistration, extension_start) == 8);
static_assert(offsetof(TSR_TransportRegistration, name) == 16);
static_assert(offsetof(TSR_TransportRegistration, capabilities) == 24);
static_assert(offsetof(TSR_TransportRegistration, user_data) == 32);
static_assert(offsetof(TSR_TransportRegistration, Server_Start) == 40);
static_assert(offsetof(TSR_TransportRegistration, Server_Address) == 48);
static_assert(offsetof(TSR_TransportRegistration, Server_Stop) == 56);
static_assert(offsetof(TSR_TransportRegistration, Channel_Create) == 64);
static_assert(offsetof(TSR_TransportRegistration, Channel_Destroy) == 72);
static_assert(offsetof(TSR_TransportRegistration, Channel_Call) == 80);
static_assert(offsetof(TSR_TransportRegistration, Channel_RecvTensor) == 88);
static_assert(offsetof(TSR_TransportRegistration, Reply_Send) == 96);
static_assert(offsetof(TSR_TransportRegistration, Reply_SendTensor) == 104);
static_assert(offsetof(TSR_TransportRegistration, Reply_IsCancelled) == 112);
static_assert(sizeof(TSR_TransportRegistration) == 120);
static_assert(offsetof(TSR_TransportRmaExtension, Memory_Register) == 24);
static_assert(offsetof(TSR_TransportRmaExtension, Memory_Deregister) == 32);
static_assert(sizeof(TSR_TransportRmaExtension) == 40);

// plugin.h
static_assert(offsetof(TSR_HostApi, extension_start) == 8);
static_assert(offsetof(TSR_HostApi, abi_version_major) == 16);
static_assert(offsetof(TSR_HostApi, abi_version_minor) == 20);
static_assert(offsetof(TSR_HostApi, host_version) == 24);
static_assert(offsetof(TSR_HostApi, Status_Create) == 32);
static_assert(offsetof(TSR_HostApi, Status_Destroy) == 40);
static_assert(offsetof(TSR_HostApi, Status_GetCode) == 48);
static_assert(offsetof(TSR_HostApi, Status_GetMessage) == 56);
static_assert(offsetof(TSR_HostApi, Log) == 64);
static_assert(offsetof(TSR_HostApi, HostMemory_Allocate) == 72);
static_assert(offsetof(TSR_HostApi, HostMemory_Free) == 80);
static_assert(offsetof(TSR_HostApi, Registrar_RegisterDeviceType) == 88);
static_assert(offsetof(TSR_HostApi, Registrar_RegisterOp) == 96);
static_assert(offsetof(TSR_HostApi, Registrar_RegisterKernel) == 104);
static_assert(offsetof(TSR_HostApi, Registrar_RegisterTransport) == 112);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_Create) == 120);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_Destroy) == 128);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_AddInput) == 136);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_AddOutput) == 144);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_AddAttr) == 152);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_SetFlags) == 160);
static_assert(offsetof(TSR_HostApi, OpDefBuilder_SetShapeFn) == 168);
static_assert(offsetof(TSR_HostApi, ShapeContext_NumInputs) == 176);
static_assert(offsetof(TSR_HostApi, ShapeContext_NumOutputs) == 184);
static_assert(offsetof(TSR_HostApi, ShapeContext_GetInputShape) == 192);
static_assert(offsetof(TSR_HostApi, ShapeContext_GetInputConstant) == 200);
static_assert(offsetof(TSR_HostApi, ShapeContext_GetAttr) == 208);
static_assert(offsetof(TSR_HostApi, ShapeContext_SetOutputShape) == 216);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetNodeName) == 224);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetAttr) == 232);
static_assert(offsetof(TSR_HostApi, KernelConstruction_NumInputs) == 240);
static_assert(offsetof(TSR_HostApi, KernelConstruction_NumOutputs) == 248);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetInputType) == 256);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetOutputType) == 264);
static_assert(offsetof(TSR_HostApi, KernelConstruction_GetDevice) == 272);
static_assert(offsetof(TSR_HostApi, KernelContext_GetNodeName) == 280);
static_assert(offsetof(TSR_HostApi, KernelContext_GetStepId) == 288);
static_assert(offsetof(TSR_HostApi, KernelContext_NumInputs) == 296);
static_assert(offsetof(TSR_HostApi, KernelContext_NumOutputs) == 304);
static_assert(offsetof(TSR_HostApi, KernelContext_GetInput) == 312);
static_assert(offsetof(TSR_HostApi, KernelContext_AllocateOutput) == 320);
static_assert(offsetof(TSR_HostApi, KernelContext_ForwardInputOrAllocateOutput) == 328);
static_assert(offsetof(TSR_HostApi, KernelContext_SetOutputFromInput) == 336);
static_assert(offsetof(TSR_HostApi, KernelContext_AllocateTemp) == 344);
static_assert(offsetof(TSR_HostApi, KernelContext_GetDevice) == 352);
static_assert(offsetof(TSR_HostApi, KernelContext_GetStream) == 360);
static_assert(offsetof(TSR_HostApi, KernelContext_GetThreadPool) == 368);
static_assert(offsetof(TSR_HostApi, ThreadPool_NumThreads) == 376);
static_assert(offsetof(TSR_HostApi, ThreadPool_CurrentThreadId) == 384);
static_assert(offsetof(TSR_HostApi, ThreadPool_Schedule) == 392);
static_assert(offsetof(TSR_HostApi, ThreadPool_ParallelFor) == 400);
static_assert(offsetof(TSR_HostApi, KernelContext_IsCancelled) == 408);
static_assert(offsetof(TSR_HostApi, KernelContext_AllocateStringOutput) == 416);
static_assert(sizeof(TSR_HostApi) == 424);
static_assert(offsetof(TSR_PluginInfo, name) == 8);
static_assert(offsetof(TSR_PluginInfo, version) == 16);
static_assert(offsetof(TSR_PluginInfo, abi_version_major) == 24);
static_assert(offsetof(TSR_PluginInfo, abi_version_minor) == 28);
static_assert(offsetof(TSR_PluginInfo, min_host_abi_version_minor) == 32);
static_assert(sizeof(TSR_PluginInfo) == 40);
static_assert(offsetof(TSR_Plugin_Init_Args, host_abi_version_major) == 8);
static_assert(offsetof(TSR_Plugin_Init_Args, host_abi_version_minor) == 12);
static_assert(offsetof(TSR_Plugin_Init_Args, host) == 16);
static_assert(offsetof(TSR_Plugin_Init_Args, info) == 24);
static_assert(offsetof(TSR_Plugin_Init_Args, registrar) == 32);
static_assert(offsetof(TSR_Plugin_Init_Args, plugin_dir) == 40);
static_assert(sizeof(TSR_Plugin_Init_Args) == 48);

// The frozen prefix of the init arguments: readable by any host and any plugin of any major.
static_assert(offsetof(TSR_Plugin_Init_Args, struct_size) == 0);

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

TEST(PluginApiLayoutTest, EnumValuesAreFrozen) {
  EXPECT_EQ(TSR_ABI_VERSION_MAJOR, 1);
  EXPECT_EQ(TSR_EXTENSION_TYPE_DEVICE_PROFILING, 1);
  EXPECT_EQ(TSR_EXTENSION_TYPE_TRANSPORT_RMA, 2);
  EXPECT_EQ(TSR_MEMORY_KIND_DEVICE, 0);
  EXPECT_EQ(TSR_MEMORY_KIND_HOST_PINNED, 1);
  EXPECT_EQ(TSR_MEMORY_KIND_MANAGED, 2);
  EXPECT_EQ(TSR_STREAM_KIND_COMPUTE, 0);
  EXPECT_EQ(TSR_STREAM_KIND_DEVICE_TO_DEVICE, 3);
  EXPECT_EQ(TSR_ATTR_TYPE_LIST_SHAPE, 13);
  EXPECT_EQ(TSR_ATTR_TYPE_FUNC, 14);
  EXPECT_EQ(TSR_ATTR_TYPE_LIST_TENSOR, 15);
  EXPECT_EQ(TSR_ATTR_TYPE_LIST_FUNC, 16);
  EXPECT_EQ(TSR_STRING_OFFSETS_SIZE(3), 32u);
}

TEST(PluginApiLayoutTest, StructHasFieldToleratesSmallerWriters) {
  TSR_TensorView view{};
  view.struct_size = TSR_STRUCT_SIZE(TSR_TensorView, rank);
  EXPECT_TRUE(TSR_STRUCT_HAS_FIELD(&view, TSR_TensorView, rank));
  EXPECT_FALSE(TSR_STRUCT_HAS_FIELD(&view, TSR_TensorView, data));
}

}  // namespace
