#include "virt/gpu/command_processor.h"

#include "pm4/a6xx_descriptors.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"
#include "pm4/register_database.h"
#include "virt/gpu/shader_processor.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <thread>

namespace adreno::virt {
namespace {

using pm4::EventType;
using pm4::Opcode;
namespace field = pm4::packet_field;

constexpr const pm4::Field& kSignedCompare = field::kWaitRegMem0.field("SIGNED_COMPARE");
constexpr const pm4::Field& kNgroupsX = pm4::payload_entry(Opcode::CP_EXEC_CS, "1").field("NGROUPS_X");
constexpr const pm4::Field& kNgroupsY = pm4::payload_entry(Opcode::CP_EXEC_CS, "2").field("NGROUPS_Y");
constexpr const pm4::Field& kNgroupsZ = pm4::payload_entry(Opcode::CP_EXEC_CS, "3").field("NGROUPS_Z");

// The a6xx constant file holds 1024 vec4s on the CS side (SP_CS_CONST_CONFIG CONSTLEN is 8 bits
// of vec4 quads, so a program can name up to 1020).
constexpr std::uint32_t kConstantVec4s = 1024;
// Descriptor slots: as many as SP_CS_CONFIG NUAV / NTEX / NSAMP can declare.
constexpr auto slots_of(std::string_view field) {
  return static_cast<std::uint32_t>(pm4::a6xx::SP_CS_CONFIG.field(field).max_value() + 1);
}
constexpr std::uint32_t kUavSlots = slots_of("NUAV"), kTextureSlots = slots_of("NTEX"), kSamplerSlots = slots_of("NSAMP");
// UBO slots: as many as ldc's 8-bit descriptor operand names (Mesa ir3-cat6.xml #cat6-ldc-common).
constexpr std::uint32_t kUboSlots = 256;

// a6xx runs the ringbuffer, IB1 and IB2; a third level does not exist before a7xx.
constexpr int kMaxIbLevel = 2;

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::uint64_t address_at(std::span<const std::uint32_t> payload, std::size_t index) {
  return payload[index] | (std::uint64_t{payload[index + 1]} << 32);
}

}  // namespace

CommandProcessor::CommandProcessor(const GpuMemory& memory, std::chrono::milliseconds hang_timeout,
                                   const std::atomic<bool>& stop, std::uint32_t instruction_cache_units,
                                   ExecutionModel model, ir3::Generation generation)
    : address_space_(memory),
      memory_(memory),
      shader_memory_(memory),
      model_(model),
      order_rng_(model.seed),
      hang_timeout_(hang_timeout),
      instruction_cache_units_(instruction_cache_units),
      stop_(stop),
      gen_(generation == ir3::Generation::a7xx ? pm4::kA7xx : pm4::kA6xx),
      compute_(pm4::a6xx::compute_registers(gen_)),
      handlers_(handlers(gen_)),
      regs_(pm4::kMaxRegister + 1, 0),
      foreign_(pm4::kMaxRegister + 1, 0),
      programs_(generation) {
  // Offsets an entry of the other generation covers and none of this one's does.
  for (bool own : {false, true})
    for (const pm4::Register* reg : pm4::all_registers()) {
      if (((reg->gens & gen_) != 0) != own) continue;
      for (unsigned i = 0; i < reg->array_length; ++i)
        for (unsigned d = 0; d < reg->dwords; ++d) foreign_.at(reg->offset_of(i) + d) = own ? 0 : 1;
    }
  cs_.constants.assign(kConstantVec4s * 4, 0);
  cs_.constant_loaded.assign(kConstantVec4s, 0);
  cs_.uav.resize(kUavSlots);
  cs_.texture.resize(kTextureSlots);
  cs_.sampler.resize(kSamplerSlots);
  cs_.ubo.resize(kUboSlots);
}

const std::array<CommandProcessor::Handler, 128>& CommandProcessor::handlers(pm4::Gen gen) {
  static const auto make = [](pm4::Gen for_gen) {
    std::array<Handler, 128> t{};
    auto set = [&](Opcode opcode, Handler handler) { t[static_cast<std::size_t>(opcode)] = handler; };
    set(Opcode::CP_NOP, &CommandProcessor::op_nop);
    set(Opcode::CP_WAIT_FOR_IDLE, &CommandProcessor::op_wait_for_idle);
    // The CP's own writes land before its next packet here, so these have nothing to wait for;
    // markers change nothing a compute stream sees.
    set(Opcode::CP_WAIT_FOR_ME, &CommandProcessor::op_nop);
    set(Opcode::CP_WAIT_MEM_WRITES, &CommandProcessor::op_nop);
    set(Opcode::CP_SET_MARKER, &CommandProcessor::op_nop);
    set(Opcode::CP_INDIRECT_BUFFER, &CommandProcessor::op_indirect_buffer);
    set(Opcode::CP_INDIRECT_BUFFER_CHAIN, &CommandProcessor::op_indirect_buffer_chain);
    set(Opcode::CP_MEM_WRITE, &CommandProcessor::op_mem_write);
    set(Opcode::CP_WAIT_REG_MEM, &CommandProcessor::op_wait_reg_mem);
    if (for_gen == pm4::kA7xx) {
      set(Opcode::CP_EVENT_WRITE7, &CommandProcessor::op_event_write7);
    } else {
      set(Opcode::CP_EVENT_WRITE, &CommandProcessor::op_event_write);
      set(Opcode::CP_WAIT_MEM_GTE, &CommandProcessor::op_wait_mem_gte);
    }
    set(Opcode::CP_REG_TO_MEM, &CommandProcessor::op_reg_to_mem);
    set(Opcode::CP_MEM_TO_MEM, &CommandProcessor::op_mem_to_mem);
    set(Opcode::CP_LOAD_STATE6, &CommandProcessor::op_load_state6);
    set(Opcode::CP_LOAD_STATE6_FRAG, &CommandProcessor::op_load_state6);
    set(Opcode::CP_LOAD_STATE6_GEOM, &CommandProcessor::op_load_state6);
    set(Opcode::CP_EXEC_CS, &CommandProcessor::op_exec_cs);
    set(Opcode::CP_EXEC_CS_INDIRECT, &CommandProcessor::op_exec_cs_indirect);
    set(Opcode::CP_RUN_OPENCL, &CommandProcessor::op_run_opencl);
    return t;
  };
  static const std::array<Handler, 128> a6xx_table = make(pm4::kA6xx);
  static const std::array<Handler, 128> a7xx_table = make(pm4::kA7xx);
  return gen == pm4::kA7xx ? a7xx_table : a6xx_table;
}

void CommandProcessor::refuse_opcode(const Packet& packet, std::uint32_t opcode) const {
  const pm4::Gen other = gen_ == pm4::kA7xx ? pm4::kA6xx : pm4::kA7xx;
  const char* here = gen_ == pm4::kA7xx ? "a7xx" : "a6xx";
  if (const pm4::EnumValue* known = pm4::enums::kOpcode.find(opcode, other);
      known != nullptr && pm4::enums::kOpcode.find(opcode, gen_) == nullptr)
    throw GpuFault(FaultKind::cp_error, packet.address,
                   std::string(known->name) + " (" + hex(opcode) + ") is not a packet of this " + here + " GPU");
  throw GpuFault(FaultKind::cp_error, packet.address, "unsupported opcode " + hex(opcode));
}

void CommandProcessor::execute(std::span<const IbSpan> ibs, const AddressRanges* allowed, PageFaults* page_faults) {
  memory_ = GpuView(address_space_, allowed, nullptr, page_faults);
  shader_memory_ = GpuView(address_space_, allowed, model_.cache ? &uche_ : nullptr, page_faults);
  forget_program_state();
  try {
    for (const IbSpan& ib : ibs) run_ib(ib.address, ib.dwords, 1);
    // The drivers retire a submission with a UCHE clean of their own that writes the fence:
    // CACHE_FLUSH_TS on a6xx (KGSL adreno_a6xx_ringbuffer.c, msm a6xx_submit), CACHE_CLEAN with
    // WRITE_ENABLED on a7xx (KGSL adreno_gen7_ringbuffer.c, msm a7xx_submit): the work is done
    // and UCHE clean. Lines stay valid, possibly stale, for the next submission.
    drain();
    uche_.clean();
  } catch (...) {
    pending_count_ = 0;
    pending_events_.clear();
    uche_.discard();
    throw;
  }
}

void CommandProcessor::drain() {
  // Nothing is issued while these run: the dispatches stay where they are, the events move aside.
  const std::size_t count = std::exchange(pending_count_, 0);
  draining_events_.clear();
  std::swap(draining_events_, pending_events_);
  // Any order but the issued one when there is a choice, so that a missing barrier always shows.
  order_.resize(count);
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  std::shuffle(order_.begin(), order_.end(), order_rng_);
  if (order_.size() > 1 && std::is_sorted(order_.begin(), order_.end())) std::reverse(order_.begin(), order_.end());
  for (std::size_t i : order_) fiber_instructions_ += shader_processor_.run(pending_dispatches_[i]);
  for (const PendingEvent& event : draining_events_) complete_event(event);
}

void CommandProcessor::complete_event(const PendingEvent& event) {
  switch (event.cache) {
    case CacheAction::none:
      break;
    case CacheAction::clean:
      uche_.clean();
      break;
    case CacheAction::invalidate:
      uche_.invalidate();
      break;
  }
  if (!event.writes) return;
  if (event.timestamp) {
    memory_.write64(event.target, model_.always_on->read());
  } else {
    memory_.write32(event.target, event.value);
  }
}

void CommandProcessor::issue_event(const PendingEvent& event) {
  // Checked now, so that a bad target is reported at this packet rather than at the drain.
  if (event.writes) memory_.translate(event.target, event.timestamp ? 8 : 4, true);
  if (model_.reorder) {
    pending_events_.push_back(event);
  } else {
    complete_event(event);
  }
}

void CommandProcessor::run_ib(std::uint64_t address, std::uint32_t dwords, int level) {
  std::vector<std::uint32_t>& words = ib_words_.at(static_cast<std::size_t>(level));
  for (;;) {
    words.resize(dwords);
    memory_.read(address, words.data(), words.size() * sizeof(std::uint32_t));
    chain_.reset();
    std::size_t pos = 0;
    while (pos < words.size()) {
      const std::uint64_t packet_address = address + pos * 4;
      auto header = pm4::decode_header(words[pos]);
      if (!header) throw GpuFault(FaultKind::cp_error, packet_address, "illegal packet header " + hex(words[pos]));
      if (pos + 1 + header->count > words.size()) {
        throw GpuFault(FaultKind::cp_error, packet_address, "packet runs past the end of its IB");
      }
      std::span<const std::uint32_t> payload(words.data() + pos + 1, header->count);
      if (header->type == pm4::Header::Type::type4) {
        for (std::uint32_t i = 0; i < header->count; ++i) {
          const std::uint32_t offset = header->reg_or_opcode + i;
          if (foreign_[offset] != 0) [[unlikely]] {
            const auto hit = pm4::find_register(offset, gen_ == pm4::kA7xx ? pm4::kA6xx : pm4::kA7xx);
            throw GpuFault(FaultKind::cp_error, packet_address,
                           "register " + (hit ? pm4::register_name(*hit) : hex(offset)) + " (" + hex(offset) +
                               ") does not exist on this " + (gen_ == pm4::kA7xx ? "a7xx" : "a6xx") + " GPU");
          }
          write_register(offset, payload[i]);
        }
      } else {
        Handler handler = handlers_[header->reg_or_opcode];
        if (handler == nullptr) refuse_opcode(Packet{packet_address, payload, level}, header->reg_or_opcode);
        (this->*handler)(Packet{packet_address, payload, level});
      }
      pos += 1 + header->count;
      if (chain_ && pos != words.size()) {
        throw GpuFault(FaultKind::cp_error, packet_address, "CP_INDIRECT_BUFFER_CHAIN is not the last packet of its IB");
      }
    }
    if (!chain_) return;
    address = chain_->address;
    dwords = chain_->dwords;
  }
}

void CommandProcessor::require_payload(const Packet& packet, std::size_t dwords, const char* name) const {
  if (packet.payload.size() < dwords) {
    throw GpuFault(FaultKind::cp_error, packet.address,
                   std::string(name) + " needs " + std::to_string(dwords) + " payload dwords, has " +
                       std::to_string(packet.payload.size()));
  }
}

std::uint32_t CommandProcessor::read_register(std::uint32_t offset, std::uint64_t always_on_ticks) const {
  const std::uint32_t always_on = pm4::a6xx::CP_ALWAYS_ON_COUNTER.offset;
  if (offset == always_on) return static_cast<std::uint32_t>(always_on_ticks);
  if (offset == always_on + 1) return static_cast<std::uint32_t>(always_on_ticks >> 32);
  return regs_.at(offset);
}

void CommandProcessor::op_nop(const Packet&) {}

void CommandProcessor::op_wait_for_idle(const Packet&) { drain(); }

void CommandProcessor::op_indirect_buffer(const Packet& packet) {
  require_payload(packet, 3, "CP_INDIRECT_BUFFER");
  if (packet.level >= kMaxIbLevel) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_INDIRECT_BUFFER nested deeper than IB2");
  }
  run_ib(address_at(packet.payload, 0), static_cast<std::uint32_t>(field::kIbSize.extract(packet.payload[2])),
         packet.level + 1);
}

