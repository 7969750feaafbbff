// [virtual-kernel] Sharing memory with KGSL: dma-buf and user-memory imports, and the refusal
// to export what KGSL allocated itself.
#include "kgsl_test_support.h"

#include "kgsl/kgsl_abi.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>

using namespace kgsl_test;
using namespace std::chrono_literals;

TEST_CASE("an imported dma-buf is shared between its own mapping, KGSL's mapping and the GPU",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(19);
  // A memfd stands in for a dma-heap buffer: the virtual KGSL accepts any memfd as a dma-buf.
  constexpr std::size_t size = 16 * 4096;
  const int dmabuf = ::memfd_create("kgsl-test-dmabuf", MFD_CLOEXEC);
  REQUIRE(dmabuf >= 0);
  REQUIRE(::ftruncate(dmabuf, size) == 0);
  void* own = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
  REQUIRE(own != MAP_FAILED);

  const Bo bo = k.import_dmabuf(dmabuf);
  CHECK(bo.size == size);
  CHECK(bo.flags.type == MemoryType::cached);
  CpuView view = k.map(bo);
  CHECK(bo.gpu.value() != cpu_address(view));
  CHECK(view.data() != own);
  const std::uint32_t from_cpu = rng();
  std::memcpy(own, &from_cpu, 4);
  CHECK(read32(view, 0) == from_cpu);

  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  std::vector<std::uint32_t> values(32);
  for (auto& word : values) word = rng();
  const IbRef ib = write_ib(cmd, cmd_view, 0, mem_write(bo.gpu + 8192, values));
  REQUIRE(k.wait(ctx, k.submit(ctx, std::span(&ib, 1), {}), 5s));
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t seen;
    std::memcpy(&seen, static_cast<std::byte*>(own) + 8192 + i * 4, 4);
    CHECK(seen == values[i]);
    CHECK(read32(view, 2048 + i) == values[i]);
  }

  k.unmap(bo, view);
  k.free(bo);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.destroy_context(ctx);
  ::munmap(own, size);
  ::close(dmabuf);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("imported user memory is written by the GPU in place and cannot be mapped again",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(23);
  constexpr std::size_t size = 4 * 4096;
  auto* memory = static_cast<std::uint32_t*>(std::aligned_alloc(4096, size));
  REQUIRE(memory != nullptr);
  for (std::size_t i = 0; i < size / 4; ++i) memory[i] = rng();
  std::vector<std::uint32_t> expected(memory, memory + size / 4);

  const Bo bo = k.import_user_memory(memory, size);
  CHECK(bo.size == size);
  CHECK(bo.gpu.value() != reinterpret_cast<std::uintptr_t>(memory));
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  std::vector<std::uint32_t> values(8);
  for (auto& word : values) word = rng();
  const IbRef ib = write_ib(cmd, cmd_view, 0, mem_write(bo.gpu + 4096 + 12, values));
  REQUIRE(k.wait(ctx, k.submit(ctx, std::span(&ib, 1), {}), 5s));
  std::copy(values.begin(), values.end(), expected.begin() + 1024 + 3);
  CHECK(std::vector<std::uint32_t>(memory, memory + size / 4) == expected);

  // get_mmap_entry: KGSL never maps user memory a second time (-EBUSY).
  try {
    k.map(bo);
    FAIL("user memory was mapped through KGSL");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::busy);
    CHECK(error.sys_errno() == EBUSY);
    CHECK(error.operation() == "KGSL mmap");
  }
  // Unaligned user memory is refused (kgsl.c kgsl_setup_useraddr: -EINVAL).
  try {
    k.import_user_memory(reinterpret_cast<std::byte*>(memory) + 64, 4096);
    FAIL("unaligned user memory was imported");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::invalid_argument);
    CHECK(error.sys_errno() == EINVAL);
  }

  k.free(bo);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.destroy_context(ctx);
  std::free(memory);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("exporting a KGSL allocation as a dma-buf is refused as unsupported", "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  const Bo bo = k.alloc(4096, {});
  try {
    k.export_dmabuf(bo);
    FAIL("a KGSL allocation was exported");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::unsupported);
    CHECK(error.operation() == "KGSL export_dmabuf");
    CHECK(error.detail().find("dma-heap") != std::string::npos);
  }
  k.free(bo);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("importing a descriptor that is no dma-buf fails with the driver's errno", "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  try {
    k.import_dmabuf(pipe_fds[0]);
    FAIL("a pipe was imported as a dma-buf");
  } catch (const Error& error) {
    CHECK(error.sys_errno() == EINVAL);
    CHECK(error.operation() == "KGSL IOCTL_KGSL_GPUOBJ_IMPORT");
    CHECK(error.detail() == "dma-buf fd " + std::to_string(pipe_fds[0]));
  }
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  CHECK(v.close_and_list_leaks().empty());
}

