// [virtual-kernel] Rule 9 for graphs: once the previous replay retired, patching values and
// replaying perform no heap allocation and no syscall. Heap allocations are counted by
// replacing the global operator new for this test binary.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "graph_programs.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

// heap_allocations counts every global operator new of this test binary.
#include "../heap_counter.h"

using namespace adreno;

TEST_CASE("patching and replaying a graph allocates nothing and makes no syscall", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers;
    for (int i = 0; i < 6; ++i) buffers.push_back(device->allocate({.size = 256 * 4}));
    Graph graph(*device);
    std::vector<GraphDispatch> ids;
    for (int i = 0; i < 3; ++i) {
      Arguments arguments(add);
      arguments.set_buffer(0, buffers[i]).set_buffer(1, buffers[3]).set_buffer(2, buffers[4]);
      ids.push_back(graph.dispatch(add, arguments, add_launch(256), {Access::write, Access::read, Access::read}));
    }
    graph.build();
    Queue queue(*device);
    graph.replay(queue);
    queue.finish();
    queue.barrier();  // opens the queue's next command chunk
    const std::size_t allocations = heap_allocations.load();
    const unsigned syscalls = device.system->ioctl_count(0);
    for (std::size_t i = 0; i < ids.size(); ++i) graph.set_buffer(ids[i], 2, buffers[5 - i]);
    graph.replay(queue);  // the previous replay retired: patched without waiting
    graph.replay(queue);  // nothing to patch: no wait either
    CHECK(heap_allocations.load() == allocations);
    CHECK(device.system->ioctl_count(0) == syscalls);
  }
  device.close_and_check_ledger();
}
