// [pure] The decoder prints packets, registers, fields and enums, and follows indirect buffers
// and chains through the memory-read callback.
#include "pm4/decoder.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fake_gpu_memory.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"
#include "pm4/register_database.h"

using namespace adreno;
using namespace adreno::pm4;
using adreno::pm4::testing::FakeGpuMemory;
using Catch::Contains;

namespace {

std::string hex8(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

ReadGpuMemory reader(const FakeGpuMemory& memory) {
  return [&memory](GpuAddress address, std::span<std::uint32_t> out) { return memory.read(address, out); };
}

}  // namespace

TEST_CASE("a hand-built dispatch with an IB2 decodes to registers, fields, enums and the IB2", "[pure][pm4]") {
  FakeGpuMemory memory(1024);

  // IB2: the grid and the dispatch.
  CommandStream ib2(memory);
  write_register(ib2, a6xx::SP_CS_NDRANGE_0, {{"KERNELDIM", 3}, {"LOCALSIZEX", 63}});
  exec_cs(ib2, 4, 2, 1);
  IbRange second = ib2.finish()[0];

  CommandStream ib1(memory);
  set_marker(ib1, Marker::RM6_COMPUTE);
  write_register(ib1, a6xx::SP_CS_CNTL_0, {{"THREADSIZE", 1}, {"FULLREGFOOTPRINT", 3}, {"MERGEDREGS", 1}});
  write_register(ib1, a6xx::SP_CS_BASE, 0x0000'0001'0000'2000);
  load_state6_frag(ib1, {StateType::ST6_SHADER, StateBlock::SB6_CS_SHADER, 0, 2}, GpuAddress(0x1'0000'2000));
  indirect_buffer(ib1, second.gpu, second.dwords);
  event_write(ib1, EventType::CACHE_FLUSH_TS, GpuAddress(0x1'0000'3000), 7);
  IbRange first = ib1.finish()[0];

  std::string text = decode_ib(first.gpu, first.dwords, reader(memory));
  INFO(text);
  CHECK_THAT(text, Contains("CP_SET_MARKER (0x65), 1 dwords"));
  CHECK_THAT(text, Contains("MODE = RM6_COMPUTE"));
  CHECK_THAT(text, Contains("write SP_CS_CNTL_0 = 0x80100180 { THREADMODE = MULTI | HALFREGFOOTPRINT = 0 | "
                             "FULLREGFOOTPRINT = 3 | BRANCHSTACK = 0 | THREADSIZE = THREAD128 | MERGEDREGS }"));
  CHECK_THAT(text, Contains("write SP_CS_BASE = 0x0000000100002000\n"));
  CHECK_THAT(text, Contains("STATE_TYPE = ST6_SHADER | STATE_SRC = SS6_INDIRECT | STATE_BLOCK = SB6_CS_SHADER | NUM_UNIT = 2"));
  CHECK_THAT(text, Contains("EXT_SRC_ADDR = 0x0000000100002000"));
  CHECK_THAT(text, Contains("CP_INDIRECT_BUFFER (0x3f), 3 dwords"));
  CHECK_THAT(text, Contains("IB_SIZE = " + std::to_string(second.dwords)));
  CHECK_THAT(text, Contains("write SP_CS_NDRANGE_0 = 0x000000ff { KERNELDIM = 3 | LOCALSIZEX = 63 | LOCALSIZEY = 0 | LOCALSIZEZ = 0 }"));
  CHECK_THAT(text, Contains("NGROUPS_X = 4"));
  CHECK_THAT(text, Contains("EVENT = CACHE_FLUSH_TS"));
  CHECK_THAT(text, Contains("ADDR = 0x0000000100003000"));
  // The IB2's packets are printed after the CP_INDIRECT_BUFFER and before the event write.
  auto ib_at = text.find("CP_INDIRECT_BUFFER");
  auto exec_at = text.find("CP_EXEC_CS");
  auto event_at = text.find("CP_EVENT_WRITE");
  CHECK(ib_at < exec_at);
  CHECK(exec_at < event_at);
}

TEST_CASE("a chained stream decodes across every chunk", "[pure][pm4]") {
  FakeGpuMemory memory(32);
  CommandStream cs(memory, CommandStream::Growth::chain);
  for (std::uint32_t i = 0; i < 20; ++i) cs.write_registers(a6xx::SP_CS_KERNEL_GROUP_X.offset, 1000 + i);
  IbRange ib = cs.finish()[0];
  std::string text = decode_ib(ib.gpu, ib.dwords, reader(memory));
  INFO(text);
  for (std::uint32_t i = 0; i < 20; ++i) CHECK_THAT(text, Contains("SP_CS_KERNEL_GROUP_X = " + hex8(1000 + i)));
  CHECK_THAT(text, Contains("CP_INDIRECT_BUFFER_CHAIN"));
}

TEST_CASE("unknown registers, unknown bits and bad headers are reported, not hidden", "[pure][pm4]") {
  FakeGpuMemory memory(64);
  // Bit 3 of TPL1_MODE_CNTL is not described by a6xx.xml (older tinygrad set it as "UNK3").
  const std::uint32_t words[] = {type4_header(0x1234, 1), 0xdead, type4_header(0xb309, 1), 0x1 | 0x8,
                                 type7_header(0x10, 0), 0xffffffff, type7_header(0x10, 0)};
  GpuAddress at = memory.place(words);
  std::string text = decode_ib(at, 7, reader(memory));
  INFO(text);
  CHECK_THAT(text, Contains("write 0x01234 = 0x0000dead"));
  CHECK_THAT(text, Contains("ISAMMODE = ISAMMODE_CL"));
  CHECK_THAT(text, Contains("unknown bits 0x8"));
  CHECK_THAT(text, Contains("0xffffffff is not a valid type-4/type-7 header"));
  CHECK(text.find("CP_NOP") == text.rfind("CP_NOP"));  // decoding stopped at the bad header
}

TEST_CASE("a packet running past the end and an unreadable IB are reported", "[pure][pm4]") {
  FakeGpuMemory memory(64);
  const std::uint32_t truncated[] = {type7_header(0x10, 5), 0, 0};
  std::string text = decode_stream(truncated, GpuAddress(0x1000), reader(memory));
  CHECK_THAT(text, Contains("runs past the end"));

  const std::uint32_t call[] = {type7_header(0x3f, 3), 0xbad000, 0, 16};
  text = decode_stream(call, GpuAddress(0x1000), reader(memory));
  CHECK_THAT(text, Contains("cannot read 16 dwords at 0xbad000"));
}

namespace {

// What the decoder should print for `value` of `field`, written from the field's declared type
// (the oracle for the round trip below).
std::string expected_rendering(const Field& field, std::uint64_t value) {
  char text[64];
  switch (field.type) {
    case FieldType::uint: std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value)); break;
    case FieldType::regid: std::snprintf(text, sizeof text, "r%u.%c", unsigned(value >> 2), "xyzw"[value & 3]); break;
    case FieldType::enumeration: {
      const EnumValue* e = field.enum_type->find(static_cast<std::uint32_t>(value));
      return e ? std::string(e->name) : std::string();
    }
    default: std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value)); break;
  }
  return text;
}

}  // namespace

