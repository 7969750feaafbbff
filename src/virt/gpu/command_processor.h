// The virtual CP: interprets the PM4 that a submission's indirect buffers hold, reading only the
// bytes in GPU memory. Submitted IBs run as IB1; a CP_INDIRECT_BUFFER inside them runs as IB2,
// and deeper nesting is a CP error, as on a6xx. A packet it cannot honour is a CP error too —
// never silently skipped.
//
// Ordering (execution_model.h): the CP hands dispatches and pipeline events to the GPU and moves
// on; they complete later, dispatches in any order among themselves. Only these make later
// packets see earlier work done, as on hardware: CP_WAIT_FOR_IDLE (tu_cs_emit_wfi, which
// Turnip's compute barriers emit: tu_cmd_buffer.cc tu6_emit_flushes), a memory wait
// (CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE: work issued before it may be what it waits for), and the
// end of the submission. A cache event (CACHE_FLUSH_TS, CACHE_INVALIDATE; on a7xx CACHE_CLEAN,
// CACHE_INVALIDATE7, CACHE_FLUSH7) acts on UCHE after every dispatch issued before it, and its
// write, if it has one, lands after that (adreno_pm4.xml vgt_event_type; Turnip's and freedreno's
// barrier for a CP read of shader results is the event and then CP_WAIT_FOR_IDLE: tu6_emit_flushes,
// fd6_memory_barrier PIPE_BARRIER_INDIRECT_BUFFER), but it does not hold back dispatches issued
// after it. CP_WAIT_MEM_WRITES waits for the CP's own writes, which land at once here. Shader
// memory, and the constants and descriptors CP_LOAD_STATE6 loads from memory, go through the UCHE
// model (uche.h), which says which event does what.
//
// Generations: the CP runs one generation's stream (the model's). The compute registers it reads
// come from the register database's table for that generation (pm4 ComputeRegisters); a type-4
// write to a register the database knows only on the other generation, or a packet that exists
// only there (CP_WAIT_MEM_GTE is a6xx-only; opcode 0x46 is CP_EVENT_WRITE on a6xx and
// CP_EVENT_WRITE7 on a7xx), is a CP error: on hardware such a stream writes some other register or
// runs some other packet, and hangs or corrupts.
#pragma once

#include "virt/gpu/compute_dispatch.h"
#include "virt/gpu/execution_model.h"
#include "virt/gpu/gpu_memory.h"
#include "virt/gpu/shader_processor.h"
#include "virt/gpu/shader_program.h"
#include "pm4/a6xx_registers.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace adreno::virt {

struct IbSpan {
  std::uint64_t address;
  std::uint32_t dwords;
};

class CommandProcessor {
 public:
  /// `stop` aborts a wait in progress (ring teardown); a wait that outlives `hang_timeout` is
  /// reported as a hang. A CS code preload (CP_LOAD_STATE6 ST6_SHADER) of more than
  /// `instruction_cache_units` 128-byte units is a CP error (the model's instruction cache; 0: no
  /// limit, for tests of other packets). Shaders run as the instruction set of `generation`.
  CommandProcessor(const GpuMemory& memory, std::chrono::milliseconds hang_timeout, const std::atomic<bool>& stop,
                   std::uint32_t instruction_cache_units = 0,
                   ExecutionModel model = ExecutionModel::from_environment(),
                   ir3::Generation generation = ir3::Generation::a6xx);

  /// Runs the IBs in order; throws GpuFault on a CP error, page fault or hang. With `allowed`,
  /// every memory access of the submission (CP and shaders) must stay inside those ranges. With
  /// `page_faults`, unmapped and read-only accesses are recorded there and the submission goes
  /// on (reads see zeros, writes are dropped), as behind the drivers' default IOMMU setup; an IB
  /// fetched from a hole then reads as zeros, which the CP refuses as an illegal packet.
  void execute(std::span<const IbSpan> ibs, const AddressRanges* allowed = nullptr, PageFaults* page_faults = nullptr);

  /// Shader instructions executed so far, counted once per fiber (a performance counter).
  std::uint64_t fiber_instructions() const noexcept { return fiber_instructions_; }

  /// Register file (type-4 writes land here); registers are 18-bit offsets.
  std::uint32_t reg(std::uint32_t offset) const { return regs_.at(offset); }

 private:
  struct Packet {
    std::uint64_t address;              // GPU address of the header (for fault reports)
    std::span<const std::uint32_t> payload;
    int level;                          // 1 for IB1, 2 for IB2
  };
  using Handler = void (CommandProcessor::*)(const Packet&);

  void run_ib(std::uint64_t address, std::uint32_t dwords, int level);
  void require_payload(const Packet& packet, std::size_t dwords, const char* name) const;
  /// A register as the CP reads it: the register file, or CP_ALWAYS_ON_COUNTER at `always_on_ticks`.
  std::uint32_t read_register(std::uint32_t offset, std::uint64_t always_on_ticks) const;
  /// Polls until `satisfied`; a hang after hang_timeout, an abort on teardown.
  void wait_until(const Packet& packet, std::uint64_t address, const std::function<bool()>& satisfied);

