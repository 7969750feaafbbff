// Faults a test plans for one virtual device (the test kit, src/testing, drives it): which
// submissions hang or page-fault instead of running, counted in the order the kernel accepted
// them; and the record of every GPU fault the device's rings reported, whoever caused it.
#pragma once

#include "virt/kernels/ring.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace adreno::virt {

/// A GPU fault as a ring reported it, with the timeline it happened on ("context 3",
/// "submitqueue 1").
struct ReportedFault {
  std::string timeline;
  FaultRecord record;
};

class FaultInjection {
 public:
  /// The `nth` (1-based) submission the kernel accepts from now on raises `fault`.
  void fault_submission(std::uint64_t nth, InjectedFault fault);
  /// Cancels every planned fault that has not fired yet.
  void clear();
  /// Called by a driver once per accepted submission: the fault planned for it, if any.
  std::optional<InjectedFault> next_submission();

  void report(std::string timeline, const FaultRecord& record);
  std::vector<ReportedFault> faults() const;

 private:
  mutable std::mutex mutex_;
  std::uint64_t submissions_ = 0;
  std::map<std::uint64_t, InjectedFault> planned_;  // by submission count
  std::vector<ReportedFault> faults_;
};

/// The fault planned for the next submission of a device set up with `injection` (none without).
std::optional<InjectedFault> next_injected_fault(const std::shared_ptr<FaultInjection>& injection);

/// A ring's fault log that reports to `injection` (when set) under `timeline`, then calls `also`.
Ring::FaultLog reporting_fault_log(std::shared_ptr<FaultInjection> injection, std::string timeline,
                                   Ring::FaultLog also = {});

}  // namespace adreno::virt
