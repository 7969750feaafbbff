// [virtual-kernel] The virtual msm node refuses malformed requests with the driver's errno.
// Each check names the driver function whose check it mirrors (see src/virt/msm_device.cpp).
#include "virtual_msm.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <atomic>
#include <random>

using namespace adreno;
using namespace msm_test;
namespace uapi = adreno::msm::uapi;

namespace {

/// One open file of the node, driven with raw ioctls.
struct RawFile {
  explicit RawFile(virt::VirtualSyscalls& sys) : sys(sys), fd(sys.open(virt::kVirtualMsmNode, O_RDWR)) {}
  ~RawFile() { sys.close(fd); }

  int call(unsigned long request, void* arg) { return sys.ioctl(fd, request, arg); }

  std::uint32_t gem_new(std::uint64_t size, std::uint32_t flags = uapi::MSM_BO_WC) {
    uapi::drm_msm_gem_new args{size, flags, 0};
    REQUIRE(call(uapi::DRM_IOCTL_MSM_GEM_NEW, &args) == 0);
    return args.handle;
  }
  std::uint64_t info(std::uint32_t handle, std::uint32_t what) {
    uapi::drm_msm_gem_info args{handle, what, 0, 0, 0};
    REQUIRE(call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args) == 0);
    return args.value;
  }
  int gem_close(std::uint32_t handle) {
    drm_gem_close args{handle, 0};
    return call(DRM_IOCTL_GEM_CLOSE, &args);
  }
  std::uint32_t queue_new(std::uint32_t prio = 0) {
    uapi::drm_msm_submitqueue args{0, prio, 0};
    REQUIRE(call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &args) == 0);
    return args.id;
  }
  int queue_close(std::uint32_t id) { return call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id); }
  std::uint32_t faults(std::uint32_t queue) {
    std::uint32_t value = ~0u;
    uapi::drm_msm_submitqueue_query args{reinterpret_cast<std::uintptr_t>(&value), queue,
                                         uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, 4, 0};
    REQUIRE(call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &args) == 0);
    return value;
  }
  /// A GEM_SUBMIT of `cmds` with table `bos` on `queue`; returns the ioctl result and the fence.
  int submit(std::uint32_t queue, std::vector<uapi::drm_msm_gem_submit_bo> bos,
             std::vector<uapi::drm_msm_gem_submit_cmd> cmds, std::uint32_t* fence = nullptr,
             std::uint32_t flags = uapi::MSM_PIPE_3D0, std::uint32_t pad = 0) {
    uapi::drm_msm_gem_submit args{};
    args.flags = flags;
    args.nr_bos = static_cast<std::uint32_t>(bos.size());
    args.nr_cmds = static_cast<std::uint32_t>(cmds.size());
    args.bos = reinterpret_cast<std::uintptr_t>(bos.data());
    args.cmds = reinterpret_cast<std::uintptr_t>(cmds.data());
    args.queueid = queue;
    args.pad = pad;
    int ret = call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, &args);
    if (fence) *fence = args.fence;
    return ret;
  }
  /// submit() with syncobj arrays (MSM_SUBMIT_SYNCOBJ_IN / _OUT set when non-empty).
  int submit_synced(std::uint32_t queue, std::vector<uapi::drm_msm_gem_submit_bo> bos,
                    std::vector<uapi::drm_msm_gem_submit_cmd> cmds, std::vector<uapi::drm_msm_gem_submit_syncobj> in,
                    std::vector<uapi::drm_msm_gem_submit_syncobj> out, std::uint32_t* fence = nullptr) {
    uapi::drm_msm_gem_submit args{};
    args.flags = uapi::MSM_PIPE_3D0 | uapi::MSM_SUBMIT_NO_IMPLICIT | (in.empty() ? 0u : uapi::MSM_SUBMIT_SYNCOBJ_IN) |
                 (out.empty() ? 0u : uapi::MSM_SUBMIT_SYNCOBJ_OUT);
    args.nr_bos = static_cast<std::uint32_t>(bos.size());
    args.nr_cmds = static_cast<std::uint32_t>(cmds.size());
    args.bos = reinterpret_cast<std::uintptr_t>(bos.data());
    args.cmds = reinterpret_cast<std::uintptr_t>(cmds.data());
    args.queueid = queue;
    args.in_syncobjs = reinterpret_cast<std::uintptr_t>(in.data());
    args.out_syncobjs = reinterpret_cast<std::uintptr_t>(out.data());
    args.nr_in_syncobjs = static_cast<std::uint32_t>(in.size());
    args.nr_out_syncobjs = static_cast<std::uint32_t>(out.size());
    args.syncobj_stride = sizeof(uapi::drm_msm_gem_submit_syncobj);
    int ret = call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, &args);
    if (fence) *fence = args.fence;
    return ret;
  }
  std::uint32_t syncobj_new() {
    drm_syncobj_create args{0, 0};
    REQUIRE(call(DRM_IOCTL_SYNCOBJ_CREATE, &args) == 0);
    return args.handle;
  }
  int syncobj_destroy(std::uint32_t handle, std::uint32_t pad = 0) {
    drm_syncobj_destroy args{handle, pad};
    return call(DRM_IOCTL_SYNCOBJ_DESTROY, &args);
  }
  int wait(std::uint32_t queue, std::uint32_t fence, std::int64_t timeout_ns, std::uint32_t flags = 0) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const std::int64_t deadline = now.tv_sec * 1000000000ll + now.tv_nsec + timeout_ns;
    uapi::drm_msm_wait_fence args{fence, flags, {deadline / 1000000000, deadline % 1000000000}, queue};
    return call(uapi::DRM_IOCTL_MSM_WAIT_FENCE, &args);
  }
  void* map(std::uint32_t handle, std::size_t length) {
    auto mapped = sys.mmap(length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(info(handle, uapi::MSM_INFO_GET_OFFSET)));
    REQUIRE(mapped.addr != nullptr);
    return mapped.addr;
  }

  virt::VirtualSyscalls& sys;
  int fd;
};

