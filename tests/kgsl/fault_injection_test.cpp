// [virtual-kernel] Every ioctl KgslKernel issues, made to fail with each errno the driver can
// return: the backend reports a typed error naming the operation and the errno, and leaks
// nothing. Injection happens in the seam in front of the driver, behind the seam's retry of
// EINTR and EAGAIN (sys::retry_transient): those reach the backend only where it asks once —
// the wait, whose relative timeout must shrink before it is asked again.
#include "kgsl_test_support.h"

#include "../injected_errnos.h"
#include "kgsl/kgsl_abi.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>

using namespace kgsl_test;
using namespace std::chrono_literals;

namespace {

/// A kernel with one context, a mapped command buffer with a retired submission, a spare
/// buffer, a dma-buf and a page of user memory: everything any operation below needs.
struct Scene {
  Scene() {
    ctx = k.create_context(0);
    cmd = k.alloc(4096, {});
    view = k.map(cmd);
    spare = k.alloc(4096, {});
    ib = write_ib(cmd, view, 0, {pm4::type7_header(0x10, 0)});
    fence = k.submit(ctx, std::span(&ib, 1), {});
    REQUIRE(k.wait(ctx, fence, 5s));
    dmabuf = ::memfd_create("kgsl-injection", MFD_CLOEXEC);
    REQUIRE(::ftruncate(dmabuf, 4096) == 0);
    user = std::aligned_alloc(4096, 4096);
  }
  /// Releases the scene (what a failed operation left behind is still the scene's) and returns
  /// the ledger.
  std::vector<std::string> tear_down() {
    k.unmap(cmd, view);
    k.free(cmd);
    k.free(spare);
    k.destroy_context(ctx);
    ::close(dmabuf);
    std::free(user);
    return v.close_and_list_leaks();
  }

  VirtualKgsl v;
  Kernel& k = *v.kernel;
  Kernel::ContextId ctx;
  Bo cmd, spare;
  CpuView view;
  IbRef ib;
  std::uint64_t fence;
  int dmabuf;
  void* user;
};

struct Operation {
  const char* name;            // what the test calls it
  unsigned long request;       // the ioctl that is made to fail
  unsigned nth;                // which of the operation's calls of that ioctl
  const char* reported_as;     // Error::operation() of the failure
  std::function<void(Scene&)> run;
};

const std::vector<Operation>& operations() {
  static const std::vector<Operation> table = {
      {"create_context", IOCTL_KGSL_DRAWCTXT_CREATE, 1, "KGSL IOCTL_KGSL_DRAWCTXT_CREATE",
       [](Scene& s) { s.k.create_context(2); }},
      {"destroy_context", IOCTL_KGSL_DRAWCTXT_DESTROY, 1, "KGSL IOCTL_KGSL_DRAWCTXT_DESTROY",
       [](Scene& s) { s.k.destroy_context(s.ctx); }},
      {"alloc", IOCTL_KGSL_GPUOBJ_ALLOC, 1, "KGSL IOCTL_KGSL_GPUOBJ_ALLOC", [](Scene& s) { s.k.alloc(8192, {}); }},
      {"alloc (GPUOBJ_INFO)", IOCTL_KGSL_GPUOBJ_INFO, 1, "KGSL IOCTL_KGSL_GPUOBJ_INFO",
       [](Scene& s) { s.k.alloc(8192, {}); }},
      {"free", IOCTL_KGSL_GPUOBJ_FREE, 1, "KGSL IOCTL_KGSL_GPUOBJ_FREE", [](Scene& s) { s.k.free(s.spare); }},
      {"import_dmabuf", IOCTL_KGSL_GPUOBJ_IMPORT, 1, "KGSL IOCTL_KGSL_GPUOBJ_IMPORT",
       [](Scene& s) { s.k.import_dmabuf(s.dmabuf); }},
      {"import_dmabuf (GPUOBJ_INFO)", IOCTL_KGSL_GPUOBJ_INFO, 1, "KGSL IOCTL_KGSL_GPUOBJ_INFO",
       [](Scene& s) { s.k.import_dmabuf(s.dmabuf); }},
      {"import_user_memory", IOCTL_KGSL_GPUOBJ_IMPORT, 1, "KGSL IOCTL_KGSL_GPUOBJ_IMPORT",
       [](Scene& s) { s.k.import_user_memory(s.user, 4096); }},
      {"import_user_memory (GPUOBJ_INFO)", IOCTL_KGSL_GPUOBJ_INFO, 1, "KGSL IOCTL_KGSL_GPUOBJ_INFO",
       [](Scene& s) { s.k.import_user_memory(s.user, 4096); }},
      {"submit", IOCTL_KGSL_GPU_COMMAND, 1, "KGSL IOCTL_KGSL_GPU_COMMAND",
       [](Scene& s) { s.k.submit(s.ctx, std::span(&s.ib, 1), {}); }},
      {"wait", IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, 1, "KGSL IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID",
       [](Scene& s) { s.k.wait(s.ctx, s.fence, 5s); }},
      {"reset_status", IOCTL_KGSL_DEVICE_GETPROPERTY, 1, "KGSL IOCTL_KGSL_DEVICE_GETPROPERTY",
       [](Scene& s) { s.k.reset_status(s.ctx); }},
  };
  return table;
}

void check_reported(const Error& error, const char* operation, injected::ErrnoKind injected) {
  CHECK(error.operation() == operation);
  CHECK(error.sys_errno() == injected.error);
  CHECK(error.code() == injected.code);
  CHECK(std::string(error.what()).find(::strerrorname_np(injected.error)) != std::string::npos);
}

}  // namespace

