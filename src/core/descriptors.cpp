#include "core/descriptors.h"

#include <adreno/error.hpp>

#include "pm4/a6xx_descriptors.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace adreno {
namespace {

namespace d = pm4::a6xx_descriptors;

struct FormatInfo {
  ImageFormat format;
  d::Format hardware;
  std::uint32_t bytes_per_texel;
};
constexpr FormatInfo kFormats[] = {
    {ImageFormat::r32_uint, d::Format::FMT6_32_UINT, 4},
    {ImageFormat::r32_float, d::Format::FMT6_32_FLOAT, 4},
    {ImageFormat::rgba8_unorm, d::Format::FMT6_8_8_8_8_UNORM, 4},
    {ImageFormat::rgba16_float, d::Format::FMT6_16_16_16_16_FLOAT, 8},
    {ImageFormat::rgba32_float, d::Format::FMT6_32_32_32_32_FLOAT, 16},
    {ImageFormat::rgba32_uint, d::Format::FMT6_32_32_32_32_UINT, 16},
};
const FormatInfo& format_info(ImageFormat format) {
  return *std::find_if(std::begin(kFormats), std::end(kFormats), [&](const FormatInfo& f) { return f.format == format; });
}

template <typename E>
constexpr std::uint64_t raw(E value) {
  return static_cast<std::uint64_t>(value);
}

d::Clamp clamp_of(SamplerDesc::Address address) {
  switch (address) {
    case SamplerDesc::Address::repeat: return d::Clamp::A6XX_TEX_REPEAT;
    case SamplerDesc::Address::mirrored_repeat: return d::Clamp::A6XX_TEX_MIRROR_REPEAT;
    case SamplerDesc::Address::clamp_to_edge: return d::Clamp::A6XX_TEX_CLAMP_TO_EDGE;
    case SamplerDesc::Address::clamp_to_border: break;
  }
  return d::Clamp::A6XX_TEX_CLAMP_TO_BORDER;
}

}  // namespace

std::uint32_t bytes_per_texel(ImageFormat format) noexcept { return format_info(format).bytes_per_texel; }

void write_image_descriptor(std::span<std::uint32_t, 16> out, const ImageDesc& image, bool storage,
                            const char* operation, std::string_view argument) {
  auto check = [&](bool ok, std::string_view format, const auto&... args) {
    if (!ok)
      throw Error(Errc::invalid_argument, operation,
                  fmt::format("{}: {}", argument, fmt::vformat(format, fmt::make_format_args(args...))));
  };
  check(image.memory.buffer() != nullptr, "the image's memory is a view of no buffer");
  const FormatInfo& format = format_info(image.format);
  check(image.width >= 1 && image.width <= kMaxImageDimension, "width {} is outside 1..{} texels", image.width,
        kMaxImageDimension);
  check(image.height >= 1 && image.height <= kMaxImageDimension, "height {} is outside 1..{} rows", image.height,
        kMaxImageDimension);
  const std::uint64_t row_bytes = std::uint64_t{image.width} * format.bytes_per_texel;
  check(image.pitch_bytes % kImagePitchAlignment == 0 && image.pitch_bytes >= row_bytes,
        "pitch {} bytes is not a multiple of {} holding a {}-byte row", image.pitch_bytes, kImagePitchAlignment, row_bytes);
  check(image.pitch_bytes <= d::TEX_CONST_2.field("PITCH").max_value(), "pitch {} bytes exceeds the descriptor's {}",
        image.pitch_bytes, d::TEX_CONST_2.field("PITCH").max_value());
  const std::uint64_t needed = std::uint64_t{image.pitch_bytes} * (image.height - 1) + row_bytes;
  check(needed <= image.memory.size(), "{}x{} texels with pitch {} need {} bytes; the buffer view has {}", image.width,
        image.height, image.pitch_bytes, needed, image.memory.size());
  const GpuAddress base = image.memory.gpu_address();
  check(base.value() % kImageBaseAlignment == 0, "the first texel at GPU address {:#x} is not {}-byte aligned",
        base.value(), kImageBaseAlignment);

  std::fill(out.begin(), out.end(), 0u);
  // Deliberate differences from tinygrad's QCOMArgsState._tex: it also sets bit 3 of dword 0
  // (no field in a6xx_descriptors.xml) and dwords 6/7 (PLANE_PITCH 0x400000, 13), values that
  // neither Mesa's fd6_view.cc nor the XML explain for linear single-plane images; they stay 0.
  // Textures read through an identity swizzle; storage images (IBOs) take only the format, as
  // in tinygrad's QCOMArgsState._tex and Mesa's fd6 IBO descriptors.
  std::uint64_t dword0 = d::TEX_CONST_0.field("FMT").pack(raw(format.hardware));
  if (!storage) {
    dword0 |= d::TEX_CONST_0.pack({{"SWIZ_X", raw(d::Swizzle::A6XX_TEX_X)},
                                   {"SWIZ_Y", raw(d::Swizzle::A6XX_TEX_Y)},
                                   {"SWIZ_Z", raw(d::Swizzle::A6XX_TEX_Z)},
                                   {"SWIZ_W", raw(d::Swizzle::A6XX_TEX_W)}});
  }
  out[0] = static_cast<std::uint32_t>(dword0);
  out[1] = static_cast<std::uint32_t>(d::TEX_CONST_1.pack({{"WIDTH", image.width}, {"HEIGHT", image.height}}));
  // PITCHALIGN: log2 of the pitch's alignment beyond 64 bytes (tinygrad: ctz(pitch) - 6).
  out[2] = static_cast<std::uint32_t>(d::TEX_CONST_2.pack({{"PITCHALIGN", static_cast<std::uint64_t>(std::countr_zero(image.pitch_bytes) - 6)},
                                                           {"PITCH", image.pitch_bytes},
                                                           {"TYPE", raw(d::TexType::A6XX_TEX_2D)}}));
  // One layer: Mesa fd6_view.cc writes DEPTH = layer count for 2D images.
  const std::uint64_t base_words = d::TEX_CONST_BASE.pack({{"BASE", base.value()}, {"DEPTH", 1}});
  out[4] = static_cast<std::uint32_t>(base_words);
  out[5] = static_cast<std::uint32_t>(base_words >> 32);
}

