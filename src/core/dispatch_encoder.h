// The a6xx compute emitter, shared by Queue::dispatch (recorded for one submission) and Graph
// (recorded once, replayed many times). It is split where the two differ: where a dispatch's
// constants and descriptors live in GPU memory, and who lists the memory for the kernel.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/program.hpp>

#include "core/arguments_impl.h"
#include "core/program_impl.h"
#include "pm4/command_stream.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace adreno {

/// Throws Error(invalid_argument, "dispatch") naming the field when the launch is out of range
/// for `info`.
void validate_launch(const ProgramInfo& info, const Launch& launch);

/// Throws Error(invalid_argument) naming the field when `arguments` do not belong to `program`,
/// the program is from another device, an argument is unset, or the launch is out of range.
/// With `launch_validated` (CarriedProgramState::repeats), validate_launch passed the launch for
/// this program already and is not run again.
void validate_dispatch(const Device::Impl& device, const Program::Impl& program, const Arguments::Impl& arguments,
                       const Launch& launch, bool launch_validated = false);

/// The layout of a dispatch's data for `info` (Program::Impl::data_layout keeps it).
DispatchDataLayout dispatch_data_layout(const ProgramInfo& info);

/// Writes the driver params `info` reads (ProgramInfo::driver_params) for `launch` into the
/// constant file image at `constants`. Graphs call it again when a replay changes the grid.
void write_driver_param_values(std::byte* constants, const ProgramInfo& info, const Launch& launch);
inline void write_driver_params(std::byte* constants, const ProgramInfo& info, const Launch& launch) {
  if (!info.driver_params.empty()) write_driver_param_values(constants, info, launch);  // most programs read none
}

/// Writes the constant file image (with the launch's driver params) and descriptor tables to `data`
/// (the program's data_layout().bytes).
void write_dispatch_data(CpuView data, const Program::Impl& program, const Arguments::Impl& arguments, const Launch& launch);

/// Records the packets that depend only on `program` (ProgramPackets), once, at load.
ProgramPackets record_program_packets(const Program::Impl& program);

/// Appends the compute state and launch packets; the data written by write_dispatch_data is at `data`.
/// With `indirect`, the launch is CP_EXEC_CS_INDIRECT.
/// Returns where the packets went, for rewrite_dispatch.
/// An indirect dispatch: CP_EXEC_CS_INDIRECT reads the counts at `groups`; when the program reads
/// them as driver params, the vec4 holding them is loaded again from `count_params` (16 bytes
/// the CP filled from `groups`) into constant vec4 `count_params_vec4`.
struct IndirectCounts {
  GpuAddress groups;
  GpuAddress count_params;  // null: the program reads no counts
  std::uint32_t count_params_vec4 = 0;
};

/// Where in a queue's or graph's 64-byte scratch an indirect dispatch assembles its count vec4
/// (the first 16 bytes are the barriers' flush dword).
constexpr std::uint64_t kIndirectParamsOffset = 16;

/// The Launch an indirect dispatch is checked and encoded with: `shape`'s local and wave size.
Launch indirect_launch(const IndirectLaunch& shape);

/// Throws unless `info` can be launched indirectly (Error(unsupported)) from counts in `groups`
/// (Error(invalid_argument): at least 12 bytes, 4-byte aligned). The caller checked that `groups`
/// has a buffer of its device (require_same_device).
void validate_indirect(const ProgramInfo& info, const BufferView& groups, const char* operation);

/// Appends what an indirect dispatch of `info` needs before its packets, for a GPU of generation
/// `gen`: when the program reads the group counts as driver params, the CP copies them from
/// `groups` into the 16 bytes at `params` (with the fourth dword of their vec4 from the
/// dispatch's constants at `data`) and invalidates UCHE. Returns what emit_dispatch takes.
IndirectCounts emit_indirect_count_params(pm4::CommandStream& cs, pm4::Gen gen, const ProgramInfo& info, GpuAddress groups,
                                          GpuAddress data, GpuAddress params);

