// [pure] The register database against Mesa's: every register, array element, field and enum
// value src/pm4 declares is looked up in the facts extracted from Mesa's own database
// (../shared/reference/a6xx-registers.tsv and adreno-enums.tsv, see that folder's README) and
// must agree on offset, bit range and type. The facts are read at test time from
// $ADRENO_SHARED_DIR/reference (default: the shared folder beside the repository); without
// them the tests report SKIP.
//
// Not covered: the facts hold Mesa's A6XX register domain only, so the bit positions of packet
// payload fields (packet_layouts.h: CP_EVENT_WRITE, CP_LOAD_STATE6, CP_EXEC_CS, ..., from
// adreno_pm4.xml's packet domains) and of descriptor fields (a6xx_descriptors.h: TEX_CONST_*,
// TEX_SAMP_*, from a6xx_descriptors.xml) are checked against nothing here; only the enum values
// those fields use are. The packets of one dispatch are compared with Mesa's own submission
// (tests/dispatch/computerator_reference_test.cpp); the other packet and descriptor layouts have
// no independent check (the virtual GPU decodes them from the same database, so it cannot tell).
#include "pm4/a6xx_descriptors.h"
#include "pm4/enums.h"
#include "pm4/packet_layouts.h"
#include "pm4/register_database.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "../skip.h"

using namespace adreno::pm4;

namespace {

/// Where Mesa's facts are, or an empty path when they are not on this machine.
std::filesystem::path reference_dir() {
  const char* env = std::getenv("ADRENO_SHARED_DIR");
  std::filesystem::path dir = std::filesystem::path(env != nullptr ? env : ADRENO_SHARED_DIR) / "reference";
  return std::filesystem::exists(dir / "a6xx-registers.tsv") ? dir : std::filesystem::path{};
}

std::vector<std::vector<std::string>> read_tsv(const std::filesystem::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {  // the column names
      header_seen = true;
      continue;
    }
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      cells.push_back(line.substr(start, tab - start));
    cells.push_back(line.substr(start));
    rows.push_back(std::move(cells));
  }
  return rows;
}

std::uint64_t parse_number(const std::string& text) {
  std::uint64_t value = 0;
  const bool hex = text.rfind("0x", 0) == 0;
  const char* first = text.data() + (hex ? 2 : 0);
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), value, hex ? 16 : 10);
  if (ec != std::errc{} || end != text.data() + text.size()) FAIL("not a number in the reference: " << text);
  return value;
}

/// Whether Mesa's variants string ("", "A6XX", "A7XX-", "A6XX-A7XX") includes generation `n`.
bool variants_include(const std::string& variants, unsigned n) {
  if (variants.empty()) return true;
  auto generation = [](const std::string& v, std::size_t at) { return unsigned(v.at(at + 1) - '0'); };
  const unsigned first = generation(variants, 0);
  if (variants.size() == 4) return n == first;
  if (variants.size() == 5) return n >= first;  // "AnXX-": from n on
  return n >= first && n <= generation(variants, 5);
}

unsigned generation_number(Gen gen) { return gen == kA6xx ? 6 : 7; }

struct MesaField {
  std::string name;
  unsigned low, high;
  std::string type;
  std::string variants;
};
struct MesaRegister {  // one register (or one array element) on one set of variants
  std::uint32_t offset;
  std::string variants;
  std::vector<MesaField> fields;
};

/// Mesa's registers by base name ("SP_CS_BINDLESS_BASE" for "SP_CS_BINDLESS_BASE[3].DESCRIPTOR")
/// and array index (0 for plain registers).
using MesaRegisters = std::map<std::pair<std::string, unsigned>, std::vector<MesaRegister>>;

MesaRegisters load_registers(const std::filesystem::path& dir) {
  MesaRegisters registers;
  for (const auto& row : read_tsv(dir / "a6xx-registers.tsv")) {
    REQUIRE(row.size() == 9);
    std::string name = row[1];
    unsigned index = 0;
    if (std::size_t bracket = name.find('['); bracket != std::string::npos) {
      index = unsigned(parse_number(name.substr(bracket + 1, name.find(']') - bracket - 1)));
      name.resize(bracket);
    }
    auto& entries = registers[{name, index}];
    const auto offset = std::uint32_t(parse_number(row[2]));
    auto same = std::find_if(entries.begin(), entries.end(),
                             [&](const MesaRegister& r) { return r.offset == offset && r.variants == row[3]; });
    if (same == entries.end()) same = entries.insert(entries.end(), MesaRegister{offset, row[3], {}});
    same->fields.push_back({row[4], unsigned(parse_number(row[5])), unsigned(parse_number(row[6])), row[7], row[8]});
  }
  return registers;
}

