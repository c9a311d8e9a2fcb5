// Tests of registration validation and copying into specs (struct sizes, required slots).
#include "registry/specs.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

// Stores a raw integer in a C enum field, as a C plugin may.
template <typename Enum>
void SetRaw(Enum& field, int raw) {
  std::memcpy(&field, &raw, sizeof(raw));
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos) << status.message();
}

// ---- Device types ---------------------------------------------------------------------------
TSR_Status* Count(void*, int32_t* count) {
  *count = 1;
  return nullptr;
}
TSR_Status* Create(void*, const TSR_Device_Create_Args*, TSR_Device**) { return nullptr; }
void Destroy(TSR_Device*) {}
TSR_Status* Allocate(TSR_Device*, TSR_Memory_Allocate_Args*) { return nullptr; }
TSR_Status* Free(TSR_Device*, const TSR_Memory_Free_Args*) { return nullptr; }
TSR_Status* Copy(TSR_Device*, TSR_Stream*, void*, const void*, size_t) { return nullptr; }
TSR_Status* StreamCreate(TSR_Device*, TSR_Stream_Create_Args*) { return nullptr; }
void StreamDestroy(TSR_Device*, TSR_Stream*) {}
TSR_Status* StreamSync(TSR_Device*, TSR_Stream*) { return nullptr; }
TSR_Status* StreamWait(TSR_Device*, TSR_Stream*, TSR_Event*) { return nullptr; }
TSR_Status* EventCreate(TSR_Device*, TSR_Event**) { return nullptr; }
void EventDestroy(TSR_Device*, TSR_Event*) {}
TSR_Status* EventRecord(TSR_Device*, TSR_Event*, TSR_Stream*) { return nullptr; }
TSR_Status* EventQuery(TSR_Device*, TSR_Event*, bool*) { return nullptr; }
TSR_Status* EventSync(TSR_Device*, TSR_Event*) { return nullptr; }

TSR_DeviceTypeRegistration GoodDevice() {
  TSR_DeviceTypeRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.device_type = "FAKE_2";
  r.priority = 7;
  r.flags = TSR_DEVICE_FLAG_HOST_MEMORY;
  r.GetDeviceCount = Count;
  r.Device_Create = Create;
  r.Device_Destroy = Destroy;
  r.Memory_Allocate = Allocate;
  r.Memory_Free = Free;
  r.Memcpy_HostToDevice = Copy;
  r.Memcpy_DeviceToHost = Copy;
  r.Memcpy_DeviceToDevice = Copy;
  return r;
}

PluginOrigin Origin() { return PluginOrigin{"test", 3, nullptr}; }

TEST(DeviceTypeSpecTest, CopiesARegistration) {
  absl::StatusOr<DeviceTypeSpec> spec = MakeDeviceTypeSpec(GoodDevice(), Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->device_type, "FAKE_2");
  EXPECT_EQ(spec->priority, 7);
  EXPECT_EQ(spec->flags, TSR_DEVICE_FLAG_HOST_MEMORY);
  EXPECT_EQ(spec->registration.struct_size, sizeof(TSR_DeviceTypeRegistration));
  EXPECT_EQ(spec->registration.device_type, nullptr);
  EXPECT_EQ(spec->registration.Memory_Free, &Free);
  EXPECT_EQ(spec->origin.plugin_name, "test");
  EXPECT_TRUE(spec->active);
}

TEST(DeviceTypeSpecTest, SmallerStructLeavesMissingSlotsNull) {
  TSR_DeviceTypeRegistration r = GoodDevice();
  r.Stream_Create = StreamCreate;  // beyond the size the "older plugin" declares
  r.struct_size = TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, Memcpy_DeviceToDevice);
  absl::StatusOr<DeviceTypeSpec> spec = MakeDeviceTypeSpec(r, Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->registration.Stream_Create, nullptr);
  EXPECT_EQ(spec->registration.struct_size, sizeof(TSR_DeviceTypeRegistration));
}

TEST(DeviceTypeSpecTest, SmallerStructMissingRequiredSlotNamesIt) {
  TSR_DeviceTypeRegistration r = GoodDevice();
  r.struct_size = TSR_STRUCT_SIZE(TSR_DeviceTypeRegistration, Memory_Allocate);
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "required slot 'Memory_Free' is NULL");
}

