// How freely the virtual GPU runs a stream, within what the hardware guarantees. By default
// (`relaxed`) dispatches with nothing ordering them run in a different order than issued — a
// permutation drawn from `seed`, so a failure reproduces — and shader memory goes through the
// UCHE model (uche.h). `strict` runs every packet to completion in order with no cache, for
// diagnosis: ADRENO_VIRTUAL_ORDER=strict. ADRENO_VIRTUAL_SEED=<n> picks another permutation.
// How strictly shaders are timed is part of it too: the hazard check's mode (hazard_mode.h,
// ADRENO_VIRTUAL_HAZARDS). So is the clock its timestamps read.
#pragma once

#include "virt/gpu/always_on_counter.h"
#include "virt/gpu/hazard_mode.h"

#include <cstdint>
#include <memory>

namespace adreno::virt {

struct ExecutionModel {
  bool reorder = true;  ///< dispatches not ordered by a wait may run in any order
  bool cache = true;    ///< shader loads and stores go through UCHE
  std::uint64_t seed = 0x6a630;
  HazardMode hazards = HazardMode::on;  ///< the timing-hazard check
  /// CP_ALWAYS_ON_COUNTER; copies of a model (one per ring of a device) share it.
  std::shared_ptr<AlwaysOnCounter> always_on = std::make_shared<AlwaysOnCounter>();

  static ExecutionModel strict() { return {false, false, 0}; }
  /// The model ADRENO_VIRTUAL_ORDER, ADRENO_VIRTUAL_SEED and ADRENO_VIRTUAL_HAZARDS ask for
  /// (relaxed, hazards faulting, when unset).
  static ExecutionModel from_environment();
};

}  // namespace adreno::virt
