// [hardware] KgslKernel on a real KGSL device. Skipped (reported to CTest as skipped) unless
// ADRENO_DEVICE is "kgsl" (/dev/kgsl-3d0) or "kgsl:<path>".
#include "kgsl_test_support.h"

#include "../skip.h"
#include "sys/syscalls.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string_view>

using namespace adreno;
using namespace kgsl_test;

namespace {

/// The KGSL device node ADRENO_DEVICE names, or empty when it names no KGSL hardware.
std::string hardware_node() {
  const char* device = std::getenv("ADRENO_DEVICE");
  if (device == nullptr) return {};
  const std::string_view spec(device);
  if (spec == "kgsl") return "/dev/kgsl-3d0";
  if (spec.rfind("kgsl:", 0) == 0) return std::string(spec.substr(5));
  return {};
}

}  // namespace

TEST_CASE("on KGSL hardware, GPU writes land where the CPU reads them", "[hardware][kgsl]") {
  const std::string node = hardware_node();
  if (node.empty()) ADRENO_SKIP("ADRENO_DEVICE names no KGSL hardware");
  auto kernel = open_kgsl_kernel(sys::real_syscalls(), node, false);
  CHECK(kernel->info().kind == KernelKind::kgsl);
  CHECK_FALSE(kernel->info().is_virtual);
  std::mt19937 rng(7);
  const auto ctx = kernel->create_context(kernel->info().priority_levels / 2);
  Bo ib = kernel->alloc(4096, {});
  Bo data = kernel->alloc(4096, {});
  CpuView ib_view = kernel->map(ib), data_view = kernel->map(data);
  std::vector<std::uint32_t> values(64);
  for (auto& value : values) value = static_cast<std::uint32_t>(rng());
  const std::uint32_t signal = static_cast<std::uint32_t>(rng()) | 1;
  const IbRef ref = write_ib(ib, ib_view, 0, concat({mem_write(data.gpu, values), cache_flush_ts(data.gpu + 1024, signal)}));
  const BoUse use{&data, true};
  REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1)), std::chrono::seconds(5)));
  for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(read32(data_view, i) == values[i]);
  CHECK(read32(data_view, 256) == signal);
  CHECK(kernel->reset_status(ctx) == ResetStatus::none);
  kernel->unmap(ib, ib_view);
  kernel->unmap(data, data_view);
  kernel->free(ib);
  kernel->free(data);
  kernel->destroy_context(ctx);
}
