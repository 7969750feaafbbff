// Test helper: GPU-visible memory without a GPU. Chunks are carved from host buffers and given
// GPU addresses in a separate range, so a test that confuses the two reads the wrong bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "pm4/command_stream.h"

namespace adreno::pm4::testing {

class FakeGpuMemory : public ChunkSource {
 public:
  explicit FakeGpuMemory(std::uint32_t chunk_dwords) : chunk_dwords_(chunk_dwords) {}

  Chunk acquire(std::uint32_t min_dwords) override {
    std::uint32_t dwords = std::max(min_dwords, chunk_dwords_);
    auto& storage = chunks_.emplace_back(std::make_unique<std::uint32_t[]>(dwords));
    GpuAddress gpu(next_gpu_);
    next_gpu_ += (std::uint64_t{dwords} * 4 + 0xfff) & ~std::uint64_t{0xfff};
    mapping_.push_back({gpu, storage.get(), dwords});
    return Chunk{CpuView(storage.get(), std::size_t{dwords} * 4), gpu, dwords, mapping_.size() - 1};
  }

  /// A buffer that is not a command chunk (for CP_INDIRECT_BUFFER targets built by hand).
  GpuAddress place(std::span<const std::uint32_t> dwords) {
    Chunk chunk = acquire(static_cast<std::uint32_t>(dwords.size()));
    std::memcpy(chunk.cpu.data(), dwords.data(), dwords.size_bytes());
    return chunk.gpu;
  }

  bool read(GpuAddress address, std::span<std::uint32_t> out) const {
    for (const Mapping& m : mapping_) {
      if (address < m.gpu || address - m.gpu + out.size_bytes() > std::uint64_t{m.dwords} * 4) continue;
      std::memcpy(out.data(), m.cpu + (address - m.gpu) / 4, out.size_bytes());
      return true;
    }
    return false;
  }

  std::size_t chunks_acquired() const { return chunks_.size(); }

 private:
  struct Mapping {
    GpuAddress gpu;
    const std::uint32_t* cpu;
    std::uint32_t dwords;
  };
  std::uint32_t chunk_dwords_;
  std::uint64_t next_gpu_ = 0x1'0000'0000;
  std::vector<std::unique_ptr<std::uint32_t[]>> chunks_;
  std::vector<Mapping> mapping_;
};

}  // namespace adreno::pm4::testing
