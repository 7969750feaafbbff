// [virtual-kernel] Every kind of fault the kit plans — the Nth call, every call, a seeded random
// fraction of an operation's calls failing with a chosen errno; the Nth submission hanging or
// page-faulting; a dma-buf import refused — reaches the application as the kernel would make it,
// is recorded in the log, and can be cleared; plans belong to one device.
#include "kit_support.h"

#include <adreno/error.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <random>

using namespace adreno;
using namespace adreno::testing;
using namespace std::chrono_literals;

namespace {

/// Allocates `count` buffers with their own kernel object; true where the allocation failed
/// (with `error`).
std::vector<bool> allocation_failures(Device& device, int count, int error) {
  std::vector<bool> failed;
  for (int i = 0; i < count; ++i) {
    try {
      own_object(device, 64 * 1024);
      failed.push_back(false);
    } catch (const Error& e) {
      CHECK(e.sys_errno() == error);
      failed.push_back(true);
    }
  }
  return failed;
}

std::vector<bool> injected(const std::vector<Call>& calls) {
  std::vector<bool> flags;
  for (const Call& call : calls) flags.push_back(call.injected);
  return flags;
}

/// A dma-buf of `size` bytes (a memfd, as the virtual kernels accept).
int make_dmabuf(std::size_t size) {
  const int fd = ::memfd_create("kit-dmabuf", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
  return fd;
}

}  // namespace

TEST_CASE("the Nth call of an operation fails with the chosen errno, the others succeed", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  const int error = GENERATE(ENOMEM, EINVAL, EIO);
  CAPTURE(driver_name(driver), model, error);
  VirtualDevice test({.driver = driver, .model = model});
  test.fail_call(Operation::alloc, error, 3);
  CHECK(allocation_failures(test.device(), 5, error) == std::vector<bool>{false, false, true, false, false});
  const auto allocs = test.calls(Operation::alloc);
  REQUIRE(allocs.size() == 5);
  CHECK(injected(allocs) == std::vector<bool>{false, false, true, false, false});
  CHECK(allocs[2].error == error);
  CHECK(allocs[2].object == 0);  // nothing was made
  CHECK(allocs[1].object != 0);
  close_without_leaks(test);
}

TEST_CASE("every call of an operation fails until the plan is cleared", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  test.fail_every_call(Operation::alloc, ENOSPC);
  CHECK(allocation_failures(test.device(), 4, ENOSPC) == std::vector<bool>(4, true));
  test.clear_faults();
  CHECK(allocation_failures(test.device(), 2, 0) == std::vector<bool>(2, false));
  close_without_leaks(test);
}

TEST_CASE("a seeded random fraction of calls fails, the same ones for the same seed", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  constexpr int kCalls = 64;
  auto run = [&](double fraction, std::uint64_t seed) {
    VirtualDevice test({.driver = driver, .model = model});
    test.fail_random_calls(Operation::alloc, fraction, seed, ENOMEM);
    const std::vector<bool> failed = allocation_failures(test.device(), kCalls, ENOMEM);
    CHECK(injected(test.calls(Operation::alloc)) == failed);
    close_without_leaks(test);
    return failed;
  };
  const std::vector<bool> first = run(0.5, 1234);
  // The draws are a standard 64-bit Mersenne twister's (std::mt19937_64, seeded), 53 bits each
  // as a fraction of one: the pattern is fixed by the C++ standard, on every host.
  std::mt19937_64 random(1234);
  std::vector<bool> expected;
  for (int i = 0; i < kCalls; ++i) expected.push_back(static_cast<double>(random() >> 11) * 0x1.0p-53 < 0.5);
  CHECK(first == expected);
  CHECK(run(0.5, 1234) == first);
  CHECK(run(0.5, 4321) != first);
  CHECK(run(0.0, 1234) == std::vector<bool>(kCalls, false));
  CHECK(run(1.0, 1234) == std::vector<bool>(kCalls, true));
}

TEST_CASE("each operation the application reaches, made to fail, reaches it with the errno and leaks nothing",
          "[virtual-kernel][testing]") {
  struct Case {
    Operation operation;
    bool kgsl, msm;  // the drivers that have it
    void (*run)(Device&);
  };
  static const Case cases[] = {
      {Operation::create_context, true, true, [](Device& device) { Queue queue(device, {.priority = 0}); }},
      {Operation::alloc, true, true, [](Device& device) { own_object(device, 8192); }},
      {Operation::object_info, true, true, [](Device& device) { own_object(device, 8192); }},
      {Operation::map, true, true, [](Device& device) { own_object(device, 8192); }},
      {Operation::export_dmabuf, false, true,
       [](Device& device) { ::close(device.export_dmabuf(own_object(device, 8192))); }},
      {Operation::import_dmabuf, true, true,
       [](Device& device) {
         const int fd = make_dmabuf(8192);
         try {
           device.import_dmabuf(fd);
         } catch (...) {
           ::close(fd);
           throw;
         }
         ::close(fd);
       }},
      {Operation::sync_dmabuf, true, false,
       [](Device& device) {
         const int fd = make_dmabuf(8192);
         try {
           device.import_dmabuf(fd).flush_for_gpu();
         } catch (...) {
           ::close(fd);
           throw;
         }
         ::close(fd);
       }},
      {Operation::import_host_memory, true, false,
       [](Device& device) {
         alignas(4096) static std::byte page[4096];
         device.import_host_memory(page, sizeof page);
       }},
      {Operation::submit, true, true,
       [](Device& device) {
         Buffer out = own_object(device, 4096);
         Queue queue(device);
         submit_write(queue, out, {1});
       }},
  };
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  for (const Case& c : cases) {
    if (!(driver == Driver::kgsl ? c.kgsl : c.msm)) continue;
    CAPTURE(driver_name(driver), model, to_string(c.operation));
    VirtualDevice test({.driver = driver, .model = model});
    test.fail_call(c.operation, EIO);
    try {
      c.run(test.device());
      FAIL("the operation succeeded although its kernel call failed");
    } catch (const Error& error) {
      CHECK(error.sys_errno() == EIO);
    }
    const auto calls = test.calls(c.operation);
    CHECK(std::count_if(calls.begin(), calls.end(), [](const Call& call) { return call.injected; }) == 1);
    close_without_leaks(test);
  }
}

TEST_CASE("a fault plan outside what the driver has is refused", "[virtual-kernel][testing]") {
  VirtualDevice kgsl({.driver = Driver::kgsl});
  CHECK_THROWS_AS(kgsl.fail_call(Operation::export_dmabuf, EINVAL), Error);  // KGSL exports no dma-buf ioctl
  CHECK_THROWS_AS(kgsl.fail_call(Operation::unmap, EINVAL), Error);            // munmap is logged, not failed
  CHECK_THROWS_AS(kgsl.fail_call(Operation::alloc, 0), Error);
  CHECK_THROWS_AS(kgsl.fail_every_call(Operation::submit, EAGAIN), Error);  // would be asked again forever
  CHECK_THROWS_AS(kgsl.fail_every_call(Operation::wait, EINTR), Error);
  CHECK_THROWS_AS(kgsl.fail_call(Operation::alloc, ENOMEM, 0), Error);
  CHECK_THROWS_AS(kgsl.fail_random_calls(Operation::alloc, 1.5, 1, ENOMEM), Error);
  CHECK_THROWS_AS(kgsl.hang_submission(0), Error);
  VirtualDevice msm({.driver = Driver::msm});
  CHECK_THROWS_AS(msm.fail_call(Operation::import_host_memory, EINVAL), Error);  // MSM wraps no user memory
}

TEST_CASE("a failed mmap of a new buffer is reported and leaves no kernel object behind", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  test.fail_call(Operation::map, ENOMEM, 2);
  CHECK(allocation_failures(test.device(), 3, ENOMEM) == std::vector<bool>{false, true, false});
  const auto maps = test.calls(Operation::map);
  REQUIRE(maps.size() == 3);
  CHECK(injected(maps) == std::vector<bool>{false, true, false});
  CHECK(maps[1].error == ENOMEM);
  // The object whose mapping failed went back to the kernel at once.
  const auto allocs = test.calls(Operation::alloc), frees = test.calls(Operation::free);
  REQUIRE(allocs.size() == 3);
  REQUIRE(frees.size() >= 1);
  CHECK(frees[0].object == allocs[1].object);
  close_without_leaks(test);
}

TEST_CASE("fault plans belong to one device", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice failing({.driver = driver, .model = model}), healthy({.driver = driver, .model = model});
  failing.fail_every_call(Operation::alloc, ENOMEM);
  failing.hang_submission(1);
  CHECK(allocation_failures(healthy.device(), 3, 0) == std::vector<bool>(3, false));
  {
    Buffer out = own_object(healthy.device(), 4096);
    Queue queue(healthy.device());
    const std::uint64_t fence = submit_write(queue, out, {7, 8});
    CHECK(queue.wait_fence(fence, 5s));
    CHECK(read_back(out, 2) == std::vector<std::uint32_t>{7, 8});
  }
  CHECK(healthy.faults().empty());
  close_without_leaks(healthy);
  failing.clear_faults();
  close_without_leaks(failing);
}

TEST_CASE("the Nth submission hangs: the hang detector fires and the context is lost, guilty",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model, .hang_timeout = 50ms});
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.hang_submission(2);
    const std::uint64_t first = submit_write(queue, out, {1});
    CHECK(queue.wait_fence(first, 5s));
    const std::uint64_t second = submit_write(queue, out, {2});
    try {
      queue.wait_fence(second, 5s);
      FAIL("the hung submission completed");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
      CHECK(std::string(error.what()).find("guilty") != std::string::npos);
    }
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{1});  // the hung write never ran
    const auto faults = test.faults();
    REQUIRE(faults.size() == 1);
    CHECK(faults[0].kind == GpuFault::Kind::hang);
    CHECK(faults[0].submission == second);
    // The hung submission is the second one the kernel took on that timeline.
    const auto submissions = test.submissions();
    REQUIRE(submissions.size() >= 2);
    CHECK(faults[0].timeline == (driver == Driver::kgsl ? "context " : "submitqueue ") +
                                    std::to_string(submissions.back().context));
  }
  close_without_leaks(test);
}

