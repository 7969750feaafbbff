// [virtual-kernel] Queue::dispatch at register level: the CP_RUN_OPENCL path against tinygrad's
// exec() stream, wave sizes, per-part state, no hidden barriers, launch validation, GPU gating,
// the buffer objects a dispatch lists, and the upload area's steady state.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/arguments_impl.h"
#include "core/gpu_part.h"
#include "core/ir3_assembly.h"
#include "core/program_impl.h"
#include "ir3/assembler.h"
#include "pm4/a6xx_registers.h"
#include "program_fixtures.h"
#include "recorded_stream.h"

#include <array>
#include <random>

using namespace adreno;
namespace r = adreno::pm4::a6xx;
using adreno::pm4::Opcode;

namespace {

ImageDesc image_in(const Buffer& buffer) {
  return ImageDesc{buffer.view(0, 64 * 64 * 16), ImageFormat::rgba32_float, 64, 64, 64 * 16};
}

template <typename F>
void require_error(F&& f, Errc code, const std::string& text) {
  try {
    f();
    FAIL("no error; expected one mentioning " << text);
  } catch (const Error& error) {
    INFO(error.what());
    CHECK(error.code() == code);
    CHECK(std::string(error.what()).find(text) != std::string::npos);
  }
}

}  // namespace

// The a630 only: the expected stream is tinygrad's a6xx one (ops_qcom.py QCOMComputeQueue.exec),
// register by register, with the a630's private-memory sizes. The next test runs the same binary
// on the a740 too.
TEST_CASE("a Qualcomm CL program runs with CP_RUN_OPENCL over the grid tinygrad programs", "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    const std::vector<std::byte> binary = image_kernel_binary().build();
    Program program = Program::from_qualcomm_binary(*device, binary);
    Buffer data = device->allocate({.size = 256 * 1024});
    Arguments arguments(program);
    arguments.set_sampler(0, {});
    arguments.set_buffer(1, data.view(0, 4096));
    arguments.set_texture(2, image_in(data));
    arguments.set_storage_image(3, image_in(data));
    arguments.set_scalar(4, std::uint32_t{77});
    const Launch launch{{5, 3, 2}, {16, 4, 2}, std::nullopt};
    Queue queue(*device);
    queue.dispatch(program, arguments, launch);
    const RecordedStream rec = record_of(queue);
    INFO(rec.text);

    CHECK(rec.all(Opcode::CP_EXEC_CS).empty());
    REQUIRE(rec.all(Opcode::CP_RUN_OPENCL).size() == 1);
    CHECK(rec.all(Opcode::CP_RUN_OPENCL)[0]->payload == std::vector<std::uint32_t>{0});
    // tinygrad exec(): NDRANGE_0 = KERNELDIM 3 | (local - 1) fields; NDRANGE_1/3/5 = groups × local;
    // offsets 0; SP_CS_CONST_CONFIG_0 = 0x00ccc0cf; SP_CS_WGE_CNTL = 0xfc | THREAD64;
    // SP_CS_KERNEL_GROUP_X/Y/Z = the group counts.
    CHECK(rec.value(r::SP_CS_NDRANGE_0) == (3u | 15u << 2 | 3u << 12 | 1u << 22));
    CHECK(rec.value(r::SP_CS_NDRANGE_1) == 80);
    CHECK(rec.value(r::SP_CS_NDRANGE_3) == 12);
    CHECK(rec.value(r::SP_CS_NDRANGE_5) == 4);
    CHECK(rec.value(r::SP_CS_NDRANGE_2) == 0);
    CHECK(rec.value(r::SP_CS_NDRANGE_4) == 0);
    CHECK(rec.value(r::SP_CS_NDRANGE_6) == 0);
    CHECK(rec.value(r::SP_CS_CONST_CONFIG_0) == 0x00ccc0cf);
    CHECK(rec.value(r::SP_CS_WGE_CNTL) == 0xfc);
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_X) == 5);
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_Y) == 3);
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_Z) == 2);
    // SP_CS_CNTL_0 = HALFREGFOOTPRINT 2 << 1 | FULLREGFOOTPRINT 10 << 7 | BRANCHSTACK 2 << 14.
    CHECK(rec.value(r::SP_CS_CNTL_0) == (2u << 1 | 10u << 7 | 2u << 14));
    // tinygrad: SP_CS_CNTL_1 = CONSTLEN_256 << 5 | SHARED_SIZE max(1, (3000 - 1) / 1024) = 0x42.
    CHECK(rec.value(r::SP_CS_CNTL_1) == 0x42);
    // tinygrad writes SP_CS_CONST_CONFIG constlen=256 without the field's shift (0x100 | ENABLED
    // collapses to 0x100); packed correctly 256 vec4 is CONSTLEN 64 | ENABLED = 0x140.
    CHECK(rec.value(r::SP_CS_CONST_CONFIG) == 0x140);
    CHECK(rec.value(r::SP_MODE_CNTL) == 0x2);  // ISAMMODE_CL << 1, no constant demotion
    CHECK(rec.value(r::TPL1_MODE_CNTL) == 0x1);
    CHECK(rec.value(r::SP_CS_PROGRAM_COUNTER_OFFSET) == 0x20);
    CHECK(rec.value64(r::SP_CS_BASE) == program.code_address().value());
    CHECK(rec.value(r::SP_CS_INSTR_SIZE) == 2);
    // SP_CS_CONFIG = ENABLED | NTEX 1 << 9 | NSAMP 1 << 17 | NUAV 1 << 22; SP_CS_USIZE 1.
    CHECK(rec.value(r::SP_CS_CONFIG) == (0x100u | 1u << 9 | 1u << 17 | 1u << 22));
    CHECK(rec.value(r::SP_CS_USIZE) == 1);
    // Private memory in computerator's units (a6xx.cc): 700 bytes per fiber round to 1024
    // (MEMSIZEPERITEM 2 × 512); per SP 1024 × fibers_per_sp 2048 (a630) = 2 MiB, 2 SP cores.
    CHECK(rec.value(r::SP_CS_PVT_MEM_PARAM) == 2);
    CHECK(rec.value(r::SP_CS_PVT_MEM_SIZE) == (2u << 20) >> 12);
    CHECK(rec.value(r::SP_CS_PVT_MEM_STACK_OFFSET) == (2u << 20) >> 11);
    CHECK(rec.value64(r::SP_CS_PVT_MEM_BASE) == program.impl()->private_memory()->allocation().gpu.value());
    CHECK(program.impl()->private_memory()->allocation().size >= 2 * (2u << 20));

    // Descriptor loads (tinygrad exec and computerator cs_ibo_emit): textures ST6_CONSTANTS to
    // SB6_CS_TEX, samplers ST6_SHADER to SB6_CS_TEX, IBOs ST6_UAV to SB6_CS_SHADER; the base
    // registers point at the same tables.
    const auto loads = rec.all(Opcode::CP_LOAD_STATE6_FRAG);
    auto source = [](const RecordedPacket* p) { return p->payload[1] | std::uint64_t{p->payload[2]} << 32; };
    REQUIRE(loads.size() == 5);
    CHECK(loads[0]->payload[0] == (0x00360000u | 2u << 22));  // shader, 2 units
    CHECK(loads[1]->payload[0] == (0x00364000u | 256u << 22));  // constants, 256 vec4
    CHECK(loads[2]->payload[0] == (0x00164000u | 1u << 22));
    CHECK(source(loads[2]) == rec.value64(r::SP_CS_TEXMEMOBJ_BASE));
    CHECK(loads[3]->payload[0] == (0x00160000u | 1u << 22));
    CHECK(source(loads[3]) == rec.value64(r::SP_CS_SAMPLER_BASE));
    CHECK(loads[4]->payload[0] == (0x0036c000u | 1u << 22));
    CHECK(source(loads[4]) == rec.value64(r::SP_CS_UAV_BASE));
    CHECK(rec.has(r::TPL1_CS_BORDER_COLOR_BASE));

    const BlockReader memory = queue_memory(queue);
    const std::vector<std::uint32_t> constants = memory.dwords(GpuAddress(source(loads[1])), 4);
    CHECK(constants[0] == data.gpu_address().lo());
    CHECK(constants[1] == data.gpu_address().hi());
    CHECK(constants[2] == 77);
    CHECK(constants[3] == 0);
    const std::vector<std::uint32_t> texture = memory.dwords(GpuAddress(source(loads[2])), 16);
    CHECK((texture[4] | std::uint64_t{texture[5] & 0x1ffff} << 32) == data.gpu_address().value());

    // The dispatch runs and retires: its program ends at the entry point. A shader fault (code
    // that never reaches `end`) would lose the queue here, not in a destructor that only logs.
    CHECK_NOTHROW(queue.finish(std::chrono::seconds(60)));
  }
  device.close_and_check_ledger();
}