void write_uniform_buffer_descriptor(std::span<std::uint32_t, 2> out, GpuAddress address, std::uint64_t size,
                                     const char* operation, std::string_view argument) {
  // What computerator (a6xx.cc cs_ubo_emit) and freedreno (fd6_const.cc fd6_emit_ubos) load for a
  // UBO: its base and its size in whole vec4s, DIV_ROUND_UP(bytes, 16). The base is as aligned as
  // Turnip requires of UBO offsets (tu_device.cc: minUniformBufferOffsetAlignment = 64).
  const auto& size_field = d::UBO.field("SIZE");
  const std::uint64_t vec4s = (size + 15) / 16;
  if (address.value() % kUniformBufferAlignment != 0 || vec4s == 0 || vec4s > size_field.max_value())
    throw Error(Errc::invalid_argument, operation,
                fmt::format("{}: a uniform buffer at {:#x} of {} bytes is not {}-byte aligned with 1..{} vec4s", argument,
                            address.value(), size, kUniformBufferAlignment, size_field.max_value()));
  const std::uint64_t words = d::UBO.pack({{"BASE", address.value()}, {"SIZE", vec4s}});
  out[0] = static_cast<std::uint32_t>(words);
  out[1] = static_cast<std::uint32_t>(words >> 32);
}

void write_buffer_descriptor(std::span<std::uint32_t, 16> out, GpuAddress address, std::uint64_t size,
                             const char* operation, std::string_view argument) {
  // The fields Mesa's fdl6_buffer_view_init (src/freedreno/fdl/fd6_view.cc) writes for a buffer
  // on a6xx: a linear R32_UINT view whose base is 64-byte aligned, the rest of the address going
  // to STARTOFFSETTEXELS, the element count spread over WIDTH (15 bits) and HEIGHT, one texel per
  // structure. Swizzle X, Y, Z, ONE and swap WZYX as in its decoding for computerator's @buf
  // (../shared/reference/computerator/simple-a630.cffdump.txt).
  const std::uint64_t elements = size / 4;
  const auto& width = d::TEX_CONST_1.field("WIDTH");
  const std::uint64_t max_elements = (d::TEX_CONST_1.field("HEIGHT").max_value() << width.width()) | width.max_value();
  if (address.value() % 4 != 0 || elements == 0 || elements > max_elements)
    throw Error(Errc::invalid_argument, operation,
                fmt::format("{}: a storage buffer at {:#x} of {} bytes is not 1..{} aligned 4-byte elements", argument,
                            address.value(), size, max_elements));
  std::fill(out.begin(), out.end(), 0u);
  out[0] = static_cast<std::uint32_t>(d::TEX_CONST_0.pack({{"FMT", raw(d::Format::FMT6_32_UINT)},
                                                           {"SWIZ_X", raw(d::Swizzle::A6XX_TEX_X)},
                                                           {"SWIZ_Y", raw(d::Swizzle::A6XX_TEX_Y)},
                                                           {"SWIZ_Z", raw(d::Swizzle::A6XX_TEX_Z)},
                                                           {"SWIZ_W", raw(d::Swizzle::A6XX_TEX_ONE)}}));
  out[1] = static_cast<std::uint32_t>(d::TEX_CONST_1.pack({{"WIDTH", elements & width.max_value()},
                                                           {"HEIGHT", elements >> width.width()}}));
  out[2] = static_cast<std::uint32_t>(d::TEX_CONST_2.pack({{"STRUCTSIZETEXELS", 1},
                                                           {"STARTOFFSETTEXELS", (address.value() % kImageBaseAlignment) / 4},
                                                           {"TYPE", raw(d::TexType::A6XX_TEX_BUFFER)}}));
  const std::uint64_t base_words = d::TEX_CONST_BASE.pack({{"BASE", address.value() & ~(kImageBaseAlignment - 1)}});
  out[4] = static_cast<std::uint32_t>(base_words);
  out[5] = static_cast<std::uint32_t>(base_words >> 32);
}

void write_sampler_descriptor(std::span<std::uint32_t, 4> out, const SamplerDesc& sampler) {
  const std::uint64_t filter = raw(sampler.filter == SamplerDesc::Filter::linear ? d::Filter::A6XX_TEX_LINEAR : d::Filter::A6XX_TEX_NEAREST);
  const std::uint64_t clamp = raw(clamp_of(sampler.address));
  out[0] = static_cast<std::uint32_t>(
      d::TEX_SAMP_0.pack({{"XY_MAG", filter}, {"XY_MIN", filter}, {"WRAP_S", clamp}, {"WRAP_T", clamp}, {"WRAP_R", clamp}}));
  // Seamless cube filtering off, as tinygrad's samplers (compute images are never cubes).
  out[1] = static_cast<std::uint32_t>(
      d::TEX_SAMP_1.pack({{"CUBEMAPSEAMLESSFILTOFF", 1}, {"UNNORM_COORDS", sampler.normalized_coordinates ? 0u : 1u}}));
  out[2] = 0;  // BCOLOR 0: every sampler uses border-color entry 0 (transparent black)
  out[3] = 0;
}

}  // namespace adreno
