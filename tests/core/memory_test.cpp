// [virtual-kernel] Buffers through the public API on both virtual kernels: allocation policy,
// deferred reuse, alignment, views, imports, exports, read-only faults, fault injection.
#include <sys/mman.h>
#include <unistd.h>

#include <adreno/adreno.hpp>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>
#include <span>
#include <vector>

#include "virt/kernels/virtual_syscalls.h"
#include "virtual_device.h"

using namespace adreno;

namespace {

void fill(const Buffer& buffer, std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (auto& word : buffer.cpu_view().as<std::uint32_t>()) word = rng();
}

bool holds(const Buffer& buffer, std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (auto word : buffer.cpu_view().as<std::uint32_t>()) {
    if (word != rng()) return false;
  }
  return true;
}

int make_dmabuf(std::size_t size) {
  int fd = ::memfd_create("test-dmabuf", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
  return fd;
}

}  // namespace

TEST_CASE("random allocations never overlap, keep their contents and leak nothing", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937_64 rng(2024);
    const MemoryType types[] = {MemoryType::write_combined, MemoryType::cached, MemoryType::uncached};
    struct Live {
      Buffer buffer;
      std::uint32_t seed;
    };
    std::vector<Live> live;
    for (int step = 0; step < 400; ++step) {
      if (live.empty() || rng() % 3 != 0) {
        BufferDesc desc;
        desc.size = 4 + rng() % (rng() % 4 == 0 ? (1 << 20) : 4096);
        desc.alignment = std::uint64_t{1} << (rng() % 13);
        desc.memory = types[rng() % 3];
        Buffer buffer = device->allocate(desc);
        REQUIRE(buffer.size() == desc.size);
        REQUIRE(buffer.gpu_address().value() % desc.alignment == 0);
        REQUIRE(reinterpret_cast<std::uintptr_t>(buffer.cpu_view().data()) != buffer.gpu_address().value());
        for (const Live& other : live) {
          const auto a = buffer.gpu_address().value(), b = other.buffer.gpu_address().value();
          REQUIRE((a + buffer.size() <= b || b + other.buffer.size() <= a));
        }
        const auto seed = static_cast<std::uint32_t>(rng());
        fill(buffer, seed);
        live.push_back(Live{std::move(buffer), seed});
      } else {
        live.erase(live.begin() + static_cast<long>(rng() % live.size()));
      }
    }
    for (const Live& l : live) CHECK(holds(l.buffer, l.seed));
    live.clear();
  }
  device.close_and_check_ledger();
}

