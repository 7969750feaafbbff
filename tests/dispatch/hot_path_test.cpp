// [virtual-kernel] Rule 9 for dispatches: once a queue has its command chunk and upload block,
// recording a dispatch performs no heap allocation and no syscall. Heap allocations are counted
// by replacing the global operator new for this test binary.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "program_fixtures.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// heap_allocations counts every global operator new of this test binary.
#include "../heap_counter.h"

using namespace adreno;

TEST_CASE("recording a dispatch in steady state allocates nothing and makes no syscall", "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    Queue queue(*device);
    const Launch launch{{8, 1, 1}, {64, 1, 1}, std::nullopt};
    queue.dispatch(program, arguments, launch);  // opens the command chunk and the upload block
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (int i = 0; i < 16; ++i) queue.dispatch(program, arguments, launch);
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
  }
  device.close_and_check_ledger();
}

// The dispatches alternate between two programs, so each writes its program's whole state and
// becomes the one the recording carries (CarriedProgramState holds the program): still nothing
// allocated, no syscall.
TEST_CASE("recording dispatches that alternate between two programs allocates nothing and makes no syscall",
          "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program first = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Program second = Program::from_ir3(*device, placeholder_code(), three_buffer_metadata());
    Buffer buffer = device->allocate({.size = 4096});
    Arguments first_arguments(first), second_arguments(second);
    first_arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 1u);
    second_arguments.set_buffer(0, buffer).set_buffer(1, buffer).set_buffer(2, buffer).set_scalar(3, 2u);
    Queue queue(*device);
    const Launch launch{{8, 1, 1}, {64, 1, 1}, std::nullopt};
    queue.dispatch(first, first_arguments, launch);  // opens the command chunk and the upload block
    queue.dispatch(second, second_arguments, launch);
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (int i = 0; i < 16; ++i) {
      queue.dispatch(first, first_arguments, launch);
      queue.dispatch(second, second_arguments, launch);
    }
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
  }
  device.close_and_check_ledger();
}

// Issue 19: a small allocation is carved from a slab the allocator already has, so once warm its
// allocation and release (GPU idle: recycled at once) ask nothing of the kernel and nothing of the
// heap — the allocator keeps its records and the freed ranges of each size for the next one.
// Fails on an allocator that makes a record per allocation or a free-list node per carve.
TEST_CASE("a small allocation and its release in steady state allocate nothing and make no syscall",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Allocator& allocator = device->impl().allocator();
    const BoFlags flags{MemoryType::write_combined, false};
    const std::uint64_t sizes[] = {64, 256, 200, 4096, Allocator::kSmallMax};
    auto keep = allocator.allocate(64, 0, flags, true);  // keeps the slab from emptying
    for (std::uint64_t size : sizes) allocator.release(allocator.allocate(size, 0, flags, true));  // warm-up
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (int i = 0; i < 16; ++i) {
      for (std::uint64_t size : sizes) allocator.release(allocator.allocate(size, 0, flags, true));
    }
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
    allocator.release(std::move(keep));
  }
  device.close_and_check_ledger();
}
