#include "core/trace.h"

#include "core/buffer_impl.h"
#include "core/sync_commands.h"
#include "kernel/log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

namespace adreno {
namespace {

// CP_ALWAYS_ON_COUNTER ticks at the 19.2 MHz XO clock on a6xx and a7xx (tinygrad's QCOM runtime
// converts its timestamps with the same rate: ops_qcom.py, timestamp_divider 19.2).
constexpr double kTicksPerMicrosecond = 19.2;

// One process; queue k has the host track 2k + 1 and the GPU track 2k + 2.
constexpr int kPid = 1;
int host_tid(unsigned queue) { return static_cast<int>(2 * queue + 1); }
int gpu_tid(unsigned queue) { return static_cast<int>(2 * queue + 2); }

nlohmann::json event(const std::string& name, const char* phase, double ts, int tid) {
  return {{"name", name}, {"ph", phase}, {"ts", ts}, {"pid", kPid}, {"tid", tid}};
}

nlohmann::json metadata(const char* what, int tid, const std::string& name) {
  nlohmann::json m = event(what, "M", 0, tid);
  m["args"] = {{"name", name}};
  return m;
}

}  // namespace

// --- Tracer ---

std::unique_ptr<Tracer> Tracer::from_environment() {
  const char* path = std::getenv("ADRENO_TRACE");
  if (path == nullptr || *path == '\0') return nullptr;
  return std::make_unique<Tracer>(path);
}

Tracer::Tracer(std::filesystem::path path) : path_(std::move(path)) {}

Tracer::~Tracer() {
  std::ofstream out(path_, std::ios::trunc);
  out << json();
  out.close();
  if (!out) log().warn("ADRENO_TRACE: could not write the trace to {}", path_.string());
}

double Tracer::since_start(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - start_).count();
}

unsigned Tracer::add_queue(std::uint32_t context) {
  std::lock_guard lock(mutex_);
  queue_contexts_.push_back(context);
  return static_cast<unsigned>(queue_contexts_.size() - 1);
}

void Tracer::host_span(unsigned queue, const char* name, Clock::time_point begin, Clock::time_point end, std::uint64_t fence) {
  std::lock_guard lock(mutex_);
  host_.push_back(HostEvent{queue, name, since_start(begin), since_start(end), fence});
}

void Tracer::gpu_spans(unsigned queue, std::uint64_t fence, std::vector<GpuSpan> spans, Clock::time_point submitted,
                       Clock::time_point retired) {
  std::lock_guard lock(mutex_);
  const double submitted_us = since_start(submitted), retired_us = since_start(retired);
  for (GpuSpan& span : spans) {
    const double begin = static_cast<double>(span.begin_ticks) / kTicksPerMicrosecond;
    const double end = static_cast<double>(span.end_ticks) / kTicksPerMicrosecond;
    offset_low_ = std::max(offset_low_, submitted_us - begin);
    offset_high_ = std::min(offset_high_, retired_us - end);
    gpu_.push_back(GpuEvent{queue, std::move(span.name), begin, end, fence});
  }
}

void Tracer::signal_recorded(const void* signal, std::uint64_t value, unsigned queue) {
  const double now = since_start(Clock::now());
  std::lock_guard lock(mutex_);
  signals_.push_back(RecordedSignal{signal, value, queue, now});
}

void Tracer::wait_recorded(const void* signal, std::uint64_t value, unsigned queue) {
  const double now = since_start(Clock::now());
  std::lock_guard lock(mutex_);
  const RecordedSignal* releaser = nullptr;
  for (const RecordedSignal& recorded : signals_) {
    if (recorded.signal == signal && recorded.value >= value && (releaser == nullptr || recorded.value < releaser->value))
      releaser = &recorded;
  }
  if (releaser != nullptr) flows_.push_back(Flow{releaser->queue, queue, releaser->at_us, now});
}

