// GPU addresses and CPU views are different things: a GPU virtual address is what the GPU's MMU
// translates, a CPU view is where the same memory is mapped in this process. On KGSL with
// USE_CPU_MAP they can be numerically equal; on MSM and on the virtual GPU they never are. The
// two types below do not convert into each other, so no code can confuse them.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace adreno {

/// A GPU virtual address. Only these go into command streams, constants and descriptors.
class GpuAddress {
 public:
  constexpr GpuAddress() = default;
  constexpr explicit GpuAddress(std::uint64_t value) : value_(value) {}

  constexpr std::uint64_t value() const noexcept { return value_; }
  constexpr std::uint32_t lo() const noexcept { return static_cast<std::uint32_t>(value_); }
  constexpr std::uint32_t hi() const noexcept { return static_cast<std::uint32_t>(value_ >> 32); }
  constexpr bool is_null() const noexcept { return value_ == 0; }

  constexpr GpuAddress operator+(std::uint64_t offset) const noexcept { return GpuAddress(value_ + offset); }
  constexpr std::uint64_t operator-(GpuAddress other) const noexcept { return value_ - other.value_; }
  constexpr auto operator<=>(const GpuAddress&) const = default;

 private:
  std::uint64_t value_ = 0;
};

/// A CPU mapping of (part of) a buffer: a pointer and a size, nothing else.
class CpuView {
 public:
  constexpr CpuView() = default;
  constexpr CpuView(void* data, std::size_t size) : data_(static_cast<std::byte*>(data)), size_(size) {}

  constexpr std::byte* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return data_ == nullptr; }

  /// A narrower view; offset and size must lie inside this view (checked by the caller).
  constexpr CpuView subview(std::size_t offset, std::size_t size) const noexcept {
    return CpuView(data_ + offset, size);
  }

  /// The view as an array of trivially copyable T (the size is rounded down).
  template <typename T>
  std::span<T> as() const noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    return {reinterpret_cast<T*>(data_), size_ / sizeof(T)};
  }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace adreno
