// A virtual device for tests, with its ledger checked after it closed.
#pragma once

#include <adreno/device.hpp>

#include "core/device_impl.h"
#include "core/gpu_part.h"
#include "ir3/generation.h"

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>

struct VirtualDevice {
  explicit VirtualDevice(const std::string& spec) : device(adreno::Device::open(spec)) {
    system = device->impl().virtual_system();
    REQUIRE(system != nullptr);
  }
  /// Closes the device and checks that nothing the library created is left behind.
  void close_and_check_ledger() {
    device.reset();
    const auto leaks = system->leaks();
    for (const auto& leak : leaks) UNSCOPED_INFO("leak: " << leak);
    CHECK(leaks.empty());
  }
  adreno::Device& operator*() { return *device; }
  adreno::Device* operator->() { return &*device; }

  std::optional<adreno::Device> device;
  std::shared_ptr<adreno::virt::VirtualSyscalls> system;
};

/// The instruction set of `device`'s GPU, for code a test assembles itself.
inline adreno::ir3::Generation instruction_set_of(const adreno::Device& device) {
  return adreno::command_generation(device.info()) == adreno::pm4::kA7xx ? adreno::ir3::Generation::a7xx
                                                                          : adreno::ir3::Generation::a6xx;
}

/// The instruction set of the GPU a virtual device spec names ("virtual-msm:a740"): the default
/// model's, the a630's, when it names none.
inline adreno::ir3::Generation instruction_set_of(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) return adreno::ir3::Generation::a6xx;
  const auto gen = adreno::ir3::parse_generation(std::string_view(spec).substr(colon + 1));
  REQUIRE(gen);
  return *gen;
}

/// Both virtual kernels, for tests that must hold on each backend.
#define EACH_VIRTUAL_BACKEND() GENERATE(as<std::string>{}, "virtual-kgsl", "virtual-msm")
/// Both virtual kernels on the default a630 and on an a740, for tests that must hold on each
/// backend and each GPU generation (the a7xx registers, events and waits).
#define EACH_VIRTUAL_BACKEND_AND_GENERATION() \
  GENERATE(as<std::string>{}, "virtual-kgsl", "virtual-msm", "virtual-kgsl:a740", "virtual-msm:a740")
