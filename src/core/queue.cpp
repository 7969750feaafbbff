#include <adreno/error.hpp>
#include <adreno/queue.hpp>

#include "kernel/log.h"
#include "core/chip_setup.h"
#include "core/queue_impl.h"
#include "core/same_device.h"
#include "core/sync_commands.h"
#include "pm4/packets.h"
#include "pm4/rd.h"

#include <algorithm>
#include <cstdlib>

namespace adreno {
namespace {

constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();

const char* reset_status_name(ResetStatus status) {
  switch (status) {
    case ResetStatus::none: return "no reset reported";
    case ResetStatus::guilty: return "reset, guilty";
    case ResetStatus::innocent: return "reset, innocent";
    case ResetStatus::unknown: return "reset, cause unknown";
  }
  return "?";
}

std::shared_ptr<MemoryBlock> block_of(const BufferView& view) { return view.buffer()->block_shared(); }

// The scratch block: the barriers' flush target and an indirect dispatch's count vec4 first, then
// the commands each submission starts with (emit_invalidate and the per-chip setup), recorded once.
constexpr std::uint64_t kPrologueOffset = 64;
// The prologue takes 30 dwords on a6xx and up to 83 on a7xx (the a750: 36 per-chip registers, three
// of them 64-bit).
constexpr std::uint64_t kScratchBytes = kPrologueOffset + 512;

/// Hands out the prologue's bytes of the scratch block, once.
class PrologueChunk final : public pm4::ChunkSource {
 public:
  explicit PrologueChunk(const Allocation& scratch) : scratch_(scratch) {}
  pm4::Chunk acquire(std::uint32_t min_dwords) override {
    constexpr auto kDwords = static_cast<std::uint32_t>((kScratchBytes - kPrologueOffset) / 4);
    if (handed_out_ || min_dwords > kDwords) throw Error(Errc::invalid_argument, "record queue prologue", "it outgrew its space");
    handed_out_ = true;
    return pm4::Chunk{scratch_.cpu.subview(kPrologueOffset, kDwords * 4), scratch_.gpu + kPrologueOffset, kDwords, 0};
  }