TEST_CASE("what the GPU writes into cached memory is what the host reads after invalidating it",
          "[virtual-kernel][memory]") {
  // The virtual msm node leaves a MSM_BO_CACHED object's pages with dirty CPU lines from the
  // kernel's zeroing (msm_gem.c get_pages() cleans only MSM_BO_WC pages); the host's
  // invalidate_for_cpu (DC CIVAC) writes any line still dirty back over the GPU's results. The
  // backend cleans the whole mapping after GEM_NEW, as Turnip does. KGSL zeroes and cleans every
  // page it allocates (kgsl_sharedmem.c kgsl_zero_page), so there the test only confirms it.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue queue(*device);
    std::mt19937 rng(4711);
    // A small buffer carved from a shared object, and one with an object of its own.
    for (const std::uint64_t size : {std::uint64_t{256}, std::uint64_t{64 * 1024}}) {
      CAPTURE(size);
      Buffer buffer = device->allocate({.size = size, .memory = MemoryType::cached});
      std::vector<std::uint32_t> values(size / 4);
      for (auto& value : values) value = static_cast<std::uint32_t>(rng()) | 1;  // never zero
      for (std::size_t at = 0; at < values.size(); at += 1024) {
        const std::size_t count = std::min<std::size_t>(1024, values.size() - at);
        queue.write(buffer.view(at * 4, count * 4), std::span(values).subspan(at, count));
      }
      queue.finish();
      buffer.invalidate_for_cpu();
      const auto words = buffer.cpu_view().as<std::uint32_t>();
      for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(words[i] == values[i]);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("cached memory handed to a new owner is cleaned first, so the previous owner's CPU stores cannot land over the GPU's writes",
          "[virtual-kernel][memory]") {
  // The previous owner's CPU stores may still be dirty lines in the CPU's cache when its memory
  // is recycled; DC CVAC by the CPU is the only way to write them back at a harmless point
  // (Turnip cleans a cached BO's mapping after GEM_NEW, tu_knl_drm_msm.cc). The virtual kernels
  // cannot see CPU stores, so the test checks the cleans through the syscall seam: every byte of
  // the new owner's memory that the previous owner held is cleaned before the new owner gets it.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  struct Range {
    const std::byte* begin;
    const std::byte* end;
  };
  std::mutex mutex;
  std::vector<Range> cleaned;
  device.system->set_observer([&](const virt::VirtualSyscalls::Call& call) {
    if (call.kind != virt::VirtualSyscalls::Call::Kind::cache_clean) return;
    const auto* begin = static_cast<const std::byte*>(call.address);
    std::lock_guard lock(mutex);
    cleaned.push_back(Range{begin, begin + call.length});
  });
  {
    Queue queue(*device);
    std::mt19937 rng(90210);
    // A small buffer carved from a shared object, and one with an object of its own.
    for (const std::uint64_t size : {std::uint64_t{256}, std::uint64_t{64 * 1024}}) {
      CAPTURE(size);
      Range previous{};
      {
        Buffer first = device->allocate({.size = size, .memory = MemoryType::cached});
        auto bytes = first.cpu_view().as<std::uint32_t>();
        for (auto& word : bytes) word = static_cast<std::uint32_t>(rng());  // CPU stores, never flushed
        previous = Range{first.cpu_view().data(), first.cpu_view().data() + size};
      }
      {
        std::lock_guard lock(mutex);
        cleaned.clear();
      }
      Buffer second = device->allocate({.size = size, .memory = MemoryType::cached});
      const Range mine{second.cpu_view().data(), second.cpu_view().data() + size};
      const Range reused{std::max(mine.begin, previous.begin), std::min(mine.end, previous.end)};
      REQUIRE(reused.begin < reused.end);  // the allocator hands the freed memory on
      {
        std::lock_guard lock(mutex);
        for (const std::byte* at = reused.begin; at < reused.end; ++at) {
          const bool covered =
              std::any_of(cleaned.begin(), cleaned.end(), [&](const Range& r) { return r.begin <= at && at < r.end; });
          if (!covered) FAIL("byte " << (at - mine.begin) << " of the recycled memory was not cleaned");
        }
      }
      // And the GPU's writes are what the host reads.
      std::vector<std::uint32_t> values(size / 4);
      for (auto& value : values) value = static_cast<std::uint32_t>(rng()) | 1;
      for (std::size_t at = 0; at < values.size(); at += 1024) {
        const std::size_t count = std::min<std::size_t>(1024, values.size() - at);
        queue.write(second.view(at * 4, count * 4), std::span(values).subspan(at, count));
      }
      queue.finish();
      second.invalidate_for_cpu();
      const auto words = second.cpu_view().as<std::uint32_t>();
      for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(words[i] == values[i]);
    }
  }
  device.system->set_observer({});
  device.close_and_check_ledger();
}

TEST_CASE("small buffers are carved from shared kernel objects without an ioctl each", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::vector<Buffer> buffers;
    buffers.push_back(device->allocate({.size = 256}));
    const unsigned before = device.system->ioctl_count(0);
    for (int i = 0; i < 100; ++i) buffers.push_back(device->allocate({.size = 256}));
    CHECK(device.system->ioctl_count(0) == before);
    buffers.clear();
  }
  device.close_and_check_ledger();
}

