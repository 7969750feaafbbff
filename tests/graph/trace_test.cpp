// [virtual-kernel] The timeline (ADRENO_TRACE): on both virtual kernels, two queues with a
// cross-queue signal, dispatches and a graph replay write a Chrome trace-event file whose events
// are well formed, whose GPU spans lie inside their submissions and follow the order the signal
// imposes, and whose flow pairs the signal with its wait; unset, no file is written and the
// submissions carry exactly the trace's timestamp packets fewer.
#include <adreno/adreno.hpp>
#include <adreno/testing.hpp>

#include "../testing/kit_support.h"
#include "graph_programs.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

using namespace adreno;
using adreno::testing::Driver;

namespace {

std::filesystem::path trace_path(Driver driver) {
  return std::filesystem::temp_directory_path() /
         ("adreno-trace-test-" + std::to_string(::getpid()) + "-" + driver_name(driver) + ".json");
}

// The work the trace shows: queue A runs out_a = in + 1 and signals 1; queue B waits for it, runs
// out_b = out_a + 2 and replays a graph of out_c = out_b + 3. Returns the IB dwords of every
// submission the device saw.
std::uint64_t run_two_queues(Driver driver, const std::string& model, const std::optional<std::filesystem::path>& trace) {
  if (trace) ::setenv("ADRENO_TRACE", trace->c_str(), 1);
  adreno::testing::VirtualDevice test({.driver = driver, .model = model});
  ::unsetenv("ADRENO_TRACE");  // read once, when the device opened
  std::uint64_t dwords = 0;
  {
    Device& device = test.device();
    const Program add = load_add_scalar(device);
    Buffer in = device.allocate({.size = 128}), out_a = device.allocate({.size = 128}),
           out_b = device.allocate({.size = 128}), out_c = device.allocate({.size = 128});
    auto* values = reinterpret_cast<std::uint32_t*>(in.cpu_view().data());
    for (std::uint32_t i = 0; i < 32; ++i) values[i] = 1000 * i;
    const Launch one_group{{1, 1, 1}, {32, 1, 1}, std::nullopt};
    auto arguments = [&](const Buffer& out, const Buffer& source, std::uint32_t k) {
      Arguments a(add);
      a.set_buffer(0, out);
      a.set_buffer(1, source);
      a.set_scalar(2, k);
      return a;
    };
    Signal ready(device);
    Queue queue_a(device), queue_b(device);
    Graph graph(device);
    graph.dispatch(add, arguments(out_c, out_b, 3), one_group);
    graph.build();

    queue_a.dispatch(add, arguments(out_a, in, 1), one_group);
    queue_a.signal(ready, 1);
    queue_a.submit();
    queue_b.wait(ready, 1);
    queue_b.dispatch(add, arguments(out_b, out_a, 2), one_group);
    queue_b.barrier();
    graph.replay(queue_b);
    queue_b.finish();
    queue_a.finish();
    const auto* c = reinterpret_cast<const std::uint32_t*>(out_c.cpu_view().data());
    for (std::uint32_t i = 0; i < 32; ++i) CHECK(c[i] == 1000 * i + 6);
  }
  for (const auto& submission : test.submissions())
    for (const auto& ib : submission.ibs) dwords += ib.dwords;
  const auto leaks = test.close();
  CHECK(leaks.empty());
  return dwords;
}

struct Span {
  double begin, end;
  std::uint64_t fence;
  std::string name;
};

/// A trace file's events, checked for the fields every event has; the file is removed.
struct ReadTrace {
  std::map<int, std::string> track_names;
  std::map<int, std::vector<Span>> spans;  // by track, in file order
  std::vector<nlohmann::json> flows;
};

ReadTrace read_trace(const std::filesystem::path& path) {
  std::ifstream file(path);
  REQUIRE(file.good());
  const nlohmann::json trace = nlohmann::json::parse(file);
  file.close();
  std::filesystem::remove(path);
  REQUIRE(trace.contains("traceEvents"));
  ReadTrace read;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    INFO(e.dump());
    REQUIRE(e.contains("name"));
    REQUIRE(e["name"].is_string());
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("ts"));
    REQUIRE(e["ts"].is_number());
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    const std::string phase = e["ph"];
    if (phase == "M") {
      if (e["name"] == "thread_name") read.track_names[e["tid"]] = e["args"]["name"];
    } else if (phase == "X") {
      const double begin = e["ts"], dur = e["dur"];
      CHECK(dur >= 0);
      read.spans[e["tid"]].push_back(Span{begin, begin + dur, e["args"]["fence"], e["name"]});
    } else {
      REQUIRE((phase == "s" || phase == "f"));
      read.flows.push_back(e);
    }
  }
  return read;
}

