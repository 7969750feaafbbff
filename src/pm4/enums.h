// Enumerations used by the compute subset of a6xx registers and PM4 packets. Each C++ enum is
// the single place its values are written; the EnumType tables next to it take the names from
// the enumerators themselves (ADRENO_PM4_ENUM stringizes them), so the decoder, the encoder and
// the virtual command processor cannot disagree. Enumerator names are Mesa's.
//
// Source: Mesa src/freedreno/registers/adreno/adreno_pm4.xml (vgt_event_type,
// adreno_pm4_type3_packets, CP_LOAD_STATE6, cp_cond_function, poll_memory_type, CP_SET_MARKER),
// a6xx.xml (a6xx_threadsize, a6xx_const_ram_mode, a6xx_isam_mode, a6xx_bindless_descriptor_size,
// a6xx_coord_round, a6xx_nearest_mode) and adreno_common.xml (a3xx_threadmode), repository
// bminor/mesa-mesa, a6xx.xml at 011ba1842ea998a6dc87697521e4fbae622c1139, adreno_pm4.xml at
// 32be52a45746a45f33dd53d74a262b6d078bc4b0; a7xx: adreno_pm4.xml's A7XX- values of
// vgt_event_type and adreno_pm4_type3_packets, CP_EVENT_WRITE7's event_write_src/_dst, and
// a6xx.xml's a7xx_workitem_rast_order (same commits). A value that exists on one generation only
// (or means something else on the other) carries that generation, as Mesa's variants do.
#pragma once

#include <cstdint>

#include "pm4/field.h"

