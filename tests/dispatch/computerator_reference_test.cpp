// [virtual-kernel] Mesa computerator's own example simple.asm against Mesa computerator's own
// submission of it (../shared/reference/computerator/simple-{a630,a740}.rd and
// tests/dispatch/computerator_reference/simple-{a730,a750}.rd, read with our .rd reader): our assembler's words are the code Mesa loaded, and our dispatch of it, register by
// register, writes every register Mesa writes with the same value, or the difference is an
// address or a value listed below with why it is right for us; every register we write that Mesa
// does not is listed too. The per-chip block is part of the comparison.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/ir3_assembly.h"
#include "ir3/assembler.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packet.h"
#include "pm4/packets.h"
#include "pm4/rd.h"
#include "qualcomm_binary_builder.h"
#include "recorded_stream.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace adreno;
namespace r = adreno::pm4::a6xx;

namespace {

const std::filesystem::path kReferenceDir = std::filesystem::path(ADRENO_SHARED_DIR) / "reference" / "computerator";
// The a730 and a750 dumps, made with the same Mesa and command (that folder's README.md).
const std::filesystem::path kProjectReferenceDir =
    std::filesystem::path(ADRENO_SOURCE_DIR) / "tests" / "dispatch" / "computerator_reference";

// CP_CONTEXT_REG_BUNCH (adreno_pm4.xml: 0x5c, A5XX-): pairs of register offset and value.
constexpr std::uint32_t kContextRegBunch = 0x5c;
// CP_NON_CONTEXT_REG_BUNCH (adreno_pm4.xml: 0x5d, A7XX-): two dwords (1 and 0 in Mesa's dump),
// then pairs of register offset and value, as Mesa's cffdump decodes the a740 dump.
constexpr std::uint32_t kNonContextRegBunch = 0x5d;

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

// Every register write of the dump's command streams: type-4 packets and the register bunches.
std::map<std::uint32_t, std::uint32_t> mesa_registers(const std::filesystem::path& dump) {
  const std::vector<std::byte> bytes = gunzip(dump);
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
      } else if (header->reg_or_opcode == kNonContextRegBunch) {
        for (std::uint32_t k = 2; k + 1 < header->count; k += 2) registers[words[i + 1 + k]] = words[i + 2 + k];
      }
      i += 1 + header->count;
    }
  }
  return registers;
}

// The register offsets of the dump's CP_NON_CONTEXT_REG_BUNCH (the a7xx per-chip block), in the
// order Mesa writes them.
std::vector<std::uint32_t> mesa_non_context_bunch_order(const std::filesystem::path& dump) {
  const std::vector<std::byte> bytes = gunzip(dump);
  const std::vector<pm4::RdSection> sections = pm4::parse_rd(bytes);
  const pm4::RdMemory memory(sections);
  std::vector<std::uint32_t> order;
  for (const pm4::RdCmdstreamAddr& stream : memory.cmdstreams()) {
    std::vector<std::uint32_t> words(stream.dwords);
    REQUIRE(memory.read(stream.address, words));
    for (std::size_t i = 0; i < words.size();) {
      const auto header = pm4::decode_header(words[i]);
      REQUIRE(header);
      if (header->type == pm4::Header::Type::type7 && header->reg_or_opcode == kNonContextRegBunch)
        for (std::uint32_t k = 2; k + 1 < header->count; k += 2) order.push_back(words[i + 1 + k]);
      i += 1 + header->count;
    }
  }
  REQUIRE(!order.empty());
  return order;
}

// A type-7 packet of the dump's command streams: its opcode and payload.
struct MesaPacket {
  std::uint32_t opcode;
  std::vector<std::uint32_t> payload;
};