/// The program whose compute state (ProgramPackets: the state for one wave size and the code
/// packets) a command stream set last, so that the next dispatch of the same program with the
/// same wave size writes only what is its own: the grid, its constants and descriptors, the launch.
///
/// Which state is carried, and why it is safe:
///  * Only within one command stream: a queue's recording, from its first dispatch after a submit
///    to the next submit (Queue::Impl forgets at each submit), or a graph's command buffer, from
///    its first dispatch (Graph::Impl::build starts with nothing carried; a replay's queue forgets
///    after the graph's IB). Nothing is assumed across submissions: another context's
///    submission may run in between and program the same registers, so each submission's first
///    dispatch writes its whole state, as Mesa's drivers assume nothing across command buffers.
///  * Within a submission the registers and the loaded state stay what the stream last wrote,
///    also when the kernel switches to another context in the middle of it: KGSL gives the CP a
///    context record to save the state into and restore it from at preemption (adreno_a6xx_preempt.c
///    a6xx_preemption_pre_ibsubmit: SET_PSEUDO_PRIV_NON_SECURE_SAVE_ADDR, SET_PSEUDO_NON_PRIV_SAVE_ADDR
///    per context); MSM preempts only with more than one ring, switching through per-ring preempt
///    records (a6xx_preempt.c a6xx_preempt_trigger: CP_CONTEXT_SWITCH_PRIV_NON_SECURE_RESTORE_ADDR).
///    The stream depended on this before any state was carried: the queue's prologue (the chip
///    setup, an IB of its own) is written once per submission for all its dispatches, as Mesa's
///    drivers write their setup once per command buffer.
///  * Between dispatches of one program nothing else in the stream writes compute state: barriers,
///    signals, waits, timestamps and the indirect-count copies are events and memory packets.
///    Without SP_UPDATE_CNTL the CP_LOAD_STATE6 of the next dispatch replaces the constants and
///    descriptors of the same slots (same program: same constlen and slot counts), as gallium's
///    fd6_launch_grid does: it emits the program state (cs_program_emit, with its SP_UPDATE_CNTL)
///    only when the program changed, and the grid, constants and CP_EXEC_CS per launch; Turnip
///    emits a compute pipeline's state when it is bound (tu_CmdBindPipeline), not per dispatch.
///  * A program longer than the instruction cache is never carried: its code packets hold the
///    SP_PS_INSTR_SIZE workaround, which fd6_launch_grid writes before every launch.
/// A carried program is held (the pointer cannot name another program meanwhile).
///
/// It also keeps the launch of the latest dispatch written after the program's state (its own
/// or carried): emit_dispatch's callers validated it for the program (validate_dispatch), so a
/// queue need not validate the same launch of the same program again (repeats()).
///
/// A dispatch that repeats the latest one (same program, same launch: repeats()) finds the
/// program state carried, with the wave size that launch runs (set() recorded it for the
/// program's state, and only note_launch changes the launch, after a dispatch of that wave
/// size). Its packets differ from those of the dispatch before it, with the state left out,
/// only in where its data is: emit_repeat() keeps them in host memory, encoded once, and writes
/// each repeat as a copy with the data addresses put in.
class CarriedProgramState {
 public:
  /// What emit_dispatch writes besides the recorded program packets, at most: the grid
  /// (thirteen dwords), six CP_LOAD_STATE6_FRAG (the UBOs, an indirect dispatch's counts), four
  /// 64-bit base registers, SP_CS_TSIZE, SP_CS_USIZE and CP_EXEC_CS(_INDIRECT).
  static constexpr std::uint32_t kMaxDispatchDwords = 13 + 6 * 4 + 4 * 3 + 2 + 2 + 5;

