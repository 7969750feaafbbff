// Whether the virtual shader processor stops on a timing hazard (ADRENO_VIRTUAL_HAZARDS).
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>

namespace adreno::virt {

/// on: a hazard is a shader fault (the default); warn: each hazard is logged once and the
/// dispatch runs on; off: no check (the virtual GPU is then as forgiving as it used to be, and
/// hardware would silently read stale registers). exhaustive: as on, but every instruction is
/// checked as it runs, also in programs the static checker proved free of hazards, whose waves
/// on and warn do not check (ShaderProgram::hazard_free): what that proof spares is tested
/// against it.
enum class HazardMode { on, warn, off, exhaustive };

/// ADRENO_VIRTUAL_HAZARDS=on|warn|off|exhaustive; unset or anything else means on.
HazardMode hazard_mode_from_environment() noexcept;

/// The hazards mode warn has logged — program address, instruction, register — so that each is
/// logged once per command processor (one context's ring), not once per fiber and dispatch.
class HazardWarnings {
 public:
  /// True the first time this hazard is seen.
  bool first(std::uint64_t program, std::uint32_t pc, std::uint16_t regid) {
    std::lock_guard lock(mutex_);
    return seen_.emplace(program, pc, regid).second;
  }

 private:
  std::mutex mutex_;
  std::set<std::tuple<std::uint64_t, std::uint32_t, std::uint16_t>> seen_;
};

}  // namespace adreno::virt