TEST_CASE("a Qualcomm CL program runs exactly the grid's work-groups under CP_RUN_OPENCL", "[virtual-gpu][dispatch]") {
  // out[global id] = global id, the global id being the work-group offset tinygrad's
  // SP_CS_CONST_CONFIG_0 puts in r51.x (WGOFFSETCONSTID 0xcc) plus the local id in r0.x. Four
  // groups of 64 write out[0..255]; a group too many or too few shows past or before that.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const ir3::Program global_ids = ir3::assemble(
        "(nop3) add.u r1.x, r51.x, r0.x\n"
        "(nop3) shl.b r1.y, r1.x, 2\n"
        "(nop3) add.u r2.x, c0.x, r1.y\n"
        "mov.u32u32 r2.y, c0.y\n"
        "(rpt5)nop\n"
        "stg.u32 g[r2.x], r1.x, 1\n"
        "end\n");
    ClBinaryBuilder binary;
    binary.name = "global_ids";
    binary.fregs = 3;
    binary.hregs = 0;
    binary.arguments = {{0, 0}};  // one buffer, its address at c0.xy
    binary.code = ir3_code_dwords(global_ids);
    binary.code.resize(64, 0);
    Program program = Program::from_qualcomm_binary(*device, binary.build());
    Buffer out = device->allocate({.size = 512 * 4});
    auto* words = reinterpret_cast<std::uint32_t*>(out.cpu_view().data());
    std::fill(words, words + 512, 0xdeadbeefu);
    Arguments arguments(program);
    arguments.set_buffer(0, out);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{4, 1, 1}, {64, 1, 1}, std::nullopt});
    queue.finish(std::chrono::seconds(60));
    for (std::uint32_t i = 0; i < 512; ++i) {
      CAPTURE(i);
      REQUIRE(words[i] == (i < 256 ? i : 0xdeadbeefu));
    }
  }
  device.close_and_check_ledger();
}

