// The device suite's memory cases: allocation sizes, alignment, unique pointers, memory kinds,
// exhaustion and memory statistics.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kit/device_cases.h"

namespace tessera::plugin_check {
namespace {

// More than any device has: Memory_Allocate must answer RESOURCE_EXHAUSTED.
constexpr size_t kImpossibleBytes = size_t{1} << 62;

const char* KindName(TSR_MemoryKind kind) {
  switch (kind) {
    case TSR_MEMORY_KIND_DEVICE:
      return "device";
    case TSR_MEMORY_KIND_HOST_PINNED:
      return "host_pinned";
    case TSR_MEMORY_KIND_MANAGED:
      return "managed";
  }
  return "unknown";
}

// Allocates `size` bytes, writes a pattern over all of them, reads it back and frees: "" or what
// went wrong.
std::string AllocateUseFree(PluginDevice& device, size_t size, size_t alignment, uint32_t seed) {
  absl::StatusOr<void*> ptr = device.Allocate(size, alignment);
  if (!ptr.ok()) return CaseList::Describe(ptr.status());
  std::string problem = size == 0 ? "" : RoundTrip(device, *ptr, Pattern(size, seed));
  absl::Status freed = device.Free(*ptr, size);
  if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
  return problem;
}

void Record(CaseList& cases, const std::string& name, std::string problem, std::string leak,
            const std::string& detail) {
  if (problem.empty()) problem = std::move(leak);
  if (problem.empty()) {
    cases.Pass(name, detail);
  } else {
    cases.Fail(name, std::move(problem));
  }
}

void RunSizeCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  const std::pair<const char*, size_t> sizes[] = {{"allocate/one_byte", 1},
                                                  {"allocate/odd_size", 4097},
                                                  {"allocate/megabyte", size_t{1} << 20}};
  for (const auto& [name, size] : sizes) {
    const int64_t before = BytesInUse(device);
    std::string problem =
        AllocateUseFree(device, size, target.alignment, static_cast<uint32_t>(size));
    Record(cases, name, std::move(problem), LeakText(device, before, name),
           absl::StrCat(size, " bytes allocated, written, read back and freed"));
  }

  // Size 0: a unique pointer or NULL, and Free accepts what it returned.
  const int64_t before = BytesInUse(device);
  absl::StatusOr<void*> first = device.Allocate(0, target.alignment);
  absl::StatusOr<void*> second = device.Allocate(0, target.alignment);
  std::string problem;
  if (!first.ok() || !second.ok()) {
    problem = CaseList::Describe(first.ok() ? second.status() : first.status());
  } else if (*first != nullptr && *first == *second) {
    problem = "two allocations of 0 bytes returned the same pointer (expected NULL or unique)";
  }
  for (absl::StatusOr<void*>* ptr : {&first, &second}) {
    if (!ptr->ok()) continue;
    absl::Status freed = device.Free(**ptr, 0);
    if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
  }
  Record(cases, "allocate/zero_bytes", std::move(problem), LeakText(device, before, "it"),
         "NULL or unique pointers, freed");
}

void RunAlignmentCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  std::vector<std::string> problems;
  for (size_t alignment = 1; alignment <= 4096; alignment *= 2) {
    absl::StatusOr<void*> ptr = device.Allocate(100, alignment);
    if (!ptr.ok()) {
      problems.push_back(absl::StrCat("alignment ", alignment, ": ",
                                      CaseList::Describe(ptr.status())));
      continue;
    }
    if (reinterpret_cast<uintptr_t>(*ptr) % alignment != 0) {
      problems.push_back(absl::StrCat("alignment ", alignment, ": pointer 0x",
                                      absl::Hex(reinterpret_cast<uintptr_t>(*ptr)),
                                      " is not aligned"));
    }
    if (absl::Status freed = device.Free(*ptr, 100); !freed.ok()) {
      problems.push_back(CaseList::Describe(freed));
    }
  }
  Record(cases, "allocate/alignment", absl::StrJoin(problems, "\n"), "",
         "every power of two from 1 to 4096 honoured");

