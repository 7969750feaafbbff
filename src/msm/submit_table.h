// The buffer-object table and command list of one GEM_SUBMIT. The msm driver pins, fences and
// keeps alive exactly the objects in the table (msm_gem_submit.c: submit_lookup_objects,
// submit_pin_objects, msm_submit_retire), and each command names its IB by table index. Every
// object appears once: the driver locks each table entry with drm_exec, and a second entry for
// the same object fails with EALREADY.
#pragma once

#include "kernel/kernel.h"
#include "msm/msm_abi.h"

#include <span>
#include <vector>

namespace adreno::msm {

struct SubmitTable {
  std::vector<uapi::drm_msm_gem_submit_bo> bos;
  std::vector<uapi::drm_msm_gem_submit_cmd> cmds;
};

/// One entry per distinct GEM handle among the IBs' objects (read) and `uses` (read, or
/// read+write), in first-seen order; one MSM_SUBMIT_CMD_BUF per IB. Throws Errc::invalid_argument
/// for an IB the UAPI cannot express (offset not dword-aligned or beyond 32 bits, empty, or past
/// the end of its object) — naming the IB.
SubmitTable build_submit_table(std::span<const IbRef> ibs, std::span<const BoUse> uses);

}  // namespace adreno::msm
