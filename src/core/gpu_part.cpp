#include "core/gpu_part.h"

#include <adreno/error.hpp>

#include "pm4/a6xx_registers.h"

#include <array>

#include <fmt/format.h>

namespace adreno {
namespace {

namespace r = pm4::a6xx;

// raw_magic_regs of one a6xx part, in freedreno_devices.py's order.
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

constexpr auto kMagicA630 = magic(0x1f, 1, 1, 0x00108000, 0x00000880, 0x00001430, 0, 0x4, 0x00080000, 0, 0x10000001);
constexpr auto kMagicA640 = magic(0x1f, 1, 1, 0x00008000, 0, 0x00000420, 0, 0x4, 0, 0x02000000, 0x1);
constexpr auto kMagicA650 = magic(0x1f, 2, 2, 0x00108000, 0, 0x00001400, 0x01000000, 0x4, 0, 0x02000000, 0x1);
constexpr auto kMagicA660 = magic(0x1f, 2, 2, 0x05008000, 0, 0x00001400, 0x01000000, 0x84, 0, 0x02000000, 0x1);

// The a7xx parts: freedreno_devices.py's magic_regs and raw_magic_regs merged into the one list
// Mesa writes, in the order and with the values Mesa d02ba9bb9c01 computerator writes them on that
// part — the CP_NON_CONTEXT_REG_BUNCH that starts its submission, after SP_PERFCTR_SHADER_MASK and
// SP_NC_MODE_CNTL_2 (../shared/reference/computerator/simple-a740.cffdump.txt for the a740,
// tests/dispatch/computerator_reference/ for the a730 and a750). Not in the lists, as not in
// Mesa's: RB_DBG_ECO_CNTL and RB_UNKNOWN_8E01 (written by Turnip's render-pass setup only) and
// PC_POWER_CNTL (commented out). Mesa writes SP_UNKNOWN_0CE2/4/6 and the dword after each; our
// entries are the 64-bit registers, which write both. Which of these registers the KGSL and MSM
// kernels program themselves (UCHE_CACHE_WAYS, UCHE_CLIENT_PF, and TPL1_DBG_ECO_CNTL1 on the a750),
// and why the lists are written whole anyway: chip_setup.cpp.

// a730 (FD730, chip id 0x07030001; a730_raw_magic_regs, shared with the FD725 entry).
constexpr MagicRegister kMagicA730[] = {
    {&r::UCHE_CACHE_WAYS, 0x00840004},
    {&r::TPL1_DBG_ECO_CNTL, 0x01000000},
    {&r::TPL1_DBG_ECO_CNTL1_A7XX, 0x00040724},
    {&r::SP_CHICKEN_BITS, 0x00001400},
    {&r::SP_CHICKEN_BITS_1_A7XX, 0x00402400},
    {&r::SP_CHICKEN_BITS_2_A7XX, 0},
    {&r::SP_CHICKEN_BITS_3_A7XX, 0},
    {&r::UCHE_CLIENT_PF, 0x00000084},
    {&r::UCHE_UNKNOWN_0E10_A7XX, 0},
    {&r::UCHE_UNKNOWN_0E11_A7XX, 0x00000040},
    {&r::SP_HLSQ_DBG_ECO_CNTL_A7XX, 0x00008000},
    {&r::SP_DBG_ECO_CNTL, 0x10000000},
    {&r::PC_MODE_CNTL, 0x0000003f},
    {&r::PC_DBG_ECO_CNTL_A7XX, 0x20080000},
    {&r::PC_UNKNOWN_9E24_A7XX, 0x21fc7f00},
    {&r::VFD_DBG_ECO_CNTL_A7XX, 0},
    {&r::SP_ISDB_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AE6A_A7XX, 0},
    {&r::SP_HLSQ_TIMEOUT_THRESHOLD_DP_A7XX, 0x00000080},
    {&r::SP_HLSQ_DBG_ECO_CNTL_1_A7XX, 0},
    {&r::SP_HLSQ_MODE_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AB01_A7XX, 0},
    {&r::SP_UNKNOWN_AB22_A7XX, 0},
    {&r::SP_UNKNOWN_B310_A7XX, 0},
    {&r::SP_UNKNOWN_0CE2_A7XX, 0},
    {&r::SP_UNKNOWN_0CE4_A7XX, 0},
    {&r::SP_UNKNOWN_0CE6_A7XX, 0},
    {&r::GRAS_ROTATION_CNTL_A7XX, 0},
    {&r::GRAS_DBG_ECO_CNTL, 0x00000800},
    {&r::RB_UNKNOWN_8E79_A7XX, 0},
    {&r::RB_LRZ_CNTL2_A7XX, 0},
    {&r::RB_CCU_DBG_ECO_CNTL_A7XX, 0x02080000},
    {&r::VPC_DBG_ECO_CNTL, 0x02000000},
    {&r::UCHE_UNKNOWN_0E12, 0x03200000},
};

// a740 (FD740, chip id 0x43050a01; a740_raw_magic_regs). That Mesa has SP_CHICKEN_BITS_1 =
// 0x00400400 where older releases list 0x00000400.
constexpr MagicRegister kMagicA740[] = {
    {&r::UCHE_CACHE_WAYS, 0x00040004},
    {&r::TPL1_DBG_ECO_CNTL, 0x11100000},
    {&r::TPL1_DBG_ECO_CNTL1_A7XX, 0x00040724},
    {&r::SP_CHICKEN_BITS, 0x10001400},
    {&r::SP_CHICKEN_BITS_1_A7XX, 0x00400400},
    {&r::SP_CHICKEN_BITS_2_A7XX, 0x00430800},
    {&r::SP_CHICKEN_BITS_3_A7XX, 0},
    {&r::UCHE_CLIENT_PF, 0x00000084},
    {&r::UCHE_UNKNOWN_0E10_A7XX, 0},
    {&r::UCHE_UNKNOWN_0E11_A7XX, 0},
    {&r::SP_HLSQ_DBG_ECO_CNTL_A7XX, 0},
    {&r::SP_DBG_ECO_CNTL, 0x10000000},
    {&r::PC_MODE_CNTL, 0x0000003f},
    {&r::PC_DBG_ECO_CNTL_A7XX, 0x00100000},
    {&r::PC_UNKNOWN_9E24_A7XX, 0x21585600},
    {&r::VFD_DBG_ECO_CNTL_A7XX, 0x00008000},
    {&r::SP_ISDB_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AE6A_A7XX, 0},
    {&r::SP_HLSQ_TIMEOUT_THRESHOLD_DP_A7XX, 0x00000080},
    {&r::SP_HLSQ_DBG_ECO_CNTL_1_A7XX, 0},
    {&r::SP_HLSQ_MODE_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AB01_A7XX, 0},
    {&r::SP_UNKNOWN_AB22_A7XX, 0},
    {&r::SP_UNKNOWN_B310_A7XX, 0},
    {&r::SP_UNKNOWN_0CE2_A7XX, 0},
    {&r::SP_UNKNOWN_0CE4_A7XX, 0},
    {&r::SP_UNKNOWN_0CE6_A7XX, 0},
    {&r::GRAS_ROTATION_CNTL_A7XX, 0},
    {&r::GRAS_DBG_ECO_CNTL, 0x00004800},
    {&r::RB_UNKNOWN_8E79_A7XX, 0},
    {&r::RB_LRZ_CNTL2_A7XX, 0},
    {&r::RB_UNKNOWN_8C34_A7XX, 0},
    {&r::RB_CCU_DBG_ECO_CNTL_A7XX, 0x02080000},
    {&r::VPC_DBG_ECO_CNTL, 0x02000000},
    {&r::UCHE_UNKNOWN_0E12, 0},
};

// a750 (FD750, chip id 0x43051401; its own raw_magic_regs). Its order differs from the a730/a740
// lists, and it has neither TPL1_DBG_ECO_CNTL1 nor UCHE_CLIENT_PF: Mesa leaves both to the kernel
// on this part.
constexpr MagicRegister kMagicA750[] = {
    {&r::UCHE_CACHE_WAYS, 0},
    {&r::UCHE_UNKNOWN_0E10_A7XX, 0},
    {&r::UCHE_UNKNOWN_0E11_A7XX, 0x00000080},
    {&r::SP_CHICKEN_BITS, 0x10000400},
    {&r::SP_CHICKEN_BITS_1_A7XX, 0x00400000},
    {&r::SP_CHICKEN_BITS_2_A7XX, 0x00431800},
    {&r::SP_CHICKEN_BITS_3_A7XX, 0x00800000},
    {&r::SP_HLSQ_DBG_ECO_CNTL_A7XX, 0},
    {&r::SP_DBG_ECO_CNTL, 0x10000000},
    {&r::PC_MODE_CNTL, 0x00003f1f},
    {&r::PC_DBG_ECO_CNTL_A7XX, 0x00100000},
    {&r::PC_UNKNOWN_9E24_A7XX, 0x01585600},
    {&r::VFD_DBG_ECO_CNTL_A7XX, 0x00008000},
    {&r::SP_ISDB_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AE6A_A7XX, 0},
    {&r::SP_HLSQ_TIMEOUT_THRESHOLD_DP_A7XX, 0x00000080},
    {&r::SP_HLSQ_DBG_ECO_CNTL_1_A7XX, 0},
    {&r::SP_HLSQ_MODE_CNTL_A7XX, 0},
    {&r::SP_UNKNOWN_AB01_A7XX, 0},
    {&r::SP_UNKNOWN_AB22_A7XX, 0},
    {&r::SP_UNKNOWN_B310_A7XX, 0},
    {&r::SP_UNKNOWN_0CE2_A7XX, 0},
    {&r::SP_UNKNOWN_0CE4_A7XX, 0},
    {&r::SP_UNKNOWN_0CE6_A7XX, 0},
    {&r::GRAS_ROTATION_CNTL_A7XX, 0},
    {&r::GRAS_DBG_ECO_CNTL, 0x00004800},
    {&r::RB_LRZ_CNTL2_A7XX, 0},
    {&r::RB_UNKNOWN_8C34_A7XX, 0},
    {&r::RB_CCU_DBG_ECO_CNTL_A7XX, 0x02082000},
    {&r::VPC_UNKNOWN_930A_A7XX, 0},
    {&r::VPC_FLATSHADE_MODE_CNTL_A7XX, 1},
    {&r::SP_PS_OUTPUT_CONST_CNTL_A7XX, 0},
    {&r::SP_PS_OUTPUT_CONST_MASK_A7XX, 0},
    {&r::TPL1_DBG_ECO_CNTL, 0x11100000},
    {&r::VPC_DBG_ECO_CNTL, 0x02000000},
    {&r::UCHE_UNKNOWN_0E12, 0x40000000},
};

constexpr std::array kParts = {
    GpuPart{630, 0, pm4::kA6xx, 2, 128 * 16, false, 64, false, kMagicA630},         // a6xx_gen1
    GpuPart{640, 0, pm4::kA6xx, 2, 128 * 4 * 16, false, 64, false, kMagicA640},     // a6xx_gen2
    GpuPart{650, 0, pm4::kA6xx, 3, 128 * 2 * 16, false, 127, true, kMagicA650},     // a6xx_gen3
    GpuPart{660, 0, pm4::kA6xx, 3, 128 * 2 * 16, true, 127, false, kMagicA660},     // a6xx_gen4
    // a7xx_base + a7xx_gen1/2/3: num_ccu (4 on the a730, 6 on the a740 and a750), which
    // A6xxGPUInfo also takes as num_sp_cores; fibers_per_sp 128 * 2 * 16 on all three; a7xx_base's
    // has_lpac, has_early_preamble and instr_cache_size 127 ("Blob limits it to 128 but we hang
    // with 128"). Nothing a7xx_gen1/gen3 set changes what computerator emits for compute; the
    // compiler-side gen1 quirk (cs_lock_unlock_quirk: ir3 ends compute shaders with lock/unlock)
    // concerns code generation, which programs bring with them.
    GpuPart{730, 0x07030001, pm4::kA7xx, 4, 128 * 2 * 16, true, 127, true, kMagicA730},  // a7xx_gen1
    GpuPart{740, 0x43050a01, pm4::kA7xx, 6, 128 * 2 * 16, true, 127, true, kMagicA740},  // a7xx_gen2
    GpuPart{750, 0x43051401, pm4::kA7xx, 6, 128 * 2 * 16, true, 127, true, kMagicA750},  // a7xx_gen3
};

}  // namespace

const GpuPart* find_part(const DeviceInfo& info) noexcept {
  // a6xx chip ids are core.major.minor.patch bytes (0x06030001); a7xx parts are matched by chip
  // id, as Mesa's fd_dev_info lookup does (freedreno_devices.py lists FD730, FD740 and FD750 by
  // chip_id) — from the a740 on they use Qualcomm's newer encoding (0x43050a01 for the a740).
  const std::uint32_t core = info.chip_id >> 24;
  for (const GpuPart& part : kParts) {
    if (part.gen == pm4::kA6xx ? core == 6 && part.gpu_id == info.gpu_id : part.chip_id == info.chip_id) return &part;
  }
  return nullptr;
}

pm4::Gen command_generation(const DeviceInfo& info) noexcept {
  const GpuPart* part = find_part(info);
  return part != nullptr ? part->gen : pm4::kA6xx;
}

const GpuPart& supported_part(const DeviceInfo& info, std::string_view operation) {
  if (const GpuPart* part = find_part(info)) return *part;
  throw Error(Errc::unsupported, std::string(operation),
              fmt::format("unsupported GPU: {} (chip id {:#010x}); compute dispatch supports the a6xx parts "
                          "a630, a640, a650 and a660 and the a7xx parts a730 (chip id 0x07030001), a740 (0x43050a01) "
                          "and a750 (0x43051401)",
                          info.name, info.chip_id));
}

}  // namespace adreno