TEST_CASE("the Nth submission page-faults at the chosen address: logged in the fault record, the work runs and retires",
          "[virtual-kernel][testing]") {
  // The drivers' default: a page fault is logged and the GPU goes on (kgsl_iommu.c
  // kgsl_iommu_fault_handler without GPUHALT; adreno_gpu.c adreno_fault_handler), so the
  // application sees nothing but its results.
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  constexpr std::uint64_t kAddress = 0x7654321000;
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.page_fault_submission(kAddress, 2);
    CHECK(queue.wait_fence(submit_write(queue, out, {4}), 5s));
    const std::uint64_t fence = submit_write(queue, out, {5});
    CHECK(queue.wait_fence(fence, 5s));
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{5});
    const auto faults = test.faults();
    REQUIRE(faults.size() == 1);
    CHECK(faults[0].kind == GpuFault::Kind::page_fault);
    CHECK(faults[0].address == kAddress);
    CHECK(faults[0].submission == fence);
    CHECK(faults[0].timeline == (driver == Driver::kgsl ? "context " : "submitqueue ") + std::to_string(test.submissions().back().context));
    // The queue goes on.
    CHECK(queue.wait_fence(submit_write(queue, out, {6}), 5s));
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{6});
  }
  close_without_leaks(test);
}

TEST_CASE("a planned submission fault cleared before the submission never fires", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model, .hang_timeout = 50ms});
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.hang_submission(1);
    test.clear_faults();
    CHECK(queue.wait_fence(submit_write(queue, out, {3}), 5s));
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{3});
  }
  CHECK(test.faults().empty());
  close_without_leaks(test);
}

