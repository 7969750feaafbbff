// [hardware] MsmKernel on a real msm render node. Skipped (reported to CTest as skipped) unless ADRENO_DEVICE names msm
// hardware: "msm" (first msm node libdrm lists) or "msm:/dev/dri/renderDN".
#include "virtual_msm.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include "../skip.h"

#include <cstdlib>
#include <random>
#include <string_view>

using namespace adreno;
using namespace msm_test;

namespace {

/// The msm kernel ADRENO_DEVICE asks for, or nullptr when it names no msm hardware.
std::unique_ptr<Kernel> open_hardware() {
  const char* device = std::getenv("ADRENO_DEVICE");
  if (device == nullptr) return nullptr;
  const std::string_view spec(device);
  if (spec.rfind("msm:", 0) == 0) return open_msm_kernel(sys::real_syscalls(), std::string(spec.substr(4)), false);
  if (spec != "msm") return nullptr;
  for (const std::string& node : msm_render_node_candidates()) {
    try {
      return open_msm_kernel(sys::real_syscalls(), node, false);
    } catch (const Error& error) {
      if (error.code() != Errc::unsupported) throw;  // another driver's node: try the next
    }
  }
  FAIL("ADRENO_DEVICE=msm but no render node is driven by msm");
  return nullptr;
}

}  // namespace

TEST_CASE("on msm hardware, GPU writes land where the CPU reads them", "[hardware][msm]") {
  auto kernel = open_hardware();
  if (!kernel) ADRENO_SKIP("ADRENO_DEVICE names no msm hardware");
  CHECK(kernel->info().kind == KernelKind::msm);
  CHECK_FALSE(kernel->info().is_virtual);
  std::mt19937 rng(6);
  const auto ctx = kernel->create_context(kernel->info().priority_levels / 2);
  Bo ib = kernel->alloc(4096, {});
  Bo data = kernel->alloc(4096, {});
  CpuView ib_view = kernel->map(ib), data_view = kernel->map(data);
  CHECK(data.gpu.value() != reinterpret_cast<std::uintptr_t>(data_view.data()));
  std::vector<std::uint32_t> values(64);
  for (auto& value : values) value = static_cast<std::uint32_t>(rng());
  const std::uint32_t signal = static_cast<std::uint32_t>(rng()) | 1;
  const IbRef ref = Pm4{}.mem_write(data.gpu, values).flush_ts(data.gpu + 1024, signal).place(ib, ib_view, 0);
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
