#include "virt/gpu/image_descriptor.h"

#include "ir3/half_float.h"
#include "pm4/a6xx_descriptors.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace adreno::virt {
namespace {

namespace d = pm4::a6xx_descriptors;
using d::Format;

constexpr const pm4::Field& kFormat = d::TEX_CONST_0.field("FMT");
constexpr const pm4::Field& kTileMode = d::TEX_CONST_0.field("TILE_MODE");
constexpr const pm4::Field& kSwap = d::TEX_CONST_0.field("SWAP");
constexpr const pm4::Field& kWidth = d::TEX_CONST_1.field("WIDTH");
constexpr const pm4::Field& kHeight = d::TEX_CONST_1.field("HEIGHT");
constexpr const pm4::Field& kPitch = d::TEX_CONST_2.field("PITCH");
constexpr const pm4::Field& kType = d::TEX_CONST_2.field("TYPE");
constexpr const pm4::Field& kArrayPitch = d::TEX_CONST_3.field("ARRAY_PITCH");
constexpr const pm4::Field& kBase = d::TEX_CONST_BASE.field("BASE");
constexpr const pm4::Field& kDepth = d::TEX_CONST_BASE.field("DEPTH");

std::uint32_t extract32(const pm4::Field& field, std::uint32_t dword) { return static_cast<std::uint32_t>(field.extract(dword)); }

}  // namespace

std::optional<TexelFormat> texel_format(unsigned a6xx_format) {
  switch (static_cast<Format>(a6xx_format)) {
    case Format::FMT6_16_FLOAT: return TexelFormat{1, 2, ComponentKind::float_};
    case Format::FMT6_16_UINT: return TexelFormat{1, 2, ComponentKind::uint_};
    case Format::FMT6_16_SINT: return TexelFormat{1, 2, ComponentKind::sint_};
    case Format::FMT6_8_8_8_8_UNORM: return TexelFormat{4, 1, ComponentKind::unorm_};
    case Format::FMT6_16_16_FLOAT: return TexelFormat{2, 2, ComponentKind::float_};
    case Format::FMT6_16_16_UINT: return TexelFormat{2, 2, ComponentKind::uint_};
    case Format::FMT6_16_16_SINT: return TexelFormat{2, 2, ComponentKind::sint_};
    case Format::FMT6_32_FLOAT: return TexelFormat{1, 4, ComponentKind::float_};
    case Format::FMT6_32_UINT: return TexelFormat{1, 4, ComponentKind::uint_};
    case Format::FMT6_32_SINT: return TexelFormat{1, 4, ComponentKind::sint_};
    case Format::FMT6_16_16_16_16_FLOAT: return TexelFormat{4, 2, ComponentKind::float_};
    case Format::FMT6_16_16_16_16_UINT: return TexelFormat{4, 2, ComponentKind::uint_};
    case Format::FMT6_16_16_16_16_SINT: return TexelFormat{4, 2, ComponentKind::sint_};
    case Format::FMT6_32_32_FLOAT: return TexelFormat{2, 4, ComponentKind::float_};
    case Format::FMT6_32_32_UINT: return TexelFormat{2, 4, ComponentKind::uint_};
    case Format::FMT6_32_32_SINT: return TexelFormat{2, 4, ComponentKind::sint_};
    case Format::FMT6_32_32_32_32_FLOAT: return TexelFormat{4, 4, ComponentKind::float_};
    case Format::FMT6_32_32_32_32_UINT: return TexelFormat{4, 4, ComponentKind::uint_};
    case Format::FMT6_32_32_32_32_SINT: return TexelFormat{4, 4, ComponentKind::sint_};
  }
  return std::nullopt;
}

