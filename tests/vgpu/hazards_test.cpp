// [virtual-gpu] Timing hazards are shader faults: a read before an ALU result's delay slots
// passed, before a (sy)/(ss) wait, or an overwrite of a register an in-flight store still reads.
// The message names the program, the instruction, the register, the rule and the fix; the check
// is per fiber (exact in divergent code); ADRENO_VIRTUAL_HAZARDS=warn logs and runs on, off skips.
#include "virtual_gpu.h"

#include "ir3/codec.h"
#include "ir3/legalize.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

using namespace vgpu_test;
using adreno::virt::FaultKind;
using adreno::virt::GpuFault;

namespace {

// Sets ADRENO_VIRTUAL_HAZARDS for one scope.
struct HazardMode {
  explicit HazardMode(const char* value) { ::setenv("ADRENO_VIRTUAL_HAZARDS", value, 1); }
  ~HazardMode() { ::unsetenv("ADRENO_VIRTUAL_HAZARDS"); }
};

// Stores r1.x at out[lid] (out at c0.xy) after `body`, for `fibers` fibers; c0.z is a parameter.
struct Run {
  std::string fault;  // empty when the dispatch retired
  std::vector<std::uint32_t> out;
};
Run run(const std::string& body, std::uint32_t fibers, pm4::ThreadSize size, std::uint32_t parameter = 0) {
  const ir3::Program program = ir3::assemble(R"(
    (nop3) shl.b r2.z, r0.x, 2
    add.u r2.x, c0.x, r2.z
    mov.u32u32 r2.y, c0.y
    (rpt5)nop
  )" + body + R"(
    stg.u32 g[r2.x], r1.x, 1
    end
  )");
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {fibers, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.thread_size = size;
  launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], parameter, 0};
  gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(fibers, 0));
  Run result;
  try {
    gpu.run(program.words, launch);
  } catch (const GpuFault& fault) {
    CHECK(fault.kind() == FaultKind::shader_error);
    result.fault = fault.what();
  }
  result.out = gpu.get<std::uint32_t>(VirtualGpu::kData, fibers);
  return result;
}

}  // namespace

TEST_CASE("an ALU result read too early is a shader fault naming instruction, register, rule and fix", "[virtual-gpu][hazards]") {
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    // mov writes r1.x in the cycle it issues; stg is not an ALU reader: 6 slots, 1 given.
    const Run r = run("mov.u32u32 r1.x, 42\nnop", 64, size);
    INFO(r.fault);
    CHECK_THAT(r.fault, Catch::Contains("timing hazard in the program at 0x"));
    CHECK_THAT(r.fault, Catch::Contains("`stg.u32 g[r2.x], r1.x, 1` (instruction 6) reads r1.x"));
    CHECK_THAT(r.fault, Catch::Contains("`mov.u32u32 r1.x, 42` (instruction 4)"));
    CHECK_THAT(r.fault, Catch::Contains("rule an ALU result needs 3 delay slots before an ALU reader of the same size and 6"));
    CHECK_THAT(r.fault, Catch::Contains("fix: needs 5 more delay slots"));
    // With the slots it retires.
    const Run fixed = run("mov.u32u32 r1.x, 42\n(rpt5)nop", 64, size);
    CHECK(fixed.fault.empty());
    CHECK(fixed.out == std::vector<std::uint32_t>(64, 42));
  }
}

