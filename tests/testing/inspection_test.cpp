// [virtual-kernel] What a test can ask the kit after the application ran: the ledger of live
// kernel objects (buffers with size, flags and GPU address, CPU mappings, contexts,
// descriptors), the log of calls and the submissions with their IBs and buffer table. Expected
// values come from the drivers' UAPI (kgsl_abi.h, msm_abi.h), never from the kit.
#include "kit_support.h"

#include "kgsl/kgsl_abi.h"
#include "msm/msm_abi.h"

#include <adreno/error.hpp>

#include <sys/mman.h>

#include <algorithm>

using namespace adreno;
using namespace adreno::testing;
using namespace std::chrono_literals;

namespace {

std::vector<KernelObject> of_kind(const std::vector<KernelObject>& ledger, KernelObject::Kind kind) {
  std::vector<KernelObject> found;
  std::copy_if(ledger.begin(), ledger.end(), std::back_inserter(found), [&](const auto& o) { return o.kind == kind; });
  return found;
}

const KernelObject* buffer_with_id(const std::vector<KernelObject>& ledger, std::uint64_t id) {
  for (const KernelObject& object : ledger) {
    if (object.kind == KernelObject::Kind::buffer && object.id == id) return &object;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the ledger lists each live buffer with its size, flags and GPU address, its mapping and the contexts",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  const auto at_open = test.ledger();
  CHECK(of_kind(at_open, KernelObject::Kind::descriptor).size() == 1);  // the device node
  std::uint64_t id = 0;
  {
    Buffer buffer = test.device().allocate(
        {.size = 100 * 1024, .memory = MemoryType::cached, .gpu_read_only = true, .exportable = true});
    const KernelObjectRef ref = kernel_object_of(buffer);
    id = ref.object;
    const auto ledger = test.ledger();
    const KernelObject* object = buffer_with_id(ledger, ref.object);
    REQUIRE(object != nullptr);
    CHECK(object->size == 100 * 1024);  // a whole number of pages already
    CHECK(object->address == ref.gpu_address);
    if (driver == Driver::kgsl) {
      CHECK(((object->flags & KGSL_CACHEMODE_MASK) >> KGSL_CACHEMODE_SHIFT) == KGSL_CACHEMODE_WRITEBACK);
      CHECK((object->flags & KGSL_MEMFLAGS_GPUREADONLY) != 0);
    } else {
      CHECK((object->flags & msm::uapi::MSM_BO_CACHE_MASK) == msm::uapi::MSM_BO_CACHED);
      CHECK((object->flags & msm::uapi::MSM_BO_GPU_READONLY) != 0);
    }
    // Host-visible: one CPU mapping of that object.
    const auto mappings = of_kind(ledger, KernelObject::Kind::mapping);
    CHECK(std::count_if(mappings.begin(), mappings.end(), [&](const auto& m) { return m.id == ref.object; }) == 1);

    Queue queue(test.device(), {.priority = 0});
    CHECK(of_kind(test.ledger(), KernelObject::Kind::context).size() == 1);
  }
  // The buffer and the queue are gone: so are their kernel objects.
  CHECK(buffer_with_id(test.ledger(), id) == nullptr);
  CHECK(of_kind(test.ledger(), KernelObject::Kind::context).empty());
  close_without_leaks(test);
}

TEST_CASE("closing while the application still holds a buffer reports it as a leak", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  Buffer kept = own_object(test.device(), 8192);
  const auto leaks = test.close();
  REQUIRE_FALSE(leaks.empty());
  const std::string object = driver == Driver::kgsl ? "mem entry " : "GEM handle ";
  CHECK(std::any_of(leaks.begin(), leaks.end(), [&](const std::string& leak) {
    return leak.find(object + std::to_string(kernel_object_of(kept).object)) != std::string::npos;
  }));
  CHECK_THROWS_AS(test.device(), Error);
}

TEST_CASE("the log holds exactly the submission the application made, its IBs and its buffer table",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  {
    Buffer out = own_object(test.device(), 4096);
    Buffer untouched = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.clear_log();
    const std::uint64_t fence = submit_write(queue, out, {0xcafe, 0xf00d});
    CHECK(queue.wait_fence(fence, 5s));
    CHECK(read_back(out, 2) == std::vector<std::uint32_t>{0xcafe, 0xf00d});

    const auto submissions = test.submissions();
    REQUIRE(submissions.size() == 1);
    const Submission& submission = submissions[0];
    CHECK(submission.error == 0);
    CHECK(submission.fence == fence);
    CHECK(test.calls(Operation::submit).size() == 1);
    // Every IB lies inside a live buffer object of the ledger.
    REQUIRE_FALSE(submission.ibs.empty());
    const auto ledger = test.ledger();
    for (const Ib& ib : submission.ibs) {
      const KernelObject* object = buffer_with_id(ledger, ib.object);
      REQUIRE(object != nullptr);
      CHECK(ib.gpu_address >= object->address);
      CHECK(ib.gpu_address + ib.dwords * 4u <= object->address + object->size);
      CHECK(ib.dwords > 0);
    }
    if (driver == Driver::msm) {
      // MSM lists every object the GPU touches; the written one with MSM_SUBMIT_BO_WRITE.
      CHECK(submission.lists(out));
      CHECK_FALSE(submission.lists(untouched));
      const auto entry = std::find_if(submission.table.begin(), submission.table.end(),
                                      [&](const TableEntry& e) { return e.object == kernel_object_of(out).object; });
      REQUIRE(entry != submission.table.end());
      CHECK(entry->write);
    } else {
      // KGSL maps every object of the process; the library lists none.
      CHECK(submission.table.empty());
      CHECK_FALSE(submission.lists(out));
    }
  }
  close_without_leaks(test);
}

TEST_CASE("each logged call names its ioctl, the arguments that matter and the result", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  test.clear_log();
  std::uint64_t id = 0;
  {
    Buffer buffer = own_object(test.device(), 3 * 4096);
    id = kernel_object_of(buffer).object;
  }
  const auto allocs = test.calls(Operation::alloc);
  REQUIRE(allocs.size() == 1);
  CHECK(allocs[0].name == (driver == Driver::kgsl ? "IOCTL_KGSL_GPUOBJ_ALLOC" : "DRM_IOCTL_MSM_GEM_NEW"));
  CHECK(allocs[0].size == 3 * 4096);
  CHECK(allocs[0].object == id);
  CHECK(allocs[0].error == 0);
  CHECK(allocs[0].arguments.rfind("size=12288 flags=0x", 0) == 0);
  const auto frees = test.calls(Operation::free);
  REQUIRE(frees.size() == 1);
  CHECK(frees[0].object == id);
  // mmap and munmap of the buffer's CPU view, in order, the same length.
  const auto maps = test.calls(Operation::map), unmaps = test.calls(Operation::unmap);
  REQUIRE(maps.size() == 1);
  REQUIRE(unmaps.size() == 1);
  CHECK(maps[0].size == 3 * 4096);
  CHECK(unmaps[0].size == 3 * 4096);
  // The whole log is in call order: allocation first, the free last.
  const auto all = test.calls();
  REQUIRE_FALSE(all.empty());
  CHECK(all.front().operation == Operation::alloc);
  CHECK(all.back().operation == Operation::free);
  close_without_leaks(test);
}

TEST_CASE("on KGSL, CPU access to an imported dma-buf is bracketed: invalidate_for_cpu starts it, flush_for_gpu ends it",
          "[virtual-kernel][testing]") {
  // The dma-buf UAPI (linux/dma-buf.h, struct dma_buf_sync): CPU access through the dma-buf's
  // own mapping starts with DMA_BUF_SYNC_START and ends with DMA_BUF_SYNC_END, with the same
  // read/write flags, so the exporter can keep its caches right. KGSL's own memory needs none.
  VirtualDevice test({.driver = Driver::kgsl});
  const int fd = ::memfd_create("kit-dmabuf", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, 4 * 4096) == 0);
  {
    Buffer imported = test.device().import_dmabuf(fd);
    Buffer own = test.device().allocate({.size = 4096, .memory = MemoryType::cached});
    REQUIRE(imported.memory_type() == MemoryType::cached);  // kgsl.c: dma-bufs are mapped cached
    test.clear_log();
    imported.invalidate_for_cpu();
    imported.cpu_view().as<std::uint32_t>()[5] = 0x5eed;
    imported.flush_for_gpu();
    own.invalidate_for_cpu();
    own.flush_for_gpu();
  }
  const auto syncs = test.calls(Operation::sync_dmabuf);
  REQUIRE(syncs.size() == 2);
  CHECK(syncs[0].name == "DMA_BUF_IOCTL_SYNC");
  CHECK(syncs[0].arguments == "flags=START|READ|WRITE");
  CHECK(syncs[1].arguments == "flags=END|READ|WRITE");
  for (const Call& sync : syncs) CHECK(sync.error == 0);  // the virtual dma-buf core accepted both
  ::close(fd);
  close_without_leaks(test);
}
