#include "virt/gpu/shader_processor.h"

#include "virt/gpu/wave.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace adreno::virt {
namespace {

// Runs one work group on `waves`, the calling thread's waves of this dispatch (made at its first
// work group, reused for the next ones: registers and bookkeeping are allocated once per thread).
std::uint64_t run_work_group(const ComputeDispatch& dispatch, std::uint64_t linear_id, Preamble* preamble,
                             std::vector<Wave>& waves) {
  const auto& groups = dispatch.groups;
  WorkGroup group;
  group.preamble = preamble;
  group.runs_alone = preamble != nullptr && linear_id == 0;
  group.id = {static_cast<std::uint32_t>(linear_id % groups[0]),
              static_cast<std::uint32_t>(linear_id / groups[0] % groups[1]),
              static_cast<std::uint32_t>(linear_id / (std::uint64_t{groups[0]} * groups[1]))};
  group.local_memory.assign(dispatch.shared_bytes, 0);

  const auto& size = dispatch.local_size;
  const unsigned fibers = size[0] * size[1] * size[2];
  if (waves.empty()) {
    for (unsigned first = 0, index = 0; first < fibers; first += dispatch.wave_size, ++index) {
      waves.emplace_back(dispatch, index, std::min(dispatch.wave_size, fibers - first));
    }
  }
  for (std::size_t i = 0; i < waves.size(); ++i) waves[i].start(group, static_cast<unsigned>(i) * dispatch.wave_size);
  // Each pass runs every unfinished wave up to its next barrier; a wave that ended counts as
  // having arrived, so the others are released.
  std::vector<bool> ended(waves.size(), false);
  for (std::size_t remaining = waves.size(); remaining > 0;) {
    for (std::size_t i = 0; i < waves.size(); ++i) {
      if (ended[i]) continue;
      if (waves[i].run() == Wave::Stop::ended) {
        ended[i] = true;
        --remaining;
      }
    }
  }
  std::uint64_t executed = 0;
  for (const Wave& wave : waves) executed += wave.fiber_instructions();
  return executed;
}

// Runs work groups [first, total) on every host thread.
std::uint64_t run_work_groups(const ComputeDispatch& dispatch, std::uint64_t first, std::uint64_t total, Preamble* preamble) {
  if (first >= total) return 0;
  std::atomic<std::uint64_t> next{first};
  std::atomic<std::uint64_t> executed{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_fault;
  std::mutex fault_mutex;

  auto worker = [&] {
    try {
      std::uint64_t mine = 0;
      std::vector<Wave> waves;
      for (std::uint64_t group; !failed.load(std::memory_order_relaxed) && (group = next++) < total;) {
        mine += run_work_group(dispatch, group, preamble, waves);
      }
      executed += mine;
    } catch (...) {
      std::lock_guard lock(fault_mutex);
      if (!first_fault) first_fault = std::current_exception();
      failed = true;
    }
  };
  // hardware_concurrency() reads sysfs on glibc: asked once, not per dispatch.
  static const unsigned host_threads = std::max(1u, std::thread::hardware_concurrency());
  const auto threads = static_cast<unsigned>(std::min<std::uint64_t>(host_threads, total - first));
  std::vector<std::thread> helpers;
  for (unsigned i = 1; i < threads; ++i) helpers.emplace_back(worker);
  worker();
  for (std::thread& t : helpers) t.join();
  if (first_fault) std::rethrow_exception(first_fault);
  return executed;
}

}  // namespace

std::uint64_t run_dispatch(const ComputeDispatch& dispatch) {
  const std::uint64_t total = std::uint64_t{dispatch.groups[0]} * dispatch.groups[1] * dispatch.groups[2];
  if (total == 0) return 0;
  if (!dispatch.program->has_preamble()) return run_work_groups(dispatch, 0, total, nullptr);
  // The preamble writes this dispatch's constant file: a copy of it, complete once the first
  // work group (whose first wave runs the preamble) is done and before any other group starts.
  ComputeDispatch with_preamble = dispatch;
  Preamble preamble{with_preamble.constants, with_preamble.constant_loaded};
  std::vector<Wave> waves;
  const std::uint64_t executed = run_work_group(with_preamble, 0, &preamble, waves);
  return executed + run_work_groups(with_preamble, 1, total, &preamble);
}

}  // namespace adreno::virt