std::vector<MesaPacket> mesa_packets(const pm4::RdMemory& memory) {
  std::vector<MesaPacket> packets;
  for (const pm4::RdCmdstreamAddr& stream : memory.cmdstreams()) {
    std::vector<std::uint32_t> words(stream.dwords);
    REQUIRE(memory.read(stream.address, words));
    for (std::size_t i = 0; i < words.size();) {
      const auto header = pm4::decode_header(words[i]);
      REQUIRE(header);
      if (header->type == pm4::Header::Type::type7)
        packets.push_back({header->reg_or_opcode, std::vector<std::uint32_t>(words.begin() + static_cast<long>(i) + 1,
                                                                              words.begin() + static_cast<long>(i + 1 + header->count))});
      i += 1 + header->count;
    }
  }
  return packets;
}

// The shader code Mesa's submission loads: the CP_LOAD_STATE6_FRAG of ST6_SHADER into
// SB6_CS_SHADER (adreno_pm4.xml CP_LOAD_STATE6_0: STATE_TYPE bits 14-15, STATE_SRC 16-17,
// STATE_BLOCK 18-21, NUM_UNIT 22-31; SS6_INDIRECT = 2 reads NUM_UNIT × 16 instructions from
// EXT_SRC_ADDR), read from the dump's buffers.
std::vector<std::uint32_t> mesa_shader_code(const std::filesystem::path& dump) {
  const std::vector<std::byte> bytes = gunzip(dump);
  const std::vector<pm4::RdSection> sections = pm4::parse_rd(bytes);
  const pm4::RdMemory memory(sections);
  constexpr std::uint32_t kLoadState6Frag = 0x34;
  std::vector<std::uint32_t> code;
  for (const MesaPacket& packet : mesa_packets(memory)) {
    if (packet.opcode != kLoadState6Frag) continue;
    const std::uint32_t header = packet.payload.at(0);
    const std::uint32_t type = (header >> 14) & 3, source = (header >> 16) & 3, block = (header >> 18) & 0xf;
    if (type != pm4::raw(pm4::StateType::ST6_SHADER) || block != pm4::raw(pm4::StateBlock::SB6_CS_SHADER)) continue;
    REQUIRE(source == 2);
    REQUIRE(code.empty());  // one shader load
    code.resize(std::size_t{header >> 22} * 32);
    REQUIRE(memory.read(GpuAddress(packet.payload.at(1) | (std::uint64_t{packet.payload.at(2)} << 32)), code));
  }
  REQUIRE(!code.empty());
  return code;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Mesa's computerator example itself (tests/mesa_computerator_examples/simple.asm): stores
// 0x12345678 to buf[0] through UAV slot 0, reading it back through r<a0.x> with a0.x computed
// from c0 (0.0 + 0.0).
std::string simple_asm() {
  return read_text(std::filesystem::path(ADRENO_SOURCE_DIR) / "tests" / "mesa_computerator_examples" / "simple.asm");
}

// Every register Mesa's submission writes, ours writes too, with Mesa's value unless it is an
// address (each side's allocator) or a documented difference; every register ours writes is
// Mesa's or explained in `ours_only`.
void check_registers_against_mesa(const std::map<std::uint32_t, std::uint32_t>& mesa, const RecordedStream& ours,
                                  const std::set<std::uint32_t>& addresses,
                                  const std::map<std::uint32_t, const char*>& documented,
                                  const std::map<std::uint32_t, const char*>& ours_only) {
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
}

}  // namespace

TEST_CASE("Mesa's simple.asm assembles to the code Mesa computerator loads on a630, a730, a740 and a750", "[pure][ir3]") {
  const ir3::Program assembled = ir3::assemble(simple_asm(), ir3::RegisterFile::merged);
  std::vector<std::uint32_t> ours = ir3_code_dwords(assembled);
  for (const std::filesystem::path& dump : {kReferenceDir / "simple-a630.rd", kProjectReferenceDir / "simple-a730.rd",
                                            kReferenceDir / "simple-a740.rd", kProjectReferenceDir / "simple-a750.rd"}) {
    INFO(dump);
    const std::vector<std::uint32_t> mesa = mesa_shader_code(dump);
    // Mesa loads whole 16-instruction groups, padded with nops (zero words).
    CHECK(mesa.size() == std::size_t{assembled.info.instrlen} * 32);
    ours.resize(mesa.size(), 0);
    CHECK(ours == mesa);
  }
}

