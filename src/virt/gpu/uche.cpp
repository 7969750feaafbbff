#include "virt/gpu/uche.h"

#include <cstring>
#include <mutex>

namespace adreno::virt {
namespace {

std::uintptr_t line_of(const std::byte* host) { return reinterpret_cast<std::uintptr_t>(host) & ~(Uche::kLineBytes - 1); }

std::uint64_t byte_mask(std::size_t offset, std::size_t size) {
  const std::uint64_t bits = size >= 64 ? ~0ull : (1ull << size) - 1;
  return bits << offset;
}

}  // namespace

bool Uche::in_one_line(const std::byte* host, std::size_t size) noexcept {
  return size != 0 && line_of(host) == line_of(host + size - 1);
}

std::byte* Uche::access(std::byte* host, std::size_t size, bool store) {
  const std::uintptr_t key = line_of(host);
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(host) - key;
  Line* line = nullptr;
  {
    std::shared_lock lock(mutex_);
    if (auto it = lines_.find(key); it != lines_.end()) line = it->second.get();
  }
  if (line == nullptr) {
    std::unique_lock lock(mutex_);
    auto& slot = lines_[key];
    if (!slot) {  // fill: the whole line from memory (lines never cross a page)
      slot = std::make_unique<Line>();
      slot->home = reinterpret_cast<std::byte*>(key);
      std::memcpy(slot->data, slot->home, kLineBytes);
    }
    line = slot.get();
  }
  if (store) line->dirty.fetch_or(byte_mask(offset, size), std::memory_order_relaxed);
  return line->data + offset;
}

void Uche::clean() {
  std::unique_lock lock(mutex_);
  for (auto& [key, line] : lines_) {
    const std::uint64_t dirty = line->dirty.exchange(0, std::memory_order_relaxed);
    for (std::size_t i = 0; i < kLineBytes; ++i)
      if ((dirty >> i) & 1) line->home[i] = line->data[i];
  }
}

void Uche::invalidate() {
  clean();
  discard();
}

void Uche::discard() {
  std::unique_lock lock(mutex_);
  lines_.clear();
}

}  // namespace adreno::virt
