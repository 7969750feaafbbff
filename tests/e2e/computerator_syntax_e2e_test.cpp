// [virtual-gpu] Kernels written in Mesa computerator's syntax — every @buf a storage-buffer (UAV)
// slot written with stib, @ubo uniform buffers read with ldc and an early preamble's ldc.k,
// @numwg, @branchstack, @localmem, @pvtmem, @buf initial values and the @fullnop/@fullsync
// sections — assemble to the words Mesa's own assembler gives for the same
// text (computerator -d -r under Mesa's msm no-op drm-shim, FD_GPU_ID=630, Mesa 26.0-devel
// d02ba9bb9c01; the words below are its output, padding after `end` left out), carry their
// directives into the program's metadata, and run on both virtual kernels. The kernels are ours,
// written after the shape of Mesa's examples in src/freedreno/computerator/examples/.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/ir3_assembly.h"
#include "core/program_impl.h"
#include "ir3/assembler.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using namespace adreno;

namespace {

struct ComputeratorKernel {
  const char* name;
  const char* source;
  std::vector<std::uint64_t> mesa_words;
  std::uint32_t local_size;
  std::vector<std::uint32_t> expected;  // buffer 0 afterwards
};

// Computes a0 = (int)(2.0 + 1.0) = 3 and stores r<a0.x + 4> = r1.w through UAV slot 0.
const ComputeratorKernel kUavStore{"uav_store", R"(
@localsize 1, 1, 1
@buf 4
@const(c0.x) 2.0, 1.0, 0.0, 0.0
@const(c1.x) 0x11111111, 0x22222222, 0x33333333, 0x44444444
@wgid(r48.x)
@invocationid(r0.x)
@numwg(c2.x)
add.f r2.x, c0.x, c0.y
mov.u32u32 r1.x, c1.x
mov.u32u32 r1.y, c1.y
mov.u32u32 r1.z, c1.z
mov.u32u32 r1.w, c1.w
(rpt1)nop
cov.f32s16 hr6.x, r2.x
(rpt2)nop
mova a0.x, hr6.x
(rpt5)nop
(ul)mov.u32u32 r3.x, r<a0.x + 4>
mov.u32u32 r3.y, 0
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r3.x, r3.y, 0
end
)",
                                      {0x4010000810011000ull, 0x202cc00400000004ull, 0x202cc00500000005ull,
                                       0x202cc00600000006ull, 0x202cc00700000007ull, 0x0000010000000000ull,
                                       0x2005001800000008ull, 0x0000020000000000ull, 0x201100f400000018ull,
                                       0x0000050000000000ull, 0x200ce00c00000804ull, 0x204cc00d00000000ull,
                                       0x0000050000000000ull, 0xc026000c0d674000ull, 0x0300000000000000ull},
                                      1,
                                      {0x44444444, 0, 0, 0}};

// Lanes below 9 store 1000 + id, the others the value set before the branch.
const ComputeratorKernel kBranch{"branch", R"(
@localsize 32, 1, 1
@buf 32
@invocationid(r0.x)
@branchstack 2
mov.u32u32 r2.x, 0x0badf00d
cmps.u.lt p0.x, r0.x, 9
(rpt5)nop
br !p0.x, #skip
add.u r2.x, r0.x, 1000
skip:
(jp)(rpt5)nop
stib.b.untyped.1d.u32.1.imm r2.x, r0.x, 0
end
)",
                                   {0x204cc0080badf00dull, 0x429000f820090000ull, 0x0000050000000000ull,
                                    0x0090000000000002ull, 0x4210000823e80000ull, 0x0800050000000000ull,
                                    0xc026000800674000ull, 0x0300000000000000ull},
                                   32,
                                   {}};

