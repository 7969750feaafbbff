#include <adreno/buffer.hpp>
#include <adreno/error.hpp>

#include "core/buffer_impl.h"
#include "core/device_impl.h"

namespace adreno {
namespace {

void check_window(const char* operation, std::uint64_t offset, std::uint64_t size, std::uint64_t limit) {
  if (offset > limit || size > limit - offset) {
    throw Error(Errc::invalid_argument, operation,
                "window [" + std::to_string(offset) + ", +" + std::to_string(size) + ") exceeds " +
                    std::to_string(limit) + " bytes");
  }
}

}  // namespace

MemoryBlock::MemoryBlock(const std::shared_ptr<Device::Impl>& device, std::unique_ptr<Allocation>&& allocation,
                         CpuView external_cpu)
    : one_buffer_(false),
      device_(device.get()),
      device_reference_(device),
      allocation_(std::move(allocation)),
      object_(allocation_->object),
      cpu_(allocation_->cpu.empty() ? external_cpu : allocation_->cpu) {}

MemoryBlock::~MemoryBlock() { device_->allocator().release(std::move(allocation_)); }

void MemoryBlock::record_use(std::uint32_t context, std::uint64_t fence) {
  std::lock_guard lock(uses_mutex_);
  allocation_->uses.record(context, fence);
}

void MemoryBlock::uses(std::vector<GpuUse>& out) const {
  std::lock_guard lock(uses_mutex_);
  const auto& recorded = allocation_->uses.uses();
  out.assign(recorded.begin(), recorded.end());
}

void MemoryBlock::released_while_graph_bound() noexcept { device_->note_graph_buffer_released(*this); }

Buffer::Buffer() noexcept = default;
Buffer::Buffer(std::shared_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;
Buffer::~Buffer() = default;

std::uint64_t Buffer::size() const noexcept { return impl_->size(); }
GpuAddress Buffer::gpu_address() const noexcept { return impl_->gpu_address(); }
MemoryType Buffer::memory_type() const noexcept { return impl_->block().allocation().kind.type; }
bool Buffer::gpu_read_only() const noexcept { return impl_->block().allocation().kind.gpu_read_only; }

CpuView Buffer::cpu_view() const { return BufferView(*this).cpu_view(); }

BufferView Buffer::view(std::uint64_t offset, std::uint64_t size) const { return BufferView(*this).view(offset, size); }

void Buffer::flush_for_gpu(std::uint64_t offset, std::uint64_t size) const {
  if (memory_type() != MemoryType::cached) return;
  size = std::min(size, impl_->size() - std::min(offset, impl_->size()));
  CpuView window = view(offset, size).cpu_view();
  const MemoryBlock& block = impl_->block();
  block.device().syscalls().maintain_dcache(sys::Syscalls::CacheMaintenance::clean, window.data(), window.size());
  // The CPU is done writing: an imported dma-buf's exporter hears it (DMA_BUF_SYNC_END).
  block.device().kernel().cpu_access(block.bo(), CpuAccess::end);
}

void Buffer::invalidate_for_cpu(std::uint64_t offset, std::uint64_t size) const {
  if (memory_type() != MemoryType::cached) return;
  size = std::min(size, impl_->size() - std::min(offset, impl_->size()));
  CpuView window = view(offset, size).cpu_view();
  // The CPU is about to read: an imported dma-buf's exporter hears it (DMA_BUF_SYNC_START).
  const MemoryBlock& block = impl_->block();
  block.device().kernel().cpu_access(block.bo(), CpuAccess::begin);
  block.device().syscalls().maintain_dcache(sys::Syscalls::CacheMaintenance::clean_invalidate, window.data(), window.size());
}

BufferView::BufferView(const Buffer& buffer) : buffer_(buffer.impl()), offset_(0), size_(0) {
  if (!buffer_) throw Error(Errc::invalid_argument, "view buffer", "the buffer is empty (moved from or default)");
  size_ = buffer_->size();
}

BufferView::BufferView(std::shared_ptr<Buffer::Impl> buffer, std::uint64_t offset, std::uint64_t size) noexcept
    : buffer_(std::move(buffer)), offset_(offset), size_(size) {}

GpuAddress BufferView::gpu_address() const noexcept { return buffer_->gpu_address() + offset_; }

CpuView BufferView::cpu_view() const {
  CpuView whole = buffer_->cpu();
  if (whole.empty()) throw Error(Errc::unsupported, "CPU view", "the buffer is not host-visible");
  return whole.subview(offset_, size_);
}

BufferView BufferView::view(std::uint64_t offset, std::uint64_t size) const {
  check_window("view buffer", offset, size, size_);
  return BufferView(buffer_, offset_ + offset, size);
}

}  // namespace adreno