void CommandProcessor::op_indirect_buffer_chain(const Packet& packet) {
  require_payload(packet, 3, "CP_INDIRECT_BUFFER_CHAIN");
  chain_ = IbSpan{address_at(packet.payload, 0), static_cast<std::uint32_t>(field::kIbSize.extract(packet.payload[2]))};
}

void CommandProcessor::op_mem_write(const Packet& packet) {
  require_payload(packet, 2, "CP_MEM_WRITE");
  auto data = packet.payload.subspan(2);
  memory_.write(address_at(packet.payload, 0), data.data(), data.size_bytes());
}

void CommandProcessor::op_event_write(const Packet& packet) {
  require_payload(packet, 1, "CP_EVENT_WRITE");
  const auto event = static_cast<EventType>(field::kEvent.extract(packet.payload[0]));
  switch (event) {
    case EventType::CACHE_INVALIDATE:
      issue_event({CacheAction::invalidate, false, false, 0, 0});
      return;
    case EventType::DEBUG_LABEL:
      return;  // rolls the register context (Mesa's instrlen workaround); one context is modelled
    case EventType::CACHE_FLUSH_TS:
      // a6xx's UCHE clean (FD_CACHE_CLEAN in freedreno_gpu_event.h's a6xx table) and the
      // drivers' a6xx fence (KGSL adreno_a6xx_ringbuffer.c, msm a6xx_submit).
      require_payload(packet, 4, "CP_EVENT_WRITE(CACHE_FLUSH_TS)");
      issue_event({CacheAction::clean, true, field::kEventTimestamp.extract(packet.payload[0]) != 0,
                   address_at(packet.payload, 1), packet.payload[3]});
      return;
    default:
      throw GpuFault(FaultKind::cp_error, packet.address,
                     "CP_EVENT_WRITE event " + hex(static_cast<unsigned>(event)) + " is not modelled");
  }
}

