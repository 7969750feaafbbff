#include "virt/command_processor.h"

#include "pm4/packet.h"

#include <string>
#include <thread>

namespace adreno::virt {
namespace {

// Opcodes from Mesa src/freedreno/registers/adreno/adreno_pm4.xml (adreno_pm4_type3_packets).
constexpr std::uint32_t CP_NOP = 0x10;
constexpr std::uint32_t CP_WAIT_MEM_WRITES = 0x12;
constexpr std::uint32_t CP_WAIT_FOR_ME = 0x13;
constexpr std::uint32_t CP_WAIT_FOR_IDLE = 0x26;
constexpr std::uint32_t CP_WAIT_REG_MEM = 0x3c;
constexpr std::uint32_t CP_MEM_WRITE = 0x3d;
constexpr std::uint32_t CP_INDIRECT_BUFFER = 0x3f;
constexpr std::uint32_t CP_EVENT_WRITE = 0x46;

// vgt_event_type CACHE_FLUSH_TS: flush, then write the packet's value to its address.
constexpr std::uint32_t CACHE_FLUSH_TS = 0x04;

// a6xx runs the ringbuffer, IB1 and IB2; a third level does not exist before a7xx.
constexpr int kMaxIbLevel = 2;
// A CP_INDIRECT_BUFFER's IB_SIZE field is 20 bits (adreno_pm4.xml, domain CP_INDIRECT_BUFFER).
constexpr std::uint32_t kIbSizeMask = 0xfffff;

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

CommandProcessor::CommandProcessor(const GpuMemory& memory, std::chrono::milliseconds hang_timeout,
                                   const std::atomic<bool>& stop)
    : memory_(memory), hang_timeout_(hang_timeout), stop_(stop), regs_(pm4::kMaxRegister + 1, 0) {}

const std::array<CommandProcessor::Handler, 128>& CommandProcessor::handlers() {
  static const std::array<Handler, 128> table = [] {
    std::array<Handler, 128> t{};
    t[CP_NOP] = &CommandProcessor::op_nop;
    // Execution here is in order and every write lands before the next packet, so the
    // pipeline waits have nothing left to wait for.
    t[CP_WAIT_FOR_IDLE] = &CommandProcessor::op_nop;
    t[CP_WAIT_FOR_ME] = &CommandProcessor::op_nop;
    t[CP_WAIT_MEM_WRITES] = &CommandProcessor::op_nop;
    t[CP_INDIRECT_BUFFER] = &CommandProcessor::op_indirect_buffer;
    t[CP_MEM_WRITE] = &CommandProcessor::op_mem_write;
    t[CP_EVENT_WRITE] = &CommandProcessor::op_event_write;
    t[CP_WAIT_REG_MEM] = &CommandProcessor::op_wait_reg_mem;
    return t;
  }();
  return table;
}

void CommandProcessor::execute(std::span<const IbSpan> ibs) {
  for (const IbSpan& ib : ibs) run_ib(ib.address, ib.dwords, 1);
}

void CommandProcessor::run_ib(std::uint64_t address, std::uint32_t dwords, int level) {
  std::vector<std::uint32_t> words(dwords);
  memory_.read(address, words.data(), words.size() * sizeof(std::uint32_t));
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
  }
}

void CommandProcessor::require_payload(const Packet& packet, std::size_t dwords, const char* name) const {
  if (packet.payload.size() < dwords) {
    throw GpuFault(FaultKind::cp_error, packet.address,
                   std::string(name) + " needs " + std::to_string(dwords) + " payload dwords, has " +
                       std::to_string(packet.payload.size()));
  }
}

void CommandProcessor::op_nop(const Packet&) {}

void CommandProcessor::op_indirect_buffer(const Packet& packet) {
  require_payload(packet, 3, "CP_INDIRECT_BUFFER");
  if (packet.level >= kMaxIbLevel) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_INDIRECT_BUFFER nested deeper than IB2");
  }
  std::uint64_t target = packet.payload[0] | (std::uint64_t{packet.payload[1]} << 32);
  run_ib(target, packet.payload[2] & kIbSizeMask, packet.level + 1);
}

void CommandProcessor::op_mem_write(const Packet& packet) {
  require_payload(packet, 2, "CP_MEM_WRITE");
  std::uint64_t target = packet.payload[0] | (std::uint64_t{packet.payload[1]} << 32);
  auto data = packet.payload.subspan(2);
  memory_.write(target, data.data(), data.size_bytes());
}

void CommandProcessor::op_event_write(const Packet& packet) {
  require_payload(packet, 1, "CP_EVENT_WRITE");
  const std::uint32_t event = packet.payload[0] & 0xff;
  if (event != CACHE_FLUSH_TS) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_EVENT_WRITE event " + hex(event) + " not modelled");
  }
  require_payload(packet, 4, "CP_EVENT_WRITE(CACHE_FLUSH_TS)");
  if (packet.payload[0] & (1u << 30)) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_EVENT_WRITE TIMESTAMP writes are not modelled");
  }
  std::uint64_t target = packet.payload[1] | (std::uint64_t{packet.payload[2]} << 32);
  memory_.write32(target, packet.payload[3]);
}

void CommandProcessor::op_wait_reg_mem(const Packet& packet) {
  require_payload(packet, 6, "CP_WAIT_REG_MEM");
  // CP_WAIT_REG_MEM_0: FUNCTION[2:0] (cp_cond_function), SIGNED_COMPARE[3], POLL[5:4].
  const std::uint32_t function = packet.payload[0] & 0x7;
  const bool is_signed = packet.payload[0] & (1u << 3);
  const std::uint32_t poll = (packet.payload[0] >> 4) & 0x3;
  if (poll != 1) {
    throw GpuFault(FaultKind::cp_error, packet.address, "CP_WAIT_REG_MEM only polls memory here (POLL_MEMORY)");
  }
  const std::uint64_t address = packet.payload[1] | (std::uint64_t{packet.payload[2]} << 32);
  const std::uint32_t reference = packet.payload[3];
  const std::uint32_t mask = packet.payload[4];

  auto satisfied = [&] {
    const std::uint32_t value = memory_.read32(address) & mask;
    const std::uint32_t ref = reference & mask;
    auto cmp = [&](auto a, auto b) {
      switch (function) {
        case 0: return true;  // WRITE_ALWAYS
        case 1: return a < b;
        case 2: return a <= b;
        case 3: return a == b;
        case 4: return a != b;
        case 5: return a >= b;
        case 6: return a > b;
        default: throw GpuFault(FaultKind::cp_error, packet.address, "CP_WAIT_REG_MEM function 7 is undefined");
      }
    };
    return is_signed ? cmp(static_cast<std::int32_t>(value), static_cast<std::int32_t>(ref)) : cmp(value, ref);
  };

  const auto deadline = std::chrono::steady_clock::now() + hang_timeout_;
  while (!satisfied()) {
    if (stop_.load(std::memory_order_relaxed)) {
      throw GpuFault(FaultKind::hang, packet.address, "CP_WAIT_REG_MEM aborted by teardown");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw GpuFault(FaultKind::hang, packet.address, "CP_WAIT_REG_MEM never satisfied at " + hex(address));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace adreno::virt
