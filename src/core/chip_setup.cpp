// What is written, and why:
//  * SP_NC_MODE_CNTL_2 = 0 and the part's raw_magic_regs (freedreno_devices.py), as Mesa
//    computerator's cs_restore_emit (a6xx.cc) and Turnip's tu6_init_hw write them. Of these,
//    KGSL's a6xx_start (adreno_a6xx.c) programs only UCHE_CLIENT_PF (BIT(7) | the part's client
//    id) and, on a642l/a643, bits of SP_DBG_ECO_CNTL; MSM's a6xx hw_init (a6xx_gpu.c) programs
//    UCHE_CLIENT_PF too (BIT(7) | 1 in current kernels) and SP_NC_MODE_CNTL, not _2. Everything
//    else in the block — the ECO, chicken and power bits — is left to userspace, so a context
//    that skipped it would run with whatever another process left there. UCHE_CLIENT_PF is
//    written with Mesa's value, as Mesa does after the kernel.
//  * a740: the same SP_NC_MODE_CNTL_2 = 0 and the part's list (gpu_part.cpp: freedreno_devices.py's
//    FD740 magic_regs and raw_magic_regs in the order computerator's cs_restore_emit<A7XX> writes
//    them; Mesa batches them in one CP_NON_CONTEXT_REG_BUNCH, plain type-4 writes carry the same
//    values). Of these, MSM's a6xx hw_init (a6xx_gpu.c, a7xx branch) programs UCHE_CACHE_WAYS
//    (BIT(23)) and UCHE_CLIENT_PF, and its a7xx power-up register list (a6xx_catalog.c
//    a7xx_pwrup_reglist) restores those two and TPL1_DBG_ECO_CNTL1 after power collapse — with
//    whatever value was last written, so Mesa's values stick once written. KGSL's gen7_start
//    (adreno_gen7.c) was not checked register by register here; the block is written whole on
//    every submission either way, as Mesa does.
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
