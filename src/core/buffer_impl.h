// What a Buffer is inside the library: a window into a MemoryBlock — an allocation that goes back
// to the allocator when the last Buffer using it is gone. Imports of one dma-buf share a block.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>

#include "alloc/allocator.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace adreno {

// Shared from this: a graph borrows the memory it binds (Graph::Impl) and takes a reference of
// its own only on rare paths (the application released the memory; the graph goes while a
// replay is still recorded).
class MemoryBlock : public std::enable_shared_from_this<MemoryBlock> {
 public:
  /// `external_cpu` is the CPU view of imported host memory (the allocation has none).
  MemoryBlock(const std::shared_ptr<Device::Impl>& device, std::unique_ptr<Allocation>&& allocation, CpuView external_cpu = {});
  ~MemoryBlock();
  MemoryBlock(const MemoryBlock&) = delete;
  MemoryBlock& operator=(const MemoryBlock&) = delete;

  const Allocation& allocation() const noexcept { return *allocation_; }
  const Bo& bo() const noexcept { return object_->bo; }
  /// The kernel object the memory is in (kept here: graphs read it for every rebound buffer).
  const KernelObject& object() const noexcept { return *object_; }
  CpuView cpu() const noexcept { return cpu_; }
  Device::Impl& device() const noexcept { return *device_; }

  /// Records that submission `fence` on `context` uses this memory.
  void record_use(std::uint32_t context, std::uint64_t fence);
  /// The submissions recorded as using this memory (into `out`, replacing its contents).
  void uses(std::vector<GpuUse>& out) const;

  /// Buffers the application holds on this memory. Graphs keep memory alive past its last
  /// Buffer (the GPU may still run a replay) but refuse to replay with memory nobody holds.
  void add_handle() noexcept { handles_.fetch_add(1, std::memory_order_relaxed); }
  /// The last one tells the device, when a graph ever bound this memory
  /// (Device::Impl::note_graph_buffer_released): graphs that still bind it take a reference.
  void drop_handle() noexcept;
  bool has_handles() const noexcept { return handles_.load(std::memory_order_acquire) != 0; }
  /// A graph binds this memory: recorded with it, or a Buffer on it that a graph bound went
  /// (Buffer::Impl::note_graph_binding).
  void note_graph_binding() noexcept {
    if (!graph_bound_.load(std::memory_order_relaxed)) graph_bound_.store(true, std::memory_order_relaxed);
  }

  /// The listing stamp of the queue recording that listed this memory last (Queue::Impl::reference:
  /// the recording's device-wide unique number shifted left by one, plus 1 when listed writable).
  /// Only the recording's own queue stores its stamp here, so a load that finds it proves that
  /// recording lists this memory (at least) that way; anything else, another queue's stamp
  /// included, sends the queue to its own list. Relaxed: the value is the whole message.
  std::uint64_t listing_stamp() const noexcept { return listing_stamp_.load(std::memory_order_relaxed); }
  void set_listing_stamp(std::uint64_t stamp) noexcept { listing_stamp_.store(stamp, std::memory_order_relaxed); }

 private:
  // First: releasing a buffer touches these and the reference count, which make_shared puts
  // right before them, so they share its cache line.
  std::atomic<std::uint32_t> handles_{0};
  std::atomic<bool> graph_bound_{false};  // never cleared: a release it makes one visit too many at worst
  std::atomic<std::uint64_t> listing_stamp_{0};  // no recording's (their stamps start at 2)
  std::shared_ptr<Device::Impl> device_;
  std::unique_ptr<Allocation> allocation_;
  const KernelObject* object_;
  CpuView cpu_;
  mutable std::mutex uses_mutex_;
};

// One cache line (its node puts the control block in the line before): set_buffer on a graph
// reads its device, address, object, block and graph flag, for hundreds of buffers per replay.
class alignas(64) Buffer::Impl {
 public:
  Impl(std::shared_ptr<MemoryBlock>&& block, std::uint64_t offset, std::uint64_t size)
      : block_(std::move(block)), offset_(offset), size_(size), gpu_(block_->allocation().gpu + offset_), object_(&block_->object()),
        device_(&block_->device()) {
    block_->add_handle();
  }
  ~Impl() {
    // Marked before the handle goes: whichever Buffer drops the block's last handle sees it.
    if (graph_bound_.load(std::memory_order_relaxed)) block_->note_graph_binding();
    block_->drop_handle();
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  MemoryBlock& block() const noexcept { return *block_; }
  const std::shared_ptr<MemoryBlock>& block_shared() const noexcept { return block_; }
  std::uint64_t offset() const noexcept { return offset_; }  // inside the block's allocation
  std::uint64_t size() const noexcept { return size_; }
  // Kept here: binding a buffer (hundreds per graph replay) should not walk to the block.
  GpuAddress gpu_address() const noexcept { return gpu_; }
  const KernelObject& object() const noexcept { return *object_; }
  Device::Impl& device() const noexcept { return *device_; }
  /// A graph binds this buffer: its memory counts as graph-bound (MemoryBlock::note_graph_binding)
  /// once this Buffer goes. Kept here, like the device, so that set_buffer does not walk to the block.
  void note_graph_binding() const noexcept {
    if (!graph_bound_.load(std::memory_order_relaxed)) graph_bound_.store(true, std::memory_order_relaxed);
  }
  /// CPU view of the buffer; empty when it is not host-visible.
  CpuView cpu() const noexcept { return block_->cpu().empty() ? CpuView{} : block_->cpu().subview(offset_, size_); }

 private:
  std::shared_ptr<MemoryBlock> block_;
  std::uint64_t offset_;
  std::uint64_t size_;
  GpuAddress gpu_;
  const KernelObject* object_;
  Device::Impl* device_;
  mutable std::atomic<bool> graph_bound_{false};
};
static_assert(sizeof(Buffer::Impl) == 64, "a Buffer::Impl outgrew its cache line: graphs rebinding buffers pay a second miss");

}  // namespace adreno