TEST_CASE("a dma-buf import fails with the chosen errno and the next one succeeds", "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  const int fd = make_dmabuf(64 * 1024);
  test.fail_call(Operation::import_dmabuf, EBADF);
  try {
    test.device().import_dmabuf(fd);
    FAIL("the import succeeded");
  } catch (const Error& error) {
    CHECK(error.sys_errno() == EBADF);
  }
  for (const KernelObject& object : test.ledger()) CHECK(object.kind != KernelObject::Kind::buffer);
  {
    Buffer imported = test.device().import_dmabuf(fd);
    CHECK(imported.size() == 64 * 1024);
  }
  const auto imports = test.calls(Operation::import_dmabuf);
  REQUIRE(imports.size() == 2);
  CHECK(imports[0].injected);
  CHECK(imports[1].error == 0);
  ::close(fd);
  close_without_leaks(test);
}

TEST_CASE("failing KGSL dma-buf imports leaves user-memory imports of the same ioctl alone",
          "[virtual-kernel][testing]") {
  VirtualDevice test({.driver = Driver::kgsl});
  test.fail_every_call(Operation::import_dmabuf, EINVAL);
  void* memory = std::aligned_alloc(4096, 4096);
  {
    Buffer wrapped = test.device().import_host_memory(memory, 4096);
    CHECK(wrapped.size() == 4096);
  }
  const int fd = make_dmabuf(4096);
  CHECK_THROWS_AS(test.device().import_dmabuf(fd), Error);
  ::close(fd);
  CHECK(test.calls(Operation::import_host_memory).size() == 1);
  close_without_leaks(test);
  std::free(memory);
}

