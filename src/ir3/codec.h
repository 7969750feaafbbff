// Binary form of one instruction: 64-bit word <-> ir3::Instruction. Both directions read the
// same field positions (encoding.h) and the same opcode table (opcodes.h).
#pragma once

#include <cstdint>

#include "ir3/instruction.h"

namespace adreno::ir3 {

/// Decodes one a6xx instruction word. Throws adreno::Error(malformed) when the word matches no
/// instruction form this library knows. Allocates nothing.
Instruction decode(std::uint64_t word);

/// Encodes an instruction. Throws adreno::Error(invalid_argument) naming the field when a value
/// does not fit its bits or an operand kind is not encodable in that position, and naming the
/// flag or modifier (`(r)`, `(abs)`, `(rpt2)` ...) when the word would not hold it: the word
/// always decodes back to the instruction given, never to a different one.
std::uint64_t encode(const Instruction& instruction);

}  // namespace adreno::ir3
