// [virtual-kernel] KgslKernel, unchanged, driving the virtual KGSL through the syscall seam:
// the whole life of a context and its buffers.
#include "kgsl_test_support.h"

#include "kgsl/kgsl_abi.h"

#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

using namespace kgsl_test;
using namespace std::chrono_literals;

namespace {

// KGSL_IOMMU_VA_BASE64 .. KGSL_IOMMU_VA_END64 (qualcomm-linux/kgsl kgsl_iommu.h).
constexpr std::uint64_t kVaBase64 = 0x4000000000ull, kVaEnd64 = 0x8000000000ull;

}  // namespace

TEST_CASE("a submitted IB writes seeded random values that the CPU reads back after the wait",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  CHECK(k.info().kind == KernelKind::kgsl);
  CHECK(k.info().is_virtual);
  CHECK(k.info().node == virt::kVirtualKgslNode);
  CHECK(k.info().chip_id == 0x06030001);
  CHECK(k.info().gpu_id == 630);
  CHECK(k.info().gmem_size == 1024 * 1024);

  std::mt19937 rng(20261202);
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(3 * 4096 + 100, {});
  CHECK(data.size == 4 * 4096);  // the driver rounds to whole pages
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  REQUIRE(data_view.size() == data.size);

  // The CPU fills the buffer first; the GPU overwrites part of it.
  std::vector<std::uint32_t> before(data.size / 4);
  for (auto& word : before) word = rng();
  std::memcpy(data_view.data(), before.data(), data.size);
  std::vector<std::uint32_t> values(64);
  for (auto& word : values) word = rng();
  const std::uint32_t fence_value = rng();
  const std::size_t first = 100, fence_index = 1000;
  const IbRef ib = write_ib(cmd, cmd_view, 0,
                            concat({mem_write(data.gpu + first * 4, values),
                                    cache_flush_ts(data.gpu + fence_index * 4, fence_value)}));
  const std::uint64_t fence = k.submit(ctx, std::span(&ib, 1), {});
  CHECK(fence == 1);
  REQUIRE(k.wait(ctx, fence, 5s));

  std::vector<std::uint32_t> expected = before;
  std::copy(values.begin(), values.end(), expected.begin() + first);
  expected[fence_index] = fence_value;
  std::vector<std::uint32_t> after(data.size / 4);
  std::memcpy(after.data(), data_view.data(), data.size);
  CHECK(after == expected);
  CHECK(k.reset_status(ctx) == ResetStatus::none);

  k.unmap(data, data_view);
  k.unmap(cmd, cmd_view);
  k.free(data);
  k.free(cmd);
  k.destroy_context(ctx);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("GPU addresses come from KGSL's 64-bit VA range and never equal the CPU address",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(7);
  std::vector<Bo> bos;
  std::vector<CpuView> views;
  for (int i = 0; i < 16; ++i) {
    bos.push_back(k.alloc(1 + rng() % (1 << 20), {}));
    views.push_back(k.map(bos.back()));
  }
  for (std::size_t i = 0; i < bos.size(); ++i) {
    CHECK(bos[i].gpu.value() >= kVaBase64);
    CHECK(bos[i].gpu.value() + bos[i].size <= kVaEnd64);
    CHECK(bos[i].gpu.value() != cpu_address(views[i]));
    for (std::size_t j = 0; j < i; ++j) {
      const bool disjoint = bos[i].gpu.value() + bos[i].size <= bos[j].gpu.value() ||
                            bos[j].gpu.value() + bos[j].size <= bos[i].gpu.value();
      CHECK(disjoint);
    }
  }
  for (std::size_t i = 0; i < bos.size(); ++i) {
    k.unmap(bos[i], views[i]);
    k.free(bos[i]);
  }
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("every memory type round-trips GPU writes, and IO-coherent memory is refused without IO coherence",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(11);
  const auto ctx = k.create_context(3);
  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  for (MemoryType type : {MemoryType::write_combined, MemoryType::cached, MemoryType::uncached}) {
    const Bo data = k.alloc(8192, BoFlags{type, false});
    CHECK(data.flags.type == type);
    CpuView view = k.map(data);
    std::vector<std::uint32_t> values(16);
    for (auto& word : values) word = rng();
    const IbRef ib = write_ib(cmd, cmd_view, 0, mem_write(data.gpu + 4096, values));
    REQUIRE(k.wait(ctx, k.submit(ctx, std::span(&ib, 1), {}), 5s));
    for (std::size_t i = 0; i < values.size(); ++i) CHECK(read32(view, 1024 + i) == values[i]);
    k.unmap(data, view);
    k.free(data);
  }
  // The virtual a6xx, like an SoC without KGSL_MMU_IO_COHERENT, drops KGSL_MEMFLAGS_IOCOHERENT;
  // the backend frees the object and says so rather than hand out non-coherent memory.
  try {
    k.alloc(4096, BoFlags{MemoryType::cached_coherent, false});
    FAIL("an IO-coherent allocation succeeded on a device without IO coherence");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::unsupported);
    CHECK(error.operation() == "KGSL IOCTL_KGSL_GPUOBJ_ALLOC");
    CHECK(error.detail().find("IO-coherent") != std::string::npos);
  }
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.destroy_context(ctx);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("contexts of every priority run work, and a priority beyond KGSL's levels is refused",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  REQUIRE(k.info().priority_levels == 15);
  std::mt19937 rng(3);
  const Bo cmd = k.alloc(4096 * 4, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  std::vector<Kernel::ContextId> contexts;
  std::vector<std::uint32_t> values;
  for (unsigned priority = 0; priority < k.info().priority_levels; ++priority) {
    contexts.push_back(k.create_context(priority));
    values.push_back(rng());
    const IbRef ib = write_ib(cmd, cmd_view, priority * 64, mem_write(data.gpu + priority * 4, {values.back()}));
    REQUIRE(k.wait(contexts.back(), k.submit(contexts.back(), std::span(&ib, 1), {}), 5s));
  }
  for (unsigned priority = 0; priority < values.size(); ++priority) CHECK(read32(data_view, priority) == values[priority]);
  try {
    k.create_context(k.info().priority_levels);
    FAIL("priority 15 was accepted");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::invalid_argument);
  }
  for (auto ctx : contexts) k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a wait that runs out of time returns false, and succeeds once the GPU gets past",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(5);
  const std::uint32_t release = rng() | 1;
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  const IbRef ib = write_ib(cmd, cmd_view, 0, wait_memory_equal(data.gpu, release));
  const auto fence = k.submit(ctx, std::span(&ib, 1), {});
  CHECK_FALSE(k.wait(ctx, fence, 0ns));
  CHECK_FALSE(k.wait(ctx, fence, 20ms));
  std::memcpy(data_view.data(), &release, 4);  // the CPU releases the CP wait
  CHECK(k.wait(ctx, fence, 5s));
  CHECK(k.reset_status(ctx) == ResetStatus::none);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  k.destroy_context(ctx);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("opening a node that does not exist names the node and ENOENT", "[virtual-kernel][kgsl]") {
  virt::VirtualSyscalls sys;
  try {
    open_kgsl_kernel(sys, "/dev/kgsl-3d1", true);
    FAIL("a missing node opened");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::not_found);
    CHECK(error.sys_errno() == ENOENT);
    CHECK(error.detail() == "/dev/kgsl-3d1");
  }
  CHECK(sys.leaks().empty());
}

TEST_CASE("a submission without IBs is a marker that still gets the next timestamp", "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  const IbRef ib = write_ib(cmd, cmd_view, 0, {pm4::type7_header(0x10, 0)});
  CHECK(k.submit(ctx, std::span(&ib, 1), {}) == 1);
  // kgsl.c _process_command_input: no commands and no sync points make a MARKER object.
  const auto marker = k.submit(ctx, {}, {});
  CHECK(marker == 2);
  CHECK(k.wait(ctx, marker, 5s));
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.destroy_context(ctx);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("with 16 KiB kernel pages, objects are whole pages and each is mapped at its id << 14",
          "[virtual-kernel][kgsl]") {
  // kgsl.c kgsl_mmap hands vma->vm_pgoff — the offset in the kernel's pages — to get_mmap_entry
  // as the object id; kgsl_sharedmem.c kgsl_alloc_pages rounds sizes to PAGE_SIZE and
  // kgsl_memdesc_init aligns GPU addresses to it. Some arm64 Android kernels use 16 KiB pages.
  constexpr std::uint64_t kPage = 16384;
  virt::VirtualGpuConfig config;
  config.page_size = kPage;
  VirtualKgsl v(config);
  std::vector<std::uint64_t> offsets;
  v.sys.set_observer([&offsets](const virt::VirtualSyscalls::Call& call) {
    if (call.kind == virt::VirtualSyscalls::Call::Kind::mmap) offsets.push_back(call.offset);
  });
  Kernel& k = *v.kernel;
  std::mt19937 rng(37);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(kPage + 100, {});
  CHECK(cmd.size == kPage);
  CHECK(data.size == 2 * kPage);
  CHECK(cmd.gpu.value() % kPage == 0);
  CHECK(data.gpu.value() % kPage == 0);
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  CHECK(offsets == std::vector<std::uint64_t>{cmd.handle * kPage, data.handle * kPage});

  // The mappings are the objects: the GPU writes the second page of `data`, the CPU reads it.
  const auto ctx = k.create_context(0);
  std::vector<std::uint32_t> values(16);
  for (auto& value : values) value = rng();
  const IbRef ib = write_ib(cmd, cmd_view, 0, mem_write(data.gpu + kPage, values));
  REQUIRE(k.wait(ctx, k.submit(ctx, std::span(&ib, 1), {}), 5s));
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(read32(data_view, kPage / 4 + i) == values[i]);

  v.sys.set_observer({});
  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("GPU_COMMAND on a full draw queue times out having queued nothing, and asked again each IB runs once",
          "[virtual-kernel][kgsl]") {
  // adreno_dispatch.c _wait_for_room_in_context_queue: a context holds at most
  // _context_drawqueue_size - 1 drawobjs; GPU_COMMAND sleeps up to _context_queue_wait for room
  // and then answers -ETIMEDOUT before queueing anything. A queue of 3 (room for 2 commands)
  // and a 20 ms wait make it happen behind one command held at a CP wait.
  virt::VirtualGpuConfig config;
  config.context_queue_size = 3;
  config.context_queue_wait = 20ms;
  config.hang_timeout = 30s;  // the held command is released by the test, not the hang detector
  VirtualKgsl v(config);
  Kernel& k = *v.kernel;
  std::mt19937 rng(41);
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  std::memset(data_view.data(), 0, 64);
  constexpr std::size_t kCommands = 6;
  const std::uint32_t gate = rng() | 1;
  std::vector<std::uint32_t> values(kCommands);
  for (auto& value : values) value = rng();
  std::vector<IbRef> ibs;
  for (std::size_t i = 0; i < kCommands; ++i) {
    const auto write = mem_write(data.gpu + 4 * (i + 1), {values[i]});
    const auto stream = i == 0 ? concat({wait_memory_equal(data.gpu, gate), write}) : write;
    ibs.push_back(write_ib(cmd, cmd_view, 256 * i, stream));
  }

  std::mutex mutex;
  std::condition_variable changed;
  unsigned queued = 0, timed_out = 0;  // GPU_COMMAND answers
  v.sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
    if (call.kind != virt::VirtualSyscalls::Call::Kind::ioctl || call.request != IOCTL_KGSL_GPU_COMMAND) return;
    std::lock_guard lock(mutex);
    ++(call.result == 0 ? queued : timed_out);
    changed.notify_all();
  });
  std::vector<std::uint64_t> fences(kCommands);
  std::thread submitter([&] {
    for (std::size_t i = 0; i < kCommands; ++i) fences[i] = k.submit(ctx, std::span(&ibs[i], 1), {});
  });
  {
    // The third command finds no room until the first retires: wait for the driver to say so
    // (a bound only so that a kernel that never says so fails instead of hanging).
    std::unique_lock lock(mutex);
    CHECK(changed.wait_for(lock, 30s, [&] { return timed_out > 0; }));
    CHECK(queued == 2);
  }
  std::memcpy(data_view.data(), &gate, 4);
  submitter.join();
  v.sys.set_observer({});
  CHECK(queued == kCommands);  // every command queued exactly once
  for (std::size_t i = 0; i < kCommands; ++i) CHECK(fences[i] == fences[0] + i);
  REQUIRE(k.wait(ctx, fences.back(), 5s));
  for (std::size_t i = 0; i < kCommands; ++i) CHECK(read32(data_view, i + 1) == values[i]);

  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}
