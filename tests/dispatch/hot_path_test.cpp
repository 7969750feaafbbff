// [virtual-kernel] Rule 9 for dispatches: once a queue has its command chunk and upload block,
// recording a dispatch performs no heap allocation and no syscall. Heap allocations are counted
// by replacing the global operator new for this test binary.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "program_fixtures.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> heap_allocations{0};
}  // namespace

// The replacements pair malloc with free by construction; GCC sees them inlined into standard
// containers and warns about a new/free mismatch that is not one.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Every replaceable form, so that all of them pair malloc-family allocation with free.
namespace {
void* counted_allocation(std::size_t size, std::size_t alignment) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  size = size == 0 ? 1 : size;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
void* or_throw(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t size) { return or_throw(counted_allocation(size, 0)); }
void* operator new[](std::size_t size) { return or_throw(counted_allocation(size, 0)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) { return or_throw(counted_allocation(size, static_cast<std::size_t>(a))); }
void* operator new[](std::size_t size, std::align_val_t a) { return or_throw(counted_allocation(size, static_cast<std::size_t>(a))); }
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_allocation(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_allocation(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

using namespace adreno;

TEST_CASE("recording a dispatch in steady state allocates nothing and makes no syscall", "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    Queue queue(*device);
    const Launch launch{{8, 1, 1}, {64, 1, 1}, std::nullopt};
    queue.dispatch(program, arguments, launch);  // opens the command chunk and the upload block
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (int i = 0; i < 16; ++i) queue.dispatch(program, arguments, launch);
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
  }
  device.close_and_check_ledger();
}