constexpr std::uint32_t kRead = uapi::MSM_SUBMIT_BO_READ, kWrite = uapi::MSM_SUBMIT_BO_WRITE;

uapi::drm_msm_gem_submit_cmd cmd(std::uint32_t index, std::uint32_t offset, std::uint32_t bytes,
                                  std::uint32_t type = uapi::MSM_SUBMIT_CMD_BUF) {
  return uapi::drm_msm_gem_submit_cmd{type, index, offset, bytes, 0, 0, 0};
}

}  // namespace

TEST_CASE("DRM_IOCTL_VERSION answers msm the way drm_copy_field does, and fstat a render node",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    char name[2] = {};
    drm_version version{};
    version.name = name;
    version.name_len = sizeof name;
    REQUIRE(file.call(DRM_IOCTL_VERSION, &version) == 0);
    CHECK(std::string(name, 2) == "ms");  // truncated to the buffer…
    CHECK(version.name_len == 3);         // …with the full length reported
    CHECK(version.version_major == 1);
    struct stat st {};
    REQUIRE(v.sys.fstat(file.fd, &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(major(st.st_rdev) == 226);
    CHECK(minor(st.st_rdev) >= 128);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("GET_PARAM refuses other pipes, pad, pointer lengths and unknown params with EINVAL", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    uapi::drm_msm_param args{0x01 /* MSM_PIPE_2D0 */, uapi::MSM_PARAM_GPU_ID, 0, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == -EINVAL);
    args = {uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_GPU_ID, 0, 8, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == -EINVAL);
    args = {uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_GPU_ID, 0, 0, 1};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == -EINVAL);
    args = {uapi::MSM_PIPE_3D0, 0x7f, 0, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == -EINVAL);
    args = {uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_FAULTS, 99, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == 0);
    CHECK(args.value == 0);
  }
  CHECK(v.sys.leaks().empty());
}

// adreno_gpu.c adreno_get_param: GPU_ID is the catalog's revn, and a part listed without one (the
// a7xx entries of a6xx_catalog.c: ADRENO_CHIP_IDS only) reports its speed bin in bits 32..47 of
// CHIP_ID — 0xffff without a speed-bin fuse (adreno_gpu_init), the "default no-speedbin fallback"
// ids of Mesa's freedreno_devices.py (0xffff07030001, 0xffff43050a01, 0xffff43051401). An a6xx
// part keeps its revn and a bare chip id. Kills: a virtual a7xx node reporting a revn the driver
// does not have, or a chip id without the speed-bin half.
TEST_CASE("GET_PARAM reports the catalog's revn and, for a7xx parts without one, the speed bin above the chip id",
          "[virtual-kernel][msm]") {
  struct Expected {
    const char* model;
    std::uint64_t gpu_id, chip_id;
  };
  for (const Expected& expected : {Expected{"a630", 630, 0x06030001}, Expected{"a730", 0, 0xffff07030001},
                                   Expected{"a740", 0, 0xffff43050a01}, Expected{"a750", 0, 0xffff43051401}}) {
    INFO(expected.model);
    virt::VirtualGpuConfig config;
    config.model = *virt::find_gpu_model(expected.model);
    VirtualMsm v(config);
    {
      RawFile file(v.sys);
      uapi::drm_msm_param args{uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_GPU_ID, 0, 0, 0};
      REQUIRE(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == 0);
      CHECK(args.value == expected.gpu_id);
      args = {uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_CHIP_ID, 0, 0, 0};
      REQUIRE(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &args) == 0);
      CHECK(args.value == expected.chip_id);
    }
    CHECK(v.sys.leaks().empty());
  }
}

