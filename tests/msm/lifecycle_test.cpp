// [virtual-kernel] MsmKernel, unchanged, driving the virtual msm render node through the seam.
#include "msm/msm_abi.h"
#include "virtual_msm.h"

#include <adreno/error.hpp>

#include <catch2/catch.hpp>

#include <random>
#include <thread>

using namespace adreno;
using namespace msm_test;
namespace uapi = adreno::msm::uapi;
using std::chrono::seconds;

TEST_CASE("a whole MSM lifecycle: GPU writes land where the CPU reads them, and nothing leaks",
          "[virtual-kernel][msm]") {
  const std::uint32_t seed = GENERATE(1u, 77u, 20261202u);
  std::mt19937 rng(seed);
  VirtualMsm v;
  {
    auto kernel = v.open();
    const KernelInfo& info = kernel->info();
    CHECK(info.kind == KernelKind::msm);
    CHECK(info.node == virt::kVirtualMsmNode);
    CHECK(info.is_virtual);
    CHECK(info.chip_id == 0x06030001);
    CHECK(info.gpu_id == 630);
    CHECK(info.gmem_size == 1024 * 1024);
    CHECK(info.priority_levels == 3);
    REQUIRE(info.va);
    CHECK(info.va->start == 0x100000000ull);
    CHECK(info.va->size == 0x100000000ull);

    const auto ctx = kernel->create_context(1);
    const std::uint32_t count = 16 + rng() % 200;
    Bo ib = kernel->alloc(4096, {});
    Bo data = kernel->alloc(count * 8 + 4, {});
    CpuView ib_view = kernel->map(ib);
    CpuView data_view = kernel->map(data);

    // GPU addresses and CPU addresses are different numbers in different ranges.
    for (auto [bo, view] : {std::pair{&ib, ib_view}, std::pair{&data, data_view}}) {
      const auto cpu = reinterpret_cast<std::uintptr_t>(view.data());
      CHECK(bo->gpu.value() != cpu);
      CHECK(bo->gpu.value() >= info.va->start);
      CHECK(bo->gpu.value() + bo->size <= info.va->start + info.va->size);
      CHECK((cpu + view.size() <= info.va->start || cpu >= info.va->start + info.va->size));
    }

    // The CPU fills the whole buffer; the GPU overwrites the first half and signals after it.
    std::vector<std::uint32_t> cpu_values(count * 2), gpu_values(count);
    for (auto& value : cpu_values) value = rng();
    for (auto& value : gpu_values) value = rng();
    std::memcpy(data_view.data(), cpu_values.data(), cpu_values.size() * 4);
    const std::uint32_t signal = rng() | 1;
    const IbRef ib_ref =
        Pm4{}.mem_write(data.gpu, gpu_values).flush_ts(data.gpu + count * 8, signal).place(ib, ib_view, 0);
    const BoUse use{&data, true};
    const std::uint64_t fence = kernel->submit(ctx, std::span(&ib_ref, 1), std::span(&use, 1));
    CHECK(fence == 1);
    REQUIRE(kernel->wait(ctx, fence, seconds(5)));

    for (std::uint32_t i = 0; i < count; ++i) REQUIRE(read32(data_view, i) == gpu_values[i]);
    for (std::uint32_t i = count; i < count * 2; ++i) REQUIRE(read32(data_view, i) == cpu_values[i]);
    CHECK(read32(data_view, count * 2) == signal);
    CHECK(kernel->reset_status(ctx) == ResetStatus::none);

    kernel->unmap(data, data_view);
    kernel->unmap(ib, ib_view);
    kernel->free(data);
    kernel->free(ib);
    kernel->destroy_context(ctx);
    const auto open = v.sys.leaks();
    REQUIRE(open.size() == 1);  // only the node's descriptor, closed with the kernel object
    CHECK(open[0].find("open descriptor") == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("what the application leaves open is reported as leaked", "[virtual-kernel][msm]") {
  VirtualMsm v;
  auto kernel = v.open();
  const auto ctx = kernel->create_context(0);
  Bo bo = kernel->alloc(8192, {});
  CpuView view = kernel->map(bo);
  auto leaks = v.sys.leaks();
  // The descriptor, the CPU mapping (seen by the seam and by the node), the object, the queue.
  CHECK(leaks.size() == 5);
  kernel->unmap(bo, view);
  kernel->free(bo);
  kernel->destroy_context(ctx);
  CHECK(v.sys.leaks().size() == 1);  // the descriptor, until the kernel object goes
  kernel.reset();
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("every priority level gets a working queue, and one past the last is refused before the kernel",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(3);
  {
    auto kernel = v.open();
    Bo ib = kernel->alloc(4096, {});
    CpuView view = kernel->map(ib);
    for (unsigned priority = 0; priority < kernel->info().priority_levels; ++priority) {
      const auto ctx = kernel->create_context(priority);
      const std::uint32_t value = rng();
      const IbRef ref = Pm4{}.mem_write(ib.gpu + 2048, {value}).place(ib, view, 0);
      REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), {}), seconds(5)));
      CHECK(read32(view, 512) == value);
      kernel->destroy_context(ctx);
    }
    const unsigned before = v.sys.ioctl_count(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW);
    try {
      kernel->create_context(kernel->info().priority_levels);
      FAIL("priority past MSM_PARAM_PRIORITIES accepted");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(error.detail().find("priority 3") != std::string::npos);
    }
    CHECK(v.sys.ioctl_count(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW) == before);
    kernel->unmap(ib, view);
    kernel->free(ib);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("every memory type, GPU-writable or read-only, reaches the kernel as its MSM_BO flags",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(11);
  const std::pair<MemoryType, std::uint32_t> types[] = {
      {MemoryType::write_combined, uapi::MSM_BO_WC},
      {MemoryType::cached, uapi::MSM_BO_CACHED},
      {MemoryType::cached_coherent, uapi::MSM_BO_CACHED_COHERENT},
      {MemoryType::uncached, uapi::MSM_BO_WC},  // the kernel's own demotion, done up front
  };
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(2);
    for (auto [type, expected_flag] : types) {
      INFO("memory type " << static_cast<int>(type) << " (MSM_BO 0x" << std::hex << expected_flag << ")");
      Bo ib = kernel->alloc(4096, BoFlags{type, true});
      Bo data = kernel->alloc(4096, BoFlags{type, false});
      const auto requests = v.recorder.gem_news();
      REQUIRE(requests.size() >= 2);
      CHECK(requests[requests.size() - 2].flags == (expected_flag | uapi::MSM_BO_GPU_READONLY));
      CHECK(requests.back().flags == expected_flag);
      CHECK(ib.flags.type == type);
      CHECK(ib.flags.gpu_read_only);
      CpuView ib_view = kernel->map(ib);
      CpuView data_view = kernel->map(data);
      std::vector<std::uint32_t> values(1 + rng() % 64);
      for (auto& value : values) value = rng();
      const IbRef ref = Pm4{}.mem_write(data.gpu, values).place(ib, ib_view, 0);
      const BoUse use{&data, true};
      REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1)), seconds(5)));
      for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(read32(data_view, i) == values[i]);
      kernel->unmap(ib, ib_view);
      kernel->unmap(data, data_view);
      kernel->free(ib);
      kernel->free(data);
    }
    CHECK(kernel->reset_status(ctx) == ResetStatus::none);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("an msm driver older than 1.6 is refused at open, naming its version: its GEM_SUBMIT takes no syncobjs",
          "[virtual-kernel][msm]") {
  // Killed behaviour: the device opened, and the first submission failed with EINVAL for
  // MSM_SUBMIT_SYNCOBJ_OUT (msm_drv.c: "1.6.0 - Syncobj support").
  {
    VirtualMsm v({}, adreno::virt::MsmNodeOptions{.version_minor = 5});
    try {
      v.open();
      FAIL("an msm 1.5 node was opened");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::unsupported);
      CHECK(error.operation() == "MSM DRM_IOCTL_VERSION");
      CHECK_THAT(error.detail(), Catch::Contains("msm 1.5"));
    }
    CHECK(v.sys.leaks().empty());
  }
  // 1.6 is enough: a submission signals its syncobj and runs.
  VirtualMsm v({}, adreno::virt::MsmNodeOptions{.version_minor = 6});
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo ib = kernel->alloc(4096, BoFlags{MemoryType::write_combined, true});
    Bo data = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib);
    CpuView data_view = kernel->map(data);
    std::mt19937 rng(16);
    const std::vector<std::uint32_t> values = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
    const IbRef ref = Pm4{}.mem_write(data.gpu, values).place(ib, ib_view, 0);
    const BoUse use{&data, true};
    REQUIRE(kernel->wait(ctx, kernel->submit(ctx, std::span(&ref, 1), std::span(&use, 1)), seconds(5)));
    CHECK(read32(data_view, 0) == values[0]);
    CHECK(read32(data_view, 1) == values[1]);
    kernel->unmap(ib, ib_view);
    kernel->unmap(data, data_view);
    kernel->free(ib);
    kernel->free(data);
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("cached-coherent memory on a GPU without it is unsupported, not a bad argument", "[virtual-kernel][msm]") {
  // msm_gem.c msm_gem_new_impl answers EINVAL without ADRENO_QUIRK_HAS_CACHED_COHERENT; the
  // backend reads that as a missing feature, as freedreno's probe does.
  VirtualMsm v({}, adreno::virt::MsmNodeOptions{.per_process_pgtables = true, .cached_coherent = false});
  {
    auto kernel = v.open();
    try {
      kernel->alloc(4096, BoFlags{MemoryType::cached_coherent, false});
      FAIL("cached-coherent memory was allocated");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::unsupported);
      CHECK(error.sys_errno() == EINVAL);
      CHECK(error.operation() == "MSM DRM_IOCTL_MSM_GEM_NEW");
    }
    // Other types are unaffected.
    Bo bo = kernel->alloc(4096, BoFlags{MemoryType::cached, false});
    kernel->free(bo);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("the submit table holds every object the submission references, each once, with its uses",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(5);
  {
    auto kernel = v.open();
    const auto ctx = kernel->create_context(0);
    Bo ib = kernel->alloc(4096, {});
    Bo first = kernel->alloc(4096, {});
    Bo second = kernel->alloc(4096, {});
    CpuView ib_view = kernel->map(ib), first_view = kernel->map(first), second_view = kernel->map(second);
    const std::uint32_t a = rng(), b = rng();
    // Two IBs in one object; the IB object is not among the uses, `first` is listed twice.
    const IbRef ibs[] = {Pm4{}.mem_write(first.gpu, {a}).place(ib, ib_view, 0),
                         Pm4{}.mem_write(second.gpu, {b}).place(ib, ib_view, 256)};
    const BoUse uses[] = {{&first, false}, {&second, true}, {&first, true}};
    REQUIRE(kernel->wait(ctx, kernel->submit(ctx, ibs, uses), seconds(5)));
    CHECK(read32(first_view, 0) == a);
    CHECK(read32(second_view, 0) == b);

    const auto submissions = v.recorder.submissions();
    REQUIRE(submissions.size() == 1);
    const auto& s = submissions[0];
    CHECK(s.args.queueid == ctx);
    // No implicit sync for the library's own objects (msm_gem_submit.c skips submit_fence_sync).
    // Its fence also goes to a syncobj, for later submissions of other queues to name as an
    // in-fence (MSM_SUBMIT_SYNCOBJ_OUT, as Turnip's msm_queue_submit signals its semaphores).
    CHECK(s.args.flags == (uapi::MSM_PIPE_3D0 | uapi::MSM_SUBMIT_NO_IMPLICIT | uapi::MSM_SUBMIT_SYNCOBJ_OUT));
    CHECK(s.args.nr_in_syncobjs == 0);
    CHECK(s.args.nr_out_syncobjs == 1);
    CHECK(s.args.syncobj_stride == sizeof(uapi::drm_msm_gem_submit_syncobj));
    CHECK(s.args.pad == 0);
    REQUIRE(s.bos.size() == 3);
    const std::uint32_t rw = uapi::MSM_SUBMIT_BO_READ | uapi::MSM_SUBMIT_BO_WRITE;
    // The command buffer is marked for devcoredump (msm_gpu.c crashstate_get_bos dumps
    // MSM_SUBMIT_BO_DUMP objects).
    CHECK((s.bos[0].handle == ib.handle && s.bos[0].flags == (uapi::MSM_SUBMIT_BO_READ | uapi::MSM_SUBMIT_BO_DUMP)));
    CHECK((s.bos[1].handle == first.handle && s.bos[1].flags == rw));
    CHECK((s.bos[2].handle == second.handle && s.bos[2].flags == rw));
    REQUIRE(s.cmds.size() == 2);
    CHECK((s.cmds[0].submit_idx == 0 && s.cmds[0].submit_offset == 0 && s.cmds[0].size == ibs[0].dwords * 4));
    CHECK((s.cmds[1].submit_idx == 0 && s.cmds[1].submit_offset == 256 && s.cmds[1].size == ibs[1].dwords * 4));

    for (auto [bo, view] : {std::pair{&ib, ib_view}, std::pair{&first, first_view}, std::pair{&second, second_view}}) {
      kernel->unmap(*bo, view);
      kernel->free(*bo);
    }
    kernel->destroy_context(ctx);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("queues made and used from several threads at once each see only their own results",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    auto kernel = v.open();
    constexpr int kThreads = 4, kQueuesPerThread = 3, kSubmitsPerQueue = 8;
    std::vector<std::thread> threads;
    std::vector<std::string> failures(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          std::mt19937 rng(100 + t);
          Bo bo = kernel->alloc(64 * 1024, {});
          CpuView view = kernel->map(bo);
          std::vector<Kernel::ContextId> queues;
          for (int q = 0; q < kQueuesPerThread; ++q) queues.push_back(kernel->create_context(q % 3));
          for (int q = 0; q < kQueuesPerThread; ++q) {
            for (int n = 0; n < kSubmitsPerQueue; ++n) {
              const std::uint64_t slot = (q * kSubmitsPerQueue + n) * 64;  // 64 dwords per IB+result slot
              const std::uint32_t value = rng();
              const IbRef ref = Pm4{}.mem_write(bo.gpu + (slot + 32) * 4, {value}).place(bo, view, slot * 4);
              const std::uint64_t fence = kernel->submit(queues[q], std::span(&ref, 1), {});
              if (fence != static_cast<std::uint64_t>(n + 1)) failures[t] += "fence " + std::to_string(fence) + "; ";
              if (!kernel->wait(queues[q], fence, seconds(10))) failures[t] += "timeout; ";
              if (read32(view, slot + 32) != value) failures[t] += "wrong value; ";
            }
          }
          for (auto q : queues) kernel->destroy_context(q);
          kernel->unmap(bo, view);
          kernel->free(bo);
        } catch (const std::exception& error) {
          failures[t] += error.what();
        }
      });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == "");
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("without per-process pagetables the VA range is simply not reported", "[virtual-kernel][msm]") {
  VirtualMsm v({}, virt::MsmNodeOptions{false});
  {
    auto kernel = v.open();
    CHECK_FALSE(kernel->info().va.has_value());
    CHECK(kernel->info().gpu_id == 630);
  }
  CHECK(v.sys.leaks().empty());
}

namespace {
// A render node of another DRM driver: it answers DRM_IOCTL_VERSION and nothing else.
class OtherDriverFile final : public virt::VirtualFile {
 public:
  int ioctl(unsigned long request, void* arg) override {
    if (request != DRM_IOCTL_VERSION) return -EINVAL;
    auto& version = *static_cast<drm_version*>(arg);
    const std::string name = "i915";
    std::memcpy(version.name, name.data(), std::min<std::size_t>(name.size(), version.name_len));
    version.name_len = name.size();
    return 0;
  }
  void* mmap(std::size_t, int, int, off_t, int& error) override {
    error = ENODEV;
    return nullptr;
  }
  void munmapped(void*, std::size_t) override {}
  void stat(struct stat&) const override {}
  std::vector<std::string> live_objects() const override { return {}; }
};
}  // namespace

TEST_CASE("a render node of another driver is refused, naming the driver", "[virtual-kernel][msm]") {
  virt::VirtualSyscalls sys;
  sys.add_node("/dev/dri/renderD129", [] { return std::make_shared<OtherDriverFile>(); });
  try {
    open_msm_kernel(sys, "/dev/dri/renderD129", true);
    FAIL("an i915 node was accepted as msm");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::unsupported);
    CHECK(error.operation() == "MSM DRM_IOCTL_VERSION");
    CHECK(error.detail().find("\"i915\"") != std::string::npos);
    CHECK(error.detail().find("/dev/dri/renderD129") != std::string::npos);
  }
  try {
    open_msm_kernel(sys, "/dev/dri/renderD140", true);
    FAIL("a missing node was opened");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::not_found);
    CHECK(error.sys_errno() == ENOENT);
  }
  CHECK(sys.leaks().empty());
}
