// Transport cases: tensor pulls (shapes, values, sizes, strings, dead and empty tensors, the
// receiver's allocation and the sender's errors).
#include <cstring>
#include <utility>

#include "kit/transport_cases.h"

namespace tessera::plugin_check {
namespace {

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) absl::StrAppend(&text, i == 0 ? "" : ",", dims[i]);
  return text + "]";
}

// Checks a completed pull of `served` under `what`: status, dtype, shape and bytes.
void CheckReceived(CaseRun& run, const PullResult& pull, const ServedTensor& served,
                   absl::string_view what) {
  if (!run.Ok(pull.status, what)) return;
  run.Expect(!pull.is_dead, what, " arrived dead");
  run.Expect(pull.dtype == served.dtype, what, " arrived with dtype ", pull.dtype, ", expected ",
             served.dtype);
  run.Expect(pull.dims == served.dims, what, " arrived with shape ", DimsText(pull.dims),
             ", expected ", DimsText(served.dims));
  if (!run.Expect(pull.bytes.size() == served.bytes.size(), what, ": received ",
                  pull.bytes.size(), " bytes, expected ", served.bytes.size())) {
    return;
  }
  for (size_t i = 0; i < pull.bytes.size(); ++i) {
    if (pull.bytes[i] != served.bytes[i]) {
      run.Fail(absl::StrCat(what, ": byte ", i, " of ", served.bytes.size(), " is ",
                            static_cast<int>(static_cast<unsigned char>(pull.bytes[i])),
                            ", expected ",
                            static_cast<int>(static_cast<unsigned char>(served.bytes[i]))));
      return;
    }
  }
}

// The pull's tensor was released once (by the time the server stopped, at the latest).
void CheckReleasedOnce(CaseRun& run, const ServedTensor& served, absl::string_view what) {
  run.Expect(WaitForCount(*served.releases, 1, run.wait_bound()), what,
             " was never released by the transport");
}

void RecvTensorFloat(CaseRun& run) {
  TestHandler handler;
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = 0.5f * static_cast<float>(i) - 2.0f;
  handler.tensors["5/a;b"] = FloatTensor({3, 4}, values);
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto pull = StartPull(*channel, 5, "a;b");
  if (!run.Done(pull, "the pull of 'a;b'")) return;
  CheckReceived(run, *pull, handler.tensors["5/a;b"], "the 3x4 float tensor 'a;b'");
  CheckReleasedOnce(run, handler.tensors["5/a;b"], "the served tensor");
  server.reset();
  const int releases = handler.tensors["5/a;b"].releases->load();
  run.Expect(releases == 1, "the served tensor was released ", releases, " times, expected once");
}

void RecvTensorLarge(CaseRun& run) {
  TestHandler handler;
  std::vector<float> values(16 << 20);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 100003);
  handler.tensors["9/big"] = FloatTensor({4096, 4096}, values);
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto pull = StartPull(*channel, 9, "big");
  if (!run.Done(pull, "the pull of the 64 MiB tensor")) return;
  CheckReceived(run, *pull, handler.tensors["9/big"], "the 64 MiB tensor");
  CheckReleasedOnce(run, handler.tensors["9/big"], "the 64 MiB tensor");
  server.reset();
  const int releases = handler.tensors["9/big"].releases->load();
  run.Expect(releases == 1, "the 64 MiB tensor was released ", releases, " times, expected once");
}

void RecvTensorEmpty(CaseRun& run) {
  TestHandler handler;
  handler.tensors["1/empty"] = FloatTensor({0, 5}, {});
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto pull = StartPull(*channel, 1, "empty");
  if (!run.Done(pull, "the pull of a 0x5 tensor")) return;
  if (pull->status.ok()) {
    run.Expect(pull->allocated, "the 0x5 tensor arrived without allocate being called");
  }
  CheckReceived(run, *pull, handler.tensors["1/empty"], "the 0x5 tensor");
  CheckReleasedOnce(run, handler.tensors["1/empty"], "the 0x5 tensor");
}

