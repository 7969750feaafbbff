// Turns a PM4 command stream back into text, in the spirit of Mesa's cffdump: one line per
// register write or packet, register and packet payload fields decoded through the register
// database, indirect buffers followed. The decoder does not know how memory is allocated; it
// reads other buffers through a callback.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include <adreno/address.hpp>

#include "pm4/field.h"

namespace adreno::pm4 {

/// Fills `out` with the dwords at `address`; false when that memory is not available.
using ReadGpuMemory = std::function<bool(GpuAddress address, std::span<std::uint32_t> out)>;

/// Turns shader code (64-bit instruction words as little-endian dword pairs) into text.
using DisassembleShader = std::function<std::string(std::span<const std::uint32_t> code)>;

struct DecodeOptions {
  Gen gen = kA6xx;
  unsigned max_ib_depth = 4;  // IB1 -> IB2 is 2; chains count as the same level
  /// When set, shader code loaded by CP_LOAD_STATE6 (ST6_SHADER) is shown inline through it.
  DisassembleShader disassemble_shader;
};

/// Decodes `dwords`, which live at GPU address `base`.
std::string decode_stream(std::span<const std::uint32_t> dwords, GpuAddress base, const ReadGpuMemory& read,
                          const DecodeOptions& options = {});

/// Reads `dwords` dwords at `address` through `read` and decodes them.
std::string decode_ib(GpuAddress address, std::uint32_t dwords, const ReadGpuMemory& read,
                      const DecodeOptions& options = {});

/// "{ FIELD = VALUE | FLAG | ... }" for one register value, enum values named as on `gens`;
/// exposed for tools and the virtual CP's fault reports.
std::string format_fields(const Register& reg, std::uint64_t value, GenMask gens = kA6xxA7xx);

}  // namespace adreno::pm4