 private:
  const Allocation& scratch_;
  bool handed_out_ = false;
};

}  // namespace

// --- Queue::Impl ---

Queue::Impl::Impl(std::shared_ptr<Device::Impl> device, unsigned priority)
    : device_(std::move(device)),
      gen_(command_generation(device_->info())),
      context_(device_->kernel().create_context(priority)),
      commands_(device_) {
  try {
    auto allocation = device_->allocator().allocate(kScratchBytes, 64, BoFlags{}, true);
    scratch_ = std::make_shared<MemoryBlock>(device_, std::move(allocation));
    PrologueChunk chunk(scratch_->allocation());
    pm4::CommandStream prologue(chunk);
    // Memory the host or another queue wrote since the last submission is read fresh.
    emit_invalidate(prologue, gen_);
    // The per-chip state compute needs (chip_setup.h), for GPUs compute dispatch supports: on
    // others no program loads, so no compute work reaches this queue.
    if (const GpuPart* part = find_part(device_->info())) emit_chip_setup(prologue, *part);
    prologue_dwords_ = static_cast<std::uint32_t>((prologue.gpu_address_here() - (scratch_->allocation().gpu + kPrologueOffset)) / 4);
    if (Tracer* tracer = device_->tracer()) trace_ = std::make_unique<QueueTrace>(*tracer, context_);
  } catch (...) {
    device_->kernel().destroy_context(context_);
    throw;
  }
  device_->contexts().add(context_);
  restart_references();
  references_.reserve(64);
  listed_.reserve(64);
}

Queue::Impl::~Impl() {
  try {
    submit();
  } catch (const Error& error) {
    log().debug("queue {} closed after an error: {}", context_, error.what());
  }
  // Work still held waits for signals nothing set: it never reaches the kernel, and its memory
  // goes back with it (no submission used it).
  std::deque<Held> dropped;
  {
    std::lock_guard lock(submit_mutex_);
    dropped.swap(held_);
  }
  if (!dropped.empty()) {
    log().warn("queue (context {}): {} submission(s) held on the host for signals never set are dropped", context_,
               dropped.size());
  }
  dropped.clear();
  try {
    wait_fence(fence_, kForever);
  } catch (const Error& error) {
    log().debug("queue {} closed after an error: {}", context_, error.what());
  }
  stream_.reset();
  references_.clear();
  commands_.release(context_, fence_);
  scratch_->record_use(context_, fence_);
  device_->contexts().remove(context_);
  try {
    device_->kernel().destroy_context(context_);
  } catch (const Error& error) {
    log().warn("destroying queue context {}: {}", context_, error.what());
  }
}

pm4::IbRange Queue::Impl::prologue() const noexcept {
  return pm4::IbRange{scratch_->allocation().gpu + kPrologueOffset, prologue_dwords_, 0};
}

void Queue::Impl::open_stream() {
  if (trace_) [[unlikely]] trace_->recording_started();
  stream_.emplace(commands_, pm4::CommandStream::Growth::separate_ibs);
}

void Queue::Impl::list_reference(const std::shared_ptr<MemoryBlock>& block, bool write) {
  // The reference count is taken only for a block not listed yet.
  const std::uint32_t position = add_once_made(
      reference_index_, references_, reinterpret_cast<std::uintptr_t>(block.get()), [&] { return Reference{block, write}; },
      [&](Reference& existing) { existing.write = existing.write || write; });
  block->set_listing_stamp(listing_stamp_ | (references_[position].write ? 1 : 0));
}

void Queue::Impl::restart_references() noexcept {
  references_.clear();
  reference_index_.clear();
  // Unique among all recordings of the process, so among the device's; 2^63 of them never run out.
  static std::atomic<std::uint64_t> recordings{0};
  listing_stamp_ = (recordings.fetch_add(1, std::memory_order_relaxed) + 1) << 1;
}

void Queue::Impl::throw_held_error_or_loss() const {
  if (has_held_error()) {
    std::optional<Error> error;
    {
      std::lock_guard lock(lost_mutex_);
      error.swap(held_error_);
      trouble_.fetch_and(static_cast<std::uint8_t>(~kHeldError), std::memory_order_release);
    }
    if (error) throw *error;
  }
  if ((trouble_.load(std::memory_order_acquire) & kLost) == 0) return;
  std::lock_guard lock(lost_mutex_);
  throw Error(Errc::device_lost, "queue", *lost_);
}

void Queue::Impl::begin_gpu_span(pm4::CommandStream& cs) {
  if (const std::shared_ptr<MemoryBlock>* slab = trace_->begin_gpu_span(device_, cs)) reference(*slab, true);
}

void Queue::Impl::note_signal(std::shared_ptr<Signal::Impl> signal, std::uint64_t value) {
  if (trace_) [[unlikely]] trace_->tracer().signal_recorded(signal.get(), value, trace_->track());
  signals_.push_back(PendingSignal{std::move(signal), value});
}

std::uint64_t Queue::Impl::hand_to_kernel(const Work& work) {
  const auto submit_begin = trace_ ? Tracer::Clock::now() : Tracer::Clock::time_point{};
  ib_refs_.clear();
  ib_refs_.push_back(IbRef{&scratch_->bo(), scratch_->allocation().offset + kPrologueOffset, prologue_dwords_});
  for (const pm4::IbRange& ib : work.ibs) {
    const MemoryBlock& chunk = *work.chunks.at(ib.tag);
    ib_refs_.push_back(IbRef{&chunk.bo(), chunk.allocation().offset + (ib.gpu - chunk.allocation().gpu), ib.dwords});
  }
  // Sub-allocations share kernel objects: list each object once, writable if any use writes.
  bo_uses_.clear();
  object_index_.clear();
  const auto list = [&](const Bo& bo, bool write) {
    add_once(object_index_, bo_uses_, reinterpret_cast<std::uintptr_t>(&bo), BoUse{&bo, write},
             [](BoUse& existing, const BoUse& added) { existing.write = existing.write || added.write; });
  };
  list(scratch_->bo(), true);
  for (const auto& chunk : work.chunks) list(chunk->bo(), false);
  for (const Reference& ref : work.references) list(ref.block->bo(), ref.write);
  for (const ListedObject& listed : work.listed) list(listed.object->bo, listed.write);
  dump_if_requested(work);
  const std::uint64_t fence = device_->kernel().submit(context_, ib_refs_, bo_uses_, work.after);
  if (trace_) [[unlikely]] {
    trace_->submitted(work.trace ? std::move(*work.trace) : trace_->close_recording(), fence, submit_begin,
                      Tracer::Clock::now());
  }
  fence_ = fence;
  device_->contexts().note_submitted(context_, fence);  // before any use of the fence is recorded
  scratch_->record_use(context_, fence);
  for (const Reference& ref : work.references) ref.block->record_use(context_, fence);
  for (const auto& chunk : work.chunks) chunk->record_use(context_, fence);
  return fence;
}

std::uint64_t Queue::Impl::submit() {
  check_not_lost();
  std::unique_lock lock(submit_mutex_);
  if (held_.empty() && gates_.empty()) {
    // Nothing held: the recording goes to the kernel as it is.
    if (!stream_) return 0;
    std::span<const pm4::IbRange> ibs = stream_->finish();
    if (ibs.empty()) {
      close_stream();
      return 0;
    }
    const std::uint64_t fence = hand_to_kernel(Work{ibs, commands_.blocks(), references_, listed_, after_});
    submitted_ticket_.store(recording_ticket_++, std::memory_order_release);
    after_.clear();
    restart_references();
    listed_.clear();
    commands_.release(context_, fence);
    close_stream();
    for (PendingSignal& pending : signals_) pending.signal->expect(weak_from_this(), fence, pending.value);
    lock.unlock();
    // Work held for these values on other queues goes on now, held in the kernel for this.
    for (PendingSignal& pending : signals_)
      for (const auto& holder : pending.signal->take_holders()) holder->release_held();
    signals_.clear();
    return fence;
  }
  // Behind held work, or held itself: closed, queued in order, and handed on as far as the
  // waits allow (Mesa's vk_queue keeps deferred submits the same way, vk_queue.c
  // vk_queue_submit_final / vk_queue_flush).
  lock.unlock();
  hold_on_host(nullptr, 0);
  lock.lock();
  for (Held& held : held_) held.submitted = true;
  std::vector<std::shared_ptr<Signal::Impl>> written;
  std::optional<Error> failed;
  try {
    pump(written);
  } catch (const Error& error) {
    failed = error;
  }
  std::uint64_t result = fence_;
  if (!held_.empty()) {
    held_.back().ticket_returned = true;
    result = kHeldTicket | held_.back().ticket;
  }
  lock.unlock();
  release_holders(written);
  if (failed) throw *failed;
  return result;
}

std::uint64_t Queue::Impl::latest_fence() {
  std::lock_guard lock(submit_mutex_);
  if (held_.empty()) return fence_;
  held_.back().ticket_returned = true;
  return kHeldTicket | held_.back().ticket;
}

bool Queue::Impl::gates_met(Held& held) {
  for (auto gate = held.gates.begin(); gate != held.gates.end();) {
    if (resolve_wait(gate->signal, gate->value, {}, held.after) != WaitKind::on_host) {
      gate = held.gates.erase(gate);
      continue;
    }
    // Asked again whenever the signal is set or gets a writer; looked at once more after
    // registering, so a change in between is not missed.
    gate->signal->add_holder(weak_from_this());
    if (resolve_wait(gate->signal, gate->value, {}, held.after) == WaitKind::on_host) return false;
    gate = held.gates.erase(gate);
  }
  return true;
}

void Queue::Impl::pump(std::vector<std::shared_ptr<Signal::Impl>>& written) {
  while (!held_.empty() && held_.front().submitted) {
    Held& held = held_.front();
    if (!gates_met(held)) break;
    std::uint64_t fence = 0;
    try {
      fence = hand_to_kernel(Work{held.ibs, held.chunks, held.references, held.listed, held.after, &held.trace});
    } catch (const Error& error) {
      // Later held work assumed this ran before it: it goes too, never reaching the kernel.
      never_submitted_.push_back(NeverSubmitted{held.ticket, held_.back().ticket, error});
      held_.clear();
      submitted_changed_.notify_all();
      throw;
    }
    if (held.ticket_returned) {
      // Only tickets not yet known retired are kept: the list stays as short as the work in flight.
      std::erase_if(ticket_fences_, [&](const auto& entry) { return device_->contexts().retired(GpuUse{context_, entry.second}); });
      ticket_fences_.emplace_back(held.ticket, fence);
    }
    for (PendingSignal& pending : held.signals) {
      pending.signal->expect(weak_from_this(), fence, pending.value);
      written.push_back(std::move(pending.signal));
    }
    submitted_ticket_.store(held.ticket, std::memory_order_release);
    held_.pop_front();
  }
  submitted_changed_.notify_all();
}

void Queue::Impl::release_holders(const std::vector<std::shared_ptr<Signal::Impl>>& written) noexcept {
  for (const auto& signal : written)
    for (const auto& holder : signal->take_holders()) holder->release_held();
}

void Queue::Impl::release_held() noexcept {
  std::vector<std::shared_ptr<Signal::Impl>> written;
  {
    std::lock_guard lock(submit_mutex_);
    try {
      pump(written);
    } catch (const Error& error) {
      // Set from the host (Signal::set cannot fail) or by another queue's submit: the queue's
      // own next call reports it.
      std::lock_guard lost(lost_mutex_);
      held_error_ = error;
      trouble_.fetch_or(kHeldError, std::memory_order_release);
    }
  }
  release_holders(written);
}

void Queue::Impl::hold_on_host(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  std::span<const pm4::IbRange> ibs;
  if (stream_) ibs = stream_->finish();
  if (!ibs.empty()) {
    Held held{recording_ticket_++, {ibs.begin(), ibs.end()}, commands_.take(), std::move(references_), std::move(listed_),
              std::move(signals_), std::move(after_), std::move(gates_)};
    if (trace_) [[unlikely]] held.trace = trace_->close_recording();  // the spans go with their work
    references_ = {};
    restart_references();
    listed_ = {};
    signals_ = {};
    after_ = {};
    gates_ = {};
    std::lock_guard lock(submit_mutex_);
    held_.push_back(std::move(held));
  }
  close_stream();
  if (signal) gates_.push_back(PendingSignal{signal, value});
}

void Queue::Impl::check_reached_kernel(std::uint64_t ticket) const {
  for (const NeverSubmitted& failed : never_submitted_) {
    if (ticket < failed.first || ticket > failed.last) continue;
    const std::string why = failed.refusal.operation() + ": " + failed.refusal.detail();
    const std::string held = "held submission " + std::to_string(ticket) + " on context " + std::to_string(context_);
    if (ticket == failed.first) {
      throw Error(failed.refusal.code(), "queue wait",
                  held + " never reached the kernel, which refused it: " + why, failed.refusal.sys_errno());
    }
    throw Error(failed.refusal.code(), "queue wait",
                held + " was dropped because earlier held work (submission " + std::to_string(failed.first) +
                    ") failed to reach the kernel: " + why,
                failed.refusal.sys_errno());
  }
}

void Queue::Impl::wait_submitted(std::uint64_t ticket) {
  if (submitted_ticket() < ticket) submit();
  std::unique_lock lock(submit_mutex_);
  submitted_changed_.wait(lock, [&] {
    return submitted_ticket_.load(std::memory_order_acquire) >= ticket || held_.empty() ||
           has_held_error();
  });
}

void Queue::Impl::keep_until_submitted(std::uint64_t ticket, const std::shared_ptr<MemoryBlock>& block, bool write) {
  if (ticket == recording_ticket_) {
    reference(block, write);
    return;
  }
  std::lock_guard lock(submit_mutex_);
  for (Held& held : held_) {
    if (held.ticket == ticket) held.references.push_back(Reference{block, write});
  }
}

Queue::Impl::WaitKind Queue::Impl::resolve_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value,
                                                std::span<const PendingSignal> written_before,
                                                std::vector<FenceWait>& after) {
  if (signal->value() >= value) return WaitKind::reached;
  // Written earlier in this queue's own recording: the value comes before the wait in ring
  // order, so polling memory for it cannot hold up anything that produces it.
  const bool written_here = std::any_of(written_before.begin(), written_before.end(), [&](const PendingSignal& pending) {
    return pending.signal == signal && pending.value >= value;
  });
  if (written_here) return WaitKind::polled_after_writer;
  const auto writer = signal->writer_of(value);
  // The host, or work not submitted yet: a CP wait would hold the whole ringbuffer of this
  // priority band until then, and a writer queued behind it on the band until the hang
  // detector killed the waiter. The host holds the work instead, as Mesa's common Vulkan
  // runtime holds a submission that waits before its timeline point has a signal operation
  // (vk_device.h VK_DEVICE_TIMELINE_MODE_EMULATED; vk_queue.c vk_queue_submit in
  // VK_QUEUE_SUBMIT_MODE_DEFERRED keeps it in the queue's list, vk_device_flush hands it on),
  // the mode Turnip's msm backend runs in on kernels without syncobj timelines
  // (tu_knl_drm_msm.cc, vk_sync_timeline_get_type).
  if (!writer) return WaitKind::on_host;
  if (writer->queue.get() == this) return WaitKind::polled_after_writer;  // submitted earlier here
  // Another queue's submitted work writes it. A CP wait here would hold the whole ringbuffer
  // of this priority band — the producer too, when it is queued behind — until the hang
  // detector kills the waiter; the kernel holds the submission back instead.
  // A context's fences retire in order: only its latest one needs waiting for.
  const Kernel::ContextId producer = writer->queue->context();
  auto known = std::find_if(after.begin(), after.end(), [&](const FenceWait& w) { return w.context == producer; });
  if (known == after.end()) {
    after.push_back(FenceWait{producer, writer->fence});
  } else {
    known->fence = std::max(known->fence, writer->fence);
  }
  return WaitKind::in_kernel;
}

