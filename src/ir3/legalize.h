// The static side of the scheduling rules (scheduling.h): a checker that finds every hazard on
// any path through a program (branches and loops included, iterated to a fixed point the way
// Mesa's ir3_legalize.c legalize_block merges its predecessors), and a legalizer that places the
// fewest (sy)/(ss) flags and delay slots that remove them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir3/instruction.h"
#include "ir3/program.h"
#include "ir3/scheduling.h"

namespace adreno::ir3 {

/// Every hazard some path through `code` (instructions of `gen`) reaches, in program order, at most one per
/// instruction and register. Words after the last `end` that no path reaches are not looked at.
/// A relative operand r<a0.x + N> is taken for any general register of its size (Mesa takes the
/// whole array it names; the checker knows no arrays and no a0.x): what it reports through one is
/// a possible hazard (Hazard::possible), which the virtual GPU, knowing each fiber's a0.x, may
/// find does not happen.
std::vector<Hazard> check(const std::vector<Instruction>& code, RegisterFile file = RegisterFile::split,
                          Generation gen = Generation::a6xx);

/// One instruction of a legalized program and where it came from.
struct Placed {
  Instruction instruction;
  std::int32_t origin = -1;  ///< index in the input, -1 for an inserted nop
  /// An inserted nop that only the fall-through path runs: it goes before the label of the
  /// instruction it precedes (branches to that instruction skip it).
  bool before_label = false;
};

/// Adds (sy)/(ss) to the first instruction that needs them, sets (nopN) on a preceding cat2/cat3
/// instruction or (rptN) on a preceding nop where the encoding allows, otherwise inserts
/// `(rptN)nop` (and `(ss)nop` before cat5/cat6, which have no (ss) bit, or (ss) on the nop
/// already there), and fixes every branch target for what it inserted. Delay slots that only
/// the fall-through path into a branch target needs go before its label, out of the loop it
/// heads. Every wait it added is then taken away again where the program stays legal without
/// it. A program without hazards comes back unchanged.
std::vector<Placed> legalize(const std::vector<Instruction>& code, RegisterFile file = RegisterFile::split,
                             Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
