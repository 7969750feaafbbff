// Queues and timeline signals. A Queue records work — dispatches, signals, waits, timestamps —
// into GPU memory and hands it to the kernel on submit(). Independent work recorded back to back
// runs without barriers; barrier() orders dependent work.
//
// A Signal is a 64-bit timeline value in GPU memory. The GPU writes it (after flushing caches, so
// everything before it is visible to the host and to other queues); the host and other queues
// wait for it to reach a value.
//
// The GPU has one command processor per priority band, shared by every queue of the band (all
// queues on an MSM a6xx): a wait that the command processor polls holds the whole band. So
// Queue::wait for a value that another queue's submitted work writes is handed to the kernel —
// a KGSL sync point, an MSM syncobj in-fence — and the band keeps running (the whole next
// submission of the waiting queue waits for the writer's whole submission). A wait for a value
// that no submitted work writes yet — set from the host, or written by a submission made later —
// holds the work recorded after it on the host: it reaches the kernel only once the value is
// there (Signal::set hands it on, from whatever thread sets it) or a submission that writes it
// was made (then the kernel holds it for that submission), as Vulkan's wait-before-signal
// submissions are kept back by Mesa's common runtime. Work recorded before the wait goes to the
// kernel at submit() as usual; later work of the queue stays behind the held work, in order.
// Only values written earlier on the same queue (before the wait in ring order) are polled by
// the command processor, which then cannot hold up their writer.
// The command processor compares one dword, so a polled wait looks at the low 32 bits,
// unsigned or signed as suits the target: it is exact, across carries into the high dword too,
// while the signal is less than 2^30 below the target when the wait starts and does not jump
// 2^30 or more past it before the GPU sees it. A signal's 64-bit value is written low dword
// first, so a reader never sees more than the value being written. Graph waits are decided the
// same way at every replay (a held replay is held whole, from its start).
// Circular waits — each of two queues waiting for a value only the other's held work writes, or
// a queue waiting for a value it writes later itself — are never released: such work stays held
// (a wait on its fence times out) and is dropped, never run, when its queue is destroyed.
#pragma once

#include <adreno/buffer.hpp>
#include <adreno/device.hpp>
#include <adreno/program.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace adreno {

class Queue;

class Signal {
 public:
  explicit Signal(Device& device, std::uint64_t initial = 0);
  Signal(Signal&&) noexcept;
  Signal& operator=(Signal&&) noexcept;
  ~Signal();

  /// The value in memory now.
  std::uint64_t value() const noexcept;
  /// Sets the value from the host, and hands on work queues hold for it (an error there is
  /// reported by that queue's next call).
  void set(std::uint64_t value) noexcept;
  GpuAddress gpu_address() const noexcept;

  /// Waits until the value reaches `target`: polls briefly, then sleeps in the kernel's wait on
  /// the submission that will write it. Returns false on timeout; throws Error(device_lost)
  /// when that submission's context was reset.
  bool wait(std::uint64_t target, std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max()) const;

  class Impl;
  const std::shared_ptr<Impl>& impl() const noexcept { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

struct QueueDesc {
  /// 0 is the highest; nullopt picks the middle of the device's levels.
  std::optional<unsigned> priority;
};

class Queue {
 public:
  explicit Queue(Device& device, const QueueDesc& desc = {});
  Queue(Queue&&) noexcept;
  Queue& operator=(Queue&&) noexcept;
  /// Waits for the queue's work in the kernel to finish (a lost context is not an error here),
  /// drops work still held on the host (logged), then destroys the kernel context.
  ~Queue();

  // Recording. Nothing reaches the GPU before submit(). A buffer view, signal or program of
  // another device is Error(invalid_argument) naming the parameter, and nothing is recorded.

  /// Writes `value` to `signal` after all work recorded before it, with caches flushed.
  void signal(const Signal& signal, std::uint64_t value);
  /// Work recorded after this starts only once `signal` ≥ `value`: held by the kernel when
  /// another queue's submitted work writes the value (the whole next submission waits then),
  /// polled by the GPU when this queue wrote it earlier, else held on the host until the value
  /// is set or a submission that writes it is made (see above).
  void wait(const Signal& signal, std::uint64_t value);
  /// Writes the 64-bit GPU always-on counter to `destination` once prior work is idle.
  void write_timestamp(const BufferView& destination);
  /// Writes `values` to `destination` from the command processor when it reaches this point of
  /// the stream. Dispatches recorded before may still run and the GPU's caches may hold the old
  /// bytes, so put barrier() between this write and work that uses the same memory, before or
  /// after it, as between dependent dispatches (Turnip needs the same for vkCmdUpdateBuffer, also
  /// a CP_MEM_WRITE: the application's pipeline barrier invalidates and waits).
  void write(const BufferView& destination, std::span<const std::uint32_t> values);
  /// Makes the results of work recorded before it visible to work recorded after it.
  void barrier();
  /// Launches `program` over `launch.groups` work-groups of `launch.local_size` invocations with
  /// the values in `arguments` (which must belong to `program`; they are copied now, so the
  /// object may be changed right after). No cache flush or wait is added: dispatches recorded
  /// back to back may overlap, so put barrier() between dependent ones. Throws
  /// Error(invalid_argument) naming the field for a zero or too-large local size (more than 1024
  /// invocations, or other than the program's fixed size), group counts whose global size does
  /// not fit 32 bits, or an argument not set; Error(unsupported) on a GPU other than a6xx.
  void dispatch(const Program& program, const Arguments& arguments, const Launch& launch);
  /// Launches `program` over the group counts the GPU reads when it gets there: three uint32
  /// (x, y, z) at the start of `groups`, typically written by an earlier dispatch (put barrier()
  /// between them). The driver params that depend on the counts are copied by the command
  /// processor from that memory before the program's constants are loaded (Turnip's indirect
  /// path, tu_emit_compute_driver_params); the others are written now. Throws as dispatch()
  /// does, and Error(invalid_argument) naming `groups` when the view is smaller than 12 bytes or
  /// not 4-byte aligned, Error(unsupported) for a Qualcomm binary (CP_RUN_OPENCL reads no counts
  /// from memory). Counts whose global size (count × local size) leaves 32 bits make the GPU
  /// report a fault, which loses the queue (Error(device_lost) at its wait), rather than hang.
  void dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                         const IndirectLaunch& launch);

  // Submission.

  /// Hands the recorded work to the kernel, except what is held on the host behind a wait (see
  /// wait()); returns its fence (0 when nothing was recorded). When the kernel refuses held work
  /// (here, or when a Signal::set or another queue's submit handed it on), the held work queued
  /// behind it is dropped, never run, and the refusal is thrown — by this call, else by the
  /// queue's next recording call, submit or wait, once; the queue then takes new work as before.
  std::uint64_t submit();
  /// Waits for a fence returned by submit() — for held work, until it reached the kernel and
  /// then ran: false on timeout. Throws Error(device_lost) naming the context's reset status
  /// when the GPU faulted or hung; the queue stays lost (sticky). For held work that never
  /// reached the kernel it throws at every call, never returns true: the kernel's refusal (its
  /// code and errno, the detail saying it refused that submission) or, for work dropped behind
  /// it, the same code and errno with a detail saying it was dropped because earlier held work
  /// failed.
  bool wait_fence(std::uint64_t fence, std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());
  /// Submits what is recorded and waits for all of it, held work included; Error(timeout) when
  /// it did not finish in time. Throws as wait_fence does when work submitted since the previous
  /// finish never reached the kernel, even if the refusal was reported already; the next finish
  /// answers only for work after that.
  void finish(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());

  class Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace adreno
