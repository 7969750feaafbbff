// The adreno demo: opens a device (hardware when ADRENO_DEVICE names it, otherwise the virtual
// KGSL device and the virtual MSM render node in turn), allocates buffers, records work that
// writes them and signals, submits, waits, and prints what it saw.
#include <adreno/adreno.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

bool run(adreno::Device& device) {
  const adreno::DeviceInfo& info = device.info();
  std::printf("%s: %s (chip id 0x%08x), %s, GMEM %llu KiB, %u queue priorities%s\n", info.node.c_str(),
              info.name.c_str(), info.chip_id, info.backend == "kgsl" ? "KGSL" : "MSM",
              static_cast<unsigned long long>(info.gmem_size / 1024), info.priority_levels,
              info.is_virtual ? " [virtual]" : "");

  adreno::Buffer data = device.allocate({.size = 64 * sizeof(std::uint32_t)});
  adreno::Buffer stamps = device.allocate({.size = 2 * sizeof(std::uint64_t)});
  adreno::Signal done(device);
  adreno::Queue queue(device);

  std::mt19937 rng(std::random_device{}());
  std::vector<std::uint32_t> values(64);
  for (auto& v : values) v = rng();

  queue.write_timestamp(stamps.view(0, 8));
  queue.write(data, values);
  queue.write_timestamp(stamps.view(8, 8));
  queue.signal(done, 1);
  const auto submitted = std::chrono::steady_clock::now();
  const std::uint64_t fence = queue.submit();
  if (!done.wait(1, std::chrono::seconds(10))) {
    std::printf("  the signal did not arrive within 10 s\n");
    return false;
  }
  const auto waited = std::chrono::steady_clock::now() - submitted;

  auto words = data.cpu_view().as<std::uint32_t>();
  std::size_t matching = 0;
  for (std::size_t i = 0; i < values.size(); ++i) matching += words[i] == values[i];
  auto ticks = stamps.cpu_view().as<std::uint64_t>();
  std::printf("  submission %llu: the GPU wrote %zu/%zu dwords (first 0x%08x), signalled %llu after %lld us;\n"
              "  GPU clock advanced %llu ticks of 19.2 MHz across the writes\n",
              static_cast<unsigned long long>(fence), matching, values.size(), words[0],
              static_cast<unsigned long long>(done.value()),
              static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(waited).count()),
              static_cast<unsigned long long>(ticks[1] - ticks[0]));
  return matching == values.size();
}

}  // namespace

int main() {
  std::vector<std::string> specs;
  if (const char* chosen = std::getenv("ADRENO_DEVICE"); chosen != nullptr && *chosen != '\0') {
    specs.emplace_back(chosen);
  } else {
    std::printf("ADRENO_DEVICE is not set: using the virtual Adreno (virtual-kgsl, then virtual-msm).\n");
    specs = {"virtual-kgsl", "virtual-msm"};
  }
  bool ok = true;
  for (const std::string& spec : specs) {
    try {
      adreno::Device device = adreno::Device::open(spec);
      ok = run(device) && ok;
    } catch (const adreno::Error& error) {
      std::printf("%s: %s\n", spec.c_str(), error.what());
      ok = false;
    }
  }
  std::printf(ok ? "demo: OK\n" : "demo: FAILED\n");
  return ok ? 0 : 1;
}
