// The kernel interface: the only operations that differ between KGSL and MSM. Everything above
// it — PM4, allocator policy, programs, arguments, queues, graphs — is written once against this
// class. Implementations: KgslKernel (src/kgsl), MsmKernel (src/msm).
//
// Every operation either succeeds or throws adreno::Error naming the operation, the object and
// the kernel's errno. Implementations release everything they acquired on every error path.
#pragma once

#include <adreno/address.hpp>
#include <adreno/memory_type.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace adreno {

enum class KernelKind { kgsl, msm };

struct BoFlags {
  MemoryType type = MemoryType::write_combined;
  bool gpu_read_only = false;  ///< GPU writes fault
};

/// A kernel buffer object. `handle` is the KGSL object id or the MSM GEM handle.
struct Bo {
  std::uint32_t handle = 0;
  std::uint64_t size = 0;
  GpuAddress gpu;
  BoFlags flags;
};

/// One indirect buffer of a submission: `dwords` of PM4 at `offset` inside `bo`.
struct IbRef {
  const Bo* bo;
  std::uint64_t offset;
  std::uint32_t dwords;
};

/// A buffer object the submission reads or writes (MSM needs every one of them listed).
struct BoUse {
  const Bo* bo;
  bool write;
};

/// A submission that must retire before another one may start: `fence` on context `context`.
/// The kernel holds the dependent submission back (KGSL sync points, MSM fences); the ring
/// keeps running other work meanwhile.
struct FenceWait {
  std::uint32_t context;
  std::uint64_t fence;
};

struct VaRange {
  std::uint64_t start;
  std::uint64_t size;
};

struct KernelInfo {
  KernelKind kind;
  std::string node;           ///< device node path ("/dev/kgsl-3d0", "/dev/dri/renderD128")
  bool is_virtual = false;    ///< the node is one of src/virt's virtual kernels
  std::uint32_t chip_id = 0;  ///< core.major.minor.patch, e.g. 0x06030001 for A630v1
  std::uint32_t gpu_id = 0;   ///< decimal model number, e.g. 630
  std::uint64_t gmem_size = 0;
  std::optional<VaRange> va;  ///< only when the kernel reports it
  unsigned priority_levels = 1;  ///< priorities are 0 (highest) .. priority_levels-1
};

/// Whether a context has been reset, and whose fault it was (KGSL GPU_RESET_STAT vocabulary).
enum class ResetStatus { none, guilty, innocent, unknown };

/// The edges of a CPU access session on a mapping (the dma-buf UAPI's DMA_BUF_SYNC_START/END).
enum class CpuAccess { begin, end };

class Kernel {
 public:
  using ContextId = std::uint32_t;

  virtual ~Kernel() = default;
  Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  virtual const KernelInfo& info() const = 0;

  virtual ContextId create_context(unsigned priority) = 0;
  virtual void destroy_context(ContextId ctx) = 0;

  virtual Bo alloc(std::uint64_t size, BoFlags flags) = 0;
  virtual void free(const Bo& bo) = 0;
  virtual CpuView map(const Bo& bo) = 0;
  virtual void unmap(const Bo& bo, CpuView view) = 0;

  /// Imports a dma-buf; the caller keeps ownership of `fd`.
  virtual Bo import_dmabuf(int fd) = 0;
  /// Exports `bo` as a new dma-buf fd owned by the caller.
  virtual int export_dmabuf(const Bo& bo) = 0;
  /// Imports `size` bytes of process memory at `ptr`; the memory must outlive the Bo.
  virtual Bo import_user_memory(void* ptr, std::uint64_t size) = 0;
  /// CPU access to `bo`'s mapping begins (before the CPU reads what the GPU wrote) or ends (after
  /// the CPU wrote what the GPU will read). A mapping the kernel made through the exporter's
  /// dma-buf descriptor tells the exporter, which does its cache maintenance then; the default,
  /// for mappings the GPU driver made itself, has nothing to tell.
  virtual void cpu_access(const Bo& bo, CpuAccess edge) {
    (void)bo;
    (void)edge;
  }

  /// Queues the IBs on `ctx`, to start once every fence in `after` retired; returns the
  /// submission's fence (KGSL timestamp, MSM fence seqno). Once the kernel may have taken the
  /// IBs, this never throws: a submission is never made twice.
  virtual std::uint64_t submit(ContextId ctx, std::span<const IbRef> ibs, std::span<const BoUse> bos,
                               std::span<const FenceWait> after = {}) = 0;
  /// Waits until `fence` on `ctx` retired; false on timeout. A faulted context throws device_lost.
  virtual bool wait(ContextId ctx, std::uint64_t fence, std::chrono::nanoseconds timeout) = 0;
  virtual ResetStatus reset_status(ContextId ctx) = 0;
};

}  // namespace adreno
