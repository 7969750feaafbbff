// [virtual-kernel] The host records a Buffer is made of (its MemoryBlock and its Buffer::Impl), on
// both virtual kernels: once warm, a small buffer's allocate + free builds them in its allocation
// record's slots instead of on the heap (issue 19); they are made and freed on any thread, and the
// last ones go after the Device handle is gone. Heap allocations are counted by replacing the
// global operator new for this test binary.
#include <adreno/adreno.hpp>
#include <adreno/queue.hpp>

#include "virtual_device.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

// heap_allocations counts every global operator new of this test binary.
#include "../heap_counter.h"

using namespace adreno;

namespace {

// What a buffer is filled with: `pattern` ^ word index in every word.
std::vector<std::uint32_t> pattern_words(std::uint64_t bytes, std::uint32_t pattern) {
  std::vector<std::uint32_t> words(bytes / 4);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = pattern ^ static_cast<std::uint32_t>(i);
  return words;
}

void fill(const Buffer& buffer, std::uint32_t pattern) {
  const auto words = pattern_words(buffer.size(), pattern);
  std::memcpy(buffer.cpu_view().data(), words.data(), words.size() * 4);
}

bool holds(const Buffer& buffer, std::uint32_t pattern) {
  const auto expected = pattern_words(buffer.size(), pattern);
  return std::memcmp(buffer.cpu_view().data(), expected.data(), expected.size() * 4) == 0;
}

struct Filled {
  Buffer buffer;
  std::uint32_t pattern;
};

}  // namespace

// Fails when Device::allocate makes its MemoryBlock or its Buffer::Impl with make_shared (two heap
// allocations per buffer), or when a freed record is not kept for the next buffer.
TEST_CASE("a small buffer's Device::allocate and free in steady state make no heap allocation and no syscall",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    const std::uint64_t sizes[] = {64, 256, 200, 4096, Allocator::kSmallMax};
    Buffer keep = device->allocate({.size = 64});                 // keeps the slab from emptying
    for (std::uint64_t size : sizes) device->allocate({.size = size});  // warm-up
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    // No assertion inside the counted loop: a failing one would allocate its message.
    std::uint64_t wrong_sizes = 0;
    for (int i = 0; i < 16; ++i) {
      for (std::uint64_t size : sizes) {
        Buffer buffer = device->allocate({.size = size});
        if (buffer.size() != size) ++wrong_sizes;
      }
    }
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
    CHECK(wrong_sizes == 0);
  }
  device.close_and_check_ledger();
}

