// Shared by the kit's tests: both drivers, and one small piece of GPU work.
#pragma once

#include <adreno/queue.hpp>
#include <adreno/testing.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#define EACH_DRIVER() GENERATE(adreno::testing::Driver::kgsl, adreno::testing::Driver::msm)
/// The default a630 and an a740, for kit tests that must hold on each GPU generation (a7xx
/// registers, events and waits); with EACH_DRIVER(), each model on each driver.
#define EACH_MODEL() GENERATE(as<std::string>{}, "a630", "a740")

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

/// What the process writes to stderr while it lives — the library's log, the virtual drivers'
/// kernel log — instead of the terminal.
class CapturedStderr {
 public:
  CapturedStderr() : file_(std::tmpfile()) {
    REQUIRE(file_ != nullptr);
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    REQUIRE(::dup2(::fileno(file_), STDERR_FILENO) >= 0);
  }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;
  ~CapturedStderr() {
    restore();
    std::fclose(file_);
  }

  /// Everything written so far; stderr is the terminal again from here on.
  std::string text() {
    restore();
    std::string all;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) all.push_back(static_cast<char>(c));
    std::fputs(all.c_str(), stderr);  // still in the test's output, for whoever reads it
    return all;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

/// Closes the test device and checks its ledger is empty.
inline void close_without_leaks(adreno::testing::VirtualDevice& test) {
  const auto leaks = test.close();
  for (const auto& leak : leaks) UNSCOPED_INFO("leak: " << leak);
  CHECK(leaks.empty());
}