// Each lane stores 100 + id to local memory; after the barrier it reads its neighbour's (id ^ 1)
// and adds 4·id.
const ComputeratorKernel kLocalMemory{"localmem", R"(
@localsize 16, 1, 1
@buf 16
@invocationid(r0.x)
@localmem 64
shl.b r1.x, r0.x, 2
add.u r1.y, r0.x, 100
xor.b r1.z, r0.x, 1
(rpt2)nop
shl.b r1.w, r1.z, 2
(rpt5)nop
stl.u32 l[r1.x], r1.y, 1
bar
(ss)nop
(sy)ldl.u32 r2.x, l[r1.w], 1
(ss)add.u r2.x, r2.x, r1.x
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r2.x, r0.x, 0
end
)",
                                        {0x46d0000420020000ull, 0x4210000520640000ull, 0x43f0000620010000ull,
                                         0x0000020000000000ull, 0x46d0000720020006ull, 0x0000050000000000ull,
                                         0xc10609000180000aull, 0xe002000000000000ull, 0x0000100000000000ull,
                                         0xd04600080181c001ull,
                                         0x4210100800040008ull, 0x0000050000000000ull, 0xc026000800674000ull,
                                         0x0300000000000000ull},
                                        16,
                                        {}};

// Each lane round-trips 8·id through its private memory and stores it plus 5.
const ComputeratorKernel kPrivateMemory{"pvtmem", R"(
@localsize 4, 1, 1
@buf 4
@pvtmem 8
@invocationid(r0.x)
shl.b r1.x, r0.x, 3
mov.u32u32 r2.x, 0
(rpt5)nop
stp.u32 p[r2.x + 4], r1.x, 1
ldp.u32 r3.x, p[r2.x + 4], 1
(sy)add.u r3.x, r3.x, 5
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r3.x, r0.x, 0
end
)",
                                          {0x46d0000420030000ull, 0x204cc00800000000ull, 0x0000050000000000ull,
                                           0xc146110401800008ull, 0xc086000c01820009ull, 0x5210000c2005000cull,
                                           0x0000050000000000ull, 0xc026000c00674000ull, 0x0300000000000000ull},
                                          4,
                                          {5, 13, 21, 29}};

// The buffer's initial values, read and written back plus the lane id, inside the sections
// that put (rpt5)nop and (ss)(sy)nop before each instruction.
const ComputeratorKernel kSections{"sections", R"(
@localsize 8, 1, 1
@buf 8 10, 20, 30, 40, 50, 60, 70, 80
@invocationid(r0.x)
@fullnopstart
@fullsyncstart
ldib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
add.u r1.x, r1.x, r0.x
@fullsyncend
@fullnopend
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
end
)",
                                     {0x0000050000000000ull, 0x1000100000000000ull, 0xc026000400618000ull,
                                      0x0000050000000000ull, 0x1000100000000000ull, 0x4210000400000004ull,
                                      0x0000050000000000ull, 0xc026000400674000ull, 0x0300000000000000ull},
                                     8,
                                     {10, 21, 32, 43, 54, 65, 76, 87}};

std::vector<std::uint32_t> expected_branch() {
  std::vector<std::uint32_t> out(32, 0x0badf00d);
  for (std::uint32_t i = 0; i < 9; ++i) out[i] = 1000 + i;
  return out;
}

std::vector<std::uint32_t> expected_local_memory() {
  std::vector<std::uint32_t> out(16);
  for (std::uint32_t i = 0; i < 16; ++i) out[i] = 100 + (i ^ 1) + 4 * i;
  return out;
}

}  // namespace

TEST_CASE("computerator-syntax kernels assemble to the words Mesa's assembler gives", "[pure][ir3]") {
  for (const ComputeratorKernel* kernel : {&kUavStore, &kBranch, &kLocalMemory, &kPrivateMemory, &kSections}) {
    INFO(kernel->name);
    const ir3::Program program = ir3::assemble(kernel->source, ir3::RegisterFile::merged);
    CHECK(program.words == kernel->mesa_words);
  }
}

