// [pure] The Qualcomm OpenCL binary parser on hand-built binaries: every record kind, and
// malformed files rejected with Errc::malformed naming the field.
#include <adreno/error.hpp>

#include "core/qualcomm_binary.h"
#include "qualcomm_binary_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace adreno;

namespace {

ProgramInfo parse(const std::vector<std::byte>& bytes) { return parse_qualcomm_binary(bytes); }

// Runs `parse` and checks that it fails as malformed with `field` in the detail.
void require_malformed(const std::vector<std::byte>& bytes, const std::string& field) {
  try {
    parse(bytes);
    FAIL("parsed a malformed binary; expected an error naming " << field);
  } catch (const Error& error) {
    INFO(error.what());
    CHECK(error.code() == Errc::malformed);
    CHECK(error.detail().find(field) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("a Qualcomm binary yields its code, footprint, entry, memory sizes and every record kind", "[pure][program]") {
  ClBinaryBuilder b;
  b.name = "matmul_kernel";
  b.fregs = 12;
  b.hregs = 5;
  b.entry_offset = 0x40;
  b.pvtmem = 700;
  b.shmem = 4096;
  b.brnchstck_raw = 6;
  b.samplers = 1;
  b.arguments = {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {2, 0}, {1, 0}};
  b.constants = {{0x3f800000, 5, 1}, {0xbeef, 9, 0}};
  std::mt19937 rng(6);
  for (auto& word : b.code) word = rng();
  const ProgramInfo info = parse(b.build());

  CHECK(info.name == "matmul_kernel");
  CHECK(info.launch == LaunchPacket::run_opencl);
  CHECK(info.opencl_isa_mode);
  CHECK(info.code == b.code);
  CHECK(info.instrlen == 2);  // 256 bytes in 128-byte groups (the binary holds no count)
  CHECK(info.full_regs_vec4 == 12);
  CHECK(info.half_regs_vec4 == 5);
  CHECK(info.entry_offset == 0x40);
  CHECK(info.private_bytes_per_fiber == 700);
  CHECK(info.shared_bytes == 4096);
  CHECK(info.branch_stack == 3);  // the file holds twice the depth (ops_qcom.py halves it)
  CHECK(info.work_group_id_regid == 0xcf);
  CHECK(info.local_id_regid == 0);

  using K = ProgramArgument::Kind;
  REQUIRE(info.arguments.size() == 7);
  CHECK(info.arguments[0].kind == K::sampler);
  CHECK(info.arguments[0].slot == 0);
  CHECK(info.arguments[1].kind == K::constant);
  CHECK(info.arguments[1].const_byte == 0);
  CHECK(info.arguments[2].kind == K::storage_image);
  CHECK(info.arguments[2].slot == 0);
  CHECK(info.arguments[3].kind == K::constant);
  CHECK(info.arguments[3].const_byte == 8);
  CHECK(info.arguments[4].kind == K::texture);
  CHECK(info.arguments[4].slot == 0);
  CHECK(info.arguments[5].slot == 1);
  CHECK(info.arguments[6].kind == K::texture);
  CHECK(info.arguments[6].slot == 1);
  CHECK(info.textures == 2);
  CHECK(info.storage_images == 2);
  CHECK(info.samplers == 1);

  REQUIRE(info.immediates.size() == 2);
  CHECK(info.immediates[0].const_byte == 20);  // 5 units of 4 bytes
  CHECK(info.immediates[0].size_bytes == 4);
  CHECK(info.immediates[0].value == 0x3f800000);
  CHECK(info.immediates[1].const_byte == 18);  // 9 units of 2 bytes
  CHECK(info.immediates[1].size_bytes == 2);
}

TEST_CASE("argument records of any whole length are stepped over by their length", "[pure][program]") {
  ClBinaryBuilder b;
  b.arguments = {{0, 4, 48}, {0, 6, 32}};
  const ProgramInfo info = parse(b.build());
  REQUIRE(info.arguments.size() == 2);
  CHECK(info.arguments[1].const_byte == 24);
}

TEST_CASE("every truncation of a Qualcomm binary is rejected as malformed", "[pure][program]") {
  ClBinaryBuilder b;
  b.arguments = {{0, 0}, {0, 2}};
  b.constants = {{1, 8, 1}};
  const std::vector<std::byte> whole = b.build();
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t length = rng() % whole.size();
    INFO("truncated to " << length << " of " << whole.size() << " bytes");
    const std::vector<std::byte> cut(whole.begin(), whole.begin() + static_cast<long>(length));
    CHECK_THROWS_MATCHES(parse(cut), Error, Catch::Predicate<Error>([](const Error& e) { return e.code() == Errc::malformed; }));
  }
}

TEST_CASE("malformed Qualcomm binaries name the offending field", "[pure][program]") {
  ClBinaryBuilder b;
  b.arguments = {{0, 0}};
  b.constants = {{1, 8, 1}};
  const std::vector<std::byte> good = b.build();
  REQUIRE_NOTHROW(parse(good));
  auto with = [&](std::size_t at, std::uint32_t value) {
    std::vector<std::byte> bytes = good;
    ClBinaryBuilder::put(bytes, at, value);
    return bytes;
  };
  SECTION("too few sections") { require_malformed(with(0x18, 11), "num_sections"); }
  SECTION("a section outside the file") { require_malformed(with(0x30 + 11 * 20 + 4, 0x7fffff00), "section[11]"); }
  SECTION("code size not whole instructions") { require_malformed(with(0x30 + 10 * 20 + 8, 252), "code size"); }
  SECTION("code beyond the file") { require_malformed(with(0x30 + 10 * 20 + 8, 0x100000), "section[10]"); }
  SECTION("entry outside the code") { require_malformed(with(b.desc_at + 0xc4, 256), "prg_offset"); }
  SECTION("49 full registers") { require_malformed(with(b.program_at + 0x14, 49), "full register footprint"); }
  SECTION("49 half registers") { require_malformed(with(b.program_at + 0x18, 49), "half register footprint"); }
  SECTION("branch stack too deep") { require_malformed(with(b.desc_at + 0x108, 128), "branch stack"); }
  SECTION("shared memory beyond 32 KiB") { require_malformed(with(b.desc_at + 0xd8, 32 * 1024 + 1), "shared memory"); }
  SECTION("private memory beyond the field") { require_malformed(with(b.desc_at + 0xc8, 255 * 512 + 1), "private memory"); }
  SECTION("too many samplers") { require_malformed(with(b.desc_at + 0xdc, 17), "samp_cnt"); }
  SECTION("unknown argument type") { require_malformed(with(b.records_at + 28, 7), ".type"); }
  SECTION("argument record shorter than a record") { require_malformed(with(b.records_at, 12), ".length"); }
  SECTION("argument record past the end") { require_malformed(with(b.records_at, 0x7ffffff0), "argument record"); }
  SECTION("buffer offset outside the constant file") { require_malformed(with(b.records_at + 12, 1023), ".offset"); }
  SECTION("constant neither 16- nor 32-bit") { require_malformed(with(b.consts_at + 24, 2), ".is32"); }
  SECTION("constant outside the constant file") { require_malformed(with(b.consts_at + 16, 1024), "constant record"); }
  SECTION("kernel name without NUL") {
    // Point the image descriptor at the end of a code image without zero bytes: the name then
    // runs to the end of the file.
    ClBinaryBuilder unterminated = b;
    std::fill(unterminated.code.begin(), unterminated.code.end(), 0x41414141u);
    std::vector<std::byte> bytes = unterminated.build();
    const std::size_t desc_at = bytes.size() - 0x158 - 8;
    ClBinaryBuilder::put(bytes, 0x30 + 11 * 20 + 4, static_cast<std::uint32_t>(desc_at));
    ClBinaryBuilder::put(bytes, 0x30 + 11 * 20 + 8, 0x158 + 8);
    require_malformed(bytes, "kernel_name");
  }
}
