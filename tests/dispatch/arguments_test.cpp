// [virtual-kernel] Arguments: constants land at the program's dwords, image and sampler
// descriptors carry the fields of Mesa's A6XX_TEX_CONST / A6XX_TEX_SAMP layouts (bit positions
// written out here from the generated a6xx.xml.h tinygrad carries), and limits are enforced.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/arguments_impl.h"
#include "program_fixtures.h"

#include <bit>
#include <random>

using namespace adreno;

namespace {

template <typename F>
void require_invalid(F&& f, const std::string& text, Errc code = Errc::invalid_argument) {
  try {
    f();
    FAIL("no error; expected one mentioning " << text);
  } catch (const Error& error) {
    INFO(error.what());
    CHECK(error.code() == code);
    CHECK(std::string(error.what()).find(text) != std::string::npos);
  }
}

std::span<const std::uint32_t> descriptor(std::span<const std::uint32_t> table, std::size_t slot, std::size_t dwords) {
  return table.subspan(slot * dwords, dwords);
}

}  // namespace

TEST_CASE("buffer addresses, scalars and immediates land at the program's constant dwords", "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-kgsl");
  {
    std::mt19937 rng(1234);
    Ir3Metadata m;
    m.name = "random_layout";
    m.instrlen = 1;
    m.constlen_vec4 = 16;
    // Distinct, non-overlapping slots in a shuffled order.
    std::vector<std::uint32_t> slots(32);
    for (std::uint32_t i = 0; i < 32; ++i) slots[i] = 2 * i;
    std::shuffle(slots.begin(), slots.end(), rng);
    m.buffers = {{"p0", slots[0]}, {"p1", slots[1]}, {"p2", slots[2]}};
    m.scalars = {{"s1", slots[3], 1}, {"s2", slots[4], 2}, {"s4", slots[5], 4}, {"s8", slots[6], 8}};
    m.immediates = {{slots[7], 0xabcdef01}, {slots[8] + 1, 0x12345678}};
    Program program = Program::from_ir3(*device, std::vector<std::uint32_t>(32, 0), m);
    Buffer buffer = device->allocate({.size = 64 * 1024});
    Arguments arguments(program);
    std::vector<std::uint64_t> offsets;
    for (std::size_t i = 0; i < 3; ++i) {
      offsets.push_back((rng() % 1000) * 64);
      arguments.set_buffer(i, buffer.view(offsets[i], 64));
    }
    const std::uint8_t s1 = 0x9c;
    const std::uint16_t s2 = 0xbeef;
    const std::uint32_t s4 = rng();
    const std::uint64_t s8 = (std::uint64_t{rng()} << 32) | rng();
    arguments.set_scalar(3, s1).set_scalar(4, s2).set_scalar(5, s4).set_scalar(6, s8);

    const auto c = arguments.impl().constants();
    REQUIRE(c.size() == 64);
    for (std::size_t i = 0; i < 3; ++i) {
      const GpuAddress expected = buffer.gpu_address() + offsets[i];
      CHECK(c[slots[i]] == expected.lo());
      CHECK(c[slots[i] + 1] == expected.hi());
    }
    CHECK(c[slots[3]] == s1);
    CHECK(c[slots[4]] == s2);
    CHECK(c[slots[5]] == s4);
    CHECK(c[slots[6]] == static_cast<std::uint32_t>(s8));
    CHECK(c[slots[6] + 1] == static_cast<std::uint32_t>(s8 >> 32));
    CHECK(c[slots[7]] == 0xabcdef01);
    CHECK(c[slots[8] + 1] == 0x12345678);
    // Every other dword stays zero.
    std::vector<bool> used(64, false);
    for (int i = 0; i < 3; ++i) used[slots[i]] = used[slots[i] + 1] = true;
    used[slots[3]] = used[slots[4]] = used[slots[5]] = used[slots[6]] = used[slots[6] + 1] = true;
    used[slots[7]] = used[slots[8] + 1] = true;
    for (std::size_t i = 0; i < 64; ++i)
      if (!used[i]) CHECK(c[i] == 0);
  }
  device.close_and_check_ledger();
}

