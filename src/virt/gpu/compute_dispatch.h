// One compute dispatch as the command processor hands it to the shader processor: every value
// here was read from the register file or from state loaded with CP_LOAD_STATE6, never from a
// runtime object (ARCHITECTURE.md rule 4).
#pragma once

#include "virt/gpu/gpu_memory.h"
#include "virt/gpu/hazard_mode.h"
#include "virt/gpu/image_descriptor.h"
#include "virt/gpu/shader_program.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adreno::virt {

/// "No register" in the SP_CS_CONST_CONFIG_0 / SP_CS_WGE_CNTL register-id fields (regid 63.x).
inline constexpr std::uint16_t kNoRegid = 0xfc;

/// A descriptor slot as the texture unit sees it: decoded, or why it cannot be used.
struct BoundImage {
  std::optional<ImageDescriptor> image;
  std::string error;
};

/// A uniform buffer as ldc sees it: an A6XX_UBO descriptor loaded with CP_LOAD_STATE6 ST6_UBO.
struct UniformBuffer {
  std::uint64_t base = 0;
  std::uint32_t size_vec4s = 0;  ///< reads beyond it return 0 (the descriptor's bounds check)
};

struct ComputeDispatch {
  const GpuView* memory = nullptr;
  std::shared_ptr<const ShaderProgram> program;
  std::uint32_t first_instruction = 0;  ///< SP_CS_PROGRAM_COUNTER_OFFSET / 8

  /// The constant file as loaded, CONSTLEN vec4s; a vec4 never loaded reads as a shader error.
  std::vector<std::uint32_t> constants;
  std::vector<std::uint8_t> constant_loaded;  ///< per vec4

  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  unsigned wave_size = 64;  ///< THREAD64 or THREAD128

  unsigned full_footprint = 0;  ///< vec4 registers per fiber (FULLREGFOOTPRINT)
  unsigned half_footprint = 0;  ///< vec4 half registers per fiber (HALFREGFOOTPRINT, split file)
  bool merged_registers = false;

  // Where the hardware writes system values before the first instruction: register ids
  // (4 * register + component; kNoRegid for none). Vectors fill three consecutive components.
  std::uint16_t local_id_regid = kNoRegid;           ///< LOCALIDREGID: local id x, y, z
  std::uint16_t linear_local_id_regid = kNoRegid;    ///< LINEARLOCALIDREGID: fiber index in the group
  std::uint16_t work_group_id_regid = kNoRegid;      ///< WGIDCONSTID: work-group id x, y, z
  std::uint16_t work_group_size_regid = kNoRegid;    ///< WGSIZECONSTID: local size x, y, z
  std::uint16_t work_group_offset_regid = kNoRegid;  ///< WGOFFSETCONSTID: global id of the group's first fiber

  std::uint32_t shared_bytes = 0;   ///< local memory per work group
  std::uint32_t private_bytes = 0;  ///< private memory per fiber (ldp/stp), SP_CS_PVT_MEM_PARAM

  std::vector<BoundImage> uavs;      ///< SP_CS_CONFIG NUAV slots loaded with ST6_UAV (ldib/stib)
  std::vector<BoundImage> textures;  ///< SP_CS_CONFIG NTEX slots loaded for SB6_CS_TEX (isam)
  /// UBO slots (ldc, ldc.k); nullopt for a slot not loaded since the last CS_STATE invalidate.
  std::vector<std::optional<UniformBuffer>> ubos;
  /// SP_CS_CNTL_0 EARLYPREAMBLE: the preamble (shps … shpe) runs before the work groups, in the
  /// HLSQ, which has no per-fiber registers.
  bool early_preamble = false;

  HazardMode hazards = HazardMode::on;     ///< timing-hazard check (not a register): the model's
  HazardWarnings* hazard_warnings = nullptr;  ///< what mode warn logged (the command processor's)
  std::chrono::steady_clock::time_point deadline;  ///< the hang detector fires after this
  const std::atomic<bool>* stop = nullptr;         ///< ring teardown
};

}  // namespace adreno::virt
