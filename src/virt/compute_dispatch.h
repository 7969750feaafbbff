// One compute dispatch as the command processor hands it to the shader processor: every value
// here was read from the register file or from state loaded with CP_LOAD_STATE6, never from a
// runtime object (ARCHITECTURE.md rule 4).
#pragma once

#include "virt/gpu_memory.h"
#include "virt/shader_program.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace adreno::virt {

/// "No register" in the SP_CS_CONST_CONFIG_0 / SP_CS_WGE_CNTL register-id fields (regid 63.x).
inline constexpr std::uint16_t kNoRegid = 0xfc;

struct ComputeDispatch {
  const GpuMemory* memory = nullptr;
  std::shared_ptr<const ShaderProgram> program;
  std::uint32_t first_instruction = 0;  ///< SP_CS_PROGRAM_COUNTER_OFFSET, in instructions

  /// The constant file as loaded, CONSTLEN vec4s; a vec4 never loaded reads as a shader error.
  std::vector<std::uint32_t> constants;
  std::vector<std::uint8_t> constant_loaded;  ///< per vec4

  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  unsigned wave_size = 64;  ///< THREAD64 or THREAD128

  unsigned full_footprint = 0;  ///< vec4 registers per fiber (FULLREGFOOTPRINT)
  unsigned half_footprint = 0;  ///< vec4 half registers per fiber (HALFREGFOOTPRINT, split file)
  bool merged_registers = false;

  std::uint16_t local_id_regid = kNoRegid;       ///< LOCALIDREGID: x, y, z land in 3 components
  std::uint16_t work_group_id_regid = kNoRegid;  ///< WGIDCONSTID: a register id on a6xx

  std::uint32_t shared_bytes = 0;  ///< local memory per work group

  std::chrono::steady_clock::time_point deadline;  ///< the hang detector fires after this
  const std::atomic<bool>* stop = nullptr;         ///< ring teardown
};

}  // namespace adreno::virt