#define ADRENO_PM4_ENUM(type, enumerator, ...) \
  ::adreno::pm4::EnumValue { static_cast<std::uint32_t>(type::enumerator), #enumerator __VA_OPT__(, ) __VA_ARGS__ }
/// A value that exists (with this meaning) only on `gens` (Mesa's variants="A6XX", "A7XX-").
#define ADRENO_PM4_ENUM_ON(gens, type, enumerator) \
  ::adreno::pm4::EnumValue { static_cast<std::uint32_t>(type::enumerator), #enumerator, {}, gens }

namespace adreno::pm4 {

/// Type-7 opcodes (adreno_pm4_type3_packets) that this library emits or decodes.
enum class Opcode : std::uint8_t {
  CP_NOP = 0x10,
  CP_WAIT_MEM_WRITES = 0x12,
  CP_WAIT_FOR_ME = 0x13,
  CP_WAIT_MEM_GTE = 0x14,
  CP_REG_RMW = 0x21,
  CP_WAIT_FOR_IDLE = 0x26,
  CP_RUN_OPENCL = 0x31,
  CP_LOAD_STATE6_GEOM = 0x32,
  CP_EXEC_CS = 0x33,
  CP_LOAD_STATE6_FRAG = 0x34,
  CP_LOAD_STATE6 = 0x36,
  CP_WAIT_REG_MEM = 0x3c,
  CP_MEM_WRITE = 0x3d,
  CP_REG_TO_MEM = 0x3e,
  CP_INDIRECT_BUFFER = 0x3f,
  CP_INTERRUPT = 0x40,
  CP_EXEC_CS_INDIRECT = 0x41,
  CP_MEM_TO_REG = 0x42,
  CP_EVENT_WRITE = 0x46,   // A2XX-A6XX
  CP_EVENT_WRITE7 = 0x46,  // A7XX-: the same opcode with CP_EVENT_WRITE7's payload
  CP_INDIRECT_BUFFER_CHAIN = 0x57,
  CP_SET_MARKER = 0x65,
  CP_MEM_TO_MEM = 0x73,
};

enum class EventType : std::uint8_t {  // vgt_event_type, a6xx values
  CACHE_FLUSH_TS = 0x04,
  CONTEXT_DONE = 0x05,
  WT_DONE_TS = 0x08,
  WRITE_PRIMITIVE_COUNTS = 0x09,
  START_PRIMITIVE_CTRS = 0x0b,
  STOP_PRIMITIVE_CTRS = 0x0c,
  START_FRAGMENT_CTRS = 0x0d,
  STOP_FRAGMENT_CTRS = 0x0e,
  START_COMPUTE_CTRS = 0x0f,
  STOP_COMPUTE_CTRS = 0x10,
  FLUSH_SO_0 = 0x11,
  FLUSH_SO_1 = 0x12,
  FLUSH_SO_2 = 0x13,
  FLUSH_SO_3 = 0x14,
  ZPASS_DONE = 0x15,
  RB_DONE_TS = 0x16,
  PC_CCU_INVALIDATE_DEPTH = 0x18,
  PC_CCU_INVALIDATE_COLOR = 0x19,
  PC_CCU_RESOLVE_TS = 0x1a,
  PC_CCU_FLUSH_DEPTH_TS = 0x1c,
  PC_CCU_FLUSH_COLOR_TS = 0x1d,
  CCU_RESOLVE = 0x1e,
  LRZ_CLEAR = 0x25,
  LRZ_FLUSH_INVALIDATE = 0x26,
  BLIT_OP_FILL_2D = 0x27,
  BLIT_OP_COPY_2D = 0x28,
  BLIT_OP_SCALE_2D = 0x2a,
  CONTEXT_DONE_2D = 0x2b,
  VSC_BINNING_START = 0x2c,
  VSC_BINNING_END = 0x2d,
  CACHE_INVALIDATE = 0x31,  // a6xx only
  CACHE_CLEAN = 0x31,       // a7xx: write back UCHE
  CACHE_FLUSH7 = 0x32,      // a7xx: write back and invalidate UCHE
  CACHE_INVALIDATE7 = 0x33,  // a7xx: invalidate UCHE
  DEBUG_LABEL = 0x3f,
};

enum class StateBlock : std::uint8_t {  // a6xx_state_block
  SB6_VS_TEX = 0x0,
  SB6_HS_TEX = 0x1,
  SB6_DS_TEX = 0x2,
  SB6_GS_TEX = 0x3,
  SB6_FS_TEX = 0x4,
  SB6_CS_TEX = 0x5,
  SB6_VS_SHADER = 0x8,
  SB6_HS_SHADER = 0x9,
  SB6_DS_SHADER = 0xa,
  SB6_GS_SHADER = 0xb,
  SB6_FS_SHADER = 0xc,
  SB6_CS_SHADER = 0xd,
  SB6_UAV = 0xe,
  SB6_CS_UAV = 0xf,
};

enum class StateType : std::uint8_t { ST6_SHADER = 0, ST6_CONSTANTS = 1, ST6_UBO = 2, ST6_UAV = 3 };
enum class StateSrc : std::uint8_t { SS6_DIRECT = 0, SS6_BINDLESS = 1, SS6_INDIRECT = 2, SS6_UBO = 3 };

enum class CondFunction : std::uint8_t {  // cp_cond_function
  WRITE_ALWAYS = 0,
  WRITE_LT = 1,
  WRITE_LE = 2,
  WRITE_EQ = 3,
  WRITE_NE = 4,
  WRITE_GE = 5,
  WRITE_GT = 6,
};

enum class PollType : std::uint8_t { POLL_REGISTER = 0, POLL_MEMORY = 1, POLL_SCRATCH = 2 };

enum class Marker : std::uint8_t {  // a6xx_marker
  RM6_DIRECT_RENDER = 1,
  RM6_BIN_VISIBILITY = 2,
  RM6_BIN_DIRECT = 3,
  RM6_BIN_RENDER_START = 4,
  RM6_BIN_END_OF_DRAWS = 5,
  RM6_BIN_RESOLVE = 6,
  RM6_BIN_RENDER_END = 7,
  RM6_COMPUTE = 8,
  RM6_BLIT2DSCALE = 12,
  RM6_IB1LIST_START = 13,
  RM6_IB1LIST_END = 14,
};

enum class EventWriteSrc : std::uint8_t {  // CP_EVENT_WRITE7 event_write_src
  EV_WRITE_USER_32B = 0,
  EV_WRITE_USER_64B = 1,
  EV_WRITE_TIMESTAMP_SUM = 2,
  EV_WRITE_ALWAYSON = 3,
  EV_WRITE_REGS_CONTENT = 4,
};
enum class EventWriteDst : std::uint8_t { EV_DST_RAM = 0, EV_DST_ONCHIP = 1 };  // event_write_dst
enum class WorkitemRastOrder : std::uint8_t { WORKITEMRASTORDER_LINEAR = 0, WORKITEMRASTORDER_TILED = 1 };

enum class SetMarkerMode : std::uint8_t { SET_RENDER_MODE = 0, SET_IFPC_MODE = 1 };
enum class ThreadMode : std::uint8_t { MULTI = 0, SINGLE = 1 };  // a3xx_threadmode
enum class ThreadSize : std::uint8_t { THREAD64 = 0, THREAD128 = 1 };
enum class ConstRamMode : std::uint8_t { CONSTLEN_128 = 0, CONSTLEN_192 = 1, CONSTLEN_256 = 2, CONSTLEN_512 = 3 };
enum class IsamMode : std::uint8_t { ISAMMODE_CL = 1, ISAMMODE_GL = 2 };
enum class BindlessDescriptorSize : std::uint8_t { BINDLESS_DESCRIPTOR_16B = 1, BINDLESS_DESCRIPTOR_64B = 3 };
enum class CoordRound : std::uint8_t { COORD_TRUNCATE = 0, COORD_ROUND_NEAREST_EVEN = 1 };
enum class NearestMode : std::uint8_t { ROUND_CLAMP_TRUNCATE = 0, CLAMP_ROUND_TRUNCATE = 1 };

namespace enum_values {
inline constexpr EnumValue kOpcode[] = {
    ADRENO_PM4_ENUM(Opcode, CP_NOP),
    ADRENO_PM4_ENUM(Opcode, CP_WAIT_MEM_WRITES),
    ADRENO_PM4_ENUM(Opcode, CP_WAIT_FOR_ME),
    ADRENO_PM4_ENUM_ON(kA6xx, Opcode, CP_WAIT_MEM_GTE),
    ADRENO_PM4_ENUM(Opcode, CP_REG_RMW),
    ADRENO_PM4_ENUM(Opcode, CP_WAIT_FOR_IDLE),
    ADRENO_PM4_ENUM(Opcode, CP_RUN_OPENCL),
    ADRENO_PM4_ENUM(Opcode, CP_LOAD_STATE6_GEOM),
    ADRENO_PM4_ENUM(Opcode, CP_EXEC_CS),
    ADRENO_PM4_ENUM(Opcode, CP_LOAD_STATE6_FRAG),
    ADRENO_PM4_ENUM(Opcode, CP_LOAD_STATE6),
    ADRENO_PM4_ENUM(Opcode, CP_WAIT_REG_MEM),
    ADRENO_PM4_ENUM(Opcode, CP_MEM_WRITE),
    ADRENO_PM4_ENUM(Opcode, CP_REG_TO_MEM),
    ADRENO_PM4_ENUM(Opcode, CP_INDIRECT_BUFFER),
    ADRENO_PM4_ENUM(Opcode, CP_INTERRUPT),
    ADRENO_PM4_ENUM(Opcode, CP_EXEC_CS_INDIRECT),
    ADRENO_PM4_ENUM(Opcode, CP_MEM_TO_REG),
    ADRENO_PM4_ENUM_ON(kA6xx, Opcode, CP_EVENT_WRITE),
    ADRENO_PM4_ENUM_ON(kA7xx, Opcode, CP_EVENT_WRITE7),
    ADRENO_PM4_ENUM(Opcode, CP_INDIRECT_BUFFER_CHAIN),
    ADRENO_PM4_ENUM(Opcode, CP_SET_MARKER),
    ADRENO_PM4_ENUM(Opcode, CP_MEM_TO_MEM),
};
inline constexpr EnumValue kEventType[] = {
    ADRENO_PM4_ENUM(EventType, CACHE_FLUSH_TS),
    ADRENO_PM4_ENUM(EventType, CONTEXT_DONE),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, WT_DONE_TS),
    ADRENO_PM4_ENUM(EventType, WRITE_PRIMITIVE_COUNTS),
    ADRENO_PM4_ENUM(EventType, START_PRIMITIVE_CTRS),
    ADRENO_PM4_ENUM(EventType, STOP_PRIMITIVE_CTRS),
    ADRENO_PM4_ENUM(EventType, START_FRAGMENT_CTRS),
    ADRENO_PM4_ENUM(EventType, STOP_FRAGMENT_CTRS),
    ADRENO_PM4_ENUM(EventType, START_COMPUTE_CTRS),
    ADRENO_PM4_ENUM(EventType, STOP_COMPUTE_CTRS),
    ADRENO_PM4_ENUM(EventType, FLUSH_SO_0),
    ADRENO_PM4_ENUM(EventType, FLUSH_SO_1),
    ADRENO_PM4_ENUM(EventType, FLUSH_SO_2),
    ADRENO_PM4_ENUM(EventType, FLUSH_SO_3),
    ADRENO_PM4_ENUM(EventType, ZPASS_DONE),
    ADRENO_PM4_ENUM(EventType, RB_DONE_TS),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, PC_CCU_INVALIDATE_DEPTH),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, PC_CCU_INVALIDATE_COLOR),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, PC_CCU_RESOLVE_TS),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, PC_CCU_FLUSH_DEPTH_TS),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, PC_CCU_FLUSH_COLOR_TS),
    ADRENO_PM4_ENUM(EventType, CCU_RESOLVE),
    ADRENO_PM4_ENUM(EventType, LRZ_CLEAR),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, LRZ_FLUSH_INVALIDATE),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, BLIT_OP_FILL_2D),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, BLIT_OP_COPY_2D),
    ADRENO_PM4_ENUM(EventType, BLIT_OP_SCALE_2D),
    ADRENO_PM4_ENUM(EventType, CONTEXT_DONE_2D),
    ADRENO_PM4_ENUM(EventType, VSC_BINNING_START),
    ADRENO_PM4_ENUM(EventType, VSC_BINNING_END),
    ADRENO_PM4_ENUM_ON(kA6xx, EventType, CACHE_INVALIDATE),
    ADRENO_PM4_ENUM_ON(kA7xx, EventType, CACHE_CLEAN),
    ADRENO_PM4_ENUM_ON(kA7xx, EventType, CACHE_FLUSH7),
    ADRENO_PM4_ENUM_ON(kA7xx, EventType, CACHE_INVALIDATE7),
    ADRENO_PM4_ENUM(EventType, DEBUG_LABEL),
};
inline constexpr EnumValue kStateBlock[] = {
    ADRENO_PM4_ENUM(StateBlock, SB6_VS_TEX),    ADRENO_PM4_ENUM(StateBlock, SB6_HS_TEX),
    ADRENO_PM4_ENUM(StateBlock, SB6_DS_TEX),    ADRENO_PM4_ENUM(StateBlock, SB6_GS_TEX),
    ADRENO_PM4_ENUM(StateBlock, SB6_FS_TEX),    ADRENO_PM4_ENUM(StateBlock, SB6_CS_TEX),
    ADRENO_PM4_ENUM(StateBlock, SB6_VS_SHADER), ADRENO_PM4_ENUM(StateBlock, SB6_HS_SHADER),
    ADRENO_PM4_ENUM(StateBlock, SB6_DS_SHADER), ADRENO_PM4_ENUM(StateBlock, SB6_GS_SHADER),
    ADRENO_PM4_ENUM(StateBlock, SB6_FS_SHADER), ADRENO_PM4_ENUM(StateBlock, SB6_CS_SHADER),
    ADRENO_PM4_ENUM(StateBlock, SB6_UAV, "SB6_IBO"), ADRENO_PM4_ENUM(StateBlock, SB6_CS_UAV, "SB6_CS_IBO"),
};
inline constexpr EnumValue kStateType[] = {
    ADRENO_PM4_ENUM(StateType, ST6_SHADER),
    ADRENO_PM4_ENUM(StateType, ST6_CONSTANTS),
    ADRENO_PM4_ENUM(StateType, ST6_UBO),
    ADRENO_PM4_ENUM(StateType, ST6_UAV, "ST6_IBO"),
};
inline constexpr EnumValue kStateSrc[] = {
    ADRENO_PM4_ENUM(StateSrc, SS6_DIRECT),
    ADRENO_PM4_ENUM(StateSrc, SS6_BINDLESS),
    ADRENO_PM4_ENUM(StateSrc, SS6_INDIRECT),
    ADRENO_PM4_ENUM(StateSrc, SS6_UBO),
};
inline constexpr EnumValue kCondFunction[] = {
    ADRENO_PM4_ENUM(CondFunction, WRITE_ALWAYS), ADRENO_PM4_ENUM(CondFunction, WRITE_LT),
    ADRENO_PM4_ENUM(CondFunction, WRITE_LE),     ADRENO_PM4_ENUM(CondFunction, WRITE_EQ),
    ADRENO_PM4_ENUM(CondFunction, WRITE_NE),     ADRENO_PM4_ENUM(CondFunction, WRITE_GE),
    ADRENO_PM4_ENUM(CondFunction, WRITE_GT),
};
inline constexpr EnumValue kPollType[] = {
    ADRENO_PM4_ENUM(PollType, POLL_REGISTER),
    ADRENO_PM4_ENUM(PollType, POLL_MEMORY),
    ADRENO_PM4_ENUM(PollType, POLL_SCRATCH),
};
inline constexpr EnumValue kMarker[] = {
    ADRENO_PM4_ENUM(Marker, RM6_DIRECT_RENDER),    ADRENO_PM4_ENUM(Marker, RM6_BIN_VISIBILITY),
    ADRENO_PM4_ENUM(Marker, RM6_BIN_DIRECT),       ADRENO_PM4_ENUM(Marker, RM6_BIN_RENDER_START),
    ADRENO_PM4_ENUM(Marker, RM6_BIN_END_OF_DRAWS), ADRENO_PM4_ENUM(Marker, RM6_BIN_RESOLVE),
    ADRENO_PM4_ENUM(Marker, RM6_BIN_RENDER_END),   ADRENO_PM4_ENUM(Marker, RM6_COMPUTE),
    ADRENO_PM4_ENUM(Marker, RM6_BLIT2DSCALE),      ADRENO_PM4_ENUM(Marker, RM6_IB1LIST_START),
    ADRENO_PM4_ENUM(Marker, RM6_IB1LIST_END),
};
inline constexpr EnumValue kEventWriteSrc[] = {
    ADRENO_PM4_ENUM(EventWriteSrc, EV_WRITE_USER_32B),     ADRENO_PM4_ENUM(EventWriteSrc, EV_WRITE_USER_64B),
    ADRENO_PM4_ENUM(EventWriteSrc, EV_WRITE_TIMESTAMP_SUM), ADRENO_PM4_ENUM(EventWriteSrc, EV_WRITE_ALWAYSON),
    ADRENO_PM4_ENUM(EventWriteSrc, EV_WRITE_REGS_CONTENT),
};
inline constexpr EnumValue kEventWriteDst[] = {ADRENO_PM4_ENUM(EventWriteDst, EV_DST_RAM), ADRENO_PM4_ENUM(EventWriteDst, EV_DST_ONCHIP)};
inline constexpr EnumValue kWorkitemRastOrder[] = {
    ADRENO_PM4_ENUM_ON(kA7xx, WorkitemRastOrder, WORKITEMRASTORDER_LINEAR),
    ADRENO_PM4_ENUM_ON(kA7xx, WorkitemRastOrder, WORKITEMRASTORDER_TILED),
};
inline constexpr EnumValue kSetMarkerMode[] = {
    ADRENO_PM4_ENUM(SetMarkerMode, SET_RENDER_MODE),
    ADRENO_PM4_ENUM(SetMarkerMode, SET_IFPC_MODE),
};
inline constexpr EnumValue kThreadMode[] = {ADRENO_PM4_ENUM(ThreadMode, MULTI), ADRENO_PM4_ENUM(ThreadMode, SINGLE)};
inline constexpr EnumValue kThreadSize[] = {ADRENO_PM4_ENUM(ThreadSize, THREAD64), ADRENO_PM4_ENUM(ThreadSize, THREAD128)};
inline constexpr EnumValue kConstRamMode[] = {
    ADRENO_PM4_ENUM(ConstRamMode, CONSTLEN_128), ADRENO_PM4_ENUM(ConstRamMode, CONSTLEN_192),
    ADRENO_PM4_ENUM(ConstRamMode, CONSTLEN_256), ADRENO_PM4_ENUM(ConstRamMode, CONSTLEN_512),
};
inline constexpr EnumValue kIsamMode[] = {ADRENO_PM4_ENUM(IsamMode, ISAMMODE_CL), ADRENO_PM4_ENUM(IsamMode, ISAMMODE_GL)};
inline constexpr EnumValue kBindlessDescriptorSize[] = {
    ADRENO_PM4_ENUM(BindlessDescriptorSize, BINDLESS_DESCRIPTOR_16B),
    ADRENO_PM4_ENUM(BindlessDescriptorSize, BINDLESS_DESCRIPTOR_64B),
};
inline constexpr EnumValue kCoordRound[] = {
    ADRENO_PM4_ENUM(CoordRound, COORD_TRUNCATE),
    ADRENO_PM4_ENUM(CoordRound, COORD_ROUND_NEAREST_EVEN),
};
inline constexpr EnumValue kNearestMode[] = {
    ADRENO_PM4_ENUM(NearestMode, ROUND_CLAMP_TRUNCATE),
    ADRENO_PM4_ENUM(NearestMode, CLAMP_ROUND_TRUNCATE),
};
}  // namespace enum_values

