// [virtual-gpu] Typed and untyped IBO access (ldib.b / stib.b) and isam texel fetches through
// linear a6xx descriptors (pm4/a6xx_descriptors.h, Mesa a6xx_descriptors.xml), for 16- and 32-bit
// float and integer formats of 1, 2 and 4 components.
#include "virtual_gpu.h"

#include "ir3/half_float.h"
#include "pm4/a6xx_descriptors.h"

#include <catch2/catch.hpp>

#include <random>

using namespace vgpu_test;
namespace d = adreno::pm4::a6xx_descriptors;

namespace {

struct FormatCase {
  d::Format format;
  unsigned texel_bytes;
  const char* type;  // the instruction type that moves the texel losslessly
  unsigned components;
  bool half_float;   // f16 texels: keep random values finite (no NaN payload changes through f32)
};

std::vector<std::uint32_t> descriptor(d::Format format, d::TexType type, std::uint32_t width, std::uint32_t height,
                                      std::uint32_t pitch, std::uint64_t base) {
  std::vector<std::uint32_t> out(d::kTextureDwords, 0);
  out[0] = static_cast<std::uint32_t>(d::TEX_CONST_0.pack({{"FMT", pm4::raw(format)}}));
  out[1] = static_cast<std::uint32_t>(d::TEX_CONST_1.pack({{"WIDTH", width}, {"HEIGHT", height}}));
  out[2] = static_cast<std::uint32_t>(d::TEX_CONST_2.pack({{"PITCH", pitch}, {"TYPE", pm4::raw(type)}}));
  const std::uint64_t base_dwords = d::TEX_CONST_BASE.pack({{"BASE", base}, {"DEPTH", 1}});
  out[4] = static_cast<std::uint32_t>(base_dwords);
  out[5] = static_cast<std::uint32_t>(base_dwords >> 32);
  return out;
}

std::vector<std::uint8_t> random_texels(std::mt19937& rng, std::size_t bytes, bool half_float) {
  std::vector<std::uint8_t> out(bytes);
  for (std::size_t i = 0; i < bytes; i += 2) {
    std::uint16_t v = static_cast<std::uint16_t>(rng());
    if (half_float) v = static_cast<std::uint16_t>(v & 0xbbff);  // exponent never all ones
    out[i] = static_cast<std::uint8_t>(v);
    if (i + 1 < bytes) out[i + 1] = static_cast<std::uint8_t>(v >> 8);
  }
  return out;
}

}  // namespace

TEST_CASE("typed ldib/stib and isam copy 2D images of every modelled linear format exactly", "[virtual-gpu][images]") {
  const FormatCase cases[] = {
      {d::Format::FMT6_32_FLOAT, 4, "f32", 1, false},          {d::Format::FMT6_32_UINT, 4, "u32", 1, false},
      {d::Format::FMT6_16_FLOAT, 2, "f32", 1, true},           {d::Format::FMT6_16_UINT, 2, "u32", 1, false},
      {d::Format::FMT6_16_16_SINT, 4, "s32", 2, false},        {d::Format::FMT6_32_32_UINT, 8, "u32", 2, false},
      {d::Format::FMT6_16_16_16_16_FLOAT, 8, "f32", 4, true}, {d::Format::FMT6_16_16_16_16_UINT, 8, "u16", 4, false},
      {d::Format::FMT6_32_32_32_32_FLOAT, 16, "f32", 4, false}, {d::Format::FMT6_32_32_32_32_SINT, 16, "s32", 4, false},
  };
  std::mt19937 rng(77);
  for (const FormatCase& c : cases) {
    for (const bool through_texture : {false, true}) {
      const std::string type = c.type;
      const bool half = type == "u16";
      const std::string reg = half ? "hr2.x" : "r2.x";
      const std::string n = std::to_string(c.components);
      const std::string mask = std::string("xyzw").substr(0, c.components);
      const std::string load = through_texture
                                   ? "isam (" + type + ")(" + mask + ")" + reg + ", r0.x, s#0, t#0"
                                   : "ldib.b.typed.2d." + type + "." + n + ".imm " + reg + ", r0.x, 0";
      const ir3::Program program =
          ir3::assemble(load + "\n(sy)stib.b.typed.2d." + type + "." + n + ".imm " + reg + ", r0.x, 1\nend\n");
      const std::uint32_t width = 24, height = 5, pitch = 1024;
      VirtualGpu gpu;
      const std::uint64_t source = VirtualGpu::kData, destination = source + 0x10000;
      const auto texels = random_texels(rng, std::size_t{pitch} * height, c.half_float);
      gpu.put(source, texels);
      gpu.put(destination, std::vector<std::uint8_t>(std::size_t{pitch} * height, 0xee));
      Launch launch = launch_for(program);
      launch.local_size = {width, height, 1};
      launch.local_id_regid = ir3::regid(0, 0);
      launch.full_footprint = std::max(launch.full_footprint, 3u);
      const auto src = descriptor(c.format, d::TexType::A6XX_TEX_2D, width, height, pitch, gpu.va(source));
      const auto dst = descriptor(c.format, d::TexType::A6XX_TEX_2D, width, height, pitch, gpu.va(destination));
      launch.uavs = through_texture ? std::vector<std::uint32_t>(16, 0) : src;  // slot 0 unused with isam
      launch.uavs.insert(launch.uavs.end(), dst.begin(), dst.end());
      if (through_texture) launch.textures = src;
      gpu.run(program.words, launch);
      const auto out = gpu.get<std::uint8_t>(destination, std::size_t{pitch} * height);
      for (std::uint32_t y = 0; y < height; ++y) {
        for (std::uint32_t x = 0; x < pitch; ++x) {
          const std::size_t at = std::size_t{y} * pitch + x;
          const bool inside = x < width * c.texel_bytes;
          INFO("format " << static_cast<int>(c.format) << (through_texture ? " isam" : " ldib") << " byte " << x << " row " << y);
          REQUIRE(out[at] == (inside ? texels[at] : 0xee));
        }
      }
    }
  }
}

