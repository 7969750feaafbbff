#include "alloc/node_pool.h"

namespace adreno {
namespace {

constexpr std::align_val_t kAlign{NodePool::kNodeAlign};

}  // namespace

NodePool::Owner NodePool::open() { return Owner(new NodePool()); }

void* NodePool::allocate_from_heap(std::size_t index) {
  try {
    return ::operator new((index + 1) * kNodeAlign, kAlign);
  } catch (...) {
    std::lock_guard lock(lock_);
    --out_;
    throw;
  }
}

void NodePool::deallocate_to_heap(void* node, bool last) noexcept {
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