TEST_CASE("computerator directives reach the program: UAV slots, branch stack, local and private memory, @numwg",
          "[virtual-kernel][program]") {
  VirtualDevice device("virtual-kgsl");
  {
    const auto info_of = [&](const ComputeratorKernel& kernel) {
      return Program::from_ir3_assembly(*device, kernel.source).impl()->info();
    };
    const ProgramInfo store = info_of(kUavStore);
    REQUIRE(store.arguments.size() == 1);
    CHECK(store.arguments[0].kind == ProgramArgument::Kind::storage_buffer);
    CHECK(store.arguments[0].slot == 0);
    CHECK(store.arguments[0].const_byte == kNoConstant);
    CHECK(store.storage_images == 1);
    CHECK(store.merged_regs);
    REQUIRE(store.driver_params.size() == 1);  // @numwg(c2.x): the grid at dword 8
    CHECK(store.driver_params[0].const_dword == 8);
    CHECK(store.driver_params[0].count == 3);
    CHECK(info_of(kBranch).branch_stack == 1);  // ceil(2 / 2), Mesa ir3_shader_branchstack_hw
    CHECK(info_of(kLocalMemory).shared_bytes == 64);
    const ProgramInfo pvt = info_of(kPrivateMemory);
    CHECK(pvt.private_bytes_per_fiber == 8);
    CHECK(pvt.private_per_wave);
    const ir3::Program sections = ir3::assemble(kSections.source);
    REQUIRE(sections.launch.buffers.size() == 1);
    CHECK(sections.launch.buffers[0].initial == std::vector<std::uint32_t>{10, 20, 30, 40, 50, 60, 70, 80});
  }
  device.close_and_check_ledger();
}