void Queue::Impl::wait_for(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  if (trace_) [[unlikely]] trace_->tracer().wait_recorded(signal.get(), value, trace_->track());
  const WaitKind kind = resolve_wait(signal, value, signals_, after_);
  if (kind == WaitKind::reached || kind == WaitKind::in_kernel) return;
  // Held on the host, the CP wait still orders the work when the release comes from a writer on
  // this queue; when it comes from the host or another queue's work, it is met on arrival.
  if (kind == WaitKind::on_host) hold_on_host(signal, value);
  emit_wait(stream(), gen_, signal->gpu_address(), value);
  reference(signal->memory(), false);
}

void Queue::Impl::hold_recorded_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  if (resolve_wait(signal, value, signals_, after_) == WaitKind::on_host) hold_on_host(signal, value);
}

void Queue::Impl::dump_if_requested(const Work& work) {
  // ADRENO_DUMP is read once: the check must cost nothing on the hot path.
  static const bool requested = [] {
    const char* directory = std::getenv("ADRENO_DUMP");
    return directory != nullptr && *directory != '\0';
  }();
  if (!requested) return;
  // Every kernel object the submission lists, whole, as the GPU will see it.
  std::vector<pm4::DumpBuffer> buffers;
  auto add = [&](const KernelObject& object) {
    if (object.cpu.empty()) return;  // not host-visible: its contents cannot be shown
    for (const pm4::DumpBuffer& listed : buffers) {
      if (listed.address == object.bo.gpu) return;
    }
    buffers.push_back(pm4::DumpBuffer{object.bo.gpu, object.cpu});
  };
  add(scratch_->object());
  for (const auto& chunk : work.chunks) add(chunk->object());
  for (const Reference& ref : work.references) add(ref.block->object());
  for (const ListedObject& listed : work.listed) add(*listed.object);
  // The IB list as the kernel receives it: the queue's prologue (cache invalidate, per-chip setup)
  // runs first in every submission, so a dump without it would not show what the GPU executes.
  std::vector<pm4::IbRange> submitted{prologue()};
  submitted.insert(submitted.end(), work.ibs.begin(), work.ibs.end());
  // The device's ids, not the kernel's: KGSL's byte-wise model number is wrong for a7xx chip ids
  // (describe() in device.cpp), and cffdump and adreno-decode pick the generation from RD_GPU_ID.
  const DeviceInfo& info = device_->info();
  if (auto path = pm4::dump_submission_if_requested({info.gpu_id, info.chip_id, buffers, submitted})) {
    log().info("queue {}: submission dumped to {}", context_, path->string());
  }
}