TEST_CASE("a dispatch of Mesa's simple.asm writes Mesa computerator's registers, the per-chip block included",
          "[virtual-kernel][dispatch]") {
  const std::map<std::uint32_t, std::uint32_t> mesa = mesa_registers(kReferenceDir / "simple-a630.rd");
  VirtualDevice device("virtual-kgsl:a630");
  {
    Program program = Program::from_ir3_assembly(*device, simple_asm());
    Buffer buffer = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, WaveSize::thread128});
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, WaveSize::thread128});
    const RecordedStream ours = record_of(queue, Prologue::included);
    INFO(ours.text);
    // The per-chip block starts the submission (the queue's prologue), once however many
    // dispatches follow; the program's state comes with its first dispatch, which the second
    // dispatch of the same program carries (CarriedProgramState), while the grid is per dispatch.
    CHECK(std::count(ours.write_order.begin(), ours.write_order.end(), r::SP_CHICKEN_BITS.offset) == 1);
    CHECK(std::count(ours.write_order.begin(), ours.write_order.end(), r::SP_CS_CNTL_0.offset) == 1);
    CHECK(std::count(ours.write_order.begin(), ours.write_order.end(), r::SP_CS_NDRANGE_0.offset) == 2);

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
        {r::HLSQ_SHARED_CONSTS.offset, "0 with the compute state, as Turnip's tu6_emit_cs_config writes it on a6xx"},
        // The prologue's CACHE_INVALIDATE and CP_WAIT_FOR_IDLE are packets, not registers.
        // The constant load's SS6_INDIRECT source is the upload area, not a CP_LOAD_STATE6 with
        // inline data; no register.
    };

    check_registers_against_mesa(mesa, ours, addresses, documented, ours_only);
    // The per-chip block is in the comparison: SP_CHICKEN_BITS, UCHE_UNKNOWN_0E12 and the rest.
    CHECK(mesa.count(r::SP_CHICKEN_BITS.offset) == 1);
    CHECK(mesa.count(r::UCHE_UNKNOWN_0E12.offset) == 1);
    queue.finish(std::chrono::seconds(60));
    CHECK(buffer.cpu_view().as<std::uint32_t>()[0] == 0x12345678);
  }
  device.close_and_check_ledger();
}

namespace {

// An a7xx part and Mesa computerator's submission of simple.asm on it.
struct MesaA7xxDump {
  const char* model;
  std::filesystem::path dump;
};

const std::vector<MesaA7xxDump> kMesaA7xxDumps = {
    {"a730", kProjectReferenceDir / "simple-a730.rd"},
    {"a740", kReferenceDir / "simple-a740.rd"},
    {"a750", kProjectReferenceDir / "simple-a750.rd"},
};

}  // namespace