/// The type name Mesa gives a field our database declares with `field.type`; empty when any of
/// Mesa's untyped/uint/hex spellings fits (the choice between hex and uint is only display).
std::string expected_mesa_type(const Field& field) {
  switch (field.type) {
    case FieldType::enumeration: return std::string(field.enum_type->name);
    case FieldType::regid: return "a3xx_regid";
    case FieldType::boolean: return "boolean";
    case FieldType::address: return "address";  // or waddress, or untyped on a whole reg64
    case FieldType::uint:
    case FieldType::hex: return "";
  }
  return "";
}

bool untyped_in_mesa(const std::string& type) { return type.empty() || type == "uint" || type == "hex"; }

bool types_agree(const Field& field, const std::string& mesa_type) {
  const std::string ours = expected_mesa_type(field);
  if (ours.empty()) return untyped_in_mesa(mesa_type);
  if (ours == "address") return mesa_type == "address" || mesa_type == "waddress" || (mesa_type.empty() && field.name.empty());
  return mesa_type == ours;
}

/// Differences from Mesa kept on purpose: "REGISTER.FIELD" → why.
const std::map<std::string, std::string> kDeliberateDifferences = {
    // Mesa declares these arrays as plain 32-bit registers at stride 2 (the low dwords); the
    // counters are 64-bit pairs (CP_REG_TO_MEM with 64B reads both), which our reg64 entries say.
    {"RBBM_PERFCTR_CP.", "64-bit counter pairs, Mesa lists only the low dword"},
    {"RBBM_PERFCTR_SP.", "64-bit counter pairs, Mesa lists only the low dword"},
    // a6xx.xml gives these reg32s their own low/high (e.g. SP_CS_TSIZE low="0" high="7"); the
    // extracted facts list every register without bitfields as bits 0..31, so the narrower
    // range we take from the XML cannot be compared here.
    {"SP_CS_INSTR_SIZE.", "reg32 low=0 high=27 in a6xx.xml, not in the extracted facts"},
    {"SP_PS_INSTR_SIZE.", "reg32 low=0 high=27 in a6xx.xml, not in the extracted facts"},
    {"SP_CS_TSIZE.", "reg32 low=0 high=7 in a6xx.xml, not in the extracted facts"},
    {"SP_CS_USIZE.", "reg32 low=0 high=6 in a6xx.xml, not in the extracted facts"},
    {"SP_UNKNOWN_A9A8.", "reg32 low=0 high=16 in a6xx.xml, not in the extracted facts"},
    {"TPL1_UNKNOWN_B605.", "reg32 low=0 high=7 in a6xx.xml, not in the extracted facts"},
    {"TPL1_PS_ROTATION_CNTL.", "reg32 low=0 high=2 in a6xx.xml, not in the extracted facts"},
    {"TPL1_PS_SWIZZLE_CNTL.", "reg32 low=0 high=23 in a6xx.xml, not in the extracted facts"},
    // Written whole with the per-chip magic values of freedreno_devices.py; Mesa names only
    // some of their bits.
    {"SP_CHICKEN_BITS.", "written whole (freedreno_devices.py magic value)"},
    {"TPL1_DBG_ECO_CNTL.", "written whole (freedreno_devices.py magic value)"},
};

}  // namespace