std::string Tracer::json() const {
  std::lock_guard lock(mutex_);
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata("process_name", 0, "adreno"));
  for (unsigned q = 0; q < queue_contexts_.size(); ++q) {
    const std::string queue = "queue " + std::to_string(q) + " (context " + std::to_string(queue_contexts_[q]) + ")";
    events.push_back(metadata("thread_name", host_tid(q), queue + " host"));
    events.push_back(metadata("thread_name", gpu_tid(q), queue + " GPU"));
  }
  for (const HostEvent& host : host_) {
    nlohmann::json e = event(host.name, "X", host.begin_us, host_tid(host.queue));
    e["dur"] = host.end_us - host.begin_us;
    e["args"] = {{"fence", host.fence}};
    events.push_back(std::move(e));
  }
  // One offset for the whole trace, inside the bounds every submission set; the bounds cross
  // only if the clocks drifted apart (then the earliest GPU times are kept after their submits).
  const double offset = offset_low_ <= offset_high_ ? (offset_low_ + offset_high_) / 2 : offset_low_;
  if (!gpu_.empty() && offset_low_ > offset_high_)
    log().warn("ADRENO_TRACE: GPU and host clocks disagree by {:.1f} us; GPU spans may leave their submissions",
               offset_low_ - offset_high_);
  for (const GpuEvent& gpu : gpu_) {
    nlohmann::json e = event(gpu.name, "X", gpu.begin_us + offset, gpu_tid(gpu.queue));
    e["dur"] = gpu.end_us - gpu.begin_us;
    e["args"] = {{"fence", gpu.fence}};
    events.push_back(std::move(e));
  }
  // A flow starts in the slice around the signal's recording and ends at the next slice of the
  // waiting queue's host track that begins after the wait was recorded.
  std::uint64_t id = 0;
  for (const Flow& flow : flows_) {
    ++id;
    nlohmann::json start = event("signal", "s", flow.from_us, host_tid(flow.from_queue));
    start["id"] = id;
    start["cat"] = "sync";
    nlohmann::json finish = event("signal", "f", flow.to_us, host_tid(flow.to_queue));
    finish["id"] = id;
    finish["cat"] = "sync";
    events.push_back(std::move(start));
    events.push_back(std::move(finish));
  }
  return nlohmann::json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}}.dump();
}

// --- QueueTrace ---

QueueTrace::QueueTrace(Tracer& tracer, std::uint32_t context) : tracer_(tracer), track_(tracer.add_queue(context)) {}

QueueTrace::~QueueTrace() = default;

const std::shared_ptr<MemoryBlock>* QueueTrace::begin_gpu_span(const std::shared_ptr<Device::Impl>& device,
                                                               pm4::CommandStream& cs) {
  const std::shared_ptr<MemoryBlock>* taken = nullptr;
  if (slabs_.empty() || slab_used_ == kSlabBytes) {
    // Uncached: the host reads the counter values the CP wrote without a cache maintenance step.
    auto allocation = device->allocator().allocate(kSlabBytes, 64, BoFlags{MemoryType::uncached, false}, true);
    slabs_.push_back(std::make_shared<MemoryBlock>(device, std::move(allocation)));
    slab_used_ = 0;
    taken = &slabs_.back();
  }
  spans_.push_back(PendingSpan{{}, static_cast<std::uint32_t>(slabs_.size() - 1), slab_used_});
  emit_timestamp(cs, slabs_.back()->allocation().gpu + slab_used_);
  slab_used_ += 16;
  return taken;
}

void QueueTrace::end_gpu_span(pm4::CommandStream& cs, std::string name) {
  PendingSpan& span = spans_.back();
  span.name = std::move(name);
  emit_timestamp(cs, slabs_[span.slab]->allocation().gpu + span.offset + 8);
}

QueueTrace::Recording QueueTrace::close_recording() {
  Recording closed{recording_since_, std::move(spans_), std::move(slabs_)};
  spans_.clear();
  slabs_.clear();
  slab_used_ = 0;
  return closed;
}

void QueueTrace::submitted(Recording recording, std::uint64_t fence, Tracer::Clock::time_point begin,
                           Tracer::Clock::time_point end) {
  tracer_.host_span(track_, "record", recording.since, begin, fence);
  tracer_.host_span(track_, "submit", begin, end, fence);
  std::lock_guard lock(submitted_mutex_);
  submitted_.push_back(Submitted{fence, begin, std::move(recording)});
}

void QueueTrace::retired(std::uint64_t fence, Tracer::Clock::time_point wait_begin) {
  const Tracer::Clock::time_point now = Tracer::Clock::now();
  tracer_.host_span(track_, "wait", wait_begin, now, fence);
  std::lock_guard lock(submitted_mutex_);
  auto done = submitted_.begin();
  for (; done != submitted_.end() && done->fence <= fence; ++done) {
    std::vector<Tracer::GpuSpan> spans;
    for (PendingSpan& span : done->recording.spans) {
      const std::byte* values = done->recording.slabs[span.slab]->cpu().data() + span.offset;
      std::uint64_t ticks[2];
      std::memcpy(ticks, values, sizeof ticks);
      spans.push_back(Tracer::GpuSpan{std::move(span.name), ticks[0], ticks[1]});
    }
    if (!spans.empty()) tracer_.gpu_spans(track_, done->fence, std::move(spans), done->at, now);
  }
  submitted_.erase(submitted_.begin(), done);
}

}  // namespace adreno