// Kills: any a7xx register offset, field or value of the dispatch or the per-chip block that
// differs from Mesa's submission on that part (an a6xx register written on a7xx, SP_CS_WGE_CNTL's
// tile fields, SP_CS_NDRANGE_7, the SP_REG_PROG_ID values, a raw_magic_regs row of the a730, a740
// or a750 — the a750's VPC_FLATSHADE_MODE_CNTL = 1 among them), a dispatch whose result is wrong
// on the virtual part, and the a730 and a750 being refused as unsupported GPUs.
TEST_CASE("a dispatch of Mesa's simple.asm on a730, a740 and a750 writes Mesa computerator's registers for that part, the per-chip block included",
          "[virtual-kernel][dispatch]") {
  const MesaA7xxDump& part = GENERATE(from_range(kMesaA7xxDumps));
  const std::map<std::uint32_t, std::uint32_t> mesa = mesa_registers(part.dump);
  const std::string spec = std::string(GENERATE("virtual-kgsl:", "virtual-msm:")) + part.model;
  VirtualDevice device(spec);
  {
    Program program = Program::from_ir3_assembly(*device, simple_asm());
    Buffer buffer = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, WaveSize::thread128});
    const RecordedStream ours = record_of(queue, Prologue::included);
    INFO(spec << "\n" << ours.text);

    // The same three lists on the three parts: Mesa's compute state is the same on each (the
    // dumps differ only in the per-chip block), and our per-chip block is Mesa's.
    const std::set<std::uint32_t> addresses = {r::SP_CS_BASE.offset, r::SP_CS_BASE.offset + 1,
                                               r::SP_CS_UAV_BASE_A7XX.offset, r::SP_CS_UAV_BASE_A7XX.offset + 1};
    const std::map<std::uint32_t, const char*> documented = {
        // computerator invalidates every stage's state and the graphics UAVs (0xbf); a compute
        // queue invalidates the compute state and compute UAVs only (CS_STATE | CS_UAV).
        {r::SP_UPDATE_CNTL_A7XX.offset, "compute state only"},
    };
    const std::map<std::uint32_t, const char*> ours_only = {
        {r::TPL1_MODE_CNTL.offset, "ISAMMODE for the texture pipe, as tinygrad and Turnip write it"},
        {r::SP_CS_PROGRAM_COUNTER_OFFSET.offset, "entry point 0 (Qualcomm binaries need it)"},
        {r::SP_CS_PVT_MEM_PARAM.offset, "private memory off (computerator writes the block only with @pvtmem)"},
        {r::SP_CS_PVT_MEM_BASE.offset, "private memory off"},
        {r::SP_CS_PVT_MEM_BASE.offset + 1, "private memory off"},
        {r::SP_CS_PVT_MEM_SIZE.offset, "private memory off"},
        {r::SP_CS_PVT_MEM_STACK_OFFSET.offset, "private memory off"},
        // The prologue's CACHE_INVALIDATE7 and CP_WAIT_FOR_IDLE are packets, not registers; the
        // per-chip block is type-4 writes where Mesa batches it in one CP_NON_CONTEXT_REG_BUNCH.
    };
    check_registers_against_mesa(mesa, ours, addresses, documented, ours_only);
    // The a7xx registers that moved and the per-chip block are in the comparison.
    for (const pm4::Register* reg : {&r::SP_CS_WGE_CNTL_A7XX, &r::SP_CS_NDRANGE_7_A7XX, &r::SP_CS_CONST_CONFIG_A7XX,
                                     &r::SP_CHICKEN_BITS_1_A7XX, &r::PC_UNKNOWN_9E24_A7XX, &r::SP_UNKNOWN_0CE6_A7XX})
      CHECK(mesa.count(reg->offset) == 1);
    // No a6xx-only register: the a6xx homes of the moved registers are not written.
    for (const pm4::Register* reg : {&r::SP_CS_WGE_CNTL, &r::SP_CS_NDRANGE_0, &r::SP_UPDATE_CNTL, &r::HLSQ_SHARED_CONSTS})
      CHECK(ours.registers.count(reg->offset) == 0);
    // The fence packets are CP_EVENT_WRITE7 with a write, as Mesa's.
    for (const RecordedPacket& packet : ours.packets) CHECK(packet.opcode != pm4::Opcode::CP_WAIT_MEM_GTE);
    queue.finish(std::chrono::seconds(60));
    CHECK(buffer.cpu_view().as<std::uint32_t>()[0] == 0x12345678);
  }
  device.close_and_check_ledger();
}

