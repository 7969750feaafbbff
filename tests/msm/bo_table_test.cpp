// [virtual-kernel] The virtual msm node is stricter than hardware: every GPU access of a
// submission — CP fetches and writes, shader loads and stores — must land in a buffer object of
// its GEM_SUBMIT table, or the submission faults like a page fault. The same streams and shaders
// run on the virtual KGSL device, which has no table.
#include "../core/virtual_device.h"
#include "../kgsl/kgsl_test_support.h"
#include "virtual_msm.h"

#include <adreno/adreno.hpp>
#include <adreno/error.hpp>
#include <adreno/program.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

using namespace adreno;
using namespace msm_test;
using std::chrono::seconds;

namespace {

// Opcodes: Mesa adreno_pm4.xml.
constexpr std::uint32_t CP_INDIRECT_BUFFER = 0x3f, CP_MEM_TO_MEM = 0x73;

/// How the stream reaches the buffer object that may be missing from the table.
enum class Reach { mem_to_mem_source, ib2 };

const char* to_string(Reach reach) { return reach == Reach::mem_to_mem_source ? "CP_MEM_TO_MEM source" : "IB2"; }

/// One submission on `ctx` that puts `value` into `result` by way of `other`: CP_MEM_TO_MEM copies
/// it out of `other`, or an IB2 stored in `other` writes it. The table holds the IB's object and
/// `result`, and `other` only when `list_other`. Returns the word left in `result`, or nullopt when
/// the context was lost.
std::optional<std::uint32_t> copy_through(Kernel& kernel, Kernel::ContextId ctx, Reach reach, bool list_other,
                                          std::uint32_t value) {
  Bo ib = kernel.alloc(4096, {}), result = kernel.alloc(4096, {}), other = kernel.alloc(4096, {});
  CpuView ib_view = kernel.map(ib), result_view = kernel.map(result), other_view = kernel.map(other);
  std::memset(result_view.data(), 0, 4);

  Pm4 stream;
  if (reach == Reach::mem_to_mem_source) {
    std::memcpy(other_view.data(), &value, 4);
    stream.words = {type7_header(CP_MEM_TO_MEM, 5), 0, result.gpu.lo(), result.gpu.hi(), other.gpu.lo(), other.gpu.hi()};
  } else {
    const Pm4 inner = Pm4{}.mem_write(result.gpu, {value});
    std::memcpy(other_view.data(), inner.words.data(), inner.words.size() * 4);
    stream.words = {type7_header(CP_INDIRECT_BUFFER, 3), other.gpu.lo(), other.gpu.hi(),
                    static_cast<std::uint32_t>(inner.words.size())};
  }
  const IbRef ref = stream.place(ib, ib_view, 0);
  std::vector<BoUse> uses{{&result, true}};
  if (list_other) uses.push_back({&other, false});

  std::optional<std::uint32_t> left;
  try {
    const bool retired = kernel.wait(ctx, kernel.submit(ctx, std::span(&ref, 1), uses), seconds(10));
    CHECK(retired);
    if (retired) left = read32(result_view, 0);
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
  }
  kernel.unmap(ib, ib_view);
  kernel.unmap(result, result_view);
  kernel.unmap(other, other_view);
  for (Bo* bo : {&ib, &result, &other}) kernel.free(*bo);
  return left;
}

}  // namespace

TEST_CASE("a CP read of a buffer object missing from the submission's table faults on virtual MSM but runs on virtual KGSL",
          "[virtual-kernel][msm]") {
  std::mt19937 rng(20261202);
  for (Reach reach : {Reach::mem_to_mem_source, Reach::ib2}) {
    INFO(to_string(reach));
    const std::uint32_t value = rng() | 1;
    {
      kgsl_test::VirtualKgsl k;
      const auto ctx = k.kernel->create_context(0);
      CHECK(copy_through(*k.kernel, ctx, reach, false, value) == value);
      CHECK(k.kernel->reset_status(ctx) == ResetStatus::none);
      k.kernel->destroy_context(ctx);
      CHECK(k.close_and_list_leaks().empty());
    }
    VirtualMsm m;
    {
      auto kernel = m.open();
      const auto ctx = kernel->create_context(0);
      CHECK_FALSE(copy_through(*kernel, ctx, reach, false, value).has_value());
      CHECK(kernel->reset_status(ctx) == ResetStatus::guilty);
      // What went down really lacked the object: the IB's object and `result` only.
      const auto submissions = m.recorder.submissions();
      REQUIRE(submissions.size() == 1);
      CHECK(submissions[0].bos.size() == 2);
      kernel->destroy_context(ctx);
    }
    CHECK(m.sys.leaks().empty());
  }
}