void RecvTensorDead(CaseRun& run) {
  TestHandler handler;
  ServedTensor dead;
  dead.is_dead = true;
  handler.tensors["2/dead"] = dead;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto pull = StartPull(*channel, 2, "dead");
  if (!run.Done(pull, "the pull of a dead tensor")) return;
  if (!run.Ok(pull->status, "the pull of a dead tensor")) return;
  run.Expect(pull->is_dead, "a dead tensor arrived live");
  run.Expect(!pull->allocated, "allocate was called for a dead tensor");
  CheckReleasedOnce(run, handler.tensors["2/dead"], "the dead tensor");
}

// ABI 1.0: allocate receives the sender's view's byte size.
void RecvTensorByteSize(CaseRun& run) {
  TestHandler handler;
  struct Served {
    const char* key;
    TSR_DataType dtype;
    std::vector<int64_t> dims;
    size_t element_size;
  };
  const Served served[] = {
      {"float_3x4", TSR_DTYPE_FLOAT, {3, 4}, 4}, {"int64_5", TSR_DTYPE_INT64, {5}, 8},
      {"double_scalar", TSR_DTYPE_DOUBLE, {}, 8}, {"uint8_0x7", TSR_DTYPE_UINT8, {0, 7}, 1},
      {"bool_2048", TSR_DTYPE_BOOL, {2048}, 1},   {"int32_2x3x4", TSR_DTYPE_INT32, {2, 3, 4}, 4},
  };
  for (const Served& s : served) {
    ServedTensor tensor;
    tensor.dtype = s.dtype;
    tensor.dims = s.dims;
    size_t size = s.element_size;
    for (int64_t dim : s.dims) size *= static_cast<size_t>(dim);
    tensor.bytes.resize(size);
    for (size_t i = 0; i < size; ++i) {
      tensor.bytes[i] = static_cast<char>(s.dtype == TSR_DTYPE_BOOL ? i % 2 : i * 7 + 1);
    }
    handler.tensors[absl::StrCat("6/", s.key)] = std::move(tensor);
  }
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  for (const Served& s : served) {
    const ServedTensor& tensor = handler.tensors[absl::StrCat("6/", s.key)];
    const std::string what = absl::StrCat("the pull of '", s.key, "'");
    auto pull = StartPull(*channel, 6, s.key);
    if (!run.Done(pull, what)) return;
    // Checked also when the pull failed afterwards, for the transport's own size check.
    if (pull->allocated) {
      run.Expect(pull->allocate_byte_size == tensor.bytes.size(), what,
                 ": allocate was given byte_size ", pull->allocate_byte_size, ", expected ",
                 tensor.bytes.size(), " (the sender's view's byte size)");
    } else if (pull->status.ok()) {
      run.Fail(absl::StrCat(what, " completed without calling allocate"));
      continue;
    }
    CheckReceived(run, *pull, tensor, what);
  }
}

// String tensors cross in the packed layout of common.h; their bytes (NULs included) arrive
// intact and allocate learns the packed size.
void RecvTensorString(CaseRun& run) {
  TestHandler handler;
  std::string long_element(3000, '\0');
  for (size_t i = 0; i < long_element.size(); ++i) {
    long_element[i] = static_cast<char>(i * 37 + 11);
  }
  const std::vector<std::string> elements = {"", "tessera", std::string("with\0nul", 8),
                                             long_element, "\xff\xfe"};
  handler.tensors["8/strings"] = StringTensor({5}, elements);
  handler.tensors["8/matrix"] = StringTensor({2, 2}, {"a", "bc", "", "def"});
  handler.tensors["8/scalar"] = StringTensor({}, {"just one"});
  handler.tensors["8/none"] = StringTensor({0}, {});
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  for (const char* key : {"strings", "matrix", "scalar", "none"}) {
    const ServedTensor& tensor = handler.tensors[absl::StrCat("8/", key)];
    const std::string what = absl::StrCat("the string tensor '", key, "'");
    auto pull = StartPull(*channel, 8, key);
    if (!run.Done(pull, what)) return;
    if (pull->allocated) {
      run.Expect(pull->allocate_byte_size == tensor.bytes.size(), what,
                 ": allocate was given byte_size ", pull->allocate_byte_size,
                 ", expected the packed size ", tensor.bytes.size());
    } else if (pull->status.ok()) {
      run.Fail(absl::StrCat(what, " completed without calling allocate"));
      continue;
    }
    CheckReceived(run, *pull, tensor, what);
  }
}

