// The test kit's record of what reached one virtual device: every call on its node and every
// submission, decoded with the driver's table (kernel_calls.h). Fed by VirtualSyscalls' observer.
#pragma once

#include <adreno/testing.hpp>

#include "testing/kernel_calls.h"
#include "virt/kernels/virtual_syscalls.h"

#include <mutex>
#include <vector>

namespace adreno::testing::detail {

class CallLog {
 public:
  /// `system` is the seam that reports to this log (it resolves MSM IB addresses from its ledger).
  CallLog(const DriverCalls& driver, const virt::VirtualSyscalls& system) : driver_(driver), system_(system) {}

  void record(const virt::VirtualSyscalls::Call& call);

  std::vector<Call> calls() const;
  std::vector<Submission> submissions() const;
  void clear();

 private:
  Call describe(const virt::VirtualSyscalls::Call& call) const;
  void resolve_ib_addresses(Submission& submission) const;

  const DriverCalls& driver_;
  const virt::VirtualSyscalls& system_;
  mutable std::mutex mutex_;
  std::vector<Call> calls_;
  std::vector<Submission> submissions_;
};

/// The entry for a call of `request` with `arg`, or nullptr when the table lacks it.
const IoctlEntry* find_entry(const DriverCalls& calls, unsigned long request, const void* arg);

}  // namespace adreno::testing::detail