void CommandProcessor::op_event_write7(const Packet& packet) {
  // adreno_pm4.xml CP_EVENT_WRITE7 (A7XX-): the event in dword 0 and, with WRITE_ENABLED, a
  // write of WRITE_SRC to WRITE_DST (EV_DST_RAM: the address in dwords 1-2, the payload from 3).
  require_payload(packet, 1, "CP_EVENT_WRITE7");
  const std::uint32_t d0 = packet.payload[0];
  const auto event = static_cast<EventType>(field::kEvent7.extract(d0));
  const bool writes = field::kEvent7WriteEnabled.extract(d0) != 0;
  auto cp_error = [&](const std::string& what) { throw GpuFault(FaultKind::cp_error, packet.address, "CP_EVENT_WRITE7: " + what); };
  // What each event does to UCHE: a7xx renamed the events (freedreno_gpu_event.h: CLEAN writes
  // dirty lines back, INVALIDATE drops lines, FLUSH does both; FD_CACHE_CLEAN is CACHE_CLEAN and
  // FD_CACHE_INVALIDATE is CACHE_INVALIDATE7 in its a7xx table). Uche::invalidate writes dirty
  // lines back before dropping them, which is CACHE_FLUSH7 too. CACHE_FLUSH_TS is documented to
  // flush UCHE on every generation (adreno_pm4.xml). RB_DONE_TS waits for RB access and its
  // flushes only (adreno_pm4.xml), not for UCHE: computerator's a7xx cache_flush follows it with
  // CACHE_FLUSH7.
  CacheAction cache = CacheAction::none;
  switch (event) {
    case EventType::DEBUG_LABEL:
      // Rolls the register context (Mesa's instrlen workaround); one context is modelled. With a
      // write it is refused below.
      if (!writes) return;
      break;
    case EventType::CACHE_INVALIDATE7:
    case EventType::CACHE_FLUSH7:
      cache = CacheAction::invalidate;
      break;
    case EventType::CACHE_CLEAN:
    case EventType::CACHE_FLUSH_TS:
      cache = CacheAction::clean;
      break;
    case EventType::RB_DONE_TS:
      break;
    default:
      cp_error("event " + hex(static_cast<unsigned>(event)) + " is not modelled");
  }
  // The events that write: the timestamp events, which need WRITE_ENABLED ("RB_DONE_TS requires
  // WRITE_ENABLED", adreno_pm4.xml), and CACHE_CLEAN, with which both drivers write their a7xx
  // fence (KGSL adreno_gen7_ringbuffer.c gen7_ringbuffer_addcmds, msm a6xx_gpu.c a7xx_submit).
  const bool timestamp_event = event == EventType::CACHE_FLUSH_TS || event == EventType::RB_DONE_TS;
  if (writes && !timestamp_event && event != EventType::CACHE_CLEAN)
    cp_error("a memory write with event " + hex(static_cast<unsigned>(event)) + " is not modelled");
  if (!writes) {
    if (timestamp_event) cp_error("a timestamp event without WRITE_ENABLED is not modelled");
    issue_event({cache, false, false, 0, 0});
    return;
  }
  if (static_cast<pm4::EventWriteDst>(field::kEvent7WriteDst.extract(d0)) != pm4::EventWriteDst::EV_DST_RAM)
    cp_error("only EV_DST_RAM writes are modelled");
  const auto source = static_cast<pm4::EventWriteSrc>(field::kEvent7WriteSrc.extract(d0));
  if (source != pm4::EventWriteSrc::EV_WRITE_USER_32B && source != pm4::EventWriteSrc::EV_WRITE_ALWAYSON)
    cp_error("write source " + hex(static_cast<unsigned>(source)) + " is not modelled");
  const bool timestamp = source == pm4::EventWriteSrc::EV_WRITE_ALWAYSON;
  require_payload(packet, timestamp ? 3 : 4, "CP_EVENT_WRITE7 with a write");
  issue_event({cache, true, timestamp, address_at(packet.payload, 1), timestamp ? 0 : packet.payload[3]});
}

