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
// the constant file as one pseudo register, and the barrier rule's pending waits as another.
constexpr unsigned kGprRegids = kFirstSharedReg * 4;
constexpr unsigned kSharedSlot = 2 * kGprRegids;
constexpr unsigned kSpecialSlot = kSharedSlot + 32;
constexpr unsigned kConstSlot = kSpecialSlot + 6;
constexpr unsigned kBarrierSlot = kConstSlot + 1;
constexpr unsigned kSlots = kBarrierSlot + 1;
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

bool is_shared_slot(unsigned slot) { return slot >= kSharedSlot && slot < kSpecialSlot; }

// What one path knows about a register at the start of an instruction.
struct SlotState {
  std::uint8_t need_alu = 0, need_other = 0;  // counted cycles still missing before the value is readable
  bool half = false;
  bool ss = false, sy = false;              // an asynchronous result still to arrive
  bool war_ss = false, war_ss_or_sy = false;  // an in-flight instruction still reads it
  bool relative = false;                    // what is pending may come from a relative write that missed it
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
      m.relative = a.relative || b.relative;
    }
    if (!(m == a)) {
      a = m;
      changed = true;
    }
  }
  return changed;
}

// Every register a use touches, as fn(slot, regid, step); with `aliases`, in a merged file, also
// the other-size registers sharing its bits. A relative use may name any general register of its
// size: each is visited, read in the first cycle or written in the last (Mesa ir3_legalize.c
// ir3_required_delay does not step a relative source; delay_update writes the whole array at
// the end of a (rptN)).
template <typename Fn>
void each_register(const Instruction& in, const RegisterUse& use, RegisterFile file, Fn&& fn, bool aliases = false,
                   bool write = false) {
  const bool merged = aliases && file == RegisterFile::merged;
  if (!use.relative) {
    each_touched_register(in, use, merged, [&](unsigned regid, bool half, unsigned step, unsigned use_regid) {
      const unsigned slot = slot_of(regid, half);
      if (slot == kNoSlot) return false;
      fn(slot, static_cast<std::uint16_t>(use_regid), step);
      return true;
    });
    return;
  }
  RegisterUse one = use;
  one.relative = one.repeats = false;
  one.count = 1;
  const unsigned step = write ? in.repeat : 0u;
  for (unsigned regid = 0; regid < kRelativeReach; ++regid) {
    one.regid = static_cast<std::uint16_t>(regid);
    each_touched_register(in, one, merged, [&](unsigned id, bool half, unsigned, unsigned use_regid) {
      const unsigned slot = slot_of(id, half);
      if (slot == kNoSlot) return false;
      fn(slot, static_cast<std::uint16_t>(use_regid), step);
      return true;
    });
  }
}

