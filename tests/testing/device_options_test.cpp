// [virtual-kernel] The kit opens the virtual device a test asks for: driver, GPU model, priority
// levels, memory limit and the timing-hazard check's mode are what the library then sees through
// the kernel; options it cannot honour are refused by name.
#include "kit_support.h"

#include <adreno/error.hpp>
#include <adreno/graph.hpp>
#include <adreno/program.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <sstream>

using namespace adreno;
using namespace adreno::testing;

namespace {

/// examples/kernels/vector_add.s without the (sy) its add needs: the add reads the loaded values
/// before the loads deliver them (a timing hazard; hardware would add stale registers).
std::string vector_add_without_sync() {
  std::ifstream in(ADRENO_SOURCE_DIR "/examples/kernels/vector_add.s");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("(sy)add.u");
  REQUIRE(at != std::string::npos);
  return text.erase(at, 4);
}

struct HazardRun {
  bool lost = false;        // the queue was lost (the hazard was a shader fault)
  std::size_t wrong = 0;    // elements of c that are not a + b
  std::string log;          // stderr meanwhile
  std::vector<GpuFault> faults;
};

/// Runs the hazardous vector add over random inputs on a fresh test device.
HazardRun run_vector_add_without_sync(const VirtualDeviceOptions& options) {
  VirtualDevice test(options);
  HazardRun run;
  {
    Device& device = test.device();
    CapturedStderr err;
    const Program program = Program::from_ir3_assembly(device, vector_add_without_sync());
    Buffer a = device.allocate({.size = 4096}), b = device.allocate({.size = 4096}), c = device.allocate({.size = 4096});
    std::mt19937 rng(630);
    auto* aw = reinterpret_cast<std::uint32_t*>(a.cpu_view().data());
    auto* bw = reinterpret_cast<std::uint32_t*>(b.cpu_view().data());
    auto* cw = reinterpret_cast<std::uint32_t*>(c.cpu_view().data());
    for (int i = 0; i < 1024; ++i) aw[i] = rng(), bw[i] = rng(), cw[i] = 0;
    Arguments arguments(program);
    arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b);
    Queue queue(device);
    Launch launch;
    launch.groups[0] = 16;
    launch.local_size[0] = 64;
    queue.dispatch(program, arguments, launch);
    try {
      queue.finish();
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
      run.lost = true;
    }
    for (int i = 0; i < 1024; ++i) run.wrong += cw[i] != aw[i] + bw[i];
    run.log = err.text();
  }
  run.faults = test.faults();
  close_without_leaks(test);
  return run;
}

/// Sets an environment variable for one scope.
struct ScopedEnvironment {
  ScopedEnvironment(const char* name, const char* value) : name(name) { ::setenv(name, value, 1); }
  ~ScopedEnvironment() { ::unsetenv(name); }
  const char* name;
};

}  // namespace

TEST_CASE("a test device is the driver and GPU model the options name", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const auto model = GENERATE(as<std::string>{}, "a630", "a640", "a660");
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  const DeviceInfo& info = test.device().info();
  CHECK(info.is_virtual);
  CHECK(info.backend == driver_name(driver));
  CHECK("a" + std::to_string(info.gpu_id) == model);
  // The device node was opened through the kit's seam, and the open is in the log.
  const auto opens = test.calls(Operation::open);
  REQUIRE(opens.size() == 1);
  CHECK(opens[0].arguments == (driver == Driver::kgsl ? "path=/dev/kgsl-3d0" : "path=/dev/dri/renderD128"));
  close_without_leaks(test);
}

TEST_CASE("an unknown GPU model is refused naming it", "[virtual-kernel][testing]") {
  try {
    VirtualDevice test({.driver = EACH_DRIVER(), .model = "a999"});
    FAIL("a999 opened");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::invalid_argument);
    CHECK(std::string(error.what()).find("a999") != std::string::npos);
  }
}

TEST_CASE("MSM priority levels are what MSM_PARAM_PRIORITIES reports, 3 per ring, each reaching SUBMITQUEUE_NEW",
          "[virtual-kernel][testing]") {
  const unsigned levels = GENERATE(3u, 12u);
  CAPTURE(levels);
  VirtualDevice test({.driver = Driver::msm, .priority_levels = levels});
  CHECK(test.device().info().priority_levels == levels);
  {
    // Every level exists, and the kernel is asked for exactly it: msm_drm.h
    // drm_msm_submitqueue.prio is the queue's priority, 0 the highest, and
    // msm_gpu.h msm_gpu_convert_priority takes it as given (ring prio / 3).
    for (unsigned priority = 0; priority < levels; ++priority) {
      CAPTURE(priority);
      test.clear_log();
      Queue queue(test.device(), {.priority = priority});
      const auto created = test.calls(Operation::create_context);
      REQUIRE(created.size() == 1);
      CHECK(created[0].arguments == "flags=0x0 prio=" + std::to_string(priority));
      CHECK(created[0].error == 0);
      // The virtual node keeps the priority it was given (the ledger's context flags).
      bool listed = false;
      for (const KernelObject& object : test.ledger()) {
        if (object.kind != KernelObject::Kind::context || object.id != created[0].object) continue;
        CHECK(object.flags == priority);
        listed = true;
      }
      CHECK(listed);
    }
    CHECK_THROWS_AS(Queue(test.device(), {.priority = levels}), Error);
  }
  close_without_leaks(test);
}

