// [virtual-kernel] Our dispatch of a kernel shaped like Mesa computerator's simple.asm (one
// invocation, @buf 4, constants c0..c2, r0..r2 with a merged half register, two instruction
// groups, 128-wide waves), register by register against Mesa computerator's own submission for
// simple.asm on a630 (../shared/reference/computerator/simple-a630.rd, read with our .rd reader):
// every register Mesa writes we write with the same value, or the difference is an address or a
// value listed below with why it is right for us; every register we write that Mesa does not is
// listed too. The per-chip block is part of the comparison.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packet.h"
#include "pm4/rd.h"
#include "recorded_stream.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

using namespace adreno;
namespace r = adreno::pm4::a6xx;

namespace {

const std::filesystem::path kReference =
    std::filesystem::path(ADRENO_IR3_FIXTURES_DIR) / ".." / ".." / "reference" / "computerator" / "simple-a630.rd";

// CP_CONTEXT_REG_BUNCH (adreno_pm4.xml: 0x5c, A5XX-): pairs of register offset and value.
constexpr std::uint32_t kContextRegBunch = 0x5c;

std::vector<std::byte> gunzip(const std::filesystem::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  REQUIRE(in != nullptr);
  std::vector<std::byte> out;
  std::byte chunk[65536];
  int got = 0;
  while ((got = gzread(in, chunk, sizeof chunk)) > 0) out.insert(out.end(), chunk, chunk + got);
  gzclose(in);
  REQUIRE(got == 0);
  return out;
}

// Every register write of the dump's command streams: type-4 packets and CP_CONTEXT_REG_BUNCH.
std::map<std::uint32_t, std::uint32_t> mesa_registers() {
  const std::vector<std::byte> bytes = gunzip(kReference);
  const std::vector<pm4::RdSection> sections = pm4::parse_rd(bytes);
  const pm4::RdMemory memory(sections);
  std::map<std::uint32_t, std::uint32_t> registers;
  REQUIRE(!memory.cmdstreams().empty());
  for (const pm4::RdCmdstreamAddr& stream : memory.cmdstreams()) {
    std::vector<std::uint32_t> words(stream.dwords);
    REQUIRE(memory.read(stream.address, words));
    for (std::size_t i = 0; i < words.size();) {
      const auto header = pm4::decode_header(words[i]);
      REQUIRE(header);
      if (header->type == pm4::Header::Type::type4) {
        for (std::uint32_t k = 0; k < header->count; ++k) registers[header->reg_or_opcode + k] = words[i + 1 + k];
      } else if (header->reg_or_opcode == kContextRegBunch) {
        for (std::uint32_t k = 0; k + 1 < header->count; k += 2) registers[words[i + 1 + k]] = words[i + 2 + k];
      }
      i += 1 + header->count;
    }
  }
  return registers;
}

// The kernel: ours, with simple.asm's directives and footprint (the highest register r2, hr4.x
// inside r2.x, 17 instructions), storing a marker through UAV slot 0.
constexpr const char* kSimpleShaped = R"(
@localsize 1, 1, 1
@buf 4
@const(c0.x) 0.0, 0.0, 0.0, 0.0
@const(c1.x) 1.0, 2.0, 3.0, 4.0
@wgid(r48.x)
@invocationid(r0.x)
@numwg(c2.x)
mov.u32u32 r0.x, 0x600dcafe
mov.u32u32 r0.y, 0
mov.f32f32 r2.x, c1.y
mov.u32u32 r1.x, 0
mov.u32u32 r1.y, 0
mov.u32u32 r1.z, 0
cov.f32s16 hr4.x, r2.x
mov.u32u32 r1.w, 0
nop
nop
nop
nop
nop
nop
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r0.x, r0.y, 0
end
)";

}  // namespace

TEST_CASE("a simple.asm-shaped dispatch writes Mesa computerator's registers, the per-chip block included",
          "[virtual-kernel][dispatch]") {
  const std::map<std::uint32_t, std::uint32_t> mesa = mesa_registers();
  VirtualDevice device("virtual-kgsl:a630");
  {
    Program program = Program::from_ir3_assembly(*device, kSimpleShaped);
    Buffer buffer = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, WaveSize::thread128});
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, WaveSize::thread128});
    const RecordedStream ours = record_of(queue);
    INFO(ours.text);
    // The per-chip block goes once per queue (kernel context), before its first dispatch.
    CHECK(std::count(ours.write_order.begin(), ours.write_order.end(), r::SP_CHICKEN_BITS.offset) == 1);
    CHECK(std::count(ours.write_order.begin(), ours.write_order.end(), r::SP_CS_CNTL_0.offset) == 2);

    // Addresses: where each side's allocator put the code and the descriptors.
    const std::set<std::uint32_t> addresses = {r::SP_CS_BASE.offset, r::SP_CS_BASE.offset + 1, r::SP_CS_UAV_BASE.offset,
                                               r::SP_CS_UAV_BASE.offset + 1};
    // Values that differ on purpose, each with why ours is right for this program.
    const std::map<std::uint32_t, const char*> documented = {
        // computerator invalidates every stage's state and the graphics UAVs (0xbf); a compute
        // queue invalidates the compute state and compute UAVs only (CS_STATE | CS_UAV).
        {r::SP_UPDATE_CNTL.offset, "compute state only"},
    };
    // Registers we write and computerator does not, and why.
    const std::map<std::uint32_t, const char*> ours_only = {
        {r::TPL1_MODE_CNTL.offset, "ISAMMODE for the texture pipe, as tinygrad and Turnip write it"},
        {r::SP_CS_PROGRAM_COUNTER_OFFSET.offset, "entry point 0 (Qualcomm binaries need it)"},
        {r::SP_CS_PVT_MEM_PARAM.offset, "private memory off (computerator writes the block only with @pvtmem)"},
        {r::SP_CS_PVT_MEM_BASE.offset, "private memory off"},
        {r::SP_CS_PVT_MEM_BASE.offset + 1, "private memory off"},
        {r::SP_CS_PVT_MEM_SIZE.offset, "private memory off"},
        {r::SP_CS_PVT_MEM_STACK_OFFSET.offset, "private memory off"},
        {r::HLSQ_SHARED_CONSTS.offset, "per-chip block: Turnip's tu6_init_hw writes it 0 on a6xx"},
        // The constant load's SS6_INDIRECT source is the upload area, not a CP_LOAD_STATE6 with
        // inline data; no register.
    };

    std::size_t compared = 0;
    for (const auto& [offset, value] : mesa) {
      INFO("register " << std::hex << offset << " Mesa " << value);
      REQUIRE(ours.registers.count(offset) == 1);
      if (addresses.count(offset) != 0 || documented.count(offset) != 0) continue;
      CHECK(ours.registers.at(offset) == value);
      ++compared;
    }
    for (const auto& [offset, value] : ours.registers) {
      INFO("register " << std::hex << offset << " ours " << value);
      CHECK((mesa.count(offset) == 1 || ours_only.count(offset) == 1));
    }
    CHECK(compared == mesa.size() - addresses.size() - documented.size());
    // The per-chip block is in the comparison: SP_CHICKEN_BITS, UCHE_UNKNOWN_0E12 and the rest.
    CHECK(mesa.count(r::SP_CHICKEN_BITS.offset) == 1);
    CHECK(mesa.count(r::UCHE_UNKNOWN_0E12.offset) == 1);
    queue.finish(std::chrono::seconds(60));
    CHECK(buffer.cpu_view().as<std::uint32_t>()[0] == 0x600dcafe);
  }
  device.close_and_check_ledger();
}
