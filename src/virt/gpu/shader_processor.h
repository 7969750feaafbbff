// The virtual shader processor: runs every work group of a dispatch, spreading independent work
// groups over the host's cores. Within a work group the waves take turns, meeting at barriers.
#pragma once

#include "virt/gpu/compute_dispatch.h"

#include <cstdint>

namespace adreno::virt {

/// Runs the dispatch to completion. Returns the fiber-instructions executed. Throws the first
/// GpuFault any work group raised (page fault, shader error, hang); the other groups stop early.
std::uint64_t run_dispatch(const ComputeDispatch& dispatch);

}  // namespace adreno::virt
