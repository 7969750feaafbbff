// [virtual-kernel] Waits no submitted work answers yet — a signal the host sets, or one a later
// submission writes — hold the work after them on the host: it reaches the kernel (seen in the
// kit's submission log) only once the value is there or a writer was submitted, then waits for
// that writer in the kernel. A GPU poll instead would hold the priority band's ring, and a writer
// queued behind it on that ring until the hang detector ended the waiter.
#include <adreno/adreno.hpp>
#include <adreno/graph.hpp>
#include <adreno/queue.hpp>
#include <adreno/testing.hpp>

#include <catch2/catch.hpp>

#include "../testing/kit_support.h"

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <thread>

using namespace adreno;
using namespace std::chrono_literals;

TEST_CASE("work after a wait for a host-set signal reaches the kernel only once the host set it",
          "[virtual-kernel][queue][host-held]") {
  // Killed behaviour: the wait as a CP poll inside one submission (the work after it is in the
  // kernel, and the ring polls, before the host sets the signal).
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue queue(device);
    Signal gate(device), first(device), done(device);
    Buffer data = device.allocate({.size = 64});
    std::mt19937 rng(2024);
    const std::uint32_t before[] = {static_cast<std::uint32_t>(rng())};
    const std::uint32_t after[] = {static_cast<std::uint32_t>(rng())};
    std::memset(data.cpu_view().data(), 0, 64);
    queue.write(data.view(0, 4), before);
    queue.signal(first, 1);
    queue.wait(gate, 3);
    queue.write(data.view(4, 4), after);
    queue.signal(done, 1);
    kit.clear_log();
    const std::uint64_t fence = queue.submit();
    // What comes before the wait runs now.
    REQUIRE(first.wait(1, 10s));
    CHECK(data.cpu_view().as<std::uint32_t>()[0] == before[0]);
    CHECK(kit.submissions().size() == 1);
    CHECK_FALSE(queue.wait_fence(fence, 0ns));
    CHECK_FALSE(queue.wait_fence(fence, 1ms));  // a timeout while held is no error
    gate.set(2);  // below the target: still held
    CHECK(kit.submissions().size() == 1);
    CHECK(done.value() == 0);
    gate.set(3);
    REQUIRE(kit.submissions().size() == 2);
    CHECK(kit.submissions()[1].error == 0);
    REQUIRE(queue.wait_fence(fence, 10s));
    CHECK(done.value() == 1);
    CHECK(data.cpu_view().as<std::uint32_t>()[0] == before[0]);
    CHECK(data.cpu_view().as<std::uint32_t>()[1] == after[0]);
    CHECK(kit.faults().empty());
    // Later work queues behind held work, in order, and a reached value holds nothing.
    queue.wait(gate, 3);
    queue.signal(done, 2);
    queue.finish(10s);
    CHECK(done.value() == 2);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("a wait for a value that a later submission of another queue on the same ring writes runs after it",
          "[virtual-kernel][queue][host-held]") {
  // One priority band, one ring: a CP poll in the consumer, queued first, would hold the ring
  // and the producer behind it until the hang detector (100 ms here) reset the consumer, whose
  // wait_fence would throw device_lost. Held on the host, the consumer goes to the kernel when
  // the producer's submission is made, waiting for it there.
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue consumer(device), producer(device);
    Signal ready(device), done(device);
    Buffer data = device.allocate({.size = 64});
    std::mt19937 rng(99);
    const std::uint32_t produced[] = {static_cast<std::uint32_t>(rng())};
    kit.clear_log();
    consumer.wait(ready, 1);  // nothing submitted writes `ready` yet
    consumer.signal(done, 1);
    const std::uint64_t consumer_fence = consumer.submit();
    CHECK(kit.submissions().empty());
    producer.write(data.view(0, 4), produced);
    producer.signal(ready, 1);
    producer.submit();
    CHECK(kit.submissions().size() == 2);  // the producer's, then the consumer's
    REQUIRE(consumer.wait_fence(consumer_fence, 10s));
    CHECK(done.value() == 1);
    CHECK(data.cpu_view().as<std::uint32_t>()[0] == produced[0]);
    producer.finish(10s);
    CHECK(kit.faults().empty());
  }
  CHECK(kit.close().empty());
}