namespace {

/// A queue that writes `values` and waits for them, on a device whose plan is spent or clear.
void write_and_check(Device& device, const std::vector<std::uint32_t>& values) {
  Buffer out = own_object(device, 4096);
  Queue queue(device);
  CHECK(queue.wait_fence(submit_write(queue, out, values), 5s));
  CHECK(read_back(out, values.size()) == values);
}

std::size_t live(const VirtualDevice& test, KernelObject::Kind kind) {
  const auto ledger = test.ledger();
  return static_cast<std::size_t>(
      std::count_if(ledger.begin(), ledger.end(), [&](const KernelObject& object) { return object.kind == kind; }));
}

std::size_t injected_count(const std::vector<Call>& calls) {
  return static_cast<std::size_t>(std::count_if(calls.begin(), calls.end(), [](const Call& call) { return call.injected; }));
}

// EACCES is no errno the library gives a meaning: it must come through as the kernel's refusal.
constexpr int kRefused = EACCES;

}  // namespace

TEST_CASE("an MSM queue asks no GET_PARAM: the address space's fault counter speaks for no queue",
          "[virtual-kernel][testing]") {
  // MSM_PARAM_FAULTS counts every recovered hang of the address space (adreno_gpu.c
  // adreno_get_param), so the backend reads only the queue's own counter: a query plan after
  // open finds nothing to fail.
  VirtualDevice test({.driver = Driver::msm});
  test.clear_log();
  test.fail_every_call(Operation::query, kRefused);
  {
    Queue queue(test.device());
    write_and_check(test.device(), {11, 12});
  }
  CHECK(test.calls(Operation::query).empty());
  test.clear_faults();
  close_without_leaks(test);
}

TEST_CASE("a KGSL query plan leaves the reset-status property of the same ioctl alone", "[virtual-kernel][testing]") {
  VirtualDevice test({.driver = Driver::kgsl, .hang_timeout = 50ms});
  test.fail_every_call(Operation::query, kRefused);
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.hang_submission(1);
    const std::uint64_t fence = submit_write(queue, out, {1});
    try {
      queue.wait_fence(fence, 5s);
      FAIL("the hung submission completed");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
      CHECK_THAT(error.what(), Catch::Contains("guilty"));  // KGSL_PROP_GPU_RESET_STAT answered
      CHECK_THAT(error.what(), !Catch::Contains("page fault"));  // the refused fault report is left out
    }
  }
  // The only query the plan refused is the lost context's fault report.
  CHECK(injected_count(test.calls(Operation::query)) == 1);
  for (const Call& call : test.calls(Operation::query)) {
    if (call.injected) CHECK(call.name == "IOCTL_KGSL_GET_FAULT_REPORT");
  }
  CHECK(injected_count(test.calls(Operation::reset_status)) == 0);
  CHECK(test.calls(Operation::reset_status).size() >= 1);
  test.clear_faults();
  close_without_leaks(test);
}

