// Lookups over the register database (a6xx_registers.h) and the packet layouts
// (packet_layouts.h): by offset, as the decoder and the virtual command processor see registers,
// and by name, current or former. These are the only entry points other layers need; the
// tables themselves are the facts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "pm4/a6xx_registers.h"
#include "pm4/field.h"
#include "pm4/packet_layouts.h"

namespace adreno::pm4 {

/// Where a register offset falls: which entry, which array element, which dword of a reg64.
struct RegisterHit {
  const Register* reg;
  std::uint32_t index;  // array element (0 for plain registers)
  std::uint32_t dword;  // 0, or 1 for the high half of a reg64
};

/// The entry covering `offset` on generation `gen`, or nullopt for a register outside the table.
std::optional<RegisterHit> find_register(std::uint32_t offset, Gen gen = kA6xx);

/// The entry named `name` on `gen`: current names first, then former names.
const Register* find_register(std::string_view name, Gen gen = kA6xx);

/// Every register entry of every generation.
std::span<const Register* const> all_registers();

/// "SP_CS_CNTL_0", "SP_CS_BINDLESS_BASE[3]", "SP_CS_BASE+1" (high dword of a reg64).
std::string register_name(const RegisterHit& hit);

/// Mesa's rendering of an ir3 register id: r<n>.<x|y|z|w>.
std::string regid_name(std::uint32_t regid);

}  // namespace adreno::pm4