TEST_CASE("a load, an SFU result and an in-flight store each need their wait", "[virtual-gpu][hazards]") {
  const auto size = pm4::ThreadSize::THREAD64;
  // ldg (sy): r1.x read by stg without (sy).
  const Run load = run("(rpt5)nop\nldg.u32 r1.x, g[r2.x], 1", 8, size);
  CHECK_THAT(load.fault, Catch::Contains("reads r1.x before a load from memory"));
  CHECK_THAT(load.fault, Catch::Contains("fix: add (sy)"));
  // rcp (ss): a cat6 reader has no (ss) bit, a (ss)nop carries it.
  const Run sfu = run("mov.u32u32 r3.x, 1073741824\n(rpt5)nop\nrcp r1.x, r3.x", 8, size);
  CHECK_THAT(sfu.fault, Catch::Contains("reads r1.x before an SFU result"));
  CHECK_THAT(sfu.fault, Catch::Contains("fix: add (ss)"));
  const Run sfu_fixed = run("mov.u32u32 r3.x, 1073741824\n(rpt5)nop\nrcp r1.x, r3.x\n(ss)nop", 8, size);
  CHECK(sfu_fixed.fault.empty());
  CHECK(sfu_fixed.out == std::vector<std::uint32_t>(8, 0x3f000000u));
  // Overwriting the value a store still reads: write-after-read.
  const Run war = run("mov.u32u32 r1.x, 7\n(rpt5)nop\nstg.u32 g[r2.x], r1.x, 1\nmov.u32u32 r1.x, 9\n(rpt5)nop", 8, size);
  CHECK_THAT(war.fault, Catch::Contains("overwrites r1.x while `stg.u32 g[r2.x], r1.x, 1`"));
  CHECK_THAT(war.fault, Catch::Contains("rule write-after-read"));
  CHECK_THAT(war.fault, Catch::Contains("fix: add (ss)"));
}

TEST_CASE("the check is per fiber: a hazard on one lane's side of a branch faults only when a lane goes there", "[virtual-gpu][hazards]") {
  // Lanes with id < c0.z take the side that writes r1.x right before the join (jump counts no
  // slot); the other side waits long enough. Hazardous only if some lane takes the short side.
  // The short side comes first: a check that counted the wave's instructions instead of each
  // fiber's would credit the short lanes with the long side's nops, and miss the hazard.
  const std::string body = R"(
    cmps.u.lt p0.x, r0.x, c0.z
    (rpt5)nop
    br !p0.x, #long
    mov.u32u32 r1.x, 6
    jump #join
  long:
    mov.u32u32 r1.x, 5
    (rpt5)nop
    jump #join
  join:
    (jp)nop
  )";
  std::mt19937 rng(15);
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const Run none = run(body, 200, size, 0);
    CHECK(none.fault.empty());
    CHECK(none.out == std::vector<std::uint32_t>(200, 5));
    const std::uint32_t some = 1 + rng() % 199;
    const Run faulted = run(body, 200, size, some);
    INFO(some << " lanes on the short side");
    CHECK_THAT(faulted.fault, Catch::Contains("reads r1.x before an ALU result from `mov.u32u32 r1.x, 6`"));
  }
  // The static checker sees the short path too, whatever the data.
  const ir3::Program program = ir3::assemble(body + "stg.u32 g[r2.x], r1.x, 1\nend\n");
  std::vector<ir3::Instruction> code;
  for (std::uint64_t w : program.words) code.push_back(ir3::decode(w));
  const auto hazards = ir3::check(code);
  REQUIRE(hazards.size() == 1);
  CHECK(hazards[0].regid == ir3::regid(1, 0));
  CHECK(hazards[0].missing_slots == 5);  // the (jp)nop at the join is the one slot it gets
}

TEST_CASE("ADRENO_VIRTUAL_HAZARDS=warn runs on and off skips the check", "[virtual-gpu][hazards]") {
  const std::string early = "mov.u32u32 r1.x, 42\nnop";
  {
    const HazardMode mode("warn");
    const Run r = run(early, 64, pm4::ThreadSize::THREAD64);
    CHECK(r.fault.empty());
    CHECK(r.out == std::vector<std::uint32_t>(64, 42));
  }
  {
    const HazardMode mode("off");
    const Run r = run(early, 64, pm4::ThreadSize::THREAD128);
    CHECK(r.fault.empty());
  }
  const HazardMode mode("on");
  CHECK_FALSE(run(early, 64, pm4::ThreadSize::THREAD64).fault.empty());
}