bool Queue::Impl::wait_fence(std::uint64_t fence, std::chrono::nanoseconds timeout) {
  check_not_lost();
  if (fence == 0) return true;
  if ((fence & kHeldTicket) != 0) {
    // Held on the host: first until it reaches the kernel, which a signal set on another thread
    // or another queue's submission brings about, then for its kernel fence.
    const std::uint64_t ticket = fence & ~kHeldTicket;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto deadline = timeout >= Clock::time_point::max() - start ? Clock::time_point::max() : start + timeout;
    std::unique_lock lock(submit_mutex_);
    const auto handed = [&] {
      return submitted_ticket_.load(std::memory_order_acquire) >= ticket || held_.empty() ||
             has_held_error();
    };
    if (deadline == Clock::time_point::max()) {
      submitted_changed_.wait(lock, handed);
    } else if (!submitted_changed_.wait_until(lock, deadline, handed)) {
      return false;
    }
    check_not_lost();  // held work that failed to reach the kernel (reported once)
    check_reached_kernel(ticket);  // (reported at every wait for it)
    const auto entry = std::find_if(ticket_fences_.begin(), ticket_fences_.end(), [&](const auto& e) { return e.first == ticket; });
    if (entry == ticket_fences_.end()) return true;  // retired, and forgotten
    fence = entry->second;
    lock.unlock();
    const auto now = Clock::now();
    timeout = deadline == Clock::time_point::max() ? kForever : std::max(std::chrono::nanoseconds(0), std::chrono::nanoseconds(deadline - now));
  }
  const auto wait_begin = trace_ ? Tracer::Clock::now() : Tracer::Clock::time_point{};
  try {
    if (!device_->kernel().wait(context_, fence, timeout)) return false;
  } catch (const Error& error) {
    if (error.code() != Errc::device_lost) throw;
    ResetStatus status = ResetStatus::unknown;
    try {
      status = device_->kernel().reset_status(context_);
    } catch (const Error&) {
    }
    std::string why = "context " + std::to_string(context_) + " lost (" + reset_status_name(status) + "): " + error.what();
    {
      std::lock_guard lock(lost_mutex_);
      lost_ = why;
      trouble_.fetch_or(kLost, std::memory_order_release);
    }
    throw Error(Errc::device_lost, "queue wait", why, error.sys_errno());
  }
  device_->contexts().note_retired(context_, fence);
  if (trace_) [[unlikely]] trace_->retired(fence, wait_begin);
  return true;
}