TEST_CASE("a refused kernel wait is a kernel error naming the wait and its errno, and the work and the queue are intact",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    const std::uint64_t fence = submit_write(queue, out, {21, 22, 23});
    test.fail_call(Operation::wait, kRefused);
    try {
      queue.wait_fence(fence, 5s);
      FAIL("the wait succeeded although its ioctl failed");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::kernel_error);
      CHECK(error.sys_errno() == kRefused);
      CHECK_THAT(error.what(), Catch::Contains(driver == Driver::kgsl ? "IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID"
                                                                      : "DRM_IOCTL_MSM_WAIT_FENCE"));
    }
    CHECK(injected_count(test.calls(Operation::wait)) == 1);
    // Not a loss: the next wait sees the work done.
    CHECK(queue.wait_fence(fence, 5s));
    CHECK(read_back(out, 3) == std::vector<std::uint32_t>{21, 22, 23});
    const std::uint64_t next = submit_write(queue, out, {24});
    CHECK(queue.wait_fence(next, 5s));
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{24});
  }
  close_without_leaks(test);
}

TEST_CASE("a refused reset-status query after a hang still reports the loss, and the device keeps working",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model, .hang_timeout = 50ms});
  {
    Buffer out = own_object(test.device(), 4096);
    Queue queue(test.device());
    test.hang_submission(1);
    test.fail_call(Operation::reset_status, kRefused);
    const std::uint64_t fence = submit_write(queue, out, {31});
    bool reported_lost = false;
    try {
      queue.wait_fence(fence, 5s);
      FAIL("the hung submission completed");
    } catch (const Error& error) {
      if (driver == Driver::kgsl) {
        // KGSL's wait says the context was invalidated (EDEADLK); the status query behind the
        // message was refused, so the status is unknown.
        CHECK(error.code() == Errc::device_lost);
        CHECK_THAT(error.what(), Catch::Contains("cause unknown"));
        reported_lost = true;
      } else {
        // MSM's fence signals after recovery; whether the queue faulted is the submitqueue's
        // fault counter, which the refused query did not give.
        CHECK(error.code() == Errc::kernel_error);
        CHECK(error.sys_errno() == kRefused);
        CHECK_THAT(error.what(), Catch::Contains("DRM_IOCTL_MSM_SUBMITQUEUE_QUERY"));
      }
    }
    CHECK(injected_count(test.calls(Operation::reset_status)) == 1);
    // Asked again, the kernel tells: the queue is lost, guilty, for good.
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        queue.wait_fence(fence, 5s);
        FAIL("a hung queue waited successfully");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::device_lost);
        if (!reported_lost) CHECK_THAT(error.what(), Catch::Contains("guilty"));
      }
    }
    CHECK(read_back(out, 1) == std::vector<std::uint32_t>{0});
  }
  write_and_check(test.device(), {32, 33});
  close_without_leaks(test);
}

TEST_CASE("a refused context destroy is logged with its errno, and the kernel keeps the context until the node closes",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  const std::size_t contexts = live(test, KernelObject::Kind::context);
  std::uint64_t context = 0;
  std::string log;
  {
    CapturedStderr err;
    {
      Buffer out = own_object(test.device(), 4096);
      Queue queue(test.device());
      CHECK(queue.wait_fence(submit_write(queue, out, {41}), 5s));
      context = test.submissions().back().context;
      test.fail_call(Operation::destroy_context, kRefused);
    }  // the queue's destructor cannot throw: it logs
    log = err.text();
  }
  CHECK_THAT(log, Catch::Contains("destroying queue context " + std::to_string(context)));
  CHECK_THAT(log, Catch::Contains(driver == Driver::kgsl ? "IOCTL_KGSL_DRAWCTXT_DESTROY" : "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE"));
  CHECK_THAT(log, Catch::Contains("EACCES"));
  const auto destroys = test.calls(Operation::destroy_context);
  REQUIRE(destroys.size() == 1);
  CHECK(destroys[0].injected);
  CHECK(destroys[0].object == context);
  CHECK(live(test, KernelObject::Kind::context) == contexts + 1);
  write_and_check(test.device(), {42, 43});  // other queues are unaffected
  // Closing the node is what frees it, as the drivers do: the close reports that one context.
  const auto leaks = test.close();
  REQUIRE(leaks.size() == 1);
  CHECK_THAT(leaks[0], Catch::Contains(std::to_string(context)));
}

