// Transport cases: TLS (mutual and server-only authentication, untrusted peers, unreadable and
// inconsistent certificate options), for transports with TSR_TRANSPORT_CAPABILITY_TLS. The
// certificates are the kit's test certificates (tests/conformance/testdata, installed with the
// kit).
#include <utility>

#include "kit/transport_cases.h"

namespace tessera::plugin_check {
namespace {

std::string TlsFile(const CaseRun& run, const char* name) {
  return absl::StrCat(run.options().tls_data_dir, "/", name);
}

// False (the case skipped) when the transport has no TLS or the kit has no certificates.
bool CanRunTls(CaseRun& run) {
  if ((run.transport().capabilities() & TSR_TRANSPORT_CAPABILITY_TLS) == 0) {
    run.Skip(absl::StrCat("skipped: transport '", run.transport_name(),
                          "' has no TLS capability"));
    return false;
  }
  if (run.options().tls_data_dir.empty()) {
    run.Skip(absl::StrCat("skipped: ", run.options().tls_missing_reason));
    return false;
  }
  return true;
}

TransportOptions ServerTls(const CaseRun& run, bool require_client_certificate) {
  TransportOptions options = {{"tls_cert_file", TlsFile(run, "server.pem")},
                              {"tls_key_file", TlsFile(run, "server.key")}};
  if (require_client_certificate) options["tls_ca_file"] = TlsFile(run, "ca.pem");
  return options;
}

TransportOptions ClientTls(const CaseRun& run, const char* ca, const char* cert,
                           const char* key) {
  TransportOptions options;
  if (ca != nullptr) options["tls_ca_file"] = TlsFile(run, ca);
  if (cert != nullptr) options["tls_cert_file"] = TlsFile(run, cert);
  if (key != nullptr) options["tls_key_file"] = TlsFile(run, key);
  return options;
}

void TlsMutual(CaseRun& run) {
  if (!CanRunTls(run)) return;
  TestHandler handler;
  handler.tensors["1/t"] = FloatTensor({2048}, std::vector<float>(2048, 7.0f));
  auto server = run.Listen(&handler, ServerTls(run, /*require_client_certificate=*/true));
  if (server == nullptr) return;
  auto channel =
      run.Connect(server->address(), ClientTls(run, "ca.pem", "client.pem", "client.key"));
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/GetStatus", "over tls");
  auto pull = StartPull(*channel, 1, "t");
  if (!run.Done(call, "a call over mutual TLS")) return;
  if (!run.Done(pull, "a pull over mutual TLS")) return;
  if (run.Ok(call->status, "a call over mutual TLS")) {
    run.Expect(call->response == "Worker/GetStatus|over tls", "the call over TLS answered '",
               Shorten(call->response), "', expected 'Worker/GetStatus|over tls'");
  }
  if (run.Ok(pull->status, "a pull over mutual TLS")) {
    run.Expect(pull->bytes == handler.tensors["1/t"].bytes, "the pull over TLS received ",
               pull->bytes.size(), " bytes that differ from the 8192 sent");
  }

  // The name checked against the certificate may differ from the address dialled.
  TransportOptions by_name = ClientTls(run, "ca.pem", "client.pem", "client.key");
  by_name["tls_server_name"] = "localhost";
  auto named = run.Connect(server->address(), by_name);
  if (named == nullptr) return;
  auto named_call = StartCall(*named, "Worker/GetStatus", "named");
  if (!run.Done(named_call, "a call with tls_server_name 'localhost'")) return;
  run.Ok(named_call->status, "a call with tls_server_name 'localhost'");
}

void TlsServerOnly(CaseRun& run) {
  if (!CanRunTls(run)) return;
  TestHandler handler;
  auto server = run.Listen(&handler, ServerTls(run, /*require_client_certificate=*/false));
  if (server == nullptr) return;
  auto channel = run.Connect(server->address(), ClientTls(run, "ca.pem", nullptr, nullptr));
  if (channel == nullptr) return;
  auto call = StartCall(*channel, "Worker/GetStatus", "");
  if (!run.Done(call, "a call from a TLS client without a certificate")) return;
  run.Ok(call->status, "a call from a TLS client without a certificate to a server that does "
                       "not verify clients");
}

void TlsRefusesUntrusted(CaseRun& run) {
  if (!CanRunTls(run)) return;
  TestHandler handler;
  auto server = run.Listen(&handler, ServerTls(run, /*require_client_certificate=*/true));
  if (server == nullptr) return;
  const struct {
    const char* what;
    TransportOptions options;
  } clients[] = {
      {"a client without TLS", {}},
      {"a client with a certificate from an unrelated CA",
       ClientTls(run, "ca.pem", "other_client.pem", "other_client.key")},
      {"a client without a certificate", ClientTls(run, "ca.pem", nullptr, nullptr)},
      {"a client that does not trust the server's CA",
       ClientTls(run, "other_ca.pem", "other_client.pem", "other_client.key")},
  };
  for (const auto& client : clients) {
    auto channel = run.Connect(server->address(), client.options);
    if (channel == nullptr) return;
    auto call = StartCall(*channel, "Worker/GetStatus", "");
    auto pull = StartPull(*channel, 1, "t");
    if (!run.Done(call, absl::StrCat("a call from ", client.what))) return;
    if (!run.Done(pull, absl::StrCat("a pull from ", client.what))) return;
    run.Code(call->status, absl::StatusCode::kUnavailable,
             absl::StrCat("a call from ", client.what));
    run.Code(pull->status, absl::StatusCode::kUnavailable,
             absl::StrCat("a pull from ", client.what));
  }
}

void TlsUnreadableFiles(CaseRun& run) {
  if (!CanRunTls(run)) return;
  TestHandler handler;
  const std::string missing = TlsFile(run, "missing.pem");
  absl::StatusOr<std::unique_ptr<TransportServer>> server = run.transport().Listen(
      "127.0.0.1:0", {{"tls_cert_file", missing}, {"tls_key_file", TlsFile(run, "server.key")}},
      &handler);
  if (run.Expect(!server.ok(), "Listen with a missing tls_cert_file succeeded")) {
    run.Code(server.status(), absl::StatusCode::kNotFound, "Listen with a missing tls_cert_file");
    run.Contains(server.status().message(), missing, "the error");
  }
  absl::StatusOr<std::unique_ptr<TransportChannel>> channel =
      run.transport().Connect("127.0.0.1:1", {{"tls_ca_file", missing}});
  if (run.Expect(!channel.ok(), "Connect with a missing tls_ca_file succeeded")) {
    run.Code(channel.status(), absl::StatusCode::kNotFound, "Connect with a missing tls_ca_file");
    run.Contains(channel.status().message(), missing, "the error");
  }
}

void TlsInconsistentOptions(CaseRun& run) {
  if (!CanRunTls(run)) return;
  TestHandler handler;
  const struct {
    const char* what;
    TransportOptions options;
    const char* expected;
  } cases[] = {
      {"a certificate without a key",
       {{"tls_cert_file", TlsFile(run, "server.pem")}},
       "must be given together"},
      {"a CA without a certificate", {{"tls_ca_file", TlsFile(run, "ca.pem")}}, "needs 'tls_cert_file'"},
      {"a key file as the certificate",
       {{"tls_cert_file", TlsFile(run, "server.key")}, {"tls_key_file", TlsFile(run, "server.key")}},
       "holds no PEM CERTIFICATE"},
      {"a certificate as the key",
       {{"tls_cert_file", TlsFile(run, "server.pem")}, {"tls_key_file", TlsFile(run, "server.pem")}},
       "holds no PEM PRIVATE KEY"},
  };
  for (const auto& c : cases) {
    const std::string what = absl::StrCat("Listen with ", c.what);
    absl::StatusOr<std::unique_ptr<TransportServer>> server =
        run.transport().Listen("127.0.0.1:0", c.options, &handler);
    if (!run.Expect(!server.ok(), what, " succeeded")) continue;
    run.Code(server.status(), absl::StatusCode::kInvalidArgument, what);
    run.Contains(server.status().message(), c.expected, "the error");
  }
}

}  // namespace

void AppendTlsCases(std::vector<TransportCase>* cases) {
  cases->push_back({"tls_mutual", &TlsMutual});
  cases->push_back({"tls_server_only", &TlsServerOnly});
  cases->push_back({"tls_refuses_untrusted", &TlsRefusesUntrusted});
  cases->push_back({"tls_unreadable_files", &TlsUnreadableFiles});
  cases->push_back({"tls_inconsistent_options", &TlsInconsistentOptions});
}

}  // namespace tessera::plugin_check
