// Everything the runtime must know to launch a compute program, kept exactly as the compiler
// (Mesa's ir3, Qualcomm's OpenCL compiler, or our assembler) reported it — never reconstructed
// from byte sizes (rule 7). Both loaders (ir3 with metadata, Qualcomm CL binaries) produce this;
// the argument writer and the dispatch emitter consume it. The loaders validate every field
// against the hardware limits below, so the emitter can pack them without further checks.
#pragma once

#include <adreno/program.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace adreno {

/// Hardware limits every loader checks (a6xx).
namespace program_limits {
/// vec4 registers per fiber: ir3 allocates r0..r47 (Mesa ir3 RA, "max_reg < 48" on a6xx).
inline constexpr std::uint32_t kMaxFullRegsVec4 = 48;
inline constexpr std::uint32_t kMaxHalfRegsVec4 = 48;
/// Compute constant file in vec4: SP_CS_CNTL_1 CONSTANTRAMMODE CONSTLEN_256 is what tinygrad
/// and Mesa's computerator use for compute on a630 (Mesa ir3_compiler max_const_compute = 256).
inline constexpr std::uint32_t kMaxConstlenVec4 = 256;
/// Local memory per work-group: SP_CS_CNTL_1 SHARED_SIZE is 5 bits of (bytes − 1) / 1024.
inline constexpr std::uint32_t kMaxSharedBytes = 32 * 1024;
/// BRANCHSTACK is 6 bits of SP_CS_CNTL_0.
inline constexpr std::uint32_t kMaxBranchStack = 63;
/// SP_CS_PVT_MEM_PARAM MEMSIZEPERITEM: 8 bits of 512-byte units.
inline constexpr std::uint32_t kMaxPrivateBytesPerFiber = 255 * 512;
/// Texture, sampler and IBO slots of SP_CS_CONFIG (NTEX 8 bits, NSAMP 5 bits, NUAV 7 bits) and
/// of CP_LOAD_STATE6; Turnip limits compute stages to 16 samplers and 64 images.
inline constexpr std::uint32_t kMaxTextures = 64;
inline constexpr std::uint32_t kMaxSamplers = 16;
inline constexpr std::uint32_t kMaxStorageImages = 64;
/// UBO slots: gallium's PIPE_MAX_CONSTANT_BUFFERS (p_state.h), the slots freedreno's
/// fd6_emit_ubos (fd6_const.cc) loads with CP_LOAD_STATE6 ST6_UBO.
inline constexpr std::uint32_t kMaxUniformBuffers = 32;
/// Invocations per work-group (tinygrad's QCOM runtime and Turnip's maxComputeWorkGroupInvocations).
inline constexpr std::uint32_t kMaxInvocations = 1024;
}  // namespace program_limits

enum class LaunchPacket { exec_cs, run_opencl };

/// ProgramArgument::const_byte of a storage buffer whose address the program does not read.
inline constexpr std::uint32_t kNoConstant = ~std::uint32_t{0};

struct ProgramArgument {
  enum class Kind {
    constant,       ///< bytes in the constant file: a 64-bit buffer address or a scalar
    texture,        ///< sampled image: a 16-dword texture descriptor
    storage_image,  ///< image/IBO: a 16-dword IBO descriptor
    storage_buffer, ///< a buffer as a UAV (computerator's @buf): a 16-dword buffer descriptor in
                    ///< UAV slot `slot`, and its address at `const_byte` unless that is kNoConstant
    sampler,        ///< a 4-dword sampler descriptor
    uniform_buffer, ///< a buffer as a UBO (computerator's @ubo): a 2-dword UBO descriptor in UBO
                    ///< slot `slot`, and its address at `const_byte` unless that is kNoConstant
  };
  Kind kind;
  std::string name;               ///< empty when the compiler output has none
  std::uint32_t const_byte = 0;   ///< constant: byte offset in the constant file
  std::uint32_t size_bytes = 8;   ///< constant: bytes it occupies (8 for a buffer address)
  std::uint32_t slot = 0;         ///< texture/storage_image/sampler: descriptor index
};

