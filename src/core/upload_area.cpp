#include "core/upload_area.h"

#include <adreno/error.hpp>

#include "core/queue_impl.h"

#include <fmt/format.h>

namespace adreno {

bool UploadArea::idle(const Block& block, const Queue::Impl& queue) const {
  if (block.written_in_ticket > queue.submitted_ticket()) return false;  // recorded, not handed to the kernel yet
  return device_->contexts().all_retired(block.memory->allocation().uses);
}

std::size_t UploadArea::next_block(Queue::Impl& queue) {
  for (std::size_t step = 1; step <= blocks_.size(); ++step) {
    const std::size_t candidate = (current_ + step) % blocks_.size();
    if (idle(blocks_[candidate], queue)) return candidate;
  }
  auto allocation = device_->allocator().allocate(kBlockBytes, kAlignment, BoFlags{MemoryType::write_combined, true}, true);
  blocks_.push_back(Block{std::make_shared<MemoryBlock>(device_, std::move(allocation))});
  return blocks_.size() - 1;
}

UploadArea::Space UploadArea::allocate_listed(Queue::Impl& queue, std::uint64_t bytes) {
  if (bytes > kBlockBytes)
    throw Error(Errc::invalid_argument, "upload dispatch data",
                fmt::format("{} bytes of constants and descriptors exceed the {}-byte upload block", bytes, kBlockBytes));
  room_end_ = 0;  // until the block this allocation takes is listed (which may throw)
  const std::uint64_t start = (cursor_ + kAlignment - 1) / kAlignment * kAlignment;
  if (blocks_.empty() || start + bytes > kBlockBytes) {
    current_ = next_block(queue);
    cursor_ = 0;
  } else {
    cursor_ = start;
  }
  Block& block = blocks_[current_];
  if (block.written_in_ticket != queue.recording_ticket()) {
    queue.reference(block.memory, false);
    block.written_in_ticket = queue.recording_ticket();
  }
  room_end_ = kBlockBytes;
  const Allocation& memory = block.memory->allocation();
  current_cpu_ = memory.cpu.data();
  current_gpu_ = memory.gpu;
  Space space{memory.cpu.subview(cursor_, bytes), memory.gpu + cursor_};
  cursor_ += bytes;
  return space;
}

}  // namespace adreno
