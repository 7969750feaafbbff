// [virtual-kernel] What a queue lists for the kernel when dispatches reference the same memory
// again and again: each submission lists every buffer object its work touches, writable when any
// of its uses writes, however the references of different queues and recordings interleave
// (Queue::Impl::reference skips listing what the open recording listed already, and
// reference_bindings the bindings of Arguments it listed whole). Observed in the
// MSM buffer table the virtual msm node receives (KGSL lists no objects).
#include <adreno/adreno.hpp>
#include <adreno/testing.hpp>

#include "../testing/kit_support.h"
#include "program_fixtures.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using namespace adreno;
using adreno::testing::Driver;
using adreno::testing::Submission;
using adreno::testing::TableEntry;

namespace {

constexpr Launch kOneGroup{{1, 1, 1}, {64, 1, 1}, std::nullopt};

/// The table entry of `buffer`'s kernel object in `submission`, null when it is not listed.
const TableEntry* entry_of(const Submission& submission, const Buffer& buffer) {
  const std::uint64_t object = testing::kernel_object_of(buffer).object;
  const auto entry = std::find_if(submission.table.begin(), submission.table.end(),
                                  [&](const TableEntry& e) { return e.object == object; });
  return entry == submission.table.end() ? nullptr : &*entry;
}

Arguments bound_to(const Program& program, const Buffer& c, const Buffer& a, const Buffer& b) {
  Arguments arguments(program);
  arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b).set_scalar(3, 1u);
  return arguments;
}

}  // namespace

TEST_CASE("a buffer two queues reference in interleaved recordings is listed writable in each of their submissions",
          "[virtual-kernel][dispatch]") {
  const std::string model = EACH_MODEL();
  CAPTURE(model);
  testing::VirtualDevice test({.driver = Driver::msm, .model = model});
  {
    Device& device = test.device();
    Program program = Program::from_ir3(device, placeholder_code(), three_buffer_metadata());
    const Buffer shared = own_object(device, 4096);
    const Buffer first_a = own_object(device, 4096), first_b = own_object(device, 4096);
    const Buffer second_a = own_object(device, 4096), second_b = own_object(device, 4096);
    const Arguments first_arguments = bound_to(program, shared, first_a, first_b);
    const Arguments second_arguments = bound_to(program, shared, second_a, second_b);
    Queue first(device), second(device);
    test.clear_log();
    // Each queue's recording references the shared buffer several times, in turns: the two open
    // recordings are each one queue's first, with the same ticket.
    for (int round = 0; round < 3; ++round) {
      first.dispatch(program, first_arguments, kOneGroup);
      second.dispatch(program, second_arguments, kOneGroup);
    }
    first.submit();
    second.submit();
    // A later recording of the first queue references it again.
    first.dispatch(program, first_arguments, kOneGroup);
    first.finish();
    second.finish();

    const auto submissions = test.submissions();
    REQUIRE(submissions.size() == 3);
    for (const Submission& submission : submissions) {
      CHECK(submission.error == 0);
      const TableEntry* entry = entry_of(submission, shared);
      REQUIRE(entry != nullptr);
      CHECK(entry->write);
    }
    CHECK(entry_of(submissions[0], first_a) != nullptr);
    CHECK(entry_of(submissions[1], second_a) != nullptr);
    CHECK(entry_of(submissions[1], first_a) == nullptr);
  }
  close_without_leaks(test);
}

TEST_CASE("a buffer a recording first reads and then writes is listed writable", "[virtual-kernel][dispatch]") {
  const std::string model = EACH_MODEL();
  CAPTURE(model);
  testing::VirtualDevice test({.driver = Driver::msm, .model = model});
  {
    Device& device = test.device();
    Program program = Program::from_ir3(device, placeholder_code(), three_buffer_metadata());
    const Buffer counts = own_object(device, 4096);
    const std::uint32_t one_group[] = {1, 1, 1};
    std::copy(std::begin(one_group), std::end(one_group), counts.cpu_view().as<std::uint32_t>().begin());
    const Buffer c = own_object(device, 4096), a = own_object(device, 4096), b = own_object(device, 4096);
    const Arguments elsewhere = bound_to(program, c, a, b);
    const Arguments into_counts = bound_to(program, counts, a, b);
    Queue queue(device);
    test.clear_log();
    // The group counts are read (CP_EXEC_CS_INDIRECT), and only then is the buffer bound for writing.
    queue.dispatch_indirect(program, elsewhere, counts.view(0, 12), IndirectLaunch{{64, 1, 1}, std::nullopt});
    queue.dispatch(program, into_counts, kOneGroup);
    queue.finish();

    const auto submissions = test.submissions();
    REQUIRE(submissions.size() == 1);
    CHECK(submissions[0].error == 0);
    const TableEntry* entry = entry_of(submissions[0], counts);
    REQUIRE(entry != nullptr);
    CHECK(entry->write);
  }
  close_without_leaks(test);
}

// Kills a queue that skips the listing of Arguments it listed before in the same recording
// (Queue::Impl::reference_bindings) after one of their bindings changed: a buffer bound only
// after the first dispatch would reach the GPU unlisted.
TEST_CASE("arguments rebound between dispatches of one recording list every buffer they were dispatched with",
          "[virtual-kernel][dispatch]") {
  const std::string model = EACH_MODEL();
  CAPTURE(model);
  testing::VirtualDevice test({.driver = Driver::msm, .model = model});
  {
    Device& device = test.device();
    Program program = Program::from_ir3(device, placeholder_code(), three_buffer_metadata());
    std::vector<Buffer> pool;
    for (int i = 0; i < 6; ++i) pool.push_back(own_object(device, 4096));
    Arguments arguments[] = {bound_to(program, pool[0], pool[1], pool[2]), bound_to(program, pool[3], pool[4], pool[5])};
    std::size_t bound[2][3] = {{0, 1, 2}, {3, 4, 5}};  // pool index of each buffer argument
    Queue queue(device);
    test.clear_log();
    // Per recording that dispatched anything: the pool buffers its dispatches were bound to.
    std::vector<std::vector<bool>> expected;
    std::vector<bool> recording(pool.size(), false);
    bool recorded = false;
    const auto close_recording = [&] {
      if (recorded) expected.push_back(recording);
      recording.assign(pool.size(), false);
      recorded = false;
    };
    std::mt19937 rng(1905);
    for (int step = 0; step < 200; ++step) {
      const std::size_t which = rng() % 2;
      switch (rng() % 8) {
        case 0: case 1: case 2: {
          const std::size_t argument = rng() % 3, buffer = rng() % pool.size();
          arguments[which].set_buffer(argument, pool[buffer]);
          bound[which][argument] = buffer;
          break;
        }
        case 7:
          queue.submit();
          close_recording();
          break;
        default:
          queue.dispatch(program, arguments[which], kOneGroup);
          for (const std::size_t buffer : bound[which]) recording[buffer] = true;
          recorded = true;
      }
    }
    queue.finish();
    close_recording();

    const auto submissions = test.submissions();
    REQUIRE(submissions.size() == expected.size());
    for (std::size_t s = 0; s < submissions.size(); ++s) {
      CHECK(submissions[s].error == 0);
      for (std::size_t buffer = 0; buffer < pool.size(); ++buffer) {
        INFO("submission " << s << ", pool buffer " << buffer);
        const TableEntry* entry = entry_of(submissions[s], pool[buffer]);
        CHECK((entry != nullptr) == expected[s][buffer]);
        if (entry != nullptr) CHECK(entry->write);
      }
    }
  }
  close_without_leaks(test);
}
