// [virtual-kernel] GPU faults through KgslKernel: a faulting context is invalidated the way
// KGSL does it (WAITTIMESTAMP and GPU_COMMAND answer -EDEADLK, GPU_RESET_STAT says GUILTY once),
// the backend reports device_lost with the page faults the driver recorded and keeps it sticky,
// and other contexts carry on. A page fault alone invalidates nothing: under the default policy
// the driver logs it and the timestamp retires (kgsl_iommu.c kgsl_iommu_fault_handler).
#include "kgsl_test_support.h"

#include "kgsl/kgsl_abi.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>

#include <fmt/format.h>

using namespace kgsl_test;
using namespace std::chrono_literals;

namespace {

void require_device_lost(Kernel& k, Kernel::ContextId ctx, std::uint64_t fence) {
  try {
    k.wait(ctx, fence, 5s);
    FAIL("the wait on a faulted context returned");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
    CHECK(error.sys_errno() == EDEADLK);
    CHECK(error.operation() == "KGSL IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID");
    CHECK(error.detail().find("context " + std::to_string(ctx)) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("a GPU write to a read-only buffer is a page fault: dropped, the timestamp retires, the context goes on",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(13);
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo readonly = k.alloc(4096, BoFlags{MemoryType::write_combined, true});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView readonly_view = k.map(readonly);
  CpuView data_view = k.map(data);
  const std::uint32_t original = rng(), after = rng(), next = rng();
  std::memcpy(readonly_view.data(), &original, 4);

  // The write is dropped; the rest of the stream still runs.
  const IbRef ib = write_ib(cmd, cmd_view, 0, concat({mem_write(readonly.gpu, {~original}), mem_write(data.gpu, {after})}));
  CHECK(k.wait(ctx, k.submit(ctx, std::span(&ib, 1), {}), 5s));
  CHECK(read32(readonly_view, 0) == original);
  CHECK(read32(data_view, 0) == after);
  CHECK(k.reset_status(ctx) == ResetStatus::none);
  const IbRef more = write_ib(cmd, cmd_view, 256, mem_write(data.gpu + 4, {next}));
  CHECK(k.wait(ctx, k.submit(ctx, std::span(&more, 1), {}), 5s));
  CHECK(read32(data_view, 1) == next);

  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(readonly, readonly_view);
  k.unmap(data, data_view);
  for (const Bo* bo : {&cmd, &readonly, &data}) k.free(*bo);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a CP error faults its context only: device_lost, guilty, others run on", "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(19);
  const auto guilty = k.create_context(0);
  const auto bystander = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);

  const IbRef bad = write_ib(cmd, cmd_view, 0, illegal_packet());
  const auto fence = k.submit(guilty, std::span(&bad, 1), {});
  require_device_lost(k, guilty, fence);
  CHECK(k.reset_status(guilty) == ResetStatus::guilty);
  // The driver clears the status once read; the backend keeps device loss sticky.
  CHECK(k.reset_status(guilty) == ResetStatus::guilty);
  require_device_lost(k, guilty, fence);

  // Submitting to the invalidated context is refused with -EDEADLK.
  const IbRef good = write_ib(cmd, cmd_view, 256, mem_write(data.gpu, {std::uint32_t(rng())}));
  try {
    k.submit(guilty, std::span(&good, 1), {});
    FAIL("an invalidated context accepted a submission");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
    CHECK(error.sys_errno() == EDEADLK);
    CHECK(error.operation() == "KGSL IOCTL_KGSL_GPU_COMMAND");
  }

  const std::uint32_t value = rng();
  const IbRef other = write_ib(cmd, cmd_view, 512, mem_write(data.gpu + 4, {value}));
  CHECK(k.wait(bystander, k.submit(bystander, std::span(&other, 1), {}), 5s));
  CHECK(read32(data_view, 1) == value);
  CHECK(k.reset_status(bystander) == ResetStatus::none);

  // A new context works too: the fault was confined to the guilty context.
  const auto fresh = k.create_context(1);
  const std::uint32_t fresh_value = rng();
  const IbRef third = write_ib(cmd, cmd_view, 768, mem_write(data.gpu + 8, {fresh_value}));
  CHECK(k.wait(fresh, k.submit(fresh, std::span(&third, 1), {}), 5s));
  CHECK(read32(data_view, 2) == fresh_value);

  for (auto ctx : {guilty, bystander, fresh}) k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a lost context's error names the page faults the driver kept for it (KGSL_CONTEXT_FAULT_INFO)",
          "[virtual-kernel][kgsl]") {
  // The contexts are made with FAULT_INFO, so kgsl_iommu_add_fault_info keeps their page faults
  // and GET_FAULT_REPORT hands them out once the context is invalidated.
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  const auto ctx = k.create_context(2);
  const auto ledger = v.sys.ledger();
  const auto context = std::find_if(ledger.begin(), ledger.end(), [&](const virt::LiveObject& object) {
    return object.kind == virt::LiveObject::Kind::context && object.id == ctx;
  });
  REQUIRE(context != ledger.end());
  CHECK((context->flags & KGSL_CONTEXT_FAULT_INFO) != 0);
  const Bo cmd = k.alloc(4096, {});
  const Bo readonly = k.alloc(4096, BoFlags{MemoryType::write_combined, true});
  CpuView cmd_view = k.map(cmd);
  // A write into a hole of the pagetable and one into read-only memory, both dropped; then a CP
  // error that invalidates the context.
  const GpuAddress hole = cmd.gpu + (1ull << 30) + 0x18;
  const IbRef ib =
      write_ib(cmd, cmd_view, 0, concat({mem_write(hole, {1}), mem_write(readonly.gpu + 8, {2}), illegal_packet()}));
  const auto fence = k.submit(ctx, std::span(&ib, 1), {});
  try {
    k.wait(ctx, fence, 5s);
    FAIL("the wait on a faulted context returned");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
    const std::string detail = error.detail();
    CHECK_THAT(detail, Catch::Contains("the driver recorded 2 GPU page faults for it"));
    CHECK_THAT(detail, Catch::Contains(fmt::format("{:#x} (write translation)", hole.value())));
    CHECK_THAT(detail, Catch::Contains(fmt::format("{:#x} (write permission)", (readonly.gpu + 8).value())));
  }
  // The submission refused on the invalidated context says the same.
  try {
    k.submit(ctx, std::span(&ib, 1), {});
    FAIL("an invalidated context accepted a submission");
  } catch (const Error& error) {
    CHECK_THAT(error.detail(), Catch::Contains(fmt::format("{:#x} (write translation)", hole.value())));
  }
  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.free(readonly);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a CP wait that is never satisfied is a hang: device_lost and guilty", "[virtual-kernel][kgsl]") {
  virt::VirtualGpuConfig config;
  config.hang_timeout = 100ms;
  VirtualKgsl v(config);
  Kernel& k = *v.kernel;
  std::mt19937 rng(17);
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  const IbRef ib = write_ib(cmd, cmd_view, 0, wait_memory_equal(data.gpu, rng() | 1));
  const auto fence = k.submit(ctx, std::span(&ib, 1), {});
  require_device_lost(k, ctx, fence);
  CHECK(k.reset_status(ctx) == ResetStatus::guilty);
  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a wait answered -EPROTO retired but marks the context innocent", "[virtual-kernel][kgsl]") {
  // KGSL answers -EPROTO to a context whose work was replayed after another context's fault
  // (adreno.c adreno_waittimestamp). The virtual GPU's rings never share a fault, so the
  // answer is injected in front of the driver.
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  const IbRef ib = write_ib(cmd, cmd_view, 0, {pm4::type7_header(0x10, 0)});
  const auto fence = k.submit(ctx, std::span(&ib, 1), {});
  REQUIRE(k.wait(ctx, fence, 5s));
  v.sys.fail_ioctl(IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, 1, EPROTO);
  CHECK(k.wait(ctx, fence, 5s));
  CHECK(k.reset_status(ctx) == ResetStatus::innocent);
  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("GPU_COMMAND answered -EPROTO after another context's hang queued the work: its fence is recovered",
          "[virtual-kernel][kgsl]") {
  // adreno_dispatch.c adreno_dispatcher_queue_cmds queues the command, then answers -EPROTO to a
  // context that lived through a fault recovery; kgsl_ioctl_helper copies no timestamp out.
  virt::VirtualGpuConfig config;
  config.hang_timeout = 100ms;
  VirtualKgsl v(config);
  Kernel& k = *v.kernel;
  std::mt19937 rng(23);
  const auto guilty = k.create_context(3), innocent = k.create_context(3);  // one ringbuffer
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  std::memset(data_view.data(), 0, 16);
  const IbRef hang = write_ib(cmd, cmd_view, 0, wait_memory_equal(data.gpu + 12, rng() | 1));
  const auto hung = k.submit(guilty, std::span(&hang, 1), {});
  const std::uint32_t first = rng(), second = rng();
  const IbRef behind = write_ib(cmd, cmd_view, 256, mem_write(data.gpu, {first}));
  const auto queued_behind = k.submit(innocent, std::span(&behind, 1), {});  // in flight at the fault
  require_device_lost(k, guilty, hung);
  REQUIRE(k.wait(innocent, queued_behind, 5s));
  const IbRef next = write_ib(cmd, cmd_view, 512, mem_write(data.gpu + 4, {second}));
  const auto fence = k.submit(innocent, std::span(&next, 1), {});  // answered -EPROTO
  CHECK(fence == queued_behind + 1);
  REQUIRE(k.wait(innocent, fence, 5s));
  CHECK(read32(data_view, 0) == first);
  CHECK(read32(data_view, 1) == second);
  CHECK(k.reset_status(innocent) == ResetStatus::innocent);
  for (auto ctx : {guilty, innocent}) k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a timestamp sync point holds a command in the dispatcher while its ringbuffer runs others",
          "[virtual-kernel][kgsl]") {
  // kgsl_drawobj.c drawobj_add_sync_timestamp; priorities 1 and 8 are ringbuffers 0 and 2
  // (adreno_dispatch.c dispatch_get_rb).
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(29);
  const auto producer = k.create_context(0), consumer = k.create_context(7), bystander = k.create_context(7);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  std::memset(data_view.data(), 0, 16);
  const std::uint32_t gate = rng() | 1, a = rng(), b = rng();
  const IbRef held = write_ib(cmd, cmd_view, 0, wait_memory_equal(data.gpu + 12, gate));
  const auto produced = k.submit(producer, std::span(&held, 1), {});
  const IbRef dependent = write_ib(cmd, cmd_view, 256, mem_write(data.gpu, {a}));
  const FenceWait after[] = {{producer, produced}};
  const auto consumed = k.submit(consumer, std::span(&dependent, 1), {}, after);
  const IbRef other = write_ib(cmd, cmd_view, 512, mem_write(data.gpu + 4, {b}));
  REQUIRE(k.wait(bystander, k.submit(bystander, std::span(&other, 1), {}), 5s));
  CHECK(read32(data_view, 1) == b);
  CHECK_FALSE(k.wait(consumer, consumed, 0ns));
  CHECK(read32(data_view, 0) == 0);
  std::memcpy(static_cast<std::byte*>(data_view.data()) + 12, &gate, 4);
  REQUIRE(k.wait(consumer, consumed, 5s));
  CHECK(read32(data_view, 0) == a);
  for (auto ctx : {producer, consumer, bystander}) k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}

TEST_CASE("a context created while another thread destroys one gets the freed id and keeps its own page-fault reports",
          "[virtual-kernel][kgsl]") {
  // KGSL hands out the lowest free context id (kgsl.c _kgsl_get_context_id: idr_alloc from 1), so
  // a context created on another thread as DRAWCTXT_DESTROY returns gets the destroyed id. The
  // destroy must not forget what the backend learnt of the new context then: that the driver
  // keeps its page faults (KGSL_CONTEXT_FAULT_INFO), without which its device_lost error would
  // not name them. The other thread is played by the seam's observer, which runs right after the
  // driver answered DRAWCTXT_DESTROY.
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  const auto destroyed = k.create_context(0);
  std::optional<Kernel::ContextId> created;
  v.sys.set_observer([&](const virt::VirtualSyscalls::Call& call) {
    if (call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && call.request == IOCTL_KGSL_DRAWCTXT_DESTROY &&
        call.result == 0 && !created) {
      created = k.create_context(1);
    }
  });
  k.destroy_context(destroyed);
  v.sys.set_observer({});
  REQUIRE(created);
  REQUIRE(*created == destroyed);  // the id was reused, as the driver does

  const Bo cmd = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  const GpuAddress hole = cmd.gpu + (1ull << 30) + 0x40;
  const IbRef ib = write_ib(cmd, cmd_view, 0, concat({mem_write(hole, {1}), illegal_packet()}));
  const auto fence = k.submit(*created, std::span(&ib, 1), {});
  try {
    k.wait(*created, fence, 5s);
    FAIL("the wait on a faulted context returned");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::device_lost);
    CHECK_THAT(error.detail(), Catch::Contains("the driver recorded 1 GPU page fault for it"));
    CHECK_THAT(error.detail(), Catch::Contains(fmt::format("{:#x} (write translation)", hole.value())));
  }
  k.destroy_context(*created);
  k.unmap(cmd, cmd_view);
  k.free(cmd);
  CHECK(v.close_and_list_leaks().empty());
}
