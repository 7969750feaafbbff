#include "pm4/register_database.h"

#include <fmt/format.h>

namespace adreno::pm4 {
namespace {

// The table is in offset order within each generation; the decoder's and the virtual CP's
// lookups rely on no two entries of one generation overlapping. Checked at compile time.
constexpr bool entries_do_not_overlap() {
  constexpr std::size_t count = std::size(a6xx::kRegisters);
  for (std::size_t ai = 0; ai < count; ++ai)
    for (std::size_t bi = 0; bi < count; ++bi) {
      const Register* a = a6xx::kRegisters[ai];
      const Register* b = a6xx::kRegisters[bi];
      if (ai == bi || (a->gens & b->gens) == 0) continue;
      for (unsigned i = 0; i < a->array_length; ++i)
        for (unsigned j = 0; j < b->array_length; ++j) {
          std::uint32_t a0 = a->offset_of(i), b0 = b->offset_of(j);
          if (a0 < b0 + b->dwords && b0 < a0 + a->dwords) return false;
        }
    }
  return true;
}
static_assert(entries_do_not_overlap());

bool has_word(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    std::size_t space = list.find(' ');
    if (list.substr(0, space) == word) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

}  // namespace

std::optional<RegisterHit> find_register(std::uint32_t offset, Gen gen) {
  for (const Register* reg : a6xx::kRegisters) {
    if ((reg->gens & gen) == 0 || offset < reg->offset || offset >= reg->end()) continue;
    std::uint32_t relative = offset - reg->offset;
    std::uint32_t stride = reg->array_stride == 0 ? reg->dwords : reg->array_stride;
    std::uint32_t index = relative / stride;
    std::uint32_t dword = relative % stride;
    if (dword >= reg->dwords) continue;  // a hole between array elements
    return RegisterHit{reg, index, dword};
  }
  return std::nullopt;
}

const Register* find_register(std::string_view name, Gen gen) {
  for (const Register* reg : a6xx::kRegisters)
    if ((reg->gens & gen) != 0 && reg->name == name) return reg;
  for (const Register* reg : a6xx::kRegisters)
    if ((reg->gens & gen) != 0 && has_word(reg->former_names, name)) return reg;
  return nullptr;
}

std::span<const Register* const> all_registers() { return a6xx::kRegisters; }

std::string register_name(const RegisterHit& hit) {
  std::string name(hit.reg->name);
  if (hit.reg->array_length > 1) name += fmt::format("[{}]", hit.index);
  if (hit.dword != 0) name += fmt::format("+{}", hit.dword);
  return name;
}

std::string regid_name(std::uint32_t regid) {
  return fmt::format("r{}.{}", regid >> 2, "xyzw"[regid & 3]);
}

}  // namespace adreno::pm4