TEST_CASE("KGSL queue priorities reach DRAWCTXT_CREATE as KGSL_CONTEXT_PRIORITY 1 (highest) to 15 (lowest)",
          "[virtual-kernel][testing]") {
  // msm_kgsl.h: KGSL_CONTEXT_PRIORITY_MASK 0x0000F000, KGSL_CONTEXT_PRIORITY_SHIFT 12, 0 means
  // unset (adreno_drawctxt.c adreno_drawctxt_create then stores KGSL_CONTEXT_PRIORITY_MED, 8);
  // the smaller the number, the higher the priority (adreno.h adreno_get_level: ringbuffer
  // priority / KGSL_PRIORITY_MAX_RB_LEVELS, ringbuffer 0 preempts the others). The library's 15
  // levels are KGSL's 1..15; the default queue takes the middle one, 8.
  const auto [priority, field] = GENERATE(table<std::optional<unsigned>, std::uint32_t>({
      {0u, 0x1000},  // highest
      {1u, 0x2000},
      {7u, 0x8000},  // middle
      {std::nullopt, 0x8000},
      {13u, 0xe000},
      {14u, 0xf000},  // lowest
  }));
  CAPTURE(priority.value_or(99), field);
  VirtualDevice test({.driver = Driver::kgsl});
  CHECK(test.device().info().priority_levels == 15);
  {
    test.clear_log();
    Queue queue(test.device(), {.priority = priority});
    const auto created = test.calls(Operation::create_context);
    REQUIRE(created.size() == 1);
    CHECK(created[0].error == 0);
    REQUIRE(created[0].arguments.rfind("flags=0x", 0) == 0);
    const auto flags = static_cast<std::uint32_t>(std::stoul(created[0].arguments.substr(8), nullptr, 16));
    CHECK((flags & 0xf000) == field);
    // The driver kept it: the context's flags in the ledger.
    bool listed = false;
    for (const KernelObject& object : test.ledger()) {
      if (object.kind != KernelObject::Kind::context || object.id != created[0].object) continue;
      CHECK((object.flags & 0xf000) == field);
      listed = true;
    }
    CHECK(listed);
  }
  CHECK_THROWS_AS(Queue(test.device(), {.priority = 15u}), Error);
  close_without_leaks(test);
}

TEST_CASE("priority levels the driver cannot report are refused", "[virtual-kernel][testing]") {
  // KGSL has no priority query; MSM reports whole rings of 3.
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::kgsl, .priority_levels = 3}), Error);
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::msm, .priority_levels = 4}), Error);
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::msm, .priority_levels = 0}), Error);
}

TEST_CASE("the hazard check is chosen per device: on and exhaustive fault the hazardous kernel, warn logs it and runs, off runs",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  const HazardRun on = run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::on});
  CHECK(on.lost);
  REQUIRE(on.faults.size() == 1);
  CHECK(on.faults[0].kind == GpuFault::Kind::shader_error);
  CHECK_THAT(on.faults[0].message, Catch::Contains("timing hazard"));
  // exhaustive faults it the same way (it checks more programs than on, never fewer).
  const HazardRun exhaustive = run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::exhaustive});
  CHECK(exhaustive.lost);
  REQUIRE(exhaustive.faults.size() == 1);
  CHECK(exhaustive.faults[0].message == on.faults[0].message);

  // warn: each hazard (the add reads both loaded registers early) logged once, not once per
  // fiber or work group; the virtual GPU, which runs each instruction to completion, still
  // computes the sums.
  const HazardRun warn = run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::warn});
  CHECK_FALSE(warn.lost);
  CHECK(warn.wrong == 0);
  CHECK(warn.faults.empty());
  std::vector<std::string> warnings;
  std::istringstream lines(warn.log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("adreno: warning: timing hazard") != std::string::npos) warnings.push_back(line);
  }
  REQUIRE_FALSE(warnings.empty());
  CHECK_THAT(warnings[0], Catch::Contains("fix: add (sy)"));
  CHECK(std::set<std::string>(warnings.begin(), warnings.end()).size() == warnings.size());
  CHECK(warnings.size() <= 2);

  const HazardRun off = run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::off});
  CHECK_FALSE(off.lost);
  CHECK(off.wrong == 0);
  CHECK(off.faults.empty());
  CHECK(off.log.find("timing hazard") == std::string::npos);
}

TEST_CASE("the hazard check follows ADRENO_VIRTUAL_HAZARDS by default, and a device's own mode overrides it",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  CHECK(run_vector_add_without_sync({.driver = driver, .model = model}).lost);  // unset: on
  {
    const ScopedEnvironment off("ADRENO_VIRTUAL_HAZARDS", "off");
    CHECK_FALSE(run_vector_add_without_sync({.driver = driver, .model = model}).lost);
    CHECK(run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::on}).lost);
  }
  const ScopedEnvironment warn("ADRENO_VIRTUAL_HAZARDS", "warn");
  const HazardRun from_environment = run_vector_add_without_sync({.driver = driver, .model = model});
  CHECK_FALSE(from_environment.lost);
  CHECK_THAT(from_environment.log, Catch::Contains("timing hazard"));
  CHECK(run_vector_add_without_sync({.driver = driver, .model = model, .hazards = HazardCheck::on}).lost);
}

