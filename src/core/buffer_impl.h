// What a Buffer is inside the library: a window into a MemoryBlock — an allocation that goes back
// to the allocator when the last Buffer using it is gone. Imports of one dma-buf share a block.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>

#include "alloc/allocator.h"

#include <memory>
#include <mutex>

namespace adreno {

class MemoryBlock {
 public:
  /// `external_cpu` is the CPU view of imported host memory (the allocation has none).
  MemoryBlock(std::shared_ptr<Device::Impl> device, std::unique_ptr<Allocation> allocation, CpuView external_cpu = {});
  ~MemoryBlock();
  MemoryBlock(const MemoryBlock&) = delete;
  MemoryBlock& operator=(const MemoryBlock&) = delete;

  const Allocation& allocation() const noexcept { return *allocation_; }
  const Bo& bo() const noexcept { return allocation_->object->bo; }
  CpuView cpu() const noexcept { return cpu_; }
  Device::Impl& device() const noexcept { return *device_; }

  /// Records that submission `fence` on `context` uses this memory.
  void record_use(std::uint32_t context, std::uint64_t fence);

 private:
  std::shared_ptr<Device::Impl> device_;
  std::unique_ptr<Allocation> allocation_;
  CpuView cpu_;
  std::mutex uses_mutex_;
};

class Buffer::Impl {
 public:
  Impl(std::shared_ptr<MemoryBlock> block, std::uint64_t offset, std::uint64_t size)
      : block_(std::move(block)), offset_(offset), size_(size) {}

  MemoryBlock& block() const noexcept { return *block_; }
  const std::shared_ptr<MemoryBlock>& block_shared() const noexcept { return block_; }
  std::uint64_t offset() const noexcept { return offset_; }  // inside the block's allocation
  std::uint64_t size() const noexcept { return size_; }
  GpuAddress gpu_address() const noexcept { return block_->allocation().gpu + offset_; }
  /// CPU view of the buffer; empty when it is not host-visible.
  CpuView cpu() const noexcept { return block_->cpu().empty() ? CpuView{} : block_->cpu().subview(offset_, size_); }

 private:
  std::shared_ptr<MemoryBlock> block_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

}  // namespace adreno
