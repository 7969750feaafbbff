#include "core/command_memory.h"

#include "core/device_impl.h"

#include <algorithm>

namespace adreno {

pm4::Chunk CommandMemory::acquire(std::uint32_t min_dwords) {
  const std::uint64_t bytes = std::max<std::uint64_t>(kChunkBytes, std::uint64_t{min_dwords} * 4);
  auto allocation = device_->allocator().allocate(bytes, 4096, BoFlags{MemoryType::write_combined, true}, true);
  auto block = std::make_shared<MemoryBlock>(device_, std::move(allocation));
  const Allocation& a = block->allocation();
  pm4::Chunk chunk{a.cpu, a.gpu, static_cast<std::uint32_t>(a.size / 4), blocks_.size()};
  blocks_.push_back(std::move(block));
  return chunk;
}

void CommandMemory::release(std::uint32_t context, std::uint64_t fence) {
  for (auto& block : blocks_) block->record_use(context, fence);
  blocks_.clear();
}

}  // namespace adreno
