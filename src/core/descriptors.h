// Packing of image and sampler descriptors through the a6xx descriptor tables
// (pm4/a6xx_descriptors.h), with the GPU's image limits. Only GPU addresses go into them.
#pragma once

#include <adreno/program.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace adreno {

/// a6xx image limits: 16384 texels per dimension (Turnip tu_device.cc, tu_get_properties:
/// maxImageDimension2D = 1 << 14; the descriptor's WIDTH/HEIGHT fields hold 15 bits). Rows are
/// 64-byte aligned, as is the first texel (tinygrad's IMAGE_PITCH_ALIGNMENT=64 for QCOM images).
inline constexpr std::uint32_t kMaxImageDimension = 16384;
inline constexpr std::uint32_t kImagePitchAlignment = 64;
inline constexpr std::uint64_t kImageBaseAlignment = 64;
/// UBO bases: Turnip's minUniformBufferOffsetAlignment (tu_device.cc).
inline constexpr std::uint64_t kUniformBufferAlignment = 64;

/// Writes the 16-dword descriptor of `image` — a texture or, with `storage`, an IBO. Throws
/// Error(invalid_argument, operation, "<argument>: ...") when the image breaks a limit.
void write_image_descriptor(std::span<std::uint32_t, 16> out, const ImageDesc& image, bool storage,
                            const char* operation, std::string_view argument);
/// Writes the 16-dword descriptor of `size` bytes at `address` as a storage buffer of R32_UINT elements (a UAV,
/// as Mesa computerator's @buf slots). Throws Error(invalid_argument, operation, "<argument>: ...")
/// when the view is not 4-byte aligned or holds more elements than the descriptor counts.
void write_buffer_descriptor(std::span<std::uint32_t, 16> out, GpuAddress address, std::uint64_t size,
                             const char* operation, std::string_view argument);
/// Writes the 2-dword UBO descriptor of `size` bytes at `address` (a uniform buffer, as Mesa
/// computerator's @ubo slots). Throws Error(invalid_argument, operation, "<argument>: ...") when
/// the address is not 64-byte aligned or the size is 0 or more vec4s than the descriptor counts.
void write_uniform_buffer_descriptor(std::span<std::uint32_t, 2> out, GpuAddress address, std::uint64_t size,
                                     const char* operation, std::string_view argument);
/// Writes the 4-dword sampler descriptor of `sampler`.
void write_sampler_descriptor(std::span<std::uint32_t, 4> out, const SamplerDesc& sampler);

}  // namespace adreno
