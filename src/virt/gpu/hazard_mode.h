// Whether the virtual shader processor stops on a timing hazard (ADRENO_VIRTUAL_HAZARDS).
#pragma once

namespace adreno::virt {

/// on: a hazard is a shader fault (the default); warn: each hazard is logged once and the
/// dispatch runs on; off: no check (the virtual GPU is then as forgiving as it used to be, and
/// hardware would silently read stale registers).
enum class HazardMode { on, warn, off };

/// ADRENO_VIRTUAL_HAZARDS=on|warn|off; unset or anything else means on.
HazardMode hazard_mode_from_environment() noexcept;

}  // namespace adreno::virt