TEST_CASE("image descriptors carry format, size, pitch and base address in Mesa's layout", "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-msm");
  {
    const std::vector<std::byte> binary = image_kernel_binary().build();
    Program program = Program::from_qualcomm_binary(*device, binary);
    Buffer memory = device->allocate({.size = 8 << 20});
    std::mt19937 rng(42);
    struct Case {
      ImageFormat format;
      std::uint32_t fmt6, bytes;
    };
    const Case formats[] = {{ImageFormat::rgba32_float, 130, 16}, {ImageFormat::rgba16_float, 98, 8},
                            {ImageFormat::r32_uint, 75, 4},       {ImageFormat::r32_float, 74, 4},
                            {ImageFormat::rgba8_unorm, 48, 4},    {ImageFormat::rgba32_uint, 131, 16}};
    for (int trial = 0; trial < 24; ++trial) {
      const Case& f = formats[rng() % std::size(formats)];
      const std::uint32_t width = 1 + rng() % 512, height = 1 + rng() % 256;
      const std::uint32_t pitch = (width * f.bytes + 63) / 64 * 64 + 64 * (rng() % 4);
      const std::uint64_t offset = 64 * (rng() % 1024);
      const ImageDesc image{memory.view(offset, std::uint64_t{pitch} * height), f.format, width, height, pitch};
      Arguments arguments(program);
      arguments.set_texture(2, image).set_storage_image(3, image);
      const GpuAddress base = memory.gpu_address() + offset;
      INFO("trial " << trial << ": " << width << "x" << height << " pitch " << pitch << " fmt " << f.fmt6);

      // A6XX_TEX_CONST: 0 FMT [29:22], SWIZ_X..W [6:4] [9:7] [12:10] [15:13]; 1 WIDTH [14:0],
      // HEIGHT [29:15]; 2 PITCHALIGN [3:0], PITCH [28:7], TYPE [31:29] (A6XX_TEX_2D = 1);
      // 4 BASE_LO [31:5]; 5 BASE_HI [16:0], DEPTH [29:17].
      const auto texture = descriptor(arguments.impl().textures(), 0, 16);
      // PITCHALIGN is checked by what it means (a6xx_descriptors.xml: log2(alignment / 64)):
      // the pitch is a multiple of 64 << PITCHALIGN and of no larger power of two. The literal
      // cases of the next test pin the exact words.
      const std::uint32_t pitchalign = texture[2] & 0xf;
      CHECK(pitch % (64u << pitchalign) == 0);
      CHECK(pitch % (128u << pitchalign) != 0);
      const std::uint32_t expected[16] = {f.fmt6 << 22 | 0u << 4 | 1u << 7 | 2u << 10 | 3u << 13,
                                          width | height << 15,
                                          pitchalign | pitch << 7 | 1u << 29,
                                          0,
                                          base.lo(),
                                          base.hi() | 1u << 17};
      for (unsigned i = 0; i < 16; ++i) CHECK(texture[i] == expected[i]);
      // IBOs carry the same fields without a swizzle (tinygrad _tex(ibo=True), Mesa fd6 IBOs).
      const auto ibo = descriptor(arguments.impl().storage_images(), 0, 16);
      CHECK(ibo[0] == f.fmt6 << 22);
      for (unsigned i = 1; i < 16; ++i) CHECK(ibo[i] == expected[i]);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("an image's pitch word holds its pitch, its alignment and TYPE 2D, worked by hand for chosen pitches",
          "[virtual-kernel][arguments]") {
  // TEX_CONST_2 = PITCHALIGN [3:0] | PITCH [28:7] | TYPE [31:29] (A6XX_TEX_2D = 1), with
  // PITCHALIGN = log2(the pitch's power-of-two alignment / 64) as tinygrad's QCOMArgsState._tex
  // writes it (ctz(pitch) - 6). Each word below was worked out by hand. Mesa's fdl6_layout takes
  // a smaller PITCHALIGN for an explicit linear layout (0 up to 4-byte texels, fd6_layout.c), the
  // alignment it requires rather than the one the pitch has; both only bound the pitch of
  // smaller mipmap levels ("minimum pitch (for mipmap levels)", a6xx_descriptors.xml), which a
  // one-level image does not have.
  struct Case {
    ImageFormat format;
    std::uint32_t width, pitch, dword2;
  };
  const Case cases[] = {
      {ImageFormat::r32_float, 16, 64, 0x20002000},          // 64 = 64 × 1: PITCHALIGN 0
      {ImageFormat::rgba16_float, 40, 320, 0x2000a000},      // 320 = 64 × 5: 0
      {ImageFormat::rgba8_unorm, 100, 448, 0x2000e000},      // 448 = 64 × 7: 0
      {ImageFormat::rgba32_uint, 100, 1664, 0x20034001},     // 1664 = 128 × 13: 1
      {ImageFormat::rgba32_float, 64, 1024, 0x20020004},     // 1024 = 64 × 16: 4
      {ImageFormat::r32_uint, 1000, 4096, 0x20080006},       // 4096 = 64 × 64: 6
      {ImageFormat::rgba32_float, 4096, 65536, 0x2080000a},  // 65536 = 64 × 1024: 10
      {ImageFormat::r32_uint, 1, 2097152, 0x3000000f},       // 2^21 = 64 × 2^15: 15, the field's top
      {ImageFormat::r32_uint, 1, 4194240, 0x3fffe000},       // 64 × 65535, the largest 64-multiple PITCH holds
  };
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_qualcomm_binary(*device, image_kernel_binary().build());
    Buffer memory = device->allocate({.size = 8 << 20});
    for (const Case& c : cases) {
      INFO("pitch " << c.pitch);
      Arguments arguments(program);
      arguments.set_texture(2, ImageDesc{memory.view(0, 2 * std::uint64_t{c.pitch}), c.format, c.width, 2, c.pitch});
      CHECK(descriptor(arguments.impl().textures(), 0, 16)[2] == c.dword2);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("the default sampler matches tinygrad's and every sampler field lands in place", "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_qualcomm_binary(*device, image_kernel_binary().build());
    Arguments arguments(program);
    arguments.set_sampler(0, {});
    // tinygrad QCOMProgram: TEX_SAMP_0 wrap_s/t/r = CLAMP_TO_BORDER (3) at [7:5] [10:8] [13:11];
    // TEX_SAMP_1 UNNORM_COORDS (bit 5) | CUBEMAPSEAMLESSFILTOFF (bit 4); then 0, 0.
    auto sampler = descriptor(arguments.impl().samplers(), 0, 4);
    CHECK(sampler[0] == (3u << 5 | 3u << 8 | 3u << 11));
    CHECK(sampler[1] == 0x30);
    CHECK(sampler[2] == 0);
    CHECK(sampler[3] == 0);
    arguments.set_sampler(0, {SamplerDesc::Filter::linear, SamplerDesc::Address::repeat, true});
    sampler = descriptor(arguments.impl().samplers(), 0, 4);
    CHECK(sampler[0] == (1u << 1 | 1u << 3));  // XY_MAG, XY_MIN = A6XX_TEX_LINEAR; wraps REPEAT = 0
    CHECK(sampler[1] == 0x10);
    arguments.set_sampler(0, {SamplerDesc::Filter::nearest, SamplerDesc::Address::mirrored_repeat, false});
    CHECK(descriptor(arguments.impl().samplers(), 0, 4)[0] == (2u << 5 | 2u << 8 | 2u << 11));
    arguments.set_sampler(0, {SamplerDesc::Filter::nearest, SamplerDesc::Address::clamp_to_edge, false});
    CHECK(descriptor(arguments.impl().samplers(), 0, 4)[0] == (1u << 5 | 1u << 8 | 1u << 11));
  }
  device.close_and_check_ledger();
}

TEST_CASE("images beyond the GPU's limits or their buffer are refused naming the argument", "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_qualcomm_binary(*device, image_kernel_binary().build());
    Buffer memory = device->allocate({.size = 64 << 20});
    Arguments arguments(program);
    const ImageDesc fits{memory.view(0, 16384 * 256), ImageFormat::r32_float, 64, 16384, 256};
    CHECK_NOTHROW(arguments.set_texture(2, fits));
    ImageDesc wide{memory.view(0, 64 << 20), ImageFormat::r32_float, 16384, 4, 16384 * 4};
    CHECK_NOTHROW(arguments.set_storage_image(3, wide));
    wide.width = 16385;
    wide.pitch_bytes = 16448 * 4;
    require_invalid([&] { arguments.set_storage_image(3, wide); }, "argument 3: width 16385");
    ImageDesc tall = fits;
    tall.height = 16385;
    require_invalid([&] { arguments.set_texture(2, tall); }, "height 16385");
    ImageDesc odd_pitch = fits;
    odd_pitch.pitch_bytes = 260;
    require_invalid([&] { arguments.set_texture(2, odd_pitch); }, "pitch 260");
    ImageDesc short_pitch = fits;
    short_pitch.width = 65;
    require_invalid([&] { arguments.set_texture(2, short_pitch); }, "pitch 256");
    ImageDesc small_view = fits;
    small_view.memory = memory.view(0, 16384 * 256 - 1);
    require_invalid([&] { arguments.set_texture(2, small_view); }, "the buffer view has");
    ImageDesc misaligned = fits;
    misaligned.memory = memory.view(32, 16384 * 256);
    require_invalid([&] { arguments.set_texture(2, misaligned); }, "not 64-byte aligned");
  }
  device.close_and_check_ledger();
}

TEST_CASE("arguments of the wrong kind, size, index or name are refused", "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    CHECK(program.argument_index("b") == 2u);
    CHECK_FALSE(program.argument_index("missing"));
    require_invalid([&] { arguments.set_buffer("missing", buffer); }, "no argument named 'missing'", Errc::not_found);
    require_invalid([&] { arguments.set_buffer(7, buffer); }, "argument 7 does not exist");
    require_invalid([&] { arguments.set_buffer(3, buffer); }, "argument 3 ('n') is a 4-byte scalar");
    require_invalid([&] { arguments.set_scalar(3, std::uint64_t{1}); }, "holds 4 bytes; got 8");
    const ImageDesc image{buffer, ImageFormat::r32_float, 1, 1, 64};
    require_invalid([&] { arguments.set_texture(0, image); }, "argument 0 ('c') is a buffer or scalar, not a texture");
    require_invalid([&] { arguments.set_sampler(1, {}); }, "not a sampler");
  }
  device.close_and_check_ledger();
}

// Kills: a @ubo argument bound no UBO descriptor, or one whose size was not in vec4s.
TEST_CASE("uniform-buffer descriptors carry the base and the size in vec4s in Mesa's A6XX_UBO layout",
          "[virtual-kernel][arguments]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_ir3_assembly(*device, "@buf 4\n@ubo 4\n@ubo 64\nend\n");
    Buffer memory = device->allocate({.size = 1 << 20});
    std::mt19937 rng(1414);
    for (int trial = 0; trial < 16; ++trial) {
      const std::uint64_t offset = 64 * (rng() % 1024), bytes = 1 + rng() % 4096;
      Arguments arguments(program);
      // Arguments: the @buf (buf0), then the @ubo lines buf1 (UBO slot 0) and buf2 (slot 1).
      arguments.set_buffer("buf2", memory.view(offset, bytes));
      const GpuAddress base = memory.gpu_address() + offset;
      INFO("trial " << trial << ": " << bytes << " bytes at offset " << offset);
      // A6XX_UBO (a6xx_descriptors.xml): 0 BASE_LO [31:0]; 1 BASE_HI [16:0], SIZE [31:17] in vec4s.
      const auto ubo = descriptor(arguments.impl().uniform_buffers(), 1, 2);
      CHECK(ubo[0] == base.lo());
      CHECK(ubo[1] == (base.hi() | static_cast<std::uint32_t>((bytes + 15) / 16) << 17));
      CHECK(descriptor(arguments.impl().uniform_buffers(), 0, 2)[1] == 0u);  // slot 0 not set yet
    }
    Arguments arguments(program);
    require_invalid([&] { arguments.set_buffer("buf1", memory.view(16, 64)); }, "is not 64-byte aligned");
    require_invalid([&] { arguments.set_scalar<std::uint32_t>(1, 7); }, "a uniform buffer, bound with set_buffer");
  }
  device.close_and_check_ledger();
}