TEST(DeviceTypeSpecTest, LargerStructTailIsIgnored) {
  struct Newer {
    TSR_DeviceTypeRegistration base;
    void* future_slot;
  } newer;
  newer.base = GoodDevice();
  newer.base.struct_size = sizeof(Newer);
  newer.future_slot = &newer;
  absl::StatusOr<DeviceTypeSpec> spec = MakeDeviceTypeSpec(newer.base, Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->registration.struct_size, sizeof(TSR_DeviceTypeRegistration));
}

TEST(DeviceTypeSpecTest, RefusesBadTypeName) {
  TSR_DeviceTypeRegistration r = GoodDevice();
  r.device_type = "fake";
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "device_type 'fake' does not match [A-Z][A-Z0-9_]*");
  r.device_type = nullptr;
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "device_type NULL");
}

TEST(DeviceTypeSpecTest, EveryRequiredSlotIsNamed) {
  struct Case {
    const char* slot;
    void (*clear)(TSR_DeviceTypeRegistration&);
  };
  const Case cases[] = {
      {"GetDeviceCount", [](TSR_DeviceTypeRegistration& r) { r.GetDeviceCount = nullptr; }},
      {"Device_Create", [](TSR_DeviceTypeRegistration& r) { r.Device_Create = nullptr; }},
      {"Device_Destroy", [](TSR_DeviceTypeRegistration& r) { r.Device_Destroy = nullptr; }},
      {"Memory_Allocate", [](TSR_DeviceTypeRegistration& r) { r.Memory_Allocate = nullptr; }},
      {"Memory_Free", [](TSR_DeviceTypeRegistration& r) { r.Memory_Free = nullptr; }},
      {"Memcpy_HostToDevice",
       [](TSR_DeviceTypeRegistration& r) { r.Memcpy_HostToDevice = nullptr; }},
      {"Memcpy_DeviceToHost",
       [](TSR_DeviceTypeRegistration& r) { r.Memcpy_DeviceToHost = nullptr; }},
      {"Memcpy_DeviceToDevice",
       [](TSR_DeviceTypeRegistration& r) { r.Memcpy_DeviceToDevice = nullptr; }},
  };
  for (const Case& c : cases) {
    TSR_DeviceTypeRegistration r = GoodDevice();
    c.clear(r);
    ExpectError(
        MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
        std::string("device type 'FAKE_2' registration: required slot '") + c.slot + "' is NULL");
  }
}

TEST(DeviceTypeSpecTest, StreamAndEventSlotsComeAllTogether) {
  TSR_DeviceTypeRegistration r = GoodDevice();
  r.Stream_Create = StreamCreate;
  r.Stream_Destroy = StreamDestroy;
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "slot 'Stream_Synchronize' is NULL but other slots of its group are set");
  r.Stream_Synchronize = StreamSync;
  r.Stream_WaitEvent = StreamWait;
  r.Event_Create = EventCreate;
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "slot 'Event_Destroy' is NULL");
  r.Event_Destroy = EventDestroy;
  r.Event_Record = EventRecord;
  r.Event_Query = EventQuery;
  ExpectError(MakeDeviceTypeSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "slot 'Event_Synchronize' is NULL");
  r.Event_Synchronize = EventSync;
  EXPECT_TRUE(MakeDeviceTypeSpec(r, Origin()).ok());
}

// ---- Kernels --------------------------------------------------------------------------------
TSR_Status* KernelCreate(void*, TSR_KernelConstruction*, void**) { return nullptr; }
TSR_Status* KernelCompute(void*, TSR_KernelContext*) { return nullptr; }
void KernelComputeAsync(void*, TSR_KernelContext*, TSR_KernelDoneFn, void*) {}
void KernelDestroy(void*) {}

const TSR_DataType kFloatInt[] = {TSR_DTYPE_FLOAT, TSR_DTYPE_INT32};
const char* const kHostArgs[] = {"shape"};

