// Reads back what a queue recorded, at register level: every type-4 write (last value per
// register) and every type-7 packet, parsed with the PM4 header rules alone so that the checks do
// not reuse the emitter's code. GPU memory is read through the CPU views of the blocks the queue
// owns (command chunks, upload area) and any extra blocks a test names.
#pragma once

#include <adreno/queue.hpp>

#include "core/buffer_impl.h"
#include "core/queue_impl.h"
#include "pm4/decoder.h"
#include "pm4/packet.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

struct RecordedPacket {
  adreno::pm4::Opcode opcode;
  std::vector<std::uint32_t> payload;
};

struct RecordedStream {
  std::map<std::uint32_t, std::uint32_t> registers;  // offset → last value written
  std::vector<RecordedPacket> packets;
  std::vector<std::uint32_t> write_order;  // register offsets as written, with repeats
  std::string text;                        // the pm4 decoder's listing, for failure messages

  bool has(const adreno::pm4::Register& reg) const { return registers.count(reg.offset) != 0; }
  std::uint32_t value(const adreno::pm4::Register& reg) const {
    INFO(text);
    REQUIRE(has(reg));
    return registers.at(reg.offset);
  }
  std::uint64_t value64(const adreno::pm4::Register& reg) const {
    INFO(text);
    REQUIRE((has(reg) && registers.count(reg.offset + 1) != 0));
    return registers.at(reg.offset) | (std::uint64_t{registers.at(reg.offset + 1)} << 32);
  }
  std::uint64_t field(const adreno::pm4::Register& reg, std::string_view name) const {
    return reg.field(name).extract(reg.dwords == 2 ? value64(reg) : value(reg));
  }
  std::vector<const RecordedPacket*> all(adreno::pm4::Opcode opcode) const {
    std::vector<const RecordedPacket*> out;
    for (const RecordedPacket& p : packets)
      if (p.opcode == opcode) out.push_back(&p);
    return out;
  }
};

/// Reads GPU memory through the CPU views of known blocks.
class BlockReader {
 public:
  void add(const adreno::MemoryBlock& block) { blocks_.push_back(&block); }
  bool read(adreno::GpuAddress address, void* out, std::size_t bytes) const {
    for (const adreno::MemoryBlock* block : blocks_) {
      const adreno::Allocation& a = block->allocation();
      if (address >= a.gpu && address - a.gpu + bytes <= a.size && !block->cpu().empty()) {
        std::memcpy(out, block->cpu().data() + (address - a.gpu), bytes);
        return true;
      }
    }
    return false;
  }
  std::vector<std::uint32_t> dwords(adreno::GpuAddress address, std::size_t count) const {
    std::vector<std::uint32_t> out(count);
    REQUIRE(read(address, out.data(), count * 4));
    return out;
  }

 private:
  std::vector<const adreno::MemoryBlock*> blocks_;
};

inline BlockReader queue_memory(adreno::Queue& queue) {
  BlockReader reader;
  for (const auto& block : queue.impl().commands().blocks()) reader.add(*block);
  for (std::size_t i = 0; i < queue.impl().uploads().block_count(); ++i) reader.add(queue.impl().uploads().block(i));
  reader.add(queue.impl().scratch_block());
  return reader;
}

/// Whether record_of reads the commands every submission starts with (the queue's prologue:
/// the cache invalidation and the per-chip setup) before the recorded ones.
enum class Prologue { left_out, included };

/// Everything recorded on `queue` since its last submit, after its prologue when asked.
inline RecordedStream record_of(adreno::Queue& queue, Prologue prologue = Prologue::left_out) {
  using namespace adreno::pm4;
  RecordedStream out;
  const BlockReader reader = queue_memory(queue);
  std::vector<IbRange> ibs;
  if (prologue == Prologue::included) ibs.push_back(queue.impl().prologue());
  for (const IbRange& ib : queue.impl().stream().finish()) ibs.push_back(ib);
  for (const IbRange& ib : ibs) {
    const std::vector<std::uint32_t> words = reader.dwords(ib.gpu, ib.dwords);
    out.text += decode_stream(words, ib.gpu, [&](adreno::GpuAddress a, std::span<std::uint32_t> o) {
      return reader.read(a, o.data(), o.size_bytes());
    });
    for (std::size_t i = 0; i < words.size();) {
      const auto header = decode_header(words[i]);
      REQUIRE(header);
      REQUIRE(i + 1 + header->count <= words.size());
      if (header->type == Header::Type::type4) {
        for (std::uint32_t k = 0; k < header->count; ++k) {
          out.registers[header->reg_or_opcode + k] = words[i + 1 + k];
          out.write_order.push_back(header->reg_or_opcode + k);
        }
      } else {
        out.packets.push_back({static_cast<Opcode>(header->reg_or_opcode),
                               std::vector<std::uint32_t>(words.begin() + static_cast<long>(i) + 1,
                                                          words.begin() + static_cast<long>(i + 1 + header->count))});
      }
      i += 1 + header->count;
    }
  }
  return out;
}