std::optional<ImageDescriptor> ImageDescriptor::decode(std::span<const std::uint32_t> dwords, std::string& error) {
  if (dwords.size() != d::kTextureDwords) {
    error = "the descriptor slot was never loaded";
    return std::nullopt;
  }
  ImageDescriptor image;
  const unsigned format = extract32(kFormat, dwords[0]);
  const auto layout = texel_format(format);
  if (!layout) {
    error = "a6xx_format " + std::to_string(format) + " is not modelled";
    return std::nullopt;
  }
  if (extract32(kTileMode, dwords[0]) != 0) {
    error = "tiled layouts are not modelled (TILE_MODE " + std::to_string(extract32(kTileMode, dwords[0])) + ")";
    return std::nullopt;
  }
  if (extract32(kSwap, dwords[0]) != 0) {
    error = "component swaps are not modelled";
    return std::nullopt;
  }
  image.format = *layout;
  image.type = extract32(kType, dwords[2]);
  const std::uint64_t base_dwords = dwords[4] | (std::uint64_t{dwords[5]} << 32);
  image.base = kBase.extract(base_dwords);
  image.width = extract32(kWidth, dwords[1]);
  image.height = extract32(kHeight, dwords[1]);
  image.depth = static_cast<std::uint32_t>(kDepth.extract(base_dwords));
  image.pitch = extract32(kPitch, dwords[2]);
  image.array_pitch = kArrayPitch.extract(dwords[3]);
  if (image.type == static_cast<unsigned>(d::TexType::A6XX_TEX_BUFFER)) {
    // Buffers spread their element count over WIDTH (low 15 bits) and HEIGHT (Mesa fd6_view.c).
    image.width = image.width | (image.height << 15);
    image.height = 1;
    image.depth = 1;
  } else if (image.type == static_cast<unsigned>(d::TexType::A6XX_TEX_1D) ||
             image.type == static_cast<unsigned>(d::TexType::A6XX_TEX_2D) ||
             image.type == static_cast<unsigned>(d::TexType::A6XX_TEX_3D)) {
    image.depth = std::max<std::uint32_t>(image.depth, 1);
  } else {
    error = "a6xx_tex_type " + std::to_string(image.type) + " is not modelled";
    return std::nullopt;
  }
  return image;
}

std::optional<std::uint64_t> ImageDescriptor::texel_address(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
  if (x >= width || y >= height || z >= depth) return std::nullopt;
  return base + std::uint64_t{z} * array_pitch + std::uint64_t{y} * pitch + std::uint64_t{x} * format.bytes();
}

std::array<std::uint32_t, 4> read_texel(const GpuView& memory, std::uint64_t address, const TexelFormat& format) {
  std::array<std::uint32_t, 4> out{0, 0, 0, 0};
  const bool floating = format.kind == ComponentKind::float_ || format.kind == ComponentKind::unorm_;
  out[3] = floating ? std::bit_cast<std::uint32_t>(1.0f) : 1;
  std::array<std::uint8_t, 16> bytes{};
  memory.read(address, bytes.data(), format.bytes());
  for (unsigned c = 0; c < format.components; ++c) {
    std::uint32_t raw = 0;
    for (unsigned b = 0; b < format.component_bytes; ++b) raw |= std::uint32_t{bytes[c * format.component_bytes + b]} << (8 * b);
    switch (format.kind) {
      case ComponentKind::float_:
        out[c] = format.component_bytes == 2 ? std::bit_cast<std::uint32_t>(ir3::half_to_float(static_cast<std::uint16_t>(raw))) : raw;
        break;
      case ComponentKind::unorm_:
        out[c] = std::bit_cast<std::uint32_t>(static_cast<float>(raw) / 255.0f);
        break;
      case ComponentKind::sint_:
        out[c] = format.component_bytes == 2 ? static_cast<std::uint32_t>(static_cast<std::int16_t>(raw)) : raw;
        break;
      case ComponentKind::uint_:
        out[c] = raw;
        break;
    }
  }
  return out;
}

void write_texel(const GpuView& memory, std::uint64_t address, const TexelFormat& format,
                 const std::array<std::uint32_t, 4>& values) {
  std::array<std::uint8_t, 16> bytes{};
  for (unsigned c = 0; c < format.components; ++c) {
    std::uint32_t raw = values[c];
    if (format.kind == ComponentKind::float_ && format.component_bytes == 2) {
      raw = ir3::float_to_half(std::bit_cast<float>(raw));
    } else if (format.kind == ComponentKind::unorm_) {
      const float v = std::clamp(std::bit_cast<float>(values[c]), 0.0f, 1.0f);
      raw = static_cast<std::uint32_t>(std::nearbyint(v * 255.0f));
    }
    for (unsigned b = 0; b < format.component_bytes; ++b) bytes[c * format.component_bytes + b] = static_cast<std::uint8_t>(raw >> (8 * b));
  }
  memory.write(address, bytes.data(), format.bytes());
}

}  // namespace adreno::virt