// Threads allocate buffers of seeded random sizes, fill each with a pattern of their own, and hand
// half of them to the next thread, which checks and frees them; one thread also writes some of its
// buffers through a queue and drops them before the GPU ran the write (the queue holds the memory
// block past its buffer record). The queue and then the last buffers go on another thread after
// the Device handle is gone, the device itself with the last of them. Under AddressSanitizer a
// record reused or deleted while a node is still in it is reported, under ThreadSanitizer a slot
// taken again without the release store that frees it; the ledger catches memory never given
// back, LeakSanitizer records never deleted.
TEST_CASE("buffers made and freed on several threads, the last ones after the Device handle is gone, leave nothing behind",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  constexpr int kThreads = 4, kRounds = 48;
  std::optional<Queue> queue(std::in_place, *device);
  std::mutex mutex;
  std::vector<std::vector<Filled>> inbox(kThreads);  // under mutex
  std::vector<std::vector<Filled>> kept(kThreads);   // each thread's own, read after join
  std::atomic<int> wrong{0};

  auto work = [&](int thread) {
    std::mt19937 rng(1900 + static_cast<unsigned>(thread));
    std::uniform_int_distribution<std::uint64_t> small(1, Allocator::kSmallMax / 4);
    auto& mine = kept[static_cast<std::size_t>(thread)];
    for (int round = 0; round < kRounds; ++round) {
      // Mostly small buffers (slab ranges), one in eight a cached object of its own.
      const std::uint64_t size = round % 8 == 7 ? 64 * 1024 : small(rng) * 4;
      Filled filled{device->allocate({.size = size}), static_cast<std::uint32_t>(rng())};
      fill(filled.buffer, filled.pattern);
      if (thread == 0 && round % 2 == 0) {
        queue->write(filled.buffer.view(0, 4), std::vector<std::uint32_t>{filled.pattern});
        queue->submit();
        continue;  // dropped with its write possibly still queued
      }
      if (round % 2 == 1) {
        std::lock_guard lock(mutex);
        inbox[static_cast<std::size_t>((thread + 1) % kThreads)].push_back(std::move(filled));
      } else {
        mine.push_back(std::move(filled));
        if (mine.size() > 4) {
          if (!holds(mine.front().buffer, mine.front().pattern)) ++wrong;
          mine.erase(mine.begin());
        }
      }
      std::vector<Filled> received;
      {
        std::lock_guard lock(mutex);
        received.swap(inbox[static_cast<std::size_t>(thread)]);
      }
      for (const Filled& other : received) {
        if (!holds(other.buffer, other.pattern)) ++wrong;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) threads.emplace_back(work, thread);
  for (auto& thread : threads) thread.join();

  std::vector<Filled> survivors;
  for (auto* lists : {&inbox, &kept}) {
    for (auto& list : *lists) {
      for (auto& filled : list) survivors.push_back(std::move(filled));
    }
  }
  REQUIRE_FALSE(survivors.empty());
  device.device.reset();  // the survivors and the queue keep what they need of the device
  std::thread([&] {
    queue->finish();
    queue.reset();
    // The last survivor's memory block holds the last reference to the device: the device closes
    // while this buffer's records are still out.
    for (const Filled& filled : survivors) {
      if (!holds(filled.buffer, filled.pattern)) ++wrong;
    }
    survivors.clear();
  }).join();
  CHECK(wrong == 0);
  const auto leaks = device.system->leaks();
  for (const auto& leak : leaks) UNSCOPED_INFO("leak: " << leak);
  CHECK(leaks.empty());
}

// An allocation record carries the slots a buffer's MemoryBlock and Buffer::Impl nodes are built in
// (RecordSlot); a node may still be in its slot after the allocation was given back, being
// destroyed on another thread. Setting `in_use` by hand stands for that node here.
// Fails when the allocator hands such a record out again (new_record not asking records_free),
// or deletes it while it is in use (recycle's cap on spare records).
TEST_CASE("an allocation record whose node is still in its slot is neither handed out again nor deleted",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Allocator& allocator = device->impl().allocator();
    auto held = allocator.allocate(256, 0, BoFlags{}, true);  // keeps the slab from emptying
    constexpr std::size_t kRecords = Allocator::kSpareRecords + 8;
    std::vector<std::unique_ptr<Allocation>> allocations;
    for (std::size_t i = 0; i < kRecords; ++i) allocations.push_back(allocator.allocate(256, 0, BoFlags{}, true));
    std::vector<Allocation*> busy;
    for (std::size_t i = 0; i < kRecords; ++i) {
      busy.push_back(allocations[i].get());
      (i % 2 == 0 ? busy.back()->block_record : busy.back()->buffer_record).in_use.store(true);
    }
    for (auto& allocation : allocations) allocator.release(std::move(allocation));
    // Every record given back is in use: the next allocation gets a record of its own.
    auto fresh = allocator.allocate(256, 0, BoFlags{}, true);
    CHECK(std::find(busy.begin(), busy.end(), fresh.get()) == busy.end());
    // The nodes are gone: every record comes back, none was deleted while in use.
    for (Allocation* record : busy) {
      record->block_record.in_use.store(false);
      record->buffer_record.in_use.store(false);
    }
    std::vector<std::unique_ptr<Allocation>> again;
    for (std::size_t i = 0; i < kRecords; ++i) again.push_back(allocator.allocate(256, 0, BoFlags{}, true));
    std::size_t reused = 0;
    for (const auto& allocation : again) reused += std::count(busy.begin(), busy.end(), allocation.get());
    CHECK(reused == kRecords);
    for (auto& allocation : again) allocator.release(std::move(allocation));
    allocator.release(std::move(fresh));
    allocator.release(std::move(held));
  }
  device.close_and_check_ledger();
}
