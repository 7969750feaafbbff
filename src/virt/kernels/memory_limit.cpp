#include "virt/kernels/memory_limit.h"

namespace adreno::virt {

bool MemoryLimit::charge(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > limit_ - used_) return false;
  used_ += bytes;
  return true;
}

void MemoryLimit::refund(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  used_ -= bytes;
}

std::uint64_t MemoryLimit::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

namespace {

/// Pages that give their charge back when the last reference goes.
class ChargedPages {
 public:
  ChargedPages(std::shared_ptr<Backing> backing, std::shared_ptr<MemoryLimit> limit)
      : backing_(std::move(backing)), limit_(std::move(limit)) {}
  ~ChargedPages() { limit_->refund(backing_->size()); }
  ChargedPages(const ChargedPages&) = delete;
  ChargedPages& operator=(const ChargedPages&) = delete;
  Backing* backing() const noexcept { return backing_.get(); }

 private:
  std::shared_ptr<Backing> backing_;
  std::shared_ptr<MemoryLimit> limit_;
};

}  // namespace

std::shared_ptr<Backing> allocate_pages(const std::shared_ptr<MemoryLimit>& limit, std::uint64_t size) {
  if (limit && !limit->charge(size)) return nullptr;
  auto backing = Backing::create(size);
  if (!limit) return backing;
  if (!backing) {
    limit->refund(size);
    return nullptr;
  }
  auto charged = std::make_shared<ChargedPages>(std::move(backing), limit);
  return std::shared_ptr<Backing>(charged, charged->backing());
}

}  // namespace adreno::virt
