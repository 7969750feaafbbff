// The GPU's unified cache (UCHE) between the shader processors and memory, as far as a compute
// stream can observe it: shader loads fill lines and keep returning them until the cache is
// invalidated, shader stores stay in the cache until it is cleaned. State loads from memory
// (CP_LOAD_STATE6 SS6_INDIRECT of constants and descriptors) read through it as shader loads do.
// The command processor's own accesses (CP_MEM_WRITE, CP_MEM_TO_MEM, event and timestamp writes,
// memory waits, IB fetch) bypass it. Turnip shows both: after it copies an indirect dispatch's
// group counts with CP_MEM_TO_MEM it emits CP_WAIT_MEM_WRITES, CACHE_INVALIDATE and a WFI before
// the shader's preamble loads them (the UBO path) or a CP_LOAD_STATE6 SS6_INDIRECT loads them
// into the constant file (the ST6_CONSTANTS path) — tu_cmd_buffer.cc
// tu_emit_compute_driver_params — as either would otherwise read a line of the old contents.
//
// Events (Mesa common/freedreno_gpu_event.h): on a6xx FD_CACHE_CLEAN is CACHE_FLUSH_TS — it
// writes dirty lines back (the timestamp lands after) — and FD_CACHE_INVALIDATE is
// CACHE_INVALIDATE (0x31). a7xx renamed them: FD_CACHE_CLEAN is CACHE_CLEAN (0x31 there),
// FD_CACHE_INVALIDATE is CACHE_INVALIDATE7, and CACHE_FLUSH7 does both. Each acts after the work
// issued before it (command_processor.h). Invalidating with dirty lines keeps their data on UCHE
// (Turnip's tu6_emit_flushes notes this works for UCHE, unlike CCU), so invalidate() writes them
// back before dropping. The drivers end every submission with a clean that writes the fence
// (a6xx: CACHE_FLUSH_TS, msm a6xx_submit and KGSL adreno_a6xx_ringbuffer.c; a7xx: CACHE_CLEAN
// with WRITE_ENABLED, msm a7xx_submit and KGSL adreno_gen7_ringbuffer.c), so the host sees
// results once a fence retired. Nothing invalidates at the start of a submission: KGSL's
// context switch (a6xx_rb_context_switch, gen7_rb_context_switch) and msm's page-table switch
// (a6xx_set_pagetable, shared by a7xx_submit) write event 0x31, which invalidates UCHE on a6xx
// but only cleans it on a7xx, and neither runs between one context's submissions; which is why
// the library invalidates at the start of each.
//
// Lines are keyed by host address, so aliases of the same memory share lines; a line is only
// ever written back while the submission that dirtied it keeps its memory alive.
#pragma once

#include <array>
#include <bit>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace adreno::virt {

class Uche {
 public:
  static constexpr std::size_t kLineBytes = 64;
  /// Lines are kept in blocks of this many host bytes (aligned), found with one lookup: the
  /// lanes of a wave touch a few blocks, not a few dozen lines.
  static constexpr std::size_t kBlockBytes = 4096;
  static constexpr std::size_t kLinesPerBlock = kBlockBytes / kLineBytes;

  struct Block;
  /// The block an access found, which the next access looking in the same block takes without
  /// a lookup. Blocks live until invalidate() or discard(), which the command processor calls
  /// between dispatches, never while a shader runs.
  class BlockHint {
    friend class Uche;
    std::uintptr_t key_ = 0;
    Block* block_ = nullptr;
  };

  /// The cached copy of the `size` bytes at host address `host`, which lie inside one block
  /// (the caller checked the access against the page table): the lines they touch are filled,
  /// those not yet valid, and a store marks its bytes dirty. A shader access lies inside one
  /// line; the lanes of a wave that access consecutive bytes take their run at once, which
  /// does what their one-line accesses would.
  std::byte* access(std::byte* host, std::size_t size, bool store);
  std::byte* access(std::byte* host, std::size_t size, bool store, BlockHint& hint);
  /// access() for a store of `bytes` whose every byte it writes: the lines it writes whole
  /// take its bytes without a fill from memory (whoever reads them before it then waits, as for
  /// a fill: they hold the stored bytes once valid).
  void store(std::byte* host, const std::byte* bytes, std::size_t size, BlockHint& hint);
  /// Whether [host, host + size) lies inside one line / one block.
  static bool in_one_line(const std::byte* host, std::size_t size) noexcept;
  static bool in_one_block(const std::byte* host, std::size_t size) noexcept;

