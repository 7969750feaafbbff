// What a Buffer is inside the library: a window into a MemoryBlock — an allocation that goes back
// to the allocator when the last Buffer using it is gone. Imports of one dma-buf share a block.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>

#include "alloc/allocator.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>

namespace adreno {

// Shared from this: a graph borrows the memory it binds (Graph::Impl) and takes a reference of
// its own only on rare paths (the application released the memory; the graph goes while a
// replay is still recorded).
class MemoryBlock : public std::enable_shared_from_this<MemoryBlock> {
 public:
  /// `external_cpu` is the CPU view of imported host memory (the allocation has none).
  MemoryBlock(const std::shared_ptr<Device::Impl>& device, std::unique_ptr<Allocation>&& allocation, CpuView external_cpu = {});
  /// A block built in its allocation's record slot, which keeps `device` alive for it (new_buffer
  /// in device.cpp), and that exactly one Buffer::Impl is ever made on.
  MemoryBlock(Device::Impl& device, std::unique_ptr<Allocation>&& allocation, CpuView external_cpu)
      : one_buffer_(true),
        device_(&device),
        allocation_(std::move(allocation)),
        object_(allocation_->object),
        cpu_(allocation_->cpu.empty() ? external_cpu : allocation_->cpu) {}
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
  void add_handle() noexcept {
    // The one Buffer of its block makes it before anyone else can see the block.
    if (one_buffer_) handles_.store(1, std::memory_order_relaxed);
    else handles_.fetch_add(1, std::memory_order_relaxed);
  }
  /// The last one tells the device, when a graph ever bound this memory
  /// (Device::Impl::note_graph_buffer_released): graphs that still bind it take a reference.
  void drop_handle() noexcept {
    // The one Buffer of its block drops the last handle: nobody else changes the count.
    const bool last = one_buffer_ ? (handles_.store(0, std::memory_order_release), true)
                                  : handles_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    if (last && graph_bound_.load(std::memory_order_relaxed)) [[unlikely]]
      released_while_graph_bound();
  }
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
  [[gnu::cold]] void released_while_graph_bound() noexcept;

  // First: releasing a buffer touches these and the reference count, which make_shared puts
  // right before them, so they share its cache line.
  std::atomic<std::uint32_t> handles_{0};
  std::atomic<bool> graph_bound_{false};  // never cleared: a release it makes one visit too many at worst
  std::atomic<std::uint64_t> listing_stamp_{0};  // no recording's (their stamps start at 2)
  // Only one Buffer::Impl is ever made on this block: its handle comes and goes with plain stores.
  const bool one_buffer_;
  Device::Impl* device_;
  std::shared_ptr<Device::Impl> device_reference_;  // empty when the block's record slot keeps the device
  std::unique_ptr<Allocation> allocation_;
  const KernelObject* object_;
  CpuView cpu_;
  mutable Mutex uses_mutex_;  // 4 bytes, set up with one store (std::mutex: 40)
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
    if (block_) drop_handle();
  }
  /// Drops this Buffer's handle and hands over its reference to the block, for RecordAllocator to
  /// let go once this Impl's node is gone.
  std::shared_ptr<MemoryBlock> let_go() noexcept {
    drop_handle();
    return std::move(block_);
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
  void drop_handle() noexcept {
    // Marked before the handle goes: whichever Buffer drops the block's last handle sees it.
    if (graph_bound_.load(std::memory_order_relaxed)) block_->note_graph_binding();
    block_->drop_handle();
  }

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

namespace adreno {

/// The std allocator std::allocate_shared builds a buffer's MemoryBlock or Buffer::Impl with, in a
/// record slot of the buffer's allocation (RecordSlot in allocator.h), whose `keep` holds what the
/// node needs to outlive: the device for the block's (new_buffer sets it), the block for the
/// Impl's. The Impl's own reference to its block moves there when the Impl is destroyed, so the
/// block, and with it the allocation and its records, can go only after the Impl's node did.
template <typename T, typename Slot>
class RecordAllocator {
 public:
  using value_type = T;

  explicit RecordAllocator(Slot& slot) noexcept : slot_(&slot) {}
  template <typename U>
  RecordAllocator(const RecordAllocator<U, Slot>& other) noexcept : slot_(other.slot_) {}

  T* allocate(std::size_t count) {
    static_assert(sizeof(T) <= Slot::kBytes, "a buffer's record outgrew its slot: enlarge it in Allocation");
    static_assert(alignof(T) <= Slot::kAlign);
    if (count != 1) throw std::bad_array_new_length();  // allocate_shared asks for one node
    slot_->in_use.store(true, std::memory_order_relaxed);  // the allocation is ours alone yet
    return reinterpret_cast<T*>(slot_->bytes);
  }
  void deallocate(T*, std::size_t) noexcept {
    std::shared_ptr<void> keep = std::move(slot_->keep);
    slot_->in_use.store(false, std::memory_order_release);
  }  // `keep` goes last: it may give the record back, or close the device

  /// How allocate_shared destroys the object in the node (C++20 [util.smartptr.shared.create]).
  template <typename U>
  void destroy(U* object) noexcept {
    if constexpr (std::is_same_v<U, Buffer::Impl>) slot_->keep = object->let_go();
    object->~U();
  }

  template <typename U>
  bool operator==(const RecordAllocator<U, Slot>& other) const noexcept {
    return slot_ == other.slot_;
  }

 private:
  template <typename, typename>
  friend class RecordAllocator;
  Slot* slot_;
};

/// The RecordAllocator of a `T` in `slot`.
template <typename T, typename Slot>
RecordAllocator<T, Slot> in_slot(Slot& slot) noexcept {
  return RecordAllocator<T, Slot>(slot);
}

}  // namespace adreno
