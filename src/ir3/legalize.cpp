#include "ir3/legalize.h"

#include <adreno/error.hpp>
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <utility>

#include "ir3/opcodes.h"

namespace adreno::ir3 {
namespace {

// Register slots: r0-r47 by component, the split half file, the shared file, a0.x a1.x p0.xyzw,
// and the constant file as one pseudo register.
constexpr unsigned kGprRegids = kFirstSharedReg * 4;
constexpr unsigned kSharedSlot = 2 * kGprRegids;
constexpr unsigned kSpecialSlot = kSharedSlot + 32;
constexpr unsigned kConstSlot = kSpecialSlot + 6;
constexpr unsigned kSlots = kConstSlot + 1;
constexpr unsigned kNoSlot = ~0u;
constexpr std::uint16_t kConstRegid = 0xffff;

unsigned slot_of(unsigned id, bool half) {
  if (id == kConstRegid) return kConstSlot;
  if (id < kGprRegids) return half ? kGprRegids + id : id;
  if (id < kGprRegids + 32) return kSharedSlot + id - kGprRegids;
  const unsigned a0 = regid(kAddressReg, 0), p0 = regid(kPredicateReg, 0);
  if (id == a0 || id == a0 + 1) return kSpecialSlot + id - a0;
  if (id >= p0 && id < p0 + 4) return kSpecialSlot + 2 + id - p0;
  return kNoSlot;
}

// What one path knows about a register at the start of an instruction.
struct SlotState {
  std::uint8_t need_alu = 0, need_other = 0;  // counted cycles still missing before the value is readable
  bool half = false;
  bool ss = false, sy = false;              // an asynchronous result still to arrive
  bool war_ss = false, war_ss_or_sy = false;  // an in-flight instruction still reads it
  Producer producer = Producer::none;
  std::uint32_t producer_pc = 0, reader_pc = 0;
  friend bool operator==(const SlotState&, const SlotState&) = default;
};
using State = std::array<SlotState, kSlots>;

bool pending(const SlotState& s) { return s.need_alu || s.need_other || s.ss || s.sy || s.war_ss || s.war_ss_or_sy; }

// The union of two paths: the later readiness, every pending wait.
bool merge(State& into, const State& from) {
  bool changed = false;
  for (unsigned i = 0; i < kSlots; ++i) {
    SlotState& a = into[i];
    const SlotState& b = from[i];
    if (!pending(b) || a == b) continue;
    SlotState m = a;
    if (!pending(a)) {
      m = b;
    } else {
      if (a.half != b.half && (a.need_alu || a.need_other) && (b.need_alu || b.need_other)) {
        m.need_alu = m.need_other = std::max({a.need_other, b.need_other});
      } else {
        m.need_alu = std::max(a.need_alu, b.need_alu);
      }
      m.need_other = std::max(m.need_other, b.need_other);
      if (b.need_other > a.need_other) m.half = b.half, m.producer = b.producer, m.producer_pc = b.producer_pc;
      if ((b.ss || b.sy) && !(a.ss || a.sy)) m.producer = b.producer, m.producer_pc = b.producer_pc;
      m.ss = a.ss || b.ss;
      m.sy = a.sy || b.sy;
      if ((b.war_ss || b.war_ss_or_sy) && !(a.war_ss || a.war_ss_or_sy)) m.reader_pc = b.reader_pc;
      m.war_ss = a.war_ss || b.war_ss;
      m.war_ss_or_sy = a.war_ss_or_sy || b.war_ss_or_sy;
    }
    if (!(m == a)) {
      a = m;
      changed = true;
    }
  }
  return changed;
}

// Every register a use touches, as its slot in State; with `aliases`, in a merged file, also the
// other-size registers sharing its bits.
template <typename Fn>
void each_register(const Instruction& in, const RegisterUse& use, RegisterFile file, Fn&& fn, bool aliases = false) {
  each_touched_register(in, use, aliases && file == RegisterFile::merged,
                        [&](unsigned regid, bool half, unsigned step, unsigned use_regid) {
                          const unsigned slot = slot_of(regid, half);
                          if (slot == kNoSlot) return false;
                          fn(slot, static_cast<std::uint16_t>(use_regid), step);
                          return true;
                        });
}

void apply_waits(const Instruction& in, State& s) {
  if (!in.ss && !in.sy) return;
  for (SlotState& slot : s) {
    if (in.ss) slot.ss = slot.war_ss = slot.war_ss_or_sy = false;
    if (in.sy) slot.sy = slot.war_ss_or_sy = false;
  }
}

// The hazards of `in` at `pc` given the state after its own waits.
void inspect(const Instruction& in, const Footprint& f, const State& s, std::uint32_t pc, RegisterFile file,
             std::vector<Hazard>& out) {
  auto add = [&](Hazard h) {
    for (const Hazard& seen : out)
      if (seen.pc == h.pc && seen.regid == h.regid && seen.kind == h.kind) return;
    out.push_back(h);
  };
  auto read = [&](const RegisterUse& use, unsigned slot, std::uint16_t regid, unsigned offset, bool constants) {
    const SlotState& r = s[slot];
    Hazard h{};
    h.kind = constants ? Hazard::Kind::constants : Hazard::Kind::not_ready;
    h.pc = pc;
    h.regid = regid;
    h.half = use.half;
    h.producer = r.producer;
    h.producer_pc = r.producer_pc;
    const unsigned need = f.alu_consumer && use.half == r.half ? r.need_alu : r.need_other;
    if (need > offset) {
      h.fix = Wait::delay;
      h.missing_slots = need - offset;
      add(h);
    }
    if (r.ss || r.sy) {
      h.fix = r.sy ? Wait::sy : Wait::ss;
      h.missing_slots = 0;
      add(h);
    }
  };
  for (unsigned k = 0; k < f.read_count; ++k) {
    const RegisterUse& use = f.reads[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t regid, unsigned step) { read(use, slot, regid, use.read_delay + step, false); }, true);
  }
  if (f.reads_constants) read(RegisterUse{kConstRegid}, kConstSlot, kConstRegid, 0, true);
  for (unsigned k = 0; k < f.write_count; ++k) {
    const RegisterUse& use = f.writes[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t regid, unsigned) {
      const SlotState& r = s[slot];
      Hazard h{};
      h.pc = pc;
      h.regid = regid;
      h.half = use.half;
      if (r.ss || r.sy) {
        h.kind = Hazard::Kind::overwrite_pending;
        h.producer = r.producer;
        h.producer_pc = r.producer_pc;
        h.fix = r.sy ? Wait::sy : Wait::ss;
        add(h);
      }
      if (r.war_ss || r.war_ss_or_sy) {
        h.kind = Hazard::Kind::overwrite_in_flight;
        h.producer_pc = r.reader_pc;
        h.in_flight = r.war_ss ? InFlightRead::until_ss : InFlightRead::until_ss_or_sy;
        h.fix = Wait::ss;
        add(h);
      }
    }, true);
  }
}

