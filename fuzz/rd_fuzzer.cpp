// .rd reader: any bytes split into sections or throw adreno::Error; the sections become GPU
// memory and every command stream they name is decoded, as adreno-decode does with a dump.
#include <adreno/error.hpp>

#include "pm4/decoder.h"
#include "pm4/rd.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto sections = adreno::pm4::parse_rd(std::span(reinterpret_cast<const std::byte*>(data), size));
    for (const auto& section : sections) {
      try {
        if (section.type == adreno::pm4::RdSectionType::RD_GPUADDR) (void)adreno::pm4::parse_gpuaddr(section);
        if (section.type == adreno::pm4::RdSectionType::RD_CMDSTREAM_ADDR)
          (void)adreno::pm4::parse_cmdstream_addr(section);
      } catch (const adreno::Error&) {
      }
    }
    const adreno::pm4::RdMemory memory(sections);
    auto read = [&](adreno::GpuAddress address, std::span<std::uint32_t> out) { return memory.read(address, out); };
    for (const auto& ib : memory.cmdstreams()) (void)adreno::pm4::decode_ib(ib.address, ib.dwords, read);
  } catch (const adreno::Error&) {
  }
  return 0;
}