void RecvTensorAllocateError(CaseRun& run) {
  TestHandler handler;
  handler.tensors["3/t"] = FloatTensor({3, 4}, std::vector<float>(12, 1.0f));
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  PullOptions options;
  options.allocate_error = absl::ResourceExhaustedError("no memory for 48 bytes");
  auto pull = StartPull(*channel, 3, "t", options);
  if (!run.Done(pull, "a pull whose allocate fails")) return;
  run.Code(pull->status, absl::StatusCode::kResourceExhausted, "a pull whose allocate fails");
  run.Contains(pull->status.message(), "no memory for 48 bytes", "the error");
  run.Contains(pull->status.message(), "'t' (step 3)", "the error");
  CheckReleasedOnce(run, handler.tensors["3/t"], "the tensor whose allocation failed");
  server.reset();
  const int releases = handler.tensors["3/t"].releases->load();
  run.Expect(releases == 1, "the tensor was released ", releases, " times, expected once");
}

void RecvTensorWrongDestinationSize(CaseRun& run) {
  TestHandler handler;
  handler.tensors["3/t"] = FloatTensor({3, 4}, std::vector<float>(12, 1.0f));
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  PullOptions options;
  options.wrong_size = true;
  auto pull = StartPull(*channel, 3, "t", options);
  if (!run.Done(pull, "a pull into a destination one byte short")) return;
  run.Code(pull->status, absl::StatusCode::kInternal, "a pull into a destination one byte short");
  run.Contains(pull->status.message(), "destination", "the error");
}

void RecvTensorSenderError(CaseRun& run) {
  TestHandler handler;
  ServedTensor failing = FloatTensor({1}, {1.0f});
  failing.status = absl::AbortedError("step 4 was aborted: worker 2 failed");
  handler.tensors["4/failing"] = failing;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;

  auto missing = StartPull(*channel, 4, "missing");
  if (!run.Done(missing, "the pull of a missing tensor")) return;
  run.Code(missing->status, absl::StatusCode::kNotFound, "the pull of a missing tensor");
  run.Contains(missing->status.message(), "no tensor '4/missing'", "the error");
  run.Expect(!missing->allocated, "allocate was called for a pull the sender failed");

  auto aborted = StartPull(*channel, 4, "failing");
  if (!run.Done(aborted, "the pull the sender answered ABORTED")) return;
  run.Code(aborted->status, absl::StatusCode::kAborted, "the pull the sender answered ABORTED");
  run.Contains(aborted->status.message(), "step 4 was aborted: worker 2 failed", "the error");
  run.Expect(!aborted->allocated, "allocate was called for a pull the sender answered ABORTED");
  CheckReleasedOnce(run, handler.tensors["4/failing"], "the tensor sent with an error");
}

void RecvTensorAnsweredWithoutTensor(CaseRun& run) {
  TestHandler handler;
  handler.hold = true;
  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  auto dropped = StartPull(*channel, 1, "dropped");
  auto bytes = StartPull(*channel, 1, "bytes");
  if (!run.Expect(handler.WaitForHeld(2, run.wait_bound()),
                  "the handler did not receive 2 pulls")) {
    return;
  }
  std::vector<TransportReply> held = handler.TakeHeld();
  held.clear();  // both dropped: INTERNAL
  for (const auto& pull : {dropped, bytes}) {
    if (!run.Done(pull, "a pull the host dropped without an answer")) return;
    run.Code(pull->status, absl::StatusCode::kInternal,
             "a pull the host dropped without an answer");
    run.Contains(pull->status.message(), "dropped the call without an answer", "the error");
  }

  auto answered = StartPull(*channel, 1, "answered");
  if (!run.Expect(handler.WaitForHeld(1, run.wait_bound()), "the handler did not get the pull")) {
    return;
  }
  handler.TakeHeld()[0].Send(absl::OkStatus(), "not a tensor");
  if (!run.Done(answered, "a pull answered with bytes")) return;
  run.Code(answered->status, absl::StatusCode::kInternal, "a pull answered with bytes");
  run.Contains(answered->status.message(), "without a tensor", "the error");
}