TEST_CASE("untyped ldib/stib move 32- and 16-bit elements of a buffer, out of bounds reads zero", "[virtual-gpu][images]") {
  // Each fiber copies element lid + 1 of slot 0 to element lid of slot 1: the last fiber reads
  // past the end of the 64-element buffer and stores zero.
  for (const char* type : {"u32", "u16"}) {
    const bool half = std::string(type) == "u16";
    const std::string reg = half ? "hr2.x" : "r2.x";
    const ir3::Program program = ir3::assemble("add.u r0.y, r0.x, 1\n(rpt5)nop\nldib.b.untyped.1d." + std::string(type) + ".1.imm " + reg +
                                               ", r0.y, 0\n(sy)stib.b.untyped.1d." + type + ".1.imm " + reg + ", r0.x, 1\nend\n");
    VirtualGpu gpu;
    const unsigned bytes = half ? 2 : 4;
    const std::uint32_t elements = 64;
    const std::uint64_t source = VirtualGpu::kData, destination = source + 0x1000;
    std::mt19937 rng(5);
    std::vector<std::uint8_t> input(elements * bytes);
    for (auto& b : input) b = static_cast<std::uint8_t>(rng());
    gpu.put(source, input);
    const d::Format format = half ? d::Format::FMT6_16_UINT : d::Format::FMT6_32_UINT;
    Launch launch = launch_for(program);
    launch.local_size = {elements, 1, 1};
    launch.local_id_regid = ir3::regid(0, 0);
    launch.uavs = descriptor(format, d::TexType::A6XX_TEX_BUFFER, elements, 0, 0, gpu.va(source));
    const auto dst = descriptor(format, d::TexType::A6XX_TEX_BUFFER, elements, 0, 0, gpu.va(destination));
    launch.uavs.insert(launch.uavs.end(), dst.begin(), dst.end());
    gpu.run(program.words, launch);
    const auto out = gpu.get<std::uint8_t>(destination, elements * bytes);
    for (std::uint32_t i = 0; i < elements * bytes; ++i) {
      INFO(type << " byte " << i);
      REQUIRE(out[i] == (i + bytes < elements * bytes ? input[i + bytes] : 0));
    }
  }
}

TEST_CASE("an IBO slot that SP_CS_CONFIG does not declare is a shader error", "[virtual-gpu][images][faults]") {
  const ir3::Program program = ir3::assemble("ldib.b.typed.1d.u32.1.imm r1.x, r0.x, 3\nend\n");
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.uavs = descriptor(d::Format::FMT6_32_UINT, d::TexType::A6XX_TEX_BUFFER, 4, 0, 0, gpu.va(VirtualGpu::kData));
  try {
    gpu.run(program.words, launch);
    FAIL("no fault");
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::shader_error);
    CHECK_THAT(fault.what(), Catch::Contains("IBO slot 3"));
  }
}