namespace {

// Descriptors open in this process, from /proc/self/fd.
std::size_t open_descriptors() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
  return count;
}

}  // namespace

TEST_CASE("a dma-buf imported while another thread frees an object gets the freed id and stays mappable through "
          "its own descriptor",
          "[virtual-kernel][kgsl]") {
  // KGSL hands out the lowest free object id (kgsl.c kgsl_mem_entry_attach_process: idr_alloc
  // from 1, not cyclic), so the moment GPUOBJ_FREE returns, an import on another thread can be
  // given the id that is being freed. The backend's note of which id is a dma-buf must not be
  // touched by the free after that point: the import's note would go (its map() then asks KGSL
  // to map a dma-buf, which get_mmap_entry refuses with -EINVAL, the soak's failure), and a freed
  // import's own descriptor would be overwritten and leak. The other thread is played by the
  // seam's observer, which runs right after the driver answered GPUOBJ_FREE.
  const bool freed_is_import = GENERATE(false, true);
  CAPTURE(freed_is_import);
  const std::size_t descriptors_before = open_descriptors();
  std::mt19937 rng(41);
  constexpr std::size_t size = 3 * 4096;
  const int first_dmabuf = ::memfd_create("kgsl-test-freed", MFD_CLOEXEC);
  const int second_dmabuf = ::memfd_create("kgsl-test-reused", MFD_CLOEXEC);
  REQUIRE(first_dmabuf >= 0);
  REQUIRE(second_dmabuf >= 0);
  REQUIRE(::ftruncate(first_dmabuf, size) == 0);
  REQUIRE(::ftruncate(second_dmabuf, size) == 0);
  {
    VirtualKgsl v;
    Kernel& k = *v.kernel;
    const Bo freed = freed_is_import ? k.import_dmabuf(first_dmabuf) : k.alloc(size, {});
    std::optional<Bo> imported;
    v.sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
      if (call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && call.request == IOCTL_KGSL_GPUOBJ_FREE &&
          call.result == 0 && !imported) {
        imported = k.import_dmabuf(second_dmabuf);
      }
    });
    k.free(freed);
    v.sys.set_observer({});
    REQUIRE(imported);
    REQUIRE(imported->handle == freed.handle);  // the id was reused, as the driver does

    CpuView view = k.map(*imported);
    k.cpu_access(*imported, CpuAccess::begin);
    const std::uint32_t value = rng();
    std::memcpy(view.data() + 4096, &value, 4);
    k.cpu_access(*imported, CpuAccess::end);
    std::uint32_t seen = 0;
    REQUIRE(::pread(second_dmabuf, &seen, 4, 4096) == 4);
    CHECK(seen == value);
    k.unmap(*imported, view);
    k.free(*imported);
    CHECK(v.close_and_list_leaks().empty());
  }
  ::close(first_dmabuf);
  ::close(second_dmabuf);
  CHECK(open_descriptors() == descriptors_before);  // no dup of either dma-buf outlived its object
}

TEST_CASE("an imported dma-buf whose free fails is still mapped through its own descriptor, and freed later",
          "[virtual-kernel][kgsl]") {
  // The free takes the object's dma-buf note before GPUOBJ_FREE (above); when the driver refuses
  // (kgsl.c kgsl_ioctl_gpuobj_free: -EFAULT from copy_from_user, the object untouched), the
  // object lives on and must keep it.
  const std::size_t descriptors_before = open_descriptors();
  constexpr std::size_t size = 2 * 4096;
  const int dmabuf = ::memfd_create("kgsl-test-kept", MFD_CLOEXEC);
  REQUIRE(dmabuf >= 0);
  REQUIRE(::ftruncate(dmabuf, size) == 0);
  {
    VirtualKgsl v;
    Kernel& k = *v.kernel;
    const Bo bo = k.import_dmabuf(dmabuf);
    v.sys.fail_ioctl(IOCTL_KGSL_GPUOBJ_FREE, 1, EFAULT);
    try {
      k.free(bo);
      FAIL("the injected GPUOBJ_FREE failure was not reported");
    } catch (const Error& error) {
      CHECK(error.sys_errno() == EFAULT);
    }
    CpuView view = k.map(bo);
    const std::uint32_t value = std::mt19937(43)();
    std::memcpy(view.data() + 4, &value, 4);
    std::uint32_t seen = 0;
    REQUIRE(::pread(dmabuf, &seen, 4, 4) == 4);
    CHECK(seen == value);
    k.unmap(bo, view);
    k.free(bo);
    CHECK(v.close_and_list_leaks().empty());
  }
  ::close(dmabuf);
  CHECK(open_descriptors() == descriptors_before);
}
