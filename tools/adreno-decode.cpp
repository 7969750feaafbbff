// adreno-decode: turns an .rd dump (ADRENO_DUMP, or Mesa's tools) or a raw PM4 dword stream into
// text — packets, registers with their fields, indirect buffers followed.
#include <adreno/error.hpp>

#include "ir3/disassembler.h"
#include "ir3/generation.h"
#include "pm4/decoder.h"
#include "pm4/rd.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// Shaders loaded by the stream are shown inline, as Mesa's ir3 disassembler prints them.
// A dump decodes as its GPU's generation: registers, packets and events are named as on that
// generation (0x46 is CP_EVENT_WRITE7 on a7xx). The dump's RD_GPU_ID says which (Mesa's
// freedreno_devices.py names a7xx parts 7xx); without one, a6xx.
adreno::pm4::DecodeOptions decode_options(adreno::pm4::Gen gen = adreno::pm4::kA6xx) {
  adreno::pm4::DecodeOptions options;
  options.gen = gen;
  const adreno::ir3::Generation isa = gen == adreno::pm4::kA7xx ? adreno::ir3::Generation::a7xx : adreno::ir3::Generation::a6xx;
  options.disassemble_shader = [isa](std::span<const std::uint32_t> code) {
    std::vector<std::uint64_t> words(code.size() / 2);
    std::memcpy(words.data(), code.data(), words.size() * sizeof(std::uint64_t));
    return adreno::ir3::disassemble(words, adreno::ir3::ListingStyle::indexed, isa);
  };
  return options;
}

adreno::pm4::Gen generation_of(std::span<const adreno::pm4::RdSection> sections) {
  for (const adreno::pm4::RdSection& section : sections) {
    if (section.type != adreno::pm4::RdSectionType::RD_GPU_ID || section.payload.size() < 4) continue;
    std::uint32_t gpu_id = 0;
    std::memcpy(&gpu_id, section.payload.data(), 4);
    const auto gen = adreno::ir3::generation_of_gpu_id(gpu_id);
    return gen == adreno::ir3::Generation::a7xx ? adreno::pm4::kA7xx : adreno::pm4::kA6xx;
  }
  return adreno::pm4::kA6xx;
}

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw adreno::Error(adreno::Errc::not_found, "read input", "cannot open '" + path + "'");
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void decode_rd(const std::vector<std::byte>& bytes) {
  const auto sections = adreno::pm4::parse_rd(bytes);
  const adreno::pm4::RdMemory memory(sections);
  auto read = [&](adreno::GpuAddress address, std::span<std::uint32_t> out) { return memory.read(address, out); };
  if (memory.cmdstreams().empty()) {
    throw adreno::Error(adreno::Errc::malformed, "decode .rd", "the dump holds no command stream (RD_CMDSTREAM_ADDR)");
  }
  for (const auto& ib : memory.cmdstreams()) {
    std::printf("; IB at 0x%llx, %u dwords\n", static_cast<unsigned long long>(ib.address.value()), ib.dwords);
    std::fputs(adreno::pm4::decode_ib(ib.address, ib.dwords, read, decode_options(generation_of(sections))).c_str(), stdout);
  }
}

void decode_raw(const std::vector<std::byte>& bytes, std::uint64_t base) {
  if (bytes.size() % 4 != 0) {
    throw adreno::Error(adreno::Errc::malformed, "decode raw stream",
                        std::to_string(bytes.size()) + " bytes is not a whole number of dwords");
  }
  std::vector<std::uint32_t> dwords(bytes.size() / 4);
  std::memcpy(dwords.data(), bytes.data(), bytes.size());
  // Only the stream itself is known: indirect buffers elsewhere are reported as unreadable.
  auto read = [](adreno::GpuAddress, std::span<std::uint32_t>) { return false; };
  std::fputs(adreno::pm4::decode_stream(dwords, adreno::GpuAddress(base), read, decode_options()).c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Decodes Adreno PM4 command streams to text: one line per register write or packet, with\n"
      "register names, fields and enums, following indirect buffers; shader code that the stream\n"
      "loads is disassembled inline.\n\n"
      "Input is an .rd dump (written with ADRENO_DUMP=<dir>, or by Mesa's tools) or, with --raw,\n"
      "a file of little-endian PM4 dwords."};
  std::string path;
  bool raw = false;
  std::uint64_t base = 0;
  app.add_option("file", path, "the .rd dump or raw stream to decode")->required();
  app.add_flag("--raw", raw, "the file is raw little-endian dwords, not an .rd dump");
  app.add_option("--base", base, "GPU address of a raw stream's first dword (default 0)");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto bytes = read_file(path);
    if (raw) {
      decode_raw(bytes, base);
    } else {
      decode_rd(bytes);
    }
  } catch (const adreno::Error& error) {
    std::fprintf(stderr, "adreno-decode: %s\n", error.what());
    return 1;
  }
  return 0;
}
