// [virtual-kernel] GPU faults and hangs as the msm driver reports them: the fence still signals,
// the queue's MSM_SUBMITQUEUE_PARAM_FAULTS and the file's MSM_PARAM_FAULTS count it, and the
// backend turns that into a sticky device_lost for the guilty queue only. A page fault counts
// nowhere: adreno_gpu.c adreno_fault_handler logs it and the GPU goes on.
#include "virtual_msm.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>

#include <cstring>
#include <random>
#include <utility>

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

TEST_CASE("a GPU write to a read-only buffer is a page fault: dropped, counted nowhere, the queue goes on",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(7);
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo ib = kernel->alloc(4096, {});
    Bo read_only = kernel->alloc(4096, BoFlags{MemoryType::write_combined, true});
    Bo data = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib), read_only_view = kernel->map(read_only), data_view = kernel->map(data);
    const std::uint32_t original = rng(), after = rng();
    std::memcpy(read_only_view.data(), &original, 4);
    const IbRef ref = Pm4{}.mem_write(read_only.gpu, {~original}).mem_write(data.gpu, {after}).place(ib, ib_view, 0);
    const BoUse uses[] = {{&read_only, true}, {&data, true}};
    REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), uses), seconds(5)));
    CHECK(read32(read_only_view, 0) == original);
    CHECK(read32(data_view, 0) == after);
    CHECK(kernel->reset_status(ctx) == ResetStatus::none);
    REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), uses), seconds(5)));
    for (auto [bo, view] : {std::pair{&ib, ib_view}, {&read_only, read_only_view}, {&data, data_view}}) {
      kernel->unmap(*bo, view);
      kernel->free(*bo);
    }
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a CP error loses the guilty queue only, and another queue's loss makes no queue innocent",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(9);
  {
    auto kernel = v.open();
    const auto guilty = kernel->create_context(0);
    const auto bystander = kernel->create_context(1);
    Bo ib = kernel->alloc(4096, {});
    Bo data = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib), data_view = kernel->map(data);

    const IbRef bad = Pm4{}.illegal().place(ib, ib_view, 0);
    const std::uint64_t fence = kernel->submit(guilty, std::span(&bad, 1), {});
    require_lost(*kernel, guilty, fence);
    CHECK(kernel->reset_status(guilty) == ResetStatus::guilty);
    // MSM_PARAM_FAULTS moved, but it counts the whole address space's hangs (adreno_gpu.c
    // adreno_get_param: global_faults + vm->faults): it cannot say this queue was affected
    // (Turnip msm_device_check_status reads it only as "the GPU faulted or hung").
    CHECK(kernel->reset_status(bystander) == ResetStatus::none);

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
    for (Bo* bo : {&ib, &data}) kernel->free(*bo);
    for (auto ctx : {guilty, bystander, fresh}) kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("without per-process pagetables another process's fault moves MSM_PARAM_FAULTS, and no queue here is innocent",
          "[virtual-kernel][msm]") {
  // adreno_get_param: MSM_PARAM_FAULTS is gpu->global_faults + the faults of the address space
  // the file uses, which without per-process pagetables is the GPU's one, shared by everyone.
  VirtualMsm v({}, virt::MsmNodeOptions{.per_process_pgtables = false});
  {
    auto guilty_process = v.open(), other_process = v.open();
    const auto guilty = guilty_process->create_context(0);
    const auto bystander = other_process->create_context(0);
    Bo ib = guilty_process->alloc(4096, {});
    CpuView ib_view = guilty_process->map(ib);
    const IbRef bad = Pm4{}.illegal().place(ib, ib_view, 0);
    require_lost(*guilty_process, guilty, guilty_process->submit(guilty, std::span(&bad, 1), {}));
    // A file opened afterwards shares the address space, and its count.
    const int fd = v.sys.open(virt::kVirtualMsmNode, O_RDWR);
    msm::uapi::drm_msm_param param{msm::uapi::MSM_PIPE_3D0, msm::uapi::MSM_PARAM_FAULTS, 0, 0, 0};
    REQUIRE(v.sys.ioctl(fd, msm::uapi::DRM_IOCTL_MSM_GET_PARAM, &param) == 0);
    CHECK(param.value == 1);
    v.sys.close(fd);
    CHECK(other_process->reset_status(bystander) == ResetStatus::none);
    guilty_process->unmap(ib, ib_view);
    guilty_process->free(ib);
    guilty_process->destroy_context(guilty);
    other_process->destroy_context(bystander);
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
