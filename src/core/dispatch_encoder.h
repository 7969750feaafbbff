// The a6xx compute emitter, shared by Queue::dispatch (recorded for one submission) and Graph
// (recorded once, replayed many times). It is split where the two differ: where a dispatch's
// constants and descriptors live in GPU memory, and who lists the memory for the kernel.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/program.hpp>

#include "core/arguments_impl.h"
#include "core/program_impl.h"
#include "pm4/command_stream.h"

#include <cstdint>
#include <span>

namespace adreno {

/// Where one dispatch's constants and descriptors lie, relative to the start of its data:
/// [constants | textures | IBOs | samplers | border colour | UBOs], each part 64-byte aligned.
struct DispatchDataLayout {
  std::uint32_t constlen = 0;  ///< CONSTLEN in vec4, a multiple of 4
  std::uint64_t textures_at = 0;
  std::uint64_t images_at = 0;
  std::uint64_t samplers_at = 0;
  std::uint64_t border_at = 0;
  std::uint64_t uniform_buffers_at = 0;  ///< the UBO descriptors (2 dwords per slot)
  std::uint64_t bytes = 0;
};

/// Throws Error(invalid_argument, "dispatch") naming the field when the launch is out of range
/// for `info`.
void validate_launch(const ProgramInfo& info, const Launch& launch);

/// Throws Error(invalid_argument) naming the field when `arguments` do not belong to `program`,
/// the program is from another device, an argument is unset, or the launch is out of range.
void validate_dispatch(const Device::Impl& device, const Program::Impl& program, const Arguments::Impl& arguments,
                       const Launch& launch);

DispatchDataLayout dispatch_data_layout(const ProgramInfo& info, const Arguments::Impl& arguments);

/// Writes the driver params `info` reads (ProgramInfo::driver_params) for `launch` into the
/// constant file image at `constants`. Graphs call it again when a replay changes the grid.
void write_driver_params(std::byte* constants, const ProgramInfo& info, const Launch& launch);

/// Writes the constant file image (with the launch's driver params) and descriptor tables to `data`
/// (layout.bytes bytes).
void write_dispatch_data(CpuView data, const DispatchDataLayout& layout, const Program::Impl& program,
                         const Arguments::Impl& arguments, const Launch& launch);

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
/// (Error(invalid_argument): at least 12 bytes, 4-byte aligned).
void validate_indirect(const ProgramInfo& info, const BufferView& groups, const char* operation);

/// Appends what an indirect dispatch of `info` needs before its packets: when the program reads
/// the group counts as driver params, the CP copies them from `groups` into the 16 bytes at
/// `params` (with the fourth dword of their vec4 from the dispatch's constants at `data`).
/// Returns what emit_dispatch takes.
IndirectCounts emit_indirect_count_params(pm4::CommandStream& cs, const ProgramInfo& info, GpuAddress groups, GpuAddress data,
                                          GpuAddress params);

std::span<std::uint32_t> emit_dispatch(pm4::CommandStream& cs, const Program::Impl& program, const DispatchDataLayout& layout,
                                       GpuAddress data, const Launch& launch, const IndirectCounts* indirect = nullptr);

/// Rewrites in place the `packets` emit_dispatch returned for the same program, layout and data,
/// for another launch (a graph whose replay changes the grid); the length stays the same.
void rewrite_dispatch(std::span<std::uint32_t> packets, const Program::Impl& program, const DispatchDataLayout& layout,
                      GpuAddress data, const Launch& launch);

}  // namespace adreno
