// Options, addresses, credentials and the gRPC settings of the gRPC transport.
#include "plugins/grpc/options.h"

#include <arpa/inet.h>
#include <grpc/grpc.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tessera/sdk/transport.h"

namespace tessera::grpc_plugin {
namespace {

Error ReadFile(const char* option, const std::string& path, std::string* contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return MakeError(TSR_CODE_NOT_FOUND, "option '", option, "': cannot read file '", path,
                     "': ", std::strerror(errno));
  }
  std::ostringstream stream;
  stream << file.rdbuf();
  *contents = stream.str();
  return OkError();
}

// gRPC reports a bad PEM file only at the first handshake; a file that is not PEM at all is
// refused here, where its name is known.
Error CheckPem(const char* option, const std::string& path, const std::string& contents,
               const char* label) {
  if (contents.find("-----BEGIN ") == std::string::npos ||
      contents.find(label) == std::string::npos) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "option '", option, "': file '", path,
                     "' holds no PEM ", label);
  }
  return OkError();
}

Error ParseDeadline(const std::string& value, int64_t* deadline_ms) {
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || end == nullptr || *end != '\0' || errno != 0 || parsed <= 0) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "option 'default_deadline_ms': '", value,
                     "' is not a positive number of milliseconds");
  }
  *deadline_ms = parsed;
  return OkError();
}

// Settings both ends of a connection share: unlimited message sizes, keepalive pings during
// calls, and acceptance of the peer's pings at that rate.
template <typename SetInt>
void ApplyCommonSettings(SetInt set_int) {
  set_int(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1);
  set_int(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
  set_int(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  set_int(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  set_int(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  // Pings continue through long calls that carry no data (a RunGraph of minutes).
  set_int(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  set_int(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kKeepaliveTimeMs / 2);
  set_int(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

}  // namespace

Error ParseOptions(size_t num_options, const char* const* keys, const char* const* values,
                   TransportOptions* options) {
  for (size_t i = 0; i < num_options; ++i) {
    if (keys == nullptr || values == nullptr || keys[i] == nullptr || values[i] == nullptr) {
      return MakeError(TSR_CODE_INVALID_ARGUMENT, "option ", i, " has a NULL key or value");
    }
    const std::string key = keys[i];
    const std::string value = values[i];
    if (key == "tls_cert_file") {
      options->cert_file = value;
    } else if (key == "tls_key_file") {
      options->key_file = value;
    } else if (key == "tls_ca_file") {
      options->ca_file = value;
    } else if (key == "tls_server_name") {
      options->server_name = value;
    } else if (key == "default_deadline_ms") {
      Error error = ParseDeadline(value, &options->default_deadline_ms);
      if (!error.ok()) return error;
    } else {
      return MakeError(TSR_CODE_INVALID_ARGUMENT, "unknown option '", key,
                       "' (known: tls_cert_file, tls_key_file, tls_ca_file, tls_server_name, "
                       "default_deadline_ms)");
    }
  }
  if (options->cert_file.empty() != options->key_file.empty()) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT,
                     "options 'tls_cert_file' and 'tls_key_file' must be given together");
  }
  struct File {
    const char* option;
    const std::string* path;
    std::string* contents;
    const char* label;
  };
  const File files[] = {
      {"tls_cert_file", &options->cert_file, &options->cert, "CERTIFICATE"},
      {"tls_key_file", &options->key_file, &options->key, "PRIVATE KEY"},
      {"tls_ca_file", &options->ca_file, &options->ca, "CERTIFICATE"},
  };
  for (const File& file : files) {
    if (file.path->empty()) continue;
    Error error = ReadFile(file.option, *file.path, file.contents);
    if (error.ok()) error = CheckPem(file.option, *file.path, *file.contents, file.label);
    if (!error.ok()) return error;
  }
  return OkError();
}

Error SplitAddress(const std::string& address, std::string* host, int* port) {
  if (const char* why = sdk::SplitHostPort(address, host, port)) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "address '", address, "' ", why, " ",
                     sdk::kHostPortForm);
  }
  return OkError();
}

Error MakeServerCredentials(const TransportOptions& options,
                            std::shared_ptr<grpc::ServerCredentials>* credentials) {
  if (options.cert.empty()) {
    if (!options.ca.empty()) {
      return MakeError(TSR_CODE_INVALID_ARGUMENT,
                       "option 'tls_ca_file' on a server needs 'tls_cert_file' and "
                       "'tls_key_file' (client certificates are verified only over TLS)");
    }
    *credentials = grpc::InsecureServerCredentials();
    return OkError();
  }
  grpc::SslServerCredentialsOptions ssl(
      options.ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                         : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = options.ca;
  ssl.pem_key_cert_pairs.push_back({options.key, options.cert});
  *credentials = grpc::SslServerCredentials(ssl);
  if (*credentials == nullptr) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "gRPC refused the TLS server credentials from '",
                     options.cert_file, "' and '", options.key_file, "'");
  }
  return OkError();
}

void ApplyServerSettings(grpc::ServerBuilder* builder) {
  ApplyCommonSettings(
      [builder](const char* key, int value) { builder->AddChannelArgument(key, value); });
  // Without this a second server could bind the same port and steal half the connections.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder->SetMaxReceiveMessageSize(-1);
  builder->SetMaxSendMessageSize(-1);
}

Error MakeChannelCredentials(const TransportOptions& options,
                             std::shared_ptr<grpc::ChannelCredentials>* credentials) {
  if (options.ca.empty() && options.cert.empty()) {
    *credentials = grpc::InsecureChannelCredentials();
    return OkError();
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = options.ca;  // empty: the system's roots
  ssl.pem_private_key = options.key;
  ssl.pem_cert_chain = options.cert;
  *credentials = grpc::SslCredentials(ssl);
  if (*credentials == nullptr) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "gRPC refused the TLS channel credentials");
  }
  return OkError();
}