// On the a630 and the a740: the THREADSIZE copy sits in SP_CS_WGE_CNTL, whose offset the register
// database gives per generation (a6xx.xml: 0xb998 on a6xx, 0xa9db on a7xx).
TEST_CASE("the wave size comes from the program and a launch can override it", "[virtual-kernel][dispatch]") {
  VirtualDevice device(GENERATE(as<std::string>{}, "virtual-kgsl", "virtual-kgsl:a740"));
  const pm4::Register& wave_control = *r::compute_registers(command_generation(device->info())).wave_control;
  {
    Ir3Metadata metadata = three_buffer_metadata();
    metadata.wave_size = WaveSize::thread128;
    Program program = Program::from_ir3(*device, placeholder_code(), metadata);
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    Queue queue(*device);
    const auto threadsize = [&](std::optional<WaveSize> wave) {
      queue.dispatch(program, arguments, Launch{{1, 1, 1}, {64, 1, 1}, wave});
      const RecordedStream rec = record_of(queue);
      CHECK(rec.field(r::SP_CS_CNTL_0, "THREADSIZE") == rec.field(wave_control, "THREADSIZE"));
      // Only the recorded registers matter here; later registers win in `rec`.
      return rec.field(r::SP_CS_CNTL_0, "THREADSIZE");
    };
    CHECK(threadsize(std::nullopt) == 1);  // THREAD128, the compiler's choice
    CHECK(threadsize(WaveSize::thread64) == 0);
    CHECK(threadsize(WaveSize::thread128) == 1);
  }
  device.close_and_check_ledger();
}

// Kills, on a7xx: a barrier whose clean is CACHE_FLUSH_TS (a6xx's FD_CACHE_CLEAN; every a7xx
// clean in Turnip, freedreno, KGSL and msm is CACHE_CLEAN) or whose invalidate is a6xx's 0x31
// (CACHE_CLEAN on a7xx, so nothing would be invalidated).
TEST_CASE("independent dispatches get no wait or cache flush between them, and a barrier puts Turnip's sequence there",
          "[virtual-kernel][dispatch]") {
  const std::string model = GENERATE(as<std::string>{}, "a630", "a740");
  const pm4::Gen gen = model == "a740" ? pm4::kA7xx : pm4::kA6xx;
  VirtualDevice device("virtual-msm:" + model);
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer("a", buffer).set_buffer("b", buffer).set_buffer("c", buffer).set_scalar(3, 1u);
    Queue queue(*device);
    const Launch launch{{4, 1, 1}, {32, 1, 1}, std::nullopt};
    // The waits and events between the two CP_EXEC_CS, in order (events by their event type, as
    // the generation names it: CP_EVENT_WRITE and CP_EVENT_WRITE7 share the opcode).
    const auto between_dispatches = [gen](const RecordedStream& rec) {
      std::vector<std::string> seen;
      bool inside = false;
      for (const RecordedPacket& p : rec.packets) {
        if (p.opcode == Opcode::CP_EXEC_CS) {
          if (inside) return seen;
          inside = true;
        } else if (inside && p.opcode == Opcode::CP_EVENT_WRITE) {
          seen.push_back(std::string(pm4::enums::kEventType.find(p.payload.at(0) & 0xff, gen)->name));
        } else if (inside && (p.opcode == Opcode::CP_WAIT_FOR_IDLE || p.opcode == Opcode::CP_WAIT_MEM_WRITES ||
                              p.opcode == Opcode::CP_WAIT_FOR_ME || p.opcode == Opcode::CP_WAIT_REG_MEM)) {
          seen.push_back(std::string(pm4::enums::kOpcode.find(static_cast<std::uint32_t>(p.opcode))->name));
        }
      }
      FAIL("fewer than two CP_EXEC_CS");
      return seen;
    };
    queue.dispatch(program, arguments, launch);
    queue.dispatch(program, arguments, launch);
    RecordedStream rec = record_of(queue);
    CHECK(rec.all(Opcode::CP_EXEC_CS).size() == 2);
    CHECK(between_dispatches(rec).empty());
    queue.finish(std::chrono::seconds(10));

    queue.dispatch(program, arguments, launch);
    queue.barrier();
    queue.dispatch(program, arguments, launch);
    rec = record_of(queue);
    // Clean UCHE, invalidate it, wait for the CP's writes, then for idle: the order of Turnip's
    // tu6_emit_flushes, with the events freedreno_gpu_event.h maps FD_CACHE_CLEAN and
    // FD_CACHE_INVALIDATE to on each generation.
    const std::vector<std::string> turnip =
        gen == pm4::kA7xx
            ? std::vector<std::string>{"CACHE_CLEAN", "CACHE_INVALIDATE7", "CP_WAIT_MEM_WRITES", "CP_WAIT_FOR_IDLE"}
            : std::vector<std::string>{"CACHE_FLUSH_TS", "CACHE_INVALIDATE", "CP_WAIT_MEM_WRITES", "CP_WAIT_FOR_IDLE"};
    CHECK(between_dispatches(rec) == turnip);
    queue.finish(std::chrono::seconds(10));
  }
  device.close_and_check_ledger();
}

