// [pure] The register database: every field of every register packs and extracts back, values
// that do not fit are rejected, lookups by offset and by current or former name agree.
#include "pm4/register_database.h"

#include <random>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <adreno/error.hpp>

using namespace adreno;
using namespace adreno::pm4;

namespace {

// A random value that fits `field`: random stored bits shifted back by shr.
std::uint64_t random_fitting_value(const Field& field, std::mt19937_64& rng) {
  return (rng() & field.stored_max()) << field.shr;
}

}  // namespace

TEST_CASE("every field of every register round-trips through pack and extract", "[pure][pm4]") {
  std::mt19937_64 rng(0x630);
  for (const Register* reg : all_registers()) {
    for (const Field& field : reg->fields) {
      INFO(reg->name << "." << field.name);
      for (int trial = 0; trial < 64; ++trial) {
        std::uint64_t value = random_fitting_value(field, rng);
        std::uint64_t raw = field.pack(value);
        CHECK((raw & ~field.mask()) == 0);
        CHECK(field.extract(raw) == value);
      }
      CHECK(field.extract(field.pack(field.max_value())) == field.max_value());
    }
  }
}

TEST_CASE("all fields of a register packed together come back individually", "[pure][pm4]") {
  std::mt19937_64 rng(0x5eed);
  for (const Register* reg : all_registers()) {
    INFO(reg->name);
    std::vector<std::uint64_t> values;
    std::uint64_t raw = 0;
    for (const Field& field : reg->fields) {
      values.push_back(random_fitting_value(field, rng));
      raw |= field.pack(values.back());
    }
    for (std::size_t i = 0; i < reg->fields.size(); ++i) CHECK(reg->fields[i].extract(raw) == values[i]);
  }
}

TEST_CASE("fields lie inside their register and do not overlap", "[pure][pm4]") {
  for (const Register* reg : all_registers()) {
    INFO(reg->name);
    std::uint64_t seen = 0;
    std::set<std::string_view> names;
    for (const Field& field : reg->fields) {
      CHECK(field.low <= field.high);
      CHECK(field.high < 32u * reg->dwords);
      CHECK((seen & field.mask()) == 0);
      seen |= field.mask();
      CHECK(names.insert(field.name).second);
      if (field.type == FieldType::enumeration) CHECK(field.enum_type != nullptr);
    }
  }
}

TEST_CASE("a value one past a field's maximum is rejected instead of spilling over", "[pure][pm4]") {
  for (const Register* reg : all_registers()) {
    for (const Field& field : reg->fields) {
      if (field.width() + field.shr >= 64) continue;  // every 64-bit value fits
      INFO(reg->name << "." << field.name);
      std::uint64_t too_big = field.max_value() + (1ull << field.shr);
      CHECK_FALSE(field.fits(too_big));
      CHECK_THROWS_AS(field.pack(too_big), Error);
    }
  }
}

