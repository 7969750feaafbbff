// The smallest complete program: c[i] = a[i] + b[i] for 4096 integers, written in ir3 assembly,
// dispatched on whatever device ADRENO_DEVICE names (the virtual Adreno when none is set), and
// checked on the host.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>

// One invocation per element: i = work-group id * 64 + local id. Buffer addresses arrive in the
// constant file (c0.xy = c, c0.zw = a, c1.xy = b), as Mesa's compiler lays out kernel arguments.
constexpr const char* kVectorAdd = R"(
@localsize 64, 1, 1
@buf 4096 (c0.x)
@buf 4096 (c0.z)
@buf 4096 (c1.x)
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 6
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.z, c1.x
    mov.u32u32 r2.w, c1.y
    add.u r0.y, r0.y, r0.x
    (rpt2)nop
    ldg.a.u32 r2.x, g[r1.z+(r0.y<<2)], 1
    ldg.a.u32 r2.y, g[r2.z+(r0.y<<2)], 1
    (sy)add.u r3.x, r2.x, r2.y
    (rpt2)nop
    stg.a.u32 g[r1.x+(r0.y<<2)], r3.x, 1
    end
)";

int main() {
  try {
    const char* spec = std::getenv("ADRENO_DEVICE");
    adreno::Device device = adreno::Device::open(spec != nullptr && *spec != '\0' ? spec : "virtual-kgsl");
    constexpr std::size_t kCount = 4096;
    adreno::Buffer c = device.allocate({.size = kCount * 4});
    adreno::Buffer a = device.allocate({.size = kCount * 4});
    adreno::Buffer b = device.allocate({.size = kCount * 4});
    std::mt19937 rng(2026);
    for (auto& v : a.cpu_view().as<std::uint32_t>()) v = rng();
    for (auto& v : b.cpu_view().as<std::uint32_t>()) v = rng();

    adreno::Program program = adreno::Program::from_ir3_assembly(device, kVectorAdd);
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
