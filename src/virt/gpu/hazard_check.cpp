#include "virt/gpu/hazard_check.h"

#include "virt/gpu/gpu_fault.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace adreno::virt {
namespace {

using ir3::InFlightRead;
using ir3::Producer;
using ir3::Wait;

constexpr unsigned kNoSlot = ~0u;
constexpr unsigned kSharedRegids = 32;
constexpr unsigned kFirstSharedRegid = ir3::kFirstSharedReg * 4;
constexpr unsigned kA0Regid = ir3::kAddressReg * 4;
constexpr unsigned kP0Regid = ir3::kPredicateReg * 4;
constexpr unsigned kConstantsRegid = 0xffff;  // the constant file, as one pseudo register
// The most delay slots any producer needs (ir3_compiler.c delay_slots.non_alu).
constexpr unsigned kMaxDelay = 6;
// Pending records are looked at again once this many pile up.
constexpr std::size_t kPruneAt = 32;

// Whether a value written with `wait` at the counts in `r` is released by the clocks `c`.
bool synced(Wait wait, std::uint32_t ss, std::uint32_t sy, std::uint32_t clock_ss, std::uint32_t clock_sy) {
  return (!ir3::includes(wait, Wait::ss) || clock_ss > ss) && (!ir3::includes(wait, Wait::sy) || clock_sy > sy);
}

}  // namespace

// The sync flags a record still waits for under the clocks `c`.
Wait HazardCheck::pending_syncs(const Record& r, const Clocks& c) {
  Wait missing = Wait::none;
  if (ir3::includes(r.wait, Wait::ss) && c.ss <= r.ss) missing = missing | Wait::ss;
  if (ir3::includes(r.wait, Wait::sy) && c.sy <= r.sy) missing = missing | Wait::sy;
  return missing;
}

HazardMode hazard_mode_from_environment() noexcept {
  const char* value = std::getenv("ADRENO_VIRTUAL_HAZARDS");
  if (value == nullptr) return HazardMode::on;
  if (std::strcmp(value, "warn") == 0) return HazardMode::warn;
  if (std::strcmp(value, "off") == 0) return HazardMode::off;
  if (std::strcmp(value, "exhaustive") == 0) return HazardMode::exhaustive;
  return HazardMode::on;
}

HazardCheck::HazardCheck(const ShaderProgram& program, HazardMode mode, HazardWarnings* warnings, unsigned stride,
                         unsigned lanes, unsigned full_regids, unsigned half_regids, bool merged, std::uint32_t entry,
                         HazardCheck* recycled)
    : program_(program),
      mode_(mode),
      // The proof starts where a wave with nothing pending starts: at the first instruction.
      checked_(mode == HazardMode::exhaustive ||
               (mode != HazardMode::off && !(entry == 0 && program.hazard_free(merged)))),
      warnings_(warnings),
      stride_(stride),
      lane_count_(lanes),
      full_regids_(full_regids),
      half_regids_(merged ? 2 * full_regids : half_regids),  // merged: hrN.c is half of r(N/2)
      merged_(merged),
      shared_slot_(full_regids_ + half_regids_),
      special_slot_(shared_slot_ + kSharedRegids),
      const_slot_(special_slot_ + 6),
      barrier_slot_(const_slot_ + 1) {
  if (recycled != nullptr) {
    slots_ = std::move(recycled->slots_);
    lane_records_ = std::move(recycled->lane_records_);
    offsets_ = std::move(recycled->offsets_);
    listed_ = std::move(recycled->listed_);
    offsets_moved_ = recycled->offsets_moved_;
    reset();  // the earlier wave's state, in the slots it numbered
  }
  if (!checked_) return;
  // Every slot and offset is clear here and stays so when the vectors grow. The per-fiber
  // records are sized at the first divergence (spread).
  slots_.resize(barrier_slot_ + 1);
  offsets_.resize(stride_);
  listed_.reserve(slots_.size());
}

