// [virtual-kernel] Rule 9 for graphs: once the previous replay retired, patching values and
// replaying perform no heap allocation and no syscall. Heap allocations are counted by
// replacing the global operator new for this test binary.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "graph_programs.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
std::atomic<std::size_t> heap_allocations{0};
}  // namespace

// The replacements pair malloc with free by construction; GCC sees them inlined into standard
// containers and warns about a new/free mismatch that is not one.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Every replaceable form, so that all of them pair malloc-family allocation with free (ASan
// checks the pairing). The same set as tests/dispatch/hot_path_test.cpp on branch dispatch.
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

TEST_CASE("patching and replaying a graph allocates nothing and makes no syscall", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers;
    for (int i = 0; i < 6; ++i) buffers.push_back(device->allocate({.size = 256 * 4}));
    Graph graph(*device);
    std::vector<GraphDispatch> ids;
    for (int i = 0; i < 3; ++i) {
      Arguments arguments(add);
      arguments.set_buffer(0, buffers[i]).set_buffer(1, buffers[3]).set_buffer(2, buffers[4]);
      ids.push_back(graph.dispatch(add, arguments, add_launch(256), {Access::write, Access::read, Access::read}));
    }
    graph.build();
    Queue queue(*device);
    graph.replay(queue);
    queue.finish();
    queue.barrier();  // opens the queue's next command chunk
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (std::size_t i = 0; i < ids.size(); ++i) graph.set_buffer(ids[i], 2, buffers[5 - i]);
    graph.replay(queue);  // the previous replay retired: patched without waiting
    graph.replay(queue);  // nothing to patch: no wait either
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
  }
  device.close_and_check_ledger();
}
