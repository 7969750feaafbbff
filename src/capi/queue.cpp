// C entry points: queues.
#include "capi/convert.h"
#include "capi/registry.h"
#include "capi/status.h"

#include <string>

using namespace adreno;
using namespace adreno::capi;

extern "C" {

adreno_status adreno_queue_create(adreno_device device, int32_t priority, adreno_queue* queue) {
  return guarded(__func__, [&] {
    auto owner = lookup(device, "device");
    require(queue, "queue");
    QueueDesc desc;
    if (priority != ADRENO_PRIORITY_DEFAULT) {
      if (priority < 0) {
        throw Error(Errc::invalid_argument, "create queue",
                    "priority " + std::to_string(priority) + " is negative (ADRENO_PRIORITY_DEFAULT is -1)");
      }
      desc.priority = static_cast<unsigned>(priority);
    }
    publish(std::make_shared<QueueObject>(owner->device, desc), queue);
  });
}

adreno_status adreno_queue_release(adreno_queue queue) {
  return guarded(__func__, [&] { withdraw(queue, "queue"); });
}

adreno_status adreno_queue_dispatch(adreno_queue queue, adreno_program program, adreno_arguments arguments,
                                    const adreno_launch* launch) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    auto p = lookup(program, "program");
    auto a = lookup(arguments, "arguments");
    q->queue.dispatch(p->program, a->arguments, launch_of(launch));
  });
}

adreno_status adreno_queue_dispatch_indirect(adreno_queue queue, adreno_program program, adreno_arguments arguments,
                                             adreno_buffer groups, const adreno_indirect_launch* launch) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    auto p = lookup(program, "program");
    auto a = lookup(arguments, "arguments");
    auto g = lookup(groups, "groups");
    q->queue.dispatch_indirect(p->program, a->arguments, g->view, indirect_launch_of(launch));
  });
}

adreno_status adreno_queue_barrier(adreno_queue queue) {
  return guarded(__func__, [&] { lookup(queue, "queue")->queue.barrier(); });
}

adreno_status adreno_queue_signal(adreno_queue queue, adreno_signal signal, uint64_t value) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    q->queue.signal(lookup(signal, "signal")->signal, value);
  });
}

adreno_status adreno_queue_wait(adreno_queue queue, adreno_signal signal, uint64_t value) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    q->queue.wait(lookup(signal, "signal")->signal, value);
  });
}

adreno_status adreno_queue_write_timestamp(adreno_queue queue, adreno_buffer destination) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    q->queue.write_timestamp(lookup(destination, "destination")->view);
  });
}

adreno_status adreno_queue_write(adreno_queue queue, adreno_buffer destination, const uint32_t* values,
                                 size_t count) {
  return guarded(__func__, [&] {
    auto q = lookup(queue, "queue");
    auto d = lookup(destination, "destination");
    if (count != 0) require(values, "values");
    q->queue.write(d->view, std::span(values, count));
  });
}

adreno_status adreno_queue_submit(adreno_queue queue, uint64_t* fence) {
  return guarded(__func__, [&] {
    const std::uint64_t submitted = lookup(queue, "queue")->queue.submit();
    if (fence != nullptr) *fence = submitted;
  });
}

adreno_status adreno_queue_wait_fence(adreno_queue queue, uint64_t fence, uint64_t timeout_ns) {
  return guarded(__func__, [&] {
    if (!lookup(queue, "queue")->queue.wait_fence(fence, timeout_of(timeout_ns))) {
      throw Error(Errc::timeout, "wait for fence",
                  "fence " + std::to_string(fence) + " did not signal within " + std::to_string(timeout_ns) + " ns");
    }
  });
}

adreno_status adreno_queue_finish(adreno_queue queue, uint64_t timeout_ns) {
  return guarded(__func__, [&] { lookup(queue, "queue")->queue.finish(timeout_of(timeout_ns)); });
}

}  // extern "C"
