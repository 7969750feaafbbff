// Counts heap allocations of a test binary by replacing every form of the global operator new
// and delete. Include it in exactly one file of a test executable; read heap_allocations.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

inline std::atomic<std::size_t> heap_allocations{0};

// The replacements pair malloc with free by construction; GCC sees them inlined into standard
// containers and warns about a new/free mismatch that is not one.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Every replaceable form, so that all of them pair malloc-family allocation with free (ASan
// checks the pairing).
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
