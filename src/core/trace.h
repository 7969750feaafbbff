// The timeline (ADRENO_TRACE=<file.json>): a Chrome trace-event JSON file that Perfetto's UI and
// chrome://tracing open. Each queue has a host track (record, submit, wait) and a GPU track
// (each dispatch and graph replay between two reads of the GPU's always-on counter, which the
// command processor writes into a trace slab around it); flow arrows go from a signal to the waits
// it releases. A device made with the variable unset has no Tracer and its queues no QueueTrace:
// the queue tests one pointer, records no extra packets and allocates nothing.
#pragma once

#include <adreno/address.hpp>

#include "core/device_impl.h"
#include "pm4/command_stream.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace adreno {

class MemoryBlock;

/// The trace of one device: collects events from its queues and writes the file at close.
class Tracer {
 public:
  using Clock = std::chrono::steady_clock;

  /// The tracer ADRENO_TRACE asks for (read when a device opens), or nullptr when it is unset.
  static std::unique_ptr<Tracer> from_environment();
  explicit Tracer(std::filesystem::path path);
  /// Writes the file; a failure is logged (a device closes whatever happens to its trace).
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Names the host and GPU tracks of a new queue; returns the queue's track number.
  unsigned add_queue(std::uint32_t context);
  void host_span(unsigned queue, const char* name, Clock::time_point begin, Clock::time_point end, std::uint64_t fence);
  /// A GPU span between two always-on counter values, of the submission `fence` that the host
  /// handed to the kernel at `submitted` and saw retired at `retired`.
  struct GpuSpan {
    std::string name;
    std::uint64_t begin_ticks;
    std::uint64_t end_ticks;
  };
  void gpu_spans(unsigned queue, std::uint64_t fence, std::vector<GpuSpan> spans, Clock::time_point submitted,
                 Clock::time_point retired);
  /// `queue` recorded a write of `value` to `signal` / a wait for `value` on it; a wait that a
  /// recorded write releases (the smallest value at or beyond the wait's) gets a flow arrow.
  void signal_recorded(const void* signal, std::uint64_t value, unsigned queue);
  void wait_recorded(const void* signal, std::uint64_t value, unsigned queue);

  /// The JSON text of everything collected so far.
  std::string json() const;

 private:
  struct HostEvent {
    unsigned queue;
    const char* name;
    double begin_us, end_us;
    std::uint64_t fence;
  };
  struct GpuEvent {
    unsigned queue;
    std::string name;
    double begin_us, end_us;  // GPU clock
    std::uint64_t fence;
  };
  struct RecordedSignal {
    const void* signal;
    std::uint64_t value;
    unsigned queue;
    double at_us;
  };
  struct Flow {
    unsigned from_queue, to_queue;
    double from_us, to_us;
  };

  double since_start(Clock::time_point t) const;

  std::filesystem::path path_;
  Clock::time_point start_ = Clock::now();
  mutable std::mutex mutex_;
  std::vector<std::uint32_t> queue_contexts_;
  std::vector<HostEvent> host_;
  std::vector<GpuEvent> gpu_;
  std::vector<RecordedSignal> signals_;
  std::vector<Flow> flows_;
  // The GPU clock's offset from the host's (µs) lies in [offset_low_, offset_high_]: each GPU
  // time lies after its submission was handed to the kernel and before the host saw it retire.
  double offset_low_ = -1e300;
  double offset_high_ = 1e300;
};

/// One queue's part of the trace: the host spans of its submissions and the GPU timestamps its
/// recorded work writes. Recording (begin/end, recording_started, close_recording) comes from the
/// thread recording on the queue; submitted and retired may come from any thread (Signal::set
/// hands held work on, Signal::wait waits).
class QueueTrace {
 public:
  QueueTrace(Tracer& tracer, std::uint32_t context);
  ~QueueTrace();

  Tracer& tracer() noexcept { return tracer_; }
  unsigned track() const noexcept { return track_; }
  /// A GPU span recorded into a slab: where its begin value goes, the end value follows.
  struct PendingSpan {
    std::string name;
    std::uint32_t slab;    // index in its recording's slabs
    std::uint32_t offset;  // of the begin value
  };
  /// The trace of one closed recording: when it started, its GPU spans and the slabs their
  /// counter values go to. It travels with the recording: one held on the host reaches the kernel
  /// later, from whatever thread hands it on, while the queue records more.
  struct Recording {
    Tracer::Clock::time_point since{};
    std::vector<PendingSpan> spans;
    std::vector<std::shared_ptr<MemoryBlock>> slabs;
  };

  /// The queue opened a stream for its next submission.
  void recording_started() { recording_since_ = Tracer::Clock::now(); }
  /// Closes the recording: its spans and slabs leave with it (the thread recording on the queue).
  Recording close_recording();
  /// Records the always-on counter into the slab before a GPU span. Returns the slab it took when
  /// the current one was full (the caller lists it for the submission), else nullptr.
  const std::shared_ptr<MemoryBlock>* begin_gpu_span(const std::shared_ptr<Device::Impl>& device, pm4::CommandStream& cs);
  /// Records the counter after the span's work (and its name: the program and its grid).
  void end_gpu_span(pm4::CommandStream& cs, std::string name);
  /// `recording` went to the kernel as `fence`, between `begin` and `end` (any thread: the
  /// recording's own state is not touched).
  void submitted(Recording recording, std::uint64_t fence, Tracer::Clock::time_point begin, Tracer::Clock::time_point end);
  /// A wait that began at `wait_begin` saw `fence`, and so every earlier submission, retired:
  /// the wait is a host span, the submissions' GPU spans go to the tracer.
  void retired(std::uint64_t fence, Tracer::Clock::time_point wait_begin);

 private:
  static constexpr std::uint32_t kSlabBytes = 4096;  // 256 counter values
  struct Submitted {
    std::uint64_t fence;
    Tracer::Clock::time_point at;
    Recording recording;
  };

  Tracer& tracer_;
  unsigned track_;
  Tracer::Clock::time_point recording_since_{};
  std::vector<std::shared_ptr<MemoryBlock>> slabs_;  // of the work being recorded
  std::uint32_t slab_used_ = 0;
  std::vector<PendingSpan> spans_;
  std::mutex submitted_mutex_;
  std::vector<Submitted> submitted_;
};

}  // namespace adreno