struct KernelFixture {
  TSR_TypeConstraint constraints[2];
  TSR_KernelRegistration r;
  KernelFixture() {
    std::memset(constraints, 0, sizeof(constraints));
    constraints[0] = {sizeof(TSR_TypeConstraint), "T", kFloatInt, 2};
    constraints[1] = {sizeof(TSR_TypeConstraint), "Tidx", kFloatInt + 1, 1};
    std::memset(&r, 0, sizeof(r));
    r.struct_size = sizeof(r);
    r.op_name = "MatMul";
    r.device_type = "CPU";
    r.type_constraints = constraints;
    r.num_type_constraints = 2;
    r.host_memory_args = kHostArgs;
    r.num_host_memory_args = 1;
    r.priority = 4;
    r.flags = TSR_KERNEL_FLAG_CHEAP;
    r.Create = KernelCreate;
    r.Compute = KernelCompute;
    r.Destroy = KernelDestroy;
  }
};

TEST(KernelSpecTest, CopiesARegistration) {
  KernelFixture k;
  absl::StatusOr<KernelSpec> spec = MakeKernelSpec(k.r, Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->op_name, "MatMul");
  EXPECT_EQ(spec->device_type, "CPU");
  EXPECT_EQ(spec->type_constraints.at("T"),
            (std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_INT32}));
  EXPECT_EQ(spec->type_constraints.at("Tidx"), std::vector<TSR_DataType>{TSR_DTYPE_INT32});
  EXPECT_EQ(spec->host_memory_args, std::vector<std::string>{"shape"});
  EXPECT_EQ(spec->priority, 4);
  EXPECT_FALSE(spec->is_async());
  EXPECT_EQ(spec->Describe(), "kernel for 'MatMul' from plugin 'test'");
}

TEST(KernelSpecTest, RefusesBadRegistrations) {
  struct Case {
    void (*mutate)(KernelFixture&);
    const char* expected;
  };
  const Case cases[] = {
      {[](KernelFixture& k) { k.r.op_name = nullptr; }, "op_name is NULL or empty"},
      {[](KernelFixture& k) { k.r.device_type = ""; }, "device_type is NULL or empty"},
      {[](KernelFixture& k) { k.r.type_constraints = nullptr; },
       "type_constraints is NULL but num_type_constraints is 2"},
      {[](KernelFixture& k) { k.constraints[1].attr_name = nullptr; },
       "type constraint 1 has no attr_name"},
      {[](KernelFixture& k) { k.constraints[0].num_dtypes = 0; },
       "type constraint on 'T' allows no dtypes"},
      {[](KernelFixture& k) { k.constraints[1].attr_name = "T"; }, "attr 'T' is constrained twice"},
      {[](KernelFixture& k) {
         static TSR_DataType bad[1];
         SetRaw(bad[0], 99);
         k.constraints[1].dtypes = bad;
       },
       "type constraint on 'Tidx' has invalid dtype 99"},
      {[](KernelFixture& k) { k.r.host_memory_args = nullptr; },
       "host_memory_args is NULL but num_host_memory_args is 1"},
      {[](KernelFixture& k) {
         static const char* const kNull[] = {nullptr};
         k.r.host_memory_args = kNull;
       },
       "host_memory_args[0] is NULL"},
      {[](KernelFixture& k) { k.r.Compute = nullptr; }, "required slot 'Compute' is NULL"},
      {[](KernelFixture& k) { k.r.flags |= TSR_KERNEL_FLAG_ASYNC; },
       "(async): required slot 'Compute_Async' is NULL"},
      {[](KernelFixture& k) { k.r.Destroy = nullptr; },
       "slot 'Destroy' is NULL but 'Create' is set"},
  };
  for (const Case& c : cases) {
    KernelFixture k;
    c.mutate(k);
    ExpectError(MakeKernelSpec(k.r, Origin()).status(), absl::StatusCode::kInvalidArgument,
                c.expected);
  }
}

TEST(KernelSpecTest, AsyncKernelNeedsOnlyComputeAsync) {
  KernelFixture k;
  k.r.flags = TSR_KERNEL_FLAG_ASYNC;
  k.r.Compute = nullptr;
  k.r.Compute_Async = KernelComputeAsync;
  k.r.Create = nullptr;
  absl::StatusOr<KernelSpec> spec = MakeKernelSpec(k.r, Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->is_async());
}