// The host's side of a submission: recorded, submitted, waited for; the submission lives from
// its submit to the end of the first wait that saw its fence retire.
std::pair<double, double> lifetime(const std::vector<Span>& host, std::uint64_t fence) {
  std::optional<double> begin, end;
  for (const Span& s : host) {
    if (s.name == "submit" && s.fence == fence) begin = s.begin;
    if (s.name == "wait" && s.fence >= fence && !end) end = s.end;
  }
  REQUIRE(begin);
  REQUIRE(end);
  return std::pair{*begin, *end};
}

}  // namespace

TEST_CASE("ADRENO_TRACE writes a Chrome trace of two queues: host and GPU spans nest per submission, the signal orders them and a flow pairs it with its wait [virtual-kernel]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  const auto path = trace_path(driver);
  std::filesystem::remove(path);
  run_two_queues(driver, model, path);
  auto [track_names, spans, flows] = read_trace(path);
  // Two queues, a host and a GPU track each.
  REQUIRE(track_names.size() == 4);
  CHECK(track_names[1].ends_with(" host"));
  CHECK(track_names[2].ends_with(" GPU"));
  const std::vector<Span>& host_a = spans[1];
  const std::vector<Span>& gpu_a = spans[2];
  const std::vector<Span>& host_b = spans[3];
  const std::vector<Span>& gpu_b = spans[4];

  for (const auto* host : {&host_a, &host_b}) {
    std::vector<std::string> names;
    for (const Span& s : *host) names.push_back(s.name);
    CHECK(std::count(names.begin(), names.end(), "record") == 1);
    CHECK(std::count(names.begin(), names.end(), "submit") == 1);
    CHECK(std::count(names.begin(), names.end(), "wait") >= 1);
  }

  // GPU spans: named after the program and its grid, in submission order, each inside its
  // submission's lifetime.
  REQUIRE(gpu_a.size() == 1);
  CHECK(gpu_a[0].name == "add_scalar 1x1x1 groups of 32x1x1");
  REQUIRE(gpu_b.size() == 2);
  CHECK(gpu_b[0].name == "add_scalar 1x1x1 groups of 32x1x1");
  CHECK(gpu_b[1].name == "graph replay (1 dispatches)");
  CHECK(gpu_b[0].end <= gpu_b[1].begin);
  for (const auto& [host, gpu] : {std::pair{&host_a, &gpu_a}, std::pair{&host_b, &gpu_b}}) {
    for (const Span& s : *gpu) {
      INFO(s.name);
      const auto [begin, end] = lifetime(*host, s.fence);
      CHECK(begin <= s.begin);
      CHECK(s.end <= end);
    }
  }
  // Queue B's submission is held by the kernel until A's signalling submission retired: its
  // dispatch starts on the GPU after A's ended.
  CHECK(gpu_a[0].end <= gpu_b[0].begin);

  // One flow from A's signal (inside A's recording) to B's wait.
  REQUIRE(flows.size() == 2);
  const nlohmann::json& start = flows[0]["ph"] == "s" ? flows[0] : flows[1];
  const nlohmann::json& finish = flows[0]["ph"] == "s" ? flows[1] : flows[0];
  CHECK(start["ph"] == "s");
  CHECK(finish["ph"] == "f");
  CHECK(start["id"] == finish["id"]);
  CHECK(start["tid"] == 1);
  CHECK(finish["tid"] == 3);
  const double signalled = start["ts"], waited = finish["ts"];
  CHECK(signalled <= waited);
  CHECK(host_a[0].name == "record");
  CHECK(host_a[0].begin <= signalled);
  CHECK(signalled <= host_a[0].end);
}

