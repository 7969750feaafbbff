#include "virt/gpu/uche.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

namespace adreno::virt {
namespace {

std::uintptr_t line_of(const std::byte* host) { return reinterpret_cast<std::uintptr_t>(host) & ~(Uche::kLineBytes - 1); }

std::uint64_t byte_mask(std::size_t offset, std::size_t size) {
  const std::uint64_t bits = size >= 64 ? ~0ull : (1ull << size) - 1;
  return bits << offset;
}

// Within a shard, a multiplicative hash of the line number picks the first table slot.
std::size_t first_slot(std::uintptr_t key, std::size_t table_size) noexcept {
  return static_cast<std::size_t>(((key / Uche::kLineBytes) * 0x9e3779b97f4a7c15ull) >> 24) & (table_size - 1);
}

}  // namespace

bool Uche::in_one_line(const std::byte* host, std::size_t size) noexcept {
  return size != 0 && line_of(host) == line_of(host + size - 1);
}

Uche::Line* Uche::Shard::lookup(std::uintptr_t key) const noexcept {
  if (table.empty()) return nullptr;
  for (std::size_t i = first_slot(key, table.size());; i = (i + 1) & (table.size() - 1)) {
    if (table[i] == nullptr || reinterpret_cast<std::uintptr_t>(table[i]->home) == key) return table[i];
  }
}

void Uche::Shard::insert(Line* line) {
  if (2 * used > table.size()) {  // `used` counts `line`: grow to keep the table at most half full
    std::vector<Line*> old(std::max<std::size_t>(64, 2 * table.size()), nullptr);
    old.swap(table);
    for (Line* kept : old)
      if (kept != nullptr) insert(kept);
  }
  const auto key = reinterpret_cast<std::uintptr_t>(line->home);
  std::size_t i = first_slot(key, table.size());
  while (table[i] != nullptr) i = (i + 1) & (table.size() - 1);
  table[i] = line;
}

Uche::Line* Uche::find(std::uintptr_t key) {
  Shard& shard = shards_[key / kLineBytes % kShards];  // consecutive lines, consecutive shards
  {
    std::shared_lock lock(shard.mutex);
    if (Line* line = shard.lookup(key)) return line;
  }
  std::unique_lock lock(shard.mutex);
  if (Line* line = shard.lookup(key)) return line;  // another thread filled it meanwhile
  // Fill: the whole line from memory (lines never cross a page).
  Line* line = shard.used < shard.storage.size() ? &shard.storage[shard.used] : &shard.storage.emplace_back();
  ++shard.used;
  line->home = reinterpret_cast<std::byte*>(key);
  line->dirty.store(0, std::memory_order_relaxed);
  std::memcpy(line->data, line->home, kLineBytes);
  shard.insert(line);
  return line;
}

std::byte* Uche::access(std::byte* host, std::size_t size, bool store) {
  LineHint hint;
  return access(host, size, store, hint);
}

std::byte* Uche::access(std::byte* host, std::size_t size, bool store, LineHint& hint) {
  const std::uintptr_t key = line_of(host);
  if (hint.line_ == nullptr || hint.key_ != key) {
    hint.key_ = key;
    hint.line_ = find(key);
  }
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(host) - key;
  if (store) hint.line_->dirty.fetch_or(byte_mask(offset, size), std::memory_order_relaxed);
  return hint.line_->data + offset;
}

void Uche::clean() {
  for (Shard& shard : shards_) {
    std::unique_lock lock(shard.mutex);
    for (std::size_t i = 0; i < shard.used; ++i) {
      Line& line = shard.storage[i];
      std::uint64_t dirty = line.dirty.exchange(0, std::memory_order_relaxed);
      while (dirty != 0) {  // each run of dirty bytes
        const auto first = static_cast<std::size_t>(std::countr_zero(dirty));
        const auto length = static_cast<std::size_t>(std::countr_one(dirty >> first));
        std::memcpy(line.home + first, line.data + first, length);
        dirty = first + length >= 64 ? 0 : dirty & (~0ull << (first + length));
      }
    }
  }
}

void Uche::invalidate() {
  clean();
  discard();
}

void Uche::discard() {
  for (Shard& shard : shards_) {
    std::unique_lock lock(shard.mutex);
    std::fill(shard.table.begin(), shard.table.end(), nullptr);
    if (shard.used < shard.storage.size() / 2) {  // mostly idle: give the spare blocks back
      while (shard.storage.size() > shard.used) shard.storage.pop_back();
      shard.table = std::vector<Line*>();
    }
    shard.used = 0;
  }
}

}  // namespace adreno::virt
