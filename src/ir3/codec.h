// Binary form of one instruction: 64-bit word <-> ir3::Instruction. Both directions read the
// same field positions (encoding.h) and the same opcode table (opcodes.h).
#pragma once

#include <cstdint>

#include "ir3/generation.h"
#include "ir3/instruction.h"

namespace adreno::ir3 {

/// Decodes one instruction word of generation `gen`. Throws adreno::Error(malformed) when the
/// word matches no instruction form this library knows on `gen`. Allocates nothing.
Instruction decode(std::uint64_t word, Generation gen = Generation::a6xx);

/// Encodes an instruction for `gen`. Throws adreno::Error(invalid_argument) naming the field when
/// a value does not fit its bits or an operand kind is not encodable in that position, naming
/// the form when it does not exist on `gen`, and naming the flag or modifier (`(r)`, `(abs)`,
/// `(rpt2)` ...) when the word would not hold it: the word always decodes back to the
/// instruction given, never to a different one.
std::uint64_t encode(const Instruction& instruction, Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