// The state after `in` issued (its waits already applied).
void step(const Instruction& in, const Footprint& f, State& s, std::uint32_t pc, RegisterFile file, Generation gen) {
  if (f.in_flight != InFlightRead::none) {
    for (unsigned k = 0; k < f.read_count; ++k) {
      each_register(in, f.reads[k], file, [&](unsigned slot, std::uint16_t, unsigned) {
        (f.in_flight == InFlightRead::until_ss ? s[slot].war_ss : s[slot].war_ss_or_sy) = true;
        s[slot].reader_pc = pc;
      });
    }
  }
  if (f.cycles) {
    for (SlotState& slot : s) {
      slot.need_alu = static_cast<std::uint8_t>(slot.need_alu > f.cycles ? slot.need_alu - f.cycles : 0);
      slot.need_other = static_cast<std::uint8_t>(slot.need_other > f.cycles ? slot.need_other - f.cycles : 0);
    }
  }
  const ProducerRule& r = rule(f.producer, gen);
  for (unsigned k = 0; k < f.write_count; ++k) {
    const RegisterUse& use = f.writes[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t, unsigned step_index) {
      SlotState& w = s[slot];
      w.war_ss = w.war_ss_or_sy = false;
      w.ss = r.wait == Wait::ss;
      w.sy = r.wait == Wait::sy;
      w.producer = f.producer;
      w.producer_pc = pc;
      w.half = use.half;
      if (r.wait != Wait::delay) {
        w.need_alu = w.need_other = 0;
        return;
      }
      // Written in cycle issue + 1 + step; the clock is now at issue + cycles.
      auto remaining = [&](unsigned delay) { return static_cast<std::uint8_t>(std::max(0, int(delay + step_index) - int(f.cycles - 1))); };
      w.need_alu = std::max(w.need_alu, remaining(r.alu_delay));
      w.need_other = std::max(w.need_other, remaining(r.other_delay));
    });
  }
  if (f.constants_written != Wait::none) {
    SlotState& c = s[kConstSlot];
    c.ss = c.ss || f.constants_written == Wait::ss;
    c.sy = c.sy || f.constants_written == Wait::sy;
    c.producer = f.constants_written == Wait::sy ? Producer::global_load : Producer::local_load;
    c.producer_pc = pc;
  }
}