  /// Whether a dispatch of `program` with the wave size `wave128` finds its state set.
  bool carries(const Program::Impl& program, bool wave128) const noexcept {
    return program_.get() == &program && wave128_ == wave128;
  }
  /// Whether the latest dispatch of the carried program, `program`, had `launch`: then
  /// validate_launch passed it for `program` already. The group counts and local sizes are
  /// compared as the 24 bytes they fill together (a few wide compares), the base group as its
  /// bytes, and the optional wave size as an optional (it has padding).
  bool repeats(const Program::Impl& program, const Launch& launch) const noexcept {
    static_assert(offsetof(Launch, local_size) == offsetof(Launch, groups) + sizeof launch.groups);
    constexpr std::size_t kGridBytes = sizeof launch.groups + sizeof launch.local_size;
    return program_.get() == &program && std::memcmp(&launch_.groups, &launch.groups, kGridBytes) == 0 &&
           std::memcmp(&launch_.base_group, &launch.base_group, sizeof launch.base_group) == 0 &&
           launch_.wave_size == launch.wave_size;
  }
  /// A dispatch of `program` with `wave128` wrote its whole state.
  void set(const std::shared_ptr<const Program::Impl>& program, bool wave128);
  /// A dispatch with `launch`, validated for its program, was written after its program's state.
  void note_launch(const Launch& launch) noexcept {
    launch_ = launch;
    repeat_.dwords = 0;  // encoded for another launch, or another program
  }
  /// Something else may have changed the state (another command buffer ran, or a submit).
  void forget() noexcept { program_.reset(); }

  /// Appends the packets of a dispatch that repeats() the latest one, with its data at `data`
  /// laid out as `layout` (the carried program's data_layout()): the same dwords emit_dispatch
  /// writes for it with the program state carried.
  void emit_repeat(pm4::CommandStream& cs, const DispatchDataLayout& layout, GpuAddress data) {
    if (repeat_.dwords == 0) [[unlikely]] encode_repeat(layout);
    const std::uint32_t dwords = repeat_.dwords, slots = repeat_.address_count;  // not reloaded after each store
    // The low dword first: the address's bytes in a little-endian host's order, in one store.
    static_assert(std::endian::native == std::endian::little);
    for (std::uint32_t i = 0; i < slots; ++i) {
      const AddressSlot slot = repeat_.addresses[i];
      const std::uint64_t address = (data + slot.offset).value();
      std::memcpy(&repeat_.packets[slot.at], &address, sizeof address);
    }
    pm4::PacketWriter out = cs.reserve_packets(dwords);
    out.append(std::span(repeat_.packets.data(), dwords));
    cs.commit(out);
  }

 private:
  std::shared_ptr<const Program::Impl> program_;
  bool wave128_ = false;
  Launch launch_;  // of the latest dispatch; meaningful while program_ is set

  /// Where a repeated dispatch's packets hold a data address: a 64-bit address, low dword first,
  /// at dword `at`, `offset` bytes into the dispatch's data.
  struct AddressSlot {
    std::uint32_t at;
    std::uint32_t offset;
  };
  /// One slot per CP_LOAD_STATE6_FRAG and base register a dispatch writes (emit_dispatch).
  static constexpr std::uint32_t kMaxAddressSlots = 9;
  struct RepeatPackets {
    std::array<std::uint32_t, kMaxDispatchDwords> packets;  // the data addresses of the latest repeat
    std::uint32_t dwords = 0;  // 0: not encoded for launch_ yet
    std::array<AddressSlot, kMaxAddressSlots> addresses;
    std::uint32_t address_count = 0;
  };
  RepeatPackets repeat_;
  /// Encodes repeat_ for the carried program and launch_, finding the address slots.
  [[gnu::noinline]] void encode_repeat(const DispatchDataLayout& layout);
};

/// Whether a dispatch of `program` with `launch` runs 128-wide waves.
bool runs_wave128(const ProgramInfo& info, const Launch& launch);

/// Appends one dispatch; without the program's state when `carried` carries it (and then
/// `carried` is unchanged), else with it (and `carried` now names the program).
struct EmittedDispatch {
  std::span<std::uint32_t> packets;
  bool state_carried = false;  ///< the program state was left out
};
EmittedDispatch emit_dispatch(pm4::CommandStream& cs, const std::shared_ptr<const Program::Impl>& program,
                              const DispatchDataLayout& layout, GpuAddress data, const Launch& launch,
                              CarriedProgramState& carried, const IndirectCounts* indirect = nullptr);

/// Rewrites in place the packets emit_dispatch returned for the same program, layout and data,
/// for another launch with the same wave size (a graph whose replay changes the grid); the length
/// stays the same.
void rewrite_dispatch(const EmittedDispatch& emitted, const Program::Impl& program, const DispatchDataLayout& layout,
                      GpuAddress data, const Launch& launch);

}  // namespace adreno