TEST_CASE("a queue finishing on one thread returns once another thread set the signal its work waits for",
          "[virtual-kernel][queue][host-held]") {
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue queue(device);
    Signal gate(device), done(device);
    queue.wait(gate, 1);
    queue.signal(done, 7);
    queue.submit();
    std::thread setter([&] { gate.set(1); });  // before, during or after finish() started
    queue.finish();
    setter.join();
    CHECK(done.value() == 7);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("held work whose signal is never set is dropped with its queue and leaves nothing behind",
          "[virtual-kernel][queue][host-held]") {
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Signal gate(device), done(device);
    {
      Queue queue(device);
      Buffer data = device.allocate({.size = 4096});
      queue.wait(gate, 1);
      const std::uint32_t value[] = {1};
      queue.write(data.view(0, 4), value);
      queue.signal(done, 1);
      CHECK_FALSE(queue.wait_fence(queue.submit(), 1ms));
    }
    gate.set(1);  // too late: the queue is gone
    CHECK(done.value() == 0);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("held work the kernel refuses when the host sets its signal fails the queue's next call",
          "[virtual-kernel][queue][host-held]") {
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue queue(device);
    Signal gate(device), done(device);
    queue.wait(gate, 1);
    queue.signal(done, 1);
    queue.submit();
    kit.fail_call(testing::Operation::submit, EINVAL);
    gate.set(1);  // cannot throw: the refusal waits for the queue
    CHECK_THROWS_MATCHES(queue.submit(), Error, Catch::Matchers::Predicate<Error>([](const Error& e) {
                           return e.code() != Errc::device_lost && e.sys_errno() == EINVAL;
                         }));
    CHECK(done.value() == 0);
    // Reported once by the next call; the first finish, whose work includes the refused
    // submission, fails too, then the queue goes on.
    queue.signal(done, 2);
    CHECK_THROWS_AS(queue.finish(10s), Error);
    CHECK(done.value() == 2);
    queue.signal(done, 3);
    queue.finish(10s);
    CHECK(done.value() == 3);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("a graph replay waiting for a host-set signal is held on the host until it is set",
          "[virtual-kernel][graph][host-held]") {
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue queue(device);
    Signal gate(device), done(device);
    Graph graph(device);
    graph.wait(gate, 1);
    const GraphSync signal = graph.signal(done, 1);
    graph.build();
    kit.clear_log();
    graph.replay(queue);
    const std::uint64_t fence = queue.submit();
    CHECK(kit.submissions().empty());
    gate.set(1);
    REQUIRE(queue.wait_fence(fence, 10s));
    CHECK(done.value() == 1);
    // A patch waits for the earlier replay; this one is released at once.
    graph.set_value(signal, 2);
    graph.replay(queue);
    queue.finish(10s);
    CHECK(done.value() == 2);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("waits for held work the kernel refused, or that was dropped behind it, fail every time",
          "[virtual-kernel][queue][host-held]") {
  // Killed behaviour: once the refusal was reported (by the queue's next call), wait_fence on the
  // refused ticket, and on the ticket of the held work dropped behind it, returned true — work
  // that never reached the kernel reported as done, as a ticket retired and forgotten would be.
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue queue(device);
    Signal gate(device), done(device);
    queue.wait(gate, 1);
    queue.signal(done, 1);
    const std::uint64_t refused = queue.submit();
    queue.signal(done, 2);
    const std::uint64_t dropped = queue.submit();  // behind the held work: held too
    REQUIRE(refused != dropped);
    kit.fail_call(testing::Operation::submit, EINVAL);
    gate.set(1);
    // The refusal is reported once by the queue's next call (here a recording call)...
    CHECK_THROWS_AS(queue.signal(done, 3), Error);
    // ...and each wait for the work that never ran fails, naming why, every time.
    const auto names = [](const char* why) {
      return Catch::Matchers::Predicate<Error>([why](const Error& e) {
        return e.sys_errno() == EINVAL && e.detail().find(why) != std::string::npos;
      });
    };
    for (int attempt = 0; attempt < 2; ++attempt) {
      CHECK_THROWS_MATCHES(queue.wait_fence(refused, 10s), Error, names("refused"));
      CHECK_THROWS_MATCHES(queue.wait_fence(dropped, 10s), Error, names("dropped because earlier held work"));
    }
    CHECK(done.value() == 0);
    // A finish answering for that work fails as well, naming the refused submission; the next
    // one answers only for later work.
    CHECK_THROWS_MATCHES(queue.finish(10s), Error, names("refused"));
    queue.finish(10s);
    // The queue goes on; held work released later, then retired and forgotten, still waits true.
    queue.wait(gate, 2);
    queue.signal(done, 4);
    const std::uint64_t later = queue.submit();
    gate.set(2);
    REQUIRE(queue.wait_fence(later, 10s));
    queue.signal(done, 5);
    queue.finish(10s);
    CHECK(queue.wait_fence(later, 10s));
    CHECK(done.value() == 5);
    CHECK_THROWS_AS(queue.wait_fence(dropped, 10s), Error);
  }
  CHECK(kit.close().empty());
}
