// The scheduling rules: when a value an instruction writes becomes readable, and when a register
// an instruction reads may be overwritten. One table, one row per producer class and generation
// where the generations differ (a7xx's ALU delays are shorter: ir3_compiler.c), beside the
// instruction table (opcodes.h); the virtual GPU's hazard check, the static checker and the
// legalizer all read it and describe a hazard in the same words (describe()).
//
// The model is Mesa's (src/freedreno/ir3/ir3_legalize.c, ir3_delay.c, ir3.h), the compiler that
// schedules every shader these GPUs run:
//  * a delay clock advances by 1 + (rptN) + (nopN) for every counted instruction: cat1-3 and flow
//    control except jump/br/brao/braa (ir3_legalize.c count_instruction); cat4-7 do not count;
//  * an ALU result written in cycle W (sub-instruction k of a (rptN) writes in W + k; swz/sct's
//    destination n in W + n) is readable in cycle W + delay (ir3_legalize.c delay_update); an (r)
//    source k is read in cycle R + k, mad/madsh read their third source later, gat/swz read
//    source n in cycle R + n (ir3_delay.c ir3_src_read_delay);
//  * results of the asynchronous classes are readable only after a (ss) or (sy) on a later
//    instruction, and overwriting a register with such a result pending needs the same wait
//    (ir3_legalize.c ir3_required_sync_flags); a shared-register destination adds (ss) to
//    whatever its producer needs (sync_update: IR3_REG_SHARED dsts go to needs_ss, loads to
//    needs_sy as well);
//  * sources of loads, stores, texture, SFU and shared-register writes may be read after the
//    instruction issued: overwriting them needs (ss), or (ss)/(sy) for loads and texture
//    (ir3.h is_war_hazard_producer, ir3_legalize.c sync_update);
//  * after a cat7 instruction (ir3.h is_barrier: bar, fence, sleep and the cache operations) the
//    next instruction waits with both (ss) and (sy) (sync_update sets force_ss/force_sy, which
//    ir3_required_sync_flags puts on the instruction that follows, whatever it reads);
//  * r<a0.x + N> names a register only a0.x knows: Mesa treats such an access as touching its
//    whole array, written in the last cycle of a (rptN) (delay_update, IR3_REG_RELATIV).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ir3/generation.h"
#include "ir3/instruction.h"

