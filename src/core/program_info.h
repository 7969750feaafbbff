// Everything the runtime must know to launch a compute program, kept exactly as the compiler
// (Mesa's ir3, Qualcomm's OpenCL compiler, or our assembler) reported it — never reconstructed
// from byte sizes (rule 7). Both loaders (ir3 with metadata, Qualcomm CL binaries) produce this;
// the argument writer and the dispatch emitter consume it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace adreno {

/// An ir3 register id: 4·register + component (r0.x = 0, r48.x = 192); 0xfc means "not used".
inline constexpr std::uint32_t kRegidUnused = 0xfc;

enum class LaunchPacket { exec_cs, run_opencl };
enum class WaveSize { thread64, thread128 };

struct ProgramArgument {
  enum class Kind {
    buffer,         ///< a 64-bit GPU address written into the constant file
    scalar,         ///< raw bytes written into the constant file
    texture,        ///< sampled image: a 16-dword texture descriptor
    storage_image,  ///< image/IBO: a 16-dword IBO descriptor
    sampler,        ///< a 4-dword sampler descriptor
  };
  Kind kind;
  std::string name;
  std::uint32_t const_dword = 0;  ///< buffer/scalar: dword offset in the constant file
  std::uint32_t size_bytes = 8;   ///< scalar: size; buffer: 8
  std::uint32_t slot = 0;         ///< texture/storage_image/sampler: descriptor index
};

struct ProgramImmediate {
  std::uint32_t const_dword;
  std::uint32_t value;
};

struct ProgramInfo {
  std::string name;
  std::vector<std::uint32_t> code;  ///< instruction words (little-endian dwords), 128-byte loadable
  std::uint32_t entry_offset = 0;   ///< byte offset of the first instruction within `code`

  // Launch-facing facts from the compiler.
  LaunchPacket launch = LaunchPacket::exec_cs;
  WaveSize wave_size = WaveSize::thread64;  ///< the compiler's choice; a launch may override it
  std::uint32_t instrlen = 0;             ///< SP_CS_INSTR_SIZE: groups of 16 instructions (128 B)
  std::uint32_t constlen_vec4 = 0;        ///< constant-file length the program reads
  std::uint32_t full_regs_vec4 = 0;       ///< FULLREGFOOTPRINT (max_reg + 1)
  std::uint32_t half_regs_vec4 = 0;       ///< HALFREGFOOTPRINT
  bool merged_regs = false;
  std::uint32_t branch_stack = 0;
  bool uses_barrier = false;

  // Where the hardware delivers system values.
  std::uint32_t local_id_regid = kRegidUnused;
  std::uint32_t work_group_id_regid = kRegidUnused;
  std::uint32_t local_size_const_dword = kRegidUnused;   ///< driver param: local size x,y,z

  // Memory.
  std::uint32_t private_bytes_per_fiber = 0;
  std::uint32_t shared_bytes = 0;

  // Constants and arguments.
  std::vector<ProgramImmediate> immediates;
  std::vector<ProgramArgument> arguments;
  std::uint32_t fixed_local_size[3] = {0, 0, 0};  ///< required local size, 0 when free
};

}  // namespace adreno
