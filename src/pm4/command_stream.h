// A PM4 command-stream builder that writes straight into GPU-visible memory through a CPU view.
// It does not know how that memory is allocated: a ChunkSource (implemented later by the
// allocator) hands it chunks. When a chunk is full the stream either closes the IB and starts
// a new one in the next chunk (Growth::separate_ibs: the submitter lists every IB) or jumps to
// the next chunk with CP_INDIRECT_BUFFER_CHAIN (Growth::chain: the submitter lists one IB).
// CP_INDIRECT_BUFFER cannot be used to chain: it is a call, and a6xx only nests IB1 -> IB2.
//
// Appending a packet is a bounds check and a few stores: no heap allocation and no syscall. Only
// crossing into a new chunk calls the ChunkSource and may append to the IB and chunk lists. A
// caller that knows a bound on what it appends (a dispatch) reserves the room once and writes its
// packets through a PacketWriter: then each packet is only its stores.
#pragma once

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <adreno/address.hpp>

#include "pm4/enums.h"
#include "pm4/packet.h"

namespace adreno::pm4 {

/// GPU-visible memory for commands: where the CPU writes it, where the GPU reads it, its size in
/// dwords, and an opaque tag the submitter uses to list the buffer object it belongs to.
struct Chunk {
  CpuView cpu;
  GpuAddress gpu;
  std::uint32_t dwords = 0;
  std::uint64_t tag = 0;
};

class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  /// A chunk of at least `min_dwords` dwords. Throws adreno::Error when none can be had.
  virtual Chunk acquire(std::uint32_t min_dwords) = 0;
};

/// One IB to submit: GPU address, size in dwords, and the tag of the chunk it starts in.
struct IbRange {
  GpuAddress gpu;
  std::uint32_t dwords = 0;
  std::uint64_t tag = 0;
};

/// Writes whole packets into room reserved in advance (CommandStream::reserve_packets). The
/// reservation is the bounds check; debug builds assert that the writer stays inside it. The
/// fixed-size packet encodings live here: CommandStream's templated appends reserve and delegate.
class PacketWriter {
 public:
  explicit PacketWriter(std::uint32_t* at, const std::uint32_t* limit) : cursor_(at), limit_(limit) {}

  /// Whole packets recorded earlier (e.g. into host memory), copied verbatim. Returns where.
  /// They never lie in the room they are copied to, which nothing wrote before it was reserved
  /// (so memcpy, without std::copy's memmove).
  std::uint32_t* append(std::span<const std::uint32_t> dwords) {
    std::uint32_t* at = take(dwords.size());
    if (!dwords.empty()) std::memcpy(at, dwords.data(), dwords.size_bytes());  // never from null
    return at;
  }

  /// Type-4 packet writing `values` to consecutive registers from `first_register`. Returns the
  /// CPU location of the header so that callers can patch the values in place later.
  template <std::convertible_to<std::uint32_t>... Values>
  std::uint32_t* write_registers(std::uint32_t first_register, Values... values) {
    static_assert(sizeof...(Values) >= 1 && sizeof...(Values) <= kType4MaxCount);
    std::uint32_t* at = take(1 + sizeof...(Values));
    std::uint32_t* out = at;
    *out++ = type4_header(first_register, sizeof...(Values));
    ((*out++ = static_cast<std::uint32_t>(values)), ...);
    return at;
  }

  /// Type-7 packet `opcode` with `payload`. Returns the CPU location of the header.
  template <std::convertible_to<std::uint32_t>... Payload>
  std::uint32_t* packet(Opcode opcode, Payload... payload) {
    static_assert(sizeof...(Payload) <= kType7MaxCount);
    std::uint32_t* at = take(1 + sizeof...(Payload));
    std::uint32_t* out = at;
    *out++ = type7_header(static_cast<std::uint32_t>(opcode), sizeof...(Payload));
    ((*out++ = static_cast<std::uint32_t>(payload)), ...);
    return at;
  }

  std::uint32_t* cursor() const noexcept { return cursor_; }

 private:
  std::uint32_t* take(std::size_t dwords) {
    std::uint32_t* at = cursor_;
    cursor_ += dwords;
    assert(cursor_ <= limit_ && "a PacketWriter wrote past its reservation");
    return at;
  }

  std::uint32_t* cursor_;
  [[maybe_unused]] const std::uint32_t* limit_;  // checked by assert() only
};

