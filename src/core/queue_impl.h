// A queue inside the library: one kernel context, the command stream being recorded, and the
// memory blocks the recorded work references (listed for the kernel at submit, and marked as
// used by the submission so the allocator does not recycle them early).
#pragma once

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
  pm4::CommandStream& stream();
  /// The program whose state the recording set last (dispatch_encoder.h); forgotten at submit.
  CarriedProgramState& carried_program_state() noexcept { return carried_; }
  /// Lists `block` for the kernel and for use tracking at the next submit.
  void reference(const std::shared_ptr<MemoryBlock>& block, bool write);
  /// Lists kernel objects for the next submit only: for memory whose holder (a graph) keeps it
  /// alive until the GPU is done with it, so the queue neither holds nor tracks it.
  struct ListedObject {
    const KernelObject* object;
    bool write;
  };
  void list_objects(std::span<const ListedObject> objects) { listed_.insert(listed_.end(), objects.begin(), objects.end()); }

  std::uint64_t submit();
  /// The fence of the latest submission (0 before the first).
  std::uint64_t last_fence() const noexcept { return fence_; }
  /// A dword of GPU memory the queue's cache flushes write to.
  GpuAddress scratch() const noexcept { return scratch_->allocation().gpu; }
  /// The GPU generation this queue's commands are encoded for.
  pm4::Gen generation() const noexcept { return gen_; }
  bool wait_fence(std::uint64_t fence, std::chrono::nanoseconds timeout);
  /// With ADRENO_DUMP=<dir>, writes the submission about to be made as an .rd file.
  void dump_if_requested(std::span<const pm4::IbRange> ibs);
  /// Throws device_lost when an earlier wait found the context reset.
  void check_not_lost() const;

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
  /// writes the value, else as a CP memory wait (see Queue::wait).
  void wait_for(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value);
  /// The kernel half of wait_for, for a wait whose CP wait is recorded already (graphs): when
  /// another queue's submitted work writes `value`, the next submission waits for that work in
  /// the kernel (a KGSL sync point, an MSM in-fence), which meets the CP wait before it starts.
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
  CarriedProgramState carried_;  // within stream_ only
  std::vector<Reference> references_;
  FlatIndex reference_index_;  // block → its entry in references_
  std::vector<ListedObject> listed_;
  FlatIndex object_index_;     // kernel object → its entry in bo_uses_, while submit builds it
  /// How a wait is held: the value is there; the kernel holds the next submission (recorded in
  /// after_); or the CP polls, for a value written before it in ring order (earlier on this
  /// queue) or by nothing submitted yet.
  enum class WaitKind { reached, in_kernel, polled_after_writer, polled_unwritten };
  WaitKind resolve_wait(const std::shared_ptr<Signal::Impl>& signal, std::uint64_t value);
  /// At submit: a poll whose value no submitted work writes yet is logged (once per queue).
  void warn_unwritten_polls();

  std::vector<PendingSignal> signals_;
  std::vector<PendingSignal> unwritten_polls_;  // CP waits of the recording with no submitted writer
  bool warned_unwritten_poll_ = false;
  std::vector<FenceWait> after_;  // other queues' submissions the next submit waits for
  std::vector<IbRef> ib_refs_;  // reused across submits
  std::vector<BoUse> bo_uses_;
  std::shared_ptr<MemoryBlock> scratch_;  // flush target and, after it, the submission prologue
  std::uint32_t prologue_dwords_ = 0;
  std::uint64_t fence_ = 0;
  mutable std::mutex lost_mutex_;  // waits may come from any thread (Signal::wait)
  std::optional<std::string> lost_;  // why the context is gone, once it is
  std::atomic<bool> is_lost_{false};  // lets every recording call check without the mutex
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
};

}  // namespace adreno
