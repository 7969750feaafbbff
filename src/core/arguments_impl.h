// What an Arguments object holds: a CPU-side image of one dispatch's data — the program's constant
// file (immediates preloaded) and its descriptor tables, laid out as the program's
// DispatchDataLayout says — filled as arguments are set, plus the memory each bound argument
// refers to. Queue::dispatch copies the image into GPU memory at record time, in one piece.
#pragma once

#include <adreno/program.hpp>

#include "core/buffer_impl.h"
#include "core/program_impl.h"

#include <atomic>
#include <memory>
#include <vector>

namespace adreno {

class Arguments::Impl {
 public:
  explicit Impl(std::shared_ptr<const Program::Impl> program);
  Impl(const Impl&) = delete;  // the tables are views into the image
  Impl& operator=(const Impl&) = delete;

  struct Binding {
    std::shared_ptr<MemoryBlock> memory;  // null for scalars and samplers
    bool gpu_writes = false;
    bool set = false;
  };

  const Program::Impl& program() const noexcept { return *program_; }
  /// The whole image (the program's data_layout().bytes), the tables below included.
  std::span<const std::uint32_t> image() const noexcept { return image_; }
  std::span<const std::uint32_t> constants() const noexcept { return constants_; }
  std::span<const std::uint32_t> textures() const noexcept { return textures_; }
  std::span<const std::uint32_t> storage_images() const noexcept { return storage_images_; }
  std::span<const std::uint32_t> samplers() const noexcept { return samplers_; }
  std::span<const std::uint32_t> uniform_buffers() const noexcept { return uniform_buffers_; }
  const std::vector<Binding>& bindings() const noexcept { return bindings_; }
  /// Whether every argument is set. Every dispatch asks: a compare, whatever the number of
  /// arguments (inline: returned from a call, the answer went through memory).
  bool all_set() const noexcept { return unset_count_ == 0; }
  /// The first argument not set yet; only when !all_set().
  std::size_t first_unset() const noexcept;
  /// The listing stamp of the queue recording that listed every memory block bound here, as the
  /// bindings use it (Queue::Impl::reference_bindings); 0, no recording's, after a binding
  /// changed. Relaxed: the value is the whole message, and queues on other threads may store
  /// theirs (dispatching takes the Arguments const).
  std::uint64_t listed_in() const noexcept { return listed_in_.load(std::memory_order_relaxed); }
  void set_listed_in(std::uint64_t stamp) const noexcept { listed_in_.store(stamp, std::memory_order_relaxed); }

  void set_buffer(std::size_t index, const BufferView& buffer);
  void set_bytes(std::size_t index, std::span<const std::byte> bytes);
  void set_image(std::size_t index, const ImageDesc& image, bool storage);
  void set_sampler(std::size_t index, const SamplerDesc& sampler);
  std::size_t index_of(std::string_view name) const;

  /// The program's argument `index` when it takes a buffer (set_buffer: a 64-bit address in the
  /// constant file, or a storage buffer), or a
  /// scalar of at least `bytes` bytes (set_bytes); throws Error(invalid_argument) naming it otherwise.
  static const ProgramArgument& buffer_argument(const ProgramInfo& info, std::size_t index);
  static const ProgramArgument& scalar_argument(const ProgramInfo& info, std::size_t index, std::size_t bytes);
  /// Writes the descriptor of the storage-buffer argument `index` bound to `buffer` to `out`;
  /// throws Error(invalid_argument) naming it when it is no storage buffer or the view does not fit.
  static const ProgramArgument& storage_buffer_descriptor(std::span<std::uint32_t, 16> out, const ProgramInfo& info,
                                                          std::size_t index, GpuAddress address, std::uint64_t size);
  /// The same for a uniform-buffer argument: its 2-dword UBO descriptor.
  static const ProgramArgument& uniform_buffer_descriptor(std::span<std::uint32_t, 2> out, const ProgramInfo& info,
                                                          std::size_t index, GpuAddress address, std::uint64_t size);
  /// Writes the descriptor of `image` for argument `index`, a texture (or a storage image when
  /// `storage`), to `out`; throws Error(invalid_argument) naming the argument and what is wrong.
  /// Returns the argument.
  static const ProgramArgument& image_descriptor(std::span<std::uint32_t, 16> out, const ProgramInfo& info,
                                                 std::size_t index, const ImageDesc& image, bool storage);

 private:
  static const ProgramArgument& argument(const ProgramInfo& info, std::size_t index, ProgramArgument::Kind kind,
                                         const char* operation);
  void bind(std::size_t index, Binding binding);

  std::shared_ptr<const Program::Impl> program_;
  std::vector<std::uint32_t> image_;
  // Parts of image_.
  std::span<std::uint32_t> constants_;
  std::span<std::uint32_t> textures_;
  std::span<std::uint32_t> storage_images_;
  std::span<std::uint32_t> samplers_;
  std::span<std::uint32_t> uniform_buffers_;
  std::vector<Binding> bindings_;
  std::size_t unset_count_;  // bindings whose `set` is false
  mutable std::atomic<std::uint64_t> listed_in_{0};
};

}  // namespace adreno
