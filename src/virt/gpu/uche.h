// The GPU's unified cache (UCHE) between the shader processors and memory, as far as a compute
// stream can observe it: shader loads fill lines and keep returning them until the cache is
// invalidated, shader stores stay in the cache until it is cleaned. The command processor's own
// accesses (CP_MEM_WRITE, event and timestamp writes, memory waits, state loads) bypass it, as
// they do on hardware: Turnip invalidates UCHE after its CP_MEM_WRITEs of driver parameters
// because shaders would otherwise read them stale (tu_cmd_buffer.cc
// tu_emit_compute_driver_params: CP_WAIT_MEM_WRITES, CACHE_INVALIDATE, WFI).
//
// Events, a6xx (Mesa common/freedreno_gpu_event.h, the a6xx table): FD_CACHE_CLEAN is
// CACHE_FLUSH_TS — it writes dirty lines back (the timestamp lands after); FD_CACHE_INVALIDATE is
// CACHE_INVALIDATE. Invalidating with dirty lines keeps their data on UCHE (Turnip's
// tu6_emit_flushes notes this works for UCHE, unlike CCU), so invalidate() writes them back
// before dropping. The drivers end every submission with CACHE_FLUSH_TS for the fence (msm
// a6xx_gpu.c a6xx_submit, KGSL adreno_ringbuffer), so the host sees results once a fence
// retired; nothing invalidates at the start of a submission (KGSL only on a context switch, MSM
// only on a page-table switch), which is why the library does.
//
// Lines are keyed by host address, so aliases of the same memory share lines; a line is only
// ever written back while the submission that dirtied it keeps its memory alive.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <shared_mutex>
#include <vector>

namespace adreno::virt {

class Uche {
 public:
  static constexpr std::size_t kLineBytes = 64;

  struct Line;
  /// The line an access found, which the next access looking in `host`'s line takes without a
  /// lookup. Lines live until invalidate() or discard(), which the command processor calls
  /// between dispatches, never while a shader runs.
  class LineHint {
    friend class Uche;
    std::uintptr_t key_ = 0;
    Line* line_ = nullptr;
  };

  /// The cached copy of the `size` bytes at host address `host` (inside one line; the caller
  /// checked the access against the page table). A store marks those bytes dirty.
  std::byte* access(std::byte* host, std::size_t size, bool store);
  std::byte* access(std::byte* host, std::size_t size, bool store, LineHint& hint);
  /// Whether [host, host + size) lies inside one line.
  static bool in_one_line(const std::byte* host, std::size_t size) noexcept;

  /// Writes dirty bytes back to memory (CACHE_FLUSH_TS); lines stay valid.
  void clean();
  /// Drops every line, writing dirty bytes back first (CACHE_INVALIDATE).
  void invalidate();
  /// Drops every line and its dirty bytes (a faulted submission's results are lost).
  void discard();

  struct Line {
    std::byte* home;  // the memory the line caches
    alignas(8) std::byte data[kLineBytes];
    std::atomic<std::uint64_t> dirty{0};  // one bit per byte
  };

 private:
  // The lines are spread over shards by address, so the shader processor's threads rarely take
  // the same lock; each shard finds its lines in an open-addressed table (linear probing,
  // keyed by the line's home address) and keeps them in blocks: neither a lookup nor a fill
  // allocates once the shard has grown, and discard() keeps both for the next submission's
  // lines unless they were mostly idle.
  static constexpr std::size_t kShards = 16;
  struct alignas(64) Shard {
    std::shared_mutex mutex;
    std::vector<Line*> table;  // a power of two long, at most half full; null: empty
    std::deque<Line> storage;  // the first `used` hold lines
    std::size_t used = 0;
    Line* lookup(std::uintptr_t key) const noexcept;
    void insert(Line* line);  // a line lookup() did not find
  };
  Line* find(std::uintptr_t key);
  std::array<Shard, kShards> shards_;
};

}  // namespace adreno::virt
