#include <adreno/error.hpp>
#include <adreno/queue.hpp>

#include "kernel/log.h"
#include "core/chip_setup.h"
#include "core/queue_impl.h"
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
// The prologue takes 30 dwords on a6xx and 81 on a740 (35 per-chip registers, three of them 64-bit).
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
  references_.reserve(64);
  listed_.reserve(64);
}

Queue::Impl::~Impl() {
  try {
    submit();
    if (const std::uint64_t last = fence_; last != 0) wait_fence(last, kForever);
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

pm4::CommandStream& Queue::Impl::stream() {
  if (!stream_) {
    if (trace_) [[unlikely]] trace_->recording_started();
    stream_.emplace(commands_, pm4::CommandStream::Growth::separate_ibs);
  }
  return *stream_;
}

void Queue::Impl::reference(const std::shared_ptr<MemoryBlock>& block, bool write) {
  // The reference count is taken only for a block not listed yet: dispatches reference their
  // program's and arguments' blocks again and again within one recording.
  add_once_made(
      reference_index_, references_, reinterpret_cast<std::uintptr_t>(block.get()), [&] { return Reference{block, write}; },
      [&](Reference& existing) { existing.write = existing.write || write; });
}

void Queue::Impl::check_not_lost() const {
  if (!is_lost_.load(std::memory_order_acquire)) return;
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

std::uint64_t Queue::Impl::submit() {
  check_not_lost();
  if (!stream_) return 0;
  std::span<const pm4::IbRange> ibs = stream_->finish();
  if (ibs.empty()) {
    stream_.reset();
    carried_.forget();
    return 0;
  }
  reference(scratch_, true);
  const auto& chunks = commands_.blocks();
  ib_refs_.clear();
  ib_refs_.push_back(IbRef{&scratch_->bo(), scratch_->allocation().offset + kPrologueOffset, prologue_dwords_});
  for (const pm4::IbRange& ib : ibs) {
    const MemoryBlock& chunk = *chunks.at(ib.tag);
    ib_refs_.push_back(IbRef{&chunk.bo(), chunk.allocation().offset + (ib.gpu - chunk.allocation().gpu), ib.dwords});
  }
  // Sub-allocations share kernel objects: list each object once, writable if any use writes.
  bo_uses_.clear();
  object_index_.clear();
  const auto list = [&](const Bo& bo, bool write) {
    add_once(object_index_, bo_uses_, reinterpret_cast<std::uintptr_t>(&bo), BoUse{&bo, write},
             [](BoUse& existing, const BoUse& added) { existing.write = existing.write || added.write; });
  };
  for (const auto& chunk : chunks) list(chunk->bo(), false);
  for (const Reference& ref : references_) list(ref.block->bo(), ref.write);
  for (const ListedObject& listed : listed_) list(listed.object->bo, listed.write);
  dump_if_requested(ibs);
  warn_unwritten_polls();
  const auto submit_begin = trace_ ? Tracer::Clock::now() : Tracer::Clock::time_point{};
  const std::uint64_t fence = device_->kernel().submit(context_, ib_refs_, bo_uses_, after_);
  if (trace_) [[unlikely]] trace_->submitted(fence, submit_begin, Tracer::Clock::now());
  after_.clear();
  fence_ = fence;
  device_->contexts().note_submitted(context_, fence);  // before any use of the fence is recorded
  for (const Reference& ref : references_) ref.block->record_use(context_, fence);
  references_.clear();
  reference_index_.clear();
  listed_.clear();
  commands_.release(context_, fence);
  stream_.reset();
  carried_.forget();  // the next submission starts from unknown state (CarriedProgramState)
  for (PendingSignal& pending : signals_) pending.signal->expect(weak_from_this(), fence, pending.value);
  signals_.clear();
  return fence;
}

Queue::Impl::WaitKind Queue::Impl::resolve_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  if (signal->value() >= value) return WaitKind::reached;
  // Written earlier in this queue's own recording: the value comes before the wait in ring
  // order, so polling memory for it cannot hold up anything that produces it.
  const bool written_here = std::any_of(signals_.begin(), signals_.end(), [&](const PendingSignal& pending) {
    return pending.signal == signal && pending.value >= value;
  });
  if (written_here) return WaitKind::polled_after_writer;
  const auto writer = signal->writer_of(value);
  if (!writer) return WaitKind::polled_unwritten;  // the host, or work not submitted yet
  if (writer->queue.get() == this) return WaitKind::polled_after_writer;  // submitted earlier here
  // Another queue's submitted work writes it. A CP wait here would hold the whole ringbuffer
  // of this priority band — the producer too, when it is queued behind — until the hang
  // detector kills the waiter; the kernel holds the submission back instead.
  // A context's fences retire in order: only its latest one needs waiting for.
  const Kernel::ContextId producer = writer->queue->context();
  auto known = std::find_if(after_.begin(), after_.end(), [&](const FenceWait& w) { return w.context == producer; });
  if (known == after_.end()) {
    after_.push_back(FenceWait{producer, writer->fence});
  } else {
    known->fence = std::max(known->fence, writer->fence);
  }
  return WaitKind::in_kernel;
}

void Queue::Impl::wait_for(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  if (trace_) [[unlikely]] trace_->tracer().wait_recorded(signal.get(), value, trace_->track());
  const WaitKind kind = resolve_wait(signal, value);
  if (kind == WaitKind::reached || kind == WaitKind::in_kernel) return;
  // Written earlier on this queue, or by nothing submitted yet: the CP polls memory. For the
  // latter, the writer must not be queued behind this wait on the same priority band
  // (Queue::wait says so); submit() warns when it is still unwritten then.
  if (kind == WaitKind::polled_unwritten) unwritten_polls_.push_back(PendingSignal{signal, value});
  emit_wait(stream(), gen_, signal->gpu_address(), value);
  reference(signal->memory(), false);
}

void Queue::Impl::hold_recorded_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value) {
  if (resolve_wait(signal, value) == WaitKind::polled_unwritten) unwritten_polls_.push_back(PendingSignal{signal, value});
}

void Queue::Impl::warn_unwritten_polls() {
  // Still no submitted writer: the value comes from the host or from a submission made after
  // this one. The wait is not turned into a kernel wait now even if a writer was submitted since
  // it was recorded: the kernel would hold this whole submission until that writer's whole
  // submission retired, which deadlocks when the writer in turn polls for a value this
  // submission writes after the wait.
  const auto unwritten = std::find_if(unwritten_polls_.begin(), unwritten_polls_.end(), [](const PendingSignal& poll) {
    return poll.signal->value() < poll.value && !poll.signal->writer_of(poll.value);
  });
  if (unwritten != unwritten_polls_.end() && !warned_unwritten_poll_) {
    warned_unwritten_poll_ = true;
    log().warn("queue (context {}): the GPU polls a signal for {:#x}, which no submitted work writes: the whole priority "
               "band waits until the host sets it or a later submission writes it, and a writer queued behind it on "
               "the same band deadlocks until the hang detector ends this queue (said once per queue)",
               context_, unwritten->value);
  }
  unwritten_polls_.clear();
}

void Queue::Impl::dump_if_requested(std::span<const pm4::IbRange> ibs) {
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
  for (const auto& chunk : commands_.blocks()) add(chunk->object());
  for (const Reference& ref : references_) add(ref.block->object());
  for (const ListedObject& listed : listed_) add(*listed.object);
  // The IB list as the kernel receives it: the queue's prologue (cache invalidate, per-chip setup)
  // runs first in every submission, so a dump without it would not show what the GPU executes.
  std::vector<pm4::IbRange> submitted{prologue()};
  submitted.insert(submitted.end(), ibs.begin(), ibs.end());
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
      is_lost_.store(true, std::memory_order_release);
    }
    throw Error(Errc::device_lost, "queue wait", why, error.sys_errno());
  }
  device_->contexts().note_retired(context_, fence);
  if (trace_) [[unlikely]] trace_->retired(fence, wait_begin);
  return true;
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
  const auto& memory = signal.impl()->memory();
  const GpuAddress address = signal.impl()->gpu_address();
  emit_signal(impl_->stream(), impl_->generation(), address, value);
  impl_->reference(memory, true);
  impl_->note_signal(signal.impl(), value);
}

void Queue::wait(const Signal& signal, std::uint64_t value) {
  impl_->check_not_lost();
  impl_->wait_for(signal.impl(), value);
}

void Queue::write_timestamp(const BufferView& destination) {
  impl_->check_not_lost();
  if (destination.size() < 8) throw Error(Errc::invalid_argument, "write timestamp", "destination is smaller than 8 bytes");
  emit_timestamp(impl_->stream(), destination.gpu_address());
  impl_->reference(block_of(destination), true);
}

void Queue::write(const BufferView& destination, std::span<const std::uint32_t> values) {
  impl_->check_not_lost();
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

void Queue::finish(std::chrono::nanoseconds timeout) {
  impl_->submit();
  if (!impl_->wait_fence(impl_->last_fence(), timeout)) {
    throw Error(Errc::timeout, "queue finish", "work on context " + std::to_string(impl_->context()) + " did not finish in time");
  }
}

}  // namespace adreno