TEST_CASE("parts with LPAC also get the SP copies of the work-item ids but a630 does not", "[virtual-kernel][dispatch]") {
  const std::string model = GENERATE(as<std::string>{}, "a630", "a640", "a650", "a660");
  VirtualDevice device("virtual-kgsl:" + model);
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {32, 1, 1}, std::nullopt});
    const RecordedStream rec = record_of(queue);
    const bool lpac = model == "a660";  // freedreno_devices.py: has_lpac in a6xx_gen4 only
    CHECK(rec.has(r::SP_CS_WIE_CNTL_0) == lpac);
    CHECK(rec.has(r::HLSQ_CS_CTRL_REG1) == lpac);
    if (lpac) {
      CHECK(rec.value(r::SP_CS_WIE_CNTL_0) == rec.value(r::SP_CS_CONST_CONFIG_0));
      CHECK(rec.value(r::SP_CS_WIE_CNTL_1) == rec.value(r::SP_CS_WGE_CNTL));
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a Qualcomm CL program refuses a base group it has no driver params for", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_qualcomm_binary(*device, image_kernel_binary().build());
    Buffer data = device->allocate({.size = 256 * 1024});
    Arguments arguments(program);
    arguments.set_sampler(0, {});
    arguments.set_buffer(1, data.view(0, 4096));
    arguments.set_texture(2, image_in(data));
    arguments.set_storage_image(3, image_in(data));
    arguments.set_scalar(4, std::uint32_t{77});
    Queue queue(*device);
    require_error([&] { queue.dispatch(program, arguments, Launch{{5, 3, 2}, {16, 4, 2}, std::nullopt, {0, 0, 1}}); },
                  Errc::unsupported, "reads no base group");
    CHECK(program.impl()->info().driver_params.empty());
  }
  device.close_and_check_ledger();
}

// Kills: the a730 and a750 refused as unsupported GPUs, a part matched by another's chip id, and a
// part Mesa knows but the library has no per-chip block for taken as a supported one. Chip ids:
// freedreno_devices.py (FD730 0x07030001, FD740 0x43050a01, FD750 0x43051401; FD725 0x07030002,
// FD735 0x43030b00, FD830 0x44050000).
TEST_CASE("the a730, a740 and a750 are found by chip id, other a7xx and a8xx parts are refused naming the supported ones",
          "[pure][dispatch]") {
  struct Known {
    std::uint32_t chip_id, gpu_id, num_sp_cores;
  };
  for (const Known& known : {Known{0x07030001, 730, 4}, Known{0x43050a01, 740, 6}, Known{0x43051401, 750, 6}}) {
    INFO(std::hex << known.chip_id);
    DeviceInfo info;
    info.chip_id = known.chip_id;
    const GpuPart& part = supported_part(info, "load program");
    CHECK(part.gpu_id == known.gpu_id);
    CHECK(part.gen == pm4::kA7xx);
    CHECK(part.num_sp_cores == known.num_sp_cores);
    CHECK(part.instr_cache_size == 127);
    CHECK(command_generation(info) == pm4::kA7xx);
  }
  for (std::uint32_t chip_id : {0x07030002u, 0x43030b00u, 0x44050000u}) {
    INFO(std::hex << chip_id);
    DeviceInfo info;
    info.name = "Adreno";
    info.chip_id = chip_id;
    CHECK(find_part(info) == nullptr);
    for (const char* named : {"unsupported GPU", "a730 (chip id 0x07030001)", "a740 (0x43050a01)", "a750 (0x43051401)"})
      require_error([&] { supported_part(info, "load program"); }, Errc::unsupported, named);
  }
}