void Queue::Impl::finish(std::chrono::nanoseconds timeout) {
  const std::uint64_t from = finish_from_;
  try {
    submit();
  } catch (const Error&) {
    finish_from_ = recording_ticket_;  // this call reported the failure
    throw;
  }
  finish_from_ = recording_ticket_;
  if (!wait_fence(latest_fence(), timeout)) {
    finish_from_ = from;  // nothing answered yet
    throw Error(Errc::timeout, "queue finish", "work on context " + std::to_string(context_) + " did not finish in time");
  }
  // Work of this finish's scope that never reached the kernel, though its refusal was reported
  // already (once, by some earlier call): all of it did not run, so finishing is no success.
  std::lock_guard lock(submit_mutex_);
  for (const NeverSubmitted& failed : never_submitted_) {
    if (failed.last >= from) check_reached_kernel(std::max(failed.first, from));
  }
}

// --- Queue ---

namespace {
unsigned default_priority(const DeviceInfo& info) { return info.priority_levels / 2; }
}  // namespace

Queue::Queue(Device& device, const QueueDesc& desc) {
  const DeviceInfo& info = device.info();
  const unsigned priority = desc.priority.value_or(default_priority(info));
  if (priority >= info.priority_levels) {
    throw Error(Errc::invalid_argument, "create queue",
                "priority " + std::to_string(priority) + " is outside 0.." + std::to_string(info.priority_levels - 1));
  }
  impl_ = std::make_shared<Impl>(device.shared_impl(), priority);
}