/// Mesa's compute driver params: the dword index of each value in `struct ir3_driver_params_cs`
/// (src/freedreno/ir3/ir3_shader.h, IR3_DP_CS(name)), the block a Mesa ir3 program finds at its
/// DRIVER_PARAMS constant allocation.
enum class DriverParam : std::uint32_t {
  num_work_groups_x = 0,  // .y, .z follow
  work_dim = 3,
  base_group_x = 4,       // .y, .z follow
  subgroup_size = 7,
  local_group_size_x = 8, // .y, .z follow
  subgroup_id_shift = 11,
  workgroup_id_x = 12,    // .y, .z follow
  count = 16,             // with the padding dword that keeps the block whole vec4s
};

constexpr std::uint32_t dword_of(DriverParam param) { return static_cast<std::uint32_t>(param); }

/// `count` consecutive driver params starting at field `first`, written at constant dword
/// `const_dword` on every dispatch.
struct DriverParamRange {
  std::uint32_t const_dword;
  DriverParam first;
  std::uint32_t count;
};

/// A value the program expects preloaded in the constant file.
struct ProgramImmediate {
  std::uint32_t const_byte;
  std::uint32_t value;
  std::uint32_t size_bytes;  ///< 2 or 4
};

struct ProgramInfo {
  std::string name;
  std::vector<std::uint32_t> code;  ///< the loadable image, little-endian dwords
  std::uint32_t entry_offset = 0;   ///< SP_CS_PROGRAM_COUNTER_OFFSET: first instruction, in bytes

  LaunchPacket launch = LaunchPacket::exec_cs;
  bool opencl_isa_mode = false;     ///< ISAMMODE_CL (Qualcomm binaries) rather than ISAMMODE_GL
  WaveSize wave_size = WaveSize::thread64;  ///< the compiler's choice; a launch may override it
  std::uint32_t instrlen = 0;       ///< SP_CS_INSTR_SIZE: groups of 16 instructions (128 B)
  std::uint32_t constlen_vec4 = 0;  ///< constant-file length the program reads
  std::uint32_t full_regs_vec4 = 0; ///< FULLREGFOOTPRINT (max_reg + 1)
  std::uint32_t half_regs_vec4 = 0; ///< HALFREGFOOTPRINT
  bool merged_regs = false;
  std::uint32_t branch_stack = 0;   ///< BRANCHSTACK as the hardware takes it

  // Where the hardware delivers system values (register ids; kUnusedRegid when not read).
  std::uint32_t local_id_regid = kUnusedRegid;
  std::uint32_t work_group_id_regid = kUnusedRegid;
  std::uint32_t work_group_size_regid = kUnusedRegid;    ///< WGSIZECONSTID
  std::uint32_t work_group_offset_regid = kUnusedRegid;  ///< WGOFFSETCONSTID
  /// Driver params the program reads (Mesa's ir3 driver-param block, @numwg, the local size).
  std::vector<DriverParamRange> driver_params;

  std::uint32_t private_bytes_per_fiber = 0;
  bool private_per_wave = true;
  std::uint32_t shared_bytes = 0;

  std::vector<ProgramImmediate> immediates;
  std::vector<ProgramArgument> arguments;
  std::uint32_t textures = 0, storage_images = 0, samplers = 0;  ///< descriptor counts
  std::uint32_t uniform_buffers = 0;  ///< UBO slots loaded with CP_LOAD_STATE6 ST6_UBO
  bool early_preamble = false;        ///< SP_CS_CNTL_0 EARLYPREAMBLE
  std::uint32_t fixed_local_size[3] = {0, 0, 0};  ///< required local size, 0 when free
};

}  // namespace adreno

namespace adreno {
/// Checks every field against program_limits and the register fields it is packed into; throws
/// Error(malformed, operation, "<field> ...") naming the first one out of range.
void validate_program_info(const ProgramInfo& info, const char* operation);
}  // namespace adreno
