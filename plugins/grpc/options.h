// The gRPC transport's options and addresses: parsing the key/value options of Server_Start and
// Channel_Create, reading TLS files, and the gRPC settings every server and channel gets.
#ifndef TESSERA_PLUGINS_GRPC_OPTIONS_H_
#define TESSERA_PLUGINS_GRPC_OPTIONS_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "plugins/grpc/error.h"

namespace tessera::grpc_plugin {

// Keepalive: a peer that stops answering pings is noticed within about 15 seconds.
inline constexpr int kKeepaliveTimeMs = 10000;
inline constexpr int kKeepaliveTimeoutMs = 5000;

// The options both sides accept (an option of the other side is ignored):
//   tls_cert_file, tls_key_file  PEM certificate chain and private key (server: enables TLS;
//                                channel: the client certificate)
//   tls_ca_file                  PEM roots (server: requires and verifies client certificates;
//                                channel: verifies the server, enables TLS)
//   tls_server_name              channel: the name checked against the server's certificate
//   default_deadline_ms          channel: deadline of calls that give none (default: none)
// Any other key is INVALID_ARGUMENT naming it; an unreadable file is NOT_FOUND naming it.
struct TransportOptions {
  std::string cert_file, key_file, ca_file;
  std::string cert, key, ca;  // the files' contents
  std::string server_name;
  int64_t default_deadline_ms = 0;  // 0: none
};

Error ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                   TransportOptions* options);

// Splits "host:port" ("[v6]:port" for IPv6); INVALID_ARGUMENT naming the address otherwise.
Error SplitAddress(const std::string& address, std::string* host, int* port);

// What Server_Start needs: the credentials (TLS or insecure) and the settings for the builder.
Error MakeServerCredentials(const TransportOptions& options,
                            std::shared_ptr<grpc::ServerCredentials>* credentials);
void ApplyServerSettings(grpc::ServerBuilder* builder);

// What Channel_Create needs.
Error MakeChannelCredentials(const TransportOptions& options,
                             std::shared_ptr<grpc::ChannelCredentials>* credentials);
grpc::ChannelArguments MakeChannelArguments(const TransportOptions& options);

// A readable reason why binding `host:port` fails (the bind() error), with its code:
// ALREADY_EXISTS for a port in use, INVALID_ARGUMENT for an address not on this machine,
// PERMISSION_DENIED for a privileged port, UNAVAILABLE otherwise.
Error DescribeBindFailure(const std::string& host, int port);

}  // namespace tessera::grpc_plugin

#endif  // TESSERA_PLUGINS_GRPC_OPTIONS_H_