TEST_CASE("a relative read is checked for the register each fiber's a0.x names", "[virtual-gpu][hazards]") {
  // r4.w is written one slot before r<a0.x + 16> (r4.x + a0.x) is read: only fibers whose a0.x
  // is 3 read it too early.
  auto body = [](int mask) {
    return R"(
    mov.u32u32 r4.x, 10
    mov.u32u32 r4.y, 20
    mov.u32u32 r4.z, 30
    (nop3) and.b r0.y, r0.x, )" + std::to_string(mask) + R"(
    cov.u32s16 hr0.x, r0.y
    (rpt2)nop
    mova a0.x, hr0.x
    (rpt4)nop
    mov.u32u32 r4.w, 40
    mov.u32u32 r1.x, r<a0.x + 16>
    (rpt5)nop
  )";
  };
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const Run two = run(body(1), 64, size);
    CHECK(two.fault.empty());
    for (std::uint32_t i = 0; i < 64; ++i) CHECK(two.out[i] == 10 * (i % 2 + 1));
    const Run four = run(body(3), 64, size);
    CHECK_THAT(four.fault, Catch::Contains("reads r4.w (through its relative operand) before an ALU result from `mov.u32u32 r4.w, 40`"));
    CHECK_THAT(four.fault, Catch::Contains("fix: needs 3 more delay slots"));
  }
}

TEST_CASE("a relative write is tracked for the register each fiber's a0.x names", "[virtual-gpu][hazards]") {
  // r<a0.x + 16> is r4.x for fibers whose a0.x is 0 and r4.y where it is 1; r4.y is read one slot
  // after the write: too early only for the fibers that wrote it.
  auto body = [](int mask) {
    return R"(
    mov.u32u32 r4.x, 10
    mov.u32u32 r4.y, 20
    (nop3) and.b r0.y, r0.x, )" + std::to_string(mask) + R"(
    cov.u32s16 hr0.x, r0.y
    (rpt2)nop
    mova a0.x, hr0.x
    (rpt5)nop
    mov.u32u32 r<a0.x + 16>, 7
    nop
    mov.u32u32 r1.x, r4.y
    (rpt5)nop
  )";
  };
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const Run none = run(body(0), 64, size);
    CHECK(none.fault.empty());
    CHECK(none.out == std::vector<std::uint32_t>(64, 20));
    const Run odd = run(body(1), 64, size);
    CHECK_THAT(odd.fault, Catch::Contains("`mov.u32u32 r1.x, r4.y` (instruction 13) reads r4.y before an ALU result from "
                                          "`mov.u32u32 r<a0.x + 16>, 7` (instruction 11)"));
    CHECK_THAT(odd.fault, Catch::Contains("fix: needs 2 more delay slots"));
  }
  // Overwriting, through a0.x, a register a load still lands in is a fault for those fibers only.
  auto over = [](int mask) {
    return R"(
    (nop3) and.b r0.y, r0.x, )" + std::to_string(mask) + R"(
    cov.u32s16 hr0.x, r0.y
    (rpt2)nop
    mova a0.x, hr0.x
    ldg.u32 r4.y, g[r2.x], 1
    (rpt5)nop
    mov.u32u32 r<a0.x + 16>, 7
    (sy)mov.u32u32 r1.x, r4.y
    (rpt5)nop
  )";
  };
  CHECK(run(over(0), 64, pm4::ThreadSize::THREAD64).fault.empty());
  CHECK_THAT(run(over(1), 64, pm4::ThreadSize::THREAD64).fault,
             Catch::Contains("overwrites r4.y (through its relative operand) while a load from memory"));
}