  absl::StatusOr<void*> bad = device.Allocate(100, 3);
  if (bad.ok()) {
    device.Free(*bad, 100).IgnoreError();
    cases.Fail("allocate/bad_alignment",
               "alignment 3 (not a power of two) was accepted; expected INVALID_ARGUMENT");
  } else if (bad.status().code() != absl::StatusCode::kInvalidArgument) {
    cases.Fail("allocate/bad_alignment",
               absl::StrCat("alignment 3: expected INVALID_ARGUMENT, got ",
                            CaseList::Describe(bad.status())));
  } else {
    cases.Pass("allocate/bad_alignment", "alignment 3 refused with INVALID_ARGUMENT");
  }
}

void RunUniqueCase(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  const int64_t before = BytesInUse(device);
  std::vector<std::pair<uintptr_t, size_t>> blocks;
  std::string problem;
  for (size_t i = 0; i < 64 && problem.empty(); ++i) {
    const size_t size = 1 + (i * 977) % 5000;
    absl::StatusOr<void*> ptr = device.Allocate(size, target.alignment);
    if (!ptr.ok()) {
      problem = CaseList::Describe(ptr.status());
    } else {
      blocks.emplace_back(reinterpret_cast<uintptr_t>(*ptr), size);
    }
  }
  std::vector<std::pair<uintptr_t, size_t>> sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size() && problem.empty(); ++i) {
    if (sorted[i - 1].first + sorted[i - 1].second > sorted[i].first) {
      problem = absl::StrCat("blocks of ", sorted[i - 1].second, " bytes at 0x",
                             absl::Hex(sorted[i - 1].first), " and of ", sorted[i].second,
                             " bytes at 0x", absl::Hex(sorted[i].first), " overlap");
    }
  }
  for (const auto& [address, size] : blocks) {
    absl::Status freed = device.Free(reinterpret_cast<void*>(address), size);
    if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
  }
  Record(cases, "allocate/unique", std::move(problem), LeakText(device, before, "it"),
         "64 live blocks, none overlapping");
}

void RunKindCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  const uint32_t kinds =
      target.properties.memory_kinds == 0 ? 1u : target.properties.memory_kinds;
  for (TSR_MemoryKind kind : {TSR_MEMORY_KIND_HOST_PINNED, TSR_MEMORY_KIND_MANAGED}) {
    const std::string name = absl::StrCat("allocate/kind_", KindName(kind));
    absl::StatusOr<void*> ptr = device.Allocate(4096, target.alignment, kind);
    const bool listed = (kinds & (1u << kind)) != 0;
    if (listed) {
      std::string problem = ptr.ok() ? "" : CaseList::Describe(ptr.status());
      if (ptr.ok()) {
        absl::Status freed = device.Free(*ptr, 4096, kind);
        if (!freed.ok()) problem = CaseList::Describe(freed);
      }
      Record(cases, name, std::move(problem), "", "listed in memory_kinds; allocated and freed");
    } else if (ptr.ok()) {
      device.Free(*ptr, 4096, kind).IgnoreError();
      cases.Fail(name, absl::StrCat(KindName(kind), " memory is not listed in memory_kinds but "
                                    "was allocated; expected INVALID_ARGUMENT"));
    } else if (ptr.status().code() != absl::StatusCode::kInvalidArgument) {
      cases.Fail(name, absl::StrCat("an unlisted kind: expected INVALID_ARGUMENT, got ",
                                    CaseList::Describe(ptr.status())));
    } else {
      cases.Pass(name, "not listed; refused with INVALID_ARGUMENT");
    }
  }
}

}  // namespace

void RunAllocationCases(DeviceTarget& target, CaseList& cases) {
  RunSizeCases(target, cases);
  RunAlignmentCases(target, cases);
  RunUniqueCase(target, cases);
  RunKindCases(target, cases);
}

void RunExhaustionCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  // Large blocks up to the bound: each must work, or be RESOURCE_EXHAUSTED.
  const int64_t before = BytesInUse(device);
  const size_t block = std::max<size_t>(target.large_bytes / 8, 1);
  std::vector<void*> blocks;
  std::string problem;
  bool exhausted = false;
  for (uint64_t total = 0; total + block <= target.large_bytes && problem.empty(); total += block) {
    absl::StatusOr<void*> ptr = device.Allocate(block, target.alignment);
    if (!ptr.ok()) {
      exhausted = ptr.status().code() == absl::StatusCode::kResourceExhausted;
      if (!exhausted) problem = CaseList::Describe(ptr.status());
      break;
    }
    blocks.push_back(*ptr);
    // The block's two ends must be usable.
    const std::vector<uint8_t> bytes = Pattern(64, static_cast<uint32_t>(blocks.size()));
    problem = RoundTrip(device, static_cast<char*>(*ptr) + block - 64, bytes);
    if (problem.empty()) problem = RoundTrip(device, *ptr, bytes);
  }
  for (void* ptr : blocks) {
    absl::Status freed = device.Free(ptr, block);
    if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
  }
  Record(cases, "allocate/large", std::move(problem), LeakText(device, before, "it"),
         absl::StrCat(blocks.size(), " blocks of ", block, " bytes",
                      exhausted ? ", then RESOURCE_EXHAUSTED" : ""));

  // One request for more than any device has.
  absl::StatusOr<void*> impossible = device.Allocate(kImpossibleBytes, target.alignment);
  if (impossible.ok()) {
    device.Free(*impossible, kImpossibleBytes).IgnoreError();
    cases.Fail("allocate/exhaustion",
               absl::StrCat("Memory_Allocate of ", kImpossibleBytes,
                            " bytes succeeded; expected RESOURCE_EXHAUSTED"));
  } else if (impossible.status().code() != absl::StatusCode::kResourceExhausted) {
    cases.Fail("allocate/exhaustion",
               absl::StrCat("Memory_Allocate of ", kImpossibleBytes, " bytes: expected "
                            "RESOURCE_EXHAUSTED (out of memory is never OK with NULL, nor another "
                            "code), got ", CaseList::Describe(impossible.status())));
  } else {
    cases.Pass("allocate/exhaustion", absl::StrCat(kImpossibleBytes, " bytes: RESOURCE_EXHAUSTED"));
  }
  std::string after = AllocateUseFree(device, 4096, target.alignment, 7);
  Record(cases, "allocate/after_exhaustion", std::move(after), "",
         "the device still allocates after refusing");
}

void RunStatsCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  if (!target.has_stats) {
    cases.Skip("stats", "Memory_GetStats not implemented");
    return;
  }
  constexpr size_t kSize = size_t{1} << 20;
  auto read = [&](DeviceMemoryStats* stats, std::string* problem) {
    absl::StatusOr<DeviceMemoryStats> read = device.MemoryStats();
    if (!read.ok()) {
      *problem = CaseList::Describe(read.status());
      return false;
    }
    *stats = *read;
    if (stats->peak_bytes_in_use >= 0 && stats->peak_bytes_in_use < stats->bytes_in_use) {
      *problem = absl::StrCat("peak_bytes_in_use ", stats->peak_bytes_in_use,
                              " is below bytes_in_use ", stats->bytes_in_use);
      return false;
    }
    return true;
  };
  DeviceMemoryStats start, during, end;
  std::string problem;
  if (!read(&start, &problem)) return cases.Fail("stats", problem);
  absl::StatusOr<void*> ptr = device.Allocate(kSize, target.alignment);
  if (!ptr.ok()) return cases.Fail("stats", CaseList::Describe(ptr.status()));
  const bool read_during = read(&during, &problem);
  absl::Status freed = device.Free(*ptr, kSize);
  if (!read_during) return cases.Fail("stats", problem);
  if (!freed.ok()) return cases.Fail("stats", CaseList::Describe(freed));
  if (!read(&end, &problem)) return cases.Fail("stats", problem);
  if (during.bytes_in_use < start.bytes_in_use + static_cast<int64_t>(kSize)) {
    return cases.Fail("stats", absl::StrCat("bytes_in_use went from ", start.bytes_in_use, " to ",
                                            during.bytes_in_use, " when ", kSize,
                                            " bytes were allocated; expected at least ",
                                            start.bytes_in_use + static_cast<int64_t>(kSize)));
  }
  if (end.bytes_in_use != start.bytes_in_use) {
    return cases.Fail("stats", absl::StrCat("bytes_in_use was ", start.bytes_in_use,
                                            " before allocating ", kSize, " bytes and ",
                                            end.bytes_in_use, " after freeing them"));
  }
  if (start.num_allocations >= 0 && during.num_allocations <= start.num_allocations) {
    return cases.Fail("stats", absl::StrCat("num_allocations stayed at ", start.num_allocations,
                                            " across an allocation"));
  }
  cases.Pass("stats", absl::StrCat("bytes_in_use ", start.bytes_in_use, " -> ",
                                   during.bytes_in_use, " -> ", end.bytes_in_use, ", peak ",
                                   end.peak_bytes_in_use));
}

}  // namespace tessera::plugin_check
