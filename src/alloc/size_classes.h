// The sizes the kernel-object cache rounds to. Between 4 KiB and 16 KiB every page is a class;
// above, each power of two is split in four (2^n, 1.25·2^n, 1.5·2^n, 1.75·2^n), so rounding
// wastes at most 25% and a freed object fits many later requests. The scheme is the one Mesa's
// freedreno bo cache uses (src/freedreno/drm/freedreno_bo_cache.c, add_bucket/fd_bo_cache_init);
// the numbers are ours.
#pragma once

#include <cstdint>

namespace adreno {

inline constexpr std::uint64_t kPageBytes = 4096;

/// The smallest size class that holds `size` bytes.
std::uint64_t size_class(std::uint64_t size);

}  // namespace adreno
