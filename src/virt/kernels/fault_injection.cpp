#include "virt/kernels/fault_injection.h"

namespace adreno::virt {

void FaultInjection::fault_submission(std::uint64_t nth, InjectedFault fault) {
  std::lock_guard lock(mutex_);
  planned_[submissions_ + nth] = fault;
}

void FaultInjection::clear() {
  std::lock_guard lock(mutex_);
  planned_.clear();
}

std::optional<InjectedFault> FaultInjection::next_submission() {
  std::lock_guard lock(mutex_);
  auto it = planned_.find(++submissions_);
  if (it == planned_.end()) return std::nullopt;
  InjectedFault fault = it->second;
  planned_.erase(it);
  return fault;
}

void FaultInjection::report(std::string timeline, const FaultRecord& record) {
  std::lock_guard lock(mutex_);
  faults_.push_back(ReportedFault{std::move(timeline), record});
}

std::vector<ReportedFault> FaultInjection::faults() const {
  std::lock_guard lock(mutex_);
  return faults_;
}

std::optional<InjectedFault> next_injected_fault(const std::shared_ptr<FaultInjection>& injection) {
  return injection ? injection->next_submission() : std::nullopt;
}

Ring::FaultLog reporting_fault_log(std::shared_ptr<FaultInjection> injection, std::string timeline, Ring::FaultLog also) {
  if (!injection) return also;
  return [injection = std::move(injection), timeline = std::move(timeline), also = std::move(also)](const FaultRecord& record) {
    injection->report(timeline, record);
    if (also) also(record);
  };
}

}  // namespace adreno::virt