void HazardCheck::reset() {
  // Only listed slots hold state: update() lists every slot it changes, and prune() and the
  // spread at a divergence clear a slot when they drop it from the list. So a wave's start
  // costs what its last work group left pending, not the size of the register file.
  for (const unsigned slot : listed_) {
    if (slot < slots_.size()) slots_[slot] = Slot{};
  }
  listed_.clear();
  // The per-fiber offsets move only while the wave is diverged.
  if (offsets_moved_) std::fill(offsets_.begin(), offsets_.end(), Clocks{});
  offsets_moved_ = false;
  base_ = {};
  was_diverged_ = false;
}

unsigned HazardCheck::slot_of(unsigned regid, bool half) const {
  if (regid == kConstantsRegid) return const_slot_;
  if (regid < kFirstSharedRegid) {
    if (!half) return regid < full_regids_ ? regid : kNoSlot;
    return regid < half_regids_ ? full_regids_ + regid : kNoSlot;
  }
  if (regid < kFirstSharedRegid + kSharedRegids) return shared_slot_ + (regid - kFirstSharedRegid);
  if (regid == kA0Regid || regid == kA0Regid + 1) return special_slot_ + (regid - kA0Regid);
  if (regid >= kP0Regid && regid < kP0Regid + 4) return special_slot_ + 2 + (regid - kP0Regid);
  return kNoSlot;
}

HazardCheck::Clocks HazardCheck::lane_clocks(unsigned lane) const {
  const Clocks& o = offsets_[lane];
  return {base_.cycle + o.cycle, base_.ss + o.ss, base_.sy + o.sy};
}

HazardCheck::Record HazardCheck::absolute(const Record& record, unsigned lane) const {
  Record r = record;
  const Clocks& o = offsets_[lane];
  r.written += o.cycle;
  r.ss += o.ss;
  r.sy += o.sy;
  r.war_ss += o.ss;
  r.war_sy += o.sy;
  return r;
}

bool HazardCheck::resolved(const Record& r, const Clocks& c) const {
  const Wait wait = r.wait;
  const bool value = wait == Wait::delay ? c.cycle >= r.written + kMaxDelay : synced(wait, r.ss, r.sy, c.ss, c.sy);
  const bool read = r.war == InFlightRead::none || c.ss > r.war_ss ||
                    (r.war == InFlightRead::until_ss_or_sy && c.sy > r.war_sy);
  return value && read;
}

void HazardCheck::list(unsigned slot) {
  if (slots_[slot].listed) return;
  slots_[slot].listed = true;
  listed_.push_back(slot);
}

void HazardCheck::spread(unsigned slot) {
  Slot& s = slots_[slot];
  if (s.per_lane) return;
  if (lane_records_.size() < slots_.size() * std::size_t{stride_}) lane_records_.resize(slots_.size() * std::size_t{stride_});
  for (unsigned lane = 0; lane < lane_count_; ++lane) lane_record(slot, lane) = absolute(s.uniform, lane);
  s.per_lane = true;
  s.uniform = {};
  list(slot);
}

void HazardCheck::prune(std::span<const std::uint16_t> live) {
  std::size_t kept = 0;
  for (const unsigned slot : listed_) {
    Slot& s = slots_[slot];
    bool done = true;
    if (!s.per_lane) {
      done = resolved(s.uniform, base_);
    } else {
      for (const std::uint16_t lane : live) done = done && resolved(lane_record(slot, lane), lane_clocks(lane));
    }
    if (done) {
      s = {};
    } else {
      listed_[kept++] = slot;
    }
  }
  listed_.resize(kept);
}