// The parts' lists differ in what they hold, not only in values: the a730 has no RB_UNKNOWN_8C34,
// the a750 no TPL1_DBG_ECO_CNTL1 and no UCHE_CLIENT_PF, but VPC_FLATSHADE_MODE_CNTL and the
// SP_PS_OUTPUT_CONST pair, in an order of its own. Kills: a part given another part's list, a row
// missing, extra or out of Mesa's order.
TEST_CASE("the a7xx per-chip block is Mesa's CP_NON_CONTEXT_REG_BUNCH for that part, row by row and in order",
          "[virtual-kernel][dispatch]") {
  const MesaA7xxDump& part = GENERATE(from_range(kMesaA7xxDumps));
  std::vector<std::uint32_t> mesa_order = mesa_non_context_bunch_order(part.dump);
  // Mesa's bunch opens with SP_PERFCTR_SHADER_MASK (computerator's cs_restore_emit); ours is
  // written with each dispatch's compute state (dispatch.cpp), not in the prologue.
  REQUIRE(mesa_order.front() == r::SP_PERFCTR_SHADER_MASK.offset);
  mesa_order.erase(mesa_order.begin());
  const std::map<std::uint32_t, std::uint32_t> mesa = mesa_registers(part.dump);
  VirtualDevice device(std::string("virtual-kgsl:") + part.model);
  {
    Queue queue(*device);
    const RecordedStream prologue = record_of(queue, Prologue::included);
    INFO(part.model << "\n" << prologue.text);
    CHECK(prologue.write_order == mesa_order);
    for (std::uint32_t offset : mesa_order) {
      INFO("register " << std::hex << offset);
      CHECK(prologue.registers.at(offset) == mesa.at(offset));
    }
  }
  device.close_and_check_ledger();
}

// Kills: the per-chip block went once per queue, so a second submission of the same context ran
// with whatever the registers held by then (Mesa writes it for every submission: computerator's
// a6xx_emit_grid calls cs_restore_emit each time, Turnip's tu6_init_hw starts each command buffer).
TEST_CASE("every submission starts with the per-chip block, dispatches and graph replays alike", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl:a630");
  {
    Program program = Program::from_ir3_assembly(*device, simple_asm());
    Buffer buffer = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer);
    Graph graph(*device);
    graph.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
    graph.build();
    Queue queue(*device);
    const auto chip_block_count = [&] {
      const RecordedStream recorded = record_of(queue, Prologue::included);
      INFO(recorded.text);
      CHECK(recorded.value(r::SP_CHICKEN_BITS) == 0x1430);  // a630's raw_magic_regs value, Mesa's dump too
      return std::count(recorded.write_order.begin(), recorded.write_order.end(), r::SP_CHICKEN_BITS.offset);
    };
    for (int submission = 0; submission < 3; ++submission) {
      INFO("submission " << submission);
      if (submission == 1) {
        graph.replay(queue);
      } else {
        queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
      }
      CHECK(chip_block_count() == 1);
      queue.finish(std::chrono::seconds(60));
    }
  }
  device.close_and_check_ledger();
}

namespace {

struct MesaMagicRow {
  const pm4::Register* reg;
  std::uint32_t value;
};

struct MesaPartRows {
  const char* model;
  std::vector<MesaMagicRow> rows;
};

// Mesa src/freedreno/common/freedreno_devices.py, raw_magic_regs of the GPUId(640), GPUId(650)
// and GPUId(660) entries (Mesa 26), row by row in the file's order: what computerator's
// cs_restore_emit and Turnip's tu6_init_hw write, after SP_NC_MODE_CNTL_2 = 0. Written out here
// rather than taken from the library's part table, so that a wrong row there fails.
const std::vector<MesaPartRows> kMesaRawMagicRegs = {
    {"a640",
     {{&r::PC_MODE_CNTL, 0x1f}, {&r::PC_POWER_CNTL, 1}, {&r::VFD_POWER_CNTL, 1}, {&r::TPL1_DBG_ECO_CNTL, 0x00008000},
      {&r::GRAS_DBG_ECO_CNTL, 0}, {&r::SP_CHICKEN_BITS, 0x00000420}, {&r::SP_DBG_ECO_CNTL, 0},
      {&r::UCHE_CLIENT_PF, 0x00000004}, {&r::HLSQ_DBG_ECO_CNTL, 0}, {&r::VPC_DBG_ECO_CNTL, 0x02000000},
      {&r::UCHE_UNKNOWN_0E12, 0x1}}},
    {"a650",
     {{&r::PC_MODE_CNTL, 0x1f}, {&r::PC_POWER_CNTL, 2}, {&r::VFD_POWER_CNTL, 2}, {&r::TPL1_DBG_ECO_CNTL, 0x00108000},
      {&r::GRAS_DBG_ECO_CNTL, 0}, {&r::SP_CHICKEN_BITS, 0x00001400}, {&r::SP_DBG_ECO_CNTL, 0x01000000},
      {&r::UCHE_CLIENT_PF, 0x00000004}, {&r::HLSQ_DBG_ECO_CNTL, 0}, {&r::VPC_DBG_ECO_CNTL, 0x02000000},
      {&r::UCHE_UNKNOWN_0E12, 0x1}}},
    {"a660",
     {{&r::PC_MODE_CNTL, 0x1f}, {&r::PC_POWER_CNTL, 2}, {&r::VFD_POWER_CNTL, 2}, {&r::TPL1_DBG_ECO_CNTL, 0x05008000},
      {&r::GRAS_DBG_ECO_CNTL, 0}, {&r::SP_CHICKEN_BITS, 0x00001400}, {&r::SP_DBG_ECO_CNTL, 0x01000000},
      {&r::UCHE_CLIENT_PF, 0x00000084}, {&r::HLSQ_DBG_ECO_CNTL, 0}, {&r::VPC_DBG_ECO_CNTL, 0x02000000},
      {&r::UCHE_UNKNOWN_0E12, 0x1}}},
};

}  // namespace