TEST_CASE("every backend ioctl failing with each errno is a typed error naming it, and leaks nothing",
          "[virtual-kernel][kgsl]") {
  for (const Operation& operation : operations()) {
    for (const injected::ErrnoKind& kind : injected::kErrnoKinds) {
      const int injected = kind.error;
      CAPTURE(operation.name, ::strerrorname_np(injected));
      const bool transient = injected == EINTR || injected == EAGAIN;
      // The seam asks every other ioctl again, so it succeeds (tests/core/syscalls_test.cpp).
      if (transient && operation.request != IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID) continue;
      Scene scene;
      scene.v.sys.fail_ioctl(operation.request, operation.nth, injected);
      if (operation.request == IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID && injected == ETIMEDOUT) {
        // A wait that times out is no error: it returns false.
        CHECK_FALSE(scene.k.wait(scene.ctx, scene.fence, 5s));
      } else if (transient) {
        // An interrupted wait is asked again with the time left (Turnip tu_knl_kgsl.cc
        // wait_timestamp_safe); the retired fence then reports done.
        CHECK(scene.k.wait(scene.ctx, scene.fence, 5s));
      } else if (operation.request == IOCTL_KGSL_GPU_COMMAND && injected == ETIMEDOUT) {
        // The context's queue stayed full: the driver queued nothing (adreno_dispatch.c
        // _wait_for_room_in_context_queue), so the backend asks again and the IBs run once.
        const std::uint64_t fence = scene.k.submit(scene.ctx, std::span(&scene.ib, 1), {});
        CHECK(fence == scene.fence + 1);
        CHECK(scene.k.wait(scene.ctx, fence, 5s));
      } else {
        try {
          operation.run(scene);
          FAIL("the operation succeeded although its ioctl failed");
        } catch (const Error& error) {
          check_reported(error, operation.reported_as, kind);
        }
      }
      CHECK(scene.tear_down().empty());
    }
  }
}

