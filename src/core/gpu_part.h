// The a6xx parts this library dispatches on, and what differs between them for compute. Facts
// from Mesa src/freedreno/common/freedreno_devices.py (Mesa 26; the a6xx_gen1..gen4 templates and
// the add_gpus() entries): num_sp_cores, fibers_per_sp, has_lpac, instr_cache_size and the
// raw_magic_regs each part's entry lists.
//
// Differences that matter to the dispatch emitter:
//  * private memory is sized per SP (fibers_per_sp × bytes per fiber) times num_sp_cores;
//  * parts with LPAC (a6xx gen4: a635, a660) read the work-item register ids from
//    SP_CS_WIE_CNTL_0/1 and the shared-memory size from HLSQ_CS_CTRL_REG1 as well — computerator
//    writes both for them (a6xx.cc, cs_program_emit);
//  * a7xx moved most compute registers (SP_CS_CONST_CONFIG, SP_CS_NDRANGE_0, ...) and needs
//    CP_EVENT_WRITE7; it is refused with Errc::unsupported until the emitter learns it.
#pragma once

#include <adreno/device.hpp>

#include "pm4/field.h"

#include <array>
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
  std::uint32_t num_sp_cores;
  std::uint32_t fibers_per_sp;
  bool has_lpac;
  std::uint32_t instr_cache_size;  ///< instruction cache, in the 128-byte units of SP_CS_INSTR_SIZE
  /// SP_CS_CNTL_0 EARLYPREAMBLE may be set: freedreno_devices.py has_early_preamble (a6xx_gen3 only
  /// among these; commented out on gen4 as broken, absent on gen1/gen2), which Turnip and ir3 obey.
  bool has_early_preamble;
  std::array<MagicRegister, 11> magic;  ///< raw_magic_regs, in Mesa's order
};

/// The part `info` describes; throws Error(unsupported, "unsupported GPU") for anything else
/// (a7xx and later, or an a6xx part not in the table).
const GpuPart& supported_part(const DeviceInfo& info, std::string_view operation);
/// As supported_part, but null for a GPU compute dispatch does not support.
const GpuPart* find_part(const DeviceInfo& info) noexcept;

}  // namespace adreno
