// What is written, and why:
//  * SP_NC_MODE_CNTL_2 = 0 and the part's raw_magic_regs (freedreno_devices.py), as Mesa
//    computerator's cs_restore_emit (a6xx.cc) and Turnip's tu6_init_hw write them. Of these,
//    KGSL's a6xx_start (adreno_a6xx.c) programs only UCHE_CLIENT_PF (BIT(7) | the part's client
//    id) and, on a642l/a643, bits of SP_DBG_ECO_CNTL; MSM's a6xx hw_init (a6xx_gpu.c) programs
//    UCHE_CLIENT_PF too (BIT(7) | 1 in current kernels) and SP_NC_MODE_CNTL, not _2. Everything
//    else in the block — the ECO, chicken and power bits — is left to userspace, so a context
//    that skipped it would run with whatever another process left there. UCHE_CLIENT_PF is
//    written with Mesa's value, as Mesa does after the kernel.
//  * a7xx (a730, a740, a750): the same SP_NC_MODE_CNTL_2 = 0 and the part's list (gpu_part.cpp:
//    freedreno_devices.py's magic_regs and raw_magic_regs in the order computerator's
//    cs_restore_emit<A7XX> writes them; Mesa batches them in one CP_NON_CONTEXT_REG_BUNCH, plain
//    type-4 writes carry the same values). Of the registers in these lists the kernels program
//    only three themselves:
//      - UCHE_CACHE_WAYS: KGSL gen7_start (adreno_gen7.c) writes 0x800000, MSM hw_init
//        (a6xx_gpu.c, a7xx branch) BIT(23) — Mesa overwrites it (0x00840004 on the a730,
//        0x00040004 on the a740, 0 on the a750);
//      - UCHE_CLIENT_PF: both write BIT(7) | the client id (gen7_start; hw_init), as on a6xx;
//      - TPL1_DBG_ECO_CNTL1: both write 0xc0700 on the a750 only (gen7_start under
//        adreno_is_gen7_9_x, hw_init under adreno_is_a750) — the part whose list in Mesa has
//        neither it nor UCHE_CLIENT_PF; on the a730 and a740 Mesa writes 0x00040724.
//    Both kernels keep these in their power-up restore lists (MSM a6xx_catalog.c
//    a7xx_pwrup_reglist: all three; KGSL adreno_gen7.c gen7_pwrup_reglist: all three,
//    gen7_0_0_pwrup_reglist for the a730's gen7_0_x family: the first two) and restore whatever
//    value was last written, so Mesa's values stick once written. Everything else in the lists (the chicken,
//    ECO and unknown registers) neither kernel's hw init writes; it is left to userspace, so the
//    block is written whole on every submission, as Mesa does.
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
