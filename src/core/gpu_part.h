// The a6xx and a7xx parts this library dispatches on, and what differs between them for compute.
// Facts from Mesa src/freedreno/common/freedreno_devices.py (Mesa 26; the a6xx_gen1..gen4 and
// a7xx_base/a7xx_gen1..gen3 templates and the add_gpus() entries): num_sp_cores, fibers_per_sp,
// has_lpac, instr_cache_size and the raw_magic_regs each part's entry lists.
//
// Differences that matter to the dispatch emitter:
//  * private memory is sized per SP (fibers_per_sp × bytes per fiber) times num_sp_cores;
//  * parts with LPAC (a6xx gen4: a635, a660) read the work-item register ids from
//    SP_CS_WIE_CNTL_0/1 and the shared-memory size from HLSQ_CS_CTRL_REG1 as well — computerator
//    writes both for them (a6xx.cc, cs_program_emit);
//  * a7xx moved most compute registers (SP_CS_CONST_CONFIG, SP_CS_NDRANGE_0, ...: the
//    register database's ComputeRegisters per generation) and needs CP_EVENT_WRITE7. The a730,
//    a740 and a750 are supported, each with its own per-chip block; other a7xx parts (a725,
//    a735, ...) are refused with Errc::unsupported (their per-chip blocks are not taken over),
//    a8xx and later too.
#pragma once

#include <adreno/device.hpp>

#include "pm4/field.h"

#include <array>
#include <span>
#include <cstdint>
#include <string_view>

namespace adreno {

/// A register and the value a part needs in it before compute work (freedreno_devices.py
/// raw_magic_regs: debug/ECO, chicken and power bits).
struct MagicRegister {
  const pm4::Register* reg;
  std::uint32_t value;
};

struct GpuPart {
  std::uint32_t gpu_id;        // 630; the comment after each entry names its freedreno_devices.py template
  std::uint32_t chip_id;       // a7xx: the chip id the part is matched by (0 on a6xx, matched by gpu_id)
  pm4::Gen gen;
  std::uint32_t num_sp_cores;
  std::uint32_t fibers_per_sp;
  bool has_lpac;
  std::uint32_t instr_cache_size;  ///< instruction cache, in the 128-byte units of SP_CS_INSTR_SIZE
  /// SP_CS_CNTL_0 EARLYPREAMBLE may be set: freedreno_devices.py has_early_preamble (a6xx_gen3 and
  /// a7xx_base; commented out on a6xx_gen4 as broken, absent on gen1/gen2), which Turnip and ir3 obey.
  bool has_early_preamble;
  std::span<const MagicRegister> magic;  ///< the per-chip registers, in Mesa's order
};

/// The part `info` describes; throws Error(unsupported, "unsupported GPU") for anything else
/// (an a6xx or a7xx part not in the table, a8xx and later).
const GpuPart& supported_part(const DeviceInfo& info, std::string_view operation);
/// As supported_part, but null for a GPU compute dispatch does not support.
const GpuPart* find_part(const DeviceInfo& info) noexcept;
/// The generation of the command streams for `info`: its part's, or a6xx for a GPU no program
/// loads on (its queues only carry signals and waits).
pm4::Gen command_generation(const DeviceInfo& info) noexcept;

}  // namespace adreno
