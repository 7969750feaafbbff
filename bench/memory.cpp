// Memory benchmarks on the virtual KGSL and MSM devices: what one allocation costs in the common
// cases — a small buffer carved from a slab, a medium buffer recycled through the cache, and a
// dma-buf import. The kernel work the virtual kernels do is in-process, so these numbers are the
// library's own overhead plus a cheap ioctl; on hardware the ioctls dominate whatever reaches the
// kernel, which is why the policy avoids them.
#include <adreno/adreno.hpp>

#include <benchmark/benchmark.h>

#include <sys/mman.h>
#include <unistd.h>

namespace {

const char* kBackends[] = {"virtual-kgsl", "virtual-msm"};

void small_alloc_free(benchmark::State& state) {
  adreno::Device device = adreno::Device::open(kBackends[state.range(0)]);
  adreno::Buffer keep = device.allocate({.size = 256});  // keeps a slab alive
  for (auto _ : state) {
    adreno::Buffer buffer = device.allocate({.size = 256});
    benchmark::DoNotOptimize(buffer.gpu_address());
  }
  state.SetLabel(kBackends[state.range(0)]);
}
BENCHMARK(small_alloc_free)->Arg(0)->Arg(1);

void cached_reuse(benchmark::State& state) {
  adreno::Device device = adreno::Device::open(kBackends[state.range(0)]);
  for (auto _ : state) {
    adreno::Buffer buffer = device.allocate({.size = 256 * 1024});
    benchmark::DoNotOptimize(buffer.gpu_address());
  }
  state.SetLabel(kBackends[state.range(0)]);
}
BENCHMARK(cached_reuse)->Arg(0)->Arg(1);

void dmabuf_import(benchmark::State& state) {
  adreno::Device device = adreno::Device::open(kBackends[state.range(0)]);
  int fd = ::memfd_create("bench-dmabuf", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 1 << 20) != 0) {
    state.SkipWithError("memfd_create failed");
    return;
  }
  for (auto _ : state) {
    adreno::Buffer buffer = device.import_dmabuf(fd);
    benchmark::DoNotOptimize(buffer.gpu_address());
  }
  ::close(fd);
  state.SetLabel(kBackends[state.range(0)]);
}
BENCHMARK(dmabuf_import)->Arg(0)->Arg(1);

}  // namespace
