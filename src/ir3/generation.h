// The GPU generations whose ir3 this library reads and writes. Most of the instruction set is
// shared; Mesa's isaspec files mark what is not with <gen min=".." max=".."/> (600..699 is a6xx,
// 700..799 a7xx), and the opcode table (opcodes.h) carries those marks as a mask per row.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace adreno::ir3 {

enum class Generation : std::uint8_t { a6xx, a7xx };

/// The generations an opcode-table row exists on.
using GenerationMask = std::uint8_t;
constexpr GenerationMask mask_of(Generation gen) noexcept { return static_cast<GenerationMask>(1u << static_cast<unsigned>(gen)); }
inline constexpr GenerationMask kA6xxOnly = mask_of(Generation::a6xx);
inline constexpr GenerationMask kA7xxOnly = mask_of(Generation::a7xx);
inline constexpr GenerationMask kEveryGeneration = kA6xxOnly | kA7xxOnly;

constexpr bool exists_on(GenerationMask gens, Generation gen) noexcept { return (gens & mask_of(gen)) != 0; }

/// "a6xx" / "a7xx".
constexpr const char* generation_name(Generation gen) noexcept { return gen == Generation::a6xx ? "a6xx" : "a7xx"; }

/// The generation spelled `a6xx`/`a7xx`, `6`/`7`, or a GPU such as `a630`/`a740` (also Mesa's
/// `FD630`/`FD740` spelling); nullopt for anything else.
std::optional<Generation> parse_generation(std::string_view text) noexcept;

/// parse_generation(text), or Error(invalid_argument) saying what `what` (e.g. "--gen") accepts.
Generation generation_named(std::string_view text, std::string_view what);

/// The generation of an Adreno GPU id as the kernels report it (630, 740: Mesa
/// freedreno_devices.py names a6xx parts 6xx and a7xx parts 7xx); nullopt outside a6xx/a7xx.
std::optional<Generation> generation_of_gpu_id(std::uint32_t gpu_id) noexcept;

}  // namespace adreno::ir3