  /// Writes dirty bytes back to memory (a6xx CACHE_FLUSH_TS, a7xx CACHE_CLEAN); lines stay valid.
  void clean();
  /// Drops every line, writing dirty bytes back first (a6xx CACHE_INVALIDATE, a7xx
  /// CACHE_INVALIDATE7 and CACHE_FLUSH7).
  void invalidate();
  /// Drops every line and its dirty bytes (a faulted submission's results are lost).
  void discard();

  struct Block {
    std::byte* home;  // the memory the block caches, kBlockBytes aligned
    // A line is valid once filled from home (one bit per line); it keeps that copy, however
    // home changes, until the block is dropped.
    std::atomic<std::uint64_t> valid{0};
    // The lines with a dirty byte (one bit per line): clean() visits only these, and a line
    // not in it has no dirty bit set, in a block in use or not (so that a block taken for new
    // lines needs no clearing of `dirty`).
    std::atomic<std::uint64_t> dirty_lines{0};
    // Held while lines are filled: two threads may reach an invalid line together, and the one
    // that comes second must neither copy home over the first one's stores nor read the line
    // before it is whole.
    std::mutex filling;
    std::array<std::atomic<std::uint64_t>, kLinesPerBlock> dirty;  // per line, one bit per byte
    alignas(64) std::byte data[kBlockBytes];
  };

 private:
  // The blocks are spread over shards by address, so the shader processor's threads rarely take
  // the same lock; each shard finds its blocks in an open-addressed table (linear probing,
  // keyed by the block's home address) and keeps them in a deque: neither a lookup nor a fill
  // allocates once the shard has grown, and discard() keeps both for the next submission's
  // blocks unless they were mostly idle.
  //
  // Finding a block takes no lock: a slot goes from empty to a block once (release), and a
  // table that grows is replaced by a copy while the old one stays readable until discard(), so
  // a lookup that races an insert either finds the block or misses it and takes the shard's
  // lock, which adds blocks. Filling lines takes the block's lock; reading a valid line none.
  static constexpr std::size_t kShards = 16;
  struct Table {
    explicit Table(std::size_t size) : slots(size) {}
    std::vector<std::atomic<Block*>> slots;  // a power of two long, at most half full; null: empty
  };
  struct alignas(64) Shard {
    std::mutex mutex;  // held to add a block
    std::atomic<Table*> table{nullptr};  // the newest of `tables`, null when there is none
    std::vector<std::unique_ptr<Table>> tables;  // earlier ones may still be read until discard()
    std::deque<Block> storage;  // the first `used` hold blocks
    std::size_t used = 0;
    Block* lookup(std::uintptr_t key) const noexcept;
    void insert(Block* block);  // a block lookup() did not find; the mutex held
  };
  // The block number's bits mixed (Fibonacci hashing): arrays a power-of-two apart, as a kernel's
  // inputs and outputs often are, would otherwise put the same offset of each in one shard.
  Shard& shard_of(std::uintptr_t key) noexcept {
    static_assert(std::has_single_bit(kShards));
    constexpr int kShardBits = std::countr_zero(kShards);
    return shards_[(key / kBlockBytes * 0x9E3779B97F4A7C15u) >> (64 - kShardBits)];
  }
  Block* find(std::uintptr_t key);
  Block* block_for(std::byte* host, BlockHint& hint);
  /// Makes the lines of `block` in `lines` (a mask) valid, filling those that are not.
  static void fill(Block& block, std::uint64_t lines);
  /// Copies the lines of `block` in `lines` (a mask) from memory; their block's lock held.
  static void copy_lines(Block& block, std::uint64_t lines);
  /// Marks the `size` bytes from `offset` of `block` dirty.
  static void mark_dirty(Block& block, std::size_t offset, std::size_t size);
  std::array<Shard, kShards> shards_;
};

}  // namespace adreno::virt
