// GPU memory for command streams: the ChunkSource a queue's CommandStream writes into. Each chunk
// is a write-combined allocation from the device's allocator; the chunks of one submission are
// handed back after it was submitted, with the submission recorded as their last use, so the
// allocator recycles them only once the GPU has executed them.
#pragma once

#include "core/buffer_impl.h"
#include "pm4/command_stream.h"

#include <memory>
#include <utility>
#include <vector>

namespace adreno {

class CommandMemory final : public pm4::ChunkSource {
 public:
  static constexpr std::uint32_t kChunkBytes = 64 * 1024;

  explicit CommandMemory(std::shared_ptr<Device::Impl> device) : device_(std::move(device)) {}

  /// A chunk; its tag is its index in blocks().
  pm4::Chunk acquire(std::uint32_t min_dwords) override;

  /// The memory of every chunk handed out since the last release().
  const std::vector<std::shared_ptr<MemoryBlock>>& blocks() const noexcept { return blocks_; }
  /// Gives the chunks back, recording that submission `fence` on `context` reads them.
  void release(std::uint32_t context, std::uint64_t fence);
  /// Hands the chunks over to work that reaches the kernel later (held on the host).
  std::vector<std::shared_ptr<MemoryBlock>> take() noexcept { return std::exchange(blocks_, {}); }

 private:
  std::shared_ptr<Device::Impl> device_;
  std::vector<std::shared_ptr<MemoryBlock>> blocks_;
};

}  // namespace adreno
