// FlatIndex: finds the position of a key (an object's address or handle) among keys seen since
// the last clear(). Submissions list hundreds of objects, and finding each one's earlier entry
// by a linear search made building those lists quadratic; this keeps it linear. Open addressing
// over a power-of-two table that keeps its capacity across clear(), so steady-state use
// allocates nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace adreno {

class FlatIndex {
 public:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};

  void clear() noexcept {
    if (count_ == 0) return;
    std::fill(slots_.begin(), slots_.end(), Slot{});
    count_ = 0;
  }

  /// The position stored for `key` (non-zero); when there is none, stores `position` for it and
  /// returns kAbsent.
  std::uint32_t find_or_insert(std::uintptr_t key, std::uint32_t position) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    Slot& slot = probe(key);
    if (slot.key == key) return slot.position;
    slot = Slot{key, position};
    ++count_;
    return kAbsent;
  }

 private:
  struct Slot {
    std::uintptr_t key = 0;  // 0: empty
    std::uint32_t position = 0;
  };

  Slot& probe(std::uintptr_t key) noexcept {
    const std::size_t mask = slots_.size() - 1;
    // Addresses and handles differ mostly in their middle bits: mix them into the low ones.
    std::size_t i = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask;
    return slots_[i];
  }

  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()));
    old.swap(slots_);
    for (const Slot& slot : old)
      if (slot.key != 0) probe(slot.key) = slot;
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

/// Appends `make()` to `list` unless `key` already has an entry there, which `update(existing)`
/// then updates; returns the position of the key's entry. `index` holds the keys of `list`
/// (cleared together with it). The entry is made only for a new key: one that holds a reference
/// count costs nothing when the key is listed already.
template <typename List, typename Make, typename Update>
std::uint32_t add_once_made(FlatIndex& index, List& list, std::uintptr_t key, Make&& make, Update&& update) {
  const auto position = static_cast<std::uint32_t>(list.size());
  const std::uint32_t existing = index.find_or_insert(key, position);
  if (existing == FlatIndex::kAbsent) {
    list.push_back(make());
    return position;
  }
  update(list[existing]);
  return existing;
}

/// As add_once_made, with the entry made already: `merge(existing, entry)` updates an existing one.
template <typename List, typename Entry, typename Merge>
std::uint32_t add_once(FlatIndex& index, List& list, std::uintptr_t key, Entry&& entry, Merge&& merge) {
  return add_once_made(
      index, list, key, [&]() -> decltype(auto) { return std::forward<Entry>(entry); },
      [&](auto& existing) { merge(existing, entry); });
}

}  // namespace adreno
