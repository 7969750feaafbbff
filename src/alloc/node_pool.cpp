#include "alloc/node_pool.h"

namespace adreno {
namespace {

constexpr std::align_val_t kAlign{NodePool::kNodeAlign};

}  // namespace

NodePool::Owner NodePool::open() { return Owner(new NodePool()); }


void* NodePool::allocate(std::size_t bytes) {
  const std::size_t index = class_of(bytes);
  {
    std::lock_guard lock(lock_);
    ++out_;
    if (FreeNode* node = spare_[index]) {
      spare_[index] = node->next;
      --spare_count_[index];
      return node;
    }
  }
  try {
    return ::operator new((index + 1) * kNodeAlign, kAlign);
  } catch (...) {
    std::lock_guard lock(lock_);
    --out_;
    throw;
  }
}

void NodePool::deallocate(void* node, std::size_t bytes) noexcept {
  const std::size_t index = class_of(bytes);
  bool last = false;
  {
    std::lock_guard lock(lock_);
    --out_;
    if (!closed_ && spare_count_[index] < kSpareNodes) {
      spare_[index] = new (node) FreeNode{spare_[index]};
      ++spare_count_[index];
      return;
    }
    last = closed_ && out_ == 0;
  }
  ::operator delete(node, kAlign);
  // Nothing else can reach a closed pool with no node out: the owner is gone, and so is every
  // node (with the allocator in it) that pointed here.
  if (last) delete this;
}

void NodePool::close() noexcept {
  std::array<FreeNode*, kClasses> kept{};
  bool last = false;
  {
    std::lock_guard lock(lock_);
    closed_ = true;
    kept.swap(spare_);
    spare_count_.fill(0);
    last = out_ == 0;
  }
  for (FreeNode* node : kept) {
    while (node != nullptr) {
      FreeNode* next = node->next;
      ::operator delete(node, kAlign);
      node = next;
    }
  }
  if (last) delete this;
}

}  // namespace adreno
