// Mutants of an ir3 program for the timing-hazard tests: every single removal of a wait, in
// straight-line code and in code with branches and loops alike. Shared by the pure tests (the
// legalizer's output needs every wait it has) and the end-to-end mutation tests (every mutant
// faults naming the rule, or computes the right answer).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir3/codec.h"
#include "ir3/instruction.h"
#include "ir3/opcodes.h"
#include "ir3/text.h"

namespace ir3_mutants {

namespace ir3 = adreno::ir3;

/// The instructions through the last `end`; the words after it are padding. Every function here
/// reads and writes the words as the instruction set of `gen`.
inline std::vector<ir3::Instruction> decode_through_end(const std::vector<std::uint64_t>& words,
                                                        ir3::Generation gen = ir3::Generation::a6xx) {
  std::vector<ir3::Instruction> code;
  std::size_t last_end = words.size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    code.push_back(ir3::decode(words[i], gen));
    if (code.back().opcode == ir3::Opcode::end) last_end = i;
  }
  if (last_end < words.size()) code.resize(last_end + 1);
  return code;
}

/// Whether a flow instruction's flow.target is a branch offset.
inline bool branches(const ir3::Instruction& in) {
  const ir3::OpcodeInfo& row = ir3::info(in.opcode);
  return row.category == 0 && row.form != ir3::Form::flow_bare && row.form != ir3::Form::flow_kill &&
         in.opcode != ir3::Opcode::call;
}

struct Mutant {
  std::string what;
  std::vector<std::uint64_t> words;
};

/// `words` without instruction `at` (a nop), the same size: every branch across it is moved,
/// a branch to it lands on the next instruction (which takes its (jp)), and a nop goes after the
/// last `end` in its place.
inline std::vector<std::uint64_t> without_nop(const std::vector<std::uint64_t>& words, std::size_t at,
                                              ir3::Generation gen = ir3::Generation::a6xx) {
  std::vector<ir3::Instruction> code = decode_through_end(words, gen);
  const bool jp = code[at].jp;
  for (std::size_t pc = 0; pc < code.size(); ++pc) {
    if (!branches(code[pc])) continue;
    const auto moved = [&](std::int64_t index) { return index > static_cast<std::int64_t>(at) ? index - 1 : index; };
    const std::int64_t from = static_cast<std::int64_t>(pc), to = from + code[pc].flow.target;
    code[pc].flow.target = static_cast<std::int32_t>(moved(to) - moved(from));
  }
  code.erase(code.begin() + static_cast<std::ptrdiff_t>(at));
  if (at < code.size()) code[at].jp = code[at].jp || jp;
  std::vector<std::uint64_t> out;
  for (const ir3::Instruction& in : code) out.push_back(ir3::encode(in, gen));
  out.push_back(ir3::encode(ir3::Instruction{}, gen));
  out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(code.size()) + 1, words.end());
  return out;
}

/// Every single removal of a wait: each (sy), each (ss), each (nopN) down to every smaller count
/// (0 .. N-1), each (rptN)nop down to every smaller count ((rpt2)nop to (rpt1)nop and to nop),
/// each nop deleted.
inline std::vector<Mutant> mutants_of(const std::vector<std::uint64_t>& words, ir3::Generation gen = ir3::Generation::a6xx) {
  const std::vector<ir3::Instruction> code = decode_through_end(words, gen);
  std::vector<Mutant> out;
  auto with = [&](std::size_t at, const std::string& what, auto change) {
    ir3::Instruction in = code[at];
    change(in);
    Mutant m{"instruction " + std::to_string(at) + " `" + ir3::to_text(code[at]) + "` " + what, words};
    m.words[at] = ir3::encode(in, gen);
    out.push_back(std::move(m));
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    const ir3::Instruction& in = code[i];
    if (in.sy) with(i, "without (sy)", [](ir3::Instruction& x) { x.sy = false; });
    if (in.ss) with(i, "without (ss)", [](ir3::Instruction& x) { x.ss = false; });
    for (unsigned fewer = 0; fewer < in.nop; ++fewer)
      with(i, fewer ? "as (nop" + std::to_string(fewer) + ")" : std::string("without (nop)"),
           [fewer](ir3::Instruction& x) { x.nop = static_cast<decltype(x.nop)>(fewer); });
    if (in.opcode == ir3::Opcode::nop) {
      for (unsigned fewer = 0; fewer < in.repeat; ++fewer)
        with(i, fewer ? "as (rpt" + std::to_string(fewer) + ")nop" : std::string("as nop"),
             [fewer](ir3::Instruction& x) { x.repeat = static_cast<decltype(x.repeat)>(fewer); });
      out.push_back({"instruction " + std::to_string(i) + " `" + ir3::to_text(in) + "` deleted", without_nop(words, i, gen)});
    }
  }
  return out;
}

}  // namespace ir3_mutants