void HazardCheck::report(const ir3::Hazard& hazard) {
  const std::string what = "timing hazard in the program at 0x" + [&] {
    char text[32];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(program_.address()));
    return std::string(text);
  }() + ": " + ir3::describe(hazard, program_[hazard.pc].instruction, program_[hazard.producer_pc].instruction,
                             program_.generation());
  if (mode_ != HazardMode::warn) throw GpuFault(FaultKind::shader_error, program_.address() + std::uint64_t{hazard.pc} * 8, what);
  if (warnings_ == nullptr || warnings_->first(program_.address(), hazard.pc, hazard.regid)) {
    std::fprintf(stderr, "adreno: warning: %s\n", what.c_str());
  }
}

void HazardCheck::check_read(const Record& r, const Clocks& c, std::uint32_t pc, const ir3::RegisterUse& use, unsigned regid,
                             std::uint32_t read_offset, bool alu_consumer) {
  // The common case, a value that is ready, decides without building a report.
  unsigned missing = 0;
  if (r.wait == Wait::delay) {
    const unsigned need = alu_consumer && use.half == r.half ? r.alu_delay : r.other_delay;
    const std::uint32_t read_cycle = c.cycle + read_offset;
    if (read_cycle >= r.written + need) return;
    missing = r.written + need - read_cycle;
  } else if (synced(r.wait, r.ss, r.sy, c.ss, c.sy)) {
    return;
  }
  ir3::Hazard h{};
  h.kind = regid == kConstantsRegid ? ir3::Hazard::Kind::constants : ir3::Hazard::Kind::not_ready;
  h.pc = pc;
  h.producer_pc = r.producer_pc;
  h.regid = static_cast<std::uint16_t>(regid);
  h.half = use.half;
  h.relative = use.relative;
  h.producer = r.producer;
  h.fix = r.wait == Wait::delay ? Wait::delay : pending_syncs(r, c);
  h.missing_slots = missing;
  report(h);
}

void HazardCheck::check_write(const Record& r, const Clocks& c, std::uint32_t pc, const ir3::RegisterUse& use, unsigned regid) {
  const Wait wait = r.wait;
  const bool pending = wait != Wait::delay && !synced(wait, r.ss, r.sy, c.ss, c.sy);
  const bool reading = r.war != InFlightRead::none && c.ss <= r.war_ss &&
                       !(r.war == InFlightRead::until_ss_or_sy && c.sy > r.war_sy);
  if (!pending && !reading) return;
  ir3::Hazard h{};
  h.pc = pc;
  h.regid = static_cast<std::uint16_t>(regid);
  h.half = use.half;
  h.relative = use.relative;
  if (pending) {
    h.kind = ir3::Hazard::Kind::overwrite_pending;
    h.producer_pc = r.producer_pc;
    h.producer = r.producer;
    h.fix = pending_syncs(r, c);
    report(h);
  }
  if (reading) {
    h.kind = ir3::Hazard::Kind::overwrite_in_flight;
    h.producer_pc = r.reader_pc;
    h.in_flight = r.war;
    h.fix = Wait::ss;
    report(h);
  }
}

void HazardCheck::check_barrier(const Record& r, const Clocks& c, std::uint32_t pc) {
  if (r.wait == Wait::none || synced(r.wait, r.ss, r.sy, c.ss, c.sy)) return;
  ir3::Hazard h{};
  h.kind = ir3::Hazard::Kind::barrier;
  h.pc = pc;
  h.producer_pc = r.producer_pc;
  h.producer = Producer::barrier;
  h.fix = pending_syncs(r, c);
  report(h);
}

void HazardCheck::record_write(Record& r, const Clocks& c, std::uint32_t pc, Producer producer, Wait wait,
                               std::uint32_t cycle, bool half) const {
  const ir3::ProducerRule& rule = ir3::rule(producer, program_.generation());
  r.producer = producer;
  r.wait = wait;
  r.alu_delay = rule.alu_delay;
  r.other_delay = rule.other_delay;
  r.producer_pc = pc;
  r.half = half;
  r.written = cycle;
  r.ss = c.ss;
  r.sy = c.sy;
  r.war = InFlightRead::none;  // the check before the write made sure no reader is left
}