// ---- Transports ---------------------------------------------------------------------------
TSR_Status* ServerStart(void*, const TSR_Transport_Listen_Args*, TSR_TransportServer**) {
  return nullptr;
}
const char* ServerAddress(TSR_TransportServer*) { return ""; }
void ServerStop(TSR_TransportServer*) {}
TSR_Status* ChannelCreate(void*, const TSR_Transport_Connect_Args*, TSR_TransportChannel**) {
  return nullptr;
}
void ChannelDestroy(TSR_TransportChannel*) {}
void ChannelCall(TSR_TransportChannel*, const char*, const void*, size_t, int64_t, TSR_CallDoneFn,
                 void*) {}
void ChannelRecvTensor(TSR_TransportChannel*, const TSR_Channel_RecvTensor_Args*) {}
void ReplySend(TSR_TransportReply*, TSR_Status*, const void*, size_t) {}
void ReplySendTensor(TSR_TransportReply*, TSR_Status*, const TSR_TensorView*, bool, TSR_ReleaseFn,
                     void*) {}
TSR_Status* MemoryRegister(void*, void*, size_t, int32_t, TSR_MemoryRegion**) { return nullptr; }
void MemoryDeregister(void*, TSR_MemoryRegion*) {}

TSR_TransportRegistration GoodTransport() {
  TSR_TransportRegistration r;
  std::memset(&r, 0, sizeof(r));
  r.struct_size = sizeof(r);
  r.name = "grpc";
  r.capabilities = TSR_TRANSPORT_CAPABILITY_TLS;
  r.Server_Start = ServerStart;
  r.Server_Address = ServerAddress;
  r.Server_Stop = ServerStop;
  r.Channel_Create = ChannelCreate;
  r.Channel_Destroy = ChannelDestroy;
  r.Channel_Call = ChannelCall;
  r.Channel_RecvTensor = ChannelRecvTensor;
  r.Reply_Send = ReplySend;
  r.Reply_SendTensor = ReplySendTensor;
  return r;
}

TEST(TransportSpecTest, CopiesARegistration) {
  absl::StatusOr<TransportSpec> spec = MakeTransportSpec(GoodTransport(), Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "grpc");
  EXPECT_EQ(spec->capabilities, TSR_TRANSPORT_CAPABILITY_TLS);
  EXPECT_EQ(spec->registration.name, nullptr);
  EXPECT_EQ(spec->registration.Reply_Send, &ReplySend);
}

TEST(TransportSpecTest, RefusesBadRegistrations) {
  TSR_TransportRegistration r = GoodTransport();
  r.name = "gRPC";
  ExpectError(MakeTransportSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "name 'gRPC' does not match");
  r = GoodTransport();
  r.Channel_RecvTensor = nullptr;
  ExpectError(MakeTransportSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "transport 'grpc' registration: required slot 'Channel_RecvTensor' is NULL");
  r = GoodTransport();
  r.capabilities |= TSR_TRANSPORT_CAPABILITY_RMA;
  ExpectError(MakeTransportSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "transport 'grpc' registration: it has the RMA capability but no "
              "TSR_EXTENSION_TYPE_TRANSPORT_RMA extension");
  TSR_TransportRmaExtension rma{};
  rma.base.struct_size = sizeof(rma);
  rma.base.type = TSR_EXTENSION_TYPE_TRANSPORT_RMA;
  rma.Memory_Register = MemoryRegister;
  r.extension_start = &rma.base;
  ExpectError(MakeTransportSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "(RMA extension): required slot 'Memory_Deregister' is NULL");
  rma.Memory_Deregister = MemoryDeregister;
  absl::StatusOr<TransportSpec> spec = MakeTransportSpec(r, Origin());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->rma.Memory_Register, &MemoryRegister);
  EXPECT_EQ(spec->rma.base.next, nullptr);
  EXPECT_EQ(spec->registration.extension_start, nullptr);
  TSR_TransportRmaExtension twice = rma;
  rma.base.next = &twice.base;
  ExpectError(MakeTransportSpec(r, Origin()).status(), absl::StatusCode::kInvalidArgument,
              "extension type 2 appears twice");
}

