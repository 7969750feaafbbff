#include "core/gpu_part.h"

#include <adreno/error.hpp>

#include "pm4/a6xx_registers.h"

#include <array>

#include <fmt/format.h>

namespace adreno {
namespace {

namespace r = pm4::a6xx;

// raw_magic_regs of one part, in freedreno_devices.py's order.
constexpr std::array<MagicRegister, 11> magic(std::uint32_t pc_mode, std::uint32_t pc_power, std::uint32_t vfd_power,
                                              std::uint32_t tpl1_eco, std::uint32_t gras_eco, std::uint32_t sp_chicken,
                                              std::uint32_t sp_eco, std::uint32_t uche_client_pf, std::uint32_t hlsq_eco,
                                              std::uint32_t vpc_eco, std::uint32_t uche_0e12) {
  return {{{&r::PC_MODE_CNTL, pc_mode},
           {&r::PC_POWER_CNTL, pc_power},
           {&r::VFD_POWER_CNTL, vfd_power},
           {&r::TPL1_DBG_ECO_CNTL, tpl1_eco},
           {&r::GRAS_DBG_ECO_CNTL, gras_eco},
           {&r::SP_CHICKEN_BITS, sp_chicken},
           {&r::SP_DBG_ECO_CNTL, sp_eco},
           {&r::UCHE_CLIENT_PF, uche_client_pf},
           {&r::HLSQ_DBG_ECO_CNTL, hlsq_eco},
           {&r::VPC_DBG_ECO_CNTL, vpc_eco},
           {&r::UCHE_UNKNOWN_0E12, uche_0e12}}};
}

constexpr std::array kParts = {
    GpuPart{630, 2, 128 * 16, false, 64, false,  // a6xx_gen1
            magic(0x1f, 1, 1, 0x00108000, 0x00000880, 0x00001430, 0, 0x4, 0x00080000, 0, 0x10000001)},
    GpuPart{640, 2, 128 * 4 * 16, false, 64, false,  // a6xx_gen2
            magic(0x1f, 1, 1, 0x00008000, 0, 0x00000420, 0, 0x4, 0, 0x02000000, 0x1)},
    GpuPart{650, 3, 128 * 2 * 16, false, 127, true,  // a6xx_gen3
            magic(0x1f, 2, 2, 0x00108000, 0, 0x00001400, 0x01000000, 0x4, 0, 0x02000000, 0x1)},
    GpuPart{660, 3, 128 * 2 * 16, true, 127, false,  // a6xx_gen4
            magic(0x1f, 2, 2, 0x05008000, 0, 0x00001400, 0x01000000, 0x84, 0, 0x02000000, 0x1)},
};

}  // namespace

const GpuPart* find_part(const DeviceInfo& info) noexcept {
  const std::uint32_t core = info.chip_id >> 24;
  if (core == 6) {
    for (const GpuPart& part : kParts)
      if (part.gpu_id == info.gpu_id) return &part;
  }
  return nullptr;
}

const GpuPart& supported_part(const DeviceInfo& info, std::string_view operation) {
  if (const GpuPart* part = find_part(info)) return *part;
  throw Error(Errc::unsupported, std::string(operation),
              fmt::format("unsupported GPU: {} (chip id {:#010x}); compute dispatch supports the a6xx parts "
                          "a630, a640, a650 and a660",
                          info.name, info.chip_id));
}

}  // namespace adreno
