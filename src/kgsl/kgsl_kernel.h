// The kernel interface over KGSL (/dev/kgsl-3d0): Qualcomm's downstream GPU driver. Every
// operation is one or two ioctls on the node's descriptor, through the syscall seam, so the same
// code runs against the real driver and against src/virt's virtual KGSL.
#pragma once

#include "kernel/kernel.h"
#include "sys/syscalls.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace adreno {

class KgslKernel final : public Kernel {
 public:
  /// Takes ownership of `fd`, an open KGSL node; info() is empty until query_device() ran.
  KgslKernel(sys::Syscalls& sys, int fd, std::string node, bool is_virtual);
  ~KgslKernel() override;

  /// Reads KGSL_PROP_DEVICE_INFO into info().
  void query_device();

  const KernelInfo& info() const override { return info_; }

  ContextId create_context(unsigned priority) override;
  void destroy_context(ContextId ctx) override;

  Bo alloc(std::uint64_t size, BoFlags flags) override;
  void free(const Bo& bo) override;
  CpuView map(const Bo& bo) override;
  void unmap(const Bo& bo, CpuView view) override;

  Bo import_dmabuf(int fd) override;
  int export_dmabuf(const Bo& bo) override;
  Bo import_user_memory(void* ptr, std::uint64_t size) override;
  void cpu_access(const Bo& bo, CpuAccess edge) override;

  std::uint64_t submit(ContextId ctx, std::span<const IbRef> ibs, std::span<const BoUse> bos,
                       std::span<const FenceWait> after = {}) override;
  bool wait(ContextId ctx, std::uint64_t fence, std::chrono::nanoseconds timeout) override;
  ResetStatus reset_status(ContextId ctx) override;

 private:
  /// IOCTL_KGSL_DEVICE_GETPROPERTY; returns the seam's result.
  int get_property(unsigned type, void* value, std::size_t size);
  /// Completes a freshly created object `id` into a Bo (GPUOBJ_INFO); frees it on failure.
  Bo describe_new_object(std::uint32_t id, BoFlags flags, const char* created_by);
  /// GPUOBJ_IMPORT of dma-buf `fd` and GPUOBJ_INFO.
  Bo import_dmabuf_object(int fd);
  /// The imported dma-buf's own descriptor for object `id`, or -1 for KGSL's own memory.
  int dmabuf_of(std::uint32_t id);
  /// IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID: the context's timestamp of `type`.
  std::uint32_t read_timestamp(ContextId ctx, unsigned type);
  /// Frees `id`, reporting nothing: for error paths that are already throwing.
  void free_quietly(std::uint32_t id) noexcept;
  /// Raises the remembered reset status of `ctx` to `status` (guilty outranks innocent).
  void note_reset(ContextId ctx, ResetStatus status);
  /// For an invalidated context made with KGSL_CONTEXT_FAULT_INFO: "; the driver recorded N GPU
  /// page faults for it: ADDRESS (read translation), ..." from GET_FAULT_REPORT; else empty.
  std::string page_fault_report(ContextId ctx);

  sys::Syscalls& sys_;
  int fd_;
  KernelInfo info_;
  std::mutex mutex_;
  // The driver clears a context's reset status when it reports it; device loss is sticky here.
  std::map<ContextId, ResetStatus> resets_;
  std::map<std::uint32_t, int> dmabufs_;  // imported object id → its own dma-buf descriptor
  std::set<ContextId> fault_info_;        // contexts the driver keeps page faults for
};

/// Opens the KGSL node at `path` through `sys` and reads the device's identity. The returned
/// kernel owns the descriptor. Throws adreno::Error naming the node on failure.
std::unique_ptr<Kernel> open_kgsl_kernel(sys::Syscalls& sys, const std::string& path, bool is_virtual);

}  // namespace adreno
