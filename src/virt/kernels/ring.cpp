#include "virt/kernels/ring.h"

namespace adreno::virt {

Ring::Ring(std::shared_ptr<const GpuMemory> memory, std::chrono::milliseconds hang_timeout, FaultLog log)
    : memory_(std::move(memory)),
      hang_timeout_(hang_timeout),
      log_(std::move(log)), cp_(*memory_, hang_timeout, stop_), thread_([this] { worker(); }) {}

Ring::~Ring() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::uint64_t Ring::submit(std::vector<IbSpan> ibs, std::vector<std::shared_ptr<const void>> keep_alive,
                          std::shared_ptr<const AddressRanges> allowed, std::optional<InjectedFault> injected) {
  std::lock_guard lock(mutex_);
  const std::uint64_t seqno = ++submitted_;
  if (fault_) {
    retired_ = seqno;  // a faulted ring runs nothing more; the submission is cancelled at once
  } else {
    queue_.push_back(Submission{seqno, std::move(ibs), std::move(keep_alive), std::move(allowed), injected});
  }
  changed_.notify_all();
  return seqno;
}

void Ring::worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Submission submission = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::optional<FaultRecord> fault;
    try {
      if (submission.injected) raise(*submission.injected, submission.ibs);
      cp_.execute(submission.ibs, submission.allowed.get());
    } catch (const GpuFault& error) {
      fault = FaultRecord{error.kind(), error.address(), error.what(), submission.seqno};
      if (log_) log_(*fault);
    }
    submission.keep_alive.clear();
    lock.lock();
    retired_ = submission.seqno;
    if (fault) {
      fault_ = std::move(fault);
      // Cancel everything queued behind the fault.
      if (!queue_.empty()) retired_ = queue_.back().seqno;
      queue_.clear();
    }
    changed_.notify_all();
  }
}

void Ring::raise(const InjectedFault& fault, const std::vector<IbSpan>& ibs) {
  const std::uint64_t first_ib = ibs.empty() ? 0 : ibs.front().address;
  if (fault.kind != FaultKind::hang) throw GpuFault(fault.kind, fault.address, "injected by the test");
  // The GPU makes no progress: the hang detector fires after its timeout, as in the CP's waits.
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, hang_timeout_, [&] { return stop_.load(); });
  throw GpuFault(FaultKind::hang, first_ib, stop_ ? "injected hang aborted by teardown" : "injected by the test: no progress");
}

Ring::WaitResult Ring::wait(std::uint64_t seqno, std::chrono::nanoseconds timeout) const {
  std::unique_lock lock(mutex_);
  auto done = [&] { return retired_ >= seqno || (fault_ && fault_->seqno <= seqno); };
  // wait_for adds the timeout to now(): a "forever" timeout would overflow into the past.
  constexpr auto kForever = std::chrono::hours(24 * 365);
  if (timeout >= kForever) {
    changed_.wait(lock, done);
  } else if (!changed_.wait_for(lock, timeout, done)) {
    return WaitResult::timeout;
  }
  if (fault_ && fault_->seqno <= seqno) return WaitResult::faulted;
  return WaitResult::retired;
}

std::uint64_t Ring::submitted() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

std::uint64_t Ring::retired() const {
  std::lock_guard lock(mutex_);
  return retired_;
}

std::optional<FaultRecord> Ring::fault() const {
  std::lock_guard lock(mutex_);
  return fault_;
}

}  // namespace adreno::virt
