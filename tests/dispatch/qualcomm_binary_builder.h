// Builds Qualcomm OpenCL binaries for tests, laid out as tinygrad reads them (extra/tinydreno.h,
// QCOMProgram._parse_lib in ops_qcom.py): header, 12-entry section table, program record, image
// descriptor with name, sampler and argument records, constant records, then the code image.
// Offsets are written here from the tinydreno.h structs, not taken from the parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

struct ClArgumentRecord {
  std::uint32_t type;  // 0 buffer, 1 texture, 2 storage image
  std::uint32_t offset_dwords;
  std::uint32_t length = 32;
};
struct ClConstantRecord {
  std::uint32_t value;
  std::uint32_t offset_units;
  std::uint32_t is32;
};

struct ClBinaryBuilder {
  std::string name = "add";
  std::uint32_t fregs = 3, hregs = 1;
  std::uint32_t entry_offset = 0, pvtmem = 0, shmem = 0, brnchstck_raw = 4;
  std::uint32_t samplers = 0;
  std::vector<ClArgumentRecord> arguments;
  std::vector<ClConstantRecord> constants;
  std::vector<std::uint32_t> code = std::vector<std::uint32_t>(64, 0);  // 256 bytes

  // Where things land (filled by build()).
  std::size_t program_at = 0, desc_at = 0, records_at = 0, consts_at = 0, image_at = 0;

  static void put(std::vector<std::byte>& out, std::size_t at, std::uint32_t value) {
    if (out.size() < at + 4) out.resize(at + 4);
    std::memcpy(out.data() + at, &value, 4);
  }
  void section(std::vector<std::byte>& out, unsigned index, std::size_t offset, std::size_t size) const {
    const std::size_t at = 0x30 + index * 20;  // cl_lib_header.sections[index]
    put(out, at, index);
    put(out, at + 4, static_cast<std::uint32_t>(offset));
    put(out, at + 8, static_cast<std::uint32_t>(size));
  }

  std::vector<std::byte> build() {
    std::vector<std::byte> out(0x30 + 12 * 20);
    put(out, 0x18, 12);  // cl_lib_header.num_sections
    program_at = out.size();
    put(out, program_at + 0x14, fregs);  // cl_lib_prog.fregs
    put(out, program_at + 0x18, hregs);
    desc_at = program_at + 0x20;
    put(out, desc_at + 0xc4, entry_offset);  // cl_lib_img_desc
    put(out, desc_at + 0xc8, pvtmem);
    put(out, desc_at + 0xd8, shmem);
    put(out, desc_at + 0xdc, samplers);
    put(out, desc_at + 0x108, brnchstck_raw);
    const std::size_t name_at = desc_at + 0x158;
    out.resize(name_at + name.size() + 1);
    std::memcpy(out.data() + name_at, name.c_str(), name.size() + 1);
    records_at = ((name_at + name.size() + 3) & ~std::size_t{3}) + 8 * samplers;
    std::size_t at = records_at;
    out.resize(at);
    for (const ClArgumentRecord& a : arguments) {
      out.resize(at + a.length);
      put(out, at, a.length);
      put(out, at + 12, a.offset_dwords);
      put(out, at + 28, a.type);
      at += a.length;
    }
    out.resize(at + 32);  // a zero-length record ends the list
    at += 32;
    const std::size_t desc_size = at - desc_at;
    consts_at = at;
    for (const ClConstantRecord& c : constants) {
      out.resize(at + 40);
      put(out, at, c.value);
      put(out, at + 16, c.offset_units);
      put(out, at + 24, c.is32);
      at += 40;
    }
    image_at = (at + 127) & ~std::size_t{127};
    out.resize(image_at + code.size() * 4);
    std::memcpy(out.data() + image_at, code.data(), code.size() * 4);
    section(out, 0, program_at, 0x20);
    section(out, 6, consts_at, constants.size() * 40);
    section(out, 7, image_at, code.size() * 4);
    section(out, 10, image_at, code.size() * 4);
    section(out, 11, desc_at, desc_size);
    return out;
  }
};
