// How the CPU sees a buffer's memory. GPU-side caching is the driver's business.
#pragma once

namespace adreno {

enum class MemoryType {
  write_combined,   ///< uncached, write-combining CPU mapping: fast streaming writes (default)
  cached,           ///< CPU-cached; needs explicit cache maintenance around GPU access
  cached_coherent,  ///< CPU-cached and IO-coherent: no maintenance (only where the kernel offers it)
  uncached,         ///< asks for an uncached CPU mapping; both drivers map it write-combined (KGSL: kgsl.c
                    ///< kgsl_mmap, KGSL_CACHEMODE_UNCACHED; MSM: MSM_BO_UNCACHED is deprecated for WC)
};

}  // namespace adreno
