#include "pm4/packets.h"

#include <algorithm>

#include <fmt/format.h>

#include <adreno/error.hpp>

namespace adreno::pm4 {

void mem_to_mem(CommandStream& cs, GpuAddress destination, std::span<const GpuAddress> sources, MemToMemOptions options) {
  if (sources.empty() || sources.size() > 3 || (options.negate >> sources.size()) != 0)
    throw Error(Errc::invalid_argument, "append CP_MEM_TO_MEM",
                fmt::format("{} sources with negate mask {:#x}; 1 to 3 sources, one negate bit each", sources.size(),
                            options.negate));
  using namespace packet_field;
  std::uint64_t flags = kDouble.pack(options.double_width) | kWaitForMemWrites.pack(options.wait_for_mem_writes) |
                        (std::uint64_t{options.negate} << kNegA.low);
  std::span<std::uint32_t> out = cs.packet_payload(Opcode::CP_MEM_TO_MEM, 3 + 2 * static_cast<std::uint32_t>(sources.size()));
  out[0] = static_cast<std::uint32_t>(flags);
  out[1] = destination.lo();
  out[2] = destination.hi();
  for (std::size_t i = 0; i < sources.size(); ++i) {
    out[3 + 2 * i] = sources[i].lo();
    out[4 + 2 * i] = sources[i].hi();
  }
}

void throw_register_write_out_of_range(const Register& reg, unsigned index) {
  throw Error(Errc::invalid_argument, "write register",
              index >= reg.array_length
                  ? fmt::format("{}[{}] is past the end of the array ({} elements)", reg.name, index, reg.array_length)
                  : fmt::format("{} is a 32-bit register; the value has bits above 31", reg.name));
}

void load_state6_frag(CommandStream& cs, const LoadState& state, std::span<const std::uint32_t> data) {
  using namespace packet_field;
  std::uint32_t header = static_cast<std::uint32_t>(
      kDstOff.pack(state.dst_offset) | kStateType.pack(raw(state.type)) | kStateSrc.pack(raw(StateSrc::SS6_DIRECT)) |
      kStateBlock.pack(raw(state.block)) | kNumUnit.pack(state.num_units));
  std::span<std::uint32_t> out = cs.packet_payload(Opcode::CP_LOAD_STATE6_FRAG, 3 + static_cast<std::uint32_t>(data.size()));
  out[0] = header;
  out[1] = 0;  // EXT_SRC_ADDR is unused for SS6_DIRECT
  out[2] = 0;
  std::copy(data.begin(), data.end(), out.begin() + 3);
}

}  // namespace adreno::pm4
