#include "pm4/command_stream.h"

#include <algorithm>

#include <fmt/format.h>

#include <adreno/error.hpp>

namespace adreno::pm4 {

CommandStream::CommandStream(ChunkSource& source, Growth growth)
    : source_(source), growth_(growth), tail_(growth == Growth::chain ? kChainDwords : 0) {
  ibs_.reserve(16);
  tags_.reserve(16);
}

std::uint32_t* CommandStream::write_registers(std::uint32_t first_register, std::span<const std::uint32_t> values) {
  if (values.empty() || values.size() > kType4MaxCount)
    throw Error(Errc::invalid_argument, "append PM4 type-4 packet",
                fmt::format("{} values for register {:#x}; a packet holds 1 to {}", values.size(), first_register,
                            kType4MaxCount));
  if (first_register > kMaxRegister)
    throw Error(Errc::invalid_argument, "append PM4 type-4 packet",
                fmt::format("register offset {:#x} exceeds {:#x}", first_register, kMaxRegister));
  auto count = static_cast<std::uint32_t>(values.size());
  std::uint32_t* at = reserve(1 + count);
  at[0] = type4_header(first_register, count);
  std::copy(values.begin(), values.end(), at + 1);
  return at;
}

std::span<std::uint32_t> CommandStream::packet_payload(Opcode opcode, std::uint32_t payload_dwords) {
  if (payload_dwords > kType7MaxCount)
    throw Error(Errc::invalid_argument, "append PM4 type-7 packet",
                fmt::format("{} payload dwords for opcode {:#x}; a packet holds at most {}", payload_dwords,
                            static_cast<unsigned>(opcode), kType7MaxCount));
  std::uint32_t* at = reserve(1 + payload_dwords);
  at[0] = type7_header(static_cast<std::uint32_t>(opcode), payload_dwords);
  return {at + 1, payload_dwords};
}

std::uint32_t* CommandStream::packet(Opcode opcode, std::span<const std::uint32_t> payload) {
  std::span<std::uint32_t> out = packet_payload(opcode, static_cast<std::uint32_t>(payload.size()));
  std::copy(payload.begin(), payload.end(), out.begin());
  return out.data() - 1;
}

GpuAddress CommandStream::gpu_of(const std::uint32_t* at) const {
  return chunk_gpu_ + static_cast<std::uint64_t>(at - base_) * 4;
}

GpuAddress CommandStream::gpu_address_here() const { return base_ == nullptr ? GpuAddress() : gpu_of(cursor_); }

// Records the open range [range_start_, cursor_): as a new IB, or — when a chain packet jumps
// into it — as that packet's IB_SIZE. With `chaining`, the range ends in a chain packet whose
// size is patched when the next range closes.
void CommandStream::close_range(bool chaining) {
  auto dwords = static_cast<std::uint32_t>(cursor_ - range_start_);
  closed_dwords_ += dwords;
  if (dwords != 0) {
    if (pending_chain_size_ == nullptr)
      ibs_.push_back(IbRange{gpu_of(range_start_), dwords, chunk_tag_});
    else
      *pending_chain_size_ = dwords;
  }
  pending_chain_size_ = chaining ? cursor_ - 1 : nullptr;
  range_start_ = cursor_;
}

void CommandStream::next_chunk(std::uint32_t dwords) {
  std::uint32_t needed = dwords + tail_;
  if (needed > kMaxIbDwords)
    throw Error(Errc::invalid_argument, "append PM4 packet",
                fmt::format("{} dwords do not fit in one IB (at most {})", needed, kMaxIbDwords));
  Chunk chunk = source_.acquire(needed);
  if (chunk.dwords < needed || chunk.cpu.empty() || chunk.cpu.size() < std::size_t{chunk.dwords} * 4 ||
      reinterpret_cast<std::uintptr_t>(chunk.cpu.data()) % 4 != 0 || chunk.gpu.value() % 4 != 0)
    throw Error(Errc::invalid_argument, "acquire PM4 command chunk",
                fmt::format("chunk of {} dwords at GPU {:#x} with a {}-byte CPU view cannot hold {} dwords "
                            "(views and addresses must be 4-byte aligned)",
                            chunk.dwords, chunk.gpu.value(), chunk.cpu.size(), needed));
  tags_.push_back(chunk.tag);

  bool chaining = growth_ == Growth::chain && base_ != nullptr && cursor_ != range_start_;
  if (chaining) {
    // The tail reserved in every chunk guarantees room for the jump.
    cursor_[0] = type7_header(static_cast<std::uint32_t>(Opcode::CP_INDIRECT_BUFFER_CHAIN), 3);
    cursor_[1] = chunk.gpu.lo();
    cursor_[2] = chunk.gpu.hi();
    cursor_[3] = 0;  // IB_SIZE, patched when the next range closes
    cursor_ += kChainDwords;
  }
  if (base_ != nullptr) close_range(chaining);

  base_ = chunk.cpu.as<std::uint32_t>().data();
  cursor_ = base_;
  end_ = base_ + std::min(chunk.dwords, kMaxIbDwords);
  chunk_gpu_ = chunk.gpu;
  chunk_tag_ = chunk.tag;
  range_start_ = base_;
}

std::span<const IbRange> CommandStream::finish() {
  if (base_ != nullptr) close_range(false);
  return ibs_;
}

}  // namespace adreno::pm4