TEST_CASE("the instruction after a barrier waits (ss)(sy), in every wave of the group", "[virtual-gpu][hazards]") {
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const Run missing = run("bar\nmov.u32u32 r1.x, 5\n(rpt5)nop", 256, size);
    CHECK_THAT(missing.fault, Catch::Contains("`mov.u32u32 r1.x, 5` (instruction 5) is the first instruction after `bar` (instruction 4)"));
    CHECK_THAT(missing.fault, Catch::Contains("fix: add (ss)(sy)"));
    CHECK_THAT(run("bar\n(ss)nop\nmov.u32u32 r1.x, 5\n(rpt5)nop", 256, size).fault, Catch::Contains("fix: add (sy)"));
    const Run waited = run("bar\n(ss)(sy)nop\nmov.u32u32 r1.x, 5\n(rpt5)nop", 256, size);
    CHECK(waited.fault.empty());
    CHECK(waited.out == std::vector<std::uint32_t>(256, 5));
  }
  // fence, and any other cat7 instruction, likewise.
  CHECK_THAT(run("fence.r.w\nmov.u32u32 r1.x, 5\n(rpt5)nop", 64, pm4::ThreadSize::THREAD64).fault,
             Catch::Contains("is the first instruction after `fence.r.w`"));
}

TEST_CASE("a load into a shared register is waited for with (ss) as well as (sy)", "[virtual-gpu][hazards]") {
  const std::string load = "ldg.u32 r48.y, g[r2.x], 1\n";
  const Run sy_only = run(load + "(sy)add.u r1.x, r48.y, 1\n(rpt5)nop", 64, pm4::ThreadSize::THREAD64);
  CHECK_THAT(sy_only.fault, Catch::Contains("reads r48.y before a load from memory into a shared register"));
  CHECK_THAT(sy_only.fault, Catch::Contains("fix: add (ss)"));
  CHECK_THAT(run(load + "(ss)add.u r1.x, r48.y, 1\n(rpt5)nop", 64, pm4::ThreadSize::THREAD64).fault, Catch::Contains("fix: add (sy)"));
  const Run both = run(load + "(ss)(sy)add.u r1.x, r48.y, 1\n(rpt5)nop", 64, pm4::ThreadSize::THREAD64);
  CHECK(both.fault.empty());
  CHECK(both.out == std::vector<std::uint32_t>(64, 1));  // the buffer held zeros
}

