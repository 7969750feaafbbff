#include "ir3/opcodes.h"

#include <cstring>
#include <iterator>

namespace adreno::ir3 {
namespace {

constexpr OpcodeInfo kTable[] = {
#define ADRENO_IR3_ROW(id, name, cat, value, sub, form, attr) \
  {Opcode::id, name, cat, value, sub, Form::form, attr},
    ADRENO_IR3_OPCODES(ADRENO_IR3_ROW)
#undef ADRENO_IR3_ROW
};

}  // namespace

const OpcodeInfo& info(Opcode opcode) noexcept { return kTable[static_cast<std::size_t>(opcode)]; }

const OpcodeInfo* find_opcode(const char* name, std::size_t length) noexcept {
  for (const OpcodeInfo& row : kTable) {
    if (std::strlen(row.name) == length && std::memcmp(row.name, name, length) == 0) return &row;
  }
  return nullptr;
}

const OpcodeInfo* opcode_table_begin() noexcept { return std::begin(kTable); }
const OpcodeInfo* opcode_table_end() noexcept { return std::end(kTable); }

}  // namespace adreno::ir3