TEST_CASE("allocations past the memory limit fail with ENOMEM and succeed again once memory is freed",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  constexpr std::uint64_t kLimit = 1 << 20;
  VirtualDevice test({.driver = driver, .model = model, .memory_limit = kLimit});
  Device& device = test.device();
  std::optional<Buffer> half = own_object(device, kLimit / 2);
  try {
    own_object(device, kLimit);
    FAIL("an allocation past the limit succeeded");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::out_of_memory);
    CHECK(error.sys_errno() == ENOMEM);
  }
  const auto allocs = test.calls(Operation::alloc);
  REQUIRE(allocs.size() >= 2);
  CHECK(allocs.back().error == ENOMEM);
  CHECK_FALSE(allocs.back().injected);  // the kernel ran out; no plan made it fail
  CHECK(allocs.back().size == kLimit);
  // Exactly at the limit is fine once the half is back with the kernel.
  half.reset();
  CHECK(own_object(device, kLimit).size() == kLimit);
  close_without_leaks(test);
}

TEST_CASE("on 16 KiB kernel pages every kernel object is whole pages, and dispatches and graph replays compute right",
          "[virtual-kernel][testing]") {
  // arm64 kernels may be built with 16 KiB pages: the drivers then round every object to them
  // (kgsl_sharedmem.c kgsl_alloc_pages, msm_gem.c msm_gem_new's PAGE_ALIGN) and KGSL maps object
  // N at N pages (kgsl.c kgsl_mmap). The library's allocator, slabs and command memory run as
  // they do on 4 KiB pages; a mapping at the wrong offset or an object the library sized by
  // 4 KiB would fail here.
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model, .page_size = 16384});
  {
    Device& device = test.device();
    std::ifstream in(ADRENO_SOURCE_DIR "/examples/kernels/vector_add.s");
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Program program = Program::from_ir3_assembly(device, source);
    std::mt19937 rng(16384);
    constexpr std::size_t kCount = 1024;
    // Small buffers come from shared slabs, the large one is an object of its own and not a
    // multiple of 16 KiB.
    std::vector<Buffer> inputs;
    for (std::uint64_t size : {4096u, 4096u, 4096u, 4096u, 20480u}) inputs.push_back(device.allocate({.size = size}));
    Buffer c = device.allocate({.size = kCount * 4}), d = device.allocate({.size = kCount * 4});
    for (Buffer& buffer : inputs) {
      auto* words = reinterpret_cast<std::uint32_t*>(buffer.cpu_view().data());
      for (std::size_t i = 0; i < buffer.size() / 4; ++i) words[i] = rng();
    }
    const auto expect_sum = [&](const Buffer& out, const Buffer& a, const Buffer& b) {
      const auto got = read_back(out, kCount), x = read_back(a, kCount), y = read_back(b, kCount);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < kCount; ++i) wrong += got[i] != x[i] + y[i];
      CHECK(wrong == 0);
    };
    Launch launch;
    launch.groups[0] = kCount / 64;
    launch.local_size[0] = 64;
    Queue queue(device);
    Arguments arguments(program);
    arguments.set_buffer(0, c).set_buffer(1, inputs[0]).set_buffer(2, inputs[4]);
    queue.dispatch(program, arguments, launch);
    queue.finish();
    expect_sum(c, inputs[0], inputs[4]);

    Graph graph(device);
    const GraphDispatch dispatch = graph.dispatch(program, arguments, launch);
    graph.build();
    graph.set_buffer(dispatch, 0, d);
    graph.set_buffer(dispatch, 1, inputs[1]);
    graph.set_buffer(dispatch, 2, inputs[2]);
    graph.replay(queue);
    queue.finish();
    expect_sum(d, inputs[1], inputs[2]);
    graph.set_buffer(dispatch, 1, inputs[3]);
    graph.replay(queue);
    queue.finish();
    expect_sum(d, inputs[3], inputs[2]);

    std::size_t buffers = 0;
    for (const KernelObject& object : test.ledger()) {
      if (object.kind != KernelObject::Kind::buffer) continue;
      ++buffers;
      CAPTURE(object.description, object.size);
      CHECK(object.size % 16384 == 0);
      CHECK(object.address % 16384 == 0);
    }
    CHECK(buffers > 0);
  }
  close_without_leaks(test);
}

TEST_CASE("a page size the virtual kernels do not have is refused naming it", "[virtual-kernel][testing]") {
  try {
    VirtualDevice test({.driver = EACH_DRIVER(), .page_size = 8192});
    FAIL("an 8 KiB page size was accepted");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::unsupported);
    CHECK_THAT(error.what(), Catch::Matchers::Contains("page_size 8192"));
  }
}
