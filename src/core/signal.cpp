#include <adreno/error.hpp>
#include <adreno/queue.hpp>

#include "core/queue_impl.h"

#include <atomic>
#include <thread>

namespace adreno {
namespace {

// How long a host wait spins on memory before it sleeps in the kernel: long enough to catch a
// dispatch that is about to finish, short next to a kernel round trip.
constexpr std::chrono::microseconds kSpinTime{20};
// How often a wait re-reads memory when no submission that writes the value is known yet.
constexpr std::chrono::microseconds kPollInterval{100};

std::atomic_ref<std::uint64_t> slot(const MemoryBlock& memory) {
  return std::atomic_ref<std::uint64_t>(*memory.cpu().as<std::uint64_t>().data());
}

}  // namespace

Signal::Impl::Impl(std::shared_ptr<Device::Impl> device, std::shared_ptr<MemoryBlock> memory)
    : device_(std::move(device)), memory_(std::move(memory)) {}

std::uint64_t Signal::Impl::value() const noexcept { return slot(*memory_).load(std::memory_order_acquire); }

void Signal::Impl::set(std::uint64_t value) noexcept {
  slot(*memory_).store(value, std::memory_order_release);
  // Work held on the host for this signal may go now (Mesa flushes deferred submits when the
  // host signals a semaphore the same way: vk_queue.c, vk_device_flush from a host signal).
  for (const auto& holder : take_holders()) holder->release_held();
}

void Signal::Impl::add_holder(std::weak_ptr<Queue::Impl> queue) {
  std::lock_guard lock(mutex_);
  for (const auto& holder : holders_) {
    if (!holder.owner_before(queue) && !queue.owner_before(holder)) return;  // once per queue
  }
  holders_.push_back(std::move(queue));
}

std::vector<std::shared_ptr<Queue::Impl>> Signal::Impl::take_holders() {
  std::vector<std::weak_ptr<Queue::Impl>> holders;
  {
    std::lock_guard lock(mutex_);
    if (holders_.empty()) return {};
    holders.swap(holders_);
  }
  std::vector<std::shared_ptr<Queue::Impl>> live;
  for (const auto& holder : holders) {
    if (auto queue = holder.lock()) live.push_back(std::move(queue));
  }
  return live;
}

void Signal::Impl::expect(std::weak_ptr<Queue::Impl> queue, std::uint64_t fence, std::uint64_t value) {
  std::lock_guard lock(mutex_);
  writers_.push_back(Writer{std::move(queue), fence, value});
}

std::optional<Signal::Impl::KnownWriter> Signal::Impl::writer_of(std::uint64_t target) {
  std::optional<KnownWriter> earliest;
  std::lock_guard lock(mutex_);
  std::erase_if(writers_, [&](const Writer& w) { return w.queue.expired() || w.value < value(); });
  for (const Writer& writer : writers_) {
    if (writer.value >= target && (!earliest || writer.fence < earliest->fence)) {
      if (auto live = writer.queue.lock()) earliest = KnownWriter{std::move(live), writer.fence};
    }
  }
  return earliest;
}

bool Signal::Impl::wait(std::uint64_t target, std::chrono::nanoseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = timeout >= Clock::time_point::max() - start ? Clock::time_point::max() : start + timeout;
  while (Clock::now() - start < kSpinTime) {
    if (value() >= target) return true;
  }
  for (;;) {
    if (value() >= target) return true;
    const std::optional<KnownWriter> writer = writer_of(target);
    const auto now = Clock::now();
    if (now >= deadline) return value() >= target;
    const auto remaining = deadline == Clock::time_point::max() ? std::chrono::nanoseconds::max()
                                                                : std::chrono::nanoseconds(deadline - now);
    if (writer) {
      if (!writer->queue->wait_fence(writer->fence, remaining)) return value() >= target;
    } else {
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(kPollInterval, remaining));
    }
  }
}

Signal::Signal(Device& device, std::uint64_t initial) {
  auto allocation = device.impl().allocator().allocate(8, 8, BoFlags{MemoryType::uncached, false}, true);
  auto memory = std::make_shared<MemoryBlock>(device.shared_impl(), std::move(allocation));
  impl_ = std::make_shared<Impl>(device.shared_impl(), std::move(memory));
  impl_->set(initial);
}

Signal::Signal(Signal&&) noexcept = default;
Signal& Signal::operator=(Signal&&) noexcept = default;
Signal::~Signal() = default;

std::uint64_t Signal::value() const noexcept { return impl_->value(); }
void Signal::set(std::uint64_t value) noexcept { impl_->set(value); }
GpuAddress Signal::gpu_address() const noexcept { return impl_->gpu_address(); }
bool Signal::wait(std::uint64_t target, std::chrono::nanoseconds timeout) const { return impl_->wait(target, timeout); }

}  // namespace adreno