TEST_CASE("a refused free is logged with its errno, and the kernel keeps the object until the node closes",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  VirtualDevice test({.driver = driver, .model = model});
  std::uint64_t object = 0;
  std::string log;
  {
    CapturedStderr err;
    {
      Buffer doomed = own_object(test.device(), 64 * 1024);
      object = kernel_object_of(doomed).object;
      test.fail_call(Operation::free, kRefused);
    }
    log = err.text();
  }
  CHECK_THAT(log, Catch::Contains("returning a 65536-byte buffer object to the kernel failed"));
  CHECK_THAT(log, Catch::Contains(driver == Driver::kgsl ? "IOCTL_KGSL_GPUOBJ_FREE" : "DRM_IOCTL_GEM_CLOSE"));
  CHECK_THAT(log, Catch::Contains("EACCES"));
  const auto frees = test.calls(Operation::free);
  REQUIRE(frees.size() == 1);
  CHECK(frees[0].injected);
  CHECK(frees[0].object == object);
  const auto ledger = test.ledger();
  CHECK(std::count_if(ledger.begin(), ledger.end(), [&](const KernelObject& o) {
          return o.kind == KernelObject::Kind::buffer && o.id == object;
        }) == 1);
  // The CPU mapping went before the free was asked, and the library forgot the object.
  CHECK(std::none_of(ledger.begin(), ledger.end(), [&](const KernelObject& o) {
    return o.kind == KernelObject::Kind::mapping && o.size == 64 * 1024;
  }));
  write_and_check(test.device(), {51});
  const auto leaks = test.close();
  REQUIRE(leaks.size() == 1);
  CHECK_THAT(leaks[0], Catch::Contains(std::to_string(object)));
}

TEST_CASE("a seeded random fraction of queue creations fails with the errno, the rest work, nothing leaks",
          "[virtual-kernel][testing]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  CAPTURE(driver_name(driver), model);
  constexpr int kQueues = 24;
  VirtualDevice test({.driver = driver, .model = model});
  test.fail_random_calls(Operation::create_context, 0.5, 99, ENOSPC);
  std::vector<bool> failed;
  {
    Buffer out = own_object(test.device(), 4096);
    for (int i = 0; i < kQueues; ++i) {
      try {
        Queue queue(test.device());
        const std::uint32_t value = 100 + static_cast<std::uint32_t>(i);
        CHECK(queue.wait_fence(submit_write(queue, out, {value}), 5s));
        CHECK(read_back(out, 1) == std::vector<std::uint32_t>{value});
        failed.push_back(false);
      } catch (const Error& error) {
        CHECK(error.sys_errno() == ENOSPC);
        CHECK_THAT(error.what(), Catch::Contains(driver == Driver::kgsl ? "IOCTL_KGSL_DRAWCTXT_CREATE"
                                                                        : "DRM_IOCTL_MSM_SUBMITQUEUE_NEW"));
        failed.push_back(true);
      }
    }
  }
  std::mt19937_64 random(99);
  std::vector<bool> expected;
  for (int i = 0; i < kQueues; ++i) expected.push_back(static_cast<double>(random() >> 11) * 0x1.0p-53 < 0.5);
  CHECK(failed == expected);
  CHECK(injected(test.calls(Operation::create_context)) == expected);
  close_without_leaks(test);
}
