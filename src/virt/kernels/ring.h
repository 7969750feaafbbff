// One execution timeline: a KGSL draw context or an MSM submitqueue. Submissions run in order on
// the ring's own thread (so a CP wait on one ring never blocks another), each retiring with the
// next sequence number. The first fault stops the ring: what was queued behind it is cancelled,
// as the drivers' fault recovery does for the guilty context.
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

struct FaultRecord {
  FaultKind kind;
  std::uint64_t address;
  std::string message;
  std::uint64_t seqno;  // the submission that faulted
};

/// A fault a test chose for one submission (src/testing): instead of running, the submission
/// hangs until the hang detector fires, or page-faults at `address`.
struct InjectedFault {
  FaultKind kind;             // hang or page_fault
  std::uint64_t address = 0;  // page_fault: the faulting GPU address
};

class Ring {
 public:
  enum class WaitResult { retired, timeout, faulted };
  /// Told about a fault on the ring's thread, as it happens (the driver's fault log).
  using FaultLog = std::function<void(const FaultRecord&)>;

  Ring(std::shared_ptr<const GpuMemory> memory, std::chrono::milliseconds hang_timeout, FaultLog log = {});
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  /// Queues the IBs; `keep_alive` is released once the submission retired (the drivers hold
  /// references to every object a submission uses until then). With `allowed`, the submission
  /// faults on any access outside those GPU address ranges. Returns the sequence number.
  /// With `injected`, the submission raises that fault instead of running its IBs.
  std::uint64_t submit(std::vector<IbSpan> ibs, std::vector<std::shared_ptr<const void>> keep_alive = {},
                       std::shared_ptr<const AddressRanges> allowed = nullptr,
                       std::optional<InjectedFault> injected = std::nullopt);

  /// Waits until `seqno` retired. A submission at or after the faulting one reports `faulted`.
  WaitResult wait(std::uint64_t seqno, std::chrono::nanoseconds timeout) const;

  std::uint64_t submitted() const;
  std::uint64_t retired() const;
  std::optional<FaultRecord> fault() const;

 private:
  struct Submission {
    std::uint64_t seqno;
    std::vector<IbSpan> ibs;
    std::vector<std::shared_ptr<const void>> keep_alive;
    std::shared_ptr<const AddressRanges> allowed;
    std::optional<InjectedFault> injected;
  };
  void worker();
  /// Throws the injected fault: a hang once the hang detector's time passed (or teardown began).
  [[noreturn]] void raise(const InjectedFault& fault, const std::vector<IbSpan>& ibs);

  std::shared_ptr<const GpuMemory> memory_;
  std::chrono::milliseconds hang_timeout_;
  FaultLog log_;
  std::atomic<bool> stop_{false};
  CommandProcessor cp_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Submission> queue_;
  std::uint64_t submitted_ = 0;
  std::uint64_t retired_ = 0;
  std::optional<FaultRecord> fault_;
  std::thread thread_;
};

}  // namespace adreno::virt