TEST_CASE("launches with bad shapes or missing arguments are refused naming the field", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Ir3Metadata fixed = three_buffer_metadata();
    fixed.fixed_local_size[0] = 64;
    Program program = Program::from_ir3(*device, placeholder_code(), fixed);
    Program other = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    Queue queue(*device);
    const auto launch = [&](Launch l) { queue.dispatch(program, arguments, l); };
    require_error([&] { launch({{1, 1, 1}, {64, 1, 1}, {}}); }, Errc::invalid_argument, "argument 0 ('c')");
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer);
    require_error([&] { launch({{1, 1, 1}, {64, 1, 1}, {}}); }, Errc::invalid_argument, "argument 3 ('n')");
    arguments.set_scalar(3, 5u);
    require_error([&] { launch({{1, 1, 1}, {64, 0, 1}, {}}); }, Errc::invalid_argument, "local_size.y is 0");
    require_error([&] { launch({{1, 1, 1}, {32, 1, 1}, {}}); }, Errc::invalid_argument, "local_size.x is 32");
    require_error([&] { launch({{1, 1, 1}, {64, 4, 8}, {}}); }, Errc::invalid_argument, "2048 invocations");
    // 64 × 2^31 × 2^31 = 2^68 invocations, 0 in 64 bits.
    require_error([&] { launch({{1, 1, 1}, {64, 0x80000000u, 0x80000000u}, {}}); }, Errc::invalid_argument,
                  "= 295147905179352825856 invocations exceeds 1024");
    require_error([&] { launch({{1, 0, 1}, {64, 1, 1}, {}}); }, Errc::invalid_argument, "groups.y is 0");
    require_error([&] { launch({{0x4000000, 1, 1}, {64, 1, 1}, {}}); }, Errc::invalid_argument, "groups.x");
    require_error([&] { queue.dispatch(other, arguments, {{1, 1, 1}, {64, 1, 1}, {}}); }, Errc::invalid_argument,
                  "belong to program");
    // Nothing was recorded by the refused launches; an accepted one records.
    CHECK(record_of(queue).packets.empty());
    launch({{1, 1, 1}, {64, 1, 1}, {}});
    CHECK(record_of(queue).all(Opcode::CP_EXEC_CS).size() == 1);
    // The largest grid is accepted too: recorded in a graph that is never replayed, since 2^26
    // work groups would outlast the virtual GPU's hang detector.
    Graph graph(*device);
    CHECK_NOTHROW(graph.dispatch(program, arguments, {{0x3ffffff, 1, 1}, {64, 1, 1}, {}}));
    queue.finish(std::chrono::seconds(10));
  }
  device.close_and_check_ledger();
}

TEST_CASE("a submitted dispatch lists the code, every argument buffer and its upload block", "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    // Separate kernel objects, so that each must be listed on its own.
    Buffer a = device->allocate({.size = 4096, .exportable = true}), b = device->allocate({.size = 4096, .exportable = true}),
           c = device->allocate({.size = 4096, .exportable = true});
    Arguments arguments(program);
    arguments.set_buffer("a", a).set_buffer("b", b).set_buffer("c", c).set_scalar(3, 1u);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {32, 1, 1}, std::nullopt});
    const std::uint64_t fence = queue.submit();
    REQUIRE(fence != 0);
    REQUIRE(queue.wait_fence(fence, std::chrono::seconds(10)));  // the dispatch ran and ended
    const auto used_by_submission = [&](const MemoryBlock& block) {
      for (const GpuUse& use : block.allocation().uses.uses())
        if (use.context == queue.impl().context() && use.fence == fence) return true;
      return false;
    };
    CHECK(used_by_submission(*program.impl()->code()));
    CHECK(used_by_submission(a.impl()->block()));
    CHECK(used_by_submission(b.impl()->block()));
    CHECK(used_by_submission(c.impl()->block()));
    REQUIRE(queue.impl().uploads().block_count() == 1);
    CHECK(used_by_submission(queue.impl().uploads().block(0)));
  }
  device.close_and_check_ledger();
}

