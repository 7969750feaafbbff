// A queue's GPU memory for per-dispatch data — constants and descriptors — written through CPU
// views. It bump-allocates from a few 64 KiB blocks it keeps for the queue's lifetime: a block is
// refilled only once every submission that read it retired, so in steady state recording a
// dispatch allocates nothing and makes no syscall. Each block is listed (Queue::Impl::reference)
// in the submission that reads it, which also records that use for the allocator.
#pragma once

#include <adreno/address.hpp>
#include <adreno/queue.hpp>

#include "core/buffer_impl.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace adreno {

class UploadArea {
 public:
  static constexpr std::uint64_t kBlockBytes = 64 * 1024;
  static constexpr std::uint64_t kAlignment = 64;  // descriptors and CP_LOAD_STATE6 sources

  struct Space {
    CpuView cpu;
    GpuAddress gpu;
  };

  explicit UploadArea(std::shared_ptr<Device::Impl> device) : device_(std::move(device)) {}

  /// `bytes` (at most kBlockBytes) of GPU-readable memory, kAlignment-aligned, for the work being
  /// recorded on `queue`. Throws Error(invalid_argument) for larger requests. Inline, in
  /// queue_impl.h (it asks the queue for its recording ticket): each dispatch calls it.
  inline Space allocate(Queue::Impl& queue, std::uint64_t bytes);

  /// The queue's recording closed: the next allocation lists its block in the next one.
  void recording_closed() noexcept { room_end_ = 0; }

  /// Blocks the area owns (tools and tests read uploaded data back through them).
  std::size_t block_count() const noexcept { return blocks_.size(); }
  const MemoryBlock& block(std::size_t index) const { return *blocks_.at(index).memory; }

 private:
  static constexpr std::uint64_t kNotRecorded = 0;  // tickets start at 1
  struct Block {
    std::shared_ptr<MemoryBlock> memory;
    // The queue's recording ticket when this block was last written: one the kernel has not got
    // yet (the open recording, or work held on the host) has no use recorded on the block.
    std::uint64_t written_in_ticket = kNotRecorded;
  };
  bool idle(const Block& block, const Queue::Impl& queue) const;
  std::size_t next_block(Queue::Impl& queue);
  /// allocate() when the current block is full or not listed in the open recording yet.
  [[gnu::noinline]] Space allocate_listed(Queue::Impl& queue, std::uint64_t bytes);

  std::shared_ptr<Device::Impl> device_;
  std::vector<Block> blocks_;
  std::size_t current_ = 0;
  std::uint64_t cursor_ = kBlockBytes;  // full: the first allocation picks a block
  // Where allocate() may allocate up to without asking more: kBlockBytes while the current block
  // is listed in the queue's open recording (its written_in_ticket is the recording's ticket),
  // else 0 (before the first allocation, and once the recording closed: recording_closed()).
  // One compare per dispatch says both that the block has room and that it is listed.
  std::uint64_t room_end_ = 0;
  // The current block's views, kept here: every dispatch allocates from them.
  std::byte* current_cpu_ = nullptr;
  GpuAddress current_gpu_;
};

}  // namespace adreno
