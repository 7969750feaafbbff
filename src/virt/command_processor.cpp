#include "virt/command_processor.h"

#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"

#include <string>
#include <thread>

namespace adreno::virt {
namespace {

using pm4::EventType;
using pm4::Opcode;
namespace field = pm4::packet_field;

constexpr const pm4::Field& kSignedCompare = field::kWaitRegMem0.field("SIGNED_COMPARE");

// a6xx runs the ringbuffer, IB1 and IB2; a third level does not exist before a7xx.
constexpr int kMaxIbLevel = 2;

// CP_ALWAYS_ON_COUNTER ticks at the 19.2 MHz XO clock on a6xx (tinygrad's QCOM runtime converts
// its timestamps with the same rate: ops_qcom.py, timestamp_divider 19.2).
constexpr double kAlwaysOnTicksPerNanosecond = 19.2e6 / 1e9;

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
                                   const std::atomic<bool>& stop)
    : memory_(memory), hang_timeout_(hang_timeout), stop_(stop), regs_(pm4::kMaxRegister + 1, 0) {}

const std::array<CommandProcessor::Handler, 128>& CommandProcessor::handlers() {
  static const std::array<Handler, 128> table = [] {
    std::array<Handler, 128> t{};
    auto set = [&](Opcode opcode, Handler handler) { t[static_cast<std::size_t>(opcode)] = handler; };
    set(Opcode::CP_NOP, &CommandProcessor::op_nop);
    // Execution here is in order and every write lands before the next packet, so the pipeline
    // waits have nothing left to wait for, and markers change nothing a compute stream sees.
    set(Opcode::CP_WAIT_FOR_IDLE, &CommandProcessor::op_nop);
    set(Opcode::CP_WAIT_FOR_ME, &CommandProcessor::op_nop);
    set(Opcode::CP_WAIT_MEM_WRITES, &CommandProcessor::op_nop);
    set(Opcode::CP_SET_MARKER, &CommandProcessor::op_nop);
    set(Opcode::CP_INDIRECT_BUFFER, &CommandProcessor::op_indirect_buffer);
    set(Opcode::CP_INDIRECT_BUFFER_CHAIN, &CommandProcessor::op_indirect_buffer_chain);
    set(Opcode::CP_MEM_WRITE, &CommandProcessor::op_mem_write);
    set(Opcode::CP_EVENT_WRITE, &CommandProcessor::op_event_write);
    set(Opcode::CP_WAIT_REG_MEM, &CommandProcessor::op_wait_reg_mem);
    set(Opcode::CP_WAIT_MEM_GTE, &CommandProcessor::op_wait_mem_gte);
    set(Opcode::CP_REG_TO_MEM, &CommandProcessor::op_reg_to_mem);
    set(Opcode::CP_MEM_TO_MEM, &CommandProcessor::op_mem_to_mem);
    return t;
  }();
  return table;
}

void CommandProcessor::execute(std::span<const IbSpan> ibs) {
  for (const IbSpan& ib : ibs) run_ib(ib.address, ib.dwords, 1);
}

void CommandProcessor::run_ib(std::uint64_t address, std::uint32_t dwords, int level) {
  std::vector<std::uint32_t> words;
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
        for (std::uint32_t i = 0; i < header->count; ++i) regs_.at(header->reg_or_opcode + i) = payload[i];
      } else {
        Handler handler = handlers()[header->reg_or_opcode];
        if (handler == nullptr) {
          throw GpuFault(FaultKind::cp_error, packet_address, "unsupported opcode " + hex(header->reg_or_opcode));
        }
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

std::uint32_t CommandProcessor::read_register(std::uint32_t offset) const {
  const std::uint32_t always_on = pm4::a6xx::CP_ALWAYS_ON_COUNTER.offset;
  if (offset == always_on || offset == always_on + 1) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const auto ticks = static_cast<std::uint64_t>(
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) * kAlwaysOnTicksPerNanosecond);
    return static_cast<std::uint32_t>(offset == always_on ? ticks : ticks >> 32);
  }
  return regs_.at(offset);
}

void CommandProcessor::op_nop(const Packet&) {}

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
      return;  // caches are not modelled: every access sees memory
    case EventType::CACHE_FLUSH_TS: {
      require_payload(packet, 4, "CP_EVENT_WRITE(CACHE_FLUSH_TS)");
      const std::uint64_t target = address_at(packet.payload, 1);
      if (field::kEventTimestamp.extract(packet.payload[0])) {
        const std::uint32_t always_on = pm4::a6xx::CP_ALWAYS_ON_COUNTER.offset;
        memory_.write64(target, read_register(always_on) | (std::uint64_t{read_register(always_on + 1)} << 32));
      } else {
        memory_.write32(target, packet.payload[3]);
      }
      return;
    }
    default:
      throw GpuFault(FaultKind::cp_error, packet.address,
                     "CP_EVENT_WRITE event " + hex(static_cast<unsigned>(event)) + " is not modelled");
  }
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
  for (std::uint32_t i = 0; i < count; ++i) memory_.write32(destination + 4 * i, read_register(first + i));
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
