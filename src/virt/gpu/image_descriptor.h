// Texture and IBO descriptors as the texture unit reads them: the 16-dword A6XX_TEX_CONST layout
// (pm4/a6xx_descriptors.h) decoded into what a texel fetch or store needs, and the per-format
// conversion between texel bytes and the 32-bit register values of ldib/stib/isam.
#pragma once

#include "virt/gpu/gpu_memory.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace adreno::virt {

/// How a format's components are stored.
enum class ComponentKind : std::uint8_t { float_, uint_, sint_, unorm_ };

struct TexelFormat {
  unsigned components;       ///< 1, 2 or 4
  unsigned component_bytes;  ///< 1, 2 or 4
  ComponentKind kind;
  unsigned bytes() const { return components * component_bytes; }
};

/// The layout of one a6xx_format, or nullopt for formats the virtual GPU does not model.
std::optional<TexelFormat> texel_format(unsigned a6xx_format);

struct ImageDescriptor {
  TexelFormat format;
  unsigned type = 0;  ///< a6xx_tex_type: 1D, 2D, CUBE, 3D, BUFFER
  std::uint64_t base = 0;
  std::uint32_t width = 0, height = 1, depth = 1;
  std::uint32_t pitch = 0;        ///< bytes between rows
  std::uint64_t array_pitch = 0;  ///< bytes between layers / slices

  /// Decodes a 16-dword descriptor; `error` receives why it cannot be used (tiled, unknown format).
  static std::optional<ImageDescriptor> decode(std::span<const std::uint32_t> dwords, std::string& error);

  /// GPU address of texel (x, y, z), or nullopt outside the image (such accesses read zero and
  /// write nothing: the descriptor's bounds are what robust buffer access relies on).
  std::optional<std::uint64_t> texel_address(std::uint32_t x, std::uint32_t y, std::uint32_t z) const;
};

/// Reads the texel at `address` as four 32-bit values: floats as f32 bits (unorm scaled to
/// [0, 1]), integers extended to 32 bits; missing components read (0, 0, 0, 1).
std::array<std::uint32_t, 4> read_texel(const GpuView& memory, std::uint64_t address, const TexelFormat& format);

/// Writes the first `format.components` of `values` (same encoding as read_texel) at `address`.
void write_texel(const GpuView& memory, std::uint64_t address, const TexelFormat& format,
                 const std::array<std::uint32_t, 4>& values);

}  // namespace adreno::virt
