// A queue inside the library: one kernel context, the command stream being recorded, and the
// memory blocks the recorded work references (listed for the kernel at submit, and marked as
// used by the submission so the allocator does not recycle them early).
#pragma once

#include <adreno/error.hpp>
#include <adreno/queue.hpp>

#include "core/buffer_impl.h"
#include "core/command_memory.h"
#include "core/device_impl.h"
#include "core/dispatch_encoder.h"
#include "core/gpu_part.h"
#include "kernel/flat_index.h"
#include "core/trace.h"
#include "core/upload_area.h"
#include "pm4/command_stream.h"

#include <atomic>
#include <cassert>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace adreno {

class Queue::Impl : public std::enable_shared_from_this<Queue::Impl> {
 public:
  Impl(std::shared_ptr<Device::Impl> device, unsigned priority);
  ~Impl();

  Device::Impl& device() noexcept { return *device_; }
  Kernel::ContextId context() const noexcept { return context_; }

  /// The stream to record into (opened on first use after each submit).
  pm4::CommandStream& stream() {
    if (!stream_) [[unlikely]] open_stream();
    return *stream_;
  }
  /// stream() while the recording carries a program's state: the stream is open then (the
  /// carried state is forgotten when it closes).
  pm4::CommandStream& carrying_stream() noexcept {
    assert(stream_ && "no program state is carried without an open stream");
    return *stream_;
  }
  /// The program whose state the recording set last (dispatch_encoder.h); forgotten at submit.
  CarriedProgramState& carried_program_state() noexcept { return carried_; }
  /// Lists `block` for the kernel and for use tracking at the next submit.
  ///
  /// Dispatches reference the same blocks again and again within one recording. The list with its
  /// index (references_) is the truth; the block's listing stamp says without a lookup that this
  /// very recording listed it already, and writable if the stamp's low bit is set
  /// (MemoryBlock::listing_stamp). A stamp is unique to one recording of one queue on the device,
  /// so a stale one from an earlier recording, or one another queue stored since (the blocks are
  /// shared between queues, which may record on other threads), never matches: those take the
  /// list's own lookup, which is always right. The block stamp serves every Arguments bound to
  /// the block, and graphs and uploads as well; reference_bindings() skips even those checks for
  /// Arguments this recording listed whole.
  void reference(const std::shared_ptr<MemoryBlock>& block, bool write) {
    // Listed writable, or listed at all when this use only reads.
    if ((block->listing_stamp() | (write ? 0 : 1)) == (listing_stamp_ | 1)) return;
    list_reference(block, write);
  }
  /// reference() for every memory block bound to `arguments`, as each binding uses it. Arguments
  /// carry the stamp of the recording that listed all of them (Arguments::Impl::listed_in), which
  /// a change of binding clears: a dispatch with Arguments this recording listed already costs
  /// one compare, however many they bind. The stamp is unique to the recording as above, so
  /// Arguments another queue listed since, or an earlier recording, take the blocks' checks.
  void reference_bindings(const Arguments::Impl& arguments) {
    if (arguments.listed_in() == listing_stamp_) return;
    for (const Arguments::Impl::Binding& binding : arguments.bindings())
      if (binding.memory) reference(binding.memory, binding.gpu_writes);
    arguments.set_listed_in(listing_stamp_);
  }
  /// Lists kernel objects for the next submit only: for memory whose holder (a graph) keeps it
  /// alive until the GPU is done with it, so the queue neither holds nor tracks it.
  struct ListedObject {
    const KernelObject* object;
    bool write;
  };
  void list_objects(std::span<const ListedObject> objects) { listed_.insert(listed_.end(), objects.begin(), objects.end()); }

