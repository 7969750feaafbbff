// Builders for the PM4 packets a compute dispatch needs. Payload dwords are packed through the
// field descriptors of packet_layouts.h (looked up at compile time), so a builder is the field
// checks and the stores, and the decoder reads back exactly what was packed.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>

#include <adreno/address.hpp>

#include "pm4/command_stream.h"
#include "pm4/enums.h"
#include "pm4/field.h"
#include "pm4/packet_layouts.h"

namespace adreno::pm4 {

namespace packet_field {
inline constexpr const Register& kLoadState0 = payload_entry(Opcode::CP_LOAD_STATE6_FRAG, "0");
inline constexpr const Field& kDstOff = kLoadState0.field("DST_OFF");
inline constexpr const Field& kStateType = kLoadState0.field("STATE_TYPE");
inline constexpr const Field& kStateSrc = kLoadState0.field("STATE_SRC");
inline constexpr const Field& kStateBlock = kLoadState0.field("STATE_BLOCK");
inline constexpr const Field& kNumUnit = kLoadState0.field("NUM_UNIT");

inline constexpr const Register& kEventWrite0 = payload_entry(Opcode::CP_EVENT_WRITE, "0");
inline constexpr const Field& kEvent = kEventWrite0.field("EVENT");
inline constexpr const Field& kEventTimestamp = kEventWrite0.field("TIMESTAMP");
inline constexpr const Field& kEventIrq = kEventWrite0.field("IRQ");

inline constexpr const Register& kEventWrite7_0 = payload_entry(Opcode::CP_EVENT_WRITE7, "0", kA7xx);
inline constexpr const Field& kEvent7 = kEventWrite7_0.field("EVENT");
inline constexpr const Field& kEvent7WriteSrc = kEventWrite7_0.field("WRITE_SRC");
inline constexpr const Field& kEvent7WriteDst = kEventWrite7_0.field("WRITE_DST");
inline constexpr const Field& kEvent7WriteEnabled = kEventWrite7_0.field("WRITE_ENABLED");

inline constexpr const Register& kWaitRegMem0 = payload_entry(Opcode::CP_WAIT_REG_MEM, "0");
inline constexpr const Field& kFunction = kWaitRegMem0.field("FUNCTION");
inline constexpr const Field& kSignedCompare = kWaitRegMem0.field("SIGNED_COMPARE");
inline constexpr const Field& kPoll = kWaitRegMem0.field("POLL");

inline constexpr const Register& kRegToMem0 = payload_entry(Opcode::CP_REG_TO_MEM, "0");
inline constexpr const Field& kRegToMemReg = kRegToMem0.field("REG");
inline constexpr const Field& kRegToMemCnt = kRegToMem0.field("CNT");
inline constexpr const Field& kRegToMem64 = kRegToMem0.field("64B");
inline constexpr const Field& kRegToMemAccumulate = kRegToMem0.field("ACCUMULATE");

inline constexpr const Register& kMemToMem0 = payload_entry(Opcode::CP_MEM_TO_MEM, "0");
inline constexpr const Field& kNegA = kMemToMem0.field("NEG_A");
inline constexpr const Field& kDouble = kMemToMem0.field("DOUBLE");
inline constexpr const Field& kWaitForMemWrites = kMemToMem0.field("WAIT_FOR_MEM_WRITES");

inline constexpr const Field& kMarkerMode = payload_entry(Opcode::CP_SET_MARKER, "0").field("MODE");
inline constexpr const Field& kUsesGmem = payload_entry(Opcode::CP_SET_MARKER, "0").field("USES_GMEM");
inline constexpr const Field& kIbSize = payload_entry(Opcode::CP_INDIRECT_BUFFER, "2").field("IB_SIZE");
}  // namespace packet_field

/// Where a packet builder writes: the stream, or a writer in room reserved on it (the builders a
/// dispatch uses take either, so that a dispatch's packets cost only their stores).
template <typename T>
concept PacketSink = std::same_as<T, CommandStream> || std::same_as<T, PacketWriter>;

template <typename E>
constexpr std::uint64_t raw(E value) {
  return static_cast<std::uint64_t>(value);
}

inline void nop(CommandStream& cs, std::uint32_t padding_dwords = 0) {
  for (std::uint32_t& d : cs.packet_payload(Opcode::CP_NOP, padding_dwords)) d = 0;
}
inline void wait_for_idle(CommandStream& cs) { cs.packet(Opcode::CP_WAIT_FOR_IDLE); }
inline void wait_for_me(CommandStream& cs) { cs.packet(Opcode::CP_WAIT_FOR_ME); }
inline void wait_mem_writes(CommandStream& cs) { cs.packet(Opcode::CP_WAIT_MEM_WRITES); }

inline void set_marker(CommandStream& cs, Marker mode, bool uses_gmem = false) {
  using namespace packet_field;
  cs.packet(Opcode::CP_SET_MARKER, kMarkerMode.pack(raw(mode)) | kUsesGmem.pack(uses_gmem));
}

/// CP_EVENT_WRITE without a memory write (e.g. CACHE_INVALIDATE).
inline void event_write(CommandStream& cs, EventType event) {
  cs.packet(Opcode::CP_EVENT_WRITE, packet_field::kEvent.pack(raw(event)));
}

/// CP_EVENT_WRITE that writes `value` (or, with `timestamp`, the GPU timestamp) to `address`
/// when the event completes (e.g. CACHE_FLUSH_TS for fences). Returns the packet's header:
/// the value is at [4], for callers that patch it later.
inline std::uint32_t* event_write(CommandStream& cs, EventType event, GpuAddress address, std::uint32_t value,
                                  bool timestamp = false, bool irq = false) {
  using namespace packet_field;
  return cs.packet(Opcode::CP_EVENT_WRITE, kEvent.pack(raw(event)) | kEventTimestamp.pack(timestamp) | kEventIrq.pack(irq),
            address.lo(), address.hi(), value);
}

/// CP_EVENT_WRITE7 (a7xx) without a memory write (e.g. CACHE_INVALIDATE7).
inline void event_write7(CommandStream& cs, EventType event) {
  cs.packet(Opcode::CP_EVENT_WRITE7, packet_field::kEvent7.pack(raw(event)));
}

/// CP_EVENT_WRITE7 (a7xx) that writes the 32-bit `value` to `address` when the event completes
/// (WRITE_ENABLED, EV_WRITE_USER_32B to EV_DST_RAM, as computerator's a7xx event_write and
/// Turnip's tu_emit_event_write write fences). Returns the packet's header: the value is at [4],
/// where CP_EVENT_WRITE has it too.
inline std::uint32_t* event_write7(CommandStream& cs, EventType event, GpuAddress address, std::uint32_t value) {
  using namespace packet_field;
  return cs.packet(Opcode::CP_EVENT_WRITE7,
                   kEvent7.pack(raw(event)) | kEvent7WriteEnabled.pack(1) |
                       kEvent7WriteSrc.pack(raw(EventWriteSrc::EV_WRITE_USER_32B)) |
                       kEvent7WriteDst.pack(raw(EventWriteDst::EV_DST_RAM)),
                   address.lo(), address.hi(), value);
}

/// The event packet of `gen`: CP_EVENT_WRITE up to a6xx, CP_EVENT_WRITE7 on a7xx (adreno_pm4.xml:
/// the same opcode, different payloads). `event` must exist on `gen`.
inline void event(CommandStream& cs, Gen gen, EventType event) {
  if (gen == kA7xx)
    event_write7(cs, event);
  else
    event_write(cs, event);
}

/// The event packet of `gen` writing `value` to `address` when `event` completes. Returns the
/// packet's header: the value is at [4] in both packets.
inline std::uint32_t* event(CommandStream& cs, Gen gen, EventType event, GpuAddress address, std::uint32_t value) {
  return gen == kA7xx ? event_write7(cs, event, address, value) : event_write(cs, event, address, value);
}

/// CP_MEM_WRITE of `values` to `address`. Returns where the values were written in the stream.
inline std::span<std::uint32_t> mem_write(CommandStream& cs, GpuAddress address, std::span<const std::uint32_t> values) {
  std::span<std::uint32_t> out = cs.packet_payload(Opcode::CP_MEM_WRITE, 2 + static_cast<std::uint32_t>(values.size()));
  out[0] = address.lo();
  out[1] = address.hi();
  std::copy(values.begin(), values.end(), out.begin() + 2);
  return out.subspan(2);
}

/// CP_WAIT_REG_MEM polling memory: waits until (*address & mask) <function> reference. Returns
/// the packet's header: the reference is at [4], for callers that patch it later. `Writer` is a
/// CommandStream or a PacketWriter over dwords being rewritten in place.
template <typename Writer>
inline std::uint32_t* wait_mem(Writer& cs, CondFunction function, GpuAddress address, std::uint32_t reference,
                     std::uint32_t mask = 0xffffffff, std::uint32_t delay_loop_cycles = 16, bool signed_compare = false) {
  using namespace packet_field;
  return cs.packet(Opcode::CP_WAIT_REG_MEM,
                   kFunction.pack(raw(function)) | kSignedCompare.pack(signed_compare) |
                       kPoll.pack(raw(PollType::POLL_MEMORY)),
                   address.lo(), address.hi(), reference, mask, delay_loop_cycles);
}

/// CP_WAIT_MEM_GTE (a6xx): waits until the dword at `address` >= reference (signed).
template <typename Writer>
inline std::uint32_t* wait_mem_gte(Writer& cs, GpuAddress address, std::uint32_t reference) {
  return cs.packet(Opcode::CP_WAIT_MEM_GTE, 0u, address.lo(), address.hi(), reference);
}

/// CP_REG_TO_MEM: copies `count` registers from `first_register` to `destination`.
inline void reg_to_mem(CommandStream& cs, std::uint32_t first_register, std::uint32_t count, GpuAddress destination,
                       bool sixty_four_bit = false, bool accumulate = false) {
  using namespace packet_field;
  cs.packet(Opcode::CP_REG_TO_MEM,
            kRegToMemReg.pack(first_register) | kRegToMemCnt.pack(count) | kRegToMem64.pack(sixty_four_bit) |
                kRegToMemAccumulate.pack(accumulate),
            destination.lo(), destination.hi());
}

struct MemToMemOptions {
  std::uint8_t negate = 0;  // bit i negates source i
  bool double_width = false;
  bool wait_for_mem_writes = false;
};

/// CP_MEM_TO_MEM: *destination = sum of ±*sources (1 to 3 sources; 64-bit with double_width).
void mem_to_mem(CommandStream& cs, GpuAddress destination, std::span<const GpuAddress> sources,
                MemToMemOptions options = {});

struct LoadState {
  StateType type;
  StateBlock block;
  std::uint32_t dst_offset = 0;  // in units of the state type (vec4 for constants)
  std::uint32_t num_units = 0;
};

/// CP_LOAD_STATE6_FRAG from GPU memory (SS6_INDIRECT). Always inlined: the dispatch emitter's
/// constant state types and blocks fold, only the unit count is checked at run time.
template <PacketSink Sink>
[[gnu::always_inline]] inline void load_state6_frag(Sink& cs, const LoadState& state, GpuAddress source) {
  using namespace packet_field;
  cs.packet(Opcode::CP_LOAD_STATE6_FRAG,
            kDstOff.pack(state.dst_offset) | kStateType.pack(raw(state.type)) |
                kStateSrc.pack(raw(StateSrc::SS6_INDIRECT)) | kStateBlock.pack(raw(state.block)) |
                kNumUnit.pack(state.num_units),
            source.lo(), source.hi());
}

/// CP_LOAD_STATE6_FRAG with the state inline in the packet (SS6_DIRECT).
void load_state6_frag(CommandStream& cs, const LoadState& state, std::span<const std::uint32_t> data);

template <PacketSink Sink>
void exec_cs(Sink& cs, std::uint32_t groups_x, std::uint32_t groups_y, std::uint32_t groups_z) {
  cs.packet(Opcode::CP_EXEC_CS, 0u, groups_x, groups_y, groups_z);
}

/// CP_EXEC_CS_INDIRECT: dispatches the group counts x, y, z the CP reads from `groups` (three
/// dwords), with the local size the packet repeats (Turnip tu_dispatch).
template <PacketSink Sink>
void exec_cs_indirect(Sink& cs, GpuAddress groups, const std::uint32_t (&local_size)[3]) {
  static constexpr const Register& kDword3 = payload_entry(Opcode::CP_EXEC_CS_INDIRECT, "3");
  cs.packet(Opcode::CP_EXEC_CS_INDIRECT, 0u, groups.lo(), groups.hi(),
            static_cast<std::uint32_t>(kDword3.pack({{"LOCALSIZEX", local_size[0] - 1},
                                                     {"LOCALSIZEY", local_size[1] - 1},
                                                     {"LOCALSIZEZ", local_size[2] - 1}})));
}

/// CP_RUN_OPENCL: dispatches the grid programmed in SP_CS_NDRANGE_* / SP_CS_KERNEL_GROUP_*.
template <PacketSink Sink>
void run_opencl(Sink& cs) { cs.packet(Opcode::CP_RUN_OPENCL, 0u); }

/// CP_INDIRECT_BUFFER: calls `dwords` dwords of commands at `address` (IB2 from an IB1).
inline void indirect_buffer(CommandStream& cs, GpuAddress address, std::uint32_t dwords) {
  cs.packet(Opcode::CP_INDIRECT_BUFFER, address.lo(), address.hi(), packet_field::kIbSize.pack(dwords));
}

[[noreturn]] void throw_register_write_out_of_range(const Register& reg, unsigned index);

/// Type-4 write of one register (both dwords of a reg64; element `index` of an array), value
/// already packed. A 32-bit register's value must fit in 32 bits. Always inlined: with a constant
/// register, as the dispatch emitter passes, its checks and header fold into a few instructions.
template <PacketSink Sink>
[[gnu::always_inline]] inline void write_register(Sink& cs, const Register& reg, std::uint64_t value, unsigned index = 0) {
  if (index >= reg.array_length || (reg.dwords == 1 && (value >> 32) != 0)) [[unlikely]]
    throw_register_write_out_of_range(reg, index);
  if (reg.dwords == 2)
    cs.write_registers(reg.offset_of(index), static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(value >> 32));
  else
    cs.write_registers(reg.offset_of(index), static_cast<std::uint32_t>(value));
}

/// Type-4 write of one register from named fields (convenient; string lookups at run time).
inline void write_register(CommandStream& cs, const Register& reg, std::initializer_list<FieldValue> fields,
                           unsigned index = 0) {
  write_register(cs, reg, reg.pack(fields), index);
}

}  // namespace adreno::pm4
