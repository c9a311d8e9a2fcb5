// What every transport shares: checks of what a host hands a transport plugin's slots (the
// argument structs of Server_Start, Channel_Create and Channel_RecvTensor, with one wording of
// their errors), and the parsing of "host:port" addresses.
#ifndef TESSERA_SDK_TRANSPORT_H_
#define TESSERA_SDK_TRANSPORT_H_

#include <string>

#include "tessera/plugin_api/transport.h"
#include "tessera/sdk/status.h"

namespace tessera::sdk {

// What SplitHostPort accepts, for error messages.
inline constexpr char kHostPortForm[] = "(expected host:port, or [ipv6]:port)";

// Splits "host:port" or "[ipv6]:port" into a host (without brackets) and a port (0..65535).
// Returns nullptr when it parsed; otherwise why not, worded to follow "address '<address>' ":
// "has no port", "has no closing ']'", "has an IPv6 host without brackets", "has no host",
// "has no numeric port", "has a port above 65535". Needs no host table (no Status is made).
inline const char* SplitHostPort(const std::string& address, std::string* host, int* port) {
  size_t colon;
  if (!address.empty() && address[0] == '[') {
    const size_t close = address.find(']');
    if (close == std::string::npos) return "has no closing ']'";
    *host = address.substr(1, close - 1);
    colon = close + 1;
    if (colon >= address.size() || address[colon] != ':') return "has no port";
  } else {
    colon = address.rfind(':');
    if (colon == std::string::npos) return "has no port";
    *host = address.substr(0, colon);
    if (host->find(':') != std::string::npos) return "has an IPv6 host without brackets";
  }
  if (host->empty()) return "has no host";
  const std::string digits = address.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return "has no numeric port";
  }
  *port = std::stoi(digits);
  if (*port > 65535) return "has a port above 65535";
  return nullptr;
}

// Server_Start: OK with `handlers` holding a copy of the host's handlers, or INVALID_ARGUMENT for
// NULL arguments or address, an args struct too short, or incomplete handlers.
inline Status CheckListenArgs(const TSR_Transport_Listen_Args* args,
                              TSR_TransportServer* const* server, TSR_TransportHandlers* handlers) {
  if (args == nullptr || server == nullptr ||
      !TSR_STRUCT_HAS_FIELD(args, TSR_Transport_Listen_Args, handlers) ||
      args->address == nullptr) {
    return InvalidArgument("Server_Start: NULL arguments or address, or an args struct of ",
                           args == nullptr ? 0 : args->struct_size, " bytes");
  }
  const TSR_TransportHandlers* given = args->handlers;
  if (given == nullptr || !TSR_STRUCT_HAS_FIELD(given, TSR_TransportHandlers, HandleRecvTensor) ||
      given->HandleCall == nullptr || given->HandleRecvTensor == nullptr) {
    return InvalidArgument("Server_Start: the handlers are NULL or incomplete");
  }
  *handlers = TSR_TransportHandlers{};
  handlers->struct_size = sizeof(*handlers);
  handlers->handler_arg = given->handler_arg;
  handlers->HandleCall = given->HandleCall;
  handlers->HandleRecvTensor = given->HandleRecvTensor;
  return OkStatus();
}

// Channel_Create: OK, or INVALID_ARGUMENT for NULL arguments or address, or an args struct too
// short.
inline Status CheckConnectArgs(const TSR_Transport_Connect_Args* args,
                               TSR_TransportChannel* const* channel) {
  if (args == nullptr || channel == nullptr ||
      !TSR_STRUCT_HAS_FIELD(args, TSR_Transport_Connect_Args, option_values) ||
      args->address == nullptr) {
    return InvalidArgument("Channel_Create: NULL arguments or address, or an args struct of ",
                           args == nullptr ? 0 : args->struct_size, " bytes");
  }
  return OkStatus();
}

// Channel_RecvTensor: true when the pull may start. False when there is nobody to tell (no args,
// an args struct too short, no `done`), or when the channel or `allocate` is NULL, which `done`
// has then been told (INVALID_ARGUMENT).
inline bool CheckRecvTensorArgs(const TSR_TransportChannel* channel,
                                const TSR_Channel_RecvTensor_Args* args) {
  if (args == nullptr || !TSR_STRUCT_HAS_FIELD(args, TSR_Channel_RecvTensor_Args, done_arg) ||
      args->done == nullptr) {
    return false;
  }
  if (channel == nullptr || args->allocate == nullptr) {
    args->done(args->done_arg,
               InvalidArgument("Channel_RecvTensor: NULL channel or allocate").Release(), false);
    return false;
  }
  return true;
}

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_TRANSPORT_H_