TEST_CASE("the upload area reuses its blocks once their submissions retired", "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue queue(*device);
    Buffer target = device->allocate({.size = 64});
    const std::uint32_t value[] = {1};
    std::mt19937 rng(9);
    // Warm up: enough rounds to fill more than one block.
    auto round = [&] {
      for (int i = 0; i < 8; ++i) {
        const std::uint64_t bytes = 64 + rng() % 8192;
        const UploadArea::Space space = queue.impl().uploads().allocate(queue.impl(), bytes);
        REQUIRE(space.gpu.value() % UploadArea::kAlignment == 0);
        std::memset(space.cpu.data(), 0x5a, bytes);
      }
      queue.write(target, value);
      queue.finish();
    };
    for (int i = 0; i < 4; ++i) round();
    const std::size_t blocks = queue.impl().uploads().block_count();
    const std::uint64_t kernel_allocs = device->impl().allocator().stats().kernel_allocs;
    for (int i = 0; i < 64; ++i) round();
    CHECK(queue.impl().uploads().block_count() == blocks);
    CHECK(device->impl().allocator().stats().kernel_allocs == kernel_allocs);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a program whose metadata asks for Mesa's driver params gets every value of the block", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-msm");
  {
    // The block at c4 (Mesa: allocs.consts[DRIVER_PARAMS].offset_vec4 = 4), all 16 dwords; a
    // second program whose constlen ends inside the block gets only what fits (Turnip's MIN2).
    Ir3Metadata metadata = three_buffer_metadata();
    metadata.constlen_vec4 = 8;
    metadata.driver_params = Ir3Metadata::DriverParams{16, 16};
    Program program = Program::from_ir3(*device, placeholder_code(), metadata);
    metadata.constlen_vec4 = 5;
    Program clipped = Program::from_ir3(*device, placeholder_code(), metadata);
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program), clipped_arguments(clipped);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
    clipped_arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{5, 6, 7}, {8, 4, 2}, std::nullopt, {100, 200, 300}});
    queue.dispatch(program, arguments, Launch{{1, 2, 3}, {16, 1, 1}, WaveSize::thread128, {}});
    queue.dispatch(clipped, clipped_arguments, Launch{{5, 6, 7}, {8, 4, 2}, std::nullopt, {}});
    const RecordedStream rec = record_of(queue);
    const auto loads = rec.all(Opcode::CP_LOAD_STATE6_FRAG);
    REQUIRE(loads.size() == 6);  // shader and constants, three times
    const BlockReader memory = queue_memory(queue);
    const auto block = [&](const RecordedPacket* load) {
      const std::vector<std::uint32_t> constants =
          memory.dwords(GpuAddress(load->payload[1] | std::uint64_t{load->payload[2]} << 32), 32);
      return std::vector<std::uint32_t>(constants.begin() + 16, constants.end());
    };
    // struct ir3_driver_params_cs, field by field: groups xyz, work_dim, base group xyz, subgroup
    // size, local size xyz, subgroup-id shift, work-group id xyz (0), padding.
    CHECK(block(loads[1]) == std::vector<std::uint32_t>{5, 6, 7, 3, 100, 200, 300, 64, 8, 4, 2, 6, 0, 0, 0, 0});
    CHECK(block(loads[3]) == std::vector<std::uint32_t>{1, 2, 3, 3, 0, 0, 0, 128, 16, 1, 1, 7, 0, 0, 0, 0});
    CHECK(block(loads[5]) == std::vector<std::uint32_t>{5, 6, 7, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  }
  device.close_and_check_ledger();
}

TEST_CASE("a launch whose base group plus groups overflows 32 bits is refused naming the axis", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
    Queue queue(*device);
    try {
      queue.dispatch(program, arguments, Launch{{1, 2, 1}, {1, 1, 1}, std::nullopt, {0, 0xfffffffeu, 0}});
      FAIL("dispatched");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("base_group.y = 4294967294 + groups.y = 2") != std::string::npos);
    }
  }
  device.close_and_check_ledger();
}

