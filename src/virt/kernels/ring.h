// The rings of the virtual kernels. A RingBuffer is what the hardware has: one command processor
// working through submissions in order, one ringbuffer per priority band (KGSL: adreno_dispatch.c
// dispatch_get_rb puts a context on ringbuffers[priority / num_ringbuffers]; MSM: every
// submitqueue of a single-ring a6xx shares gpu->rb[0], msm_gpu.h msm_gpu_convert_priority). A
// Ring is one execution timeline on it — a KGSL draw context or an MSM submitqueue — with its own
// sequence numbers, its own pagetable and its own fault. Because the ringbuffer is shared, a CP
// wait for memory that a later submission on the same ringbuffer writes never ends: the hang
// detector (the command processor's hang timeout) faults the waiter, as on hardware.
//
// The first fault — a CP error, a hang, a shader error, or an access outside the submission's
// allowed ranges — stops a Ring: what its context queued behind it is cancelled, as the drivers'
// fault recovery does for the guilty context. The other Rings on the RingBuffer carry on. Page
// faults are not faults of the Ring: as the drivers' default IOMMU setup has it, the GPU goes on
// (reads see zeros, writes are dropped), each faulting page is logged once per submission, and
// the submission retires normally (gpu_memory.h PageFaults).
#pragma once

#include "virt/gpu/command_processor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace adreno::virt {

class Ring;

struct FaultRecord {
  FaultKind kind;
  std::uint64_t address;
  std::string message;
  std::uint64_t seqno;  // the submission that faulted
  bool write = false;       // page faults: the access was a write
  bool permission = false;  // page faults: a permission fault, else a translation fault
};

/// Keeps submissions running without finishing until the test ends the stall: the GPU is busy
/// and making progress, as during a long dispatch, so the hang detector stays quiet.
class Stall {
 public:
  void end();
  /// Returns once end() was called, or `stop` is set (teardown: then false).
  bool wait(const std::atomic<bool>& stop) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable ended_changed_;
  bool ended_ = false;
};

/// A fault a test chose for one submission (src/testing): instead of running, the submission
/// hangs until the hang detector fires; or it page-faults at `address` and then runs; or, with
/// `stall`, it runs only once the stall ended.
struct InjectedFault {
  FaultKind kind;             // hang or page_fault; not looked at with a stall
  std::uint64_t address = 0;  // page_fault: the faulting GPU address
  std::shared_ptr<const Stall> stall{};
};

/// One hardware ringbuffer: a thread that runs the submissions of every Ring on it in order. A
/// submission whose dependencies (other Rings' sequence numbers) are not retired yet is held back
/// with its entity's later work, as the dispatchers hold a drawobj with pending sync points
/// (kgsl_drawobj.c, adreno_dispatch.c dispatcher_context_sendcmds) and drm_sched holds an
/// entity's job queue behind its first job with unsignalled dependencies
/// (sched_entity.c drm_sched_entity_pop_job); other entities' work passes it. An entity is one
/// Ring (a KGSL context) unless Rings share one (msm: the submitqueues of one file and priority).
class RingBuffer {
 public:
  RingBuffer();
  ~RingBuffer();
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

 private:
  friend class Ring;
  struct Dependency {
    std::shared_ptr<const Ring> ring;
    std::uint64_t seqno;
  };
  struct Entry {
    Ring* ring;
    std::uint64_t seqno;
    std::vector<IbSpan> ibs;
    std::vector<std::shared_ptr<const void>> keep_alive;
    std::shared_ptr<const AddressRanges> allowed;
    std::optional<InjectedFault> injected;
    std::vector<Dependency> after;
  };
  void worker();
  /// The first queued entry that may run now; queue_.end() when none.
  std::deque<Entry>::iterator next_ready();
  /// Removes and returns what `ring` has queued (the caller holds mutex_).
  std::vector<Entry> take_entries_of(const Ring* ring);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Entry> queue_;
  Ring* running_ = nullptr;
  bool stop_ = false;
  std::thread thread_;
};

class Ring {
 public:
  enum class WaitResult { retired, timeout, faulted };
  /// Told about a fault on the ring's thread, as it happens (the driver's fault log).
  using FaultLog = std::function<void(const FaultRecord&)>;
  /// What the driver does with the Ring's faults: `fault` for those that stop it (recovery),
  /// `page_fault` for each page fault the GPU went on after (told before `fault`, if both).
  struct FaultLogs {
    FaultLog fault;
    FaultLog page_fault;
  };
  /// The submission may run only once `ring` retired `seqno`.
  using Dependency = RingBuffer::Dependency;

  /// A timeline on `buffer`; without one it gets a ringbuffer of its own.
  /// `instruction_cache_units`: the model's, for the command processor's preload check (0: none).
  /// `execution`: how the command processor runs streams and times shaders.
  /// `entity`: shared by the Rings whose submissions run in one FIFO order with each other
  /// (msm's drm_sched entity); without one the Ring is its own entity.
  Ring(std::shared_ptr<const GpuMemory> memory, std::chrono::milliseconds hang_timeout, FaultLogs logs = {},
       std::shared_ptr<RingBuffer> buffer = nullptr, std::uint32_t instruction_cache_units = 0,
       ExecutionModel execution = ExecutionModel::from_environment(), std::shared_ptr<const void> entity = nullptr,
       ir3::Generation generation = ir3::Generation::a6xx);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  /// Queues the IBs; `keep_alive` is released once the submission retired (the drivers hold
  /// references to every object a submission uses until then). With `allowed`, the submission
  /// faults on any access outside those GPU address ranges. With `injected`, the submission
  /// hangs instead of running its IBs, or page-faults before running them. It runs only after
  /// `after` retired. Returns the sequence number.
  std::uint64_t submit(std::vector<IbSpan> ibs, std::vector<std::shared_ptr<const void>> keep_alive = {},
                       std::shared_ptr<const AddressRanges> allowed = nullptr,
                       std::optional<InjectedFault> injected = std::nullopt, std::vector<Dependency> after = {});

  /// Waits until `seqno` retired. A submission at or after the faulting one reports `faulted`.
  WaitResult wait(std::uint64_t seqno, std::chrono::nanoseconds timeout) const;

  std::uint64_t submitted() const;
  std::uint64_t retired() const;
  std::optional<FaultRecord> fault() const;
  /// The FIFO order this Ring's submissions run in (see RingBuffer).
  const void* entity() const noexcept { return entity_ ? entity_.get() : this; }
  /// Whether `seqno` retired (or was cancelled by a fault): a dependency on it is met.
  bool passed(std::uint64_t seqno) const { return retired_.load(std::memory_order_acquire) >= seqno; }

 private:
  friend class RingBuffer;
  /// Runs one submission on the caller's (the ringbuffer's) thread and retires it.
  void execute(RingBuffer::Entry& entry);
  /// Throws the injected hang once the hang detector's time passed (or teardown began).
  [[noreturn]] void hang(const std::vector<IbSpan>& ibs);
  /// Tells the page-fault log about each page fault of submission `seqno`.
  void report_page_faults(PageFaults& faults, std::uint64_t seqno);

  std::shared_ptr<const GpuMemory> memory_;
  std::chrono::milliseconds hang_timeout_;
  FaultLogs logs_;
  std::atomic<bool> stop_{false};
  CommandProcessor cp_;
  std::shared_ptr<RingBuffer> buffer_;
  std::shared_ptr<const void> entity_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::uint64_t submitted_ = 0;
  std::atomic<std::uint64_t> retired_{0};
  std::optional<FaultRecord> fault_;
};

}  // namespace adreno::virt
