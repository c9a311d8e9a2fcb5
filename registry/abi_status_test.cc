// Tests of the conversion between TSR_Status and absl::Status.
#include "registry/abi_status.h"

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(AbiStatusTest, NullIsOk) { EXPECT_TRUE(FromAbiStatus(nullptr, "ctx").ok()); }

TEST(AbiStatusTest, KeepsCodeAndAddsContext) {
  absl::Status status = FromAbiStatus(AbiStatusCreate(TSR_CODE_NOT_FOUND, "no such device"),
                                      "plugin 'cpu' Device_Create");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "plugin 'cpu' Device_Create: no such device");
}

TEST(AbiStatusTest, InvalidCodeBecomesUnknown) {
  absl::Status status =
      FromAbiStatus(AbiStatusCreate(static_cast<TSR_Code>(99), "odd"), "plugin 'x' Init");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnknown);
  EXPECT_NE(status.message().find("status with invalid code 99"), absl::string_view::npos);
  TSR_Status* odd = AbiStatusCreate(static_cast<TSR_Code>(99), "odd");
  EXPECT_EQ(AbiStatusGetCode(odd), TSR_CODE_UNKNOWN);
  AbiStatusDestroy(odd);
}

TEST(AbiStatusTest, CreateWithOkIsNull) {
  EXPECT_EQ(AbiStatusCreate(TSR_CODE_OK, "fine"), nullptr);
  EXPECT_EQ(ToAbiStatus(absl::OkStatus()), nullptr);
}

TEST(AbiStatusTest, RoundTrip) {
  TSR_Status* status = ToAbiStatus(absl::ResourceExhaustedError("out of memory"));
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(AbiStatusGetCode(status), TSR_CODE_RESOURCE_EXHAUSTED);
  EXPECT_STREQ(AbiStatusGetMessage(status), "out of memory");
  absl::Status back = FromAbiStatus(status, "ctx");
  EXPECT_EQ(back.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(back.message(), "ctx: out of memory");
}

TEST(AbiStatusTest, AccessorsAcceptNull) {
  EXPECT_EQ(AbiStatusGetCode(nullptr), TSR_CODE_OK);
  EXPECT_STREQ(AbiStatusGetMessage(nullptr), "");
  AbiStatusDestroy(nullptr);
  TSR_Status* status = AbiStatusCreate(TSR_CODE_INTERNAL, nullptr);
  EXPECT_STREQ(AbiStatusGetMessage(status), "");
  AbiStatusDestroy(status);
}

}  // namespace
}  // namespace tessera
