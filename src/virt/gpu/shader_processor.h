// The virtual shader processor: runs every work group of a dispatch, spreading independent work
// groups over the host's cores. Within a work group the waves take turns, meeting at barriers.
#pragma once

#include "virt/gpu/compute_dispatch.h"
#include "virt/gpu/wave.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace adreno::virt {

class ShaderProcessor {
 public:
  /// Runs the dispatch to completion. Returns the fiber-instructions executed. Throws the first
  /// GpuFault any work group raised (page fault, shader error, hang); the other groups stop early.
  std::uint64_t run(const ComputeDispatch& dispatch);

 private:
  // What one host thread runs work groups with. Kept from dispatch to dispatch, so that a
  // dispatch like the earlier ones allocates nothing: its waves are made in the storage of the
  // earlier waves, its work group's local memory in the earlier group's.
  struct Worker {
    std::vector<std::optional<Wave>> waves;  // the first `bound` are this dispatch's
    std::size_t bound = 0;
    WorkGroup group;
    std::vector<std::uint8_t> ended;  // per wave of the group
  };

  /// Runs work groups [first, total) on every host thread.
  std::uint64_t run_work_groups(const ComputeDispatch& dispatch, std::uint64_t first, std::uint64_t total, Preamble* preamble);
  /// Runs one work group on `worker`, whose waves run `dispatch` from the first on.
  static std::uint64_t run_work_group(const ComputeDispatch& dispatch, std::uint64_t linear_id, Preamble* preamble,
                                      Worker& worker);

  std::vector<Worker> workers_;  // [0] is the calling thread's
  ComputeDispatch with_preamble_;  // a dispatch with a preamble, whose constant file the preamble writes
};

}  // namespace adreno::virt