TEST_CASE("opening fails cleanly when the DEVICE_INFO query fails with each errno", "[virtual-kernel][kgsl]") {
  for (const injected::ErrnoKind& kind : injected::kErrnoKinds) {
    if (kind.error == EINTR || kind.error == EAGAIN) continue;  // asked again by the seam
    CAPTURE(::strerrorname_np(kind.error));
    virt::VirtualSyscalls sys;
    sys.add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node({}));
    sys.fail_ioctl(IOCTL_KGSL_DEVICE_GETPROPERTY, 1, kind.error);
    try {
      open_kgsl_kernel(sys, virt::kVirtualKgslNode, true);
      FAIL("the kernel opened although DEVICE_INFO failed");
    } catch (const Error& error) {
      check_reported(error, "KGSL IOCTL_KGSL_DEVICE_GETPROPERTY", kind);
      CHECK(error.detail() == "KGSL_PROP_DEVICE_INFO of /dev/kgsl-3d0");
    }
    CHECK(sys.leaks().empty());  // the descriptor was closed
  }
}

TEST_CASE("a wait interrupted again and again is asked with the time left and times out at its deadline",
          "[virtual-kernel][kgsl]") {
  // WAITTIMESTAMP's timeout is relative: asked again as it was (the seam's ioctl), each signal
  // would restart the whole timeout. KgslKernel::wait asks once at a time and shrinks it, as
  // Turnip's wait_timestamp_safe (tu_knl_kgsl.cc) does. Here every wait is interrupted 10 ms
  // after it was asked (the seam's clock moves on 10 ms per interruption), so a 100 ms wait is
  // asked with 100, 90, ..., 10 ms and then reports the timeout, never reaching the driver.
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  std::mt19937 rng(31);
  const auto ctx = k.create_context(0);
  const Bo cmd = k.alloc(4096, {});
  const Bo data = k.alloc(4096, {});
  CpuView cmd_view = k.map(cmd);
  CpuView data_view = k.map(data);
  std::memset(data_view.data(), 0, 16);
  const std::uint32_t gate = rng() | 1;
  const IbRef held = write_ib(cmd, cmd_view, 0, wait_memory_equal(data.gpu, gate));
  const auto fence = k.submit(ctx, std::span(&held, 1), {});

  // At most 20 interruptions: a backend that asks again with the whole timeout then waits for
  // the driver's real 100 ms and fails the checks, instead of looping forever.
  std::vector<unsigned> timeouts;  // of each interrupted wait, as asked
  virt::VirtualSyscalls::Failure interrupt;
  interrupt.request = IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID;
  interrupt.schedule = virt::VirtualSyscalls::Failure::Schedule::every;
  interrupt.error = EINTR;
  interrupt.matches = [&timeouts](unsigned long, const void* arg) {
    if (timeouts.size() == 20) return false;
    timeouts.push_back(static_cast<const kgsl_device_waittimestamp_ctxtid*>(arg)->timeout);
    return true;
  };
  v.sys.fail(std::move(interrupt));
  v.sys.set_observer([&v](const virt::VirtualSyscalls::Call& call) {
    if (call.request == IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID && call.injected) v.sys.advance_clock(10ms);
  });
  CHECK_FALSE(k.wait(ctx, fence, 100ms));
  v.sys.set_observer({});
  v.sys.clear_ioctl_failures();
  CAPTURE(timeouts);
  REQUIRE_FALSE(timeouts.empty());
  CHECK(timeouts.size() <= 10);       // the deadline passed after ten interruptions at most
  CHECK(timeouts.front() > 90);       // the whole 100 ms (less whatever real time passed)
  for (std::size_t i = 1; i < timeouts.size(); ++i) CHECK(timeouts[i] + 10 <= timeouts[i - 1]);
  CHECK(timeouts.back() >= 1);

  std::memcpy(data_view.data(), &gate, 4);
  REQUIRE(k.wait(ctx, fence, 5s));
  k.destroy_context(ctx);
  k.unmap(cmd, cmd_view);
  k.unmap(data, data_view);
  k.free(cmd);
  k.free(data);
  CHECK(v.close_and_list_leaks().empty());
}