grpc::ChannelArguments MakeChannelArguments(const TransportOptions& options) {
  grpc::ChannelArguments arguments;
  ApplyCommonSettings([&arguments](const char* key, int value) { arguments.SetInt(key, value); });
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  // Each channel owns its connection: destroying it closes the connection, and channels with
  // different TLS settings never share one.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // A restarted peer is reached again within a second (gRPC's default backoff grows to 2 min).
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC also takes this as the shortest time a connection attempt (TCP, HTTP/2, TLS) may take:
  // at 100 ms, attempts on a loaded machine were cut off ("tcp handshaker shutdown").
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 5000);
  if (!options.server_name.empty()) arguments.SetSslTargetNameOverride(options.server_name);
  return arguments;
}

Error DescribeBindFailure(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int resolved = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (resolved != 0) {
    return MakeError(TSR_CODE_INVALID_ARGUMENT, "cannot listen on '", host, ":", port, "': host '",
                     host, "' does not resolve (", gai_strerror(resolved), ")");
  }
  int bind_errno = 0;
  for (addrinfo* a = found; a != nullptr && bind_errno == 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) bind_errno = errno;
    close(fd);
  }
  freeaddrinfo(found);
  const std::string where = sdk::StrCat("cannot listen on '", host, ":", port, "'");
  switch (bind_errno) {
    case EADDRINUSE:
      return MakeError(TSR_CODE_ALREADY_EXISTS, where, ": port ", port, " is already in use");
    case EADDRNOTAVAIL:
      return MakeError(TSR_CODE_INVALID_ARGUMENT, where, ": '", host,
                       "' is not an address of this machine");
    case EACCES:
      return MakeError(TSR_CODE_PERMISSION_DENIED, where, ": port ", port, " needs privileges (",
                       std::strerror(bind_errno), ")");
    case 0:
      return MakeError(TSR_CODE_UNAVAILABLE, where, ": gRPC could not bind it");
    default:
      return MakeError(TSR_CODE_UNAVAILABLE, where, ": ", std::strerror(bind_errno));
  }
}

}  // namespace tessera::grpc_plugin