TEST_CASE("freed memory is not reused while a submission that used it has not retired", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const std::uint64_t size = GENERATE(std::uint64_t{256}, std::uint64_t{64 * 1024});
    INFO("size " << size);
    Queue queue(*device);
    Signal gate(*device, 0);
    Buffer used = device->allocate({.size = size});
    const GpuAddress used_address = used.gpu_address();
    // The submission waits for the gate, then writes the buffer: it cannot retire yet.
    queue.wait(gate, 1);
    const std::uint32_t marker[] = {0x5eed1234};
    queue.write(used, marker);
    const std::uint64_t fence = queue.submit();
    used = Buffer();  // freed while the GPU still holds it
    std::vector<Buffer> others;
    for (int i = 0; i < 8; ++i) {
      others.push_back(device->allocate({.size = size}));
      const auto a = others.back().gpu_address().value();
      CHECK((a + size <= used_address.value() || used_address.value() + size <= a));
    }
    CHECK_FALSE(queue.wait_fence(fence, std::chrono::milliseconds(20)));
    gate.set(1);
    REQUIRE(queue.wait_fence(fence, std::chrono::seconds(10)));
    // Once retired, the same memory comes back: first fit for slabs, the size-class cache otherwise.
    Buffer again = device->allocate({.size = size});
    CHECK(again.gpu_address() == used_address);
    CHECK(again.cpu_view().as<std::uint32_t>()[0] == marker[0]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("memory used by several submissions and queues is reused only after the last of them retired",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const std::uint64_t size = GENERATE(std::uint64_t{256}, std::uint64_t{64 * 1024});
    INFO("size " << size);
    Queue first(*device), second(*device);
    Signal gate(*device, 0);
    Buffer used = device->allocate({.size = size});
    const GpuAddress used_address = used.gpu_address();
    std::mt19937 rng(static_cast<std::uint32_t>(size));
    const std::uint32_t markers[] = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng()),
                                     static_cast<std::uint32_t>(rng())};
    // Two submissions that retire (on both queues), then a later one on the first queue that
    // cannot: the buffer's use on that queue is the later one.
    first.write(used, std::span(markers, 1));
    first.finish(std::chrono::seconds(10));
    second.write(used.view(4, 4), std::span(markers + 1, 1));
    second.finish(std::chrono::seconds(10));
    first.wait(gate, 1);
    first.write(used.view(8, 4), std::span(markers + 2, 1));
    const std::uint64_t fence = first.submit();
    used = Buffer();
    std::vector<Buffer> others;
    for (int i = 0; i < 8; ++i) {
      others.push_back(device->allocate({.size = size}));
      const auto a = others.back().gpu_address().value();
      CHECK((a + size <= used_address.value() || used_address.value() + size <= a));
    }
    gate.set(1);
    REQUIRE(first.wait_fence(fence, std::chrono::seconds(10)));
    Buffer again = device->allocate({.size = size});
    CHECK(again.gpu_address() == used_address);
    for (int i = 0; i < 3; ++i) CHECK(again.cpu_view().as<std::uint32_t>()[i] == markers[i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("views address windows of their buffer and reject windows that do not fit", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Buffer buffer = device->allocate({.size = 4096});
    std::memset(buffer.cpu_view().data(), 0, 4096);
    BufferView window = buffer.view(1024, 512);
    CHECK(window.gpu_address() == buffer.gpu_address() + 1024);
    CHECK(window.cpu_view().data() == buffer.cpu_view().data() + 1024);
    BufferView inner = window.view(16, 32);
    CHECK(inner.offset() == 1040);
    CHECK_THROWS_AS(buffer.view(4000, 200), Error);
    CHECK_THROWS_AS(window.view(500, 13), Error);
    Queue queue(*device);
    const std::uint32_t values[] = {0xa1, 0xb2, 0xc3};
    queue.write(inner, values);
    queue.finish();
    auto words = buffer.cpu_view().as<std::uint32_t>();
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::size_t first = 1040 / 4;
      const std::uint32_t expected = i >= first && i < first + 3 ? values[i - first] : 0;
      REQUIRE(words[i] == expected);
    }
    buffer = Buffer();
    window = BufferView(device->allocate({.size = 64}));  // a view keeps its buffer alive
    CHECK(window.size() == 64);
    window = BufferView(device->allocate({.size = 8}));
  }
  device.close_and_check_ledger();
}

TEST_CASE("a dma-buf imported twice shares one object, in every release order", "[virtual-kernel][memory]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  const int order = GENERATE(0, 1, 2);
  INFO(backend << " order " << order);
  VirtualDevice device(backend);
  {
    int fd = make_dmabuf(8192);
    {
      Buffer first = device->import_dmabuf(fd);
      Buffer second = device->import_dmabuf(fd, 4096, 4096);
      CHECK(first.size() == 8192);
      CHECK(second.gpu_address() == first.gpu_address() + 4096);
      Queue queue(*device);
      const std::uint32_t values[] = {7, 8, 9};
      queue.write(second, values);
      queue.finish();
      CHECK(std::memcmp(first.cpu_view().data() + 4096, values, sizeof values) == 0);
      // The caller's fd stays the caller's: reading it shows the GPU's write.
      std::uint32_t through_fd[3];
      REQUIRE(::pread(fd, through_fd, sizeof through_fd, 4096) == sizeof through_fd);
      CHECK(std::memcmp(through_fd, values, sizeof values) == 0);
      if (order == 0) first = Buffer();
      if (order == 1) second = Buffer();
      if (order == 2) ::close(fd);
    }
    if (order != 2) ::close(fd);
    CHECK_THROWS_AS(device->import_dmabuf(fd), Error);  // closed: not a dma-buf any more
  }
  device.close_and_check_ledger();
}

TEST_CASE("exports work on MSM and are refused as unsupported on KGSL", "[virtual-kernel][memory]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  VirtualDevice device(backend);
  {
    Buffer shared = device->allocate({.size = 4096, .exportable = true});
    fill(shared, 5);
    Buffer small = device->allocate({.size = 64});
    CHECK_THROWS_AS(device->export_dmabuf(small), Error);  // shares its kernel object
    if (backend.starts_with("virtual-msm")) {
      int fd = device->export_dmabuf(shared);
      REQUIRE(fd >= 0);
      Buffer again = device->import_dmabuf(fd);
      ::close(fd);
      CHECK(holds(again, 5));
    } else {
      try {
        device->export_dmabuf(shared);
        FAIL("KGSL exported a buffer that did not come from a dma-heap");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::unsupported);
      }
    }
    shared = Buffer();
    small = Buffer();
  }
  device.close_and_check_ledger();
}

