// The device suite's concurrency case: many threads allocate, fill, verify and free at once.
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kit/device_cases.h"

namespace tessera::plugin_check {
namespace {

constexpr int kThreads = 8;
constexpr int kAllocationsPerThread = 200;
constexpr size_t kMaxBlockBytes = 64 * 1024;
constexpr size_t kLiveBlocks = 8;  // each thread keeps this many blocks alive at once

struct Block {
  void* ptr = nullptr;
  size_t size = 0;
  std::vector<uint8_t> bytes;
};

// One thread's work: returns "" or its first problem.
std::string Worker(PluginDevice& device, size_t alignment, int thread) {
  std::mt19937 random(1000 + thread);
  std::uniform_int_distribution<size_t> size_of(1, kMaxBlockBytes);
  SyncCopier copier(&device);
  if (!copier.status().ok()) return CaseList::Describe(copier.status());
  std::vector<Block> live;
  std::string problem;
  auto retire = [&](Block& block) {
    std::vector<uint8_t> back(block.size, 0xcd);
    absl::Status status = copier.ToHost(back.data(), block.ptr, block.size);
    if (problem.empty() && !status.ok()) problem = CaseList::Describe(status);
    if (problem.empty()) {
      if (std::string differs = CompareBytes(block.bytes, back); !differs.empty()) {
        problem = absl::StrCat("thread ", thread, "'s block of ", block.size,
                               " bytes was changed while other threads worked: ", differs);
      }
    }
    absl::Status freed = device.Free(block.ptr, block.size);
    if (problem.empty() && !freed.ok()) problem = CaseList::Describe(freed);
  };
  for (int i = 0; i < kAllocationsPerThread && problem.empty(); ++i) {
    Block block;
    block.size = size_of(random);
    absl::StatusOr<void*> ptr = device.Allocate(block.size, alignment);
    if (!ptr.ok()) {
      problem = CaseList::Describe(ptr.status());
      break;
    }
    block.ptr = *ptr;
    block.bytes = Pattern(block.size, static_cast<uint32_t>(thread * 100003 + i));
    absl::Status status = copier.ToDevice(block.ptr, block.bytes.data(), block.size);
    if (!status.ok()) {
      problem = CaseList::Describe(status);
      device.Free(block.ptr, block.size).IgnoreError();
      break;
    }
    live.push_back(std::move(block));
    if (live.size() > kLiveBlocks) {
      const size_t victim = random() % live.size();
      retire(live[victim]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
    }
  }
  for (Block& block : live) retire(block);
  return problem;
}

}  // namespace

void RunConcurrencyCases(DeviceTarget& target, CaseList& cases) {
  PluginDevice& device = *target.devices[0];
  const int64_t before = BytesInUse(device);
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { problems[t] = Worker(device, target.alignment, t); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& problem : problems) {
    if (!problem.empty()) return cases.Fail("threads/allocate_copy_free", problem);
  }
  if (std::string leak = LeakText(device, before, "the threads ran"); !leak.empty()) {
    return cases.Fail("threads/allocate_copy_free", leak);
  }
  cases.Pass("threads/allocate_copy_free",
             absl::StrCat(kThreads, " threads x ", kAllocationsPerThread,
                          " allocations of 1..65536 bytes, each verified before its free"));
}

}  // namespace tessera::plugin_check
