// Shared by the kit's tests: both drivers, and one small piece of GPU work.
#pragma once

#include <adreno/queue.hpp>
#include <adreno/testing.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#define EACH_DRIVER() GENERATE(adreno::testing::Driver::kgsl, adreno::testing::Driver::msm)

inline std::string driver_name(adreno::testing::Driver driver) {
  return driver == adreno::testing::Driver::kgsl ? "kgsl" : "msm";
}

/// A buffer with a kernel object of its own, so that each one is exactly one kernel allocation.
inline adreno::Buffer own_object(adreno::Device& device, std::uint64_t size) {
  return device.allocate({.size = size, .exportable = true});
}

/// Has the command processor write `values` into `destination`; returns the fence.
inline std::uint64_t submit_write(adreno::Queue& queue, const adreno::Buffer& destination,
                                  const std::vector<std::uint32_t>& values) {
  queue.write(destination, values);
  return queue.submit();
}

inline std::vector<std::uint32_t> read_back(const adreno::Buffer& buffer, std::size_t count) {
  const auto* words = reinterpret_cast<const std::uint32_t*>(buffer.cpu_view().data());
  return std::vector<std::uint32_t>(words, words + count);
}

/// Closes the test device and checks its ledger is empty.
inline void close_without_leaks(adreno::testing::VirtualDevice& test) {
  const auto leaks = test.close();
  for (const auto& leak : leaks) UNSCOPED_INFO("leak: " << leak);
  CHECK(leaks.empty());
}
