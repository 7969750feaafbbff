// [virtual-kernel] Every ioctl the MSM backend issues, failing at every place it is issued with
// each errno a kernel can return there: the backend reports a typed error that names the ioctl
// and the errno, and nothing stays allocated.
#include "../injected_errnos.h"
#include "virtual_msm.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <random>

using namespace adreno;
using namespace msm_test;
namespace uapi = adreno::msm::uapi;
using std::chrono::seconds;

namespace {

struct Request {
  unsigned long number;
  const char* name;
};

const Request kRequests[] = {
    {DRM_IOCTL_VERSION, "DRM_IOCTL_VERSION"},
    {uapi::DRM_IOCTL_MSM_GET_PARAM, "DRM_IOCTL_MSM_GET_PARAM"},
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, "DRM_IOCTL_MSM_SUBMITQUEUE_NEW"},
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE"},
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, "DRM_IOCTL_MSM_SUBMITQUEUE_QUERY"},
    {uapi::DRM_IOCTL_MSM_GEM_NEW, "DRM_IOCTL_MSM_GEM_NEW"},
    {uapi::DRM_IOCTL_MSM_GEM_INFO, "DRM_IOCTL_MSM_GEM_INFO"},
    {DRM_IOCTL_GEM_CLOSE, "DRM_IOCTL_GEM_CLOSE"},
    {DRM_IOCTL_PRIME_HANDLE_TO_FD, "DRM_IOCTL_PRIME_HANDLE_TO_FD"},
    {DRM_IOCTL_PRIME_FD_TO_HANDLE, "DRM_IOCTL_PRIME_FD_TO_HANDLE"},
    {uapi::DRM_IOCTL_MSM_GEM_SUBMIT, "DRM_IOCTL_MSM_GEM_SUBMIT"},
    {uapi::DRM_IOCTL_MSM_WAIT_FENCE, "DRM_IOCTL_MSM_WAIT_FENCE"},
};

// The 5th and 6th GET_PARAM of a lifecycle are MSM_PARAM_VA_START/VA_SIZE (see open_msm_kernel).
constexpr unsigned kVaStartCall = 5, kVaSizeCall = 6;

struct Outcome {
  std::optional<Error> error;
  bool wait_timed_out = false;
  bool va_reported = false;
};

/// open → queue → alloc → map → export → import a foreign dma-buf → submit → wait → check →
/// reset status → undo it all. Whatever fails, the undo steps that remain run afterwards.
Outcome run_lifecycle(VirtualMsm& v, std::uint32_t seed) {
  Outcome outcome;
  std::mt19937 rng(seed);
  const int foreign = ::memfd_create("foreign", MFD_CLOEXEC);
  REQUIRE(foreign >= 0);
  REQUIRE(::ftruncate(foreign, 4096) == 0);
  std::unique_ptr<Kernel> kernel;
  std::vector<std::function<void()>> undo;  // a step leaves the list only once it succeeded
  auto unwind = [&] {
    while (!undo.empty()) {
      undo.back()();
      undo.pop_back();
    }
  };
  try {
    kernel = v.open();
    outcome.va_reported = kernel->info().va.has_value();
    const auto ctx = kernel->create_context(0);
    undo.push_back([&, ctx] { kernel->destroy_context(ctx); });
    const Bo bo = kernel->alloc(8192, {});
    undo.push_back([&, bo] { kernel->free(bo); });
    const CpuView view = kernel->map(bo);
    undo.push_back([&, bo, view] { kernel->unmap(bo, view); });
    const int exported = kernel->export_dmabuf(bo);
    ::close(exported);
    const Bo imported = kernel->import_dmabuf(foreign);
    undo.push_back([&, imported] { kernel->free(imported); });

    const std::uint32_t a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng());
    const IbRef ref = Pm4{}.mem_write(bo.gpu + 4096, {a}).mem_write(imported.gpu, {b}).place(bo, view, 0);
    const BoUse use{&imported, true};
    const std::uint64_t fence = kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1));
    if (!kernel->wait(ctx, fence, seconds(5))) {
      outcome.wait_timed_out = true;
      const bool retired = kernel->wait(ctx, fence, seconds(5));
      REQUIRE(retired);
    }
    CHECK(read32(view, 1024) == a);
    std::uint32_t landed = 0;
    REQUIRE(::pread(foreign, &landed, 4, 0) == 4);
    CHECK(landed == b);
    const ResetStatus status = kernel->reset_status(ctx);
    CHECK(status == ResetStatus::none);
    unwind();
  } catch (const Error& error) {
    outcome.error = error;
  }
  unwind();  // injections fire once, so the remaining undo steps succeed now
  kernel.reset();
  ::close(foreign);
  return outcome;
}

}  // namespace

TEST_CASE("every backend ioctl failing anywhere gives a typed error naming it and its errno, and leaks nothing",
          "[virtual-kernel][msm]") {
  // How often the lifecycle issues each request when nothing fails.
  std::vector<unsigned> calls;
  {
    VirtualMsm clean;
    Outcome outcome = run_lifecycle(clean, 1);
    REQUIRE_FALSE(outcome.error);
    REQUIRE(outcome.va_reported);
    for (const Request& request : kRequests) calls.push_back(clean.sys.ioctl_count(request.number));
    CHECK(clean.sys.leaks().empty());
  }
  std::uint32_t seed = 2;
  for (std::size_t r = 0; r < std::size(kRequests); ++r) {
    const Request& request = kRequests[r];
    REQUIRE(calls[r] > 0);  // the lifecycle exercises every request the backend has
    for (unsigned nth = 1; nth <= calls[r]; ++nth) {
      for (const auto [error, code] : injected::kErrnoKinds) {
        INFO(request.name << " call " << nth << " failing with " << ::strerrorname_np(error));
        VirtualMsm v;
        v.sys.fail_ioctl(request.number, nth, error);
        const Outcome outcome = run_lifecycle(v, seed++);
        const bool wait_timeout = request.number == uapi::DRM_IOCTL_MSM_WAIT_FENCE && error == ETIMEDOUT;
        const bool va_absent = request.number == uapi::DRM_IOCTL_MSM_GET_PARAM && error == EINVAL &&
                               (nth == kVaStartCall || nth == kVaSizeCall);
        // The seam asks an interrupted ioctl again with the same arguments (sys::retry_transient);
        // WAIT_FENCE's absolute deadline makes that right for the wait too.
        const bool interrupted = error == EINTR || error == EAGAIN;
        if (wait_timeout) {
          CHECK_FALSE(outcome.error);
          CHECK(outcome.wait_timed_out);  // a wait that times out is an answer, not an error
        } else if (interrupted) {
          CHECK_FALSE(outcome.error);
        } else if (va_absent) {
          CHECK_FALSE(outcome.error);
          CHECK_FALSE(outcome.va_reported);  // older kernels: no VA range, not a failure
        } else {
          REQUIRE(outcome.error);
          CHECK(outcome.error->sys_errno() == error);
          CHECK(outcome.error->code() == code);
          CHECK(outcome.error->operation() == std::string("MSM ") + request.name);
        }
        CHECK(v.sys.leaks().empty());
      }
    }
  }
}
