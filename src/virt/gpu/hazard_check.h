// The timing-hazard check of one wave: per register, when its value becomes readable for each
// fiber (after N counted cycles for ALU results, after a (ss)/(sy) for the asynchronous classes)
// and which in-flight instruction may still read it. The rules are ir3/scheduling.h's table.
//
// Exact per fiber, also in divergent code: every fiber has its own delay clock and (ss)/(sy)
// counts (a shared base plus a per-fiber offset that only moves while the wave is diverged).
// While the wave is converged a register's state is one record compared against the base
// clocks; when the wave diverges, every record still pending is spread into one record per fiber.
//
// The virtual GPU is deliberately stricter than hardware here (ARCHITECTURE.md rule 4): on an
// Adreno such code reads stale registers without any report.
#pragma once

#include "ir3/scheduling.h"
#include "virt/gpu/hazard_mode.h"
#include "virt/gpu/shader_program.h"

#include <cstdint>
#include <span>
#include <vector>

namespace adreno::virt {

class HazardCheck {
 public:
  /// `full_regids`/`half_regids` are the per-fiber register files (half unused when merged).
  /// Waves that start at `entry` (SP_CS_PROGRAM_COUNTER_OFFSET / 8) of a program proved free of
  /// hazards from its first instruction (ShaderProgram::hazard_free) are not checked, unless the
  /// mode is exhaustive.
  /// Mode warn logs a hazard the first time `warnings` sees it (every time without one). With
  /// `recycled`, the check of a wave of an earlier dispatch, it takes that one's storage.
  HazardCheck(const ShaderProgram& program, HazardMode mode, HazardWarnings* warnings, unsigned stride, unsigned lanes,
              unsigned full_regids, unsigned half_regids, bool merged, std::uint32_t entry, HazardCheck* recycled = nullptr);
  HazardCheck(HazardCheck&&) = default;

  /// Forgets every register's state: the wave starts over.
  void reset();

  /// Called before `pc` executes for `active` lanes (`converged`: they are all the live lanes).
  /// Throws GpuFault(shader_error) on a hazard in mode on or exhaustive, logs it once in mode warn.
  /// `a0` holds each lane's a0.x, for the registers r<a0.x + N> reads and writes.
  void issue(std::uint32_t pc, std::span<const std::uint16_t> active, bool converged, std::span<const std::int32_t> a0) {
    if (checked_) check(pc, active, converged, a0);
  }

 private:
  struct Clocks {
    std::uint32_t cycle = 0, ss = 0, sy = 0;
  };
  struct Record {
    std::uint32_t written = 0;     ///< the delay clock when the value was written (delay producers)
    std::uint32_t ss = 0, sy = 0;  ///< the (ss)/(sy) counts then: a later wait releases the value
    std::uint32_t war_ss = 0, war_sy = 0;
    std::uint32_t producer_pc = 0, reader_pc = 0;
    ir3::Producer producer = ir3::Producer::none;
    // The producer's row of the rules table, kept here so a read needs no lookup.
    ir3::Wait wait = ir3::Wait::none;
    std::uint8_t alu_delay = 0, other_delay = 0;
    ir3::InFlightRead war = ir3::InFlightRead::none;
    bool half = false;
  };
  struct Slot {
    Record uniform;
    bool per_lane = false;
    bool listed = false;
  };

  void check(std::uint32_t pc, std::span<const std::uint16_t> active, bool converged, std::span<const std::int32_t> a0);
  unsigned slot_of(unsigned regid, bool half) const;
  Clocks lane_clocks(unsigned lane) const;
  Record absolute(const Record& record, unsigned lane) const;
  Record& lane_record(unsigned slot, unsigned lane) { return lane_records_[std::size_t{slot} * stride_ + lane]; }
  void spread(unsigned slot);
  void list(unsigned slot);
  void prune(std::span<const std::uint16_t> live);
  bool resolved(const Record& record, const Clocks& clocks) const;
  static ir3::Wait pending_syncs(const Record& record, const Clocks& clocks);
  void report(const ir3::Hazard& hazard);

  // The rules applied to one record for one fiber (or all, converged).
  void check_read(const Record& r, const Clocks& c, std::uint32_t pc, const ir3::RegisterUse& use, unsigned regid,
                  std::uint32_t read_cycle, bool alu_consumer);
  void check_write(const Record& r, const Clocks& c, std::uint32_t pc, const ir3::RegisterUse& use, unsigned regid);
  void check_barrier(const Record& r, const Clocks& c, std::uint32_t pc);
  void record_write(Record& r, const Clocks& c, std::uint32_t pc, ir3::Producer producer, ir3::Wait wait,
                    std::uint32_t cycle, bool half) const;
  void record_read(Record& r, const Clocks& c, std::uint32_t pc, ir3::InFlightRead war) const;

  const ShaderProgram& program_;
  HazardMode mode_;
  bool checked_;  // exhaustive, or on or warn and the program not proved free of hazards
  HazardWarnings* warnings_;
  unsigned stride_, lane_count_, full_regids_, half_regids_;
  bool merged_;
  unsigned shared_slot_, special_slot_, const_slot_, barrier_slot_;
  std::vector<Slot> slots_;
  std::vector<Record> lane_records_;  // per-fiber records, allocated at the first divergence
  std::vector<Clocks> offsets_;    // per fiber, added to base_
  Clocks base_;
  std::vector<unsigned> listed_;   // slots that may still be pending; every other slot is clear
  bool was_diverged_ = false;
  bool offsets_moved_ = false;  // offsets_ are not all zero
};

}  // namespace adreno::virt