TEST_CASE("every field of every a6xx register survives encode then decode", "[pure][pm4]") {
  std::mt19937_64 rng(0xa630);
  FakeGpuMemory memory(1 << 14);
  for (const Register* reg : all_registers()) {
    if ((reg->gens & kA6xx) == 0 || reg->dwords != 1 || reg->fields[0].name.empty()) continue;
    for (int trial = 0; trial < 8; ++trial) {
      CommandStream cs(memory);
      std::vector<std::uint64_t> values;
      std::uint64_t raw = 0;
      for (const Field& field : reg->fields) {
        std::uint64_t v = (rng() & field.stored_max()) << field.shr;
        if (field.type == FieldType::enumeration)  // a value the enum names
          v = field.enum_type->values[rng() % field.enum_type->values.size()].value;
        values.push_back(v);
        raw |= field.pack(v);
      }
      write_register(cs, *reg, raw);
      IbRange ib = cs.finish()[0];
      std::string text = decode_ib(ib.gpu, ib.dwords, reader(memory));
      INFO(text);
      CHECK_THAT(text, Contains("write " + std::string(reg->name) + " = "));
      for (std::size_t i = 0; i < reg->fields.size(); ++i) {
        const Field& field = reg->fields[i];
        if (field.type == FieldType::boolean) {
          bool shown = text.find(" " + std::string(field.name) + " ") != std::string::npos ||
                       text.find(" " + std::string(field.name) + "\n") != std::string::npos;
          CHECK(shown == (values[i] != 0));
        } else {
          CHECK_THAT(text, Contains(std::string(field.name) + " = " + expected_rendering(field, values[i])));
        }
      }
    }
  }
}
