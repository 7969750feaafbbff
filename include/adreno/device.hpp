// Opening an Adreno GPU. A Device is one open kernel node — KGSL, MSM or one of the virtual
// kernels — chosen by ADRENO_DEVICE or by probing.
#pragma once

#include <adreno/buffer.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace adreno {

struct DeviceInfo {
  std::string backend;        ///< "kgsl" or "msm"
  bool is_virtual = false;    ///< a virtual kernel over the virtual GPU, not hardware
  std::string node;           ///< device node, e.g. "/dev/kgsl-3d0"
  std::string name;           ///< marketing name, e.g. "Adreno 630"
  std::uint32_t chip_id = 0;  ///< e.g. 0x06030001
  std::uint32_t gpu_id = 0;   ///< e.g. 630
  std::uint64_t gmem_size = 0;
  std::optional<std::uint64_t> va_start;  ///< GPU VA range, when the kernel reports it
  std::optional<std::uint64_t> va_size;
  unsigned priority_levels = 1;  ///< queue priorities are 0 (highest) .. priority_levels-1
};

class Device {
 public:
  /// Opens the device ADRENO_DEVICE names; when it is unset, probes /dev/kgsl-3d0 and then the
  /// MSM render nodes. Throws Error(not_found) listing everything tried when nothing is there.
  static Device open();

  /// Opens the device `spec` names: `kgsl[:path]`, `msm[:/dev/dri/renderDN]`,
  /// `virtual-kgsl[:model]` or `virtual-msm[:model]` (model such as `a630`, the default).
  static Device open(std::string_view spec);

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();

  const DeviceInfo& info() const noexcept;

  /// Allocates GPU memory (see BufferDesc). Small buffers are carved from larger kernel objects;
  /// freed memory is reused only once the GPU is done with it.
  Buffer allocate(const BufferDesc& desc);

  /// Makes [offset, offset+size) of a dma-buf usable by the GPU (size 0: to its end). The caller
  /// keeps ownership of `fd`. Importing one dma-buf again shares the same kernel object; it is
  /// released when the last Buffer from it is gone and the GPU is done with it.
  Buffer import_dmabuf(int fd, std::uint64_t offset = 0, std::uint64_t size = 0);

  /// Exports a buffer as a new dma-buf fd owned by the caller. The buffer must own its kernel
  /// object (allocated with BufferDesc::exportable, or imported) and belong to this device
  /// (Errc::invalid_argument otherwise). KGSL can export only memory that came from a dma-heap and
  /// refuses with Errc::unsupported.
  int export_dmabuf(const Buffer& buffer);

  /// Makes `size` bytes of this process' memory at `ptr` usable by the GPU, without copying
  /// (KGSL only; MSM refuses with Errc::unsupported — import a dma-buf instead). The memory must
  /// stay allocated until the Buffer is gone and every submission that used it retired.
  Buffer import_host_memory(void* ptr, std::uint64_t size);

  /// Library-internal state (src/core/device_impl.h).
  class Impl;
  Impl& impl() noexcept { return *impl_; }
  const std::shared_ptr<Impl>& shared_impl() const noexcept { return impl_; }

 private:
  explicit Device(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace adreno
