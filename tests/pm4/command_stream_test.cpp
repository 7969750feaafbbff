// [pure] The command-stream builder: packets land in order across chunks, as separate IBs or as
// one chained IB, appending allocates nothing, and bad chunks or packets are typed errors.
#include "pm4/command_stream.h"

#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <adreno/error.hpp>

#include "allocation_counter.h"
#include "fake_gpu_memory.h"
#include "pm4/packet.h"

using namespace adreno;
using namespace adreno::pm4;
using adreno::pm4::testing::FakeGpuMemory;
using adreno::pm4::testing::heap_allocations;

namespace {

using Packet = std::vector<std::uint32_t>;

// Appends `count` random packets (type-4 writes and CP_NOPs of random sizes) and returns them.
std::vector<Packet> append_random_packets(CommandStream& cs, std::mt19937& rng, int count, std::uint32_t max_payload) {
  std::vector<Packet> packets;
  for (int i = 0; i < count; ++i) {
    std::uint32_t payload = 1 + rng() % max_payload;
    Packet values(payload);
    for (auto& v : values) v = rng();
    if (rng() % 2 == 0 && payload <= kType4MaxCount) {
      std::uint32_t reg = 0xa800 + rng() % 0x400;
      cs.write_registers(reg, values);
      values.insert(values.begin(), type4_header(reg, payload));
    } else {
      cs.packet(Opcode::CP_NOP, values);
      values.insert(values.begin(), type7_header(static_cast<std::uint32_t>(Opcode::CP_NOP), payload));
    }
    packets.push_back(std::move(values));
  }
  return packets;
}

std::vector<std::uint32_t> read_ib(const FakeGpuMemory& memory, GpuAddress address, std::uint32_t dwords) {
  std::vector<std::uint32_t> words(dwords);
  REQUIRE(memory.read(address, words));
  return words;
}

// Walks an IB, following CP_INDIRECT_BUFFER_CHAIN, and returns the packets other than the chains.
void collect_packets(const FakeGpuMemory& memory, GpuAddress address, std::uint32_t dwords, std::vector<Packet>& out,
                     int& chains) {
  std::vector<std::uint32_t> words = read_ib(memory, address, dwords);
  std::size_t i = 0;
  while (i < words.size()) {
    auto header = decode_header(words[i]);
    REQUIRE(header);
    REQUIRE(i + 1 + header->count <= words.size());
    bool chain = header->type == Header::Type::type7 &&
                 header->reg_or_opcode == static_cast<std::uint32_t>(Opcode::CP_INDIRECT_BUFFER_CHAIN);
    if (chain) {
      CHECK(i + 1 + header->count == words.size());  // a chain must end its IB
      ++chains;
      GpuAddress next(words[i + 1] | (std::uint64_t{words[i + 2]} << 32));
      collect_packets(memory, next, words[i + 3] & 0xfffff, out, chains);
    } else {
      out.emplace_back(words.begin() + i, words.begin() + i + 1 + header->count);
    }
    i += 1 + header->count;
  }
}

}  // namespace

TEST_CASE("packets that overflow a chunk continue as separate IBs in order", "[pure][pm4]") {
  std::mt19937 rng(1234);
  FakeGpuMemory memory(64);
  CommandStream cs(memory, CommandStream::Growth::separate_ibs);
  std::vector<Packet> expected = append_random_packets(cs, rng, 200, 20);
  std::span<const IbRange> ibs = cs.finish();

  REQUIRE(ibs.size() > 1);
  CHECK(cs.chunk_tags().size() == memory.chunks_acquired());
  std::vector<Packet> seen;
  for (const IbRange& ib : ibs) {
    CHECK(ib.dwords <= 64u);
    int chains = 0;
    collect_packets(memory, ib.gpu, ib.dwords, seen, chains);
    CHECK(chains == 0);
  }
  CHECK(seen == expected);
}

TEST_CASE("chained chunks form one IB whose CP_INDIRECT_BUFFER_CHAIN packets link every chunk", "[pure][pm4]") {
  std::mt19937 rng(99);
  FakeGpuMemory memory(64);
  CommandStream cs(memory, CommandStream::Growth::chain);
  std::vector<Packet> expected = append_random_packets(cs, rng, 200, 20);
  std::span<const IbRange> ibs = cs.finish();

  REQUIRE(ibs.size() == 1);
  std::vector<Packet> seen;
  int chains = 0;
  collect_packets(memory, ibs[0].gpu, ibs[0].dwords, seen, chains);
  CHECK(chains == static_cast<int>(memory.chunks_acquired()) - 1);
  CHECK(chains > 0);
  CHECK(seen == expected);
}

TEST_CASE("appending packets allocates nothing once a chunk is available", "[pure][pm4]") {
  FakeGpuMemory memory(1 << 16);
  CommandStream cs(memory);
  cs.packet(Opcode::CP_WAIT_FOR_IDLE);  // acquires the first chunk
  const std::uint32_t values[3] = {1, 2, 3};

  std::size_t before = heap_allocations();
  for (int i = 0; i < 1000; ++i) {
    cs.write_registers(0xa9b0, 0x100u, 0u, 0u);
    cs.packet(Opcode::CP_EXEC_CS, 0u, 1u, 1u, 1u);
    cs.packet(Opcode::CP_NOP, values);
  }
  CHECK(heap_allocations() - before == 0u);
  CHECK(memory.chunks_acquired() == 1u);
}

