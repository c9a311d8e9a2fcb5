// The SDK's address parsing (SplitHostPort), shared by every transport plugin.
#include "tessera/sdk/transport.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::sdk {
namespace {

TEST(SplitHostPortTest, SplitsNamesIPv4AndBracketedIPv6) {
  std::string host;
  int port = -1;
  EXPECT_EQ(SplitHostPort("localhost:8470", &host, &port), nullptr);
  EXPECT_EQ(host, "localhost");
  EXPECT_EQ(port, 8470);
  EXPECT_EQ(SplitHostPort("10.0.0.1:0", &host, &port), nullptr);
  EXPECT_EQ(host, "10.0.0.1");
  EXPECT_EQ(port, 0);
  EXPECT_EQ(SplitHostPort("[::1]:65535", &host, &port), nullptr);
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 65535);
}

TEST(SplitHostPortTest, SaysWhyAnAddressIsRefused) {
  std::string host;
  int port = 0;
  EXPECT_STREQ(SplitHostPort("localhost", &host, &port), "has no port");
  EXPECT_STREQ(SplitHostPort("[::1]", &host, &port), "has no port");
  EXPECT_STREQ(SplitHostPort("[::1:80", &host, &port), "has no closing ']'");
  EXPECT_STREQ(SplitHostPort("::1:80", &host, &port), "has an IPv6 host without brackets");
  EXPECT_STREQ(SplitHostPort(":80", &host, &port), "has no host");
  EXPECT_STREQ(SplitHostPort("host:", &host, &port), "has no numeric port");
  EXPECT_STREQ(SplitHostPort("host:8x", &host, &port), "has no numeric port");
  EXPECT_STREQ(SplitHostPort("host:123456", &host, &port), "has no numeric port");
  EXPECT_STREQ(SplitHostPort("host:65536", &host, &port), "has a port above 65535");
  EXPECT_STREQ(kHostPortForm, "(expected host:port, or [ipv6]:port)");
}

}  // namespace
}  // namespace tessera::sdk