TEST_CASE("GEM_NEW validates flags and size, and hands out the lowest free handle from 1", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    for (std::uint32_t flags : {0x100u | uapi::MSM_BO_WC, 0u, uapi::MSM_BO_WC | uapi::MSM_BO_CACHED, 0x00100000u,
                                uapi::MSM_BO_UNCACHED}) {
      uapi::drm_msm_gem_new args{4096, flags, 0};
      CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_NEW, &args) == -EINVAL);
    }
    uapi::drm_msm_gem_new empty{0, uapi::MSM_BO_WC, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_NEW, &empty) == -EINVAL);

    CHECK(file.gem_new(1) == 1);
    CHECK(file.gem_new(4096) == 2);
    CHECK(file.gem_new(5000, uapi::MSM_BO_CACHED | uapi::MSM_BO_GPU_READONLY) == 3);
    CHECK(file.info(3, uapi::MSM_INFO_GET_FLAGS) == (uapi::MSM_BO_CACHED | uapi::MSM_BO_GPU_READONLY));
    CHECK(file.gem_close(2) == 0);
    CHECK(file.gem_close(2) == -EINVAL);   // drm_gem_handle_delete: gone
    CHECK(file.gem_close(77) == -EINVAL);
    CHECK(file.gem_new(4096) == 2);  // idr reuses the lowest free id
    for (std::uint32_t handle : {1u, 2u, 3u}) CHECK(file.gem_close(handle) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("GEM_INFO gives distinct page-aligned offsets and iovas in their ranges and refuses bad requests",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  std::mt19937 rng(4);
  {
    RawFile file(v.sys);
    std::vector<std::uint32_t> handles;
    std::vector<std::uint64_t> sizes;
    for (int i = 0; i < 12; ++i) {
      sizes.push_back(1 + rng() % (256 * 1024));
      handles.push_back(file.gem_new(sizes.back()));
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> offsets, iovas;
    for (std::size_t i = 0; i < handles.size(); ++i) {
      const std::uint64_t span = (sizes[i] + 4095) & ~4095ull;
      const std::uint64_t offset = file.info(handles[i], uapi::MSM_INFO_GET_OFFSET);
      const std::uint64_t iova = file.info(handles[i], uapi::MSM_INFO_GET_IOVA);
      CHECK(file.info(handles[i], uapi::MSM_INFO_GET_OFFSET) == offset);  // stable
      CHECK(file.info(handles[i], uapi::MSM_INFO_GET_IOVA) == iova);
      CHECK(offset % 4096 == 0);
      CHECK(offset >= 0x100000000ull);  // DRM_FILE_PAGE_OFFSET_START
      CHECK(iova % 4096 == 0);
      CHECK(iova >= 0x100000000ull);
      CHECK(iova + span <= 0x200000000ull);
      offsets.emplace_back(offset, span);
      iovas.emplace_back(iova, span);
    }
    for (auto* ranges : {&offsets, &iovas}) {
      std::sort(ranges->begin(), ranges->end());
      for (std::size_t i = 1; i < ranges->size(); ++i) CHECK((*ranges)[i - 1].first + (*ranges)[i - 1].second <= (*ranges)[i].first);
    }

    uapi::drm_msm_gem_info args{handles[0], uapi::MSM_INFO_GET_IOVA, 0, 0, 1};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args) == -EINVAL);  // pad
    args = {handles[0], uapi::MSM_INFO_GET_IOVA, 0, 4, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args) == -EINVAL);  // len on a by-value request
    args = {handles[0], 0x42, 0, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args) == -EINVAL);  // unknown request
    args = {999, uapi::MSM_INFO_GET_IOVA, 0, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args) == -ENOENT);  // unknown handle

    // mmap: an offset naming no object, or a length past the object, is EINVAL.
    CHECK(v.sys.mmap(4096, PROT_READ, MAP_SHARED, file.fd, 0x7000000000).error == EINVAL);
    const std::size_t first_span = (sizes[0] + 4095) & ~4095ull;
    CHECK(v.sys.mmap(first_span + 4096, PROT_READ, MAP_SHARED, file.fd,
                     static_cast<off_t>(file.info(handles[0], uapi::MSM_INFO_GET_OFFSET)))
              .error == EINVAL);
    for (auto handle : handles) CHECK(file.gem_close(handle) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("submitqueues: ids from 1, priorities checked, queue 0 exists but cannot be closed", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    CHECK(file.queue_new(0) == 1);
    CHECK(file.queue_new(2) == 2);
    uapi::drm_msm_submitqueue bad{0, 3, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &bad) == -EINVAL);  // prio >= MSM_PARAM_PRIORITIES
    bad = {1, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &bad) == -EINVAL);  // unknown flags
    CHECK(file.queue_close(0) == -ENOENT);
    CHECK(file.queue_close(9) == -ENOENT);
    CHECK(file.faults(0) == 0);  // the default queue answers queries

    std::uint32_t value = 0;
    uapi::drm_msm_submitqueue_query query{reinterpret_cast<std::uintptr_t>(&value), 1,
                                          uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, 0, 0};
    REQUIRE(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &query) == 0);
    CHECK(query.len == 4);  // len 0 asks for the size
    query = {reinterpret_cast<std::uintptr_t>(&value), 1, uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, 4, 1};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &query) == -EINVAL);  // pad
    query = {reinterpret_cast<std::uintptr_t>(&value), 1, 5, 4, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &query) == -EINVAL);  // param
    query = {reinterpret_cast<std::uintptr_t>(&value), 7, uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, 4, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &query) == -ENOENT);  // queue

    CHECK(file.queue_close(1) == 0);
    CHECK(file.queue_close(1) == -ENOENT);
    CHECK(file.queue_new(1) == 3);  // ids are not reused
    CHECK(file.queue_close(2) == 0);
    CHECK(file.queue_close(3) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("GEM_SUBMIT refuses malformed submissions with the driver's errno", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    const std::uint32_t queue = file.queue_new();
    const std::uint32_t ib = file.gem_new(4096), data = file.gem_new(4096);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 4096));
    const GpuAddress data_va(file.info(data, uapi::MSM_INFO_GET_IOVA));
    const Pm4 stream = Pm4{}.mem_write(data_va, {42});
    std::memcpy(words, stream.words.data(), stream.words.size() * 4);
    const std::uint32_t bytes = static_cast<std::uint32_t>(stream.words.size() * 4);
    const std::vector<uapi::drm_msm_gem_submit_bo> table = {{kRead, ib, 0}, {kRead | kWrite, data, 0}};

    CHECK(file.submit(queue, table, {cmd(0, 0, bytes)}, nullptr, uapi::MSM_PIPE_3D0, 1) == -EINVAL);  // pad
    CHECK(file.submit(queue, table, {cmd(0, 0, bytes)}, nullptr, 0x01) == -EINVAL);  // 2D pipe
    CHECK(file.submit(queue, table, {cmd(0, 0, bytes)}, nullptr, uapi::MSM_PIPE_3D0 | 0x00100000) == -EINVAL);
    CHECK(file.submit(queue, table, {cmd(0, 0, bytes)}, nullptr, uapi::MSM_PIPE_3D0 | uapi::MSM_SUBMIT_SUDO) == -EINVAL);
    CHECK(file.submit(55, table, {cmd(0, 0, bytes)}) == -ENOENT);  // queue
    CHECK(file.submit(queue, {{0, ib, 0}}, {cmd(0, 0, bytes)}) == -EINVAL);  // neither READ nor WRITE
    CHECK(file.submit(queue, {{kRead | 0x10, ib, 0}}, {cmd(0, 0, bytes)}) == -EINVAL);  // unknown bo flag
    CHECK(file.submit(queue, {{kRead, 77, 0}}, {cmd(0, 0, bytes)}) == -EINVAL);  // unknown handle
    CHECK(file.submit(queue, table, {cmd(0, 0, bytes, 4)}) == -EINVAL);  // unknown cmd type
    CHECK(file.submit(queue, table, {cmd(0, 0, 6)}) == -EINVAL);  // size not a dword multiple
    CHECK(file.submit(queue, {{kRead, ib, 0}, {kWrite, data, 0}, {kRead, ib, 0}}, {cmd(0, 0, bytes)}) == -EALREADY);
    CHECK(file.submit(queue, table, {cmd(2, 0, bytes)}) == -EINVAL);     // index outside the table
    CHECK(file.submit(queue, {}, {cmd(0, 0, bytes)}) == -EINVAL);        // the IB's object is not in the table
    CHECK(file.submit(queue, table, {cmd(0, 0, 0)}) == -EINVAL);         // empty IB
    CHECK(file.submit(queue, table, {cmd(0, 4092, 8)}) == -EINVAL);      // IB past its object
    auto with_relocs = cmd(0, 0, bytes);
    with_relocs.nr_relocs = 1;
    CHECK(file.submit(queue, table, {with_relocs}) == -EINVAL);          // no relocs on a6xx

    // Nothing above was queued: the first good submission gets fence 1, the next 2, and a
    // second queue counts on its own.
    std::uint32_t fence = 0;
    REQUIRE(file.submit(queue, table, {cmd(0, 0, bytes)}, &fence) == 0);
    CHECK(fence == 1);
    REQUIRE(file.submit(queue, table, {cmd(0, 0, bytes)}, &fence) == 0);
    CHECK(fence == 2);
    const std::uint32_t other = file.queue_new(1);
    REQUIRE(file.submit(other, table, {cmd(0, 0, bytes)}, &fence) == 0);
    CHECK(fence == 1);

    // WAIT_FENCE: beyond the last submission EINVAL, unknown queue ENOENT, unknown flags EINVAL.
    CHECK(file.wait(queue, 3, 1000000000) == -EINVAL);
    CHECK(file.wait(42, 1, 1000000000) == -ENOENT);
    CHECK(file.wait(queue, 2, 1000000000, 2) == -EINVAL);
    CHECK(file.wait(queue, 2, 5000000000ll) == 0);
    CHECK(file.wait(other, 1, 5000000000ll) == 0);
    CHECK(file.faults(queue) == 0);

    v.sys.munmap(words, 4096);
    CHECK(file.queue_close(queue) == 0);
    CHECK(file.queue_close(other) == 0);
    CHECK(file.gem_close(ib) == 0);
    CHECK(file.gem_close(data) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("null user pointers are EFAULT and a full GPU address space is ENOSPC", "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    // drm_ioctl.c drm_ioctl: copy_from_user of the argument fails → -EFAULT, before the driver.
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_NEW, nullptr) == -EFAULT);
    CHECK(file.call(uapi::DRM_IOCTL_MSM_WAIT_FENCE, nullptr) == -EFAULT);
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, nullptr) == -EFAULT);

    // msm_submitqueue.c msm_submitqueue_query_faults: copy_to_user(data) fails → -EFAULT.
    uapi::drm_msm_submitqueue_query query{0, 0, uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, 4, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &query) == -EFAULT);

    // msm_gem_submit.c submit_lookup_objects / submit_lookup_cmds: copy_from_user of a table
    // entry fails → -EFAULT.
    const std::uint32_t queue = file.queue_new();
    const std::uint32_t ib = file.gem_new(4096);
    uapi::drm_msm_gem_submit args{};
    args.flags = uapi::MSM_PIPE_3D0;
    args.queueid = queue;
    args.nr_bos = 1;
    args.bos = 0;
    uapi::drm_msm_gem_submit_cmd one = cmd(0, 0, 16);
    args.nr_cmds = 1;
    args.cmds = reinterpret_cast<std::uintptr_t>(&one);
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, &args) == -EFAULT);  // nr_bos 1, bos NULL
    uapi::drm_msm_gem_submit_bo entry{kRead, ib, 0};
    args.bos = reinterpret_cast<std::uintptr_t>(&entry);
    args.cmds = 0;
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, &args) == -EFAULT);  // nr_cmds 1, cmds NULL

    // The per-process address space is 4 GiB (MSM_PARAM_VA_SIZE): a 3 GiB object gets an iova,
    // a 2 GiB one then finds no hole. msm_gem_vma.c msm_gem_vma_init passes on what
    // drm_mm.c drm_mm_insert_node_in_range returns when no hole fits: -ENOSPC. Objects are
    // mapped on first use, so GEM_NEW itself succeeds.
    const std::uint32_t big = file.gem_new(3ull << 30), more = file.gem_new(2ull << 30);
    CHECK(file.info(big, uapi::MSM_INFO_GET_IOVA) >= 0x100000000ull);
    uapi::drm_msm_gem_info info{more, uapi::MSM_INFO_GET_IOVA, 0, 0, 0};
    CHECK(file.call(uapi::DRM_IOCTL_MSM_GEM_INFO, &info) == -ENOSPC);
    // Once the big one is gone there is room again.
    CHECK(file.gem_close(big) == 0);
    CHECK(file.info(more, uapi::MSM_INFO_GET_IOVA) >= 0x100000000ull);

    CHECK(file.gem_close(more) == 0);
    CHECK(file.gem_close(ib) == 0);
    CHECK(file.queue_close(queue) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a GPU write into a hole that never held an object is a page fault: logged, counted nowhere",
          "[virtual-kernel][msm]") {
  // adreno_gpu.c adreno_fault_handler prints "*** gpu fault", takes a devcoredump and resumes
  // translation; only msm_gpu.c recover_worker (a hang) bumps the counters.
  VirtualMsm v;
  {
    RawFile file(v.sys);
    const std::uint32_t queue = file.queue_new();
    const std::uint32_t ib = file.gem_new(4096), target = file.gem_new(4096);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 4096));
    auto* target_words = static_cast<std::uint32_t*>(file.map(target, 4096));
    const GpuAddress target_va(file.info(target, uapi::MSM_INFO_GET_IOVA));
    const GpuAddress hole = target_va + (1ull << 30);
    const Pm4 stream = Pm4{}.mem_write(hole, {1}).mem_write(target_va, {7});
    std::memcpy(words, stream.words.data(), stream.words.size() * 4);
    std::uint32_t fence = 0;
    REQUIRE(file.submit(queue, {{kRead, ib, 0}, {kWrite, target, 0}},
                        {cmd(0, 0, static_cast<std::uint32_t>(stream.words.size() * 4))}, &fence) == 0);
    CHECK(file.wait(queue, fence, 5000000000ll) == 0);
    CHECK(target_words[0] == 7);  // the stream went on past the fault
    CHECK(file.faults(queue) == 0);
    uapi::drm_msm_param faults{uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_FAULTS, 0, 0, 0};
    REQUIRE(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &faults) == 0);
    CHECK(faults.value == 0);
    v.sys.munmap(words, 4096);
    v.sys.munmap(target_words, 4096);
    CHECK(file.queue_close(queue) == 0);
    CHECK(file.gem_close(ib) == 0);
    CHECK(file.gem_close(target) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("an object left out of the submit table is not kept alive: closing it faults the GPU (stricter than hardware)",
          "[virtual-kernel][msm]") {
  VirtualMsm v;
  {
    RawFile file(v.sys);
    const std::uint32_t queue = file.queue_new();
    const std::uint32_t ib = file.gem_new(4096), target = file.gem_new(4096);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 4096));
    const GpuAddress ib_va(file.info(ib, uapi::MSM_INFO_GET_IOVA));
    const GpuAddress target_va(file.info(target, uapi::MSM_INFO_GET_IOVA));
    // Wait for the CPU's go at dword 512 of the IB's object, then write into `target`.
    const Pm4 stream = Pm4{}.wait_equal(ib_va + 2048, 1).mem_write(target_va, {7});
    std::memcpy(words, stream.words.data(), stream.words.size() * 4);
    std::uint32_t fence = 0;
    REQUIRE(file.submit(queue, {{kRead, ib, 0}}, {cmd(0, 0, static_cast<std::uint32_t>(stream.words.size() * 4))},
                        &fence) == 0);
    CHECK(file.gem_close(target) == 0);  // nothing else references it: its VA goes away
    words[512] = 1;
    // Hardware would log a page fault and go on; the virtual node treats a write to where a
    // freed object of this file was, outside the table, as the bo-table fault it is.
    CHECK(file.wait(queue, fence, 5000000000ll) == 0);  // the fence signals…
    CHECK(file.faults(queue) == 1);                      // …but the queue took a fault
    uapi::drm_msm_param faults{uapi::MSM_PIPE_3D0, uapi::MSM_PARAM_FAULTS, 0, 0, 0};
    REQUIRE(file.call(uapi::DRM_IOCTL_MSM_GET_PARAM, &faults) == 0);
    CHECK(faults.value == 1);
    v.sys.munmap(words, 4096);
    CHECK(file.queue_close(queue) == 0);
    CHECK(file.gem_close(ib) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("implicit sync holds a submission for another queue's fences on the objects it lists, unless opted out",
          "[virtual-kernel][msm]") {
  // msm_gem_submit.c submit_fence_sync: without MSM_SUBMIT_NO_IMPLICIT, an entry without
  // MSM_SUBMIT_BO_NO_IMPLICIT waits for the object's fences — all of them when it writes, the
  // write fences when it reads (drm_sched_job_add_implicit_dependencies). The holder sits on
  // ring 0 behind a CP wait on a host-set word; the other queue runs on ring 1.
  VirtualMsm v({}, {.rings = 2});
  {
    RawFile file(v.sys);
    const std::uint32_t holder = file.queue_new(0), other = file.queue_new(virt::kMsmPrioritiesPerRing);
    const std::uint32_t ib = file.gem_new(4096), gate = file.gem_new(4096), shared = file.gem_new(4096),
                        result = file.gem_new(4096);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 4096));
    auto* gate_words = static_cast<std::uint32_t*>(file.map(gate, 4096));
    auto* result_words = static_cast<std::uint32_t*>(file.map(result, 4096));
    const GpuAddress gate_va(file.info(gate, uapi::MSM_INFO_GET_IOVA)), shared_va(file.info(shared, uapi::MSM_INFO_GET_IOVA)),
        result_va(file.info(result, uapi::MSM_INFO_GET_IOVA));
    struct Round {
      std::uint32_t holder_use;  // how the held submission lists `shared`
      std::uint32_t other_use;   // how the other queue's submission lists it
      std::uint32_t other_flags;
      bool held;
    };
    const std::uint32_t opt_out = kRead | kWrite | uapi::MSM_SUBMIT_BO_NO_IMPLICIT;
    const std::vector<Round> rounds = {
        {kWrite, kRead | kWrite, 0, true},                              // write after write
        {kWrite, kRead, 0, true},                                       // read after write
        {kRead, kRead | kWrite, 0, true},                               // write after read
        {kRead, kRead, 0, false},                                       // read after read
        {kWrite, kRead | kWrite, uapi::MSM_SUBMIT_NO_IMPLICIT, false},  // the submission opts out
        {kWrite, opt_out, 0, false},                                    // the entry opts out
    };
    for (std::uint32_t i = 0; i < rounds.size(); ++i) {
      CAPTURE(i);
      const Round& round = rounds[i];
      const std::uint32_t mark = 100 + i;
      const Pm4 held = Pm4{}.wait_equal(gate_va, mark).mem_write(shared_va, {mark});
      const Pm4 writes = Pm4{}.mem_write(result_va, {mark});
      std::memcpy(words, held.words.data(), held.words.size() * 4);
      std::memcpy(words + 512, writes.words.data(), writes.words.size() * 4);
      std::uint32_t holder_fence = 0, other_fence = 0;
      REQUIRE(file.submit(holder, {{kRead, ib, 0}, {kRead, gate, 0}, {round.holder_use, shared, 0}},
                          {cmd(0, 0, static_cast<std::uint32_t>(held.words.size() * 4))}, &holder_fence) == 0);
      REQUIRE(file.submit(other, {{kRead, ib, 0}, {round.other_use, shared, 0}, {kWrite, result, 0}},
                          {cmd(0, 2048, static_cast<std::uint32_t>(writes.words.size() * 4))}, &other_fence,
                          uapi::MSM_PIPE_3D0 | round.other_flags) == 0);
      if (round.held) {
        CHECK(file.wait(other, other_fence, 100000000) == -ETIMEDOUT);
        CHECK(result_words[0] != mark);
      } else {
        CHECK(file.wait(other, other_fence, 5000000000ll) == 0);
        CHECK(result_words[0] == mark);
        CHECK(file.wait(holder, holder_fence, 0) == -ETIMEDOUT);  // it ran past the held one
      }
      std::atomic_ref<std::uint32_t>(gate_words[0]).store(mark, std::memory_order_release);  // the host releases it
      CHECK(file.wait(holder, holder_fence, 5000000000ll) == 0);
      CHECK(file.wait(other, other_fence, 5000000000ll) == 0);
      CHECK(result_words[0] == mark);
    }
    v.sys.munmap(words, 4096);
    v.sys.munmap(gate_words, 4096);
    v.sys.munmap(result_words, 4096);
    CHECK(file.queue_close(holder) == 0);
    CHECK(file.queue_close(other) == 0);
    for (std::uint32_t handle : {ib, gate, shared, result}) CHECK(file.gem_close(handle) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a syncobj in-fence holds a submission in the scheduler, not on the ring, and its entity waits with it",
          "[virtual-kernel][msm]") {
  // msm_syncobj.c msm_syncobj_parse_deps / _parse_post_deps; drm_syncobj.c for the handles.
  // Two rings (6 priorities): the producer sits on ring 0 behind a CP wait on a host-set word;
  // the consumer waits for its syncobj on ring 1. A queue of the consumer's priority shares its
  // scheduler entity and runs behind it (msm_submitqueue.c get_sched_entity); one of another
  // priority on ring 1 runs at once.
  VirtualMsm v({}, {.rings = 2});
  {
    RawFile file(v.sys);
    const std::uint32_t producer = file.queue_new(0), consumer = file.queue_new(3), same_entity = file.queue_new(3),
                        bystander = file.queue_new(4);
    const std::uint32_t ib = file.gem_new(4096), gate = file.gem_new(4096), result = file.gem_new(4096);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 4096));
    auto* gate_words = static_cast<std::uint32_t*>(file.map(gate, 4096));
    auto* result_words = static_cast<std::uint32_t*>(file.map(result, 4096));
    const GpuAddress gate_va(file.info(gate, uapi::MSM_INFO_GET_IOVA)), result_va(file.info(result, uapi::MSM_INFO_GET_IOVA));
    std::mt19937 rng(12);
    const std::uint32_t mark = rng() | 1;
    // Four streams in the IB object: the producer's (gated), then one write per other queue.
    const Pm4 streams[] = {Pm4{}.wait_equal(gate_va, mark).mem_write(result_va, {mark}),
                           Pm4{}.mem_write(result_va + 4, {mark + 1}), Pm4{}.mem_write(result_va + 8, {mark + 2}),
                           Pm4{}.mem_write(result_va + 12, {mark + 3})};
    std::vector<uapi::drm_msm_gem_submit_cmd> cmds;
    for (std::uint32_t i = 0; i < 4; ++i) {
      std::memcpy(words + 256 * i, streams[i].words.data(), streams[i].words.size() * 4);
      cmds.push_back(cmd(0, 1024 * i, static_cast<std::uint32_t>(streams[i].words.size() * 4)));
    }
    const std::vector<uapi::drm_msm_gem_submit_bo> table = {{kRead, ib, 0}, {kRead, gate, 0}, {kWrite, result, 0}};

    const std::uint32_t produced = file.syncobj_new(), never_signalled = file.syncobj_new();
    CHECK(produced == 1);
    CHECK(never_signalled == 2);
    std::uint32_t fences[4] = {};
    REQUIRE(file.submit_synced(producer, table, {cmds[0]}, {}, {{produced, 0, 0}}, &fences[0]) == 0);
    REQUIRE(file.submit_synced(consumer, table, {cmds[1]}, {{produced, 0, 0}}, {}, &fences[1]) == 0);  // returns at once
    REQUIRE(file.submit_synced(same_entity, table, {cmds[2]}, {}, {}, &fences[2]) == 0);
    REQUIRE(file.submit_synced(bystander, table, {cmds[3]}, {}, {}, &fences[3]) == 0);
    CHECK(file.wait(bystander, fences[3], 5000000000ll) == 0);  // ring 1 ran it past the held consumer
    CHECK(result_words[3] == mark + 3);
    CHECK(file.wait(consumer, fences[1], 0) == -ETIMEDOUT);
    CHECK(file.wait(same_entity, fences[2], 0) == -ETIMEDOUT);  // behind the consumer in its entity
    CHECK(result_words[1] != mark + 1);
    CHECK(result_words[2] != mark + 2);
    std::atomic_ref<std::uint32_t>(gate_words[0]).store(mark, std::memory_order_release);
    for (std::uint32_t i = 0; i < 3; ++i) CHECK(file.wait(i == 0 ? producer : i == 1 ? consumer : same_entity, fences[i], 5000000000ll) == 0);
    for (std::uint32_t i = 0; i < 4; ++i) CHECK(result_words[i] == mark + i);

    // The driver's checks of the arrays.
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {{produced, 0, 1}}, {}) == -EOPNOTSUPP);  // no timelines
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {{produced, 2, 0}}, {}) == -EINVAL);      // unknown flag
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {{99, 0, 0}}, {}) == -ENOENT);            // no such syncobj
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {{never_signalled, 0, 0}}, {}) == -EINVAL);  // no fence
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {}, {{produced, uapi::MSM_SUBMIT_SYNCOBJ_RESET, 0}}) == -EINVAL);
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {}, {{produced, 0, 1}}) == -EOPNOTSUPP);
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {}, {{99, 0, 0}}) == -EINVAL);
    // RESET takes the fence away after the submission: the next wait for it has none.
    REQUIRE(file.submit_synced(consumer, table, {cmds[1]}, {{produced, uapi::MSM_SUBMIT_SYNCOBJ_RESET, 0}}, {}, &fences[1]) == 0);
    CHECK(file.submit_synced(consumer, table, {cmds[1]}, {{produced, 0, 0}}, {}) == -EINVAL);
    CHECK(file.wait(consumer, fences[1], 5000000000ll) == 0);

    drm_syncobj_create bad_create{0, 2};
    CHECK(file.call(DRM_IOCTL_SYNCOBJ_CREATE, &bad_create) == -EINVAL);
    CHECK(file.syncobj_destroy(produced, 1) == -EINVAL);
    // A live syncobj is in the ledger.
    const auto live = v.sys.leaks();
    CHECK(std::count_if(live.begin(), live.end(), [](const std::string& line) { return line.find("syncobj") != std::string::npos; }) == 2);
    CHECK(file.syncobj_destroy(produced) == 0);
    CHECK(file.syncobj_destroy(produced) == -EINVAL);
    CHECK(file.syncobj_destroy(never_signalled) == 0);
    v.sys.munmap(words, 4096);
    v.sys.munmap(gate_words, 4096);
    v.sys.munmap(result_words, 4096);
    for (std::uint32_t queue : {producer, consumer, same_entity, bystander}) CHECK(file.queue_close(queue) == 0);
    for (std::uint32_t handle : {ib, gate, result}) CHECK(file.gem_close(handle) == 0);
  }
  CHECK(v.sys.leaks().empty());
}

