// The virtual shader processor: runs every work group of a dispatch, spreading independent work
// groups over the host's cores. Within a work group the waves take turns, meeting at barriers.
#pragma once

#include "virt/gpu/compute_dispatch.h"
#include "virt/gpu/wave.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace adreno::virt {

class ShaderProcessor {
 public:
  ShaderProcessor() = default;
  ShaderProcessor(const ShaderProcessor&) = delete;
  ShaderProcessor& operator=(const ShaderProcessor&) = delete;
  ~ShaderProcessor();

  /// Runs the dispatch to completion. Returns the fiber-instructions executed. Throws the first
  /// GpuFault any work group raised (page fault, shader error, hang); the other groups stop early.
  std::uint64_t run(const ComputeDispatch& dispatch);

 private:
  // What one host thread runs work groups with. Kept from dispatch to dispatch, so that a
  // dispatch like the earlier ones allocates nothing: its waves are made in the storage of the
  // earlier waves, its work group's local memory in the earlier group's.
  struct Worker {
    std::vector<std::optional<Wave>> waves;  // the first `bound` are this dispatch's
    std::size_t bound = 0;
    WorkGroup group;
    std::vector<std::uint8_t> ended;  // per wave of the group
  };
  // Work groups [next, total) of a dispatch, taken one at a time by `threads` host threads.
  struct Job {
    Job(const ComputeDispatch& dispatch, std::uint64_t first, std::uint64_t total, Preamble* preamble, unsigned threads)
        : dispatch(dispatch), total(total), preamble(preamble), threads(threads), next(first) {}
    const ComputeDispatch& dispatch;
    std::uint64_t total;
    Preamble* preamble;
    unsigned threads;
    std::atomic<std::uint64_t> next;
    std::atomic<std::uint64_t> executed{0};
    std::atomic<bool> failed{false};
    std::mutex fault_mutex;
    std::exception_ptr first_fault;
  };

  /// Runs work groups [first, total) on every host thread.
  std::uint64_t run_work_groups(const ComputeDispatch& dispatch, std::uint64_t first, std::uint64_t total, Preamble* preamble);
  /// Takes work groups of `job` until there are none left or one failed.
  static void work(Job& job, Worker& worker);
  /// Runs one work group on `worker`, whose waves run `dispatch` from the first on.
  static std::uint64_t run_work_group(const ComputeDispatch& dispatch, std::uint64_t linear_id, Preamble* preamble,
                                      Worker& worker);
  /// The loop of helper thread `index` (its worker is workers_[index]).
  void helper(unsigned index);

  std::vector<Worker> workers_;  // [0] is the calling thread's, [i] helper i's
  ComputeDispatch with_preamble_;  // a dispatch with a preamble, whose constant file the preamble writes

  // The helper threads, started at the first dispatch of more than one work group and kept until
  // the processor goes: starting threads per dispatch cost more than a small dispatch's work.
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;  // a job was posted, or quit_
  std::condition_variable done_;  // busy_ reached 0
  Job* job_ = nullptr;            // the job being run, while there is one
  std::uint64_t posted_ = 0;      // jobs posted so far
  unsigned busy_ = 0;             // helpers still working on job_
  bool quit_ = false;
};

}  // namespace adreno::virt