TEST_CASE("a packet larger than the usual chunk gets a chunk big enough for it", "[pure][pm4]") {
  FakeGpuMemory memory(16);
  CommandStream cs(memory);
  std::vector<std::uint32_t> big(100, 0xabcd);
  cs.packet(Opcode::CP_NOP, big);
  std::span<const IbRange> ibs = cs.finish();
  REQUIRE(ibs.size() == 1);
  CHECK(ibs[0].dwords == 101u);
}

TEST_CASE("finishing and appending again starts a new IB", "[pure][pm4]") {
  FakeGpuMemory memory(256);
  CommandStream cs(memory, CommandStream::Growth::chain);
  cs.packet(Opcode::CP_WAIT_FOR_IDLE);
  CHECK(cs.finish().size() == 1u);
  cs.packet(Opcode::CP_WAIT_FOR_ME);
  std::span<const IbRange> ibs = cs.finish();
  REQUIRE(ibs.size() == 2u);
  CHECK(ibs[1].gpu == ibs[0].gpu + 4);
  CHECK(ibs[1].dwords == 1u);
}

namespace {
class BrokenChunkSource : public ChunkSource {
 public:
  Chunk acquire(std::uint32_t min_dwords) override {
    return Chunk{CpuView(storage_, sizeof storage_), GpuAddress(0x1000), min_dwords - 1, 0};
  }
  std::uint32_t storage_[8] = {};
};
}  // namespace

TEST_CASE("a chunk smaller than requested is a typed error, not a buffer overrun", "[pure][pm4]") {
  BrokenChunkSource source;
  CommandStream cs(source);
  try {
    cs.packet(Opcode::CP_WAIT_FOR_IDLE);
    FAIL("a too-small chunk was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == Errc::invalid_argument);
    CHECK(e.operation() == "acquire PM4 command chunk");
  }
}

TEST_CASE("packets with too many dwords for their header are rejected", "[pure][pm4]") {
  FakeGpuMemory memory(1 << 15);
  CommandStream cs(memory);
  std::vector<std::uint32_t> values(kType4MaxCount + 1);
  CHECK_THROWS_AS(cs.write_registers(0xa9b0, values), Error);
  CHECK_THROWS_AS(cs.write_registers(0xa9b0, std::span<const std::uint32_t>()), Error);
  CHECK_THROWS_AS(cs.packet_payload(Opcode::CP_NOP, kType7MaxCount + 1), Error);
  CHECK_THROWS_AS(cs.write_registers(kMaxRegister + 1, std::span<const std::uint32_t>(values).first(1)), Error);
}

TEST_CASE("gpu_address_here is where the next packet will be in GPU address space", "[pure][pm4]") {
  FakeGpuMemory memory(256);
  CommandStream cs(memory);
  CHECK(cs.gpu_address_here().is_null());
  cs.packet(Opcode::CP_WAIT_FOR_IDLE);
  GpuAddress next = cs.gpu_address_here();
  cs.packet(Opcode::CP_EXEC_CS, 0u, 1u, 1u, 1u);
  std::span<const IbRange> ibs = cs.finish();
  REQUIRE(ibs.size() == 1);
  CHECK(next == ibs[0].gpu + 4);
  std::uint32_t header = 0;
  REQUIRE(memory.read(next, std::span(&header, 1)));
  CHECK(header == type7_header(static_cast<std::uint32_t>(Opcode::CP_EXEC_CS), 4));
}

TEST_CASE("a reservation takes room once and commit keeps only the packets written into it", "[pure][pm4]") {
  FakeGpuMemory memory(16);
  CommandStream cs(memory);
  cs.packet(Opcode::CP_WAIT_FOR_IDLE);
  // 10 more dwords do not fit in the first 16-dword chunk: the reservation moves to the next.
  cs.packet(Opcode::CP_NOP, 0u, 0u, 0u, 0u);
  PacketWriter out = cs.reserve_packets(11);
  out.write_registers(0xa9b0, 7u);
  out.packet(Opcode::CP_EXEC_CS, 0u, 1u, 1u, 1u);
  cs.commit(out);
  // An abandoned reservation (a dispatch that threw midway) leaves nothing behind.
  cs.reserve_packets(4).packet(Opcode::CP_RUN_OPENCL, 0u);
  cs.packet(Opcode::CP_WAIT_FOR_ME);
  std::span<const IbRange> ibs = cs.finish();

  REQUIRE(ibs.size() == 2);
  CHECK(ibs[0].dwords == 6u);
  std::vector<Packet> seen;
  int chains = 0;
  collect_packets(memory, ibs[1].gpu, ibs[1].dwords, seen, chains);
  const std::uint32_t exec_cs = static_cast<std::uint32_t>(Opcode::CP_EXEC_CS);
  const std::uint32_t wait_for_me = static_cast<std::uint32_t>(Opcode::CP_WAIT_FOR_ME);
  CHECK(seen == std::vector<Packet>{{type4_header(0xa9b0, 1), 7},
                                    {type7_header(exec_cs, 4), 0, 1, 1, 1},
                                    {type7_header(wait_for_me, 0)}});
}