TEST_CASE("a cached object's pages hold dirty zero lines until the CPU cleans them: written back over the GPU's results",
          "[virtual-kernel][msm]") {
  // msm_gem.c get_pages() cleans new pages only for MSM_BO_WC objects; a MSM_BO_CACHED object's
  // zeroed pages keep dirty lines, which DC CVAC / DC CIVAC write back first. The GPU writes
  // every object, then the CPU cleans and invalidates each whole mapping to read it.
  VirtualMsm v;
  {
    RawFile file(v.sys);
    const std::uint32_t queue = file.queue_new();
    const std::uint32_t ib = file.gem_new(32768);  // 4 × 4 CP_MEM_WRITEs of 256 dwords
    const std::uint32_t cached = file.gem_new(4096, uapi::MSM_BO_CACHED);   // never cleaned
    const std::uint32_t cleaned = file.gem_new(4096, uapi::MSM_BO_CACHED);  // cleaned whole after mmap
    const std::uint32_t partly = file.gem_new(4096, uapi::MSM_BO_CACHED);   // bytes 70..71 cleaned
    const std::uint32_t wc = file.gem_new(4096, uapi::MSM_BO_WC);
    auto* words = static_cast<std::uint32_t*>(file.map(ib, 32768));
    std::uint32_t* targets[] = {static_cast<std::uint32_t*>(file.map(cached, 4096)),
                                static_cast<std::uint32_t*>(file.map(cleaned, 4096)),
                                static_cast<std::uint32_t*>(file.map(partly, 4096)),
                                static_cast<std::uint32_t*>(file.map(wc, 4096))};
    const std::uint32_t handles[] = {cached, cleaned, partly, wc};
    using Op = sys::Syscalls::CacheMaintenance;
    v.sys.maintain_dcache(Op::clean, targets[1], 4096);
    v.sys.maintain_dcache(Op::clean, reinterpret_cast<std::byte*>(targets[2]) + 70, 2);  // the line of bytes 64..127
    std::mt19937 rng(2024);
    std::vector<std::uint32_t> values(1024);
    for (auto& value : values) value = static_cast<std::uint32_t>(rng()) | 1;  // never zero
    Pm4 stream;
    for (const std::uint32_t handle : handles) {
      const GpuAddress va(file.info(handle, uapi::MSM_INFO_GET_IOVA));
      for (std::size_t at = 0; at < values.size(); at += 256)
        stream.mem_write(va + at * 4, std::vector<std::uint32_t>(values.begin() + static_cast<long>(at),
                                                                 values.begin() + static_cast<long>(at + 256)));
    }
    std::memcpy(words, stream.words.data(), stream.words.size() * 4);
    std::uint32_t fence = 0;
    REQUIRE(file.submit(queue, {{kRead, ib, 0}, {kWrite, cached, 0}, {kWrite, cleaned, 0}, {kWrite, partly, 0}, {kWrite, wc, 0}},
                        {cmd(0, 0, static_cast<std::uint32_t>(stream.words.size() * 4))}, &fence) == 0);
    REQUIRE(file.wait(queue, fence, 5000000000ll) == 0);
    // Before any maintenance the mappings show the GPU's values: the dirty lines are not back yet.
    for (std::uint32_t* target : targets)
      for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(target[i] == values[i]);
    for (std::uint32_t* target : targets) v.sys.maintain_dcache(Op::clean_invalidate, target, 4096);
    for (std::size_t i = 0; i < values.size(); ++i) {
      CAPTURE(i);
      REQUIRE(targets[0][i] == 0);                                 // every line was dirty: the zeros landed
      REQUIRE(targets[1][i] == values[i]);                         // cleaned before the GPU wrote
      REQUIRE(targets[2][i] == (i / 16 == 1 ? values[i] : 0u));   // only the line of bytes 64..127 was cleaned
      REQUIRE(targets[3][i] == values[i]);                         // write-combined: the driver cleaned it
    }
    // Written back once, the lines are clean: the GPU's next values stay.
    std::memcpy(targets[0], values.data(), 4096);
    v.sys.maintain_dcache(Op::clean_invalidate, targets[0], 4096);
    for (std::size_t i = 0; i < values.size(); ++i) REQUIRE(targets[0][i] == values[i]);
    v.sys.munmap(words, 32768);
    for (std::uint32_t* target : targets) v.sys.munmap(target, 4096);
    CHECK(file.queue_close(queue) == 0);
    CHECK(file.gem_close(ib) == 0);
    for (const std::uint32_t handle : handles) CHECK(file.gem_close(handle) == 0);
  }
  CHECK(v.sys.leaks().empty());
}