TEST_CASE("computerator-syntax kernels write their storage buffers on the virtual GPU", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const std::vector<std::pair<const ComputeratorKernel*, std::vector<std::uint32_t>>> runs = {
        {&kUavStore, kUavStore.expected},
        {&kBranch, expected_branch()},
        {&kLocalMemory, expected_local_memory()},
        {&kPrivateMemory, kPrivateMemory.expected},
        {&kSections, kSections.expected}};
    for (const auto& [kernel, expected] : runs) {
      INFO(kernel->name);
      Program program = Program::from_ir3_assembly(*device, kernel->source);
      const ir3::Program assembled = ir3::assemble(kernel->source);
      const auto& slot = assembled.launch.buffers.at(0);
      Buffer buffer = device->allocate({.size = slot.size_dwords * 4});
      std::memset(buffer.cpu_view().data(), 0, slot.size_dwords * 4);
      if (!slot.initial.empty()) std::memcpy(buffer.cpu_view().data(), slot.initial.data(), slot.initial.size() * 4);
      Arguments arguments(program);
      arguments.set_buffer(0, buffer);
      Queue queue(*device);
      queue.dispatch(program, arguments, Launch{{1, 1, 1}, {kernel->local_size, 1, 1}, std::nullopt});
      queue.finish(std::chrono::seconds(60));
      const auto result = buffer.cpu_view().as<std::uint32_t>();
      CHECK(std::vector<std::uint32_t>(result.begin(), result.end()) == expected);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("directives a compute kernel cannot use are refused saying why", "[pure][ir3]") {
  const auto refusal = [](const char* source) {
    try {
      ir3::assemble(source);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("assembled");
  };
  CHECK(refusal("@in(r0.x) pos(x=0)\nend\n").find("graphics-stage input") != std::string::npos);
  CHECK(refusal("@out(r0.x) color(x=0)\nend\n").find("graphics-stage output") != std::string::npos);
  CHECK(refusal("@tex(r0.x) src=0, bindless=0, samp=0, tex=0, wrmask=0xf, cmd=sam\nend\n").find("texture prefetch") !=
        std::string::npos);
}

namespace {

std::string mesa_example(const char* name) {
  std::ifstream in(std::filesystem::path(ADRENO_SOURCE_DIR) / "tests" / "mesa_computerator_examples" / name);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct MesaExample {
  const char* file;
  std::vector<std::uint32_t> expected;  // its one @buf (UAV) afterwards
  bool legalize = false;  // loaded through the legalizer (see stg_ldg_offset.asm)
  /// Uses a6xx's shifted-index ldg.a/stg.a address (base+(index<<shift)), which a7xx does not
  /// have (Mesa isaspec ir3-cat6.xml): an a7xx refuses the source as malformed.
  bool a6xx_only = false;
};

constexpr std::uint32_t kUntouched = 0x5eed5eed;

// What each example means, worked out from its text: every dword the kernel does not write stays
// as the test filled it.
std::vector<MesaExample> mesa_examples() {
  std::vector<MesaExample> out;
  // simple.asm: r0.x = 0x12345678, read back through r<a0.x> with a0.x = (int)(c0.x + c0.y) = 0,
  // stored at index r0.y = 0 of @buf 4.
  out.push_back({"simple.asm", {0x12345678, kUntouched, kUntouched, kUntouched}});
  // branch.asm: lanes with id > 0 take the branch's fall-through and store 0x12345678; lane 0
  // jumps over it and stores 0x87654321.
  std::vector<std::uint32_t> branch(16, 0x12345678);
  branch[0] = 0x87654321;
  out.push_back({"branch.asm", branch});
  // invocationid.asm: each of 32 lanes stores its id at its id.
  std::vector<std::uint32_t> ids(32);
  for (std::uint32_t i = 0; i < 32; ++i) ids[i] = i;
  out.push_back({"invocationid.asm", ids});
  // stg_ldg_offset.asm: g[r1.x+r0.y<<4+2<<2] is byte (i << 4) + (2 << 2) of the buffer whose
  // address is c2.xy (Mesa's older syntax: ir3_parser.y gives the field 4 - 2, the word's
  // ((i << 2) + 2) << 2). Lane i stores 0xff at dword 4i + 2, loads it back and stores it plus 1 at
  // dword 4i + 1. Its `(rpt3)nop` gives the final stg.a 4 delay slots after the add.u it stores,
  // where Mesa's own rule asks 6 before a memory instruction (ir3_delay.c ir3_delayslots);
  // computerator runs text as written, the virtual GPU refuses that hazard (stricter than
  // hardware), so this one goes through the legalizer.
  std::vector<std::uint32_t> strided(128, kUntouched);
  for (std::uint32_t i = 0; i < 16; ++i) {
    strided[4 * i + 2] = 0xff;
    strided[4 * i + 1] = 0x100;
  }
  out.push_back({"stg_ldg_offset.asm", strided, true, true});
  // ubo.asm: the early preamble copies UBO 0 (1, 2, 3, 4) to c0 with ldc.k; the main shader adds
  // UBO 1 (5, 6, 7, 8), read with ldc, and stores the sum at index 0. early_preamble.asm: the
  // early preamble stores 1, 2, 3, 4 over @const c0's zeros with stc; the main shader stores c0
  // at index 0. Both wait for the preamble's a1.x and shared-register writes the a7xx way —
  // `(ss)` after mova1, none before stc reads r48 (ir3_legalize.c: "On a7xx, sync behavior for
  // a1.x is different in the early preamble") — where Mesa's a6xx rules ask 6 delay slots after
  // a1.x (ir3_delay.c) and (ss) after a shared-register write (ir3.h is_ss_producer), which the
  // virtual a6xx checks; so they go through the legalizer.
  out.push_back({"ubo.asm", {6, 8, 10, 12}, true});
  out.push_back({"early_preamble.asm", {1, 2, 3, 4}, true});
  // pvtmem.asm: 0x12345678 through private memory, stored at index 0. Its ldp overwrites r0.x,
  // which the stp before it still reads, with no (ss) between (Mesa ir3.h
  // is_war_hazard_producer, ir3_legalize.c sync_update), a hazard the virtual GPU refuses; so it
  // goes through the legalizer.
  out.push_back({"pvtmem.asm", {0x12345678, kUntouched, kUntouched, kUntouched}, true});
  // buf-init.asm and localmem.asm store 4 components from each lane i at i..i+3, so lanes
  // overlap; the virtual GPU stores a wave's lanes in ascending order, so dword i ends as lane
  // i's first component. buf-init.asm: lane i loads dwords i..i+3 of the @buf's values
  // 1, 2, …, 8 and adds 5 to the first. localmem.asm: getone lets one fiber store 5 to local
  // memory, which every lane then reads (the registers after it hold 0). localmem.asm's stlw
  // reads r1.x 5 instructions after the mov that writes it, where Mesa's rule asks 6 before a
  // memory instruction (ir3_delay.c ir3_delayslots); so it goes through the legalizer.
  out.push_back({"buf-init.asm", {6, 7, 8, 9, 10, 11, 12, 13}});
  out.push_back({"localmem.asm", std::vector<std::uint32_t>(8, 5), true});
  return out;
}

// Binds each @buf/@ubo line's buffer — its declared size, holding its declared values, else
// kUntouched — into `keep`, and returns the index there of the storage buffer (every Mesa
// example has one).
std::size_t bind_declared_buffers(Device& device, const Program& program, const ir3::Program& assembled, Arguments& arguments,
                                  std::vector<Buffer>& keep) {
  std::optional<std::size_t> storage;
  for (std::size_t i = 0; i < assembled.launch.buffers.size(); ++i) {
    const ir3::BufferSlot& slot = assembled.launch.buffers[i];
    Buffer buffer = device.allocate({.size = std::max<std::size_t>(slot.size_dwords, slot.initial.size()) * 4});
    const auto words = buffer.cpu_view().as<std::uint32_t>();
    std::fill(words.begin(), words.end(), kUntouched);
    std::copy(slot.initial.begin(), slot.initial.end(), words.begin());
    arguments.set_buffer(program.argument_index("buf" + std::to_string(i)).value(), buffer);
    if (!slot.uniform) {
      REQUIRE(!storage);
      storage = keep.size();
    }
    keep.push_back(std::move(buffer));
  }
  REQUIRE(storage);
  return *storage;
}

}  // namespace

// Kills: @ubo and @earlypreamble were refused, ldc/ldc.k, shps/getone/shpe and stc were not
// interpreted, so ubo.asm and early_preamble.asm could not run.
// Runs on the a630, the a650 and every supported a7xx part, the a730, a740 and a750 (the
// supported parts with an early preamble are the a650 and the a7xx parts): on the a630 the
// examples that declare @earlypreamble must be refused as unsupported, not run; on the a7xx parts
// stg_ldg_offset.asm must be refused as a6xx-only syntax. Kills: an a7xx part missing from the
// run, so an example that computes wrong on the a730 or a750 alone went unnoticed.
TEST_CASE("Mesa's computerator examples run on the virtual GPU and compute what they mean", "[virtual-gpu][e2e]") {
  const std::string model = GENERATE(as<std::string>{}, "a630", "a650", "a730", "a740", "a750");
  const bool a7xx = model.starts_with("a7");
  VirtualDevice device(EACH_VIRTUAL_BACKEND() + ":" + model);
  {
    for (const MesaExample& example : mesa_examples()) {
      INFO(example.file << " on " << model);
      const std::string source = mesa_example(example.file);
      const ir3::Program assembled = ir3::assemble(source);
      if (assembled.launch.early_preamble && model == "a630") {
        try {
          (void)Program::from_ir3_assembly(*device, source, example.legalize);
          FAIL("an early preamble was accepted on the a630");
        } catch (const Error& error) {
          CHECK(error.code() == Errc::unsupported);
          CHECK_THAT(error.what(), Catch::Contains("has no early preamble"));
        }
        continue;
      }
      if (example.a6xx_only && a7xx) {
        try {
          (void)Program::from_ir3_assembly(*device, source, example.legalize);
          FAIL("a6xx's shifted-index address was accepted on the " << model);
        } catch (const Error& error) {
          CHECK(error.code() == Errc::malformed);
          CHECK_THAT(error.what(), Catch::Contains("an a7xx ldg.a/stg.a address is base+index+offset, without a shift"));
        }
        continue;
      }
      Program program = Program::from_ir3_assembly(*device, source, example.legalize);
      Arguments arguments(program);
      std::vector<Buffer> keep;
      const std::size_t storage = bind_declared_buffers(*device, program, assembled, arguments, keep);
      Queue queue(*device);
      queue.dispatch(program, arguments, Launch{{1, 1, 1}, {assembled.launch.local_size[0], 1, 1}, std::nullopt});
      queue.finish(std::chrono::seconds(60));
      const auto words = keep[storage].cpu_view().as<std::uint32_t>();
      CHECK(std::vector<std::uint32_t>(words.begin(), words.end()) == example.expected);
    }
  }
  device.close_and_check_ledger();
}

namespace {

// What Mesa's own assembler makes of each stored example: the words `computerator -d -r -g 1,1,1
// -f <example>` printed (Mesa 26.0-devel d02ba9bb9c01, FD_GPU_ID=630, under Mesa's msm no-op
// drm-shim), padding to whole 16-instruction groups included. Saved from Mesa's output, never
// regenerated by this project's code. stg_ldg_offset.asm has none: that Mesa refuses its older
// `g[r1.x+r0.y<<4+2<<2]` syntax ("syntax error, unexpected '<'", line 35).
const std::vector<std::pair<const char*, std::vector<std::uint64_t>>> kMesaExampleWords = {
      {"simple.asm",
      {
       0x2024400800000001ull, 0x204cc00012345678ull, 0x204cc00112345678ull,
       0x204cc00212345678ull, 0x4210000800081000ull, 0x204cc00312345678ull,
       0x204cc00412345678ull, 0x204cc00512345678ull, 0x200d001000000008ull,
       0x204cc00612345678ull, 0x204cc00712345678ull, 0x0000000000000000ull,
       0x201100f400000010ull, 0x0000050000000000ull, 0x200ce00000000800ull,
       0x204cc00100000000ull, 0x0000050000000000ull, 0xc026000001674000ull,
       0x0300000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull,
      }},
      {"branch.asm",
      {
       0x429200f820000000ull, 0x204cc00487654321ull, 0x0000050000000000ull,
       0x0090000000000002ull, 0x204cc00412345678ull, 0x0800050000000000ull,
       0xc026000400674000ull, 0x0300000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
      {"invocationid.asm",
      {
       0x200cc00100000000ull, 0x0000050000000000ull, 0xc026000001674000ull,
       0x0300000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
      {"ubo.asm",
      {
       0x0382000000000006ull, 0x0282000000000005ull, 0x204888f500000000ull,
       0x0000100000000000ull, 0xc036000300c78000ull, 0x1402100000000000ull,
       0xc826020400c7b000ull, 0x52180b0410000004ull, 0x0000020000000000ull,
       0xc026000400677000ull, 0x0300000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
      {"early_preamble.asm",
      {
       0x0382000000000009ull, 0x0282000000000008ull, 0x204cc0c000000001ull,
       0x204cc0c100000002ull, 0x204cc0c200000003ull, 0x204cc0c300000004ull,
       0x0000050000000000ull, 0xc706000004800180ull, 0x1402100000000000ull,
       0x0800000000000000ull, 0x202ccb0400000000ull, 0x0000050000000000ull,
       0xc026000400677000ull, 0x0300000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
      }},
      {"buf-init.asm",
      {
       0xc02600040061b000ull, 0x5210000420050004ull, 0x0000050000000000ull,
       0xc026000400677000ull, 0x0300000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
      {"localmem.asm",
      {
       0x204cc00400000000ull, 0x0282000000000004ull, 0x204cc00500000005ull,
       0x0000020000000000ull, 0xc2c609000180000aull, 0xca86000601810001ull,
       0x0000100000000000ull, 0xc026000600677000ull, 0x0300000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
      {"pvtmem.asm",
      {
       0x204cc00412345678ull, 0x204cc00000000000ull, 0x0000050000000000ull,
       0xc146010001800008ull, 0xc086000001800001ull, 0x204cc00100000000ull,
       0x1000050000000000ull, 0xc026000001674000ull, 0x0300000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull,
      }},
};

}  // namespace

// Kills: any encoding of ours that differs from Mesa's for the instructions its examples use
// (shps/getone/shpe, mova1, ldc/ldc.k, stc, ldlw/stlw, ldp/stp, ldib/stib, branches).
TEST_CASE("every stored Mesa computerator example assembles to the words Mesa's computerator gives", "[pure][ir3]") {
  for (const auto& [file, mesa] : kMesaExampleWords) {
    INFO(file);
    const ir3::Program program = ir3::assemble(mesa_example(file), ir3::RegisterFile::merged);
    REQUIRE(program.words.size() <= mesa.size());
    CHECK(program.words == std::vector<std::uint64_t>(mesa.begin(), mesa.begin() + static_cast<std::ptrdiff_t>(program.words.size())));
    // The rest is Mesa's padding: nops.
    CHECK(std::all_of(mesa.begin() + static_cast<std::ptrdiff_t>(program.words.size()), mesa.end(),
                      [](std::uint64_t word) { return word == 0; }));
  }
}

// Kills: code touching local memory without @localmem got the largest SHARED_SIZE silently, so
// a kernel that Mesa's computerator would run with the smallest one passed here.
TEST_CASE("directives that do not fit the code or the hardware are refused naming the directive", "[pure][ir3]") {
  const auto refusal = [](const std::string& source) {
    try {
      ir3_metadata(ir3::assemble(source));
    } catch (const Error& error) {
      CHECK(error.code() == Errc::malformed);
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const std::string local = "shl.b r1.x, r0.x, 2\n(rpt5)nop\nstl.u32 l[r1.x], r0.x, 1\nend\n";
  const std::string header = "@localsize 4, 1, 1\n@invocationid(r0.x)\n";
  CHECK(refusal(header + local).find("no @localmem declares its size") != std::string::npos);
  CHECK(refusal(header + "@localmem 0\n" + local).find("@localmem declares 0 bytes") != std::string::npos);
  CHECK(refusal(header + "@localmem 16\n" + local) == "accepted");
  CHECK(refusal(header + "@localmem 32769\n" + local).find("@localmem 32769 exceeds the 32768 bytes") != std::string::npos);
  CHECK(refusal("@numwg(c2.y)\nend\n").find("@numwg(c2.y) must name the x component") != std::string::npos);
  CHECK(refusal("@numwg(c2.x)\nend\n") == "accepted");
  const std::string private_load = "mov.u32u32 r2.x, 0\n(rpt5)nop\nldp.u32 r3.x, p[r2.x + 4], 1\nend\n";
  CHECK(refusal(header + private_load).find("no @pvtmem declares its size") != std::string::npos);
  CHECK(refusal(header + "@pvtmem 8\n" + private_load) == "accepted");
}

TEST_CASE("@ubo and @earlypreamble reach the program: UBO slots in their own order, SP_CS_CNTL_0 EARLYPREAMBLE",
          "[virtual-kernel][program]") {
  VirtualDevice device("virtual-kgsl:a650");
  {
    // ubo.asm declares @ubo, @ubo, @buf: UBO slots 0 and 1, then UAV slot 0; the program lists
    // the @buf first.
    const Program program = Program::from_ir3_assembly(*device, mesa_example("ubo.asm"));
    const ProgramInfo& info = program.impl()->info();
    CHECK(info.early_preamble);
    CHECK(info.uniform_buffers == 2);
    CHECK(info.storage_images == 1);
    REQUIRE(info.arguments.size() == 3);
    CHECK(info.arguments[0].name == "buf2");
    CHECK(info.arguments[0].kind == ProgramArgument::Kind::storage_buffer);
    CHECK(info.arguments[0].slot == 0);
    for (std::uint32_t i = 0; i < 2; ++i) {
      CHECK(info.arguments[1 + i].name == "buf" + std::to_string(i));
      CHECK(info.arguments[1 + i].kind == ProgramArgument::Kind::uniform_buffer);
      CHECK(info.arguments[1 + i].slot == i);
    }
    CHECK_FALSE(Program::from_ir3_assembly(*device, mesa_example("simple.asm")).impl()->info().early_preamble);
  }
  device.close_and_check_ledger();
}

namespace {

// Lane i stores UBO 0's vec4 i plus UBO 1's vec4 0 (copied to c4 by the early preamble with
// ldc.k) plus UBO 1's dword 11 (ldc from component 3 of vec4 2). UBO 1's address also lands in
// c8.xy, which lane 0 stores after its sum.
constexpr const char* kUniformSum = R"(
@localsize 64, 1, 1
@ubo 256
@buf 260
@ubo 16 (c8.x)
@invocationid(r0.x)
@branchstack 1
@earlypreamble
shps #main
getone #main
mova1 a1.x, 16
(rpt5)nop
ldc.4.k.imm c[a1.x], 0, 1
(sy)(ss)shpe
main:
(jp)ldc.offset0.4.imm r1.x, r0.x, 0
ldc.offset3.1.imm r2.x, 2, 1
shl.b r3.x, r0.x, 2
(sy)(rpt3)add.u r1.x, (r)r1.x, (r)c4.x
(rpt5)nop
(rpt3)add.u r1.x, (r)r1.x, r2.x
(rpt5)nop
stib.b.untyped.1d.u32.4.imm r1.x, r3.x, 0
mov.u32u32 r4.x, c8.x
mov.u32u32 r4.y, c8.y
mov.u32u32 r5.x, 256
(rpt5)nop
stib.b.untyped.1d.u32.2.imm r4.x, r5.x, 0
end
)";

}  // namespace

// Kills: the dispatch loaded no UBO descriptors (CP_LOAD_STATE6 ST6_UBO) and set no
// EARLYPREAMBLE, and the virtual GPU read no UBOs.
TEST_CASE("UBOs with random contents reach ldc and an early preamble's ldc.k on both drivers", "[virtual-gpu][e2e][ubo]") {
  // The early preamble needs an a650 or an a740 (freedreno_devices.py has_early_preamble).
  VirtualDevice device(EACH_VIRTUAL_BACKEND() + ":" + GENERATE(as<std::string>{}, "a650", "a740"));
  {
    std::mt19937 rng(20261204);
    std::vector<std::uint32_t> first(256), second(16);
    for (auto& v : first) v = static_cast<std::uint32_t>(rng());
    for (auto& v : second) v = static_cast<std::uint32_t>(rng());
    Program program = Program::from_ir3_assembly(*device, kUniformSum);
    Buffer ubo0 = device->allocate({.size = 256 * 4}), ubo1 = device->allocate({.size = 16 * 4});
    Buffer out = device->allocate({.size = 260 * 4});
    std::copy(first.begin(), first.end(), ubo0.cpu_view().as<std::uint32_t>().begin());
    std::copy(second.begin(), second.end(), ubo1.cpu_view().as<std::uint32_t>().begin());
    Arguments arguments(program);
    arguments.set_buffer("buf0", ubo0).set_buffer("buf1", out).set_buffer("buf2", ubo1);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {64, 1, 1}, std::nullopt});
    queue.finish(std::chrono::seconds(60));
    const auto words = out.cpu_view().as<std::uint32_t>();
    for (std::uint32_t i = 0; i < 256; ++i) {
      INFO("dword " << i);
      REQUIRE(words[i] == first[i] + second[i % 4] + second[11]);
    }
    const std::uint64_t address = ubo1.gpu_address().value();
    CHECK(words[256] == static_cast<std::uint32_t>(address));
    CHECK(words[257] == static_cast<std::uint32_t>(address >> 32));
  }
  device.close_and_check_ledger();
}

// Kills: an ldc from a slot the dispatch never loaded read stale or absent state without a fault.
TEST_CASE("an ldc from a UBO slot the program does not declare faults the GPU", "[virtual-gpu][e2e][ubo]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, R"(
@localsize 1, 1, 1
@ubo 4 1, 2, 3, 4
@buf 4
ldc.offset0.1.imm r1.x, 0, 1
mov.u32u32 r2.x, 0
(sy)(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r2.x, 0
end
)");
    Buffer ubo = device->allocate({.size = 16}), out = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer("buf0", ubo).set_buffer("buf1", out);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
    try {
      queue.finish(std::chrono::seconds(60));
      FAIL("the ldc from UBO slot 1 ran");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }
  }
  device.close_and_check_ledger();
}
