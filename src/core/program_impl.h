// A loaded program inside the library: the compiler's metadata, the GPU memory holding its code
// (and its private-memory scratch, when it uses private memory), and the part it was loaded for.
#pragma once

#include <adreno/program.hpp>

#include "core/buffer_impl.h"
#include "core/gpu_part.h"
#include "core/program_info.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace adreno {

/// The packets of a dispatch that depend only on the program, recorded once at load by the
/// dispatch emitter (dispatch_encoder.h) and copied into every dispatch of the program.
struct ProgramPackets {
  std::vector<std::uint32_t> state[2];  ///< compute state, for THREAD64 [0] and THREAD128 [1]
  std::vector<std::uint32_t> code;      ///< entry point, code base, private memory, shader load
};

/// Where one dispatch's constants and descriptors lie, relative to the start of its data:
/// [constants | textures | IBOs | samplers | border colour | UBOs], each part 64-byte aligned.
/// It depends only on the program: its Arguments hold their image laid out this way.
struct DispatchDataLayout {
  std::uint32_t constlen = 0;  ///< CONSTLEN in vec4, a multiple of 4
  std::uint64_t textures_at = 0;
  std::uint64_t images_at = 0;
  std::uint64_t samplers_at = 0;
  std::uint64_t border_at = 0;
  std::uint64_t uniform_buffers_at = 0;  ///< the UBO descriptors (2 dwords per slot)
  std::uint64_t bytes = 0;
};

class Program::Impl {
 public:
  Impl(Device& device, ProgramInfo info);

  const ProgramInfo& info() const noexcept { return info_; }
  const GpuPart& part() const noexcept { return *part_; }
  Device::Impl& device() const noexcept { return *device_; }
  const std::shared_ptr<MemoryBlock>& code() const noexcept { return code_; }
  /// Private memory (null when the program uses none), sized for every fiber of every SP.
  const std::shared_ptr<MemoryBlock>& private_memory() const noexcept { return private_memory_; }
  /// Per-SP private memory size (SP_CS_PVT_MEM_SIZE and SP_CS_PVT_MEM_STACK_OFFSET).
  std::uint32_t private_bytes_per_sp() const noexcept { return private_bytes_per_sp_; }
  /// Bytes per fiber rounded to the 512-byte unit of SP_CS_PVT_MEM_PARAM.
  std::uint32_t private_bytes_per_fiber() const noexcept { return private_bytes_per_fiber_; }
  const ProgramPackets& packets() const noexcept { return packets_; }
  const DispatchDataLayout& data_layout() const noexcept { return data_layout_; }

 private:
  std::shared_ptr<Device::Impl> device_;
  const GpuPart* part_;
  ProgramInfo info_;
  std::shared_ptr<MemoryBlock> code_;
  std::shared_ptr<MemoryBlock> private_memory_;
  std::uint32_t private_bytes_per_fiber_ = 0;
  std::uint32_t private_bytes_per_sp_ = 0;
  ProgramPackets packets_;
  DispatchDataLayout data_layout_;
};

}  // namespace adreno