// ---- Attribute values ---------------------------------------------------------------------
TSR_AttrValue Value(TSR_AttrType type) {
  TSR_AttrValue v;
  std::memset(&v, 0, sizeof(v));
  v.struct_size = sizeof(v);
  v.type = type;
  return v;
}

TEST(AttrDataTest, CopiesEveryKind) {
  TSR_AttrValue s = Value(TSR_ATTR_TYPE_STRING);
  s.s = "ab\0c";
  s.s_size = 4;
  EXPECT_EQ(AttrData::FromAbi(s)->s, std::string("ab\0c", 4));
  TSR_AttrValue i = Value(TSR_ATTR_TYPE_INT);
  i.i = -5;
  EXPECT_EQ(AttrData::FromAbi(i)->i, -5);
  TSR_AttrValue f = Value(TSR_ATTR_TYPE_FLOAT);
  f.f = 1.5f;
  EXPECT_EQ(AttrData::FromAbi(f)->f, 1.5f);
  TSR_AttrValue b = Value(TSR_ATTR_TYPE_BOOL);
  b.b = true;
  EXPECT_TRUE(AttrData::FromAbi(b)->b);
  TSR_AttrValue t = Value(TSR_ATTR_TYPE_TYPE);
  t.dtype = TSR_DTYPE_HALF;
  EXPECT_EQ(AttrData::FromAbi(t)->dtype, TSR_DTYPE_HALF);
  const int64_t dims[] = {2, -1};
  TSR_AttrValue shape = Value(TSR_ATTR_TYPE_SHAPE);
  shape.shape_rank = 2;
  shape.shape_dims = dims;
  EXPECT_EQ(AttrData::FromAbi(shape)->shape_dims, (std::vector<int64_t>{2, -1}));
  TSR_AttrValue li = Value(TSR_ATTR_TYPE_LIST_INT);
  li.list_size = 2;
  li.list_i = dims;
  EXPECT_EQ(AttrData::FromAbi(li)->list_i, (std::vector<int64_t>{2, -1}));
  const float floats[] = {0.5f};
  TSR_AttrValue lf = Value(TSR_ATTR_TYPE_LIST_FLOAT);
  lf.list_size = 1;
  lf.list_f = floats;
  EXPECT_EQ(AttrData::FromAbi(lf)->list_f, std::vector<float>{0.5f});
  const bool bools[] = {true, false};
  TSR_AttrValue lb = Value(TSR_ATTR_TYPE_LIST_BOOL);
  lb.list_size = 2;
  lb.list_b = bools;
  EXPECT_EQ(AttrData::FromAbi(lb)->list_b, (std::vector<bool>{true, false}));
  TSR_AttrValue lt = Value(TSR_ATTR_TYPE_LIST_TYPE);
  lt.list_size = 2;
  lt.list_type = kFloatInt;
  EXPECT_EQ(AttrData::FromAbi(lt)->list_type,
            (std::vector<TSR_DataType>{TSR_DTYPE_FLOAT, TSR_DTYPE_INT32}));
  EXPECT_TRUE(AttrData::FromAbi(Value(TSR_ATTR_TYPE_LIST_STRING)).ok());
  EXPECT_TRUE(*AttrData::FromAbi(i) == *AttrData::FromAbi(i));
  EXPECT_FALSE(*AttrData::FromAbi(i) == *AttrData::FromAbi(b));
}