TEST_CASE("a value that is not a multiple of the field's shift is rejected", "[pure][pm4]") {
  const Field& constlen = a6xx::SP_CS_CONST_CONFIG.field("CONSTLEN");  // shr 2
  CHECK(constlen.pack(256) == 64u);
  CHECK_THROWS_AS(constlen.pack(258), Error);
  const Field& total = a6xx::SP_CS_PVT_MEM_SIZE.field("TOTALPVTMEMSIZE");  // shr 12
  CHECK(total.pack(0x3000) == 3u);
  CHECK_THROWS_AS(total.pack(0x3001), Error);
  try {
    constlen.pack(1024);
    FAIL("CONSTLEN 1024 was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == Errc::invalid_argument);
    CHECK_THAT(e.detail(), Catch::Contains("CONSTLEN") && Catch::Contains("0x400"));
  }
}

TEST_CASE("packing by field name matches the bit layout in a6xx.xml", "[pure][pm4]") {
  // Expected dwords worked out by hand from a6xx.xml bit ranges, independent of the table.
  CHECK(a6xx::SP_CS_CNTL_0.pack({{"THREADSIZE", 1}, {"FULLREGFOOTPRINT", 3}, {"HALFREGFOOTPRINT", 2},
                                 {"BRANCHSTACK", 1}, {"MERGEDREGS", 1}}) ==
        ((1u << 20) | (3u << 7) | (2u << 1) | (1u << 14) | (1u << 31)));
  CHECK(a6xx::SP_CS_NDRANGE_0.pack({{"KERNELDIM", 3}, {"LOCALSIZEX", 63}, {"LOCALSIZEY", 0}, {"LOCALSIZEZ", 0}}) ==
        (3u | (63u << 2)));
  CHECK(a6xx::SP_CS_CONFIG.pack({{"ENABLED", 1}, {"NTEX", 2}, {"NSAMP", 2}, {"NUAV", 3}}) ==
        ((1u << 8) | (2u << 9) | (2u << 17) | (3u << 22)));
  CHECK(a6xx::SP_CS_BINDLESS_BASE.pack({{"DESC_SIZE", 3}, {"ADDR", 0x100002000}}) == (0x100002000ull | 3));
  CHECK_THROWS_AS(a6xx::SP_CS_CNTL_0.pack({{"NOT_A_FIELD", 1}}), Error);
  CHECK(a6xx::SP_CS_CNTL_0.find_field("NOT_A_FIELD") == nullptr);
  CHECK(a6xx::SP_CS_CNTL_0.find_field("THREADSIZE") == &a6xx::SP_CS_CNTL_0.field("THREADSIZE"));
}

TEST_CASE("tinygrad's SP_CS_CONST_CONFIG_0 constant decodes to its register ids", "[pure][pm4]") {
  // ops_qcom.py writes 0xccc0cf after the NDRANGE registers: WGIDCONSTID r51.w, WGSIZECONSTID r48.x,
  // WGOFFSETCONSTID r51.x (0xcc = 51*4), LOCALIDREGID r0.x.
  const Register& reg = a6xx::SP_CS_CONST_CONFIG_0;
  CHECK(reg.field("WGIDCONSTID").extract(0xccc0cf) == 0xcf);
  CHECK(reg.field("WGSIZECONSTID").extract(0xccc0cf) == 0xc0);
  CHECK(reg.field("WGOFFSETCONSTID").extract(0xccc0cf) == 0xcc);
  CHECK(reg.field("LOCALIDREGID").extract(0xccc0cf) == 0x00);
  CHECK(regid_name(0xcf) == "r51.w");
}

TEST_CASE("registers are found by offset, including array elements and reg64 high dwords", "[pure][pm4]") {
  auto cntl = find_register(0xa9b0);
  REQUIRE(cntl);
  CHECK(cntl->reg == &a6xx::SP_CS_CNTL_0);

  auto base_hi = find_register(0xa9b5);
  REQUIRE(base_hi);
  CHECK(base_hi->reg == &a6xx::SP_CS_BASE);
  CHECK(base_hi->dword == 1u);
  CHECK(register_name(*base_hi) == "SP_CS_BASE+1");

  auto bindless3 = find_register(0xa9e8 + 3 * 2);
  REQUIRE(bindless3);
  CHECK(bindless3->reg == &a6xx::SP_CS_BINDLESS_BASE);
  CHECK(bindless3->index == 3u);
  CHECK(register_name(*bindless3) == "SP_CS_BINDLESS_BASE[3]");

  auto perfctr = find_register(0x0402);
  REQUIRE(perfctr);
  CHECK(register_name(*perfctr) == "RBBM_PERFCTR_CP[1]");

  CHECK_FALSE(find_register(0x1234).has_value());
  auto after_array = find_register(0xa9e8 + 5 * 2);  // one past SP_CS_BINDLESS_BASE[4]
  REQUIRE(after_array);
  CHECK(after_array->reg == &a6xx::SP_CS_UAV_BASE);
}

TEST_CASE("every register is found at its own offsets", "[pure][pm4]") {
  for (Gen gen : {kA6xx, kA7xx}) {
    for (const Register* reg : all_registers()) {
      if ((reg->gens & gen) == 0) continue;
      for (unsigned i = 0; i < reg->array_length; ++i)
        for (unsigned d = 0; d < reg->dwords; ++d) {
          INFO(reg->name << "[" << i << "]+" << d);
          auto hit = find_register(reg->offset_of(i) + d, gen);
          REQUIRE(hit);
          CHECK(hit->reg == reg);
          CHECK(hit->index == i);
          CHECK(hit->dword == d);
        }
    }
  }
}

TEST_CASE("the same name resolves to each generation's offset", "[pure][pm4]") {
  CHECK(find_register("SP_CS_CONST_CONFIG", kA6xx)->offset == 0xb987u);
  CHECK(find_register("SP_CS_CONST_CONFIG", kA7xx)->offset == 0xa9cdu);
  CHECK(find_register("SP_UPDATE_CNTL", kA6xx)->offset == 0xbb08u);
  CHECK(find_register("SP_UPDATE_CNTL", kA7xx)->offset == 0xab1fu);
}

TEST_CASE("former register names used by older Mesa and tinygrad find the current entry", "[pure][pm4]") {
  CHECK(find_register("SP_CS_INSTRLEN") == &a6xx::SP_CS_INSTR_SIZE);
  CHECK(find_register("SP_CS_CTRL_REG0") == &a6xx::SP_CS_CNTL_0);
  CHECK(find_register("HLSQ_CS_CNTL") == &a6xx::SP_CS_CONST_CONFIG);
  CHECK(find_register("HLSQ_CS_NDRANGE_0") == &a6xx::SP_CS_NDRANGE_0);
  CHECK(find_register("HLSQ_CS_KERNEL_GROUP_Y") == &a6xx::SP_CS_KERNEL_GROUP_Y);
  CHECK(find_register("HLSQ_INVALIDATE_CMD") == &a6xx::SP_UPDATE_CNTL);
  CHECK(find_register("HLSQ_CONTROL_2_REG") == &a6xx::SP_REG_PROG_ID_0);
  CHECK(find_register("SP_CS_OBJ_START") == &a6xx::SP_CS_BASE);
  CHECK(find_register("SP_CS_IBO") == &a6xx::SP_CS_UAV_BASE);
  CHECK(find_register("SP_MODE_CONTROL") == &a6xx::SP_MODE_CNTL);
  CHECK(find_register("SP_PERFCTR_ENABLE") == &a6xx::SP_PERFCTR_SHADER_MASK);
  // A former name that is also a current name resolves to the current register.
  CHECK(find_register("SP_CS_CNTL_0") == &a6xx::SP_CS_CNTL_0);
  CHECK(find_register("NOT_A_REGISTER") == nullptr);
}

TEST_CASE("no two registers of one generation share a current name", "[pure][pm4]") {
  for (Gen gen : {kA6xx, kA7xx}) {
    std::set<std::string_view> names;
    for (const Register* reg : all_registers())
      if ((reg->gens & gen) != 0) {
        INFO(reg->name);
        CHECK(names.insert(reg->name).second);
      }
  }
}