TEST_CASE("the per-chip block of a640, a650 and a660 is freedreno_devices.py's raw_magic_regs, row by row",
          "[virtual-kernel][dispatch]") {
  const MesaPartRows& part = GENERATE(from_range(kMesaRawMagicRegs));
  VirtualDevice device(std::string("virtual-kgsl:") + part.model);
  {
    Queue queue(*device);
    const RecordedStream prologue = record_of(queue, Prologue::included);
    INFO(part.model << "\n" << prologue.text);
    std::vector<std::uint32_t> expected_order = {r::SP_NC_MODE_CNTL_2.offset};
    for (const MesaMagicRow& row : part.rows) {
      INFO(std::string(row.reg->name));
      CHECK(prologue.value(*row.reg) == row.value);
      expected_order.push_back(row.reg->offset);
    }
    CHECK(prologue.value(r::SP_NC_MODE_CNTL_2) == 0);
    CHECK(prologue.write_order == expected_order);  // nothing else, in Mesa's order
  }
  device.close_and_check_ledger();
}

// SP_CS_TSIZE: the number of textures, written next to the texture descriptors, as freedreno's
// fd6_emit_textures writes num_merged_textures to SP_CS_TEX_COUNT (the register's older name).
// HLSQ_SHARED_CONSTS: 0 with each program's compute state, as Turnip's tu6_emit_cs_config writes
// it on a6xx for a pipeline without shared push constants. Both go with the program state: once
// for two dispatches of the program in one submission (carried_state_test.cpp: again in the next).
TEST_CASE("a dispatch with three textures writes SP_CS_TSIZE 3, and each program state HLSQ_SHARED_CONSTS 0",
          "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    ClBinaryBuilder builder;
    builder.name = "three_textures";
    builder.arguments = {{1, 0}, {1, 0}, {1, 0}};
    Program program = Program::from_qualcomm_binary(*device, builder.build());
    Buffer data = device->allocate({.size = 64 * 64 * 16});
    Arguments arguments(program);
    for (std::size_t i = 0; i < 3; ++i)
      arguments.set_texture(i, ImageDesc{data.view(0, 64 * 64 * 16), ImageFormat::rgba32_float, 64, 64, 64 * 16});
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
    const RecordedStream recorded = record_of(queue);
    INFO(recorded.text);
    CHECK(recorded.value(r::SP_CS_TSIZE) == 3);
    CHECK(recorded.field(r::SP_CS_CONFIG, "NTEX") == 3);
    CHECK(std::count(recorded.write_order.begin(), recorded.write_order.end(), r::SP_CS_TSIZE.offset) == 1);
    CHECK(recorded.value(r::HLSQ_SHARED_CONSTS) == 0);
    CHECK(std::count(recorded.write_order.begin(), recorded.write_order.end(), r::HLSQ_SHARED_CONSTS.offset) == 1);
  }
  device.close_and_check_ledger();
}