// The address and predicate registers, with the slot counts taken from Mesa, not from our table:
// ir3_delay.c ir3_delayslots returns 6 for any consumer of an instruction that writes_addr0 or
// writes_addr1 (a0.x, a1.x), and ir3_legalize.c delay_update makes a destination that is
// IR3_REG_PREDICATE or REG_A0 ready 6 cycles after it issues, whatever reads it. So an ALU reader
// gets no 3-slot discount, and 4 slots leave 2 missing.
TEST_CASE("a0.x, a1.x and p0 read before their 6 delay slots are shader faults naming the register", "[virtual-gpu][hazards]") {
  const std::string six_for_every_reader = "needs 6 delay slots before an ALU reader of the same size and 6 before any other";
  // a0.x: mova then a relative read (an ALU reader) 4 slots later; each fiber reads r4.x or r4.y.
  auto relative_read = [](int nops) {
    return R"(
    mov.u32u32 r4.x, 10
    mov.u32u32 r4.y, 20
    (nop3) and.b r0.y, r0.x, 1
    cov.u32s16 hr0.x, r0.y
    (rpt2)nop
    mova a0.x, hr0.x
    (rpt)" + std::to_string(nops - 1) + R"()nop
    mov.u32u32 r1.x, r<a0.x + 16>
    (rpt5)nop
  )";
  };
  // p0: a compare then the branch that reads it 4 slots later; fibers below c0.z keep r1.x = 1.
  auto early_branch = [](int nops) {
    return R"(
    mov.u32u32 r1.x, 1
    cmps.u.lt p0.x, r0.x, c0.z
    (rpt)" + std::to_string(nops - 1) + R"()nop
    br p0.x, #done
    mov.u32u32 r1.x, 2
  done:
    (jp)nop
    (rpt5)nop
  )";
  };
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const Run a0 = run(relative_read(4), 64, size);
    INFO(a0.fault);
    CHECK_THAT(a0.fault, Catch::Contains("`mov.u32u32 r1.x, r<a0.x + 16>` (instruction 11) reads a0.x before"));
    CHECK_THAT(a0.fault, Catch::Contains("from `mova a0.x, hr0.x` (instruction 9)"));
    CHECK_THAT(a0.fault, Catch::Contains(six_for_every_reader));
    CHECK_THAT(a0.fault, Catch::Contains("fix: needs 2 more delay slots"));
    const Run a0_waited = run(relative_read(6), 64, size);
    CHECK(a0_waited.fault.empty());
    for (std::uint32_t i = 0; i < 64; ++i) CHECK(a0_waited.out[i] == 10 * (i % 2 + 1));

    const Run p0 = run(early_branch(4), 64, size, 20);
    INFO(p0.fault);
    CHECK_THAT(p0.fault, Catch::Contains("`br p0.x, #2` (instruction 7) reads p0.x before"));
    CHECK_THAT(p0.fault, Catch::Contains("from `cmps.u.lt p0.x, r0.x, c0.z` (instruction 5)"));
    CHECK_THAT(p0.fault, Catch::Contains(six_for_every_reader));
    CHECK_THAT(p0.fault, Catch::Contains("fix: needs 2 more delay slots"));
    const Run p0_waited = run(early_branch(6), 64, size, 20);
    CHECK(p0_waited.fault.empty());
    for (std::uint32_t i = 0; i < 64; ++i) CHECK(p0_waited.out[i] == (i < 20 ? 1u : 2u));
  }
  // a1.x: mova1 then a cat5 that takes its index from a1.x (Mesa disasm.c's a6xx
  // `sam.base0 (f32)(x)r2.x, r0.x, s#16, a1.x`), 4 slots later. The check stops the dispatch when
  // the sam issues, before the virtual GPU would have to execute it.
  const Run a1 = run("mova1 a1.x, 0\n(rpt3)nop\nsam.base0 (f32)(x)r1.x, r0.x, s#16, a1.x\n(sy)nop\n(rpt5)nop", 64,
                     pm4::ThreadSize::THREAD64);
  INFO(a1.fault);
  CHECK_THAT(a1.fault, Catch::Contains("(instruction 6) reads a1.x before"));
  CHECK_THAT(a1.fault, Catch::Contains("from `mova1 a1.x, 0` (instruction 4)"));
  CHECK_THAT(a1.fault, Catch::Contains(six_for_every_reader));
  CHECK_THAT(a1.fault, Catch::Contains("fix: needs 2 more delay slots"));
}

