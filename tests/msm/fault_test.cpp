// [virtual-kernel] GPU faults and hangs as the msm driver reports them: the fence still signals,
// the queue's MSM_SUBMITQUEUE_PARAM_FAULTS and the file's MSM_PARAM_FAULTS count it, and the
// backend turns that into a sticky device_lost for the guilty queue only.
#include "virtual_msm.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include <random>

using namespace adreno;
using namespace msm_test;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

void require_lost(Kernel& kernel, Kernel::ContextId ctx, std::uint64_t fence) {
  try {
    kernel.wait(ctx, fence, seconds(5));
    FAIL("wait on a faulted queue returned");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
    CHECK(error.detail().find("submitqueue " + std::to_string(ctx)) != std::string::npos);
    CHECK(error.detail().find("MSM_SUBMITQUEUE_PARAM_FAULTS = 1") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("a GPU write to a read-only buffer loses the guilty queue only", "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(9);
  {
    auto kernel = v.open();
    const auto guilty = kernel->create_context(0);
    const auto bystander = kernel->create_context(1);
    Bo ib = kernel->alloc(4096, {});
    Bo read_only = kernel->alloc(4096, BoFlags{MemoryType::write_combined, true});
    Bo data = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib), data_view = kernel->map(data);

    const IbRef bad = Pm4{}.mem_write(read_only.gpu, {static_cast<std::uint32_t>(rng())}).place(ib, ib_view, 0);
    const BoUse bad_use{&read_only, true};
    const std::uint64_t fence = kernel->submit(guilty, std::span(&bad, 1), std::span(&bad_use, 1));
    require_lost(*kernel, guilty, fence);
    CHECK(kernel->reset_status(guilty) == ResetStatus::guilty);
    CHECK(kernel->reset_status(bystander) == ResetStatus::innocent);

    // Lost is sticky: no more waits or submissions on the guilty queue.
    require_lost(*kernel, guilty, fence);
    try {
      kernel->submit(guilty, std::span(&bad, 1), {});
      FAIL("submitted to a lost queue");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }

    // The other queue keeps working.
    const std::uint32_t value = rng();
    const IbRef good = Pm4{}.mem_write(data.gpu, {value}).place(ib, ib_view, 512);
    const BoUse use{&data, true};
    REQUIRE(kernel->wait(bystander, kernel->submit(bystander, std::span(&good, 1), std::span(&use, 1)), seconds(5)));
    CHECK(read32(data_view, 0) == value);
    // A queue made after the fault has seen no reset.
    const auto fresh = kernel->create_context(2);
    CHECK(kernel->reset_status(fresh) == ResetStatus::none);

    kernel->unmap(ib, ib_view);
    kernel->unmap(data, data_view);
    for (Bo* bo : {&ib, &read_only, &data}) kernel->free(*bo);
    for (auto ctx : {guilty, bystander, fresh}) kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a CP wait that is never satisfied is a hang: device_lost", "[virtual-kernel][msm]") {
  virt::VirtualGpuConfig config;
  config.hang_timeout = milliseconds(200);
  VirtualMsm v(config);
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo bo = kernel->alloc(4096, {});
    CpuView view = kernel->map(bo);
    const IbRef ref = Pm4{}.wait_equal(bo.gpu + 2048, 1).place(bo, view, 0);
    require_lost(*kernel, ctx, kernel->submit(ctx, std::span(&ref, 1), {}));
    CHECK(kernel->reset_status(ctx) == ResetStatus::guilty);
    kernel->unmap(bo, view);
    kernel->free(bo);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a wait that runs out of time returns false, and the same fence completes later",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(21);
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo bo = kernel->alloc(4096, {});
    CpuView view = kernel->map(bo);
    const std::uint32_t value = rng();
    // Wait for the CPU to store 1 at dword 512, then write the value to dword 513.
    const IbRef ref = Pm4{}.wait_equal(bo.gpu + 2048, 1).mem_write(bo.gpu + 2052, {value}).place(bo, view, 0);
    const std::uint64_t fence = kernel->submit(ctx, std::span(&ref, 1), {});
    CHECK_FALSE(kernel->wait(ctx, fence, milliseconds(50)));
    CHECK(read32(view, 513) == 0);
    const std::uint32_t go = 1;
    std::memcpy(view.data() + 2048, &go, 4);
    REQUIRE(kernel->wait(ctx, fence, seconds(5)));
    CHECK(read32(view, 513) == value);
    kernel->unmap(bo, view);
    kernel->free(bo);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("freeing an object a pending submission uses keeps its memory until the submission retires",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(33);
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo control = kernel->alloc(4096, {});
    Bo target = kernel->alloc(4096, {});
    CpuView control_view = kernel->map(control);
    // Wait for the CPU's go, then write into `target`, which is freed in between.
    const IbRef ref = Pm4{}.wait_equal(control.gpu + 2048, 1).mem_write(target.gpu, {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())}).place(control, control_view, 0);
    const BoUse use{&target, true};
    const std::uint64_t fence = kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1));
    kernel->free(target);
    const std::uint32_t go = 1;
    std::memcpy(control_view.data() + 2048, &go, 4);
    REQUIRE(kernel->wait(ctx, fence, seconds(5)));  // no page fault: the table held `target`
    CHECK(kernel->reset_status(ctx) == ResetStatus::none);
    kernel->unmap(control, control_view);
    kernel->free(control);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}