void CommandProcessor::wait_until(const Packet& packet, std::uint64_t address, const std::function<bool()>& satisfied) {
  const auto deadline = std::chrono::steady_clock::now() + hang_timeout_;
  while (!satisfied()) {
    if (stop_.load(std::memory_order_relaxed)) {
      throw GpuFault(FaultKind::hang, packet.address, "wait aborted by teardown");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw GpuFault(FaultKind::hang, packet.address, "wait on " + hex(address) + " never satisfied");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void CommandProcessor::op_wait_reg_mem(const Packet& packet) {
  require_payload(packet, 6, "CP_WAIT_REG_MEM");
  const auto function = static_cast<pm4::CondFunction>(field::kFunction.extract(packet.payload[0]));
  const bool is_signed = kSignedCompare.extract(packet.payload[0]);
  if (static_cast<pm4::PollType>(field::kPoll.extract(packet.payload[0])) != pm4::PollType::POLL_MEMORY) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_WAIT_REG_MEM only polls memory here (POLL_MEMORY)");
  }
  const std::uint64_t address = address_at(packet.payload, 1);
  const std::uint32_t mask = packet.payload[4];
  const std::uint32_t reference = packet.payload[3] & mask;
  auto compare = [&](auto a, auto b) {
    switch (function) {
      case pm4::CondFunction::WRITE_ALWAYS: return true;
      case pm4::CondFunction::WRITE_LT: return a < b;
      case pm4::CondFunction::WRITE_LE: return a <= b;
      case pm4::CondFunction::WRITE_EQ: return a == b;
      case pm4::CondFunction::WRITE_NE: return a != b;
      case pm4::CondFunction::WRITE_GE: return a >= b;
      case pm4::CondFunction::WRITE_GT: return a > b;
    }
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_WAIT_REG_MEM function 7 is undefined");
  };
  drain();  // what the wait waits for may be work issued before it
  wait_until(packet, address, [&] {
    const std::uint32_t value = memory_.read32(address) & mask;
    return is_signed ? compare(static_cast<std::int32_t>(value), static_cast<std::int32_t>(reference))
                     : compare(value, reference);
  });
}

void CommandProcessor::op_wait_mem_gte(const Packet& packet) {
  // Payload: a reserved dword, the 64-bit address, the reference (adreno_pm4.xml CP_WAIT_MEM_GTE).
  require_payload(packet, 4, "CP_WAIT_MEM_GTE");
  const std::uint64_t address = address_at(packet.payload, 1);
  const auto reference = static_cast<std::int32_t>(packet.payload[3]);
  drain();  // what the wait waits for may be work issued before it
  wait_until(packet, address, [&] { return static_cast<std::int32_t>(memory_.read32(address)) >= reference; });
}

void CommandProcessor::op_reg_to_mem(const Packet& packet) {
  require_payload(packet, 3, "CP_REG_TO_MEM");
  const auto first = static_cast<std::uint32_t>(field::kRegToMemReg.extract(packet.payload[0]));
  const auto count = static_cast<std::uint32_t>(field::kRegToMemCnt.extract(packet.payload[0]));
  if (field::kRegToMemAccumulate.extract(packet.payload[0])) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_REG_TO_MEM ACCUMULATE is not modelled");
  }
  const std::uint64_t destination = address_at(packet.payload, 1);
  // One packet reads the counter once: its two dwords never tear across a carry into the high one.
  const std::uint64_t always_on_ticks = model_.always_on->read();
  for (std::uint32_t i = 0; i < count; ++i) memory_.write32(destination + 4 * i, read_register(first + i, always_on_ticks));
}

void CommandProcessor::op_mem_to_mem(const Packet& packet) {
  require_payload(packet, 5, "CP_MEM_TO_MEM");
  const std::uint32_t flags = packet.payload[0];
  const bool wide = field::kDouble.extract(flags);
  const std::size_t sources = (packet.payload.size() - 3) / 2;
  if (sources < 1 || sources > 3 || packet.payload.size() != 3 + 2 * sources) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_MEM_TO_MEM takes 1 to 3 source addresses");
  }
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < sources; ++i) {
    const std::uint64_t source = address_at(packet.payload, 3 + 2 * i);
    std::uint64_t value = wide ? memory_.read64(source) : memory_.read32(source);
    if ((flags >> (field::kNegA.low + i)) & 1) value = ~value + 1;
    sum += value;
  }
  const std::uint64_t destination = address_at(packet.payload, 1);
  if (wide) {
    memory_.write64(destination, sum);
  } else {
    memory_.write32(destination, static_cast<std::uint32_t>(sum));
  }
}

}  // namespace adreno::virt