  /// Closes the recording and hands it, with every earlier submission held on the host, to the
  /// kernel as far as their waits allow. Returns the kernel fence, or kHeldTicket | its ticket
  /// while the recording is held (kernel fences stay far below); 0 when nothing was recorded.
  static constexpr std::uint64_t kHeldTicket = std::uint64_t{1} << 63;
  std::uint64_t submit();
  /// The fence or held ticket of the latest submission (0 before the first).
  std::uint64_t latest_fence();
  /// Tickets number the recordings: the open one, and the latest handed to the kernel (every
  /// earlier one was handed too, in order). Work held on the host is between the two.
  std::uint64_t recording_ticket() const noexcept { return recording_ticket_; }
  std::uint64_t submitted_ticket() const noexcept { return submitted_ticket_.load(std::memory_order_acquire); }
  /// Blocks until the recording with `ticket` was handed to the kernel (submitting the open one).
  void wait_submitted(std::uint64_t ticket);
  /// Keeps `block` alive, and marks its use, with the recording `ticket` when it reaches the
  /// kernel (the open recording or one held on the host; nothing when it was handed already).
  void keep_until_submitted(std::uint64_t ticket, const std::shared_ptr<MemoryBlock>& block, bool write);
  /// Hands held work whose waits are now met to the kernel (a signal it waits for was set or
  /// got a submitted writer). An error is kept for the queue's next call.
  void release_held() noexcept;
  /// A dword of GPU memory the queue's cache flushes write to.
  GpuAddress scratch() const noexcept { return scratch_->allocation().gpu; }
  /// The GPU generation this queue's commands are encoded for.
  pm4::Gen generation() const noexcept { return gen_; }
  bool wait_fence(std::uint64_t fence, std::chrono::nanoseconds timeout);
  /// Submits and waits for everything; throws when work submitted since the previous finish
  /// never reached the kernel (Queue::finish).
  void finish(std::chrono::nanoseconds timeout);
  /// Throws device_lost when an earlier wait found the context reset, and the error of held work
  /// that failed to reach the kernel since the last call (once). Every recording call asks: one
  /// load inline, the rest out of line.
  void check_not_lost() const {
    if (trouble_.load(std::memory_order_acquire) != 0) [[unlikely]] throw_held_error_or_loss();
  }

  /// The command memory of the work being recorded (tools and tests decode it from here).
  const CommandMemory& commands() const noexcept { return commands_; }
  /// The commands every submission starts with, in the scratch block (scratch_block()).
  pm4::IbRange prologue() const noexcept;
  const MemoryBlock& scratch_block() const noexcept { return *scratch_; }
  /// GPU memory for the constants and descriptors of recorded dispatches.
  UploadArea& uploads() noexcept { return uploads_; }

  /// The queue's part of the timeline; nullptr unless the device traces (ADRENO_TRACE).
  QueueTrace* trace() const noexcept { return trace_.get(); }
  /// With trace() only: records the GPU counter before / after work the timeline shows as a span
  /// named `name` on the queue's GPU track.
  void begin_gpu_span(pm4::CommandStream& cs);
  void end_gpu_span(pm4::CommandStream& cs, std::string name) { trace_->end_gpu_span(cs, std::move(name)); }

