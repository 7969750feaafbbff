// How the CPU sees a buffer's memory. GPU-side caching is the driver's business.
#pragma once

namespace adreno {

enum class MemoryType {
  write_combined,   ///< uncached, write-combining CPU mapping: fast streaming writes (default)
  cached,           ///< CPU-cached; needs explicit cache maintenance around GPU access
  cached_coherent,  ///< CPU-cached and IO-coherent: no maintenance (only where the kernel offers it)
  uncached,         ///< strongly ordered CPU mapping on KGSL; MSM has none and maps it write-combined
};

}  // namespace adreno
