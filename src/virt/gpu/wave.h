// One wave of a work group on the virtual shader processor: 64 or 128 fibers that share a
// program counter until a branch splits them. Registers are stored per component across lanes
// (structure of arrays), sized by the dispatch's declared footprint; an access outside it is a
// shader error here, where hardware would silently corrupt another wave or hang.
//
// Divergence: each lane has its own program counter; the wave executes the lowest counter among
// its live lanes, with the lanes that are there. Lanes therefore rejoin at the first instruction
// they share, which is where the compiler puts (jp); for programs without data races between
// lanes of a wave this is indistinguishable from the hardware's branch stack.
#pragma once

#include "virt/gpu/compute_dispatch.h"
#include "virt/gpu/hazard_check.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace adreno::virt {

/// A dispatch's preamble (shps … shpe; Mesa ir3.c ir3_create_empty_preamble): the first wave to
/// reach shps runs it, once per dispatch, and it alone may write the constant file (stc, ldc.k);
/// every other wave's shps branches past it. The virtual GPU runs the first work group on its
/// own before the others, so the preamble is done before any other wave reads its constants.
struct Preamble {
  std::vector<std::uint32_t>& constants;    ///< the dispatch's constant file (CONSTLEN vec4s)
  std::vector<std::uint8_t>& constant_loaded;
  bool claimed = false;  ///< a wave passed shps
  bool done = false;     ///< that wave reached shpe
};

/// State shared by the waves of one work group.
struct WorkGroup {
  std::array<std::uint32_t, 3> id{};
  std::vector<std::uint8_t> local_memory;
  /// A wave stored to local memory since it was last zeroed: the next group must clear it (a
  /// group of a program without local stores leaves nothing to clear).
  bool local_written = false;
  Preamble* preamble = nullptr;  ///< when the program has one
  bool runs_alone = false;       ///< the first work group, run before the others start
};

class Wave {
 public:
  enum class Stop { ended, barrier };

  /// Wave `index` of each work group of `dispatch`, of `lanes` fibers: its registers and
  /// bookkeeping, reused for every work group a host thread runs (start() begins one).
  /// With `recycled`, a wave of an earlier dispatch, it takes that wave's storage (leaving it
  /// empty), so that a host thread's waves allocate only when a dispatch needs more than the
  /// earlier ones did.
  Wave(const ComputeDispatch& dispatch, unsigned index, unsigned lanes, Wave* recycled = nullptr);
  Wave(Wave&&) = default;

  /// Begins the wave in `group`, its lanes the fibers [first_fiber, first_fiber + lanes): every
  /// register zero but the system values, every lane live at the first instruction.
  void start(WorkGroup& group, unsigned first_fiber);

  /// Runs until every lane ended or the wave reached a barrier. Throws GpuFault.
  Stop run();

  /// Instructions executed since start(), counted once per lane (the benchmark's thread-instructions).
  std::uint64_t fiber_instructions() const noexcept { return fiber_instructions_; }

 private:
  /// One value per executing lane, indexed by position in active_.
  using Lanes = std::array<std::uint32_t, 128>;
  void execute(const DecodedInstruction& decoded, std::uint32_t pc);
  [[noreturn]] void fail(std::uint32_t pc, const std::string& what) const;

  // Register access. regid = 4 * register + component.
  std::uint32_t read_full(unsigned regid, unsigned lane) const;
  std::uint32_t read_half(unsigned regid, unsigned lane) const;
  void write_full(unsigned regid, unsigned lane, std::uint32_t value);
  void write_half(unsigned regid, unsigned lane, std::uint32_t value);
  std::uint32_t read_const(int regid) const;
  int relative(const ir3::Operand& operand, unsigned lane, unsigned rpt) const;
  /// Raw bits of a source: 32 bits, or 16 for a half operand.
  std::uint32_t read(const ir3::Operand& operand, unsigned lane, unsigned rpt) const;
  void write(const ir3::Operand& operand, unsigned lane, unsigned rpt, std::uint32_t value);
  /// Operand values of every executing lane, read or written in one pass. gather returns the
  /// values: the register's own row when every lane executes (dense_) and the operand is a full
  /// register, else `out`, filled.
  const std::uint32_t* gather(const ir3::Operand& operand, unsigned rpt, Lanes& out) const;
  void scatter(const ir3::Operand& operand, unsigned rpt, const std::uint32_t* values);
  void check_full_range(unsigned regid, unsigned count) const;
  void check_half_range(unsigned regid, unsigned count) const;

