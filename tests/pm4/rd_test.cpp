// [pure] .rd dumps: the writer emits Mesa's section layout, the reader gets it back section by
// section, the dumped memory decodes, and ADRENO_DUMP writes one file per submission.
#include "pm4/rd.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <catch2/catch.hpp>

#include <adreno/error.hpp>

#include "fake_gpu_memory.h"
#include "pm4/decoder.h"
#include "pm4/packets.h"

using namespace adreno;
using namespace adreno::pm4;
using adreno::pm4::testing::FakeGpuMemory;

namespace {

std::vector<std::uint32_t> words_of(std::span<const std::byte> bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace

TEST_CASE("a submission dump reads back section by section in Mesa's layout", "[pure][pm4]") {
  std::vector<std::uint32_t> commands(8, 0x70268000);  // CP_WAIT_FOR_IDLE x 8
  std::vector<std::uint32_t> data = {1, 2, 3};
  const DumpBuffer buffers[] = {
      {GpuAddress(0x1'0000'1000), CpuView(commands.data(), commands.size() * 4)},
      {GpuAddress(0x2'0000'0000), CpuView(data.data(), data.size() * 4)},
  };
  const IbRange ibs[] = {{GpuAddress(0x1'0000'1000), 8, 0}, {GpuAddress(0x1'0000'1010), 4, 0}};
  RdWriter writer;
  write_submission(writer, {630, 0x06030001, buffers, ibs});

  std::vector<RdSection> sections = parse_rd(writer.bytes());
  REQUIRE(sections.size() == 9);
  // Section numbers from Mesa redump.h: RD_GPU_ID 13, RD_CHIP_ID 14, RD_CMD 2, RD_GPUADDR 3,
  // RD_BUFFER_CONTENTS 12, RD_CMDSTREAM_ADDR 6.
  CHECK(static_cast<std::uint32_t>(sections[0].type) == 13);
  CHECK(words_of(sections[0].payload) == std::vector<std::uint32_t>{630});
  CHECK(static_cast<std::uint32_t>(sections[1].type) == 14);
  CHECK(words_of(sections[1].payload) == std::vector<std::uint32_t>{0x06030001, 0});
  CHECK(static_cast<std::uint32_t>(sections[2].type) == 2);
  CHECK(std::string(reinterpret_cast<const char*>(sections[2].payload.data())) == "adreno");
  CHECK(static_cast<std::uint32_t>(sections[3].type) == 3);
  CHECK(words_of(sections[3].payload) == std::vector<std::uint32_t>{0x1000, 32, 0x1});  // {lo, bytes, hi}
  CHECK(static_cast<std::uint32_t>(sections[4].type) == 12);
  CHECK(words_of(sections[4].payload) == commands);
  CHECK(static_cast<std::uint32_t>(sections[5].type) == 3);
  CHECK(words_of(sections[5].payload) == std::vector<std::uint32_t>{0, 12, 0x2});
  CHECK(words_of(sections[6].payload) == data);
  CHECK(static_cast<std::uint32_t>(sections[7].type) == 6);
  CHECK(words_of(sections[7].payload) == std::vector<std::uint32_t>{0x1000, 8, 0x1});  // {lo, dwords, hi}
  CHECK(words_of(sections[8].payload) == std::vector<std::uint32_t>{0x1010, 4, 0x1});

  // The raw framing: u32 type, u32 byte size, payload.
  std::vector<std::uint32_t> head = words_of(std::span(writer.bytes()).first(12));
  CHECK(head == std::vector<std::uint32_t>{13, 4, 630});
}

TEST_CASE("a dumped stream decodes from the dump alone, IB2 included", "[pure][pm4]") {
  FakeGpuMemory memory(64);
  CommandStream ib2(memory);
  exec_cs(ib2, 8, 1, 1);
  IbRange second = ib2.finish()[0];
  CommandStream ib1(memory);
  set_marker(ib1, Marker::RM6_COMPUTE);
  indirect_buffer(ib1, second.gpu, second.dwords);
  std::span<const IbRange> ibs = ib1.finish();

  std::vector<std::uint32_t> first_words(ibs[0].dwords), second_words(second.dwords);
  REQUIRE(memory.read(ibs[0].gpu, first_words));
  REQUIRE(memory.read(second.gpu, second_words));
  const DumpBuffer buffers[] = {{ibs[0].gpu, CpuView(first_words.data(), first_words.size() * 4)},
                                {second.gpu, CpuView(second_words.data(), second_words.size() * 4)}};
  RdWriter writer;
  write_submission(writer, {630, 0x06030001, buffers, ibs});

  std::vector<RdSection> sections = parse_rd(writer.bytes());
  RdMemory dumped(sections);
  REQUIRE(dumped.cmdstreams().size() == 1);
  RdCmdstreamAddr cmd = dumped.cmdstreams()[0];
  CHECK(cmd.address == ibs[0].gpu);
  std::string text = decode_ib(cmd.address, cmd.dwords,
                               [&](GpuAddress a, std::span<std::uint32_t> out) { return dumped.read(a, out); });
  INFO(text);
  CHECK_THAT(text, Catch::Contains("MODE = RM6_COMPUTE"));
  CHECK_THAT(text, Catch::Contains("NGROUPS_X = 8"));
}

// Found by fuzz/rd_fuzzer: a dump's RD_CMDSTREAM_ADDR gives any 32-bit size, and decoding it
// allocated that many dwords (up to 16 GiB) before reading. CP_INDIRECT_BUFFER's IB_SIZE is bits
// 0-19 (Mesa adreno_pm4.xml), so 1048575 dwords is the longest IB a CP runs.
TEST_CASE("a dumped command stream longer than IB_SIZE can express is reported without reading it", "[pure][pm4]") {
  RdWriter writer;
  const GpuAddress at(0x4000600000ull);
  writer.cmdstream(at, 1048576);
  writer.cmdstream(at, 1048575);
  std::vector<RdSection> sections = parse_rd(writer.bytes());
  RdMemory dumped(sections);
  REQUIRE(dumped.cmdstreams().size() == 2);
  std::vector<std::size_t> reads;
  auto read = [&](GpuAddress, std::span<std::uint32_t> out) {
    reads.push_back(out.size());
    return false;  // the dump holds no buffer there
  };
  CHECK_THAT(decode_ib(at, dumped.cmdstreams()[0].dwords, read),
             Catch::Contains("an IB of 1048576 dwords at 0x4000600000 is longer than IB_SIZE can express"));
  CHECK(reads.empty());
  CHECK_THAT(decode_ib(at, dumped.cmdstreams()[1].dwords, read),
             Catch::Contains("cannot read 1048575 dwords at 0x4000600000"));
  CHECK(reads == std::vector<std::size_t>{1048575});
}

// Found by fuzz/rd_fuzzer: a zero-dword command stream read zero bytes through memcpy with the
// empty output's null pointer, which UBSan (the sanitizer build of this suite) reports.
TEST_CASE("a dumped command stream of zero dwords decodes to nothing", "[pure][pm4]") {
  const std::uint32_t contents[] = {0x11111111, 0x22222222};
  const GpuAddress at(0x10000);
  RdWriter writer;
  writer.buffer(at, std::as_bytes(std::span(contents)));
  writer.cmdstream(at + 4, 0);
  std::vector<RdSection> sections = parse_rd(writer.bytes());
  RdMemory dumped(sections);
  REQUIRE(dumped.cmdstreams().size() == 1);
  CHECK(dumped.read(at + 4, {}));
  CHECK(decode_ib(at + 4, 0, [&](GpuAddress a, std::span<std::uint32_t> out) { return dumped.read(a, out); }).empty());
}

TEST_CASE("the older 8-byte RD_GPUADDR form is read as a 32-bit address", "[pure][pm4]") {
  RdWriter writer;
  const std::uint32_t old_form[2] = {0xc0001000, 64};
  writer.section(RdSectionType::RD_GPUADDR, std::as_bytes(std::span(old_form)));
  std::vector<RdSection> sections = parse_rd(writer.bytes());
  RdGpuAddr parsed = parse_gpuaddr(sections.at(0));
  CHECK(parsed.address == GpuAddress(0xc0001000));
  CHECK(parsed.size_bytes == 64u);
}

TEST_CASE("truncated dumps are malformed, naming where", "[pure][pm4]") {
  RdWriter writer;
  writer.gpu_id(630);
  std::vector<std::byte> bytes = writer.bytes();
  bytes.pop_back();
  try {
    parse_rd(bytes);
    FAIL("a truncated section was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == Errc::malformed);
    CHECK_THAT(e.detail(), Catch::Contains("offset 0"));
  }
  bytes.resize(5);
  CHECK_THROWS_AS(parse_rd(bytes), Error);
  const std::byte short_payload[12] = {};
  RdWriter odd;
  odd.section(RdSectionType::RD_CMDSTREAM_ADDR, std::span(short_payload).first(4));
  CHECK_THROWS_AS(parse_cmdstream_addr(parse_rd(odd.bytes()).at(0)), Error);
}

TEST_CASE("ADRENO_DUMP writes one .rd file per submission and nothing when unset", "[pure][pm4]") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("adreno-pm4-rd-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::uint32_t> commands = {0x70268000};
  const DumpBuffer buffers[] = {{GpuAddress(0x1000), CpuView(commands.data(), 4)}};
  const IbRange ibs[] = {{GpuAddress(0x1000), 1, 0}};
  SubmissionDump submission{630, 0x06030001, buffers, ibs};

  ::unsetenv("ADRENO_DUMP");
  CHECK_FALSE(dump_submission_if_requested(submission).has_value());

  ::setenv("ADRENO_DUMP", dir.c_str(), 1);
  auto first = dump_submission_if_requested(submission);
  auto second = dump_submission_if_requested(submission);
  ::unsetenv("ADRENO_DUMP");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(*first != *second);
  std::ifstream in(*first, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<RdSection> sections = parse_rd(std::as_bytes(std::span(raw)));
  CHECK(sections.size() == 6);
  CHECK(sections.back().type == RdSectionType::RD_CMDSTREAM_ADDR);

  ::setenv("ADRENO_DUMP", (dir / "missing" / "dir").c_str(), 1);
  CHECK_THROWS_AS(dump_submission_if_requested(submission), Error);
  ::unsetenv("ADRENO_DUMP");
  std::filesystem::remove_all(dir);
}