// Kills: a base group given to a program that reads none was accepted and silently dropped (the
// hardware's work-group id does not include it; only the driver params carry it).
TEST_CASE("a base group is refused naming the axis unless the program's driver params carry it",
          "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Buffer buffer = device->allocate({.size = 4096});
    const auto program_with = [&](std::optional<Ir3Metadata::DriverParams> params) {
      Ir3Metadata metadata = three_buffer_metadata();
      metadata.constlen_vec4 = 8;
      metadata.driver_params = params;
      return Program::from_ir3(*device, placeholder_code(), metadata);
    };
    Program none = program_with(std::nullopt);
    // From c4.x: the groups, work_dim and base_group.x (dwords 0..4), not .y or .z.
    Program base_x_only = program_with(Ir3Metadata::DriverParams{16, 5});
    Program whole = program_with(Ir3Metadata::DriverParams{16, 16});
    Queue queue(*device);
    const auto dispatch = [&](Program& program, std::array<std::uint32_t, 3> base) {
      Arguments arguments(program);
      arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
      queue.dispatch(program, arguments, Launch{{2, 2, 2}, {1, 1, 1}, std::nullopt, {base[0], base[1], base[2]}});
    };
    require_error([&] { dispatch(none, {0, 3, 0}); }, Errc::unsupported, "base_group.y is 3, but program");
    require_error([&] { dispatch(none, {0, 3, 0}); }, Errc::unsupported, "it has no driver params");
    require_error([&] { dispatch(base_x_only, {1, 0, 7}); }, Errc::unsupported, "base_group.z is 7");
    require_error([&] { dispatch(base_x_only, {1, 0, 7}); }, Errc::unsupported, "stop short of it");
    dispatch(none, {0, 0, 0});
    dispatch(base_x_only, {5, 0, 0});
    dispatch(whole, {5, 6, 7});
    // The graph's launch checks are the same.
    Graph graph(*device);
    Arguments arguments(none);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
    require_error([&] { graph.dispatch(none, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt, {1, 0, 0}}); },
                  Errc::unsupported, "base_group.x is 1");
    queue.finish(std::chrono::seconds(60));
  }
  device.close_and_check_ledger();
}

TEST_CASE("a program that reads the local size gets it as driver params in its constants", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Ir3Metadata metadata = three_buffer_metadata();
    metadata.local_size_const_dword = 8;  // c2.xyz
    Program program = Program::from_ir3(*device, placeholder_code(), metadata);
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 9u);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{2, 2, 2}, {8, 4, 2}, std::nullopt});
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {32, 1, 1}, std::nullopt});
    const RecordedStream rec = record_of(queue);
    const auto loads = rec.all(Opcode::CP_LOAD_STATE6_FRAG);
    // The shader once (the second dispatch of the program carries its state), the constants twice.
    REQUIRE(loads.size() == 3);
    const BlockReader memory = queue_memory(queue);
    const auto constants = [&](const RecordedPacket* load) {
      return memory.dwords(GpuAddress(load->payload[1] | std::uint64_t{load->payload[2]} << 32), 16);
    };
    const std::vector<std::uint32_t> first = constants(loads[1]), second = constants(loads[2]);
    CHECK(std::vector<std::uint32_t>(first.begin() + 8, first.begin() + 11) == std::vector<std::uint32_t>{8, 4, 2});
    CHECK(std::vector<std::uint32_t>(second.begin() + 8, second.begin() + 11) == std::vector<std::uint32_t>{32, 1, 1});
    CHECK(first[6] == 9);
    CHECK(second[6] == 9);
    // Each dispatch has its own copy; the Arguments object is unchanged.
    CHECK(loads[1]->payload[1] != loads[2]->payload[1]);
    CHECK(arguments.impl().constants()[8] == 0);
    // As computerator: the size is read from constants, WGSIZECONSTID stays r63.x.
    CHECK(rec.field(r::SP_CS_CONST_CONFIG_0, "WGSIZECONSTID") == 0xfc);
    CHECK(rec.field(r::SP_CS_CONST_CONFIG_0, "WGIDCONSTID") == 192);
    CHECK(rec.field(r::SP_CS_CONST_CONFIG_0, "LOCALIDREGID") == 0);
  }
  device.close_and_check_ledger();
}