TEST_CASE("every register and field of the database matches Mesa's a6xx.xml", "[pure][pm4]") {
  const auto dir = reference_dir();
  if (dir.empty()) ADRENO_SKIP("Mesa reference facts not found; set ADRENO_SHARED_DIR");
  const MesaRegisters mesa = load_registers(dir);
  std::vector<std::string> mismatches;  // collected so that one run lists every difference
  std::size_t fields_checked = 0;
  for (const Register* reg : all_registers()) {
    for (Gen gen : {kA6xx, kA7xx}) {
      if ((reg->gens & gen) == 0) continue;
      const unsigned n = generation_number(gen);
      for (unsigned index = 0; index < reg->array_length; ++index) {
        const std::string where = fmt::format("a{}xx {}[{}]", n, reg->name, index);
        const MesaRegister* match = nullptr;
        if (auto found = mesa.find({std::string(reg->name), index}); found != mesa.end())
          for (const MesaRegister& candidate : found->second)
            if (variants_include(candidate.variants, n)) match = &candidate;
        if (match == nullptr) {
          mismatches.push_back(where + ": not in Mesa");
          continue;
        }
        if (match->offset != reg->offset_of(index))
          mismatches.push_back(fmt::format("{}: offset {:#x}, Mesa {:#x}", where, reg->offset_of(index), match->offset));
        for (const Field& field : reg->fields) {
          const std::string key = std::string(reg->name) + "." + std::string(field.name);
          if (kDeliberateDifferences.count(key) != 0) continue;
          const MesaField* theirs = nullptr;
          for (const MesaField& f : match->fields)
            if (f.name == field.name && variants_include(f.variants, n)) theirs = &f;
          if (theirs == nullptr) {
            mismatches.push_back(fmt::format("{}.{}: field not in Mesa", where, field.name));
            continue;
          }
          if (theirs->low != field.low || theirs->high != field.high)
            mismatches.push_back(fmt::format("{}.{}: bits {}..{}, Mesa {}..{}", where, field.name, field.low,
                                             field.high, theirs->low, theirs->high));
          if (!types_agree(field, theirs->type))
            mismatches.push_back(fmt::format("{}.{}: type '{}', Mesa '{}'", where, field.name, expected_mesa_type(field),
                                             theirs->type));
          ++fields_checked;
        }
      }
    }
  }
  for (const std::string& mismatch : mismatches) UNSCOPED_INFO(mismatch);
  CHECK(mismatches.empty());
  CHECK(fields_checked > 100);
}

namespace {

/// Every enum type the database declares: those its registers', packets' and descriptors'
/// fields use, and the packet opcodes.
std::set<const EnumType*> declared_enums() {
  std::set<const EnumType*> types{&enums::kOpcode};
  auto add_fields_of = [&](const Register& reg) {
    for (const Field& field : reg.fields)
      if (field.enum_type != nullptr) types.insert(field.enum_type);
  };
  for (const Register* reg : all_registers()) add_fields_of(*reg);
  for (const PacketLayout& layout : kPacketLayouts)
    for (const Register& dword : layout.payload) add_fields_of(dword);
  namespace d = a6xx_descriptors;
  for (const Register* dword : {&d::TEX_CONST_0, &d::TEX_CONST_1, &d::TEX_CONST_2, &d::TEX_CONST_3, &d::TEX_CONST_BASE,
                                &d::TEX_SAMP_0, &d::TEX_SAMP_1, &d::TEX_SAMP_2})
    add_fields_of(*dword);
  return types;
}

}  // namespace

// Kills: an a7xx-only value (CACHE_FLUSH7, CP_EVENT_WRITE7) or one whose meaning changed on a7xx
// (vgt_event_type 0x31: CACHE_INVALIDATE on a6xx, CACHE_CLEAN on a7xx) marked for the wrong
// generation, or with the wrong number on the generation it is marked for.
TEST_CASE("every enum value of the database matches Mesa's on each generation it is marked for", "[pure][pm4]") {
  const auto dir = reference_dir();
  if (dir.empty()) ADRENO_SKIP("Mesa reference facts not found; set ADRENO_SHARED_DIR");
  // (generation, enum, name) → value
  std::map<std::tuple<unsigned, std::string, std::string>, std::uint64_t> mesa;
  for (const auto& row : read_tsv(dir / "adreno-enums.tsv")) {
    REQUIRE(row.size() == 5);
    for (unsigned n : {6u, 7u})
      if (variants_include(row[4], n)) mesa[{n, row[1], row[2]}] = parse_number(row[3]);
  }
  std::size_t values_checked = 0;
  for (const EnumType* type : declared_enums()) {
    for (const EnumValue& value : type->values) {
      for (Gen gen : {kA6xx, kA7xx}) {
        if ((value.gens & gen) == 0) continue;
        const unsigned n = generation_number(gen);
        INFO("a" << n << "xx " << type->name << "." << value.name);
        auto found = mesa.find({n, std::string(type->name), std::string(value.name)});
        REQUIRE(found != mesa.end());
        CHECK(found->second == value.value);
        ++values_checked;
      }
    }
  }
  CHECK(values_checked > 50);
  // The descriptor enums are among them (their fields name them).
  for (const EnumType* type : {&a6xx_descriptors::enums::kFormat, &a6xx_descriptors::enums::kTexType,
                               &a6xx_descriptors::enums::kSwizzle, &a6xx_descriptors::enums::kClamp,
                               &a6xx_descriptors::enums::kFilter})
    CHECK(declared_enums().count(type) == 1);
}
