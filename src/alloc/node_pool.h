// Host storage for the small records a buffer is made of: the nodes std::allocate_shared asks for
// (a shared_ptr control block with the object in it). A node given back is kept, by size class,
// for the next one of that size, so once warm a small buffer's allocate + free asks nothing of
// the heap (issue 19). Nodes are taken and given back on any thread.
//
// A node can come back after its owner is gone: a Buffer's record holds the memory block that
// holds the Device, and std::shared_ptr frees a node only after destroying what is in it — so
// the last buffer's node returns after the Device closed. The owner therefore closes the pool
// rather than deleting it: kept nodes go back to the heap at once, nodes still out go back to the
// heap as they return, and the last of them deletes the pool.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace adreno {

class NodePool {
 public:
  static constexpr std::size_t kNodeAlign = 64;  // a node starts a cache line: no line shared with another
  static constexpr std::size_t kClasses = 4;     // nodes of 64, 128, 192 and 256 bytes
  static constexpr std::size_t kMaxNode = kClasses * kNodeAlign;
  static constexpr std::size_t kSpareNodes = 256;  // kept per class: what a burst of frees leaves held

  struct Closer {
    void operator()(NodePool* pool) const noexcept { pool->close(); }
  };
  using Owner = std::unique_ptr<NodePool, Closer>;
  static Owner open();

  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  // Inline, as is the lock: a kept node is what a warm small buffer takes and gives back, twice
  // per allocate + free; the heap paths are out of line.

  /// A node of at least `bytes` (≤ kMaxNode) bytes, aligned to kNodeAlign. Throws std::bad_alloc.
  void* allocate(std::size_t bytes) {
    const std::size_t index = class_of(bytes);
    lock_.lock();
    ++out_;
    if (FreeNode* node = spare_[index]) [[likely]] {
      spare_[index] = node->next;
      --spare_count_[index];
      lock_.unlock();
      return node;
    }
    lock_.unlock();
    return allocate_from_heap(index);
  }
  /// Gives back a node `allocate(bytes)` returned; the pool may be closed by now.
  void deallocate(void* node, std::size_t bytes) noexcept {
    const std::size_t index = class_of(bytes);
    lock_.lock();
    --out_;
    if (!closed_ && spare_count_[index] < kSpareNodes) [[likely]] {
      spare_[index] = new (node) FreeNode{spare_[index]};
      ++spare_count_[index];
      lock_.unlock();
      return;
    }
    const bool last = closed_ && out_ == 0;
    lock_.unlock();
    deallocate_to_heap(node, last);
  }

 private:
  struct FreeNode {
    FreeNode* next;
  };
  // What a critical section here is: a few loads and stores. A waiter spins on it rather than
  // sleep in the kernel, giving up its core while it waits (the holder may have been preempted);
  // unlocking is a plain store, where std::mutex's is a read-modify-write.
  class Lock {
   public:
    void lock() noexcept {
      while (held_.exchange(true, std::memory_order_acquire)) [[unlikely]] {
        while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
      }
    }
    void unlock() noexcept { held_.store(false, std::memory_order_release); }

   private:
    std::atomic<bool> held_{false};
  };

  NodePool() = default;
  ~NodePool() = default;  // closed: nothing kept, nothing out
  void close() noexcept;
  void* allocate_from_heap(std::size_t index);  // counted out already
  // `last`: the pool is closed and this was the last node out.
  void deallocate_to_heap(void* node, bool last) noexcept;
  static std::size_t class_of(std::size_t bytes) noexcept { return (bytes + kNodeAlign - 1) / kNodeAlign - 1; }

  Lock lock_;
  std::array<FreeNode*, kClasses> spare_{};  // kept nodes per class, most recent first
  std::array<std::size_t, kClasses> spare_count_{};
  std::size_t out_ = 0;  // nodes handed out and not yet given back
  bool closed_ = false;
};

/// The std allocator std::allocate_shared takes, over a NodePool: one node per object.
template <typename T>
class NodeAllocator {
 public:
  using value_type = T;

  explicit NodeAllocator(NodePool& pool) noexcept : pool_(&pool) {}
  template <typename U>
  NodeAllocator(const NodeAllocator<U>& other) noexcept : pool_(other.pool_) {}

  T* allocate(std::size_t count) {
    static_assert(sizeof(T) <= NodePool::kMaxNode, "a pooled record outgrew the node classes: raise NodePool::kClasses");
    static_assert(alignof(T) <= NodePool::kNodeAlign);
    if (count != 1) throw std::bad_array_new_length();  // allocate_shared asks for one node
    return static_cast<T*>(pool_->allocate(sizeof(T)));
  }
  void deallocate(T* node, std::size_t) noexcept { pool_->deallocate(node, sizeof(T)); }

  template <typename U>
  bool operator==(const NodeAllocator<U>& other) const noexcept {
    return pool_ == other.pool_;
  }

 private:
  template <typename>
  friend class NodeAllocator;
  NodePool* pool_;
};

}  // namespace adreno
