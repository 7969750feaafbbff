// GPU memory. A Buffer owns a range of GPU memory with a GPU address and, when host-visible, a
// separate CPU view; a BufferView is a window (offset, size) into one and is accepted wherever a
// buffer is. Destroying a Buffer never frees memory the GPU may still use: the memory is reused
// only after every submission that referenced it retired.
#pragma once

#include <adreno/address.hpp>
#include <adreno/memory_type.hpp>

#include <cstdint>
#include <memory>

namespace adreno {

struct BufferDesc {
  std::uint64_t size = 0;
  std::uint64_t alignment = 0;  ///< power of two; 0 means 64 bytes
  MemoryType memory = MemoryType::write_combined;
  bool gpu_read_only = false;   ///< GPU writes to it fault
  bool host_visible = true;     ///< has a CPU view
  bool exportable = false;      ///< gets a kernel object of its own, so it can be exported
};

class BufferView;

class Buffer {
 public:
  Buffer() noexcept;
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;
  ~Buffer();

  explicit operator bool() const noexcept { return impl_ != nullptr; }

  std::uint64_t size() const noexcept;
  GpuAddress gpu_address() const noexcept;
  /// The CPU mapping; throws Error(unsupported) for a buffer that is not host-visible.
  CpuView cpu_view() const;
  MemoryType memory_type() const noexcept;
  bool gpu_read_only() const noexcept;

  /// A window into this buffer; throws Error(invalid_argument) when it does not fit.
  BufferView view(std::uint64_t offset, std::uint64_t size) const;

  /// Makes CPU writes to [offset, offset+size) visible to the GPU (cached memory; a no-op for
  /// the other types and on hosts without non-coherent caches).
  void flush_for_gpu(std::uint64_t offset = 0, std::uint64_t size = ~std::uint64_t{0}) const;
  /// Makes GPU writes visible to CPU reads of [offset, offset+size), after the GPU finished.
  void invalidate_for_cpu(std::uint64_t offset = 0, std::uint64_t size = ~std::uint64_t{0}) const;

  class Impl;  ///< library-internal
  const std::shared_ptr<Impl>& impl() const noexcept { return impl_; }
  explicit Buffer(std::shared_ptr<Impl> impl) noexcept;

 private:
  std::shared_ptr<Impl> impl_;
};

/// A window into a Buffer. It keeps the buffer's memory alive.
class BufferView {
 public:
  /// The whole buffer.
  BufferView(const Buffer& buffer);  // NOLINT(google-explicit-constructor): a buffer is a view
  BufferView(std::shared_ptr<Buffer::Impl> buffer, std::uint64_t offset, std::uint64_t size) noexcept;

  std::uint64_t offset() const noexcept { return offset_; }
  std::uint64_t size() const noexcept { return size_; }
  GpuAddress gpu_address() const noexcept;
  /// The CPU mapping of the window; throws Error(unsupported) when not host-visible.
  CpuView cpu_view() const;
  /// A narrower window, relative to this one.
  BufferView view(std::uint64_t offset, std::uint64_t size) const;

  const std::shared_ptr<Buffer::Impl>& buffer() const noexcept { return buffer_; }

 private:
  std::shared_ptr<Buffer::Impl> buffer_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

}  // namespace adreno