TEST_CASE("the same CP reads run on virtual MSM once the buffer object is listed", "[virtual-kernel][msm]") {
  std::mt19937 rng(7);
  VirtualMsm m;
  {
    auto kernel = m.open();
    const auto ctx = kernel->create_context(0);
    for (Reach reach : {Reach::mem_to_mem_source, Reach::ib2}) {
      INFO(to_string(reach));
      const std::uint32_t value = rng() | 1;
      CHECK(copy_through(*kernel, ctx, reach, true, value) == value);
    }
    CHECK(kernel->reset_status(ctx) == ResetStatus::none);
    kernel->destroy_context(ctx);
  }
  CHECK(m.sys.leaks().empty());
}

TEST_CASE("after a bo-table fault the file's other queues and files keep working and nothing leaks", "[virtual-kernel][msm]") {
  std::mt19937 rng(99);
  VirtualMsm m;
  {
    auto kernel = m.open(), second_file = m.open();
    const auto guilty = kernel->create_context(0), bystander = kernel->create_context(1);
    const auto elsewhere = second_file->create_context(0);
    CHECK_FALSE(copy_through(*kernel, guilty, Reach::ib2, false, rng() | 1).has_value());
    CHECK(kernel->reset_status(guilty) == ResetStatus::guilty);
    CHECK(kernel->reset_status(bystander) == ResetStatus::none);  // MSM_PARAM_FAULTS names nobody
    for (Reach reach : {Reach::mem_to_mem_source, Reach::ib2}) {
      INFO(to_string(reach));
      const std::uint32_t a = rng() | 1, b = rng() | 1;
      CHECK(copy_through(*kernel, bystander, reach, true, a) == a);
      CHECK(copy_through(*second_file, elsewhere, reach, true, b) == b);
    }
    CHECK(second_file->reset_status(elsewhere) == ResetStatus::none);
    for (auto ctx : {guilty, bystander}) kernel->destroy_context(ctx);
    second_file->destroy_context(elsewhere);
  }
  CHECK(m.sys.leaks().empty());
}

namespace {

/// A kernel with one buffer argument that stores `value` at `target` — an address it gets as a
/// constant, so binding the argument decides only whether the target's object is in the table.
Program storing_program(Device& device, GpuAddress target, std::uint32_t value) {
  char source[512];
  std::snprintf(source, sizeof source,
                "@localsize 1, 1, 1\n"
                "@buf 4 (c0.x)\n"
                "@const(c1.x) 0x%x, 0x%x, 0x%x, 0\n"
                "    mov.u32u32 r0.x, c1.x\n"
                "    mov.u32u32 r0.y, c1.y\n"
                "    mov.u32u32 r0.z, c1.z\n"
                "    mov.u32u32 r0.w, 0\n"
                "    (rpt5)nop\n"
                "    stg.a.u32 g[r0.x+(r0.w<<2)], r0.z, 1\n"
                "    end\n",
                target.lo(), target.hi(), value);
  return Program::from_ir3_assembly(device, source);
}

}  // namespace

TEST_CASE("a shader storing to a buffer that no argument names faults on virtual MSM but runs on virtual KGSL",
          "[virtual-kernel][msm]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  VirtualDevice device(backend);
  {
    std::mt19937 rng(4242);
    const std::uint32_t value = rng() | 1;
    // A kernel object of its own, so that no other buffer's submission entry covers it.
    Buffer target = device->allocate({.size = 4096, .exportable = true});
    Buffer unrelated = device->allocate({.size = 4096});
    std::memset(target.cpu_view().data(), 0, 4096);
    Program program = storing_program(*device, target.gpu_address(), value);
    Arguments arguments(program);
    arguments.set_buffer(0, unrelated);
    {
      Queue queue(*device);
      queue.dispatch(program, arguments, Launch{});
      if (backend == "virtual-msm") {
        try {
          queue.finish(seconds(30));
          FAIL("a store outside the submission's table retired");
        } catch (const Error& error) {
          CHECK(error.code() == Errc::device_lost);
        }
        CHECK(target.cpu_view().as<std::uint32_t>()[0] == 0);
      } else {
        queue.finish(seconds(30));
        CHECK(target.cpu_view().as<std::uint32_t>()[0] == value);
      }
    }
    // Binding the target lists it: the same store runs on both, on a fresh queue.
    std::memset(target.cpu_view().data(), 0, 4096);
    arguments.set_buffer(0, target);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{});
    queue.finish(seconds(30));
    CHECK(target.cpu_view().as<std::uint32_t>()[0] == value);
  }
  device.close_and_check_ledger();
}
