// Payload layouts of the type-7 packets this library emits, in the register-database schema:
// a payload entry's offset is its dword index after the header (adreno_pm4.xml describes each
// packet as a <domain> the same way). The packet builders pack through these fields and the
// decoder prints them, so the layout is written once.
//
// Source: Mesa src/freedreno/registers/adreno/adreno_pm4.xml, repository bminor/mesa-mesa,
// commit 32be52a45746a45f33dd53d74a262b6d078bc4b0 (domains CP_LOAD_STATE6, CP_EVENT_WRITE,
// CP_MEM_WRITE, CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE, CP_REG_TO_MEM, CP_MEM_TO_MEM, CP_EXEC_CS,
// CP_SET_MARKER, CP_INDIRECT_BUFFER, and a7xx's CP_EVENT_WRITE7 — its EV_DST_RAM stripe). Where
// the XML gives a reg64 and the same dwords as two reg32s, the reg64 form is used. An opcode can
// carry different packets per generation (0x46 is CP_EVENT_WRITE up to a6xx, CP_EVENT_WRITE7 on
// a7xx): a layout names the generations it is for.
#pragma once

#include <span>
#include <string_view>

#include "pm4/enums.h"
#include "pm4/field.h"

namespace adreno::pm4 {

struct PacketLayout {
  Opcode opcode;
  std::span<const Register> payload;  // empty: no fixed payload fields
  GenMask gens = kA6xx | kA7xx;
};

namespace packet_fields {
using FT = FieldType;
inline constexpr Field kWhole32[] = {{"", 0, 31, 0, FT::hex}};
inline constexpr Field kUint32[] = {{"", 0, 31, 0, FT::uint}};
inline constexpr Field kAddress64[] = {{"", 0, 63, 0, FT::address}};
inline constexpr Field kLoadState6_0[] = {
    {"DST_OFF", 0, 13, 0, FT::uint},
    {"STATE_TYPE", 14, 15, 0, FT::enumeration, &enums::kStateType},
    {"STATE_SRC", 16, 17, 0, FT::enumeration, &enums::kStateSrc},
    {"STATE_BLOCK", 18, 21, 0, FT::enumeration, &enums::kStateBlock},
    {"NUM_UNIT", 22, 31, 0, FT::uint},
};
inline constexpr Field kEventWrite0[] = {
    {"EVENT", 0, 7, 0, FT::enumeration, &enums::kEventType},
    {"TIMESTAMP", 30, 30, 0, FT::boolean},
    {"IRQ", 31, 31, 0, FT::boolean},
};
inline constexpr Field kEventWrite7_0[] = {
    {"EVENT", 0, 7, 0, FT::enumeration, &enums::kEventType},
    {"WRITE_SAMPLE_COUNT", 12, 12, 0, FT::boolean},
    {"SAMPLE_COUNT_END_OFFSET", 13, 13, 0, FT::boolean},
    {"WRITE_ACCUM_SAMPLE_COUNT_DIFF", 14, 14, 0, FT::boolean},
    {"INC_BV_COUNT", 16, 16, 0, FT::boolean},
    {"INC_BR_COUNT", 17, 17, 0, FT::boolean},
    {"CLEAR_RENDER_RESOURCE", 18, 18, 0, FT::boolean},
    {"CLEAR_LRZ_RESOURCE", 19, 19, 0, FT::boolean},
    {"WRITE_SRC", 20, 22, 0, FT::enumeration, &enums::kEventWriteSrc},
    {"WRITE_DST", 24, 24, 0, FT::enumeration, &enums::kEventWriteDst},
    {"WRITE_ENABLED", 27, 27, 0, FT::boolean},
    {"IRQ", 31, 31, 0, FT::boolean},
};
inline constexpr Field kPayload0[] = {{"PAYLOAD_0", 0, 31, 0, FT::hex}};
inline constexpr Field kPayload1[] = {{"PAYLOAD_1", 0, 31, 0, FT::hex}};
inline constexpr Field kWaitRegMem0[] = {
    {"FUNCTION", 0, 2, 0, FT::enumeration, &enums::kCondFunction},
    {"SIGNED_COMPARE", 3, 3, 0, FT::boolean},
    {"POLL", 4, 5, 0, FT::enumeration, &enums::kPollType},
    {"WRITE_MEMORY", 8, 8, 0, FT::boolean},
};
inline constexpr Field kRef[] = {{"REF", 0, 31, 0, FT::hex}};
inline constexpr Field kMask[] = {{"MASK", 0, 31, 0, FT::hex}};
inline constexpr Field kDelayLoopCycles[] = {{"DELAY_LOOP_CYCLES", 0, 31, 0, FT::uint}};
inline constexpr Field kReserved[] = {{"RESERVED", 0, 31, 0, FT::hex}};
inline constexpr Field kRegToMem0[] = {
    {"REG", 0, 17, 0, FT::hex},
    {"CNT", 18, 29, 0, FT::uint},
    {"64B", 30, 30, 0, FT::boolean},
    {"ACCUMULATE", 31, 31, 0, FT::boolean},
};
inline constexpr Field kMemToMem0[] = {
    {"NEG_A", 0, 0, 0, FT::boolean},
    {"NEG_B", 1, 1, 0, FT::boolean},
    {"NEG_C", 2, 2, 0, FT::boolean},
    {"DOUBLE", 29, 29, 0, FT::boolean},
    {"WAIT_FOR_MEM_WRITES", 30, 30, 0, FT::boolean},
    {"UNK31", 31, 31, 0, FT::boolean},
};
inline constexpr Field kNgroupsX[] = {{"NGROUPS_X", 0, 31, 0, FT::uint}};
// CP_EXEC_CS_INDIRECT dword 3 (A5XX-): the local size minus one.
inline constexpr Field kExecCsIndirect3[] = {
    {"LOCALSIZEX", 2, 11, 0, FT::uint}, {"LOCALSIZEY", 12, 21, 0, FT::uint}, {"LOCALSIZEZ", 22, 31, 0, FT::uint}};
inline constexpr Field kNgroupsY[] = {{"NGROUPS_Y", 0, 31, 0, FT::uint}};
inline constexpr Field kNgroupsZ[] = {{"NGROUPS_Z", 0, 31, 0, FT::uint}};
inline constexpr Field kSetMarker0[] = {
    {"MODE", 0, 3, 0, FT::enumeration, &enums::kMarker},
    {"USES_GMEM", 4, 4, 0, FT::boolean},
    {"MARKER_MODE", 8, 8, 0, FT::enumeration, &enums::kSetMarkerMode},
};
inline constexpr Field kIbSize[] = {{"IB_SIZE", 0, 19, 0, FT::uint}};
}  // namespace packet_fields

namespace packet_payloads {
namespace pf = packet_fields;
constexpr Register dword(std::uint32_t index, std::string_view name, std::span<const Field> fields) {
  return Register{index, name, "", fields, 1, 1, 0, kA6xx | kA7xx};
}
constexpr Register qword(std::uint32_t index, std::string_view name, std::span<const Field> fields) {
  return Register{index, name, "", fields, 2, 1, 0, kA6xx | kA7xx};
}
inline constexpr Register kLoadState6[] = {
    dword(0, "0", pf::kLoadState6_0),
    qword(1, "EXT_SRC_ADDR", pf::kAddress64),
};
inline constexpr Register kEventWrite[] = {
    dword(0, "0", pf::kEventWrite0),
    qword(1, "ADDR", pf::kAddress64),
    dword(3, "3", pf::kWhole32),
};
inline constexpr Register kEventWrite7[] = {
    dword(0, "0", pf::kEventWrite7_0),
    qword(1, "1", pf::kAddress64),
    dword(3, "3", pf::kPayload0),
    dword(4, "4", pf::kPayload1),
};
inline constexpr Register kMemWrite[] = {qword(0, "ADDR", pf::kAddress64)};
inline constexpr Register kWaitRegMem[] = {
    dword(0, "0", pf::kWaitRegMem0),
    qword(1, "POLL_ADDR", pf::kAddress64),
    dword(3, "3", pf::kRef),
    dword(4, "4", pf::kMask),
    dword(5, "5", pf::kDelayLoopCycles),
};
inline constexpr Register kWaitMemGte[] = {
    dword(0, "0", pf::kReserved),
    qword(1, "POLL_ADDR", pf::kAddress64),
    dword(3, "3", pf::kRef),
};
inline constexpr Register kRegToMem[] = {
    dword(0, "0", pf::kRegToMem0),
    qword(1, "DEST", pf::kAddress64),
};
inline constexpr Register kMemToMem[] = {
    dword(0, "0", pf::kMemToMem0),
    qword(1, "DST", pf::kAddress64),
    qword(3, "SRC_A", pf::kAddress64),
    qword(5, "SRC_B", pf::kAddress64),
    qword(7, "SRC_C", pf::kAddress64),
};
inline constexpr Register kExecCs[] = {
    dword(0, "0", pf::kWhole32),
    dword(1, "1", pf::kNgroupsX),
    dword(2, "2", pf::kNgroupsY),
    dword(3, "3", pf::kNgroupsZ),
};
inline constexpr Register kExecCsIndirect[] = {
    dword(0, "0", pf::kWhole32),
    qword(1, "ADDR", pf::kAddress64),
    dword(3, "3", pf::kExecCsIndirect3),
};
inline constexpr Register kSetMarker[] = {dword(0, "0", pf::kSetMarker0)};
inline constexpr Register kIndirectBuffer[] = {
    qword(0, "IB_BASE", pf::kAddress64),
    dword(2, "2", pf::kIbSize),
};
}  // namespace packet_payloads

namespace pp = packet_payloads;
inline constexpr PacketLayout kPacketLayouts[] = {
    {Opcode::CP_NOP, {}},
    {Opcode::CP_WAIT_MEM_WRITES, {}},
    {Opcode::CP_WAIT_FOR_ME, {}},
    {Opcode::CP_WAIT_MEM_GTE, pp::kWaitMemGte, kA6xx},
    {Opcode::CP_WAIT_FOR_IDLE, {}},
    {Opcode::CP_RUN_OPENCL, {}},
    {Opcode::CP_LOAD_STATE6_GEOM, pp::kLoadState6},
    {Opcode::CP_EXEC_CS, pp::kExecCs},
    {Opcode::CP_EXEC_CS_INDIRECT, pp::kExecCsIndirect},
    {Opcode::CP_LOAD_STATE6_FRAG, pp::kLoadState6},
    {Opcode::CP_LOAD_STATE6, pp::kLoadState6},
    {Opcode::CP_WAIT_REG_MEM, pp::kWaitRegMem},
    {Opcode::CP_MEM_WRITE, pp::kMemWrite},
    {Opcode::CP_REG_TO_MEM, pp::kRegToMem},
    {Opcode::CP_INDIRECT_BUFFER, pp::kIndirectBuffer},
    {Opcode::CP_EVENT_WRITE, pp::kEventWrite, kA6xx},
    {Opcode::CP_EVENT_WRITE7, pp::kEventWrite7, kA7xx},
    {Opcode::CP_INDIRECT_BUFFER_CHAIN, pp::kIndirectBuffer},
    {Opcode::CP_SET_MARKER, pp::kSetMarker},
    {Opcode::CP_MEM_TO_MEM, pp::kMemToMem},
};

/// The payload layout of `opcode` on `gens`, or nullptr when this library has none for it there.
constexpr const PacketLayout* find_packet_layout(Opcode opcode, GenMask gens = kA6xxA7xx) {
  for (const PacketLayout& layout : kPacketLayouts)
    if (layout.opcode == opcode && (layout.gens & gens) != 0) return &layout;
  return nullptr;
}

/// The payload entry named `name` of `opcode` on `gens` (for packing with constant field
/// descriptors); CP_EVENT_WRITE7 needs gens = kA7xx, as its opcode is CP_EVENT_WRITE's.
constexpr const Register& payload_entry(Opcode opcode, std::string_view name, GenMask gens = kA6xxA7xx) {
  const PacketLayout* layout = find_packet_layout(opcode, gens);
  for (const Register& entry : layout->payload)
    if (entry.name == name) return entry;
  throw_no_such_field(layout->payload.front(), name);
}

}  // namespace adreno::pm4
