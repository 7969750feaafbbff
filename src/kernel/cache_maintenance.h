// CPU cache maintenance for cached, non-coherent mappings, shared by core, the allocator and the
// MSM backend. On aarch64 it cleans or cleans+invalidates by virtual address to the point of
// coherency (DC CVAC / DC CIVAC, which Linux lets user space execute); other hosts are documented no-ops — x86 caches are coherent
// with devices, and the virtual GPU shares the CPU's view of memory.
#pragma once

#include <cstddef>

namespace adreno {

/// Writes dirty lines of [data, data+size) back to memory (before the GPU reads).
void clean_dcache(const void* data, std::size_t size) noexcept;
/// Writes back and discards lines of [data, data+size) (before the CPU reads GPU writes).
void invalidate_dcache(const void* data, std::size_t size) noexcept;

}  // namespace adreno
