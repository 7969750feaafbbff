// Replaces the global operator new/delete of the test binary with counting versions. Kept in a
// translation unit of its own so that no caller sees new and free() paired in one function.
#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> g_allocations{0};
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace adreno::pm4::testing {
std::size_t heap_allocations() { return g_allocations.load(std::memory_order_relaxed); }
}  // namespace adreno::pm4::testing
