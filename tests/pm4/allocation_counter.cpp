// Replaces the global operator new/delete of the test binary with counting versions. Kept in a
// translation unit of its own so that no caller sees new and free() paired in one function.
#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> g_allocations{0};
}

// Every non-aligned form is replaced, so that each pointer is freed by the family that allocated
// it (AddressSanitizer checks this); the aligned forms stay the runtime's own, in pairs.
namespace {
void* counted_allocation(std::size_t size) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* counted_allocation_or_throw(std::size_t size) {
  if (void* p = counted_allocation(size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_allocation_or_throw(size); }
void* operator new[](std::size_t size) { return counted_allocation_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace adreno::pm4::testing {
std::size_t heap_allocations() { return g_allocations.load(std::memory_order_relaxed); }
}  // namespace adreno::pm4::testing