  /// Completes the dispatches and events issued and not yet done: the dispatches in the model's
  /// order, then the events in issue order.
  void drain();
  /// What a cache event does to UCHE when it completes.
  enum class CacheAction : std::uint8_t { none, clean, invalidate };
  /// An event issued to the GPU: its cache action, then its memory write, if any.
  struct PendingEvent {
    CacheAction cache;
    bool writes;
    bool timestamp;  // the 64-bit GPU timestamp instead of `value`
    std::uint64_t target;
    std::uint32_t value;
  };
  /// Completes `event`: the cache action, then the write.
  void complete_event(const PendingEvent& event);
  /// Queues (or, without reordering, completes) an event; a write's target is checked now.
  void issue_event(const PendingEvent& event);

  void op_nop(const Packet&);
  void op_wait_for_idle(const Packet&);
  void op_indirect_buffer(const Packet&);
  void op_indirect_buffer_chain(const Packet&);
  void op_mem_write(const Packet&);
  void op_event_write(const Packet&);
  void op_event_write7(const Packet&);
  void op_wait_reg_mem(const Packet&);
  void op_wait_mem_gte(const Packet&);
  void op_reg_to_mem(const Packet&);
  void op_mem_to_mem(const Packet&);
  void op_load_state6(const Packet&);
  void op_exec_cs(const Packet&);
  void op_exec_cs_indirect(const Packet&);
  void op_run_opencl(const Packet&);

  /// A type-4 write; SP_UPDATE_CNTL invalidates the state loaded for the stages it names.
  void write_register(std::uint32_t offset, std::uint32_t value);
  /// What SP_UPDATE_CNTL CS_STATE drops: the constants, code preload, textures, samplers, UBOs.
  void drop_loaded_state();
  /// At the start of each submission: the compute state earlier submissions left is gone.
  void forget_program_state();
  std::uint64_t reg64(std::uint32_t offset) const { return regs_.at(offset) | (std::uint64_t{regs_.at(offset + 1)} << 32); }
  /// Makes `d` the dispatch the compute registers and loaded state describe; `groups` from the
  /// packet. `d` may be an earlier dispatch's: every field is set, in the storage it has.
  void compute_dispatch(const Packet& packet, std::array<std::uint32_t, 3> groups, ComputeDispatch& d);
  void dispatch(const Packet& packet, std::array<std::uint32_t, 3> groups);

  static const std::array<Handler, 128>& handlers(pm4::Gen gen);
  [[noreturn]] void refuse_opcode(const Packet& packet, std::uint32_t opcode) const;

  const GpuMemory& address_space_;
  GpuView memory_;         // the address space as the submission being executed may reach it
  GpuView shader_memory_;  // the same, through UCHE (when the model has the cache): shaders, state loads
  ExecutionModel model_;
  HazardWarnings hazard_warnings_;
  std::mt19937_64 order_rng_;
  Uche uche_;
  // Issued to the GPU, not yet complete: the first pending_count_ dispatches. The objects (and
  // the storage of their vectors) are reused for later dispatches, so that a stream like the
  // earlier ones allocates nothing.
  std::vector<ComputeDispatch> pending_dispatches_;
  std::size_t pending_count_ = 0;
  std::vector<PendingEvent> pending_events_;
  // drain()'s: the events it completes and the order it runs the dispatches in.
  std::vector<PendingEvent> draining_events_;
  std::vector<std::size_t> order_;
  std::chrono::milliseconds hang_timeout_;
  std::uint32_t instruction_cache_units_;
  const std::atomic<bool>& stop_;
  pm4::Gen gen_;
  const pm4::a6xx::ComputeRegisters& compute_;  // the compute registers of gen_
  const std::array<Handler, 128>& handlers_;
  std::vector<std::uint32_t> regs_;
  std::vector<std::uint8_t> foreign_;  // per offset: 1 when the database knows it only on the other generation
  std::optional<IbSpan> chain_;  // set by CP_INDIRECT_BUFFER_CHAIN: where the current IB continues

  // Compute state loaded with CP_LOAD_STATE6 (the SP/HLSQ state caches), until SP_UPDATE_CNTL
  // invalidates it.
  struct LoadedState {
    std::vector<std::uint32_t> constants;       // kConstantVec4s vec4s
    std::vector<std::uint8_t> constant_loaded;  // per vec4
    std::optional<std::uint64_t> shader_source;  // where ST6_SHADER preloaded CS code from
    std::vector<std::vector<std::uint32_t>> uav, texture, sampler, ubo;  // descriptors per slot
    std::size_t ubo_end = 0;  // the UBO slots from here on are empty
  };
  LoadedState cs_;
  ShaderProgramCache programs_;
  ShaderProcessor shader_processor_;
  // Reused buffers: the words of the IB at each level, CP_LOAD_STATE6's data, a dispatch's program.
  std::array<std::vector<std::uint32_t>, 3> ib_words_;
  std::vector<std::uint32_t> state_data_;
  std::vector<std::uint64_t> program_words_;
  std::uint64_t fiber_instructions_ = 0;
};

}  // namespace adreno::virt