TEST_CASE("host memory is imported on KGSL and refused with a pointer to dma-buf on MSM", "[virtual-kernel][memory]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  VirtualDevice device(backend);
  {
    std::vector<std::uint32_t> host(3000, 0);
    if (backend.starts_with("virtual-kgsl")) {
      // An unaligned window of the vector: the pages around it are imported.
      Buffer buffer = device->import_host_memory(host.data() + 5, 100 * 4);
      CHECK(buffer.cpu_view().data() == reinterpret_cast<std::byte*>(host.data() + 5));
      Queue queue(*device);
      const std::uint32_t values[] = {11, 22, 33};
      queue.write(buffer.view(8, 12), values);
      queue.finish();
      CHECK(host[7] == 11);
      CHECK(host[8] == 22);
      CHECK(host[9] == 33);
      CHECK(host[6] == 0);
    } else {
      try {
        device->import_host_memory(host.data(), 4096);
        FAIL("MSM imported host memory");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::unsupported);
        CHECK(std::string(error.what()).find("dma-buf") != std::string::npos);
      }
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a GPU write to a read-only buffer is dropped, and the queue goes on as on the drivers",
          "[virtual-kernel][memory]") {
  // A page fault: the drivers' default IOMMU setup logs it and lets the GPU carry on, so the
  // write is lost silently and the submission retires (kgsl_iommu.c kgsl_iommu_fault_handler,
  // adreno_gpu.c adreno_fault_handler).
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Buffer read_only = device->allocate({.size = 64, .gpu_read_only = true});
    Buffer writable = device->allocate({.size = 64});
    Queue queue(*device);
    const std::uint32_t values[] = {1, 2};
    queue.write(read_only, values);
    queue.write(writable, values);
    queue.finish(std::chrono::seconds(10));
    CHECK(read_only.cpu_view().as<std::uint32_t>()[0] == 0);
    CHECK(read_only.cpu_view().as<std::uint32_t>()[1] == 0);
    CHECK(writable.cpu_view().as<std::uint32_t>()[1] == 2);
    const std::uint32_t more[] = {3};
    queue.write(writable, more);
    queue.finish(std::chrono::seconds(10));
    CHECK(writable.cpu_view().as<std::uint32_t>()[0] == 3);
  }
  device.close_and_check_ledger();
}

TEST_CASE("every failing ioctl during allocation surfaces a typed error and leaks nothing",
          "[virtual-kernel][memory]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  const int error_number = GENERATE(ENOMEM, EINVAL, EIO, EBUSY);  // EINTR is asked again by the seam
  INFO(backend << " errno " << error_number);
  // Fail the 1st, 2nd, ... ioctl of an allocation until one allocation needs fewer ioctls.
  for (unsigned nth = 1;; ++nth) {
    VirtualDevice device(backend);
    device.system->fail_ioctl(0, nth, error_number);
    bool failed = false;
    try {
      Buffer medium = device->allocate({.size = 100 * 1024});
      Buffer small = device->allocate({.size = 100});
    } catch (const Error& error) {
      failed = true;
      CHECK(error.sys_errno() == error_number);
      CHECK_FALSE(error.operation().empty());
    }
    device.system->clear_ioctl_failures();
    device.close_and_check_ledger();
    if (!failed) break;
    REQUIRE(nth < 20);
  }
}