Queue::Queue(Queue&&) noexcept = default;
Queue& Queue::operator=(Queue&&) noexcept = default;
Queue::~Queue() = default;

void Queue::signal(const Signal& signal, std::uint64_t value) {
  impl_->check_not_lost();
  require_usable_signal(impl_->device(), signal, "queue signal");
  const auto& memory = signal.impl()->memory();
  const GpuAddress address = signal.impl()->gpu_address();
  emit_signal(impl_->stream(), impl_->generation(), address, value);
  impl_->reference(memory, true);
  impl_->note_signal(signal.impl(), value);
}

void Queue::wait(const Signal& signal, std::uint64_t value) {
  impl_->check_not_lost();
  // Another device's signal is written by another device's queues: its writers' fences are
  // contexts of another file, its memory in another GPU address space.
  require_usable_signal(impl_->device(), signal, "queue wait");
  impl_->wait_for(signal.impl(), value);
}

void Queue::write_timestamp(const BufferView& destination) {
  impl_->check_not_lost();
  require_same_device(impl_->device(), destination, "write timestamp", "destination");
  if (destination.size() < 8) throw Error(Errc::invalid_argument, "write timestamp", "destination is smaller than 8 bytes");
  emit_timestamp(impl_->stream(), destination.gpu_address());
  impl_->reference(block_of(destination), true);
}

void Queue::write(const BufferView& destination, std::span<const std::uint32_t> values) {
  impl_->check_not_lost();
  require_same_device(impl_->device(), destination, "write values", "destination");
  if (values.size() * 4 > destination.size()) {
    throw Error(Errc::invalid_argument, "write values",
                std::to_string(values.size()) + " dwords do not fit in " + std::to_string(destination.size()) + " bytes");
  }
  pm4::mem_write(impl_->stream(), destination.gpu_address(), values);
  impl_->reference(block_of(destination), true);
}

void Queue::barrier() {
  impl_->check_not_lost();
  emit_barrier(impl_->stream(), impl_->generation(), impl_->scratch());
}

std::uint64_t Queue::submit() { return impl_->submit(); }

bool Queue::wait_fence(std::uint64_t fence, std::chrono::nanoseconds timeout) { return impl_->wait_fence(fence, timeout); }

void Queue::finish(std::chrono::nanoseconds timeout) { impl_->finish(timeout); }

}  // namespace adreno
