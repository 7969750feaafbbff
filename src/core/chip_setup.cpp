// What is written, and why:
//  * SP_NC_MODE_CNTL_2 = 0 and the part's raw_magic_regs (freedreno_devices.py), as Mesa
//    computerator's cs_restore_emit (a6xx.cc) and Turnip's tu6_init_hw write them. Of these,
//    KGSL's a6xx_start (adreno_a6xx.c) programs only UCHE_CLIENT_PF (BIT(7) | the part's client
//    id) and, on a642l/a643, bits of SP_DBG_ECO_CNTL; MSM's a6xx hw_init (a6xx_gpu.c) programs
//    UCHE_CLIENT_PF too (BIT(7) | 1 in current kernels) and SP_NC_MODE_CNTL, not _2. Everything
//    else in the block — the ECO, chicken and power bits — is left to userspace, so a context
//    that skipped it would run with whatever another process left there. UCHE_CLIENT_PF is
//    written with Mesa's value, as Mesa does after the kernel.
//  HLSQ_SHARED_CONSTS is not here: Turnip writes it with each compute pipeline's state
//  (emit_program_state in dispatch.cpp).
#include "core/chip_setup.h"

#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"

namespace adreno {

void emit_chip_setup(pm4::CommandStream& cs, const GpuPart& part) {
  namespace r = pm4::a6xx;
  pm4::write_register(cs, r::SP_NC_MODE_CNTL_2, 0);
  for (const MagicRegister& magic : part.magic) pm4::write_register(cs, *magic.reg, magic.value);
}

}  // namespace adreno
