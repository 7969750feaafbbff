#include "virt/kernels/ring.h"

#include <algorithm>
#include <set>

namespace adreno::virt {
namespace {
// How often a ringbuffer with held-back work looks at its dependencies again: they retire on
// other ringbuffers' threads, which do not know who waits for them.
constexpr std::chrono::milliseconds kDependencyPoll{1};
}  // namespace

// --- RingBuffer ---

RingBuffer::RingBuffer() : thread_([this] { worker(); }) {}

RingBuffer::~RingBuffer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::deque<RingBuffer::Entry>::iterator RingBuffer::next_ready() {
  std::set<const void*> held;  // entities whose earlier submission waits: their later work waits too
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (held.count(it->ring->entity()) != 0) continue;
    const bool ready = std::all_of(it->after.begin(), it->after.end(),
                                   [](const Dependency& d) { return d.ring->passed(d.seqno); });
    if (ready) return it;
    held.insert(it->ring->entity());
  }
  return queue_.end();
}

void RingBuffer::worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    auto next = queue_.end();
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    next = next_ready();
    if (next == queue_.end()) {
      changed_.wait_for(lock, kDependencyPoll);
      continue;
    }
    Entry entry = std::move(*next);
    queue_.erase(next);
    running_ = entry.ring;
    lock.unlock();
    entry.ring->execute(entry);
    entry = Entry{};  // dependencies and kept objects go outside the lock
    lock.lock();
    running_ = nullptr;
    changed_.notify_all();
  }
}

// --- Ring ---

Ring::Ring(std::shared_ptr<const GpuMemory> memory, std::chrono::milliseconds hang_timeout, FaultLogs logs,
           std::shared_ptr<RingBuffer> buffer, std::uint32_t instruction_cache_units, ExecutionModel execution,
           std::shared_ptr<const void> entity, ir3::Generation generation)
    : memory_(std::move(memory)),
      hang_timeout_(hang_timeout),
      logs_(std::move(logs)),
      cp_(*memory_, hang_timeout, stop_, instruction_cache_units, execution, generation),
      buffer_(buffer ? std::move(buffer) : std::make_shared<RingBuffer>()),
      entity_(std::move(entity)) {}

std::vector<RingBuffer::Entry> RingBuffer::take_entries_of(const Ring* ring) {
  std::vector<Entry> taken;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->ring == ring) {
      taken.push_back(std::move(*it));
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  return taken;
}

Ring::~Ring() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;  // a submission of this ring that is running now ends at once
  }
  changed_.notify_all();
  std::vector<RingBuffer::Entry> dropped;  // released after the lock: they may hold other rings
  std::unique_lock lock(buffer_->mutex_);
  dropped = buffer_->take_entries_of(this);
  buffer_->changed_.wait(lock, [&] { return buffer_->running_ != this; });
  lock.unlock();
}

std::uint64_t Ring::submit(std::vector<IbSpan> ibs, std::vector<std::shared_ptr<const void>> keep_alive,
                           std::shared_ptr<const AddressRanges> allowed, std::optional<InjectedFault> injected,
                           std::vector<Dependency> after) {
  std::lock_guard lock(mutex_);
  const std::uint64_t seqno = ++submitted_;
  if (fault_) {
    retired_ = seqno;  // a faulted ring runs nothing more; the submission is cancelled at once
    changed_.notify_all();
    return seqno;
  }
  {
    std::lock_guard buffer_lock(buffer_->mutex_);
    buffer_->queue_.push_back(
        RingBuffer::Entry{this, seqno, std::move(ibs), std::move(keep_alive), std::move(allowed), injected,
                          std::move(after)});
  }
  buffer_->changed_.notify_all();
  return seqno;
}

void Ring::execute(RingBuffer::Entry& entry) {
  std::optional<FaultRecord> fault;
  PageFaults page_faults;
  try {
    if (entry.injected && entry.injected->stall) {
      if (!entry.injected->stall->wait(stop_)) throw GpuFault(FaultKind::hang, 0, "stalled submission aborted by teardown");
    } else if (entry.injected) {
      if (entry.injected->kind == FaultKind::hang) hang(entry.ibs);
      page_faults.record(PageFaults::Fault{entry.injected->address, false, false, "injected by the test"});
    }
    cp_.execute(entry.ibs, entry.allowed.get(), &page_faults);
  } catch (const GpuFault& error) {
    fault = FaultRecord{error.kind(), error.address(), error.what(), entry.seqno};
  }
  // A submission cut short because its timeline is being torn down is no driver fault: nobody
  // is told, as the owner (a context, a file) may be half destroyed.
  if (!stop_) {
    report_page_faults(page_faults, entry.seqno);
    if (fault && logs_.fault) logs_.fault(*fault);
  }
  entry.keep_alive.clear();
  std::vector<RingBuffer::Entry> cancelled;  // released after the locks: they may hold other rings
  std::lock_guard lock(mutex_);
  retired_ = entry.seqno;
  if (fault) {
    fault_ = std::move(fault);
    // Cancel everything this context queued behind the fault.
    {
      std::lock_guard buffer_lock(buffer_->mutex_);
      cancelled = buffer_->take_entries_of(this);
    }
    retired_ = submitted_;
  }
  changed_.notify_all();
}

void Ring::report_page_faults(PageFaults& faults, std::uint64_t seqno) {
  for (const PageFaults::Fault& fault : faults.take()) {
    if (!logs_.page_fault) continue;
    const GpuFault error(FaultKind::page_fault, fault.address,
                         std::string(fault.reason) + (fault.write ? " (write)" : " (read)"));
    logs_.page_fault(FaultRecord{FaultKind::page_fault, fault.address, error.what(), seqno, fault.write, fault.permission});
  }
}

void Stall::end() {
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
  }
  ended_changed_.notify_all();
}

bool Stall::wait(const std::atomic<bool>& stop) const {
  // Teardown sets `stop` without knowing the stall: look at it now and then.
  constexpr auto kTeardownCheck = std::chrono::milliseconds(5);
  std::unique_lock lock(mutex_);
  while (!ended_) {
    if (stop.load()) return false;
    ended_changed_.wait_for(lock, kTeardownCheck);
  }
  return true;
}

void Ring::hang(const std::vector<IbSpan>& ibs) {
  const std::uint64_t first_ib = ibs.empty() ? 0 : ibs.front().address;
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

std::uint64_t Ring::retired() const { return retired_.load(std::memory_order_acquire); }

std::optional<FaultRecord> Ring::fault() const {
  std::lock_guard lock(mutex_);
  return fault_;
}

}  // namespace adreno::virt