namespace adreno::virt {
namespace {

namespace a6xx = pm4::a6xx;
// CS_STATE and CS_UAV sit at the same bits of both generations' SP_UPDATE_CNTL (a6xx.xml).
constexpr const pm4::Field& kCsState = a6xx::SP_UPDATE_CNTL.field("CS_STATE");
constexpr const pm4::Field& kCsUav = a6xx::SP_UPDATE_CNTL.field("CS_UAV");
static_assert(a6xx::SP_UPDATE_CNTL_A7XX.field("CS_STATE").low == kCsState.low &&
              a6xx::SP_UPDATE_CNTL_A7XX.field("CS_UAV").low == kCsUav.low);

}  // namespace

void CommandProcessor::write_register(std::uint32_t offset, std::uint32_t value) {
  regs_.at(offset) = value;
  if (offset != compute_.update_cntl->offset) return;
  // SP_UPDATE_CNTL (HLSQ_INVALIDATE_CMD) drops the cached state of the stages it names; what a
  // dispatch reads afterwards must be loaded again.
  if (kCsState.extract(value)) drop_loaded_state();
  if (kCsUav.extract(value)) {
    for (auto& slot : cs_.uav) slot.clear();
  }
}

void CommandProcessor::drop_loaded_state() {
  std::fill(cs_.constant_loaded.begin(), cs_.constant_loaded.end(), 0);
  cs_.shader_source.reset();
  for (auto& slot : cs_.texture) slot.clear();
  for (auto& slot : cs_.sampler) slot.clear();
  for (std::size_t i = 0; i < cs_.ubo_end; ++i) cs_.ubo[i].clear();
  cs_.ubo_end = 0;
}

void CommandProcessor::forget_program_state() {
  // Deliberately stricter than one GPU running one context: a submission finds the compute state
  // of the one before gone — loaded state and the program registers a dispatch reads first — as
  // it would after another context's submission ran in between and programmed its own. So a
  // stream that leaves its program state to an earlier submission is refused ("SP_CS_INSTR_SIZE
  // is 0"); within a submission, state written once serves every later dispatch.
  drop_loaded_state();
  for (auto& slot : cs_.uav) slot.clear();
  for (const pm4::Register* reg : {&a6xx::SP_CS_INSTR_SIZE, &a6xx::SP_CS_BASE, &a6xx::SP_CS_CONFIG, compute_.const_config})
    for (unsigned d = 0; d < reg->dwords; ++d) regs_.at(reg->offset + d) = 0;
}

void CommandProcessor::op_load_state6(const Packet& packet) {
  require_payload(packet, 3, "CP_LOAD_STATE6");
  const std::uint32_t d0 = packet.payload[0];
  const auto type = static_cast<pm4::StateType>(field::kStateType.extract(d0));
  const auto source = static_cast<pm4::StateSrc>(field::kStateSrc.extract(d0));
  const auto block = static_cast<pm4::StateBlock>(field::kStateBlock.extract(d0));
  const auto offset = static_cast<std::uint32_t>(field::kDstOff.extract(d0));
  const auto units = static_cast<std::uint32_t>(field::kNumUnit.extract(d0));
  auto cp_error = [&](const std::string& what) { throw GpuFault(FaultKind::cp_error, packet.address, "CP_LOAD_STATE6: " + what); };
  auto where = [&] {
    return "state type " + std::to_string(static_cast<unsigned>(type)) + " block " + hex(static_cast<unsigned>(block));
  };

  // Unit sizes per Mesa adreno_pm4.xml (CP_LOAD_STATE6 NUM_UNIT): shader code in 128-byte
  // units, constants in vec4s, descriptors per slot (a6xx_descriptors.xml: 16 dwords for
  // textures and IBOs, 4 for samplers, 2 for UBOs).
  std::uint32_t unit_dwords = 0;
  std::vector<std::vector<std::uint32_t>>* slots = nullptr;
  if (block == pm4::StateBlock::SB6_CS_SHADER && type == pm4::StateType::ST6_SHADER) {
    unit_dwords = 32;
  } else if (block == pm4::StateBlock::SB6_CS_SHADER && type == pm4::StateType::ST6_CONSTANTS) {
    unit_dwords = 4;
  } else if (block == pm4::StateBlock::SB6_CS_SHADER && type == pm4::StateType::ST6_UAV) {
    unit_dwords = 16;
    slots = &cs_.uav;
  } else if (block == pm4::StateBlock::SB6_CS_SHADER && type == pm4::StateType::ST6_UBO) {
    unit_dwords = pm4::a6xx_descriptors::kUboDwords;
    slots = &cs_.ubo;
  } else if (block == pm4::StateBlock::SB6_CS_TEX && type == pm4::StateType::ST6_CONSTANTS) {
    unit_dwords = 16;
    slots = &cs_.texture;
  } else if (block == pm4::StateBlock::SB6_CS_TEX && type == pm4::StateType::ST6_SHADER) {
    unit_dwords = 4;
    slots = &cs_.sampler;
  } else {
    cp_error(where() + " is not compute state this virtual GPU models");
  }

  std::vector<std::uint32_t>& data = state_data_;
  data.resize(std::size_t{units} * unit_dwords);
  std::uint64_t source_address = 0;
  switch (source) {
    case pm4::StateSrc::SS6_DIRECT:
      if (packet.payload.size() != 3 + data.size()) {
        cp_error("SS6_DIRECT carries " + std::to_string(packet.payload.size() - 3) + " dwords for " +
                 std::to_string(units) + " units of " + std::to_string(unit_dwords));
      }
      std::copy(packet.payload.begin() + 3, packet.payload.end(), data.begin());
      break;
    case pm4::StateSrc::SS6_INDIRECT: {
      source_address = address_at(packet.payload, 1);
      // Constants and descriptors are read through UCHE, as shader loads are: Turnip copies an
      // indirect dispatch's group counts with the CP, then waits for the writes, invalidates UCHE
      // and waits for idle before the CP_LOAD_STATE6 (SS6_INDIRECT) of that copy
      // (tu_cmd_buffer.cc tu_emit_compute_driver_params, the ST6_CONSTANTS path), which only
      // matters if the load can hit a line of the old contents. The code preload is only checked
      // here (the dispatch fetches the code from SP_CS_BASE, uncached like the CP's reads): no
      // reference sequence writes code on the GPU, so none shows whether that fetch is cached.
      const bool code = type == pm4::StateType::ST6_SHADER && block == pm4::StateBlock::SB6_CS_SHADER;
      (code ? memory_ : shader_memory_).read(source_address, data.data(), data.size() * 4);
      break;
    }
    default:
      cp_error("state source " + std::to_string(static_cast<unsigned>(source)) + " is not modelled");
  }

  if (type == pm4::StateType::ST6_SHADER && block == pm4::StateBlock::SB6_CS_SHADER) {
    // The code is fetched again from SP_CS_BASE at dispatch; the preload only has to agree.
    if (source != pm4::StateSrc::SS6_INDIRECT) cp_error("CS code must be loaded from memory (SS6_INDIRECT)");
    if (offset != 0) cp_error("CS code loaded at DST_OFF " + std::to_string(offset) + " is not modelled");
    // Mesa clamps the preload to instr_cache_size (tu6_emit_xs_constants, fd6_program.cc): a
    // larger one is what its history records hanging the GPU.
    if (instruction_cache_units_ != 0 && units > instruction_cache_units_)
      cp_error("a CS code preload of " + std::to_string(units) + " units exceeds the " +
               std::to_string(instruction_cache_units_) + "-unit instruction cache");
    cs_.shader_source = source_address;
  } else if (slots == nullptr) {
    if (offset + units > kConstantVec4s) cp_error("constants beyond c" + std::to_string(kConstantVec4s - 1));
    std::copy(data.begin(), data.end(), cs_.constants.begin() + std::ptrdiff_t{offset} * 4);
    std::fill_n(cs_.constant_loaded.begin() + offset, units, 1);
  } else {
    if (offset + units > slots->size()) cp_error(where() + ": slot " + std::to_string(offset + units - 1) + " does not exist");
    if (slots == &cs_.ubo) cs_.ubo_end = std::max<std::size_t>(cs_.ubo_end, offset + units);
    for (std::uint32_t i = 0; i < units; ++i) {
      (*slots)[offset + i].assign(data.begin() + std::ptrdiff_t{i} * unit_dwords, data.begin() + std::ptrdiff_t{i + 1} * unit_dwords);
    }
  }
}

namespace {

// A field of a register of the compute state.
struct RegisterField {
  std::uint32_t offset;
  const pm4::Field* field;
  RegisterField(const pm4::Register& reg, std::string_view name) : offset(reg.offset), field(&reg.field(name)) {}
};

// The fields a dispatch reads, found by name once per generation: finding them by name for
// every dispatch cost about as much as running a one-wave kernel.
struct DispatchFields {
  explicit DispatchFields(const a6xx::ComputeRegisters& c)
      : enabled(a6xx::SP_CS_CONFIG, "ENABLED"),
        nuav(a6xx::SP_CS_CONFIG, "NUAV"),
        ntex(a6xx::SP_CS_CONFIG, "NTEX"),
        thread_size(a6xx::SP_CS_CNTL_0, "THREADSIZE"),
        wave_thread_size(*c.wave_control, "THREADSIZE"),
        a7xx_thread_size(a6xx::SP_CS_WIE_CNTL_1_A7XX, "THREADSIZE"),
        full_footprint(a6xx::SP_CS_CNTL_0, "FULLREGFOOTPRINT"),
        half_footprint(a6xx::SP_CS_CNTL_0, "HALFREGFOOTPRINT"),
        merged_registers(a6xx::SP_CS_CNTL_0, "MERGEDREGS"),
        early_preamble(a6xx::SP_CS_CNTL_0, "EARLYPREAMBLE"),
        work_group_id(*c.work_item_ids, "WGIDCONSTID"),
        work_group_size(*c.work_item_ids, "WGSIZECONSTID"),
        work_group_offset(*c.work_item_ids, "WGOFFSETCONSTID"),
        local_id(*c.work_item_ids, "LOCALIDREGID"),
        linear_local_id(*c.wave_control, "LINEARLOCALIDREGID"),
        local_size{{{*c.ndrange[0], "LOCALSIZEX"}, {*c.ndrange[0], "LOCALSIZEY"}, {*c.ndrange[0], "LOCALSIZEZ"}}},
        global_offset{{{*c.ndrange[2], "GLOBALOFF_X"}, {*c.ndrange[4], "GLOBALOFF_Y"}, {*c.ndrange[6], "GLOBALOFF_Z"}}},
        shared_size(a6xx::SP_CS_CNTL_1, "SHARED_SIZE"),
        private_size(a6xx::SP_CS_PVT_MEM_PARAM, "MEMSIZEPERITEM"),
        instr_size(a6xx::SP_CS_INSTR_SIZE, ""),
        const_enabled(*c.const_config, "ENABLED"),
        constlen(*c.const_config, "CONSTLEN") {}