class CommandStream {
 public:
  enum class Growth { separate_ibs, chain };
  static constexpr std::uint32_t kChainDwords = 4;        // CP_INDIRECT_BUFFER_CHAIN with payload
  static constexpr std::uint32_t kMaxIbDwords = 0xfffff;  // CP_INDIRECT_BUFFER IB_SIZE is 20 bits

  explicit CommandStream(ChunkSource& source, Growth growth = Growth::separate_ibs);
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  /// Whole packets recorded earlier (e.g. into host memory), copied verbatim. `dwords` must be
  /// complete packets; they stay in one IB. Returns where they were copied.
  std::uint32_t* append(std::span<const std::uint32_t> dwords) {
    return writer(static_cast<std::uint32_t>(dwords.size())).append(dwords);
  }

  /// Type-4 packet writing `values` to consecutive registers from `first_register` (see PacketWriter).
  template <std::convertible_to<std::uint32_t>... Values>
  std::uint32_t* write_registers(std::uint32_t first_register, Values... values) {
    return writer(1 + sizeof...(Values)).write_registers(first_register, values...);
  }
  std::uint32_t* write_registers(std::uint32_t first_register, std::span<const std::uint32_t> values);

  /// Type-7 packet `opcode` with `payload` (see PacketWriter).
  template <std::convertible_to<std::uint32_t>... Payload>
  std::uint32_t* packet(Opcode opcode, Payload... payload) {
    return writer(1 + sizeof...(Payload)).packet(opcode, payload...);
  }
  std::uint32_t* packet(Opcode opcode, std::span<const std::uint32_t> payload);

  /// Room for up to `max_dwords` of whole packets (they stay in one IB), written through the
  /// returned writer and ended by commit(); nothing else may be appended in between.
  PacketWriter reserve_packets(std::uint32_t max_dwords) {
    make_room(max_dwords);
    return PacketWriter(cursor_, cursor_ + max_dwords);
  }
  /// Ends a reservation: what `writer` wrote becomes part of the stream.
  void commit(const PacketWriter& writer) { cursor_ = writer.cursor(); }

  /// Type-7 header for `payload_dwords`; returns the payload for the caller to fill.
  std::span<std::uint32_t> packet_payload(Opcode opcode, std::uint32_t payload_dwords);

  /// Closes the open IB and returns every IB built so far, in order. Appending afterwards
  /// starts a new IB.
  std::span<const IbRange> finish();

  /// Tags of every chunk this stream has used (for the submitter's buffer-object list).
  std::span<const std::uint64_t> chunk_tags() const { return tags_; }

  /// Dwords appended so far, chain packets included (however many IBs and chunks they span).
  std::uint64_t dwords_written() const noexcept { return closed_dwords_ + static_cast<std::uint64_t>(cursor_ - range_start_); }

  /// GPU address of the next dword to be written (null before the first chunk).
  GpuAddress gpu_address_here() const;

 private:
  void make_room(std::uint32_t dwords) {
    if (static_cast<std::uint32_t>(end_ - cursor_) < dwords + tail_) [[unlikely]]
      next_chunk(dwords);
  }
  std::uint32_t* reserve(std::uint32_t dwords) {
    make_room(dwords);
    std::uint32_t* at = cursor_;
    cursor_ += dwords;
    return at;
  }
  // A writer for exactly `dwords` dwords, already counted as written.
  PacketWriter writer(std::uint32_t dwords) {
    std::uint32_t* at = reserve(dwords);
    return PacketWriter(at, cursor_);
  }
  void next_chunk(std::uint32_t dwords);
  GpuAddress gpu_of(const std::uint32_t* at) const;
  void close_range(bool chaining);

  ChunkSource& source_;
  Growth growth_;
  std::uint32_t tail_;  // dwords kept free at the end of each chunk for the chain packet

  std::uint32_t* base_ = nullptr;  // current chunk
  std::uint32_t* cursor_ = nullptr;
  std::uint32_t* end_ = nullptr;
  GpuAddress chunk_gpu_;
  std::uint64_t chunk_tag_ = 0;

  std::uint32_t* range_start_ = nullptr;         // first dword of the open IB range
  std::uint32_t* pending_chain_size_ = nullptr;  // IB_SIZE of the chain packet into the open range
  std::uint64_t closed_dwords_ = 0;              // in ranges closed so far

  std::vector<IbRange> ibs_;
  std::vector<std::uint64_t> tags_;
};

}  // namespace adreno::pm4
