// [virtual-gpu] The virtual command processor and its rings, fed hand-encoded PM4.
#include "pm4/packet.h"
#include "virt/kernels/ring.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <mutex>
#include <random>

using namespace adreno::virt;
using adreno::pm4::type4_header;
using adreno::pm4::type7_header;

namespace {

// Opcode values: Mesa adreno_pm4.xml.
constexpr std::uint32_t CP_NOP = 0x10, CP_WAIT_REG_MEM = 0x3c, CP_MEM_WRITE = 0x3d,
                        CP_INDIRECT_BUFFER = 0x3f, CP_EVENT_WRITE = 0x46, CP_MEM_TO_MEM = 0x73, CACHE_FLUSH_TS = 4;

struct Fixture {
  std::shared_ptr<GpuMemory> memory = std::make_shared<GpuMemory>(0x100000000ull, 1ull << 30);
  std::shared_ptr<Backing> backing = Backing::create(1 << 16);
  std::uint64_t va = *memory->map(backing, 0, 1 << 16, true);
  std::uint64_t data_va = va + 0x8000;

  // Writes dwords at `offset` of the buffer and returns the IB covering them.
  IbSpan ib(std::uint64_t offset, const std::vector<std::uint32_t>& dwords) {
    std::memcpy(backing->host() + offset, dwords.data(), dwords.size() * 4);
    return IbSpan{va + offset, static_cast<std::uint32_t>(dwords.size())};
  }
  std::uint32_t data(std::size_t index) const {
    std::uint32_t v;
    std::memcpy(&v, backing->host() + 0x8000 + index * 4, 4);
    return v;
  }
};

std::uint32_t lo(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
std::uint32_t hi(std::uint64_t v) { return static_cast<std::uint32_t>(v >> 32); }

}  // namespace

TEST_CASE("a submission's MEM_WRITE and CACHE_FLUSH_TS land before it retires", "[virtual-gpu][cp]") {
  Fixture f;
  Ring ring(f.memory, std::chrono::milliseconds(500));
  std::mt19937 rng(7);
  const std::uint32_t a = rng(), b = rng(), signal = rng();
  auto seqno = ring.submit({f.ib(0, {type7_header(CP_MEM_WRITE, 4), lo(f.data_va), hi(f.data_va), a, b,
                                     type7_header(CP_EVENT_WRITE, 4), CACHE_FLUSH_TS, lo(f.data_va + 8),
                                     hi(f.data_va + 8), signal})});
  REQUIRE(ring.wait(seqno, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK(f.data(0) == a);
  CHECK(f.data(1) == b);
  CHECK(f.data(2) == signal);
  CHECK(ring.retired() == seqno);
}

TEST_CASE("type-4 packets write the register file", "[virtual-gpu][cp]") {
  Fixture f;
  const std::atomic<bool> stop{false};
  CommandProcessor cp(*f.memory, std::chrono::milliseconds(100), stop);
  IbSpan ib = f.ib(0, {type4_header(0xa9b0, 2), 0xdeadbeef, 0x12345678});
  cp.execute(std::span(&ib, 1));
  CHECK(cp.reg(0xa9b0) == 0xdeadbeef);
  CHECK(cp.reg(0xa9b1) == 0x12345678);
}

TEST_CASE("an IB2 runs inside its IB1, and an IB3 is a CP error", "[virtual-gpu][cp]") {
  Fixture f;
  Ring ring(f.memory, std::chrono::milliseconds(500));
  IbSpan inner = f.ib(0x100, {type7_header(CP_MEM_WRITE, 3), lo(f.data_va), hi(f.data_va), 42});
  auto ok = ring.submit({f.ib(0, {type7_header(CP_INDIRECT_BUFFER, 3), lo(inner.address), hi(inner.address), inner.dwords})});
  REQUIRE(ring.wait(ok, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK(f.data(0) == 42);

  IbSpan ib2 = f.ib(0x200, {type7_header(CP_INDIRECT_BUFFER, 3), lo(inner.address), hi(inner.address), inner.dwords});
  auto bad = ring.submit({f.ib(0x300, {type7_header(CP_INDIRECT_BUFFER, 3), lo(ib2.address), hi(ib2.address), ib2.dwords})});
  CHECK(ring.wait(bad, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  REQUIRE(ring.fault());
  CHECK(ring.fault()->kind == FaultKind::cp_error);
  CHECK(ring.fault()->address == f.va + 0x200);
}

TEST_CASE("bad parity, unknown opcodes and truncated packets are CP errors", "[virtual-gpu][cp]") {
  const std::uint32_t bad_parity = type7_header(CP_NOP, 0) ^ (1u << 15);
  const std::uint32_t unknown_opcode = type7_header(0x7e, 0);
  const std::uint32_t truncated = type7_header(CP_MEM_WRITE, 5);
  for (std::uint32_t header : {bad_parity, unknown_opcode, truncated}) {
    Fixture f;
    Ring ring(f.memory, std::chrono::milliseconds(500));
    auto seqno = ring.submit({f.ib(0, {type7_header(CP_NOP, 1), 0, header})});
    CHECK(ring.wait(seqno, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
    REQUIRE(ring.fault());
    CHECK(ring.fault()->kind == FaultKind::cp_error);
    CHECK(ring.fault()->address == f.va + 8);
  }
}

TEST_CASE("a fault cancels what was queued behind it and later submissions", "[virtual-gpu][cp]") {
  Fixture f;
  Ring ring(f.memory, std::chrono::milliseconds(500));
  auto good = ring.submit({f.ib(0, {type7_header(CP_MEM_WRITE, 3), lo(f.data_va), hi(f.data_va), 1})});
  // Opcode 0x7f is no packet the CP knows: a CP error.
  auto faulting = ring.submit({f.ib(0x100, {type7_header(0x7f, 0)})});
  auto behind = ring.submit({f.ib(0x200, {type7_header(CP_MEM_WRITE, 3), lo(f.data_va + 4), hi(f.data_va + 4), 3})});
  CHECK(ring.wait(good, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK(ring.wait(faulting, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  CHECK(ring.wait(behind, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  REQUIRE(ring.fault());
  CHECK(ring.fault()->kind == FaultKind::cp_error);
  CHECK(ring.fault()->address == f.va + 0x100);
  CHECK(f.data(0) == 1);
  CHECK(f.data(1) == 0);  // the cancelled submission never ran
  auto after = ring.submit({f.ib(0x200, {type7_header(CP_NOP, 0)})});
  CHECK(ring.wait(after, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
}

TEST_CASE("a page fault is logged once per page and the submission goes on: writes dropped, reads zero",
          "[virtual-gpu][cp]") {
  // The drivers' default IOMMU setup: the fault handler logs and the GPU carries on
  // (kgsl_iommu.c kgsl_iommu_fault_handler under KGSL_FT_PAGEFAULT_DEFAULT_POLICY 0).
  Fixture f;
  std::vector<FaultRecord> page_faults, faults;  // written on the ring's thread, read after the wait
  std::mutex logged_mutex;
  auto log_into = [&](std::vector<FaultRecord>& into) {
    return [&](const FaultRecord& fault) {
      std::lock_guard lock(logged_mutex);
      into.push_back(fault);
    };
  };
  Ring ring(f.memory, std::chrono::milliseconds(500), Ring::FaultLogs{log_into(faults), log_into(page_faults)});
  std::mt19937 rng(37);
  const std::uint32_t value = rng(), seed = rng() | 1;
  const std::uint64_t hole = 0x1000000000ull;  // below every mapping
  std::memcpy(f.backing->host() + 0x8000 + 8, &seed, 4);
  auto seqno = ring.submit({f.ib(0, {
      type7_header(CP_MEM_WRITE, 3), lo(hole + 0x24), hi(hole + 0x24), 1,     // dropped
      type7_header(CP_MEM_WRITE, 3), lo(hole + 0x10), hi(hole + 0x10), 2,     // dropped: same page, lower address
      type7_header(CP_MEM_TO_MEM, 5), 0, lo(f.data_va + 8), hi(f.data_va + 8), lo(hole + 0x3000), hi(hole + 0x3000),
      type7_header(CP_MEM_WRITE, 3), lo(f.data_va), hi(f.data_va), value,     // the stream goes on
  })});
  REQUIRE(ring.wait(seqno, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK_FALSE(ring.fault());
  CHECK(f.data(0) == value);
  CHECK(f.data(2) == 0);  // the copy read zeros from the hole
  std::lock_guard lock(logged_mutex);
  CHECK(faults.empty());
  REQUIRE(page_faults.size() == 2);  // one per page, by address
  CHECK(page_faults[0].address == hole + 0x10);
  CHECK(page_faults[0].write);
  CHECK_FALSE(page_faults[0].permission);
  CHECK(page_faults[0].seqno == seqno);
  CHECK(page_faults[0].kind == FaultKind::page_fault);
  CHECK(page_faults[1].address == hole + 0x3000);
  CHECK_FALSE(page_faults[1].write);
}

TEST_CASE("a write to a read-only mapping is a permission page fault, dropped", "[virtual-gpu][cp]") {
  Fixture f;
  auto readonly_backing = Backing::create(4096);
  const std::uint64_t readonly = *f.memory->map(readonly_backing, 0, 4096, false);
  std::vector<FaultRecord> page_faults;
  std::mutex logged_mutex;
  Ring ring(f.memory, std::chrono::milliseconds(500), Ring::FaultLogs{{}, [&](const FaultRecord& fault) {
                                                          std::lock_guard lock(logged_mutex);
                                                          page_faults.push_back(fault);
                                                        }});
  const std::uint32_t original = 0x5eed1e55;
  std::memcpy(readonly_backing->host(), &original, 4);
  auto seqno = ring.submit({f.ib(0, {type7_header(CP_MEM_WRITE, 3), lo(readonly), hi(readonly), ~original})});
  REQUIRE(ring.wait(seqno, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  std::uint32_t now;
  std::memcpy(&now, readonly_backing->host(), 4);
  CHECK(now == original);
  std::lock_guard lock(logged_mutex);
  REQUIRE(page_faults.size() == 1);
  CHECK(page_faults[0].address == readonly);
  CHECK(page_faults[0].write);
  CHECK(page_faults[0].permission);
}

TEST_CASE("an IB fetched from a hole reads as zeros: a page fault, then a CP error", "[virtual-gpu][cp]") {
  Fixture f;
  std::vector<FaultRecord> page_faults, faults;
  std::mutex logged_mutex;
  auto log_into = [&](std::vector<FaultRecord>& into) {
    return [&](const FaultRecord& fault) {
      std::lock_guard lock(logged_mutex);
      into.push_back(fault);
    };
  };
  Ring ring(f.memory, std::chrono::milliseconds(500), Ring::FaultLogs{log_into(faults), log_into(page_faults)});
  const std::uint64_t hole = f.va + (1ull << 20);
  auto seqno = ring.submit({IbSpan{hole, 16}});
  CHECK(ring.wait(seqno, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  REQUIRE(ring.fault());
  CHECK(ring.fault()->kind == FaultKind::cp_error);
  CHECK(ring.fault()->address == hole);
  std::lock_guard lock(logged_mutex);
  REQUIRE(page_faults.size() == 1);
  CHECK(page_faults[0].address == hole);
  CHECK_FALSE(page_faults[0].write);
  REQUIRE(faults.size() == 1);
  CHECK(faults[0].kind == FaultKind::cp_error);
}

TEST_CASE("CP_WAIT_REG_MEM waits for another ring's write, and hangs when none comes", "[virtual-gpu][cp]") {
  Fixture f;
  Ring waiter(f.memory, std::chrono::milliseconds(3000));
  Ring signaller(f.memory, std::chrono::milliseconds(500));
  // Wait until data[0] >= 5 (FUNCTION=WRITE_GE, POLL=POLL_MEMORY), then write data[1].
  auto waited = waiter.submit({f.ib(0, {type7_header(CP_WAIT_REG_MEM, 6), 5 | (1u << 4), lo(f.data_va), hi(f.data_va), 5,
                                        0xffffffff, 16, type7_header(CP_MEM_WRITE, 3), lo(f.data_va + 4),
                                        hi(f.data_va + 4), 99})});
  CHECK(waiter.wait(waited, std::chrono::milliseconds(50)) == Ring::WaitResult::timeout);
  auto signalled = signaller.submit({f.ib(0x100, {type7_header(CP_MEM_WRITE, 3), lo(f.data_va), hi(f.data_va), 7})});
  CHECK(signaller.wait(signalled, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  REQUIRE(waiter.wait(waited, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK(f.data(1) == 99);

  Ring hung(f.memory, std::chrono::milliseconds(100));
  auto never = hung.submit({f.ib(0x200, {type7_header(CP_WAIT_REG_MEM, 6), 3 | (1u << 4), lo(f.data_va), hi(f.data_va), 1234,
                                         0xffffffff, 16})});
  CHECK(hung.wait(never, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  REQUIRE(hung.fault());
  CHECK(hung.fault()->kind == FaultKind::hang);
}

TEST_CASE("a submission restricted to its objects faults on an IB2 outside them and logs the address", "[virtual-gpu][cp]") {
  Fixture f;
  auto other_backing = Backing::create(4096);
  const std::uint64_t other = *f.memory->map(other_backing, 0, 4096, true);
  std::mt19937 rng(31);
  const std::uint32_t value = rng();
  // The IB2 lives in the second mapping and writes into the first.
  const std::vector<std::uint32_t> inner = {type7_header(CP_MEM_WRITE, 3), lo(f.data_va), hi(f.data_va), value};
  std::memcpy(other_backing->host(), inner.data(), inner.size() * 4);
  const IbSpan outer = f.ib(0, {type7_header(CP_INDIRECT_BUFFER, 3), lo(other), hi(other), static_cast<std::uint32_t>(inner.size())});

  std::vector<FaultRecord> logged;  // written on the ring's thread, read after the wait
  std::mutex logged_mutex;
  Ring ring(f.memory, std::chrono::milliseconds(500), Ring::FaultLogs{[&](const FaultRecord& fault) {
              std::lock_guard lock(logged_mutex);
              logged.push_back(fault);
            }, {}});
  // Unrestricted (as on KGSL) the stream runs.
  auto whole = ring.submit({outer});
  REQUIRE(ring.wait(whole, std::chrono::seconds(5)) == Ring::WaitResult::retired);
  CHECK(f.data(0) == value);

  // Restricted to the first mapping, fetching the IB2 faults.
  std::memset(f.backing->host() + 0x8000, 0, 4);
  auto listed = std::make_shared<const AddressRanges>(std::vector<AddressRanges::Range>{{f.va, 1 << 16}});
  auto restricted = ring.submit({outer}, {}, listed);
  CHECK(ring.wait(restricted, std::chrono::seconds(5)) == Ring::WaitResult::faulted);
  REQUIRE(ring.fault());
  CHECK(ring.fault()->kind == FaultKind::page_fault);
  CHECK(ring.fault()->address == other);
  CHECK(ring.fault()->seqno == restricted);
  CHECK(ring.fault()->message.find("not in the submission's bo table") != std::string::npos);
  CHECK(ring.fault()->message.find(GpuFault(FaultKind::page_fault, other, "").what()) != std::string::npos);
  CHECK(f.data(0) == 0);
  std::lock_guard lock(logged_mutex);
  REQUIRE(logged.size() == 1);
  CHECK(logged[0].message == ring.fault()->message);
}