TEST(AttrDataTest, RefusesInconsistentValues) {
  TSR_AttrValue s = Value(TSR_ATTR_TYPE_STRING);
  s.s_size = 3;
  ExpectError(AttrData::FromAbi(s).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type string: 's' is NULL but size is nonzero");
  TSR_AttrValue li = Value(TSR_ATTR_TYPE_LIST_INT);
  li.list_size = 1;
  ExpectError(AttrData::FromAbi(li).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type list(int): 'list_i' is NULL but list_size is nonzero");
  for (TSR_AttrType type :
       {TSR_ATTR_TYPE_LIST_FLOAT, TSR_ATTR_TYPE_LIST_BOOL, TSR_ATTR_TYPE_LIST_TYPE}) {
    TSR_AttrValue list = Value(type);
    list.list_size = 1;
    ExpectError(AttrData::FromAbi(list).status(), absl::StatusCode::kInvalidArgument,
                "is NULL but list_size is nonzero");
  }
  TSR_AttrValue shape = Value(TSR_ATTR_TYPE_SHAPE);
  shape.shape_rank = 99;
  ExpectError(AttrData::FromAbi(shape).status(), absl::StatusCode::kInvalidArgument,
              "rank 99 is outside [-1, 8]");
  shape.shape_rank = 2;
  ExpectError(AttrData::FromAbi(shape).status(), absl::StatusCode::kInvalidArgument,
              "'shape_dims' is NULL but shape_rank is positive");
  TSR_AttrValue odd = Value(TSR_ATTR_TYPE_INT);
  SetRaw(odd.type, 77);  // what a C plugin may store
  ExpectError(AttrData::FromAbi(odd).status(), absl::StatusCode::kInvalidArgument,
              "attr value has invalid type 77");
  TSR_AttrValue dtype = Value(TSR_ATTR_TYPE_TYPE);
  SetRaw(dtype.dtype, 100);
  ExpectError(AttrData::FromAbi(dtype).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type type: invalid dtype 100");
  TSR_DataType list[2] = {TSR_DTYPE_FLOAT, TSR_DTYPE_FLOAT};
  SetRaw(list[1], -4);
  TSR_AttrValue types = Value(TSR_ATTR_TYPE_LIST_TYPE);
  types.list_type = list;
  types.list_size = 2;
  ExpectError(AttrData::FromAbi(types).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type list(type): invalid dtype -4");
}

TEST(AttrDataTest, ListsOfStringsAndShapesAreCopied) {
  const char* strings[] = {"ab", "c"};
  const size_t sizes[] = {2, 1};
  TSR_AttrValue ls = Value(TSR_ATTR_TYPE_LIST_STRING);
  ls.list_size = 2;
  ls.list_s = strings;
  ls.list_s_size = sizes;
  absl::StatusOr<AttrData> data = AttrData::FromAbi(ls);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->list_s, (std::vector<std::string>{"ab", "c"}));
  ls.list_s = nullptr;
  ExpectError(AttrData::FromAbi(ls).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type list(string): 'list_s' is NULL but list_size is nonzero");

  const int64_t dims[] = {2, -1};
  const int32_t ranks[] = {2, -1};
  const int64_t* dim_lists[] = {dims, nullptr};
  TSR_AttrValue shapes = Value(TSR_ATTR_TYPE_LIST_SHAPE);
  shapes.list_size = 2;
  shapes.list_shape_rank = ranks;
  shapes.list_shape_dims = dim_lists;
  data = AttrData::FromAbi(shapes);
  ASSERT_TRUE(data.ok()) << data.status();
  ASSERT_EQ(data->list_shape.size(), 2u);
  EXPECT_EQ(data->list_shape[0].second, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(data->list_shape[1].first, -1);
  const int32_t bad_ranks[] = {2, 1};
  shapes.list_shape_rank = bad_ranks;
  ExpectError(AttrData::FromAbi(shapes).status(), absl::StatusCode::kInvalidArgument,
              "attr value of type list(shape): element 1 has rank 1 but no dims");
}

TEST(AttrDataTest, TensorAndFuncDefaultsAreUnimplemented) {
  for (TSR_AttrType type : {TSR_ATTR_TYPE_TENSOR, TSR_ATTR_TYPE_FUNC, TSR_ATTR_TYPE_LIST_TENSOR,
                            TSR_ATTR_TYPE_LIST_FUNC}) {
    ExpectError(AttrData::FromAbi(Value(type)).status(), absl::StatusCode::kUnimplemented,
                absl::StrCat("an op attribute of type ", AttrTypeName(type),
                             " cannot have a default value; declare it without one"));
  }
  EXPECT_STREQ(AttrTypeName(TSR_ATTR_TYPE_LIST_TYPE), "list(type)");
  EXPECT_STREQ(AttrTypeName(TSR_ATTR_TYPE_FUNC), "func");
}

}  // namespace
}  // namespace tessera
