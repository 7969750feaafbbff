// Layouts of the a6xx texture/IBO descriptor (16 dwords, "A6XX_TEX_CONST") and sampler
// descriptor (4 dwords, "A6XX_TEX_SAMP") in the register-database schema: an entry's offset is
// its dword index in the descriptor. The argument writer packs through these fields, tests and
// tools decode with them, and the virtual GPU's texture unit can read the same table.
//
// Source: Mesa src/freedreno/registers/adreno/a6xx_descriptors.xml (domains A6XX_TEX_CONST,
// A6XX_TEX_SAMP and A6XX_UBO) and the enums a6xx_format, a6xx_tex_type, a6xx_tex_swiz, a6xx_tex_clamp,
// a6xx_tex_filter of a6xx_enums.xml (tests/pm4 compares them with Mesa's values); cross-checked
// against the generated header tinygrad carries, extra/qcom_gpu_driver/a6xx.xml.h (tinygrad
// snapshot a9069c177a9da9cca18593edf55acd2e6073cca6).
// Where the XML splits the base address into BASE_LO (dword 4, bits 5-31, shr 5) and BASE_HI
// (dword 5, bits 0-16), the qword form below is the same bits.
#pragma once

#include <cstdint>

#include "pm4/enums.h"
#include "pm4/field.h"

namespace adreno::pm4::a6xx_descriptors {

inline constexpr std::uint32_t kTextureDwords = 16;  // texture and IBO descriptors
inline constexpr std::uint32_t kSamplerDwords = 4;
/// A uniform-buffer descriptor ("A6XX_UBO"): two dwords per UBO slot.
inline constexpr std::uint32_t kUboDwords = 2;
/// One border-color entry, indexed by a sampler's BCOLOR (Mesa fd6 bcolor_entry is 128 bytes).
inline constexpr std::uint32_t kBorderColorBytes = 128;

enum class Format : std::uint8_t {  // a6xx_format
  FMT6_16_FLOAT = 23,
  FMT6_16_UINT = 24,
  FMT6_16_SINT = 25,
  FMT6_8_8_8_8_UNORM = 48,
  FMT6_16_16_FLOAT = 69,
  FMT6_16_16_UINT = 70,
  FMT6_16_16_SINT = 71,
  FMT6_32_FLOAT = 74,
  FMT6_32_UINT = 75,
  FMT6_32_SINT = 76,
  FMT6_16_16_16_16_FLOAT = 98,
  FMT6_16_16_16_16_UINT = 99,
  FMT6_16_16_16_16_SINT = 100,
  FMT6_32_32_FLOAT = 103,
  FMT6_32_32_UINT = 104,
  FMT6_32_32_SINT = 105,
  FMT6_32_32_32_32_FLOAT = 130,
  FMT6_32_32_32_32_UINT = 131,
  FMT6_32_32_32_32_SINT = 132,
};
enum class TexType : std::uint8_t {
  A6XX_TEX_1D = 0,
  A6XX_TEX_2D = 1,
  A6XX_TEX_CUBE = 2,
  A6XX_TEX_3D = 3,
  A6XX_TEX_BUFFER = 4
};
enum class Swizzle : std::uint8_t {
  A6XX_TEX_X = 0,
  A6XX_TEX_Y = 1,
  A6XX_TEX_Z = 2,
  A6XX_TEX_W = 3,
  A6XX_TEX_ZERO = 4,
  A6XX_TEX_ONE = 5
};
enum class Clamp : std::uint8_t {
  A6XX_TEX_REPEAT = 0,
  A6XX_TEX_CLAMP_TO_EDGE = 1,
  A6XX_TEX_MIRROR_REPEAT = 2,
  A6XX_TEX_CLAMP_TO_BORDER = 3,
  A6XX_TEX_MIRROR_CLAMP = 4,
};
enum class Filter : std::uint8_t { A6XX_TEX_NEAREST = 0, A6XX_TEX_LINEAR = 1 };

// Name tables for the decoder and for the comparison with Mesa's enums (tests/pm4).
namespace enum_values {
inline constexpr EnumValue kFormat[] = {
    ADRENO_PM4_ENUM(Format, FMT6_16_FLOAT),          ADRENO_PM4_ENUM(Format, FMT6_16_UINT),
    ADRENO_PM4_ENUM(Format, FMT6_16_SINT),           ADRENO_PM4_ENUM(Format, FMT6_8_8_8_8_UNORM),
    ADRENO_PM4_ENUM(Format, FMT6_16_16_FLOAT),       ADRENO_PM4_ENUM(Format, FMT6_16_16_UINT),
    ADRENO_PM4_ENUM(Format, FMT6_16_16_SINT),        ADRENO_PM4_ENUM(Format, FMT6_32_FLOAT),
    ADRENO_PM4_ENUM(Format, FMT6_32_UINT),           ADRENO_PM4_ENUM(Format, FMT6_32_SINT),
    ADRENO_PM4_ENUM(Format, FMT6_16_16_16_16_FLOAT), ADRENO_PM4_ENUM(Format, FMT6_16_16_16_16_UINT),
    ADRENO_PM4_ENUM(Format, FMT6_16_16_16_16_SINT),  ADRENO_PM4_ENUM(Format, FMT6_32_32_FLOAT),
    ADRENO_PM4_ENUM(Format, FMT6_32_32_UINT),        ADRENO_PM4_ENUM(Format, FMT6_32_32_SINT),
    ADRENO_PM4_ENUM(Format, FMT6_32_32_32_32_FLOAT), ADRENO_PM4_ENUM(Format, FMT6_32_32_32_32_UINT),
    ADRENO_PM4_ENUM(Format, FMT6_32_32_32_32_SINT),
};
inline constexpr EnumValue kTexType[] = {
    ADRENO_PM4_ENUM(TexType, A6XX_TEX_1D),     ADRENO_PM4_ENUM(TexType, A6XX_TEX_2D),
    ADRENO_PM4_ENUM(TexType, A6XX_TEX_CUBE),   ADRENO_PM4_ENUM(TexType, A6XX_TEX_3D),
    ADRENO_PM4_ENUM(TexType, A6XX_TEX_BUFFER),
};
inline constexpr EnumValue kSwizzle[] = {
    ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_X),    ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_Y),
    ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_Z),    ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_W),
    ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_ZERO), ADRENO_PM4_ENUM(Swizzle, A6XX_TEX_ONE),
};
inline constexpr EnumValue kClamp[] = {
    ADRENO_PM4_ENUM(Clamp, A6XX_TEX_REPEAT),        ADRENO_PM4_ENUM(Clamp, A6XX_TEX_CLAMP_TO_EDGE),
    ADRENO_PM4_ENUM(Clamp, A6XX_TEX_MIRROR_REPEAT), ADRENO_PM4_ENUM(Clamp, A6XX_TEX_CLAMP_TO_BORDER),
    ADRENO_PM4_ENUM(Clamp, A6XX_TEX_MIRROR_CLAMP),
};
inline constexpr EnumValue kFilter[] = {ADRENO_PM4_ENUM(Filter, A6XX_TEX_NEAREST),
                                        ADRENO_PM4_ENUM(Filter, A6XX_TEX_LINEAR)};
}  // namespace enum_values