bool has_target(const Instruction& in) {
  const Form form = info(in.opcode).form;
  return info(in.opcode).category == 0 && form != Form::flow_bare && form != Form::flow_kill && in.opcode != Opcode::call;
}

std::vector<std::uint32_t> successors(const std::vector<Instruction>& code, std::uint32_t pc) {
  const Instruction& in = code[pc];
  std::vector<std::uint32_t> next;
  if (in.opcode == Opcode::end || in.opcode == Opcode::ret) return next;
  if (in.opcode != Opcode::jump && pc + 1 < code.size()) next.push_back(pc + 1);
  if (has_target(in)) {
    const std::int64_t target = std::int64_t{pc} + in.flow.target;
    if (target >= 0 && target < static_cast<std::int64_t>(code.size())) next.push_back(static_cast<std::uint32_t>(target));
  }
  return next;
}

// The state at the start of every reachable instruction, over all paths (a fixed point).
struct Analysis {
  std::vector<State> in;
  std::vector<bool> reached;
  std::vector<Footprint> footprints;
};

Analysis analyze_paths(const std::vector<Instruction>& code, RegisterFile file, Generation gen) {
  Analysis a;
  const std::size_t n = code.size();
  a.in.assign(n, State{});
  a.reached.assign(n, false);
  a.footprints.reserve(n);
  for (const Instruction& in : code) a.footprints.push_back(footprint(in, gen));
  if (n == 0) return a;
  a.reached[0] = true;
  std::set<std::uint32_t> work{0};
  while (!work.empty()) {
    const std::uint32_t pc = *work.begin();
    work.erase(work.begin());
    State out = a.in[pc];
    apply_waits(code[pc], out);
    step(code[pc], a.footprints[pc], out, pc, file, gen);
    for (const std::uint32_t next : successors(code, pc)) {
      if (!a.reached[next]) {
        a.reached[next] = true;
        a.in[next] = out;
        work.insert(next);
      } else if (merge(a.in[next], out)) {
        work.insert(next);
      }
    }
  }
  return a;
}

std::vector<Hazard> hazards_at(const std::vector<Instruction>& code, const Analysis& a, std::uint32_t pc, RegisterFile file) {
  std::vector<Hazard> out;
  State s = a.in[pc];
  apply_waits(code[pc], s);
  inspect(code[pc], a.footprints[pc], s, pc, file, out);
  return out;
}

}  // namespace

std::vector<Hazard> check(const std::vector<Instruction>& code, RegisterFile file, Generation gen) {
  const Analysis a = analyze_paths(code, file, gen);
  std::vector<Hazard> all;
  for (std::uint32_t pc = 0; pc < code.size(); ++pc) {
    if (!a.reached[pc]) continue;
    const std::vector<Hazard> here = hazards_at(code, a, pc, file);
    all.insert(all.end(), here.begin(), here.end());
  }
  return all;
}

