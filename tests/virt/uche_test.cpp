// [virtual-gpu] UCHE as the shader processor's global loads and stores reach it: runs of
// consecutive accesses through a cached GpuView (load_run, store_run). Lines keep the bytes
// of their first fill until invalidated and stores reach memory only when cleaned — also for
// lines a store run writes whole (no fill from memory), for lines it writes in part, for threads
// filling and storing the same blocks at once, and for blocks reused after a discard.
#include "virt/gpu/gpu_memory.h"
#include "virt/gpu/uche.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace adreno::virt;

namespace {

using Bytes = std::vector<std::byte>;

Bytes random_bytes(std::mt19937_64& rng, std::size_t size) {
  Bytes bytes(size);
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

// One mapping seen through a cache, as a submission's shaders see it.
struct CachedMemory {
  static constexpr std::size_t kBytes = 1 << 20;  // 256 cache blocks: every shard, tables that grow

  CachedMemory() { REQUIRE(backing); }
  std::byte* host(std::size_t offset) const { return backing->host() + offset; }
  Bytes in_memory(std::size_t offset, std::size_t size) const { return Bytes(host(offset), host(offset) + size); }
  void put(std::size_t offset, const Bytes& bytes) { std::memcpy(host(offset), bytes.data(), bytes.size()); }

  // (These throw rather than fail a check: threads call them, and Catch's checks are not
  // thread-safe.)
  // [offset, offset + size) read as a wave's consecutive `unit`-byte loads read it.
  Bytes load(std::size_t offset, std::size_t size, std::size_t unit = 16) const {
    Bytes out(size);
    TranslationMemo memo;
    for (std::size_t done = 0; done < size;) {
      std::size_t accesses = 0;
      const std::byte* cached = view.load_run(va + offset + done, size - done, unit, memo, accesses);
      if (accesses == 0) throw std::logic_error("a run of aligned loads inside a mapping was refused");
      std::memcpy(out.data() + done, cached, accesses * unit);
      done += accesses * unit;
    }
    return out;
  }
  // `bytes` stored at `offset` as a wave's consecutive `unit`-byte stores store them.
  void store(std::size_t offset, const Bytes& bytes, std::size_t unit = 16) const {
    TranslationMemo memo;
    for (std::size_t done = 0; done < bytes.size();) {
      const std::size_t accesses = view.store_run(va + offset + done, bytes.data() + done, bytes.size() - done, unit, memo);
      if (accesses == 0) throw std::logic_error("a run of aligned stores inside a mapping was refused");
      done += accesses * unit;
    }
  }

  GpuMemory memory{0x100000000ull, 1ull << 30};
  std::shared_ptr<Backing> backing = Backing::create(kBytes);
  std::uint64_t va = *memory.map(backing, 0, kBytes, true);
  Uche cache;
  GpuView view{memory, nullptr, &cache};
};

}  // namespace

// Kills: a store run's partly written lines not filled from memory first (their other bytes
// would read as whatever the block held), lines refilled on each access (no stale read), stores
// written through to memory before a clean, a clean writing back bytes no store wrote.
TEST_CASE("UCHE runs: loads keep a line's first contents until invalidate, stores reach memory only at clean and only their bytes",
          "[virtual-gpu][memory]") {
  CachedMemory gpu;
  std::mt19937_64 rng(0x0c4e);
  const Bytes original = random_bytes(rng, CachedMemory::kBytes);
  gpu.put(0, original);

  // Loads across a block boundary, lines partly inside.
  constexpr std::size_t kLoaded = 0x1000 - 0x30, kLoadSize = 0x200;
  CHECK(gpu.load(kLoaded, kLoadSize) == gpu.in_memory(kLoaded, kLoadSize));
  gpu.put(kLoaded, random_bytes(rng, kLoadSize));  // the host rewrites them
  CHECK(gpu.load(kLoaded, kLoadSize) == Bytes(original.begin() + kLoaded, original.begin() + kLoaded + kLoadSize));

  // Stores beginning and ending inside a line, whole lines between them.
  constexpr std::size_t kLines = 0x3000, kStored = kLines + 0x10, kStoreSize = 0x1e0, kLinesSize = 0x200;
  const Bytes stored = random_bytes(rng, kStoreSize);
  gpu.store(kStored, stored);
  CHECK(gpu.in_memory(kLines, kLinesSize) == Bytes(original.begin() + kLines, original.begin() + kLines + kLinesSize));
  Bytes cached(original.begin() + kLines, original.begin() + kLines + kLinesSize);
  std::copy(stored.begin(), stored.end(), cached.begin() + (kStored - kLines));
  CHECK(gpu.load(kLines, kLinesSize) == cached);
  // The host rewrites the bytes around the stores: a clean keeps them, writing only stored bytes.
  const Bytes before = random_bytes(rng, kStored - kLines), after = random_bytes(rng, kLines + kLinesSize - kStored - kStoreSize);
  gpu.put(kLines, before);
  gpu.put(kStored + kStoreSize, after);
  gpu.cache.clean();
  Bytes expected = before;
  expected.insert(expected.end(), stored.begin(), stored.end());
  expected.insert(expected.end(), after.begin(), after.end());
  CHECK(gpu.in_memory(kLines, kLinesSize) == expected);

  gpu.cache.invalidate();
  CHECK(gpu.load(kLoaded, kLoadSize) == gpu.in_memory(kLoaded, kLoadSize));
}

// Kills: a block taken for new lines keeping its valid lines or its dirty bytes from before the
// discard (the dropped store would reach memory, or be read back).
TEST_CASE("UCHE runs: a block reused after a discard holds neither the dropped lines nor their dirty bytes",
          "[virtual-gpu][memory]") {
  CachedMemory gpu;
  std::mt19937_64 rng(0xd15c);
  const Bytes original = random_bytes(rng, 0x1000);
  gpu.put(0, original);
  gpu.store(0, random_bytes(rng, 0x1000));  // every line of the block, written whole
  gpu.cache.discard();  // a faulted submission's stores are lost
  gpu.cache.clean();
  CHECK(gpu.in_memory(0, 0x1000) == original);

  // The same block's lines again, in the block storage the dropped ones used.
  const Bytes word = random_bytes(rng, 16);
  gpu.store(0, word);  // part of line 0
  const Bytes rest_of_line = random_bytes(rng, 32);
  gpu.put(32, rest_of_line);  // the host rewrites the end of line 0 meanwhile
  CHECK(gpu.load(64, 64) == Bytes(original.begin() + 64, original.begin() + 128));
  gpu.cache.clean();
  Bytes expected = original;
  std::copy(word.begin(), word.end(), expected.begin());
  std::copy(rest_of_line.begin(), rest_of_line.end(), expected.begin() + 32);
  CHECK(gpu.in_memory(0, 0x1000) == expected);
}

// Kills: a lookup missing a block another thread just added (two copies of its lines), two
// threads filling one line over each other's stores, a store's lines marked valid before its
// bytes are in them. Lines are shared between threads wherever a store starts or ends inside one.
TEST_CASE("UCHE runs: threads loading and storing the same blocks at once read memory as it was and leave exactly their stores",
          "[virtual-gpu][memory]") {
  CachedMemory gpu;
  std::mt19937_64 rng(0x5ba2d);
  const Bytes original = random_bytes(rng, CachedMemory::kBytes);
  gpu.put(0, original);

  // Pieces of 1 KiB (a 64-lane wave's vec4 accesses), in random order, to threads in turn; each
  // piece a load of all of it or a store of a random 16-byte aligned part of it.
  constexpr std::size_t kPiece = 1024;
  struct Piece {
    std::size_t offset;
    bool store;
    Bytes bytes;  // stored; for a load, what it read
  };
  std::vector<Piece> pieces;
  for (std::size_t offset = 0; offset < CachedMemory::kBytes; offset += kPiece) {
    const bool store = rng() % 2 == 0;
    const std::size_t skip = store ? 16 * (rng() % 8) : 0, size = store ? kPiece - skip - 16 * (rng() % 8) : kPiece;
    pieces.push_back({offset + skip, store, store ? random_bytes(rng, size) : Bytes(size)});
  }
  std::shuffle(pieces.begin(), pieces.end(), rng);
  constexpr unsigned kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<bool> refused{false};
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (std::size_t i = t; i < pieces.size(); i += kThreads) {
          Piece& piece = pieces[i];
          if (piece.store) {
            gpu.store(piece.offset, piece.bytes);
          } else {
            piece.bytes = gpu.load(piece.offset, piece.bytes.size());
          }
        }
      } catch (const std::logic_error&) {
        refused = true;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  REQUIRE_FALSE(refused);

  Bytes expected = original;
  for (const Piece& piece : pieces) {
    if (piece.store) {
      std::copy(piece.bytes.begin(), piece.bytes.end(), expected.begin() + static_cast<std::ptrdiff_t>(piece.offset));
    } else {
      CHECK(piece.bytes == Bytes(original.begin() + static_cast<std::ptrdiff_t>(piece.offset),
                                 original.begin() + static_cast<std::ptrdiff_t>(piece.offset + piece.bytes.size())));
    }
  }
  CHECK(gpu.in_memory(0, CachedMemory::kBytes) == original);
  CHECK(gpu.load(0, CachedMemory::kBytes) == expected);
  gpu.cache.clean();
  CHECK(gpu.in_memory(0, CachedMemory::kBytes) == expected);
}