namespace enums {
inline constexpr EnumType kFormat{"a6xx_format", enum_values::kFormat};
inline constexpr EnumType kTexType{"a6xx_tex_type", enum_values::kTexType};
inline constexpr EnumType kSwizzle{"a6xx_tex_swiz", enum_values::kSwizzle};
inline constexpr EnumType kClamp{"a6xx_tex_clamp", enum_values::kClamp};
inline constexpr EnumType kFilter{"a6xx_tex_filter", enum_values::kFilter};
}  // namespace enums

namespace fields {
using FT = FieldType;
inline constexpr Field kTexConst0[] = {
    {"TILE_MODE", 0, 1, 0, FT::uint},
    {"SRGB", 2, 2, 0, FT::boolean},
    {"SWIZ_X", 4, 6, 0, FT::enumeration, &enums::kSwizzle},
    {"SWIZ_Y", 7, 9, 0, FT::enumeration, &enums::kSwizzle},
    {"SWIZ_Z", 10, 12, 0, FT::enumeration, &enums::kSwizzle},
    {"SWIZ_W", 13, 15, 0, FT::enumeration, &enums::kSwizzle},
    {"MIPLVLS", 16, 19, 0, FT::uint},
    {"SAMPLES", 20, 21, 0, FT::uint},
    {"FMT", 22, 29, 0, FT::enumeration, &enums::kFormat},
    {"SWAP", 30, 31, 0, FT::uint},
};
inline constexpr Field kTexConst1[] = {{"WIDTH", 0, 14, 0, FT::uint}, {"HEIGHT", 15, 29, 0, FT::uint}};
inline constexpr Field kTexConst2[] = {
    // STRUCTSIZETEXELS and STARTOFFSETTEXELS overlap PITCH: buffers (TYPE A6XX_TEX_BUFFER) use
    // them instead (a6xx_descriptors.xml).
    {"STRUCTSIZETEXELS", 4, 15, 0, FT::uint},
    {"STARTOFFSETTEXELS", 16, 21, 0, FT::uint},
    {"PITCHALIGN", 0, 3, 0, FT::uint},
    {"PITCH", 7, 28, 0, FT::uint},
    {"TYPE", 29, 31, 0, FT::enumeration, &enums::kTexType},
};
inline constexpr Field kTexConst3[] = {{"ARRAY_PITCH", 0, 22, 12, FT::uint}};
inline constexpr Field kTexConstBase[] = {{"BASE", 5, 48, 5, FT::address}, {"DEPTH", 49, 61, 0, FT::uint}};
inline constexpr Field kTexSamp0[] = {
    {"MIPFILTER_LINEAR_NEAR", 0, 0, 0, FT::boolean},
    {"XY_MAG", 1, 2, 0, FT::enumeration, &enums::kFilter},
    {"XY_MIN", 3, 4, 0, FT::enumeration, &enums::kFilter},
    {"WRAP_S", 5, 7, 0, FT::enumeration, &enums::kClamp},
    {"WRAP_T", 8, 10, 0, FT::enumeration, &enums::kClamp},
    {"WRAP_R", 11, 13, 0, FT::enumeration, &enums::kClamp},
    {"ANISO", 14, 16, 0, FT::uint},
    {"LOD_BIAS", 19, 31, 0, FT::hex},
};
inline constexpr Field kTexSamp1[] = {
    {"CLAMPENABLE", 0, 0, 0, FT::boolean},
    {"COMPARE_FUNC", 1, 3, 0, FT::uint},
    {"CUBEMAPSEAMLESSFILTOFF", 4, 4, 0, FT::boolean},
    {"UNNORM_COORDS", 5, 5, 0, FT::boolean},
    {"MIPFILTER_LINEAR_FAR", 6, 6, 0, FT::boolean},
    {"MAX_LOD", 8, 19, 0, FT::uint},
    {"MIN_LOD", 20, 31, 0, FT::uint},
};
inline constexpr Field kTexSamp2[] = {
    {"REDUCTION_MODE", 0, 1, 0, FT::uint},
    {"CHROMA_LINEAR", 5, 5, 0, FT::boolean},
    {"BCOLOR", 7, 31, 0, FT::uint},
};
// A6XX_UBO as one qword: dword 0 BASE_LO (bits 0-31) and dword 1 BASE_HI (bits 0-16) make a
// 49-bit base; dword 1 SIZE (bits 17-31) is the size in vec4s (4 dwords).
inline constexpr Field kUbo[] = {{"BASE", 0, 48, 0, FT::address}, {"SIZE", 49, 63, 0, FT::uint}};
}  // namespace fields

