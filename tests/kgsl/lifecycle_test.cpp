// [virtual-kernel] KgslKernel, unchanged, driving the virtual KGSL through the syscall seam:
// the whole life of a context and its buffers.
#include "kgsl_test_support.h"

#include <catch2/catch.hpp>

#include <random>

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