TEST_CASE("Without ADRENO_TRACE no trace file is written and the submissions lack exactly the trace's timestamp packets [virtual-kernel]") {
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  const auto path = trace_path(driver);
  std::filesystem::remove(path);
  ::unsetenv("ADRENO_TRACE");
  const std::uint64_t untraced = run_two_queues(driver, model, std::nullopt);
  CHECK_FALSE(std::filesystem::exists(path));
  const std::uint64_t traced = run_two_queues(driver, model, path);
  CHECK(std::filesystem::exists(path));
  std::filesystem::remove(path);
  // Each of the 3 spans (two dispatches, one replay) reads the counter twice, each time with
  // CP_WAIT_FOR_IDLE (1 dword) and CP_REG_TO_MEM (1 + 3 dwords: control, destination low and
  // high; Mesa adreno_pm4.xml CP_REG_TO_MEM).
  CHECK(traced - untraced == 3 * 2 * (1 + 4));
}

TEST_CASE("A traced submission held on the host and handed on by another thread keeps its own GPU span while the queue records more [virtual-kernel]") {
  // The queue's first recording goes to the kernel at submit, the second is held for `gate`,
  // which another thread sets while the third is being recorded and submitted. Killed behaviour:
  // the held recording left its spans and slabs in the queue's trace, so whichever submission
  // reached the kernel next took them (the first took its own and the held one's span, the held
  // one the third's, from the other thread, racing with the recording).
  const Driver driver = EACH_DRIVER();
  const std::string model = EACH_MODEL();
  const auto path = trace_path(driver);
  std::filesystem::remove(path);
  ::setenv("ADRENO_TRACE", path.c_str(), 1);
  adreno::testing::VirtualDevice test({.driver = driver, .model = model});
  ::unsetenv("ADRENO_TRACE");
  {
    Device& device = test.device();
    const Program add = load_add_scalar(device);
    Buffer in = device.allocate({.size = 128}), out = device.allocate({.size = 128});
    auto* values = reinterpret_cast<std::uint32_t*>(in.cpu_view().data());
    for (std::uint32_t i = 0; i < 32; ++i) values[i] = 1000 * i;
    // Dispatch n (1..3) runs one group of 64 >> n threads over the first 64 >> n values and adds
    // n: its span's name says which it is, the output which one ran last over each value.
    const auto dispatch = [&](Queue& queue, std::uint32_t n) {
      Arguments a(add);
      a.set_buffer(0, out);
      a.set_buffer(1, in);
      a.set_scalar(2, n);
      queue.dispatch(add, a, Launch{{1, 1, 1}, {64u >> n, 1, 1}, std::nullopt});
    };
    Signal gate(device);
    Queue queue(device);
    dispatch(queue, 1);
    queue.wait(gate, 1);  // set by nothing submitted: the work after it is held on the host
    dispatch(queue, 2);
    queue.submit();
    std::thread setter([&] { gate.set(1); });  // before, during or after the third recording
    dispatch(queue, 3);
    queue.submit();
    setter.join();
    queue.finish();
    const auto* result = reinterpret_cast<const std::uint32_t*>(out.cpu_view().data());
    for (std::uint32_t i = 0; i < 32; ++i) CHECK(result[i] == 1000 * i + (i < 8 ? 3 : i < 16 ? 2 : 1));
  }
  CHECK(test.close().empty());

  auto [track_names, spans, flows] = read_trace(path);
  REQUIRE(track_names.size() == 2);
  const std::vector<Span>& host = spans[1];
  const std::vector<Span>& gpu = spans[2];
  // Three submissions, each with one record and one submit span of its own fence.
  std::vector<std::uint64_t> submitted;
  for (const Span& s : host) {
    if (s.name == "submit") submitted.push_back(s.fence);
  }
  REQUIRE(submitted.size() == 3);
  CHECK(std::count_if(host.begin(), host.end(), [](const Span& s) { return s.name == "record"; }) == 3);
  // Each dispatch's GPU span under its own submission, in order, inside its lifetime.
  REQUIRE(gpu.size() == 3);
  for (std::uint32_t n = 1; n <= 3; ++n) {
    const Span& span = gpu[n - 1];
    INFO("dispatch " << n);
    CHECK(span.name == "add_scalar 1x1x1 groups of " + std::to_string(64u >> n) + "x1x1");
    CHECK(span.fence == submitted[n - 1]);
    const auto [begin, end] = lifetime(host, span.fence);
    CHECK(begin <= span.begin);
    CHECK(span.end <= end);
    if (n > 1) {
      CHECK(gpu[n - 2].fence < span.fence);
      CHECK(gpu[n - 2].end <= span.begin);
    }
  }
}