std::vector<Placed> legalize(const std::vector<Instruction>& input, RegisterFile file, Generation gen) {
  // Branches refer to instructions by identity while nops go in; offsets are recomputed after.
  struct Node {
    Placed placed;
    std::uint32_t id;
    std::int64_t target_id = -1;
  };
  std::vector<Node> nodes;
  for (std::uint32_t i = 0; i < input.size(); ++i) {
    Node node{{input[i], static_cast<std::int32_t>(i)}, i};
    if (has_target(input[i])) node.target_id = std::int64_t{i} + input[i].flow.target;
    nodes.push_back(node);
  }
  std::uint32_t next_id = static_cast<std::uint32_t>(input.size());
  auto current = [&] {
    std::vector<Instruction> code;
    for (const Node& node : nodes) code.push_back(node.placed.instruction);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].target_id < 0) continue;
      const auto at = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.id == nodes[i].target_id; });
      if (at != nodes.end()) code[i].flow.target = static_cast<std::int32_t>(at - nodes.begin()) - static_cast<std::int32_t>(i);
    }
    return code;
  };
  auto targeted = [&](std::uint32_t id) {
    return std::any_of(nodes.begin(), nodes.end(), [&](const Node& n) { return n.target_id == id; });
  };
  // A nop before nodes[at]: branches to that instruction now land on the nop, and so does (jp).
  auto insert_nop = [&](std::size_t at, unsigned repeat, bool ss) {
    Node nop{{Instruction{}, -1}, next_id++};
    nop.placed.instruction.repeat = static_cast<std::uint8_t>(repeat);
    nop.placed.instruction.ss = ss;
    for (Node& n : nodes)
      if (n.target_id == nodes[at].id) n.target_id = nop.id;
    std::swap(nop.placed.instruction.jp, nodes[at].placed.instruction.jp);
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(at), nop);
  };

  for (std::size_t round = 0;; ++round) {
    if (round > 8 * input.size() + 64) throw Error(Errc::unsupported, "ir3 legalize", "no schedule found after " + std::to_string(round) + " rounds");
    const std::vector<Instruction> code = current();
    const Analysis a = analyze_paths(code, file, gen);
    std::size_t pc = 0;
    std::vector<Hazard> found;
    for (; pc < code.size() && found.empty(); ++pc)
      if (a.reached[pc]) found = hazards_at(code, a, static_cast<std::uint32_t>(pc), file);
    if (found.empty()) break;
    --pc;
    bool ss = false, sy = false;
    unsigned delay = 0;
    for (const Hazard& h : found) {
      if (h.fix == Wait::ss) ss = true;
      if (h.fix == Wait::sy) sy = true;
      if (h.fix == Wait::delay) delay = std::max(delay, h.missing_slots);
    }
    Instruction& in = nodes[pc].placed.instruction;
    in.sy = in.sy || sy;
    if (ss) {
      // Mesa ir3.h supports_ss: only categories 0-4 carry (ss); the others wait on a nop.
      if (info(in.opcode).category < 5) {
        in.ss = true;
      } else {
        insert_nop(pc, 0, true);
        ++pc;
        delay = delay > 0 ? delay - 1 : 0;
      }
    }
    if (delay == 0) continue;
    // Borrow the slots from the instruction before, when every path here comes through it
    // (ir3_legalize.c legalize_block: (nopN) up to 3 on cat2/cat3, (rptN) up to 5 on a nop).
    if (pc > 0 && !targeted(nodes[pc].id)) {
      Instruction& before = nodes[pc - 1].placed.instruction;
      const unsigned category = info(before.opcode).category;
      if ((category == 2 || category == 3) && before.repeat == 0 && before.nop == 0) {
        const unsigned moved = std::min(delay, 3u);
        before.nop = static_cast<std::uint8_t>(moved);
        delay -= moved;
      } else if (before.opcode == Opcode::nop && before.nop == 0 && before.repeat < 5) {
        const unsigned moved = std::min(delay, 5u - before.repeat);
        before.repeat = static_cast<std::uint8_t>(before.repeat + moved);
        delay -= moved;
      }
    }
    if (delay > 0) insert_nop(pc, delay - 1, false);
  }

  // Fixing the first hazard in program order can add a wait that a later fix made redundant
  // (around a loop, the back edge still carried the unfixed state): drop each added flag that
  // the program stays legal without.
  for (Node& node : nodes) {
    if (node.placed.origin < 0) continue;
    const Instruction& was = input[static_cast<std::size_t>(node.placed.origin)];
    for (bool Instruction::*flag : {&Instruction::sy, &Instruction::ss}) {
      if (!(node.placed.instruction.*flag) || was.*flag) continue;
      node.placed.instruction.*flag = false;
      if (!check(current(), file, gen).empty()) node.placed.instruction.*flag = true;
    }
  }

  const std::vector<Instruction> code = current();
  std::vector<Placed> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) out.push_back({code[i], nodes[i].placed.origin});
  return out;
}

}  // namespace adreno::ir3