// The sync flags still pending in a slot.
Wait sync_pending(const SlotState& s) { return (s.ss ? Wait::ss : Wait::none) | (s.sy ? Wait::sy : Wait::none); }

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
      if (seen.pc == h.pc && seen.regid == h.regid && seen.half == h.half && seen.kind == h.kind) return;
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
    h.relative = use.relative;
    h.possible = use.relative || r.relative;
    const unsigned need = f.alu_consumer && use.half == r.half ? r.need_alu : r.need_other;
    if (need > offset) {
      h.fix = Wait::delay;
      h.missing_slots = need - offset;
      add(h);
    }
    if (r.ss || r.sy) {
      h.fix = sync_pending(r);
      h.missing_slots = 0;
      add(h);
    }
  };
  for (unsigned k = 0; k < f.read_count; ++k) {
    const RegisterUse& use = f.reads[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t regid, unsigned step) { read(use, slot, regid, use.cycle + step, false); }, true);
  }
  if (f.reads_constants) read(RegisterUse{kConstRegid}, kConstSlot, kConstRegid, 0, true);
  if (!f.filler && pending(s[kBarrierSlot])) {
    Hazard h{};
    h.kind = Hazard::Kind::barrier;
    h.pc = pc;
    h.producer = Producer::barrier;
    h.producer_pc = s[kBarrierSlot].producer_pc;
    h.fix = sync_pending(s[kBarrierSlot]);
    add(h);
  }
  for (unsigned k = 0; k < f.write_count; ++k) {
    const RegisterUse& use = f.writes[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t regid, unsigned) {
      const SlotState& r = s[slot];
      Hazard h{};
      h.pc = pc;
      h.regid = regid;
      h.half = use.half;
      h.relative = use.relative;
      if (r.ss || r.sy) {
        h.possible = use.relative || r.relative;
        h.kind = Hazard::Kind::overwrite_pending;
        h.producer = r.producer;
        h.producer_pc = r.producer_pc;
        h.fix = sync_pending(r);
        add(h);
      }
      if (r.war_ss || r.war_ss_or_sy) {
        h.possible = use.relative;
        h.kind = Hazard::Kind::overwrite_in_flight;
        h.producer_pc = r.reader_pc;
        h.in_flight = r.war_ss ? InFlightRead::until_ss : InFlightRead::until_ss_or_sy;
        h.fix = Wait::ss;
        add(h);
      }
    }, true, true);
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
  // The first instruction after a barrier took (or missed) its waits; a barrier sets them again.
  if (!f.filler) s[kBarrierSlot] = {};
  if (f.barrier) {
    s[kBarrierSlot].ss = s[kBarrierSlot].sy = true;
    s[kBarrierSlot].producer = Producer::barrier;
    s[kBarrierSlot].producer_pc = pc;
  }
  for (unsigned k = 0; k < f.write_count; ++k) {
    const RegisterUse& use = f.writes[k];
    each_register(in, use, file, [&](unsigned slot, std::uint16_t, unsigned step_index) {
      SlotState& w = s[slot];
      const Wait wait = value_wait(f.producer, is_shared_slot(slot), gen);
      const ProducerRule& r = rule(f.producer, gen);
      // Written in cycle issue + 1 + cycle + step; the clock is now at issue + cycles.
      auto remaining = [&](unsigned delay) {
        return static_cast<std::uint8_t>(std::max(0, int(delay + use.cycle + step_index) - int(f.cycles - 1)));
      };
      if (use.relative) {
        // May have written this register, or not: whatever was pending stays, and the new value's
        // waits are added.
        const std::uint8_t alu = wait == Wait::delay ? remaining(r.alu_delay) : 0;
        const std::uint8_t other = wait == Wait::delay ? remaining(r.other_delay) : 0;
        if (other > w.need_other || includes(wait, Wait::ss) || includes(wait, Wait::sy)) {
          w.producer = f.producer;
          w.producer_pc = pc;
          w.half = use.half;
          w.relative = true;
        }
        w.need_alu = std::max(w.need_alu, alu);
        w.need_other = std::max(w.need_other, other);
        w.ss = w.ss || includes(wait, Wait::ss);
        w.sy = w.sy || includes(wait, Wait::sy);
        return;
      }
      w.war_ss = w.war_ss_or_sy = w.relative = false;
      w.ss = includes(wait, Wait::ss);
      w.sy = includes(wait, Wait::sy);
      w.producer = f.producer;
      w.producer_pc = pc;
      w.half = use.half;
      if (wait != Wait::delay) {
        w.need_alu = w.need_other = 0;
        return;
      }
      w.need_alu = std::max(w.need_alu, remaining(r.alu_delay));
      w.need_other = std::max(w.need_other, remaining(r.other_delay));
    }, false, true);
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

// The delay slots `to` lacks on the edge from `from` alone.
unsigned edge_delay(const std::vector<Instruction>& code, const Analysis& a, std::uint32_t from, std::uint32_t to,
                    RegisterFile file, Generation gen) {
  State s = a.in[from];
  apply_waits(code[from], s);
  step(code[from], a.footprints[from], s, from, file, gen);
  apply_waits(code[to], s);
  std::vector<Hazard> found;
  inspect(code[to], a.footprints[to], s, to, file, found);
  unsigned delay = 0;
  for (const Hazard& h : found)
    if (h.fix == Wait::delay) delay = std::max(delay, h.missing_slots);
  return delay;
}

// How many of the delay slots `pc` lacks every path into it needs, and how many only the
// fall-through path from pc - 1 does: those can go before pc's label, out of a loop pc heads.
struct SlotSplit {
  unsigned every_path = 0, fall_through = 0;
};
SlotSplit split_slots(const std::vector<Instruction>& code, const Analysis& a, std::uint32_t pc, unsigned delay,
                      RegisterFile file, Generation gen) {
  unsigned branches = 0;
  bool falls_through = false;
  for (std::uint32_t from = 0; from < code.size(); ++from) {
    if (!a.reached[from]) continue;
    for (const std::uint32_t next : successors(code, from)) {
      if (next != pc) continue;
      const bool fall = from + 1 == pc && code[from].opcode != Opcode::jump &&
                        !(has_target(code[from]) && code[from].flow.target == 1);
      if (fall) {
        falls_through = true;
      } else {
        branches = std::max(branches, edge_delay(code, a, from, pc, file, gen));
      }
    }
  }
  if (!falls_through || branches >= delay) return {delay, 0};
  return {branches, delay - branches};
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
  // A nop before nodes[at]. With `every_path`, branches to that instruction land on the nop
  // instead, and so does (jp); otherwise it goes before the label, on the fall-through path only.
  auto insert_nop = [&](std::size_t at, unsigned repeat, bool ss, bool every_path) {
    Node nop{{Instruction{}, -1}, next_id++};
    nop.placed.instruction.repeat = static_cast<std::uint8_t>(repeat);
    nop.placed.instruction.ss = ss;
    if (every_path) {
      for (Node& n : nodes)
        if (n.target_id == nodes[at].id) n.target_id = nop.id;
      std::swap(nop.placed.instruction.jp, nodes[at].placed.instruction.jp);
    }
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(at), nop);
  };
  // `count` delay slots before nodes[at] on the paths `every_path` says: borrowed from the
  // instruction before when every such path comes through it (ir3_legalize.c legalize_block:
  // (nopN) up to 3 on cat2/cat3, (rptN) up to 5 on a nop), the rest as a (rptN)nop.
  auto place_slots = [&](std::size_t at, unsigned count, bool every_path) {
    if (at > 0 && (!every_path || !targeted(nodes[at].id))) {
      Instruction& before = nodes[at - 1].placed.instruction;
      const unsigned category = info(before.opcode).category;
      if ((category == 2 || category == 3) && before.repeat == 0 && before.nop < 3) {
        const unsigned moved = std::min(count, 3u - before.nop);
        before.nop = static_cast<std::uint8_t>(before.nop + moved);
        count -= moved;
      } else if (before.opcode == Opcode::nop && before.nop == 0 && before.repeat < 5) {
        const unsigned moved = std::min(count, 5u - before.repeat);
        before.repeat = static_cast<std::uint8_t>(before.repeat + moved);
        count -= moved;
      }
    }
    while (count > 0) {
      const unsigned here = std::min(count, 6u);
      insert_nop(at, here - 1, false, every_path);
      count -= here;
    }
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
    Wait sync = Wait::none;
    unsigned delay = 0;
    for (const Hazard& h : found) {
      if (h.fix == Wait::delay) delay = std::max(delay, h.missing_slots);
      else sync = sync | h.fix;
    }
    const SlotSplit split = delay ? split_slots(code, a, static_cast<std::uint32_t>(pc), delay, file, gen) : SlotSplit{};
    Instruction& in = nodes[pc].placed.instruction;
    in.sy = in.sy || includes(sync, Wait::sy);
    unsigned every_path = split.every_path, fall_through = split.fall_through;
    if (includes(sync, Wait::ss)) {
      // Mesa ir3.h supports_ss: only categories 0-4 carry (ss); the others wait on a nop, the one
      // before when every path comes through it (ir3_legalize.c insert_nop_flags reuses it).
      Instruction* before = pc > 0 && !targeted(nodes[pc].id) ? &nodes[pc - 1].placed.instruction : nullptr;
      if (info(in.opcode).category < 5) {
        in.ss = true;
      } else if (before && before->opcode == Opcode::nop) {
        before->ss = true;
      } else {
        insert_nop(pc, 0, true, true);  // on every path: also one of the slots
        ++pc;
        if (every_path > 0) --every_path;
        else if (fall_through > 0) --fall_through;
      }
    }
    // The slots only the fall-through path needs go before the label, the others after it.
    if (every_path > 0) place_slots(pc, every_path, true);
    if (fall_through > 0) place_slots(pc, fall_through, false);
  }

  // Fixing the first hazard in program order can add a wait that a later fix made redundant
  // (around a loop, the back edge still carried the unfixed state): drop each added flag, and
  // each delay slot added, that the program stays legal without.
  auto legal = [&] { return check(current(), file, gen).empty(); };
  for (Node& node : nodes) {
    if (node.placed.origin < 0) continue;
    const Instruction& was = input[static_cast<std::size_t>(node.placed.origin)];
    Instruction& now = node.placed.instruction;
    for (bool Instruction::*flag : {&Instruction::sy, &Instruction::ss}) {
      if (!(now.*flag) || was.*flag) continue;
      now.*flag = false;
      if (!legal()) now.*flag = true;
    }
    for (std::uint8_t Instruction::*slots : {&Instruction::nop, &Instruction::repeat}) {
      if (now.opcode != Opcode::nop && slots == &Instruction::repeat) continue;
      while (now.*slots > was.*slots) {
        --(now.*slots);
        if (!legal()) {
          ++(now.*slots);
          break;
        }
      }
    }
  }
  // The nops it inserted: each moved out of the loop it heads (branches land after it), merged
  // into the inserted nop before it, shortened or dropped, while the program stays legal.
  auto inserted = [&](std::size_t i) { return nodes[i].placed.origin < 0 && !nodes[i].placed.instruction.ss; };
  auto attempt = [&](auto&& change) {
    const std::vector<Node> before = nodes;
    change();
    if (legal()) return true;
    nodes = before;
    return false;
  };
  // Branches to nodes[i] land on nodes[i + 1] instead, which takes its (jp).
  auto pass_targets = [&](std::size_t i) {
    for (Node& n : nodes)
      if (n.target_id == nodes[i].id) n.target_id = nodes[i + 1].id;
    Instruction& next = nodes[i + 1].placed.instruction;
    next.jp = next.jp || nodes[i].placed.instruction.jp;
    nodes[i].placed.instruction.jp = false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i + 1 < nodes.size(); ++i) {
      if (!inserted(i)) continue;
      if (targeted(nodes[i].id) && attempt([&] { pass_targets(i); })) changed = true;
      const bool mergeable = i > 0 && inserted(i - 1) && !targeted(nodes[i].id) &&
                             nodes[i - 1].placed.instruction.repeat + nodes[i].placed.instruction.repeat + 2 <= 6;
      if (mergeable && attempt([&] {
            Instruction& first = nodes[i - 1].placed.instruction;
            first.repeat = static_cast<std::uint8_t>(first.repeat + nodes[i].placed.instruction.repeat + 1);
            nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
          })) {
        changed = true;
        --i;  // nodes[i] is the next one now
        continue;
      }
      while (nodes[i].placed.instruction.repeat > 0 && attempt([&] { --nodes[i].placed.instruction.repeat; })) changed = true;
      if (nodes[i].placed.instruction.repeat == 0 && attempt([&] {
            pass_targets(i);
            nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
          })) {
        changed = true;
        --i;  // wraps for i == 0: the loop's ++i brings it back
      }
    }
  }

  const std::vector<Instruction> code = current();
  std::vector<Placed> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) out.push_back({code[i], nodes[i].placed.origin});
  // In each run of inserted nops, those before the first one a branch lands on are on the
  // fall-through path only (all of them, when no branch lands in the run).
  for (std::size_t end = 0; end < out.size(); ++end) {
    if (out[end].origin < 0) continue;
    std::size_t begin = end;
    while (begin > 0 && out[begin - 1].origin < 0) --begin;
    for (std::size_t i = begin; i < end && !targeted(nodes[i].id); ++i) out[i].before_label = true;
  }
  return out;
}

}  // namespace adreno::ir3