  RegisterField enabled, nuav, ntex, thread_size, wave_thread_size, a7xx_thread_size, full_footprint, half_footprint,
      merged_registers, early_preamble, work_group_id, work_group_size, work_group_offset, local_id, linear_local_id;
  std::array<RegisterField, 3> local_size, global_offset;
  RegisterField shared_size, private_size, instr_size, const_enabled, constlen;
};

const DispatchFields& dispatch_fields(pm4::Gen gen) {
  static const DispatchFields a6xx_fields(a6xx::compute_registers(pm4::kA6xx));
  static const DispatchFields a7xx_fields(a6xx::compute_registers(pm4::kA7xx));
  return gen == pm4::kA7xx ? a7xx_fields : a6xx_fields;
}

}  // namespace

void CommandProcessor::compute_dispatch(const Packet& packet, std::array<std::uint32_t, 3> groups, ComputeDispatch& d) {
  const DispatchFields& f = dispatch_fields(gen_);
  auto value = [&](const RegisterField& field) {
    return static_cast<std::uint32_t>(field.field->extract(regs_[field.offset]));
  };
  auto refuse = [&](const std::string& what) { throw GpuFault(FaultKind::shader_error, packet.address, what); };

  d.memory = &shader_memory_;
  d.groups = groups;
  d.hazards = model_.hazards;
  d.hazard_warnings = &hazard_warnings_;
  if (!value(f.enabled)) refuse("SP_CS_CONFIG ENABLED is 0: the compute stage is off");

  // Wave size: SP_CS_CNTL_0 and SP_CS_WGE_CNTL both carry THREADSIZE; Turnip and tinygrad write
  // the same value to both (tu_cmd_buffer.cc tu6_emit_cs_config, ops_qcom.py exec), and on a7xx
  // SP_CS_WIE_CNTL_1 a third copy (computerator cs_program_emit<A7XX>).
  const std::uint32_t thread_size = value(f.thread_size);
  if (thread_size != value(f.wave_thread_size)) {
    refuse("SP_CS_CNTL_0 THREADSIZE and SP_CS_WGE_CNTL THREADSIZE disagree");
  }
  if (gen_ == pm4::kA7xx && thread_size != value(f.a7xx_thread_size)) {
    refuse("SP_CS_CNTL_0 THREADSIZE and SP_CS_WIE_CNTL_1 THREADSIZE disagree");
  }
  d.wave_size = thread_size == static_cast<std::uint32_t>(pm4::ThreadSize::THREAD128) ? 128 : 64;
  d.full_footprint = value(f.full_footprint);
  d.half_footprint = value(f.half_footprint);
  d.merged_registers = value(f.merged_registers) != 0;

  // Where the system values land: SP_CS_CONST_CONFIG_0 (HLSQ_CS_CNTL_0) and SP_CS_WGE_CNTL, as
  // computerator, Turnip and tinygrad program them. Despite the CONSTID names these are register
  // ids on a6xx (the fixtures put the work-group id in r48.x); Mesa's programs use only the work-
  // group and local ids. The size and offset vectors follow the field names: the Qualcomm
  // compiler's programs (tinygrad's 0x00ccc0cf) read them, and this model is unverified there.
  d.work_group_id_regid = static_cast<std::uint16_t>(value(f.work_group_id));
  d.work_group_size_regid = static_cast<std::uint16_t>(value(f.work_group_size));
  d.work_group_offset_regid = static_cast<std::uint16_t>(value(f.work_group_offset));
  d.local_id_regid = static_cast<std::uint16_t>(value(f.local_id));
  d.linear_local_id_regid = static_cast<std::uint16_t>(value(f.linear_local_id));

  d.local_size = {value(f.local_size[0]) + 1, value(f.local_size[1]) + 1, value(f.local_size[2]) + 1};
  const std::uint32_t fibers = d.local_size[0] * d.local_size[1] * d.local_size[2];
  if (fibers > 1024) refuse("work group of " + std::to_string(fibers) + " fibers exceeds 1024");
  if (value(f.global_offset[0]) || value(f.global_offset[1]) || value(f.global_offset[2])) {
    refuse("a nonzero global offset (SP_CS_NDRANGE GLOBALOFF) is not modelled");
  }

  // Shared memory: Turnip programs SHARED_SIZE = max((bytes - 1) / 1024, 1), i.e. the hardware
  // gives (SHARED_SIZE + 1) KiB (tu_shader.cc tu6_emit_cs_config).
  d.shared_bytes = (value(f.shared_size) + 1) * 1024;

  // Private memory: MEMSIZEPERITEM bytes per fiber. The model keeps it beside the registers, but
  // hardware spills it to SP_CS_PVT_MEM_BASE, so that must be writable GPU memory.
  d.private_bytes = value(f.private_size);
  if (d.private_bytes != 0) memory_.translate(reg64(a6xx::SP_CS_PVT_MEM_BASE.offset), 1, true);

  // The program: SP_CS_INSTR_SIZE groups of 16 instructions at SP_CS_BASE.
  const std::uint64_t base = reg64(a6xx::SP_CS_BASE.offset);
  const std::uint32_t groups_of_16 = value(f.instr_size);
  if (groups_of_16 == 0) refuse("SP_CS_INSTR_SIZE is 0: no program state was written in this submission");
  if (base % 128 != 0) refuse("SP_CS_BASE " + hex(base) + " is not 128-byte aligned");
  if (cs_.shader_source && *cs_.shader_source != base) {
    refuse("CS code was loaded from " + hex(*cs_.shader_source) + " but SP_CS_BASE is " + hex(base));
  }
  std::vector<std::uint64_t>& words = program_words_;
  words.resize(std::size_t{groups_of_16} * 16);
  // Execution starts SP_CS_PROGRAM_COUNTER_OFFSET bytes into the program (Qualcomm binaries put
  // their entry point there; tinygrad ops_qcom.py writes prg_offset).
  const std::uint32_t entry = regs_.at(a6xx::SP_CS_PROGRAM_COUNTER_OFFSET.offset);
  if (entry % 8 != 0 || entry / 8 >= words.size()) {
    refuse("SP_CS_PROGRAM_COUNTER_OFFSET " + std::to_string(entry) + " is not an instruction of the " +
           std::to_string(words.size() * 8) + "-byte program");
  }
  d.first_instruction = entry / 8;
  memory_.read(base, words.data(), words.size() * 8);
  d.program = programs_.get(base, words);

  // Constants: CONSTLEN vec4s of the loaded constant file.
  const std::uint32_t constlen = value(f.const_enabled) ? value(f.constlen) : 0;
  d.constants.assign(cs_.constants.begin(), cs_.constants.begin() + std::ptrdiff_t{constlen} * 4);
  d.constant_loaded.assign(cs_.constant_loaded.begin(), cs_.constant_loaded.begin() + constlen);

  // Descriptor slots: SP_CS_CONFIG NUAV / NTEX of them, decoded once per dispatch.
  auto bind = [](const std::vector<std::vector<std::uint32_t>>& loaded, std::uint32_t count, std::vector<BoundImage>& bound) {
    bound.resize(std::min<std::size_t>(count, loaded.size()));
    for (std::size_t i = 0; i < bound.size(); ++i) {
      bound[i].error.clear();
      bound[i].image = ImageDescriptor::decode(loaded[i], bound[i].error);
    }
  };
  bind(cs_.uav, value(f.nuav), d.uavs);
  bind(cs_.texture, value(f.ntex), d.textures);
  // UBOs: every loaded slot (no register counts them), decoded through the A6XX_UBO fields.
  std::size_t loaded_ubos = cs_.ubo_end;
  while (loaded_ubos > 0 && cs_.ubo[loaded_ubos - 1].empty()) --loaded_ubos;
  d.ubos.resize(loaded_ubos);
  for (std::size_t i = 0; i < loaded_ubos; ++i) {
    d.ubos[i].reset();
    if (cs_.ubo[i].empty()) continue;
    const std::uint64_t words = cs_.ubo[i][0] | (std::uint64_t{cs_.ubo[i][1]} << 32);
    d.ubos[i] = UniformBuffer{pm4::a6xx_descriptors::UBO.field("BASE").extract(words),
                              static_cast<std::uint32_t>(pm4::a6xx_descriptors::UBO.field("SIZE").extract(words))};
  }
  d.early_preamble = value(f.early_preamble) != 0;

  d.deadline = std::chrono::steady_clock::now() + hang_timeout_;
  d.stop = &stop_;
}

void CommandProcessor::dispatch(const Packet& packet, std::array<std::uint32_t, 3> groups) {
  // Made in the first object past the pending ones; without reordering it runs at once, so the
  // same object serves the next dispatch.
  if (pending_dispatches_.size() == pending_count_) pending_dispatches_.emplace_back();
  ComputeDispatch& d = pending_dispatches_[pending_count_];
  compute_dispatch(packet, groups, d);
  if (model_.reorder) {
    ++pending_count_;
  } else {
    fiber_instructions_ += shader_processor_.run(d);
  }
}

void CommandProcessor::op_exec_cs(const Packet& packet) {
  require_payload(packet, 4, "CP_EXEC_CS");
  dispatch(packet, {static_cast<std::uint32_t>(kNgroupsX.extract(packet.payload[1])),
                    static_cast<std::uint32_t>(kNgroupsY.extract(packet.payload[2])),
                    static_cast<std::uint32_t>(kNgroupsZ.extract(packet.payload[3]))});
}

void CommandProcessor::op_exec_cs_indirect(const Packet& packet) {
  // adreno_pm4.xml CP_EXEC_CS_INDIRECT (A5XX-): ADDR of the x, y, z group counts, and the local
  // size again in dword 3, which must agree with SP_CS_NDRANGE_0.
  require_payload(packet, 4, "CP_EXEC_CS_INDIRECT");
  static constexpr const pm4::Register& kDword3 = pm4::payload_entry(Opcode::CP_EXEC_CS_INDIRECT, "3");
  auto cp_error = [&](const std::string& what) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_EXEC_CS_INDIRECT: " + what);
  };
  const std::uint64_t address = address_at(packet.payload, 1);
  std::array<std::uint32_t, 3> groups{};
  memory_.read(address, groups.data(), sizeof(groups));
  const std::array<const char*, 3> local = {"LOCALSIZEX", "LOCALSIZEY", "LOCALSIZEZ"};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint64_t packet_local = kDword3.field(local[i]).extract(packet.payload[3]) + 1;
    const std::uint64_t register_local =
        compute_.ndrange[0]->field(local[i]).extract(regs_.at(compute_.ndrange[0]->offset)) + 1;
    if (packet_local != register_local)
      cp_error(std::string(local[i]) + " " + std::to_string(packet_local) + " disagrees with SP_CS_NDRANGE_0's " +
               std::to_string(register_local));
    // Deliberately stricter than hardware, which would run (or wrap) for a very long time: a
    // count whose global size leaves 32 bits is reported, not hung on.
    if (groups[i] * packet_local > 0xffffffffu)
      cp_error("group count " + std::to_string(groups[i]) + " at " + hex(address + 4 * i) + " times local size " +
               std::to_string(packet_local) + " exceeds a 32-bit global size");
  }
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;  // an empty grid runs nothing
  dispatch(packet, groups);
}

void CommandProcessor::op_run_opencl(const Packet& packet) {
  // CP_RUN_OPENCL takes the grid from the registers: SP_CS_NDRANGE GLOBALSIZE in fibers.
  std::array<std::uint32_t, 3> groups{};
  const std::array<const pm4::Register*, 3> global = {compute_.ndrange[1], compute_.ndrange[3], compute_.ndrange[5]};
  const std::array<const char*, 3> local = {"LOCALSIZEX", "LOCALSIZEY", "LOCALSIZEZ"};
  for (int i = 0; i < 3; ++i) {
    const std::uint32_t size = regs_.at(global[i]->offset);
    const std::uint32_t local_size =
        static_cast<std::uint32_t>(compute_.ndrange[0]->field(local[i]).extract(regs_.at(compute_.ndrange[0]->offset))) + 1;
    if (size % local_size != 0) {
      throw GpuFault(FaultKind::shader_error, packet.address, "CP_RUN_OPENCL: a global size that is not a multiple of the local size is not modelled");
    }
    groups[i] = size / local_size;
  }
  dispatch(packet, groups);
}

}  // namespace adreno::virt