namespace adreno::ir3 {

/// What makes a written value readable, or lets a register an in-flight instruction reads be
/// overwritten: delay slots, or the sync flags (a set: a load into a shared register needs both).
enum class Wait : std::uint8_t { none = 0, delay = 1, ss = 2, sy = 4, ss_sy = ss | sy };
constexpr Wait operator|(Wait a, Wait b) noexcept {
  return static_cast<Wait>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
/// Whether `wait` includes the sync flag or delay `part`.
constexpr bool includes(Wait wait, Wait part) noexcept {
  return (static_cast<std::uint8_t>(wait) & static_cast<std::uint8_t>(part)) != 0;
}
/// The sync flags alone, as written on an instruction: "(ss)", "(sy)", "(ss)(sy)" or "".
std::string sync_flags(Wait wait);

/// Producer classes, one row each in the rules table.
enum class Producer : std::uint8_t {
  none,                  ///< writes nothing that needs waiting for (stores, getwid ...)
  alu,                   ///< cat1-3 into a general register
  address_or_predicate,  ///< cat1-3 into a0.x, a1.x or p0.c
  shared_write,          ///< cat1-3 into the shared file (r48 up)
  sfu,                   ///< cat4 and getfiberid
  local_load,            ///< ldl, ldlw, ldlv
  shuffle,               ///< shfl
  local_atomic,          ///< atomic.* on l[]
  resource_info,         ///< resinfo.b
  texture,               ///< cat5 except tcinv
  global_load,           ///< ldg, ldg.a, ldp, ldib.b, ldc
  global_atomic,         ///< atomic.g.*, atomic.b.*
  barrier,               ///< cat7: the instruction after it waits (ss)(sy)
};
inline constexpr std::size_t kProducerCount = 13;

/// Mesa's compiler->delay_slots for one generation (ir3_compiler.c ir3_compiler_create).
struct DelaySlots {
  Generation gen;
  std::uint8_t alu_to_alu;      ///< an ALU result to an ALU reader of the same size
  std::uint8_t non_alu;         ///< to any other reader, across a half/full mismatch, a0.x/a1.x/p0
  std::uint8_t cat3_src2_read;  ///< cycles after issue mad/madsh read their third source
};
const DelaySlots& delay_slots(Generation gen) noexcept;

struct ProducerRule {
  Producer producer;
  GenerationMask gens;           ///< the generations the row holds for
  const char* what;              ///< "an ALU result", in the hazard message
  Wait wait;
  std::uint8_t alu_delay;        ///< delay slots before a cat1-3 consumer reading the same size
  std::uint8_t other_delay;      ///< before any other consumer, or one reading the other size
  const char* mesa;              ///< where Mesa states the rule
};

const ProducerRule& rule(Producer producer, Generation gen) noexcept;

/// The waits a value `producer` writes needs before it is read or overwritten; a shared-register
/// destination needs (ss) on top and no delay slots (Mesa ir3_legalize.c sync_update puts
/// IR3_REG_SHARED dsts in needs_ss; delay_update and ir3_required_delay skip them).
Wait value_wait(Producer producer, bool shared_destination, Generation gen) noexcept;

/// How long an instruction may keep reading its register sources after it issued.
enum class InFlightRead : std::uint8_t { none, until_ss, until_ss_or_sy };

/// A run of consecutive registers one operand touches.
struct RegisterUse {
  std::uint16_t regid = 0;     ///< 4 * register + component (a0.x, a1.x, p0.c as in the encoding)
  std::uint8_t count = 1;      ///< consecutive components
  bool half = false;
  bool repeats = false;        ///< steps by one per (rptN) repetition ((r) source, or a destination)
  std::uint8_t cycle = 0;      ///< cycles after issue the first access happens (mad src2, gat/swz
                               ///< sources, swz/sct destinations)
  std::uint8_t operand = 0;    ///< index into src[] (reads) for messages; 255 = dst
  bool relative = false;       ///< r<a0.x + offset>: the register is known per fiber at run time only
  std::int16_t offset = 0;     ///< for relative uses
};

/// Everything the rules need about one instruction.
struct Footprint {
  std::array<RegisterUse, 6> reads{};
  std::uint8_t read_count = 0;
  std::array<RegisterUse, 4> writes{};
  std::uint8_t write_count = 0;
  Producer producer = Producer::none;
  InFlightRead in_flight = InFlightRead::none;
  bool reads_constants = false;
  Wait constants_written = Wait::none;  ///< ldg.k/ldc.k (sy), stc (ss): later const reads wait
  bool counted = false;                 ///< advances the delay clock
  bool alu_consumer = false;            ///< cat1-3: reads through the ALU-to-ALU path
  bool barrier = false;                 ///< cat7 (Mesa ir3.h is_barrier): the next instruction waits (ss)(sy)
  bool filler = false;                  ///< a nop: only waits and slots, the barrier rule looks past it
  std::uint8_t cycles = 0;              ///< 1 + (rptN) + (nopN) when counted, else 0
};

Footprint footprint(const Instruction& in, Generation gen = Generation::a6xx);

/// The registers a relative use may name, for a check that cannot know a0.x: Mesa assumes the
/// whole array; without the array's bounds, every general register of the use's size.
inline constexpr unsigned kRelativeReach = kFirstSharedReg * 4;

/// Visits every register `use` touches in `in`, as fn(regid, half, step, use_regid): regid in the
/// encoding's numbering (4 * register + component) of the half or full file, step the (rptN)
/// repetition touching it, use_regid the register the operand names. fn returns whether the
/// register exists in the caller's file; with `merged_aliases` (a merged register file), each
/// existing general register is followed by the registers of the other size sharing its bits
/// (hrN is half of r(N/2)), as Mesa's ir3_legalize.c get_ready_slot treats mismatched sizes.
/// A relative use is visited as the register `base` names (a fiber's a0.x + offset); a check
/// that cannot know a0.x passes each register of kRelativeReach in turn.
template <typename Fn>
void each_touched_register(const Instruction& in, const RegisterUse& use, bool merged_aliases, Fn&& fn,
                           unsigned base = 0) {
  constexpr unsigned kGeneralRegids = kFirstSharedReg * 4;
  const unsigned first = use.relative ? base : use.regid;
  const unsigned n = use.repeats ? in.repeat + 1u : use.count;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned regid = first + i;
    const unsigned step = use.repeats ? i : 0u;
    if (!fn(regid, use.half, step, regid) || !merged_aliases || regid >= kGeneralRegids) continue;
    if (use.half) {
      fn(regid / 2, false, step, regid);
    } else if (2 * regid + 1 < kGeneralRegids) {
      fn(2 * regid, true, step, regid);
      fn(2 * regid + 1, true, step, regid);
    }
  }
}

/// Delay slots a value from `producer` needs before this read (0 for the sync classes).
unsigned required_delay(Producer producer, bool alu_consumer, bool size_matches, Generation gen) noexcept;

/// A hazard, as the checker and the virtual GPU report it.
struct Hazard {
  enum class Kind : std::uint8_t { not_ready, overwrite_pending, overwrite_in_flight, constants, barrier } kind;
  std::uint32_t pc = 0;              ///< the consumer
  std::uint32_t producer_pc = 0;
  std::uint16_t regid = 0;
  bool half = false;
  Producer producer = Producer::none;
  Wait fix = Wait::none;              ///< the sync flags to add, or delay
  unsigned missing_slots = 0;         ///< for delay
  InFlightRead in_flight = InFlightRead::none;
  /// The consumer reaches the register through r<a0.x + N> (the virtual GPU names the register
  /// the fiber's a0.x picked).
  bool relative = false;
  /// Only the static checker sets it: the hazard happens if a relative operand, the consumer's
  /// or the producer's destination, names this register, which a0.x decides at run time.
  bool possible = false;
};

/// One sentence naming the instruction, register, producer, rule (with its Mesa source) and fix.
std::string describe(const Hazard& hazard, const Instruction& consumer, const Instruction& producer,
                     Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