// Kills a launch check that lets a bad launch through: validate_launch tells the common launch
// apart with or'ed bit tricks, and a queue does not check again a launch equal to the last one
// of the program whose state it carries (CarriedProgramState::repeats); and the grid an accepted
// launch records is its own (emit_grid packs the local size unchecked). Launches are drawn from
// each field's edge values, often the last launch with one field changed or the same launch
// again, alternating between a program with a compiled local size and one without, and each
// is judged here by the limits field by field.
TEST_CASE("random launches are refused exactly when a field is out of range, repeated or not", "[virtual-kernel][dispatch]") {
  VirtualDevice device("virtual-kgsl");
  {
    Ir3Metadata fixed_metadata = three_buffer_metadata();
    fixed_metadata.fixed_local_size[0] = 64;
    fixed_metadata.fixed_local_size[1] = 2;
    Program fixed = Program::from_ir3(*device, placeholder_code(), fixed_metadata);
    const Ir3Metadata free_metadata = three_buffer_metadata();
    Program free = Program::from_ir3(*device, placeholder_code(), free_metadata);
    Buffer buffer = device->allocate({.size = 4096});
    Arguments fixed_arguments(fixed), free_arguments(free);
    fixed_arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    free_arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    Queue queue(*device);

    constexpr std::uint32_t kLocals[] = {0, 1, 2, 3, 64, 100, 512, 1024, 1025, 0x10000, 0x80000000u, 0xffffffffu};
    constexpr std::uint32_t kGroups[] = {0, 1, 2, 5, 0x400000, 0x3fffff, 0x4000000, 0x10000000, 0xffffffffu};
    constexpr std::uint32_t kBases[] = {0, 0, 0, 0, 0, 0, 1, 0xfffffff0u};
    const std::optional<WaveSize> kWaves[] = {std::nullopt, WaveSize::thread64, WaveSize::thread128};
    std::mt19937 rng(2024);
    const auto pick = [&](const auto& values) { return values[rng() % std::size(values)]; };
    Launch launch{{1, 1, 1}, {64, 2, 1}, std::nullopt};
    int accepted = 0, refused = 0;
    for (int step = 0; step < 3000; ++step) {
      switch (rng() % 6) {
        case 0: break;  // the same launch again
        case 1: launch.local_size[rng() % 3] = pick(kLocals); break;
        case 2: launch.groups[rng() % 3] = pick(kGroups); break;
        case 3:
          if (rng() % 2 == 0) launch.base_group[rng() % 3] = pick(kBases);
          else launch.wave_size = pick(kWaves);
          break;
        default:  // back to a launch both programs take
          launch = Launch{{static_cast<std::uint32_t>(1 + rng() % 3), static_cast<std::uint32_t>(1 + rng() % 2), 1}, {64, 2, 1}, pick(kWaves)};
      }
      const bool use_fixed = rng() % 3 == 0;
      const std::uint32_t(&compiled)[3] = use_fixed ? fixed_metadata.fixed_local_size : free_metadata.fixed_local_size;
      bool valid = true;
      std::uint64_t invocations = 1, fibers = 1;
      for (unsigned axis = 0; axis < 3; ++axis) {
        const std::uint64_t local = launch.local_size[axis], groups = launch.groups[axis];
        valid = valid && local >= 1 && local <= 1024 && groups >= 1 && local * groups <= 0xffffffffu;
        valid = valid && (compiled[axis] == 0 || local == compiled[axis]);
        valid = valid && launch.base_group[axis] == 0;  // neither program reads a base group
        invocations *= std::min<std::uint64_t>(local, 1u << 20);
        fibers *= std::min<std::uint64_t>(local * groups, 1u << 20);
      }
      valid = valid && invocations <= 1024;
      // Accepted launches run when the queue submits: the large ones are judged but not run.
      if (valid && fibers > 1u << 16) continue;
      INFO("step " << step << (use_fixed ? ", fixed" : ", free") << ": groups " << launch.groups[0] << "x" << launch.groups[1] << "x"
                   << launch.groups[2] << ", local " << launch.local_size[0] << "x" << launch.local_size[1] << "x"
                   << launch.local_size[2] << ", base " << launch.base_group[0] << "," << launch.base_group[1] << ","
                   << launch.base_group[2]);
      const std::uint64_t before = queue.impl().stream().dwords_written();
      bool dispatched = true;
      try {
        queue.dispatch(use_fixed ? fixed : free, use_fixed ? fixed_arguments : free_arguments, launch);
      } catch (const Error& error) {
        INFO(error.what());
        CHECK((error.code() == Errc::invalid_argument || error.code() == Errc::unsupported));
        dispatched = false;
      }
      REQUIRE(dispatched == valid);
      // A refused launch records nothing, an accepted one its dispatch.
      CHECK((queue.impl().stream().dwords_written() > before) == valid);
      (valid ? accepted : refused) += 1;
      if (valid && accepted % 8 == 0) {
        // Its grid as a6xx.xml lays SP_CS_NDRANGE_0 out: KERNELDIM 3 in bits 0-1, then each
        // local size - 1 in ten bits from bits 2, 12 and 22 (packed without a per-dispatch check).
        const RecordedStream rec = record_of(queue);
        CHECK(rec.value(r::SP_CS_NDRANGE_0) == (3u | (launch.local_size[0] - 1) << 2 | (launch.local_size[1] - 1) << 12 |
                                                (launch.local_size[2] - 1) << 22));
        CHECK(rec.value(r::SP_CS_NDRANGE_1) == launch.local_size[0] * launch.groups[0]);
        CHECK(rec.value(r::SP_CS_NDRANGE_5) == launch.local_size[2] * launch.groups[2]);
        const auto exec = rec.all(Opcode::CP_EXEC_CS);
        REQUIRE(!exec.empty());
        CHECK(exec.back()->payload == std::vector<std::uint32_t>{0, launch.groups[0], launch.groups[1], launch.groups[2]});
      }
      if (step % 250 == 249) queue.finish(std::chrono::seconds(30));
    }
    queue.finish(std::chrono::seconds(30));
    CHECK(accepted > 200);
    CHECK(refused > 200);
  }
  device.close_and_check_ledger();
}
