#include "msm/submit_table.h"

#include <adreno/error.hpp>

#include "kernel/flat_index.h"

#include <cstdint>
#include <limits>
#include <string>

namespace adreno::msm {
namespace {

constexpr const char* kOperation = "MSM GEM_SUBMIT table";

// The table entry of `handle` (never 0: drm_gem_handle_create allocates from 1), added on first
// use; the kernel refuses a handle listed twice.
std::uint32_t index_of(SubmitTable& table, FlatIndex& entries, std::uint32_t handle, std::uint32_t flags) {
  return add_once(entries, table.bos, handle, uapi::drm_msm_gem_submit_bo{flags, handle, 0},
                  [](uapi::drm_msm_gem_submit_bo& existing, const uapi::drm_msm_gem_submit_bo& added) {
                    existing.flags |= added.flags;
                  });
}

}  // namespace

SubmitTable build_submit_table(std::span<const IbRef> ibs, std::span<const BoUse> uses) {
  SubmitTable table;
  table.cmds.reserve(ibs.size());
  FlatIndex entries;
  for (std::size_t n = 0; n < ibs.size(); ++n) {
    const IbRef& ib = ibs[n];
    const auto refuse = [&](const std::string& why) {
      throw Error(Errc::invalid_argument, kOperation,
                  "IB " + std::to_string(n) + " (GEM handle " + std::to_string(ib.bo->handle) + ", offset " +
                      std::to_string(ib.offset) + ", " + std::to_string(ib.dwords) + " dwords): " + why);
    };
    // The driver takes submit_offset/4 and size/4 as dword counts and requires the IB to lie
    // inside its object (msm_gem_submit.c: submit_lookup_cmds, msm_ioctl_gem_submit).
    if (ib.dwords == 0) refuse("an IB needs at least one dword");
    if (ib.offset % 4 != 0 || ib.offset > std::numeric_limits<std::uint32_t>::max()) {
      refuse("offset must be dword-aligned and below 4 GiB");
    }
    if (ib.offset + std::uint64_t{ib.dwords} * 4 > ib.bo->size ||
        std::uint64_t{ib.dwords} * 4 > std::numeric_limits<std::uint32_t>::max()) {
      refuse("runs past the end of its " + std::to_string(ib.bo->size) + "-byte object");
    }
    // MSM_SUBMIT_BO_DUMP: devcoredump and the rd debugfs capture the command buffers' contents
    // with the hang or fault (msm_gpu.c crashstate_get_bos, msm_rd.c should_dump), as Turnip's
    // tu_knl_drm_msm.cc marks its command buffers.
    const std::uint32_t index =
        index_of(table, entries, ib.bo->handle, uapi::MSM_SUBMIT_BO_READ | uapi::MSM_SUBMIT_BO_DUMP);
    table.cmds.push_back(uapi::drm_msm_gem_submit_cmd{uapi::MSM_SUBMIT_CMD_BUF, index,
                                                      static_cast<std::uint32_t>(ib.offset), ib.dwords * 4, 0, 0, 0});
  }
  for (const BoUse& use : uses) {
    index_of(table, entries, use.bo->handle,
             uapi::MSM_SUBMIT_BO_READ | (use.write ? uapi::MSM_SUBMIT_BO_WRITE : 0u));
  }
  return table;
}

}  // namespace adreno::msm