// For transports with TSR_TRANSPORT_CAPABILITY_RMA: memory registered through the RMA extension,
// registered twice (a cache may hand out one region), a tensor lent from inside it and pulled
// twice, an unknown memory kind refused, and pulls still right once the registrations are gone.
void RmaRegisteredMemory(CaseRun& run) {
  if ((run.transport().capabilities() & TSR_TRANSPORT_CAPABILITY_RMA) == 0) {
    run.Skip(absl::StrCat("skipped: transport '", run.transport_name(),
                          "' has no RMA capability"));
    return;
  }
  TestHandler handler;
  std::vector<float> values(1 << 20);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 9973);
  handler.tensors["3/registered"] = FloatTensor({1024, 1024}, values);
  std::vector<char>& bytes = handler.tensors["3/registered"].bytes;

  absl::StatusOr<MemoryRegistration> unknown_kind =
      run.transport().RegisterMemory(bytes.data(), bytes.size(), 99);
  if (run.Expect(!unknown_kind.ok(), "Memory_Register accepted the memory kind 99")) {
    run.Code(unknown_kind.status(), absl::StatusCode::kInvalidArgument,
             "Memory_Register of the memory kind 99");
  }
  absl::StatusOr<MemoryRegistration> first =
      run.transport().RegisterMemory(bytes.data(), bytes.size(), TSR_MEMORY_KIND_HOST_PINNED);
  if (!run.Ok(first.status(), "Memory_Register of a 4 MiB host buffer")) return;
  run.Expect(first->region() != nullptr, "Memory_Register returned OK and a NULL region");
  absl::StatusOr<MemoryRegistration> second =
      run.transport().RegisterMemory(bytes.data(), bytes.size(), TSR_MEMORY_KIND_HOST_PINNED);
  if (!run.Ok(second.status(), "a second Memory_Register of the same buffer")) return;

  auto server = run.Listen(&handler);
  if (server == nullptr) return;
  auto channel = run.Connect(server->address());
  if (channel == nullptr) return;
  for (int round = 0; round < 2; ++round) {
    auto pull = StartPull(*channel, 3, "registered");
    if (!run.Done(pull, "the pull of a tensor in registered memory")) return;
    CheckReceived(run, *pull, handler.tensors["3/registered"],
                  "the tensor in registered memory");
  }
  *first = MemoryRegistration();
  *second = MemoryRegistration();
  auto after = StartPull(*channel, 3, "registered");
  if (!run.Done(after, "the pull once the registrations are gone")) return;
  CheckReceived(run, *after, handler.tensors["3/registered"],
                "the tensor once its registrations are gone");
}

}  // namespace

void AppendPullCases(std::vector<TransportCase>* cases) {
  cases->push_back({"recv_tensor_float", &RecvTensorFloat});
  cases->push_back({"recv_tensor_large", &RecvTensorLarge});
  cases->push_back({"rma_registered_memory", &RmaRegisteredMemory});
  cases->push_back({"recv_tensor_empty", &RecvTensorEmpty});
  cases->push_back({"recv_tensor_dead", &RecvTensorDead});
  cases->push_back({"recv_tensor_byte_size", &RecvTensorByteSize});
  cases->push_back({"recv_tensor_string", &RecvTensorString});
  cases->push_back({"recv_tensor_allocate_error", &RecvTensorAllocateError});
  cases->push_back({"recv_tensor_wrong_destination_size", &RecvTensorWrongDestinationSize});
  cases->push_back({"recv_tensor_sender_error", &RecvTensorSenderError});
  cases->push_back({"recv_tensor_answered_without_tensor", &RecvTensorAnsweredWithoutTensor});
}

}  // namespace tessera::plugin_check
