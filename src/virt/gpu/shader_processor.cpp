#include "virt/gpu/shader_processor.h"

#include <algorithm>

namespace adreno::virt {

ShaderProcessor::~ShaderProcessor() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

std::uint64_t ShaderProcessor::run_work_group(const ComputeDispatch& dispatch, std::uint64_t linear_id, Preamble* preamble,
                                              Worker& worker) {
  const auto& groups = dispatch.groups;
  WorkGroup& group = worker.group;
  group.preamble = preamble;
  group.runs_alone = preamble != nullptr && linear_id == 0;
  group.id = {static_cast<std::uint32_t>(linear_id % groups[0]),
              static_cast<std::uint32_t>(linear_id / groups[0] % groups[1]),
              static_cast<std::uint32_t>(linear_id / (std::uint64_t{groups[0]} * groups[1]))};
  // Every group starts with its local memory zero: cleared only where a store left something.
  if (group.local_written || group.local_memory.size() != dispatch.shared_bytes) {
    group.local_memory.assign(dispatch.shared_bytes, 0);
    group.local_written = false;
  }

  const auto& size = dispatch.local_size;
  const unsigned fibers = size[0] * size[1] * size[2];
  const std::size_t count = (fibers + dispatch.wave_size - 1) / dispatch.wave_size;
  // The worker's first group of this dispatch: its waves are made for the dispatch, each in the
  // storage of the wave that held its place before.
  if (worker.bound == 0) {
    if (worker.waves.size() < count) worker.waves.resize(count);
    for (unsigned index = 0; index < count; ++index) {
      const unsigned lanes = std::min(dispatch.wave_size, fibers - index * dispatch.wave_size);
      std::optional<Wave>& slot = worker.waves[index];
      if (slot) {
        Wave recycled = std::move(*slot);
        slot.emplace(dispatch, index, lanes, &recycled);
      } else {
        slot.emplace(dispatch, index, lanes);
      }
    }
    worker.bound = count;
  }
  std::span<std::optional<Wave>> waves(worker.waves.data(), count);
  for (std::size_t i = 0; i < count; ++i) waves[i]->start(group, static_cast<unsigned>(i) * dispatch.wave_size);
  // Each pass runs every unfinished wave up to its next barrier; a wave that ended counts as
  // having arrived, so the others are released.
  worker.ended.assign(count, 0);
  for (std::size_t remaining = count; remaining > 0;) {
    for (std::size_t i = 0; i < count; ++i) {
      if (worker.ended[i]) continue;
      if (waves[i]->run() == Wave::Stop::ended) {
        worker.ended[i] = 1;
        --remaining;
      }
    }
  }
  std::uint64_t executed = 0;
  for (const std::optional<Wave>& wave : waves) executed += wave->fiber_instructions();
  return executed;
}

void ShaderProcessor::work(Job& job, Worker& worker) {
  worker.bound = 0;
  try {
    std::uint64_t count = 0;
    for (std::uint64_t group; !job.failed.load(std::memory_order_relaxed) && (group = job.next++) < job.total;) {
      count += run_work_group(job.dispatch, group, job.preamble, worker);
    }
    job.executed += count;
  } catch (...) {
    std::lock_guard lock(job.fault_mutex);
    if (!job.first_fault) job.first_fault = std::current_exception();
    job.failed = true;
  }
}

void ShaderProcessor::helper(unsigned index) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return quit_ || posted_ != seen; });
    if (quit_) return;
    seen = posted_;
    // A job that needs fewer threads, or one already done, leaves this helper idle.
    if (job_ == nullptr || index >= job_->threads) continue;
    Job& job = *job_;
    lock.unlock();
    work(job, workers_[index]);
    lock.lock();
    if (--busy_ == 0) done_.notify_one();
  }
}

std::uint64_t ShaderProcessor::run_work_groups(const ComputeDispatch& dispatch, std::uint64_t first, std::uint64_t total,
                                               Preamble* preamble) {
  if (first >= total) return 0;
  // hardware_concurrency() reads sysfs on glibc: asked once, not per dispatch.
  static const unsigned host_threads = std::max(1u, std::thread::hardware_concurrency());
  const auto threads = static_cast<unsigned>(std::min<std::uint64_t>(host_threads, total - first));
  Job job(dispatch, first, total, preamble, threads);
  if (threads > 1 && helpers_.empty()) {
    workers_.resize(host_threads);  // before any helper reads it
    for (unsigned i = 1; i < host_threads; ++i) helpers_.emplace_back(&ShaderProcessor::helper, this, i);
  }
  if (workers_.empty()) workers_.resize(1);
  if (threads > 1) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      busy_ = threads - 1;
      ++posted_;
    }
    wake_.notify_all();
  }
  work(job, workers_[0]);
  if (threads > 1) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }
  if (job.first_fault) std::rethrow_exception(job.first_fault);
  return job.executed;
}

std::uint64_t ShaderProcessor::run(const ComputeDispatch& dispatch) {
  const std::uint64_t total = std::uint64_t{dispatch.groups[0]} * dispatch.groups[1] * dispatch.groups[2];
  if (total == 0) return 0;
  if (!dispatch.program->has_preamble()) return run_work_groups(dispatch, 0, total, nullptr);
  // The preamble writes this dispatch's constant file: a copy of it, complete once the first
  // work group (whose first wave runs the preamble) is done and before any other group starts.
  with_preamble_ = dispatch;
  Preamble preamble{with_preamble_.constants, with_preamble_.constant_loaded};
  return run_work_groups(with_preamble_, 0, 1, &preamble) + run_work_groups(with_preamble_, 1, total, &preamble);
}

}  // namespace adreno::virt