  /// Signals recorded since the last submit learn their submission's fence at submit.
  void note_signal(std::shared_ptr<Signal::Impl> signal, std::uint64_t value);
  /// Holds later work until `signal` ≥ `value`: in the kernel when another queue's submitted work
  /// writes the value, on the host when nothing submitted writes it, as a CP memory wait when
  /// this queue wrote it earlier (see Queue::wait).
  void wait_for(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value);
  /// The holding half of wait_for, for a wait whose CP wait is recorded already (graphs): when
  /// another queue's submitted work writes `value`, the next submission waits for that work in
  /// the kernel (a KGSL sync point, an MSM in-fence), which meets the CP wait before it starts;
  /// when nothing submitted writes it, the work from here on is held on the host.
  void hold_recorded_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value);

 private:
  struct Reference {
    std::shared_ptr<MemoryBlock> block;
    bool write;
  };
  struct PendingSignal {
    std::shared_ptr<Signal::Impl> signal;
    std::uint64_t value;
  };

  std::shared_ptr<Device::Impl> device_;
  pm4::Gen gen_;
  Kernel::ContextId context_;
  CommandMemory commands_;
  std::optional<pm4::CommandStream> stream_;
  [[gnu::noinline]] void open_stream();
  CarriedProgramState carried_;  // within stream_ only
  /// Ends the recording's stream: the next one is another submission, which starts from unknown
  /// program state (CarriedProgramState).
  void close_stream() noexcept {
    stream_.reset();
    carried_.forget();
    uploads_.recording_closed();
  }
  std::vector<Reference> references_;
  FlatIndex reference_index_;  // block → its entry in references_
  std::uint64_t listing_stamp_ = 0;  // the open recording's (reference()), low bit clear
  /// reference() for a block whose stamp does not say it is listed as needed: finds or adds its
  /// entry, and stamps it.
  void list_reference(const std::shared_ptr<MemoryBlock>& block, bool write);
  /// Starts the open recording's list of references afresh, under a new stamp.
  void restart_references() noexcept;
  std::vector<ListedObject> listed_;
  FlatIndex object_index_;     // kernel object → its entry in bo_uses_, while submit builds it
  /// How a wait is held: the value is there; the kernel holds the next submission (recorded in
  /// `after`); the CP polls, for a value written before it in ring order (earlier on this
  /// queue); or nothing submitted writes it yet, and the host holds the work after it.
  enum class WaitKind { reached, in_kernel, polled_after_writer, on_host };
  /// `written_before`: signals the same submission writes before the wait; `after` collects the
  /// kernel waits.
  WaitKind resolve_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value,
                        std::span<const PendingSignal> written_before, std::vector<FenceWait>& after);
  /// Work from here on is held on the host until `signal` ≥ `value`: what was recorded before is
  /// closed into a submission of its own.
  void hold_on_host(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value);

  /// A closed recording the kernel has not got yet: held on the host for its gates (or behind an
  /// earlier held one), or not submitted yet when it was closed at a host-held wait.
  struct Held {
    std::uint64_t ticket;
    std::vector<pm4::IbRange> ibs;  // tags index `chunks`
    std::vector<std::shared_ptr<MemoryBlock>> chunks;
    std::vector<Reference> references;
    std::vector<ListedObject> listed;
    std::vector<PendingSignal> signals;
    std::vector<FenceWait> after;
    std::vector<PendingSignal> gates;  // waits no submitted work answered when recorded
    bool submitted = false;            // submit() was called for it
    bool ticket_returned = false;      // submit() returned its ticket: remember its fence
    QueueTrace::Recording trace{};     // its GPU spans, when the device traces
  };
  /// The kernel's submission of one recording (the open one or a held one). Returns the fence.
  struct Work {
    std::span<const pm4::IbRange> ibs;
    const std::vector<std::shared_ptr<MemoryBlock>>& chunks;
    std::span<const Reference> references;
    std::span<const ListedObject> listed;
    std::span<const FenceWait> after;
    QueueTrace::Recording* trace = nullptr;  // a held recording's trace; null: the open recording's
  };
  std::uint64_t hand_to_kernel(const Work& work);
  /// With ADRENO_DUMP=<dir>, writes the submission about to be made as an .rd file.
  void dump_if_requested(const Work& work);
  /// True when each gate of `held` is reached or written by submitted work (then the kernel
  /// holds it for that work); else the queue waits for the signal to change.
  bool gates_met(Held& held);
  /// Hands held work, oldest first, to the kernel while its gates are met (submit_mutex_ held).
  /// Appends the signals the handed work writes: their holders may go on.
  void pump(std::vector<std::shared_ptr<Signal::Impl>>& written);
  static void release_holders(const std::vector<std::shared_ptr<Signal::Impl>>& written) noexcept;

  std::vector<PendingSignal> signals_;
  std::vector<PendingSignal> gates_;  // host-held waits of the open recording
  std::vector<FenceWait> after_;  // other queues' submissions the next submit waits for
  std::vector<IbRef> ib_refs_;  // reused across submits
  std::vector<BoUse> bo_uses_;
  std::shared_ptr<MemoryBlock> scratch_;  // flush target and, after it, the submission prologue
  std::uint32_t prologue_dwords_ = 0;
  // Handing work to the kernel, which a signal set on another thread may do (release_held).
  std::mutex submit_mutex_;
  std::condition_variable submitted_changed_;
  std::uint64_t fence_ = 0;  // the kernel's latest
  std::deque<Held> held_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ticket_fences_;  // returned held ticket → kernel fence
  /// Held work that never reached the kernel: the kernel refused ticket `first`, and the held
  /// work behind it, up to `last`, was dropped. Kept for good (failures are rare), so a wait for
  /// any of those tickets fails every time instead of passing as retired and forgotten.
  struct NeverSubmitted {
    std::uint64_t first;
    std::uint64_t last;
    Error refusal;
  };
  std::vector<NeverSubmitted> never_submitted_;
  /// Throws when `ticket` is one of never_submitted_ (submit_mutex_ held).
  void check_reached_kernel(std::uint64_t ticket) const;
  std::uint64_t recording_ticket_ = 1;
  std::uint64_t finish_from_ = 1;  // the first ticket the next finish() answers for
  std::atomic<std::uint64_t> submitted_ticket_{0};
  mutable std::mutex lost_mutex_;  // waits may come from any thread (Signal::wait)
  std::optional<std::string> lost_;  // why the context is gone, once it is
  mutable std::optional<Error> held_error_;  // held work that failed to reach the kernel
  // Lets every recording call check without the mutex: kLost once lost_ is set (for good),
  // kHeldError while held_error_ is.
  static constexpr std::uint8_t kLost = 1, kHeldError = 2;
  mutable std::atomic<std::uint8_t> trouble_{0};
  bool has_held_error() const noexcept { return (trouble_.load(std::memory_order_acquire) & kHeldError) != 0; }
  /// check_not_lost() once either flag is up.
  [[gnu::cold, gnu::noinline]] void throw_held_error_or_loss() const;
  UploadArea uploads_{device_};
  std::unique_ptr<QueueTrace> trace_;  // null unless the device traces
};