constexpr Register dword(std::uint32_t index, std::string_view name, std::span<const Field> f) {
  return Register{index, name, "", f, 1, 1, 0, kA6xx};
}
inline constexpr Register TEX_CONST_0 = dword(0, "TEX_CONST_0", fields::kTexConst0);
inline constexpr Register TEX_CONST_1 = dword(1, "TEX_CONST_1", fields::kTexConst1);
inline constexpr Register TEX_CONST_2 = dword(2, "TEX_CONST_2", fields::kTexConst2);
inline constexpr Register TEX_CONST_3 = dword(3, "TEX_CONST_3", fields::kTexConst3);
inline constexpr Register TEX_CONST_BASE =
    Register{4, "TEX_CONST_BASE", "TEX_CONST_4 TEX_CONST_5", fields::kTexConstBase, 2, 1, 0, kA6xx};
inline constexpr Register UBO = Register{0, "UBO", "UBO_0 UBO_1", fields::kUbo, 2, 1, 0, kA6xx};
inline constexpr Register TEX_SAMP_0 = dword(0, "TEX_SAMP_0", fields::kTexSamp0);
inline constexpr Register TEX_SAMP_1 = dword(1, "TEX_SAMP_1", fields::kTexSamp1);
inline constexpr Register TEX_SAMP_2 = dword(2, "TEX_SAMP_2", fields::kTexSamp2);

}  // namespace adreno::pm4::a6xx_descriptors
