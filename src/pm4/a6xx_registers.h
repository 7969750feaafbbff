// The compute subset of the a6xx register file: every register Mesa's computerator a6xx
// backend, Turnip's compute dispatch and tinygrad's ops_qcom.py write for a dispatch on a630,
// plus the counters they read for timestamps. Offsets, bit ranges, shifts and types are from
// Mesa src/freedreno/registers/adreno/a6xx.xml (repository bminor/mesa-mesa, commit
// 011ba1842ea998a6dc87697521e4fbae622c1139); names are that file's current names. former_names
// lists the names the same offsets had in older Mesa releases, which tinygrad, kernel sources and
// published traces still use (e.g. SP_CS_INSTRLEN, HLSQ_CS_NDRANGE_0, HLSQ_INVALIDATE_CMD).
// Beware: two former names (SP_CS_CNTL_0/1 at 0xa9c2/0xa9c3) are current names elsewhere; name
// lookup prefers current names.
//
// a7xx: every entry carries the generations it exists on (Mesa's variants="A6XX", "A7XX-"):
// kA6xxA7xx where a7xx has the register at the same offset with the same fields, kA6xx or kA7xx
// where it differs; an a7xx register that moved or changed fields is a separate entry named
// *_A7XX with Mesa's name. The a7xx entries are every register the compute path writes on a7xx
// (Mesa d02ba9bb9c01 computerator's submission on a740, ../shared/reference/computerator) and
// the per-chip registers of freedreno_devices.py's a730/a740/a750 raw_magic_regs and magic_regs; their
// offsets and fields are a6xx.xml's A7XX variants (tests/pm4/mesa_register_database_test.cpp
// checks them against Mesa's extracted facts).
#pragma once

#include "pm4/enums.h"
#include "pm4/field.h"