/// The host side of a Signal: its memory, and which submissions will write which values.
class Signal::Impl {
 public:
  Impl(std::shared_ptr<Device::Impl> device, std::shared_ptr<MemoryBlock> memory);

  const std::shared_ptr<MemoryBlock>& memory() const noexcept { return memory_; }
  GpuAddress gpu_address() const noexcept { return memory_->allocation().gpu; }
  std::uint64_t value() const noexcept;
  void set(std::uint64_t value) noexcept;

  /// A submission (`fence` on `queue`) will write `value`.
  void expect(std::weak_ptr<Queue::Impl> queue, std::uint64_t fence, std::uint64_t value);
  /// The earliest known submission that writes `target` or beyond.
  struct KnownWriter {
    std::shared_ptr<Queue::Impl> queue;
    std::uint64_t fence;
  };
  std::optional<KnownWriter> writer_of(std::uint64_t target);
  bool wait(std::uint64_t target, std::chrono::nanoseconds timeout);
  /// `queue` holds work on the host until this signal reaches a value: set() and a newly
  /// submitted writer let it look again (Queue::Impl::release_held).
  void add_holder(std::weak_ptr<Queue::Impl> queue);
  /// The queues holding work for this signal, forgotten here (each adds itself again if its
  /// work stays held).
  std::vector<std::shared_ptr<Queue::Impl>> take_holders();

 private:
  struct Writer {
    std::weak_ptr<Queue::Impl> queue;
    std::uint64_t fence;
    std::uint64_t value;
  };
  std::shared_ptr<Device::Impl> device_;
  std::shared_ptr<MemoryBlock> memory_;
  std::mutex mutex_;
  std::vector<Writer> writers_;
  std::vector<std::weak_ptr<Queue::Impl>> holders_;
};

UploadArea::Space UploadArea::allocate(Queue::Impl& queue, std::uint64_t bytes) {
  // (cursor_ never passes kBlockBytes, a multiple of kAlignment, nor does start; the sum does not
  // wrap for the sizes of a layout's parts, 32-bit counts of a few bytes each. Zero bytes fit
  // even an unlisted block: nothing reads them.)
  const std::uint64_t start = (cursor_ + kAlignment - 1) / kAlignment * kAlignment;
  if (start + bytes <= room_end_) [[likely]] {
    cursor_ = start + bytes;
    return Space{CpuView(current_cpu_ + start, bytes), current_gpu_ + start};
  }
  return allocate_listed(queue, bytes);
}

}  // namespace adreno