// The waves of a program the static checker finds clean skip the check (ShaderProgram::hazard_free):
// sound only if no fiber of such a program meets a hazard the check would report. Seeded random
// programs mixing ALU results (full and half, merged and split files, (rptN), (nopN)), SFU
// results, loads, stores still reading their sources, fences and a diamond that part of the
// wave takes, with random (ss)/(sy) and delay slots, run with the check at every instruction
// (exhaustive) and as by default (on): where the checker finds nothing the exhaustive check
// must not fault, and both runs end alike: the same fault, word for word, or the same results.
// It fails if the proof skips a program the check faults in, e.g. one proved for the split file
// and run with the merged one, where hr6.x is half of r3.x.
TEST_CASE("a program the static checker proves clean runs unchecked only where the full check finds nothing", "[virtual-gpu][hazards]") {
  std::mt19937 rng(19);
  auto pick = [&](std::initializer_list<const char*> options) { return std::string(options.begin()[rng() % options.size()]); };
  auto flags = [&](bool cat6 = false) {  // cat6 has no (ss) bit
    std::string f;
    if (!cat6 && rng() % 3 == 0) f += "(ss)";
    if (rng() % 3 == 0) f += "(sy)";
    return f;
  };
  const std::initializer_list<const char*> full = {"r1.x", "r3.x", "r3.y", "r4.x"};
  const std::initializer_list<const char*> half = {"hr6.x", "hr6.y", "hr8.x"};  // r3.x, r4.x when merged
  auto instruction = [&]() -> std::string {
    switch (rng() % 11) {
      case 0: return flags() + "mov.u32u32 " + pick(full) + ", " + std::to_string(rng() % 100);
      case 1: return flags() + (rng() % 2 ? "(nop2) " : "") + "add.u " + pick(full) + ", " + pick(full) + ", " + pick(full);
      case 2: return flags() + "(rpt1)add.u r3.x, (r)r4.x, 1";  // writes r3.x, r3.y; reads r4.x, r4.y
      case 3: return flags() + "add.s hr6.x, " + pick(half) + ", " + pick(half);
      case 4: return flags() + "rcp " + pick(full) + ", " + pick(full);
      case 5: return flags(true) + "ldg.u32 " + pick(full) + ", g[r2.x], 1";
      case 6: return flags(true) + "stg.u32 g[r2.x], " + pick(full) + ", 1";
      case 7: return rng() % 8 == 0 ? flags() + "fence.r.w" : flags() + "nop";
      default: return flags() + "(rpt" + std::to_string(2 + rng() % 4) + ")nop";
    }
  };
  int clean = 0, faulted = 0;
  for (int n = 0; n < 300; ++n) {
    std::string body;
    for (unsigned i = 2 + rng() % 6; i > 0; --i) body += instruction() + "\n";
    if (rng() % 2) {
      body += "cmps.u.lt p0.x, r0.x, c0.z\n(rpt5)nop\nbr !p0.x, #join\n";
      for (unsigned i = 1 + rng() % 4; i > 0; --i) body += instruction() + "\n";
      body += "join:\n(jp)nop\n";
    }
    for (unsigned i = 1 + rng() % 6; i > 0; --i) body += instruction() + "\n";
    body += flags() + "(rpt" + std::to_string(rng() % 6) + ")nop\n";
    const auto file = rng() % 2 ? ir3::RegisterFile::merged : ir3::RegisterFile::split;
    const std::string source = R"(
      (nop3) shl.b r2.z, r0.x, 2
      add.u r2.x, c0.x, r2.z
      mov.u32u32 r2.y, c0.y
      (rpt5)nop
    )" + body + "stg.u32 g[r2.x], r1.x, 1\nend\n";
    INFO(source);
    const ir3::Program program = ir3::assemble(source, file);
    std::vector<ir3::Instruction> code;
    for (const std::uint64_t word : program.words) code.push_back(ir3::decode(word));
    const bool proved = ir3::check(code, file).empty();
    auto run_as = [&](const char* mode) {
      const HazardMode scope(mode);
      VirtualGpu gpu;
      Launch launch = launch_for(program);
      launch.local_size = {64, 1, 1};
      launch.local_id_regid = ir3::regid(0, 0);
      launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 1 + static_cast<std::uint32_t>(rng() % 63), 0};
      gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(64, 0));
      Run result;
      try {
        gpu.run(program.words, launch);
      } catch (const GpuFault& fault) {
        result.fault = fault.what();
      }
      result.out = gpu.get<std::uint32_t>(VirtualGpu::kData, 64);
      return result;
    };
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    rng.seed(seed);
    const Run exhaustive = run_as("exhaustive");
    rng.seed(seed);  // the same fibers take the diamond's branch in both runs
    const Run on = run_as("on");
    INFO(exhaustive.fault);
    if (proved) CHECK(exhaustive.fault.empty());
    CHECK(on.fault == exhaustive.fault);
    CHECK(on.out == exhaustive.out);
    clean += proved ? 1 : 0;
    faulted += exhaustive.fault.find("timing hazard") != std::string::npos ? 1 : 0;
  }
  // Both kinds of program are there in numbers.
  CHECK(clean >= 20);
  CHECK(faulted >= 20);
}