namespace enums {
inline constexpr EnumType kOpcode{"adreno_pm4_type3_packets", enum_values::kOpcode};
inline constexpr EnumType kEventType{"vgt_event_type", enum_values::kEventType};
inline constexpr EnumType kStateBlock{"a6xx_state_block", enum_values::kStateBlock};
inline constexpr EnumType kStateType{"a6xx_state_type", enum_values::kStateType};
inline constexpr EnumType kStateSrc{"a6xx_state_src", enum_values::kStateSrc};
inline constexpr EnumType kCondFunction{"cp_cond_function", enum_values::kCondFunction};
inline constexpr EnumType kPollType{"poll_memory_type", enum_values::kPollType};
inline constexpr EnumType kMarker{"a6xx_marker", enum_values::kMarker};
inline constexpr EnumType kEventWriteSrc{"event_write_src", enum_values::kEventWriteSrc};
inline constexpr EnumType kEventWriteDst{"event_write_dst", enum_values::kEventWriteDst};
inline constexpr EnumType kWorkitemRastOrder{"a7xx_workitem_rast_order", enum_values::kWorkitemRastOrder};
inline constexpr EnumType kSetMarkerMode{"set_marker_mode", enum_values::kSetMarkerMode};
inline constexpr EnumType kThreadMode{"a3xx_threadmode", enum_values::kThreadMode};
inline constexpr EnumType kThreadSize{"a6xx_threadsize", enum_values::kThreadSize};
inline constexpr EnumType kConstRamMode{"a6xx_const_ram_mode", enum_values::kConstRamMode};
inline constexpr EnumType kIsamMode{"a6xx_isam_mode", enum_values::kIsamMode};
inline constexpr EnumType kBindlessDescriptorSize{"a6xx_bindless_descriptor_size", enum_values::kBindlessDescriptorSize};
inline constexpr EnumType kCoordRound{"a6xx_coord_round", enum_values::kCoordRound};
inline constexpr EnumType kNearestMode{"a6xx_nearest_mode", enum_values::kNearestMode};
}  // namespace enums

}  // namespace adreno::pm4