void HazardCheck::record_read(Record& r, const Clocks& c, std::uint32_t pc, InFlightRead war) const {
  r.war = war;
  r.war_ss = c.ss;
  r.war_sy = c.sy;
  r.reader_pc = pc;
}

void HazardCheck::check(std::uint32_t pc, std::span<const std::uint16_t> active, bool converged,
                        std::span<const std::int32_t> a0) {
  const DecodedInstruction& decoded = program_[pc];
  if (!decoded.illegal.empty()) return;
  const ir3::Instruction& in = decoded.instruction;
  const ir3::Footprint& f = decoded.footprint;

  if (!converged && !was_diverged_) {
    // The fibers' clocks are about to part: whatever is still pending becomes per-fiber state.
    std::size_t kept = 0;
    for (const unsigned slot : listed_) {
      Slot& s = slots_[slot];
      if (!s.per_lane && resolved(s.uniform, base_)) {
        s = {};
        continue;
      }
      spread(slot);  // stays listed: nothing is appended to listed_ while it is walked
      listed_[kept++] = slot;
    }
    listed_.resize(kept);
  } else if (converged && listed_.size() >= kPruneAt) {
    prune(active);
  }
  was_diverged_ = !converged;

  // Every register the uses touch as its slot, fn(slot, use, regid, step, lane), in the order of
  // ir3::each_touched_register, from the touches the program listed when it was decoded; with
  // `aliases`, a merged file's other-size registers sharing the bits too. A relative use names,
  // for each fiber, the register its a0.x picks: fn runs for that fiber only (`lane` is kAllLanes
  // otherwise).
  constexpr unsigned kAllLanes = ~0u;
  auto each_register = [&](TouchRange range, std::span<const ir3::RegisterUse> uses, bool aliases, auto&& fn) {
    bool exists = false;  // the register the last alias shares its bits with is in the file
    for (const RegisterTouch& t : program_.touches(range)) {
      const ir3::RegisterUse& use = uses[t.use];
      if (t.alias) {
        if (!aliases || !merged_ || !exists) continue;
        const unsigned slot = slot_of(t.regid, t.half);
        if (slot != kNoSlot) fn(slot, use, t.use_regid, t.step, kAllLanes);
        continue;
      }
      if (t.relative) {
        for (const std::uint16_t lane : active) {
          const int base = a0[lane] + use.offset;
          if (base < 0) continue;  // the interpreter faults a negative index
          ir3::each_touched_register(in, use, aliases && merged_, [&](unsigned regid, bool half, unsigned step, unsigned use_regid) {
            const unsigned slot = slot_of(regid, half);
            if (slot == kNoSlot) return false;
            fn(slot, use, use_regid, step, lane);
            return true;
          }, static_cast<unsigned>(base));
        }
        continue;
      }
      const unsigned slot = slot_of(t.regid, t.half);
      exists = slot != kNoSlot;
      if (exists) fn(slot, use, t.use_regid, t.step, kAllLanes);
    }
  };
  // Applies fn(record, clocks) to the slot for every executing fiber, or for `lane` alone.
  auto each_record = [&](unsigned slot, unsigned lane, auto&& fn) {
    Slot& s = slots_[slot];
    if (!s.listed) return;  // a slot off the list is clear: no value pending, no reader in flight
    if (!s.per_lane) {
      if (converged) fn(s.uniform, base_);  // diverged: a shared record is never pending
      return;
    }
    if (lane != kAllLanes) return fn(lane_record(slot, lane), lane_clocks(lane));
    for (const std::uint16_t l : active) fn(lane_record(slot, l), lane_clocks(l));
  };
  auto advance = [&](auto&& change) {
    if (converged) {
      change(base_);
    } else {
      offsets_moved_ = true;
      for (const std::uint16_t lane : active) change(offsets_[lane]);
    }
  };
  // Updates the slot for every executing fiber, or for `lane` alone, with fn(record, clocks).
  auto update = [&](unsigned slot, unsigned lane, auto&& fn) {
    Slot& s = slots_[slot];
    if (!converged || lane != kAllLanes) spread(slot);
    list(slot);
    if (!s.per_lane) return fn(s.uniform, base_);
    if (lane != kAllLanes) return fn(lane_record(slot, lane), lane_clocks(lane));
    for (const std::uint16_t l : active) fn(lane_record(slot, l), lane_clocks(l));
  };

  // The waits this instruction carries happen before it reads anything.
  if (in.ss || in.sy) {
    advance([&](Clocks& c) {
      c.ss += in.ss;
      c.sy += in.sy;
    });
  }

  const std::span<const ir3::RegisterUse> reads = std::span(f.reads).first(f.read_count);
  const std::span<const ir3::RegisterUse> writes = std::span(f.writes).first(f.write_count);
  each_register(decoded.read_touches, reads, true, [&](unsigned slot, const ir3::RegisterUse& use, unsigned regid, unsigned step, unsigned lane) {
    each_record(slot, lane, [&](const Record& r, const Clocks& c) {
      check_read(r, c, pc, use, regid, use.cycle + step, f.alu_consumer);
    });
  });
  if (f.reads_constants) {
    const ir3::RegisterUse use{static_cast<std::uint16_t>(kConstantsRegid)};
    each_record(const_slot_, kAllLanes, [&](const Record& r, const Clocks& c) { check_read(r, c, pc, use, kConstantsRegid, 0, false); });
  }
  if (!f.filler) each_record(barrier_slot_, kAllLanes, [&](const Record& r, const Clocks& c) { check_barrier(r, c, pc); });
  each_register(decoded.write_touches, writes, true, [&](unsigned slot, const ir3::RegisterUse& use, unsigned regid, unsigned, unsigned lane) {
    each_record(slot, lane, [&](const Record& r, const Clocks& c) { check_write(r, c, pc, use, regid); });
  });

  // The instruction issues: its sources may stay in use, its results arrive by its class's rule.
  if (f.in_flight != InFlightRead::none) {
    each_register(decoded.read_touches, reads, false, [&](unsigned slot, const ir3::RegisterUse&, unsigned, unsigned, unsigned lane) {
      update(slot, lane, [&](Record& r, const Clocks& c) { record_read(r, c, pc, f.in_flight); });
    });
  }
  // The first instruction after a barrier is past it; a barrier leaves its waits pending.
  if (!f.filler && slots_[barrier_slot_].listed) update(barrier_slot_, kAllLanes, [](Record& r, const Clocks&) { r = {}; });
  if (f.barrier) {
    update(barrier_slot_, kAllLanes, [&](Record& r, const Clocks& c) {
      record_write(r, c, pc, Producer::barrier, ir3::rule(Producer::barrier, program_.generation()).wait, c.cycle, false);
    });
  }
  if (f.counted) advance([](Clocks& c) { ++c.cycle; });
  each_register(decoded.write_touches, writes, false, [&](unsigned slot, const ir3::RegisterUse& use, unsigned, unsigned step, unsigned lane) {
    const Wait wait = ir3::value_wait(f.producer, slot >= shared_slot_ && slot < special_slot_, program_.generation());
    update(slot, lane, [&](Record& r, const Clocks& c) {
      record_write(r, c, pc, f.producer, wait, c.cycle + use.cycle + step, use.half);
    });
  });
  if (f.constants_written != Wait::none) {
    const Producer producer = f.constants_written == Wait::sy ? Producer::global_load : Producer::local_load;
    update(const_slot_, kAllLanes, [&](Record& r, const Clocks& c) { record_write(r, c, pc, producer, f.constants_written, c.cycle, false); });
  }
  if (f.counted && f.cycles > 1) advance([&](Clocks& c) { c.cycle += f.cycles - 1u; });
}

}  // namespace adreno::virt