  // Instruction groups.
  void branch(const ir3::Instruction& in, std::uint32_t pc);
  void alu2(const ir3::Instruction& in);
  void alu3(const ir3::Instruction& in);
  void sfu(const ir3::Instruction& in);
  void move(const ir3::Instruction& in);
  void memory(const ir3::Instruction& in);
  /// The register rows of `components` 32-bit values from `data`, or null when they are not
  /// general full registers (half, shared or special ones take the per-register path).
  std::uint32_t* data_rows(const ir3::Operand& data, ir3::Type type, unsigned components);
  /// The host (or cached) bytes of one lane's access of `length` bytes through `memo` — one
  /// translation for the lanes that stay in its buffer and cache line — or null when the access
  /// must take GpuView::read/write, which reports faults and splits it across mappings or lines.
  std::byte* lane_bytes(std::uint64_t address, std::size_t length, bool write, TranslationMemo& memo) const;
  void global_access(const ir3::Instruction& in);
  void local_access(const ir3::Instruction& in);
  void atomic(const ir3::Instruction& in);
  void image_access(const ir3::Instruction& in);
  void texture_fetch(const ir3::Instruction& in);
  void uniform_load(const ir3::Instruction& in);
  void constant_store(const ir3::Instruction& in);
  void preamble_flow(const ir3::Instruction& in, std::uint32_t pc, std::uint32_t target);
  const UniformBuffer& uniform_buffer(std::uint32_t slot) const;
  std::uint32_t uniform_dword(const UniformBuffer& ubo, std::uint64_t dword) const;
  void write_constant(std::uint64_t dword, std::uint32_t value);
  const ImageDescriptor& image(const std::vector<BoundImage>& slots, std::uint32_t slot, const char* kind) const;
  /// One 64-bit address per executing lane, indexed by position in active_.
  using LaneAddresses = std::array<std::uint64_t, 128>;
  /// The global addresses in the register pair `base` of every executing lane: `out`, filled.
  const std::uint64_t* global_addresses(const ir3::Operand& base, LaneAddresses& out) const;

  const ComputeDispatch& dispatch_;
  WorkGroup* group_ = nullptr;
  const ShaderProgram& program_;
  unsigned index_;
  unsigned lanes_;
  unsigned stride_;  // lanes per register component in the arrays below (the wave size)
  unsigned full_regids_;
  unsigned half_regids_;

  std::vector<std::uint32_t> full_;
  std::vector<std::uint16_t> half_;
  std::array<std::uint32_t, 32> shared_full_{};
  std::array<std::uint16_t, 32> shared_half_{};
  std::vector<std::int32_t> a0_, a1_;
  std::vector<std::uint8_t> p0_;  // per component across lanes, as the registers
  std::vector<std::uint8_t> private_;  // private_bytes per lane

  std::vector<std::uint32_t> pc_;    // per lane, meaningful while diverged
  std::vector<std::uint8_t> live_;   // lane has not ended
  std::vector<std::uint16_t> active_;  // lanes executing the current instruction
  std::vector<std::uint32_t> next_pc_;  // where each active lane goes after it (indexed by lane)
  std::uint32_t uniform_pc_ = 0;
  bool diverged_ = false;
  bool active_is_live_ = false;  // active_ lists exactly the live lanes
  bool dense_ = false;  // active_ is every lane of the wave: lane i is at position i
  bool at_barrier_ = false;
  bool in_preamble_ = false;  // this wave passed shps and has not reached shpe
  std::uint64_t fiber_instructions_ = 0;
  std::uint32_t since_watchdog_ = 0;  // instructions since the hang detector last looked
  std::uint32_t pc_now_ = 0;
  /// The translations of the global loads and stores, by instruction (pc modulo their number):
  /// kept for this wave's dispatch, across its work groups, so that an instruction's accesses
  /// find their buffer and cache block without a page-table walk while they stay inside them.
  std::array<TranslationMemo, 4> global_memos_;
  HazardCheck hazards_;
};

}  // namespace adreno::virt
