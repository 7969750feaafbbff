// The smallest complete program: c[i] = a[i] + b[i] for 4096 integers, written in ir3 assembly,
// dispatched on whatever device ADRENO_DEVICE names (the virtual Adreno when none is set), and
// checked on the host.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "kernels.h"  // examples/kernels/vector_add.s

#include <cstdio>
#include <cstdlib>
#include <random>

int main() {
  try {
    const char* spec = std::getenv("ADRENO_DEVICE");
    adreno::Device device = adreno::Device::open(spec != nullptr && *spec != '\0' ? spec : "virtual-kgsl");
    constexpr std::size_t kCount = 1024;  // the @buf size of vector_add.s
    adreno::Buffer c = device.allocate({.size = kCount * 4});
    adreno::Buffer a = device.allocate({.size = kCount * 4});
    adreno::Buffer b = device.allocate({.size = kCount * 4});
    std::mt19937 rng(2026);
    for (auto& v : a.cpu_view().as<std::uint32_t>()) v = rng();
    for (auto& v : b.cpu_view().as<std::uint32_t>()) v = rng();

    adreno::Program program = adreno::Program::from_ir3_assembly(device, kernels::vector_add);
    adreno::Arguments arguments(program);
    arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b);
    adreno::Queue queue(device);
    queue.dispatch(program, arguments, {.groups = {kCount / 64, 1, 1}, .local_size = {64, 1, 1}, .wave_size = {}});
    queue.finish();

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kCount; ++i)
      wrong += c.cpu_view().as<std::uint32_t>()[i] != a.cpu_view().as<std::uint32_t>()[i] + b.cpu_view().as<std::uint32_t>()[i];
    std::printf("vector_add on %s: %zu of %zu sums wrong\n", device.info().name.c_str(), wrong, kCount);
    return wrong == 0 ? 0 : 1;
  } catch (const adreno::Error& error) {
    std::fprintf(stderr, "vector_add: %s\n", error.what());
    return 1;
  }
}
