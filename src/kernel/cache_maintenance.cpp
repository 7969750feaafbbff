#include "kernel/cache_maintenance.h"

#include <cstdint>

namespace adreno {
namespace {

#if defined(__aarch64__)
// CTR_EL0.DminLine (bits 19:16) is log2 of the smallest data cache line in 4-byte words.
std::size_t dcache_line_bytes() noexcept {
  std::uint64_t ctr;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return std::size_t{4} << ((ctr >> 16) & 0xf);
}

template <typename Op>
void for_each_line(const void* data, std::size_t size, Op op) noexcept {
  const std::size_t line = dcache_line_bytes();
  auto address = reinterpret_cast<std::uintptr_t>(data) & ~(line - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(data) + size;
  for (; address < end; address += line) op(address);
  asm volatile("dsb sy" ::: "memory");
}
#endif

}  // namespace

void clean_dcache(const void* data, std::size_t size) noexcept {
#if defined(__aarch64__)
  for_each_line(data, size, [](std::uintptr_t a) { asm volatile("dc cvac, %0" ::"r"(a) : "memory"); });
#else
  (void)data;
  (void)size;
#endif
}

void invalidate_dcache(const void* data, std::size_t size) noexcept {
#if defined(__aarch64__)
  for_each_line(data, size, [](std::uintptr_t a) { asm volatile("dc civac, %0" ::"r"(a) : "memory"); });
#else
  (void)data;
  (void)size;
#endif
}

}  // namespace adreno
