// [virtual-kernel] Kernel errors where the library cannot report them or should not: found by
// the soak (tests/soak), each on both virtual kernels through the test kit's fault plan.
#include <adreno/adreno.hpp>

#include "../testing/kit_support.h"

#include <cerrno>
#include <random>
#include <vector>

using namespace adreno;
using namespace adreno::testing;
using namespace std::chrono_literals;

// Releasing memory asks the kernel whether the submissions that used it retired. That runs in
// destructors: a failed answer escaped one and ended the process (std::terminate).
TEST_CASE("a kernel error while asking whether released memory is idle keeps the memory until it is, without throwing",
          "[virtual-kernel][memory]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  // Not the errnos of a lost context (EIO, EDEADLK), nor EINTR/EAGAIN, which the seam asks again.
  const int error = GENERATE(ENOMEM, EBUSY, EFAULT);
  CAPTURE(driver_name(driver), model, error);
  VirtualDevice test({.driver = driver, .model = model});
  {
    Device& device = test.device();
    std::mt19937 rng(17);
    std::vector<std::uint32_t> values(64);
    for (auto& v : values) v = static_cast<std::uint32_t>(rng());
    Queue queue(device);
    std::optional<Buffer> used = device.allocate({.size = 256});
    const std::uint64_t first = used->gpu_address().value();
    test.stall_submission();  // the submission stays in flight until the stall ends
    queue.write(*used, values);
    queue.submit();
    test.clear_log();
    test.fail_every_call(Operation::wait, error);
    REQUIRE_NOTHROW(used.reset());  // asks the kernel, which fails: the memory waits
    REQUIRE_FALSE(test.calls(Operation::wait).empty());
    // Not handed out again while its submission may still run.
    Buffer other = device.allocate({.size = 256});
    CHECK(other.gpu_address().value() != first);
    CHECK(test.calls(Operation::wait).front().injected);
    CHECK(test.calls(Operation::wait).front().error == error);
    test.clear_faults();
    test.end_stalls();
    queue.finish(10s);
  }
  close_without_leaks(test);
}

// KgslKernel asked an interrupted wait again; MsmKernel threw EINTR as a kernel error, though
// WAIT_FENCE's absolute deadline is made for asking again (msm_drm.h drm_msm_wait_fence).
TEST_CASE("an interrupted wait is asked again and returns when the work retired", "[virtual-kernel][queue]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  const int error = GENERATE(EINTR, EAGAIN);
  CAPTURE(driver_name(driver), model, error);
  VirtualDevice test({.driver = driver, .model = model});
  {
    Device& device = test.device();
    std::mt19937 rng(23);
    std::vector<std::uint32_t> values(64);
    for (auto& v : values) v = static_cast<std::uint32_t>(rng());
    Queue queue(device);
    Signal gate(device);
    Buffer buffer = device.allocate({.size = 256});
    queue.wait(gate, 1);  // held until the host opens it, so the host wait reaches the kernel
    queue.write(buffer, values);
    queue.submit();
    test.clear_log();
    test.fail_call(Operation::wait, error, 1);
    gate.set(1);
    REQUIRE_NOTHROW(queue.finish(10s));
    CHECK(read_back(buffer, values.size()) == values);
    const auto waits = test.calls(Operation::wait);
    REQUIRE(waits.size() >= 2);
    CHECK(waits.front().injected);
    CHECK(waits.front().error == error);
    CHECK(waits.back().error == 0);
  }
  close_without_leaks(test);
}