namespace adreno::pm4::a6xx {

namespace field_sets {
using FT = FieldType;
inline constexpr Field kHex32[] = {{"", 0, 31, 0, FT::hex}};
inline constexpr Field kUint32[] = {{"", 0, 31, 0, FT::uint}};
inline constexpr Field kHex64[] = {{"", 0, 63, 0, FT::hex}};
inline constexpr Field kAddress64[] = {{"", 0, 63, 0, FT::address}};
inline constexpr Field kUint0to7[] = {{"", 0, 7, 0, FT::uint}};
inline constexpr Field kUint0to6[] = {{"", 0, 6, 0, FT::uint}};
inline constexpr Field kUint0to27[] = {{"", 0, 27, 0, FT::uint}};
inline constexpr Field kHex0to25[] = {{"", 0, 25, 0, FT::hex}};
inline constexpr Field kHex0to16[] = {{"", 0, 16, 0, FT::hex}};

inline constexpr Field kSpCsCntl0[] = {
    {"THREADMODE", 0, 0, 0, FT::enumeration, &enums::kThreadMode},
    {"HALFREGFOOTPRINT", 1, 6, 0, FT::uint},
    {"FULLREGFOOTPRINT", 7, 12, 0, FT::uint},
    {"UNK13", 13, 13, 0, FT::boolean},
    {"BRANCHSTACK", 14, 19, 0, FT::uint},
    {"THREADSIZE", 20, 20, 0, FT::enumeration, &enums::kThreadSize},
    {"UNK21", 21, 21, 0, FT::boolean},
    {"UNK22", 22, 22, 0, FT::boolean},
    {"EARLYPREAMBLE", 23, 23, 0, FT::boolean},
    {"MERGEDREGS", 31, 31, 0, FT::boolean},
};
inline constexpr Field kSpCsCntl1[] = {
    {"SHARED_SIZE", 0, 4, 0, FT::uint},
    {"CONSTANTRAMMODE", 5, 6, 0, FT::enumeration, &enums::kConstRamMode},
};
inline constexpr Field kPvtMemParam[] = {
    {"MEMSIZEPERITEM", 0, 7, 9, FT::uint},
    {"HWSTACKSIZEPERTHREAD", 24, 31, 0, FT::uint},
};
inline constexpr Field kPvtMemSize[] = {
    {"TOTALPVTMEMSIZE", 0, 17, 12, FT::uint},
    {"PERWAVEMEMLAYOUT", 31, 31, 0, FT::boolean},
};
inline constexpr Field kPvtMemStackOffset[] = {{"OFFSET", 0, 18, 11, FT::uint}};
inline constexpr Field kSpXsConfig[] = {
    {"BINDLESS_TEX", 0, 0, 0, FT::boolean},
    {"BINDLESS_SAMP", 1, 1, 0, FT::boolean},
    {"BINDLESS_UAV", 2, 2, 0, FT::boolean},
    {"BINDLESS_UBO", 3, 3, 0, FT::boolean},
    {"ENABLED", 8, 8, 0, FT::boolean},
    {"NTEX", 9, 16, 0, FT::uint},
    {"NSAMP", 17, 21, 0, FT::uint},
    {"NUAV", 22, 28, 0, FT::uint},
};
inline constexpr Field kCsWorkItemIds[] = {  // SP_CS_CONST_CONFIG_0 and SP_CS_WIE_CNTL_0
    {"WGIDCONSTID", 0, 7, 0, FT::regid},
    {"WGSIZECONSTID", 8, 15, 0, FT::regid},
    {"WGOFFSETCONSTID", 16, 23, 0, FT::regid},
    {"LOCALIDREGID", 24, 31, 0, FT::regid},
};
inline constexpr Field kCsWieCntl1A7xx[] = {
    {"LINEARLOCALIDREGID", 0, 7, 0, FT::regid},
    {"THREADSIZE", 8, 8, 0, FT::enumeration, &enums::kThreadSize},
    {"THREADSIZE_SCALAR", 9, 9, 0, FT::boolean},
    {"WORKITEMRASTORDER", 15, 15, 0, FT::enumeration, &enums::kWorkitemRastOrder},
};
inline constexpr Field kCsWgeCntlA7xx[] = {
    {"LINEARLOCALIDREGID", 0, 7, 0, FT::regid},
    {"THREADSIZE", 9, 9, 0, FT::enumeration, &enums::kThreadSize},
    {"WORKGROUPRASTORDERZFIRSTEN", 11, 11, 0, FT::boolean},
    {"WGTILEWIDTH", 20, 25, 0, FT::uint},
    {"WGTILEHEIGHT", 26, 31, 0, FT::uint},
};
inline constexpr Field kCsNdrange7[] = {
    {"LOCALSIZEX", 2, 11, 0, FT::uint},
    {"LOCALSIZEY", 12, 21, 0, FT::uint},
    {"LOCALSIZEZ", 22, 31, 0, FT::uint},
};
inline constexpr Field kSpHlsqModeCntl[] = {{"SHARED_CONSTS_ENABLE", 0, 0, 0, FT::boolean}};
inline constexpr Field kRbLrzCntl2[] = {{"ENABLE_BIDIRECTIONAL_LRZ", 0, 0, 0, FT::boolean}};
inline constexpr Field kTpl1DbgEcoCntl1[] = {{"TP_UBWC_FLAG_HINT", 18, 18, 0, FT::boolean}};
inline constexpr Field kSpPsOutputConstCntl[] = {{"ENABLED", 0, 0, 0, FT::boolean}};
inline constexpr Field kSpPsOutputConstMask[] = {
    {"RT0", 0, 3, 0, FT::hex},   {"RT1", 4, 7, 0, FT::hex},   {"RT2", 8, 11, 0, FT::hex},  {"RT3", 12, 15, 0, FT::hex},
    {"RT4", 16, 19, 0, FT::hex}, {"RT5", 20, 23, 0, FT::hex}, {"RT6", 24, 27, 0, FT::hex}, {"RT7", 28, 31, 0, FT::hex},
};
inline constexpr Field kCsWgeCntl[] = {  // SP_CS_WGE_CNTL and SP_CS_WIE_CNTL_1 on a6xx
    {"LINEARLOCALIDREGID", 0, 7, 0, FT::regid},
    {"SINGLE_SP_CORE", 8, 8, 0, FT::boolean},
    {"THREADSIZE", 9, 9, 0, FT::enumeration, &enums::kThreadSize},
    {"THREADSIZE_SCALAR", 10, 10, 0, FT::boolean},
};
inline constexpr Field kBindlessBase[] = {
    {"DESC_SIZE", 0, 1, 0, FT::enumeration, &enums::kBindlessDescriptorSize},
    {"ADDR", 2, 63, 2, FT::address},
};
inline constexpr Field kSpModeCntl[] = {
    {"CONSTANT_DEMOTION_ENABLE", 0, 0, 0, FT::boolean},
    {"ISAMMODE", 1, 2, 0, FT::enumeration, &enums::kIsamMode},
    {"SHARED_CONSTS_ENABLE", 3, 3, 0, FT::boolean},
};
inline constexpr Field kSpRegProgId0[] = {
    {"FACEREGID", 0, 7, 0, FT::regid},
    {"SAMPLEID", 8, 15, 0, FT::regid},
    {"SAMPLEMASK", 16, 23, 0, FT::regid},
    {"CENTERRHW", 24, 31, 0, FT::regid},
};
inline constexpr Field kSpRegProgId1[] = {
    {"IJ_PERSP_PIXEL", 0, 7, 0, FT::regid},
    {"IJ_LINEAR_PIXEL", 8, 15, 0, FT::regid},
    {"IJ_PERSP_CENTROID", 16, 23, 0, FT::regid},
    {"IJ_LINEAR_CENTROID", 24, 31, 0, FT::regid},
};
inline constexpr Field kSpRegProgId2[] = {
    {"IJ_PERSP_SAMPLE", 0, 7, 0, FT::regid},
    {"IJ_LINEAR_SAMPLE", 8, 15, 0, FT::regid},
    {"XYCOORDREGID", 16, 23, 0, FT::regid},
    {"ZWCOORDREGID", 24, 31, 0, FT::regid},
};
inline constexpr Field kSpRegProgId3[] = {
    {"LINELENGTHREGID", 0, 7, 0, FT::regid},
    {"FOVEATIONQUALITYREGID", 8, 15, 0, FT::regid},
};
inline constexpr Field kSpPsWaveCntl[] = {
    {"THREADSIZE", 0, 0, 0, FT::enumeration, &enums::kThreadSize},
    {"VARYINGS", 1, 1, 0, FT::boolean},
    {"UNK2", 2, 11, 0, FT::hex},
};
inline constexpr Field kSpLbParamLimit[] = {{"PRIMALLOCTHRESHOLD", 0, 2, 0, FT::uint}};
inline constexpr Field kXsConstConfig[] = {
    {"CONSTLEN", 0, 7, 2, FT::uint},
    {"ENABLED", 8, 8, 0, FT::boolean},
};
inline constexpr Field kXsConstConfigA7xx[] = {
    {"CONSTLEN", 0, 7, 2, FT::uint},
    {"ENABLED", 8, 8, 0, FT::boolean},
    {"READ_IMM_SHARED_CONSTS", 9, 9, 0, FT::boolean},
};
inline constexpr Field kCsNdrange0[] = {
    {"KERNELDIM", 0, 1, 0, FT::uint},
    {"LOCALSIZEX", 2, 11, 0, FT::uint},
    {"LOCALSIZEY", 12, 21, 0, FT::uint},
    {"LOCALSIZEZ", 22, 31, 0, FT::uint},
};
inline constexpr Field kGlobalSizeX[] = {{"GLOBALSIZE_X", 0, 31, 0, FT::uint}};
inline constexpr Field kGlobalOffX[] = {{"GLOBALOFF_X", 0, 31, 0, FT::uint}};
inline constexpr Field kGlobalSizeY[] = {{"GLOBALSIZE_Y", 0, 31, 0, FT::uint}};
inline constexpr Field kGlobalOffY[] = {{"GLOBALOFF_Y", 0, 31, 0, FT::uint}};
inline constexpr Field kGlobalSizeZ[] = {{"GLOBALSIZE_Z", 0, 31, 0, FT::uint}};
inline constexpr Field kGlobalOffZ[] = {{"GLOBALOFF_Z", 0, 31, 0, FT::uint}};
inline constexpr Field kSpUpdateCntl[] = {
    {"VS_STATE", 0, 0, 0, FT::boolean},
    {"HS_STATE", 1, 1, 0, FT::boolean},
    {"DS_STATE", 2, 2, 0, FT::boolean},
    {"GS_STATE", 3, 3, 0, FT::boolean},
    {"FS_STATE", 4, 4, 0, FT::boolean},
    {"CS_STATE", 5, 5, 0, FT::boolean},
    {"CS_UAV", 6, 6, 0, FT::boolean},
    {"GFX_UAV", 7, 7, 0, FT::boolean},
    {"GFX_SHARED_CONST", 8, 8, 0, FT::boolean},
    {"CS_BINDLESS", 9, 13, 0, FT::hex},
    {"GFX_BINDLESS", 14, 18, 0, FT::hex},
    {"CS_SHARED_CONST", 19, 19, 0, FT::boolean},
};
inline constexpr Field kSpUpdateCntlA7xx[] = {
    {"VS_STATE", 0, 0, 0, FT::boolean},
    {"HS_STATE", 1, 1, 0, FT::boolean},
    {"DS_STATE", 2, 2, 0, FT::boolean},
    {"GS_STATE", 3, 3, 0, FT::boolean},
    {"FS_STATE", 4, 4, 0, FT::boolean},
    {"CS_STATE", 5, 5, 0, FT::boolean},
    {"CS_UAV", 6, 6, 0, FT::boolean},
    {"GFX_UAV", 7, 7, 0, FT::boolean},
    {"CS_BINDLESS", 9, 16, 0, FT::hex},
    {"GFX_BINDLESS", 17, 24, 0, FT::hex},
};
inline constexpr Field kEnableBit[] = {{"ENABLE", 0, 0, 0, FT::boolean}};
inline constexpr Field kStateId[] = {{"STATE_ID", 0, 7, 0, FT::uint}};
inline constexpr Field kPerfctrShaderMask[] = {
    {"VS", 0, 0, 0, FT::boolean}, {"HS", 1, 1, 0, FT::boolean}, {"DS", 2, 2, 0, FT::boolean},
    {"GS", 3, 3, 0, FT::boolean}, {"FS", 4, 4, 0, FT::boolean}, {"CS", 5, 5, 0, FT::boolean},
};
inline constexpr Field kSpNcModeCntl2[] = {{"F16_NO_INF", 3, 3, 0, FT::boolean}};
inline constexpr Field kTpl1ModeCntl[] = {
    {"ISAMMODE", 0, 1, 0, FT::enumeration, &enums::kIsamMode},
    {"TEXCOORDROUNDMODE", 2, 2, 0, FT::enumeration, &enums::kCoordRound},
    {"NEARESTMIPSNAP", 5, 5, 0, FT::enumeration, &enums::kNearestMode},
    {"DESTDATATYPEOVERRIDE", 7, 7, 0, FT::boolean},
};
inline constexpr Field kTpl1NcModeCntl[] = {
    {"MODE", 0, 0, 0, FT::boolean},
    {"LOWER_BIT", 1, 2, 0, FT::uint},
    {"MIN_ACCESS_LENGTH", 3, 3, 0, FT::boolean},
    {"UPPER_BIT", 4, 4, 0, FT::uint},
    {"UNK6", 6, 7, 0, FT::hex},
};
inline constexpr Field kUcheClientPf[] = {{"PERFSEL", 0, 7, 0, FT::hex}};
inline constexpr Field kGrasDbgEcoCntl[] = {{"UNK7", 7, 7, 0, FT::boolean}, {"LRZCACHELOCKDIS", 11, 11, 0, FT::boolean}};
inline constexpr Field kTpl1PsRotationCntl[] = {{"", 0, 2, 0, FT::hex}};
inline constexpr Field kTpl1PsSwizzleCntl[] = {{"", 0, 23, 0, FT::hex}};
}  // namespace field_sets

namespace fs = field_sets;

constexpr Register reg32(std::uint32_t offset, std::string_view name, std::string_view former,
                         std::span<const Field> fields, GenMask gens = kA6xx) {
  return Register{offset, name, former, fields, 1, 1, 0, gens};
}
constexpr Register reg64(std::uint32_t offset, std::string_view name, std::string_view former,
                         std::span<const Field> fields, GenMask gens = kA6xx) {
  return Register{offset, name, former, fields, 2, 1, 0, gens};
}
constexpr Register array(std::uint32_t offset, std::string_view name, std::string_view former,
                         std::span<const Field> fields, std::uint8_t dwords, std::uint16_t length,
                         std::uint16_t stride, GenMask gens = kA6xx) {
  return Register{offset, name, former, fields, dwords, length, stride, gens};
}

// Timestamps and counters.
inline constexpr Register RBBM_PERFCTR_CP = array(0x0400, "RBBM_PERFCTR_CP", "RBBM_PERFCTR_CP_0_LO", fs::kHex64, 2, 14, 2);
inline constexpr Register RBBM_PERFCTR_SP = array(0x04a6, "RBBM_PERFCTR_SP", "RBBM_PERFCTR_SP_0_LO", fs::kHex64, 2, 24, 2);
inline constexpr Register RBBM_PERFCTR_CNTL = reg32(0x0500, "RBBM_PERFCTR_CNTL", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register CP_SCRATCH = array(0x0883, "CP_SCRATCH", "CP_SCRATCH_REG", fs::kUint32, 1, 8, 1, kA6xxA7xx);
inline constexpr Register CP_PERFCTR_CP_SEL = array(0x08d0, "CP_PERFCTR_CP_SEL", "", fs::kHex32, 1, 14, 1, kA6xxA7xx);
inline constexpr Register CP_ALWAYS_ON_COUNTER = reg64(0x0980, "CP_ALWAYS_ON_COUNTER", "CP_ALWAYS_ON_COUNTER_LO", fs::kHex64, kA6xxA7xx);

// UCHE.
inline constexpr Register UCHE_MODE_CNTL = reg32(0x0e01, "UCHE_MODE_CNTL", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register UCHE_WRITE_RANGE_MAX = reg64(0x0e05, "UCHE_WRITE_RANGE_MAX", "UCHE_WRITE_RANGE_MAX_LO", fs::kAddress64);
inline constexpr Register UCHE_WRITE_THRU_BASE = reg64(0x0e07, "UCHE_WRITE_THRU_BASE", "UCHE_WRITE_THRU_BASE_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register UCHE_TRAP_BASE = reg64(0x0e09, "UCHE_TRAP_BASE", "UCHE_TRAP_BASE_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register UCHE_GMEM_RANGE_MIN = reg64(0x0e0b, "UCHE_GMEM_RANGE_MIN", "UCHE_GMEM_RANGE_MIN_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register UCHE_GMEM_RANGE_MAX = reg64(0x0e0d, "UCHE_GMEM_RANGE_MAX", "UCHE_GMEM_RANGE_MAX_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register UCHE_UNKNOWN_0E12 = reg32(0x0e12, "UCHE_UNKNOWN_0E12", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register UCHE_CACHE_WAYS = reg32(0x0e17, "UCHE_CACHE_WAYS", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register UCHE_FILTER_CNTL = reg32(0x0e18, "UCHE_FILTER_CNTL", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register UCHE_CLIENT_PF = reg32(0x0e19, "UCHE_CLIENT_PF", "", fs::kUcheClientPf, kA6xxA7xx);
inline constexpr Register UCHE_PERFCTR_UCHE_SEL = array(0x0e1c, "UCHE_PERFCTR_UCHE_SEL", "", fs::kHex32, 1, 12, 1, kA6xxA7xx);

// SP compute-shader state.
// Per-chip debug/ECO and power registers Mesa writes before compute (freedreno_devices.py raw_magic_regs).
inline constexpr Register GRAS_DBG_ECO_CNTL = reg32(0x8600, "GRAS_DBG_ECO_CNTL", "", fs::kGrasDbgEcoCntl, kA6xxA7xx);
inline constexpr Register VPC_DBG_ECO_CNTL = reg32(0x9600, "VPC_DBG_ECO_CNTL", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register PC_MODE_CNTL = reg32(0x9804, "PC_MODE_CNTL", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register PC_POWER_CNTL = reg32(0x9805, "PC_POWER_CNTL", "", fs::kHex32);
inline constexpr Register VFD_POWER_CNTL = reg32(0xa0f8, "VFD_POWER_CNTL", "", fs::kHex32);
inline constexpr Register SP_UNKNOWN_A9A8 = reg32(0xa9a8, "SP_UNKNOWN_A9A8", "", fs::kHex0to16, kA6xxA7xx);
inline constexpr Register SP_CS_CNTL_0 = reg32(0xa9b0, "SP_CS_CNTL_0", "SP_CS_CTRL_REG0", fs::kSpCsCntl0, kA6xxA7xx);
inline constexpr Register SP_CS_CNTL_1 = reg32(0xa9b1, "SP_CS_CNTL_1", "SP_CS_UNKNOWN_A9B1", fs::kSpCsCntl1, kA6xxA7xx);
inline constexpr Register SP_CS_BOOLEAN_CF_MASK = reg32(0xa9b2, "SP_CS_BOOLEAN_CF_MASK", "SP_CS_BRANCH_COND", fs::kHex32, kA6xxA7xx);
inline constexpr Register SP_CS_PROGRAM_COUNTER_OFFSET = reg32(0xa9b3, "SP_CS_PROGRAM_COUNTER_OFFSET", "SP_CS_OBJ_FIRST_EXEC_OFFSET", fs::kUint32, kA6xxA7xx);
inline constexpr Register SP_CS_BASE = reg64(0xa9b4, "SP_CS_BASE", "SP_CS_OBJ_START SP_CS_OBJ_START_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register SP_CS_PVT_MEM_PARAM = reg32(0xa9b6, "SP_CS_PVT_MEM_PARAM", "", fs::kPvtMemParam, kA6xxA7xx);
inline constexpr Register SP_CS_PVT_MEM_BASE = reg64(0xa9b7, "SP_CS_PVT_MEM_BASE", "SP_CS_PVT_MEM_ADDR SP_CS_PVT_MEM_ADDR_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register SP_CS_PVT_MEM_SIZE = reg32(0xa9b9, "SP_CS_PVT_MEM_SIZE", "", fs::kPvtMemSize, kA6xxA7xx);
inline constexpr Register SP_CS_TSIZE = reg32(0xa9ba, "SP_CS_TSIZE", "SP_CS_TEX_COUNT", fs::kUint0to7, kA6xxA7xx);
inline constexpr Register SP_CS_CONFIG = reg32(0xa9bb, "SP_CS_CONFIG", "", fs::kSpXsConfig, kA6xxA7xx);
inline constexpr Register SP_CS_INSTR_SIZE = reg32(0xa9bc, "SP_CS_INSTR_SIZE", "SP_CS_INSTRLEN", fs::kUint0to27, kA6xxA7xx);
inline constexpr Register SP_CS_PVT_MEM_STACK_OFFSET = reg32(0xa9bd, "SP_CS_PVT_MEM_STACK_OFFSET", "SP_CS_PVT_MEM_HW_STACK_OFFSET", fs::kPvtMemStackOffset, kA6xxA7xx);
inline constexpr Register SP_CS_WIE_CNTL_0 = reg32(0xa9c2, "SP_CS_WIE_CNTL_0", "SP_CS_CNTL_0", fs::kCsWorkItemIds, kA6xxA7xx);
inline constexpr Register SP_CS_WIE_CNTL_1 = reg32(0xa9c3, "SP_CS_WIE_CNTL_1", "SP_CS_CNTL_1", fs::kCsWgeCntl);
inline constexpr Register SP_CS_SAMPLER_BASE = reg64(0xa9e2, "SP_CS_SAMPLER_BASE", "SP_CS_TEX_SAMP SP_CS_TEX_SAMP_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register SP_CS_TEXMEMOBJ_BASE = reg64(0xa9e6, "SP_CS_TEXMEMOBJ_BASE", "SP_CS_TEX_CONST SP_CS_TEX_CONST_LO", fs::kAddress64, kA6xxA7xx);
inline constexpr Register SP_CS_BINDLESS_BASE = array(0xa9e8, "SP_CS_BINDLESS_BASE", "SP_CS_BINDLESS_BASE_DESCRIPTOR", fs::kBindlessBase, 2, 5, 2, kA6xxA7xx);
inline constexpr Register SP_CS_UAV_BASE = reg64(0xa9f2, "SP_CS_UAV_BASE", "SP_CS_IBO SP_CS_IBO_LO", fs::kAddress64);
inline constexpr Register SP_CS_USIZE = reg32(0xaa00, "SP_CS_USIZE", "SP_CS_IBO_COUNT", fs::kUint0to6, kA6xxA7xx);
inline constexpr Register SP_MODE_CNTL = reg32(0xab00, "SP_MODE_CNTL", "SP_MODE_CONTROL", fs::kSpModeCntl, kA6xxA7xx);
inline constexpr Register SP_PS_CONFIG = reg32(0xab04, "SP_PS_CONFIG", "SP_FS_CONFIG", fs::kSpXsConfig, kA6xxA7xx);
inline constexpr Register SP_PS_INSTR_SIZE = reg32(0xab05, "SP_PS_INSTR_SIZE", "SP_FS_INSTRLEN", fs::kUint0to27, kA6xxA7xx);
inline constexpr Register SP_DBG_ECO_CNTL = reg32(0xae00, "SP_DBG_ECO_CNTL", "SP_UNKNOWN_AE00", fs::kHex32, kA6xxA7xx);
inline constexpr Register SP_CHICKEN_BITS = reg32(0xae03, "SP_CHICKEN_BITS", "", fs::kHex32, kA6xxA7xx);
inline constexpr Register SP_NC_MODE_CNTL_2 = reg32(0xae04, "SP_NC_MODE_CNTL_2", "SP_FLOAT_CNTL", fs::kSpNcModeCntl2, kA6xxA7xx);
inline constexpr Register SP_PERFCTR_SHADER_MASK = reg32(0xae0f, "SP_PERFCTR_SHADER_MASK", "SP_PERFCTR_ENABLE", fs::kPerfctrShaderMask, kA6xxA7xx);
inline constexpr Register SP_PERFCTR_SP_SEL = array(0xae10, "SP_PERFCTR_SP_SEL", "", fs::kHex32, 1, 24, 1);

// Texture pipe.
inline constexpr Register TPL1_CS_BORDER_COLOR_BASE = reg64(0xb180, "TPL1_CS_BORDER_COLOR_BASE", "SP_PS_TP_BORDER_COLOR_BASE_ADDR", fs::kAddress64, kA6xxA7xx);
// Mesa 26 names (a6xx.xml at d02ba9bb9c01); older Mesa called them SP_UNKNOWN_B182/B183.
inline constexpr Register TPL1_PS_ROTATION_CNTL = reg32(0xb182, "TPL1_PS_ROTATION_CNTL", "SP_UNKNOWN_B182", fs::kTpl1PsRotationCntl, kA6xxA7xx);
inline constexpr Register TPL1_PS_SWIZZLE_CNTL = reg32(0xb183, "TPL1_PS_SWIZZLE_CNTL", "SP_UNKNOWN_B183", fs::kTpl1PsSwizzleCntl, kA6xxA7xx);
inline constexpr Register TPL1_MODE_CNTL = reg32(0xb309, "TPL1_MODE_CNTL", "SP_TP_MODE_CNTL", fs::kTpl1ModeCntl, kA6xxA7xx);
inline constexpr Register TPL1_DBG_ECO_CNTL = reg32(0xb600, "TPL1_DBG_ECO_CNTL", "", fs::kHex0to25, kA6xxA7xx);
inline constexpr Register TPL1_UNKNOWN_B605 = reg32(0xb605, "TPL1_UNKNOWN_B605", "", fs::kUint0to7);
inline constexpr Register TPL1_NC_MODE_CNTL = reg32(0xb604, "TPL1_NC_MODE_CNTL", "", fs::kTpl1NcModeCntl, kA6xxA7xx);
inline constexpr Register TPL1_PERFCTR_TP_SEL = array(0xb610, "TPL1_PERFCTR_TP_SEL", "", fs::kHex32, 1, 12, 1, kA6xxA7xx);

// HLSQ-side compute state (many renamed SP_* in current Mesa).
inline constexpr Register SP_PS_WAVE_CNTL = reg32(0xb980, "SP_PS_WAVE_CNTL", "", fs::kSpPsWaveCntl);
inline constexpr Register SP_LB_PARAM_LIMIT = reg32(0xb982, "SP_LB_PARAM_LIMIT", "HLSQ_CONTROL_1_REG", fs::kSpLbParamLimit);
inline constexpr Register SP_REG_PROG_ID_0 = reg32(0xb983, "SP_REG_PROG_ID_0", "HLSQ_CONTROL_2_REG", fs::kSpRegProgId0);
inline constexpr Register SP_REG_PROG_ID_1 = reg32(0xb984, "SP_REG_PROG_ID_1", "HLSQ_CONTROL_3_REG", fs::kSpRegProgId1);
inline constexpr Register SP_REG_PROG_ID_2 = reg32(0xb985, "SP_REG_PROG_ID_2", "HLSQ_CONTROL_4_REG", fs::kSpRegProgId2);
inline constexpr Register SP_REG_PROG_ID_3 = reg32(0xb986, "SP_REG_PROG_ID_3", "HLSQ_CONTROL_5_REG", fs::kSpRegProgId3);
inline constexpr Register SP_CS_CONST_CONFIG = reg32(0xb987, "SP_CS_CONST_CONFIG", "HLSQ_CS_CNTL", fs::kXsConstConfig);
inline constexpr Register SP_CS_NDRANGE_0 = reg32(0xb990, "SP_CS_NDRANGE_0", "HLSQ_CS_NDRANGE_0", fs::kCsNdrange0);
inline constexpr Register SP_CS_NDRANGE_1 = reg32(0xb991, "SP_CS_NDRANGE_1", "HLSQ_CS_NDRANGE_1", fs::kGlobalSizeX);
inline constexpr Register SP_CS_NDRANGE_2 = reg32(0xb992, "SP_CS_NDRANGE_2", "HLSQ_CS_NDRANGE_2", fs::kGlobalOffX);
inline constexpr Register SP_CS_NDRANGE_3 = reg32(0xb993, "SP_CS_NDRANGE_3", "HLSQ_CS_NDRANGE_3", fs::kGlobalSizeY);
inline constexpr Register SP_CS_NDRANGE_4 = reg32(0xb994, "SP_CS_NDRANGE_4", "HLSQ_CS_NDRANGE_4", fs::kGlobalOffY);
inline constexpr Register SP_CS_NDRANGE_5 = reg32(0xb995, "SP_CS_NDRANGE_5", "HLSQ_CS_NDRANGE_5", fs::kGlobalSizeZ);
inline constexpr Register SP_CS_NDRANGE_6 = reg32(0xb996, "SP_CS_NDRANGE_6", "HLSQ_CS_NDRANGE_6", fs::kGlobalOffZ);
inline constexpr Register SP_CS_CONST_CONFIG_0 = reg32(0xb997, "SP_CS_CONST_CONFIG_0", "HLSQ_CS_CNTL_0", fs::kCsWorkItemIds);
inline constexpr Register SP_CS_WGE_CNTL = reg32(0xb998, "SP_CS_WGE_CNTL", "HLSQ_CS_CNTL_1 HLSQ_CS_UNKNOWN_B998", fs::kCsWgeCntl);
inline constexpr Register SP_CS_KERNEL_GROUP_X = reg32(0xb999, "SP_CS_KERNEL_GROUP_X", "HLSQ_CS_KERNEL_GROUP_X", fs::kUint32);
inline constexpr Register SP_CS_KERNEL_GROUP_Y = reg32(0xb99a, "SP_CS_KERNEL_GROUP_Y", "HLSQ_CS_KERNEL_GROUP_Y", fs::kUint32);
inline constexpr Register SP_CS_KERNEL_GROUP_Z = reg32(0xb99b, "SP_CS_KERNEL_GROUP_Z", "HLSQ_CS_KERNEL_GROUP_Z", fs::kUint32);
inline constexpr Register HLSQ_CS_BINDLESS_BASE = array(0xb9c0, "HLSQ_CS_BINDLESS_BASE", "HLSQ_CS_BINDLESS_BASE_DESCRIPTOR", fs::kBindlessBase, 2, 5, 2);
inline constexpr Register HLSQ_CS_CTRL_REG1 = reg32(0xb9d0, "HLSQ_CS_CTRL_REG1", "", fs::kSpCsCntl1);
inline constexpr Register SP_KERNEL_INITIATOR = reg32(0xbb01, "SP_KERNEL_INITIATOR", "", fs::kStateId);
inline constexpr Register SP_UPDATE_CNTL = reg32(0xbb08, "SP_UPDATE_CNTL", "HLSQ_INVALIDATE_CMD HLSQ_UPDATE_CNTL", fs::kSpUpdateCntl);
inline constexpr Register HLSQ_SHARED_CONSTS = reg32(0xbb11, "HLSQ_SHARED_CONSTS", "", fs::kEnableBit);
inline constexpr Register HLSQ_DBG_ECO_CNTL = reg32(0xbe04, "HLSQ_DBG_ECO_CNTL", "", fs::kHex32);

// a7xx entries: registers that moved or changed fields, and a7xx-only ones.
inline constexpr Register RBBM_PERFCTR_CP_A7XX = array(0x0300, "RBBM_PERFCTR_CP", "", fs::kHex64, 2, 14, 2, kA7xx);
inline constexpr Register SP_UNKNOWN_0CE2_A7XX = reg64(0x0ce2, "SP_UNKNOWN_0CE2", "", fs::kHex64, kA7xx);
inline constexpr Register SP_UNKNOWN_0CE4_A7XX = reg64(0x0ce4, "SP_UNKNOWN_0CE4", "", fs::kHex64, kA7xx);
inline constexpr Register SP_UNKNOWN_0CE6_A7XX = reg64(0x0ce6, "SP_UNKNOWN_0CE6", "", fs::kHex64, kA7xx);
inline constexpr Register UCHE_UNKNOWN_0E10_A7XX = reg32(0x0e10, "UCHE_UNKNOWN_0E10", "", fs::kHex32, kA7xx);
inline constexpr Register UCHE_UNKNOWN_0E11_A7XX = reg32(0x0e11, "UCHE_UNKNOWN_0E11", "", fs::kHex32, kA7xx);
inline constexpr Register GRAS_ROTATION_CNTL_A7XX = reg32(0x80a7, "GRAS_ROTATION_CNTL", "GRAS_UNKNOWN_80A7", fs::kHex32, kA7xx);
inline constexpr Register RB_LRZ_CNTL2_A7XX = reg32(0x8899, "RB_LRZ_CNTL2", "RB_UNKNOWN_8899", fs::kRbLrzCntl2, kA7xx);
inline constexpr Register RB_UNKNOWN_8C34_A7XX = reg32(0x8c34, "RB_UNKNOWN_8C34", "", fs::kHex32, kA7xx);
inline constexpr Register RB_CCU_DBG_ECO_CNTL_A7XX = reg32(0x8e06, "RB_CCU_DBG_ECO_CNTL", "", fs::kHex32, kA7xx);
inline constexpr Register RB_UNKNOWN_8E79_A7XX = reg32(0x8e79, "RB_UNKNOWN_8E79", "", fs::kHex32, kA7xx);
// a750's per-chip block only (freedreno_devices.py FD750 raw_magic_regs).
inline constexpr Register VPC_UNKNOWN_930A_A7XX = reg32(0x930a, "VPC_UNKNOWN_930A", "", fs::kHex32, kA7xx);
inline constexpr Register VPC_FLATSHADE_MODE_CNTL_A7XX = reg32(0x960a, "VPC_FLATSHADE_MODE_CNTL", "", fs::kHex32, kA7xx);
inline constexpr Register PC_DBG_ECO_CNTL_A7XX = reg32(0x9e00, "PC_DBG_ECO_CNTL", "", fs::kHex32, kA7xx);
inline constexpr Register PC_UNKNOWN_9E24_A7XX = reg32(0x9e24, "PC_UNKNOWN_9E24", "", fs::kHex32, kA7xx);
inline constexpr Register VFD_DBG_ECO_CNTL_A7XX = reg32(0xa600, "VFD_DBG_ECO_CNTL", "", fs::kHex32, kA7xx);
inline constexpr Register SP_CS_WIE_CNTL_1_A7XX = reg32(0xa9c3, "SP_CS_WIE_CNTL_1", "", fs::kCsWieCntl1A7xx, kA7xx);
inline constexpr Register SP_PS_WAVE_CNTL_A7XX = reg32(0xa9c6, "SP_PS_WAVE_CNTL", "", fs::kSpPsWaveCntl, kA7xx);
inline constexpr Register SP_REG_PROG_ID_0_A7XX = reg32(0xa9c8, "SP_REG_PROG_ID_0", "", fs::kSpRegProgId0, kA7xx);
inline constexpr Register SP_REG_PROG_ID_1_A7XX = reg32(0xa9c9, "SP_REG_PROG_ID_1", "", fs::kSpRegProgId1, kA7xx);
inline constexpr Register SP_REG_PROG_ID_2_A7XX = reg32(0xa9ca, "SP_REG_PROG_ID_2", "", fs::kSpRegProgId2, kA7xx);
inline constexpr Register SP_REG_PROG_ID_3_A7XX = reg32(0xa9cb, "SP_REG_PROG_ID_3", "", fs::kSpRegProgId3, kA7xx);
inline constexpr Register SP_CS_CONST_CONFIG_A7XX = reg32(0xa9cd, "SP_CS_CONST_CONFIG", "", fs::kXsConstConfigA7xx, kA7xx);
inline constexpr Register SP_CS_NDRANGE_0_A7XX = reg32(0xa9d4, "SP_CS_NDRANGE_0", "", fs::kCsNdrange0, kA7xx);
inline constexpr Register SP_CS_NDRANGE_1_A7XX = reg32(0xa9d5, "SP_CS_NDRANGE_1", "", fs::kGlobalSizeX, kA7xx);
inline constexpr Register SP_CS_NDRANGE_2_A7XX = reg32(0xa9d6, "SP_CS_NDRANGE_2", "", fs::kGlobalOffX, kA7xx);
inline constexpr Register SP_CS_NDRANGE_3_A7XX = reg32(0xa9d7, "SP_CS_NDRANGE_3", "", fs::kGlobalSizeY, kA7xx);
inline constexpr Register SP_CS_NDRANGE_4_A7XX = reg32(0xa9d8, "SP_CS_NDRANGE_4", "", fs::kGlobalOffY, kA7xx);
inline constexpr Register SP_CS_NDRANGE_5_A7XX = reg32(0xa9d9, "SP_CS_NDRANGE_5", "", fs::kGlobalSizeZ, kA7xx);
inline constexpr Register SP_CS_NDRANGE_6_A7XX = reg32(0xa9da, "SP_CS_NDRANGE_6", "", fs::kGlobalOffZ, kA7xx);
inline constexpr Register SP_CS_WGE_CNTL_A7XX = reg32(0xa9db, "SP_CS_WGE_CNTL", "", fs::kCsWgeCntlA7xx, kA7xx);
inline constexpr Register SP_CS_KERNEL_GROUP_X_A7XX = reg32(0xa9dc, "SP_CS_KERNEL_GROUP_X", "", fs::kUint32, kA7xx);
inline constexpr Register SP_CS_KERNEL_GROUP_Y_A7XX = reg32(0xa9dd, "SP_CS_KERNEL_GROUP_Y", "", fs::kUint32, kA7xx);
inline constexpr Register SP_CS_KERNEL_GROUP_Z_A7XX = reg32(0xa9de, "SP_CS_KERNEL_GROUP_Z", "", fs::kUint32, kA7xx);
inline constexpr Register SP_CS_NDRANGE_7_A7XX = reg32(0xa9df, "SP_CS_NDRANGE_7", "", fs::kCsNdrange7, kA7xx);
inline constexpr Register SP_CS_UAV_BASE_A7XX = reg64(0xa9f8, "SP_CS_UAV_BASE", "", fs::kAddress64, kA7xx);
inline constexpr Register SP_PS_OUTPUT_CONST_CNTL_A7XX = reg32(0xaa02, "SP_PS_OUTPUT_CONST_CNTL", "", fs::kSpPsOutputConstCntl, kA7xx);
inline constexpr Register SP_PS_OUTPUT_CONST_MASK_A7XX = reg32(0xaa03, "SP_PS_OUTPUT_CONST_MASK", "", fs::kSpPsOutputConstMask, kA7xx);
inline constexpr Register SP_UNKNOWN_AB01_A7XX = reg32(0xab01, "SP_UNKNOWN_AB01", "", fs::kHex32, kA7xx);
inline constexpr Register SP_HLSQ_MODE_CNTL_A7XX = reg32(0xab02, "SP_HLSQ_MODE_CNTL", "SP_UNKNOWN_AB02", fs::kSpHlsqModeCntl, kA7xx);
inline constexpr Register SP_UPDATE_CNTL_A7XX = reg32(0xab1f, "SP_UPDATE_CNTL", "", fs::kSpUpdateCntlA7xx, kA7xx);
inline constexpr Register SP_UNKNOWN_AB22_A7XX = reg32(0xab22, "SP_UNKNOWN_AB22", "", fs::kHex32, kA7xx);
inline constexpr Register SP_ISDB_CNTL_A7XX = reg32(0xae06, "SP_ISDB_CNTL", "SP_UNKNOWN_AE06", fs::kHex32, kA7xx);
inline constexpr Register SP_CHICKEN_BITS_1_A7XX = reg32(0xae08, "SP_CHICKEN_BITS_1", "", fs::kHex32, kA7xx);
inline constexpr Register SP_CHICKEN_BITS_2_A7XX = reg32(0xae09, "SP_CHICKEN_BITS_2", "", fs::kHex32, kA7xx);
inline constexpr Register SP_CHICKEN_BITS_3_A7XX = reg32(0xae0a, "SP_CHICKEN_BITS_3", "", fs::kHex32, kA7xx);
inline constexpr Register SP_UNKNOWN_AE6A_A7XX = reg32(0xae6a, "SP_UNKNOWN_AE6A", "", fs::kHex32, kA7xx);
inline constexpr Register SP_HLSQ_TIMEOUT_THRESHOLD_DP_A7XX = reg32(0xae6b, "SP_HLSQ_TIMEOUT_THRESHOLD_DP", "SP_UNKNOWN_AE6B", fs::kHex32, kA7xx);
inline constexpr Register SP_HLSQ_DBG_ECO_CNTL_A7XX = reg32(0xae6c, "SP_HLSQ_DBG_ECO_CNTL", "", fs::kHex32, kA7xx);
inline constexpr Register SP_HLSQ_DBG_ECO_CNTL_1_A7XX = reg32(0xae73, "SP_HLSQ_DBG_ECO_CNTL_1", "SP_UNKNOWN_AE73", fs::kHex32, kA7xx);
inline constexpr Register SP_UNKNOWN_B310_A7XX = reg32(0xb310, "SP_UNKNOWN_B310", "", fs::kHex32, kA7xx);
inline constexpr Register TPL1_DBG_ECO_CNTL1_A7XX = reg32(0xb602, "TPL1_DBG_ECO_CNTL1", "", fs::kTpl1DbgEcoCntl1, kA7xx);

/// Every entry, in offset order (register_database.cpp checks that no two of one generation overlap).
inline constexpr const Register* kRegisters[] = {
    &RBBM_PERFCTR_CP_A7XX,
    &RBBM_PERFCTR_CP,
    &RBBM_PERFCTR_SP,
    &RBBM_PERFCTR_CNTL,
    &CP_SCRATCH,
    &CP_PERFCTR_CP_SEL,
    &CP_ALWAYS_ON_COUNTER,
    &SP_UNKNOWN_0CE2_A7XX,
    &SP_UNKNOWN_0CE4_A7XX,
    &SP_UNKNOWN_0CE6_A7XX,
    &UCHE_MODE_CNTL,
    &UCHE_WRITE_RANGE_MAX,
    &UCHE_WRITE_THRU_BASE,
    &UCHE_TRAP_BASE,
    &UCHE_GMEM_RANGE_MIN,
    &UCHE_GMEM_RANGE_MAX,
    &UCHE_UNKNOWN_0E10_A7XX,
    &UCHE_UNKNOWN_0E11_A7XX,
    &UCHE_UNKNOWN_0E12,
    &UCHE_CACHE_WAYS,
    &UCHE_FILTER_CNTL,
    &UCHE_CLIENT_PF,
    &UCHE_PERFCTR_UCHE_SEL,
    &GRAS_ROTATION_CNTL_A7XX,
    &GRAS_DBG_ECO_CNTL,
    &RB_LRZ_CNTL2_A7XX,
    &RB_UNKNOWN_8C34_A7XX,
    &RB_CCU_DBG_ECO_CNTL_A7XX,
    &RB_UNKNOWN_8E79_A7XX,
    &VPC_UNKNOWN_930A_A7XX,
    &VPC_DBG_ECO_CNTL,
    &VPC_FLATSHADE_MODE_CNTL_A7XX,
    &PC_MODE_CNTL,
    &PC_POWER_CNTL,
    &PC_DBG_ECO_CNTL_A7XX,
    &PC_UNKNOWN_9E24_A7XX,
    &VFD_POWER_CNTL,
    &VFD_DBG_ECO_CNTL_A7XX,
    &SP_UNKNOWN_A9A8,
    &SP_CS_CNTL_0,
    &SP_CS_CNTL_1,
    &SP_CS_BOOLEAN_CF_MASK,
    &SP_CS_PROGRAM_COUNTER_OFFSET,
    &SP_CS_BASE,
    &SP_CS_PVT_MEM_PARAM,
    &SP_CS_PVT_MEM_BASE,
    &SP_CS_PVT_MEM_SIZE,
    &SP_CS_TSIZE,
    &SP_CS_CONFIG,
    &SP_CS_INSTR_SIZE,
    &SP_CS_PVT_MEM_STACK_OFFSET,
    &SP_CS_WIE_CNTL_0,
    &SP_CS_WIE_CNTL_1_A7XX,
    &SP_CS_WIE_CNTL_1,
    &SP_PS_WAVE_CNTL_A7XX,
    &SP_REG_PROG_ID_0_A7XX,
    &SP_REG_PROG_ID_1_A7XX,
    &SP_REG_PROG_ID_2_A7XX,
    &SP_REG_PROG_ID_3_A7XX,
    &SP_CS_CONST_CONFIG_A7XX,
    &SP_CS_NDRANGE_0_A7XX,
    &SP_CS_NDRANGE_1_A7XX,
    &SP_CS_NDRANGE_2_A7XX,
    &SP_CS_NDRANGE_3_A7XX,
    &SP_CS_NDRANGE_4_A7XX,
    &SP_CS_NDRANGE_5_A7XX,
    &SP_CS_NDRANGE_6_A7XX,
    &SP_CS_WGE_CNTL_A7XX,
    &SP_CS_KERNEL_GROUP_X_A7XX,
    &SP_CS_KERNEL_GROUP_Y_A7XX,
    &SP_CS_KERNEL_GROUP_Z_A7XX,
    &SP_CS_NDRANGE_7_A7XX,
    &SP_CS_SAMPLER_BASE,
    &SP_CS_TEXMEMOBJ_BASE,
    &SP_CS_BINDLESS_BASE,
    &SP_CS_UAV_BASE,
    &SP_CS_UAV_BASE_A7XX,
    &SP_CS_USIZE,
    &SP_PS_OUTPUT_CONST_CNTL_A7XX,
    &SP_PS_OUTPUT_CONST_MASK_A7XX,
    &SP_MODE_CNTL,
    &SP_UNKNOWN_AB01_A7XX,
    &SP_HLSQ_MODE_CNTL_A7XX,
    &SP_PS_CONFIG,
    &SP_PS_INSTR_SIZE,
    &SP_UPDATE_CNTL_A7XX,
    &SP_UNKNOWN_AB22_A7XX,
    &SP_DBG_ECO_CNTL,
    &SP_CHICKEN_BITS,
    &SP_NC_MODE_CNTL_2,
    &SP_ISDB_CNTL_A7XX,
    &SP_CHICKEN_BITS_1_A7XX,
    &SP_CHICKEN_BITS_2_A7XX,
    &SP_CHICKEN_BITS_3_A7XX,
    &SP_PERFCTR_SHADER_MASK,
    &SP_PERFCTR_SP_SEL,
    &SP_UNKNOWN_AE6A_A7XX,
    &SP_HLSQ_TIMEOUT_THRESHOLD_DP_A7XX,
    &SP_HLSQ_DBG_ECO_CNTL_A7XX,
    &SP_HLSQ_DBG_ECO_CNTL_1_A7XX,
    &TPL1_CS_BORDER_COLOR_BASE,
    &TPL1_PS_ROTATION_CNTL,
    &TPL1_PS_SWIZZLE_CNTL,
    &TPL1_MODE_CNTL,
    &SP_UNKNOWN_B310_A7XX,
    &TPL1_DBG_ECO_CNTL,
    &TPL1_DBG_ECO_CNTL1_A7XX,
    &TPL1_NC_MODE_CNTL,
    &TPL1_UNKNOWN_B605,
    &TPL1_PERFCTR_TP_SEL,
    &SP_PS_WAVE_CNTL,
    &SP_LB_PARAM_LIMIT,
    &SP_REG_PROG_ID_0,
    &SP_REG_PROG_ID_1,
    &SP_REG_PROG_ID_2,
    &SP_REG_PROG_ID_3,
    &SP_CS_CONST_CONFIG,
    &SP_CS_NDRANGE_0,
    &SP_CS_NDRANGE_1,
    &SP_CS_NDRANGE_2,
    &SP_CS_NDRANGE_3,
    &SP_CS_NDRANGE_4,
    &SP_CS_NDRANGE_5,
    &SP_CS_NDRANGE_6,
    &SP_CS_CONST_CONFIG_0,
    &SP_CS_WGE_CNTL,
    &SP_CS_KERNEL_GROUP_X,
    &SP_CS_KERNEL_GROUP_Y,
    &SP_CS_KERNEL_GROUP_Z,
    &HLSQ_CS_BINDLESS_BASE,
    &HLSQ_CS_CTRL_REG1,
    &SP_KERNEL_INITIATOR,
    &SP_UPDATE_CNTL,
    &HLSQ_SHARED_CONSTS,
    &HLSQ_DBG_ECO_CNTL,
};

/// The compute registers whose offset or fields differ between generations, one table per
/// generation: the dispatch emitter and the virtual command processor pick their registers here
/// and write everything else once. Offsets and fields are the entries above (a6xx.xml's variants).
struct ComputeRegisters {
  Gen gen;
  const Register* update_cntl;           // SP_UPDATE_CNTL: which stage state to invalidate
  const Register* const_config;          // SP_CS_CONST_CONFIG: CONSTLEN, ENABLED
  const Register* work_item_ids;         // the work-group and local id registers
  const Register* wave_control;          // LINEARLOCALIDREGID and a THREADSIZE copy
  const Register* ndrange[7];            // SP_CS_NDRANGE_0..6
  const Register* kernel_group[3];       // SP_CS_KERNEL_GROUP_X..Z
  const Register* uav_base;              // SP_CS_UAV_BASE
};

inline constexpr ComputeRegisters kComputeA6xx{
    kA6xx,
    &SP_UPDATE_CNTL,
    &SP_CS_CONST_CONFIG,
    &SP_CS_CONST_CONFIG_0,
    &SP_CS_WGE_CNTL,
    {&SP_CS_NDRANGE_0, &SP_CS_NDRANGE_1, &SP_CS_NDRANGE_2, &SP_CS_NDRANGE_3, &SP_CS_NDRANGE_4, &SP_CS_NDRANGE_5,
     &SP_CS_NDRANGE_6},
    {&SP_CS_KERNEL_GROUP_X, &SP_CS_KERNEL_GROUP_Y, &SP_CS_KERNEL_GROUP_Z},
    &SP_CS_UAV_BASE,
};

// a7xx: the HLSQ copies are gone; the work-item ids live in SP_CS_WIE_CNTL_0 and the wave
// control in SP_CS_WGE_CNTL's new home (computerator a6xx.cc cs_program_emit<A7XX>).
inline constexpr ComputeRegisters kComputeA7xx{
    kA7xx,
    &SP_UPDATE_CNTL_A7XX,
    &SP_CS_CONST_CONFIG_A7XX,
    &SP_CS_WIE_CNTL_0,
    &SP_CS_WGE_CNTL_A7XX,
    {&SP_CS_NDRANGE_0_A7XX, &SP_CS_NDRANGE_1_A7XX, &SP_CS_NDRANGE_2_A7XX, &SP_CS_NDRANGE_3_A7XX, &SP_CS_NDRANGE_4_A7XX,
     &SP_CS_NDRANGE_5_A7XX, &SP_CS_NDRANGE_6_A7XX},
    {&SP_CS_KERNEL_GROUP_X_A7XX, &SP_CS_KERNEL_GROUP_Y_A7XX, &SP_CS_KERNEL_GROUP_Z_A7XX},
    &SP_CS_UAV_BASE_A7XX,
};

constexpr const ComputeRegisters& compute_registers(Gen gen) { return gen == kA7xx ? kComputeA7xx : kComputeA6xx; }

}  // namespace adreno::pm4::a6xx
