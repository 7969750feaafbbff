// [virtual-kernel] The kit opens the virtual device a test asks for: driver, GPU model, priority
// levels and memory limit are what the library then sees through the kernel; options it cannot
// honour are refused by name.
#include "kit_support.h"

#include <adreno/error.hpp>

#include <cerrno>

using namespace adreno;
using namespace adreno::testing;

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

TEST_CASE("MSM priority levels are what MSM_PARAM_PRIORITIES reports, 3 per ring", "[virtual-kernel][testing]") {
  const unsigned levels = GENERATE(3u, 12u);
  CAPTURE(levels);
  VirtualDevice test({.driver = Driver::msm, .priority_levels = levels});
  CHECK(test.device().info().priority_levels == levels);
  {
    // The lowest priority exists; the kernel was asked for exactly it.
    Queue queue(test.device(), {.priority = levels - 1});
    const auto created = test.calls(Operation::create_context);
    REQUIRE(!created.empty());
    CHECK(created.back().arguments == "flags=0x0 prio=" + std::to_string(levels - 1));
    CHECK(created.back().error == 0);
    CHECK_THROWS_AS(Queue(test.device(), {.priority = levels}), Error);
  }
  close_without_leaks(test);
}

TEST_CASE("priority levels the driver cannot report are refused", "[virtual-kernel][testing]") {
  // KGSL has no priority query; MSM reports whole rings of 3.
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::kgsl, .priority_levels = 3}), Error);
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::msm, .priority_levels = 4}), Error);
  CHECK_THROWS_AS(VirtualDevice({.driver = Driver::msm, .priority_levels = 0}), Error);
}

TEST_CASE("the hazard-check slot accepts only the environment's setting until the check is selectable",
          "[virtual-kernel][testing]") {
  CHECK_NOTHROW(VirtualDevice({.hazards = HazardCheck::from_environment}));
  try {
    VirtualDevice test({.hazards = HazardCheck::off});
    FAIL("a per-device hazard mode was accepted");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::unsupported);
  }
}

TEST_CASE("allocations past the memory limit fail with ENOMEM and succeed again once memory is freed",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  CAPTURE(driver_name(driver));
  constexpr std::uint64_t kLimit = 1 << 20;
  VirtualDevice test({.driver = driver, .memory_limit = kLimit});
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
