#include "ir3/opcodes.h"

#include <cstring>
#include <iterator>

namespace adreno::ir3 {
namespace {

constexpr GenerationMask k_every = kEveryGeneration, k_a6xx = kA6xxOnly, k_a7xx = kA7xxOnly;

constexpr OpcodeInfo kTable[] = {
#define ADRENO_IR3_ROW(id, name, cat, value, sub, form, attr, gens) \
  {Opcode::id, name, cat, value, sub, Form::form, attr, k_##gens},
    ADRENO_IR3_OPCODES(ADRENO_IR3_ROW)
#undef ADRENO_IR3_ROW
};

}  // namespace

const OpcodeInfo& info(Opcode opcode) noexcept { return kTable[static_cast<std::size_t>(opcode)]; }

const OpcodeInfo* find_opcode(const char* name, std::size_t length, Generation gen) noexcept {
  for (const OpcodeInfo& row : kTable) {
    if (exists_on(row.gens, gen) && std::strlen(row.name) == length && std::memcmp(row.name, name, length) == 0) return &row;
  }
  return nullptr;
}

const OpcodeInfo* find_opcode_any_generation(const char* name, std::size_t length) noexcept {
  for (Generation gen : {Generation::a6xx, Generation::a7xx}) {
    if (const OpcodeInfo* row = find_opcode(name, length, gen)) return row;
  }
  return nullptr;
}

const char* generations_text(GenerationMask gens) noexcept {
  if (gens == kEveryGeneration) return "a6xx and a7xx";
  return gens == kA6xxOnly ? "a6xx" : "a7xx";
}

const OpcodeInfo* opcode_table_begin() noexcept { return std::begin(kTable); }
const OpcodeInfo* opcode_table_end() noexcept { return std::end(kTable); }

}  // namespace adreno::ir3
