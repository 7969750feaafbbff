#include "kgsl/kgsl_kernel.h"

#include "kernel/kernel_error.h"
#include "kgsl/kgsl_abi.h"

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <array>
#include <climits>
#include <optional>
#include <vector>

namespace adreno {
namespace {

// KGSL mmap offsets name the object: id << PAGE_SHIFT (kgsl.c kgsl_mmap passes vm_pgoff to
// get_mmap_entry as the id), in the kernel's page size — 4 KiB on most Android kernels, 16 or
// 64 KiB on some arm64 builds; Turnip's `id << 12` (tu_knl_kgsl.cc kgsl_bo_map) assumes 4 KiB.
off_t object_offset(std::uint32_t id, std::uint64_t page_size) {
  return static_cast<off_t>(std::uint64_t{id} * page_size);
}

// KGSL context priorities are 1 (highest) .. 15; 0 means "unset" and becomes the medium level 8
// (adreno_drawctxt.c adreno_drawctxt_create). Library priority p is KGSL priority p + 1.
constexpr unsigned kPriorityLevels = 15;

// Each context is an OpenCL-type context that needs no GMEM save/restore (PREAMBLE and
// NO_GMEM_ALLOC are mandatory in adreno_drawctxt_create). INVALIDATE_ON_FAULT makes a fault
// final: one replay, then the context is invalidated (adreno_dispatch.c _set_ft_policy) —
// unlike NO_FAULT_TOLERANCE, it keeps the long-IB hang detection on. FAULT_INFO makes the driver
// keep the context's GPU page faults (kgsl_iommu.c kgsl_iommu_add_fault_info), which
// GET_FAULT_REPORT hands out once the context was invalidated; drivers that predate it drop the
// flag (adreno_drawctxt_create masks unknown flags and writes back the ones it kept).
constexpr unsigned kContextFlags = KGSL_CONTEXT_PREAMBLE | KGSL_CONTEXT_NO_GMEM_ALLOC |
                                   KGSL_CONTEXT_INVALIDATE_ON_FAULT | KGSL_CONTEXT_FAULT_INFO |
                                   (KGSL_CONTEXT_TYPE_CL << KGSL_CONTEXT_TYPE_SHIFT);

// At most this many page faults are named in an error; the rest are counted.
constexpr std::size_t kNamedPageFaults = 8;

std::string page_fault_text(const kgsl_pagefault_report& fault) {
  const char* kind = (fault.fault_type & KGSL_PAGEFAULT_TYPE_PERMISSION)   ? "permission"
                     : (fault.fault_type & KGSL_PAGEFAULT_TYPE_TRANSLATION) ? "translation"
                                                                            : "other";
  return fmt::format("{:#x} ({} {})", fault.fault_addr, (fault.fault_type & KGSL_PAGEFAULT_TYPE_WRITE) ? "write" : "read",
                     kind);
}

// How each memory type is asked of KGSL: the CPU cache mode of the mapping, plus IO coherence
// (GPU snoops CPU caches) where requested. Indexed by MemoryType.
struct MemoryTypeFlags {
  unsigned cachemode;
  bool iocoherent;
};
constexpr std::array<MemoryTypeFlags, 4> kMemoryTypeFlags = {{
    {KGSL_CACHEMODE_WRITECOMBINE, false},  // write_combined
    {KGSL_CACHEMODE_WRITEBACK, false},     // cached
    {KGSL_CACHEMODE_WRITEBACK, true},      // cached_coherent
    {KGSL_CACHEMODE_UNCACHED, false},      // uncached
}};

std::uint64_t kgsl_memflags(BoFlags flags) {
  const MemoryTypeFlags& type = kMemoryTypeFlags.at(static_cast<std::size_t>(flags.type));
  std::uint64_t result = std::uint64_t{type.cachemode} << KGSL_CACHEMODE_SHIFT;
  if (type.iocoherent) result |= KGSL_MEMFLAGS_IOCOHERENT;
  if (flags.gpu_read_only) result |= KGSL_MEMFLAGS_GPUREADONLY;
  return result;
}

std::string context_detail(Kernel::ContextId ctx) { return fmt::format("context {}", ctx); }

}  // namespace

KgslKernel::KgslKernel(sys::Syscalls& sys, int fd, std::string node, bool is_virtual) : sys_(sys), fd_(fd) {
  info_.kind = KernelKind::kgsl;
  info_.node = std::move(node);
  info_.is_virtual = is_virtual;
  info_.priority_levels = kPriorityLevels;
}

KgslKernel::~KgslKernel() {
  for (const auto& [id, dmabuf] : dmabufs_) sys_.close(dmabuf);  // objects the caller never freed
  sys_.close(fd_);
}

int KgslKernel::get_property(unsigned type, void* value, std::size_t size) {
  kgsl_device_getproperty param{};
  param.type = type;
  param.value = value;
  param.sizebytes = size;
  return sys_.ioctl(fd_, IOCTL_KGSL_DEVICE_GETPROPERTY, &param);
}

void KgslKernel::query_device() {
  struct stat st {};
  if (int ret = sys_.fstat(fd_, &st); ret < 0) throw_kernel_error("KGSL fstat", info_.node, ret);
  if (!S_ISCHR(st.st_mode)) {
    throw Error(Errc::unsupported, "KGSL open", info_.node + " is not a character device");
  }
  kgsl_devinfo devinfo{};
  if (int ret = get_property(KGSL_PROP_DEVICE_INFO, &devinfo, sizeof devinfo); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_DEVICE_GETPROPERTY", "KGSL_PROP_DEVICE_INFO of " + info_.node, ret);
  }
  info_.chip_id = devinfo.chip_id;
  // Recent drivers leave devinfo.gpu_id 0; like Turnip (tu_knl_kgsl.cc) and tinygrad
  // (ops_qcom.py), the model number is read off chip_id's core.major.minor bytes.
  info_.gpu_id = ((devinfo.chip_id >> 24) & 0xff) * 100 + ((devinfo.chip_id >> 16) & 0xff) * 10 +
                 ((devinfo.chip_id >> 8) & 0xff);
  info_.gmem_size = devinfo.gmem_sizebytes;
}

Kernel::ContextId KgslKernel::create_context(unsigned priority) {
  if (priority >= kPriorityLevels) {
    throw Error(Errc::invalid_argument, "KGSL create_context",
                fmt::format("priority {} (KGSL offers 0..{})", priority, kPriorityLevels - 1));
  }
  kgsl_drawctxt_create param{};
  param.flags = kContextFlags | ((priority + 1) << KGSL_CONTEXT_PRIORITY_SHIFT);
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_DRAWCTXT_CREATE, &param); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_DRAWCTXT_CREATE",
                       fmt::format("priority {}, flags {:#x}", priority, param.flags), ret);
  }
  if (param.flags & KGSL_CONTEXT_FAULT_INFO) {
    std::lock_guard lock(mutex_);
    fault_info_.insert(param.drawctxt_id);
  }
  return param.drawctxt_id;
}

void KgslKernel::destroy_context(ContextId ctx) {
  // What the backend knows of the context goes before DRAWCTXT_DESTROY: from then on the id can
  // be free, and the driver gives it to the next context another thread creates (kgsl.c
  // kgsl_context_init, _kgsl_get_context_id: idr_alloc from 1, the lowest free id).
  std::optional<ResetStatus> reset;
  bool fault_info = false;
  {
    std::lock_guard lock(mutex_);
    if (auto node = resets_.extract(ctx)) reset = node.mapped();
    fault_info = fault_info_.erase(ctx) != 0;
  }
  kgsl_drawctxt_destroy param{};
  param.drawctxt_id = ctx;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_DRAWCTXT_DESTROY, &param); ret < 0) {
    std::lock_guard lock(mutex_);  // the context lives on
    if (reset) resets_.emplace(ctx, *reset);
    if (fault_info) fault_info_.insert(ctx);
    throw_kernel_error("KGSL IOCTL_KGSL_DRAWCTXT_DESTROY", context_detail(ctx), ret);
  }
}

void KgslKernel::free_quietly(std::uint32_t id) noexcept {
  kgsl_gpuobj_free param{};
  param.id = id;
  sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_FREE, &param);
}

Bo KgslKernel::describe_new_object(std::uint32_t id, BoFlags flags, const char* created_by) {
  // GPUOBJ_ALLOC and GPUOBJ_IMPORT return only the id; the GPU address comes from GPUOBJ_INFO.
  kgsl_gpuobj_info info{};
  info.id = id;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_INFO, &info); ret < 0) {
    free_quietly(id);
    throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_INFO", fmt::format("object {} (just made by {})", id, created_by),
                       ret);
  }
  return Bo{id, info.size, GpuAddress(info.gpuaddr), flags};
}

Bo KgslKernel::alloc(std::uint64_t size, BoFlags flags) {
  kgsl_gpuobj_alloc param{};
  param.size = size;
  param.flags = kgsl_memflags(flags);
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_ALLOC, &param); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_ALLOC", fmt::format("size {}, flags {:#x}", size, param.flags), ret);
  }
  // The driver quietly drops IO coherence where the SoC lacks it (kgsl_sharedmem.c
  // kgsl_memdesc_init); handing out a cached buffer that the GPU does not snoop would be wrong.
  if ((kgsl_memflags(flags) & KGSL_MEMFLAGS_IOCOHERENT) && !(param.flags & KGSL_MEMFLAGS_IOCOHERENT)) {
    free_quietly(param.id);
    throw Error(Errc::unsupported, "KGSL IOCTL_KGSL_GPUOBJ_ALLOC",
                fmt::format("size {}: this device offers no IO-coherent memory (KGSL_MEMFLAGS_IOCOHERENT dropped)", size));
  }
  return describe_new_object(param.id, flags, "IOCTL_KGSL_GPUOBJ_ALLOC");
}

void KgslKernel::free(const Bo& bo) {
  // The object's dma-buf note is taken before the free: once GPUOBJ_FREE returns, the id is free
  // and the driver hands it to the next object another thread makes (kgsl.c
  // kgsl_mem_entry_attach_process allocates the lowest free id, idr_alloc from 1), whose note
  // this free must not touch. While the object lives, its id is nobody else's.
  int dmabuf = -1;
  {
    std::lock_guard lock(mutex_);
    if (auto node = dmabufs_.extract(bo.handle)) dmabuf = node.mapped();
  }
  kgsl_gpuobj_free param{};
  param.id = bo.handle;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_FREE, &param); ret < 0) {
    if (dmabuf >= 0) {
      std::lock_guard lock(mutex_);
      dmabufs_.emplace(bo.handle, dmabuf);  // the object lives on, mapped through its descriptor
    }
    throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_FREE", fmt::format("object {}", bo.handle), ret);
  }
  if (dmabuf >= 0) sys_.close(dmabuf);
}

int KgslKernel::dmabuf_of(std::uint32_t id) {
  std::lock_guard lock(mutex_);
  auto it = dmabufs_.find(id);
  return it == dmabufs_.end() ? -1 : it->second;
}

CpuView KgslKernel::map(const Bo& bo) {
  // An imported dma-buf is mapped through its own descriptor: KGSL refuses to map it (kgsl.c
  // get_mmap_entry: kgsl_dmabuf_ops has no vmfault), as Turnip's kgsl_bo_map knows.
  const int dmabuf = dmabuf_of(bo.handle);
  const off_t offset = dmabuf >= 0 ? off_t{0} : object_offset(bo.handle, sys_.page_size());
  sys::MapResult result = sys_.mmap(bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf >= 0 ? dmabuf : fd_, offset);
  if (result.addr == nullptr) {
    throw_kernel_error(dmabuf >= 0 ? "KGSL mmap of dma-buf" : "KGSL mmap",
                       fmt::format("object {} ({} bytes at offset {:#x})", bo.handle, bo.size, offset), -result.error);
  }
  return CpuView(result.addr, bo.size);
}

void KgslKernel::cpu_access(const Bo& bo, CpuAccess edge) {
  // A dma-buf mapped through its own descriptor is the exporter's mapping: the dma-buf UAPI
  // (include/uapi/linux/dma-buf.h, struct dma_buf_sync) asks that CPU access to it be bracketed
  // with DMA_BUF_IOCTL_SYNC, START before and END after, with the same read/write flags, so the
  // exporter can do its cache maintenance (dma-buf.c dma_buf_begin/end_cpu_access; the system
  // heap syncs its pages for the CPU or the device there, heaps/system_heap.c
  // system_heap_dma_buf_begin/end_cpu_access). Both edges say READ and WRITE: the
  // library cannot know which the application does. Turnip's KGSL backend maps imports the same
  // way (tu_knl_kgsl.cc kgsl_bo_map) but issues no sync; KGSL's own memory needs none.
  const int dmabuf = dmabuf_of(bo.handle);
  if (dmabuf < 0) return;
  dma_buf_sync sync{};
  sync.flags = (edge == CpuAccess::begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_RW;
  if (int ret = sys_.ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync); ret < 0) {
    throw_kernel_error("KGSL DMA_BUF_IOCTL_SYNC",
                       fmt::format("object {} (dma-buf fd {}), {}", bo.handle, dmabuf,
                                   edge == CpuAccess::begin ? "DMA_BUF_SYNC_START" : "DMA_BUF_SYNC_END"),
                       ret);
  }
}

void KgslKernel::unmap(const Bo& bo, CpuView view) {
  if (int ret = sys_.munmap(view.data(), view.size()); ret < 0) {
    throw_kernel_error("KGSL munmap", fmt::format("object {} ({} bytes)", bo.handle, view.size()), ret);
  }
}

Bo KgslKernel::import_dmabuf(int fd) {
  // The object keeps a descriptor of its own: CPU mappings go through it (see map()).
  const int own = sys_.dup(fd);
  if (own < 0) throw_kernel_error("KGSL import_dmabuf dup", fmt::format("dma-buf fd {}", fd), own);
  try {
    Bo bo = import_dmabuf_object(fd);
    std::lock_guard lock(mutex_);
    dmabufs_[bo.handle] = own;
    return bo;
  } catch (...) {
    sys_.close(own);
    throw;
  }
}

Bo KgslKernel::import_dmabuf_object(int fd) {
  kgsl_gpuobj_import_dma_buf buf{};
  buf.fd = fd;
  kgsl_gpuobj_import param{};
  param.priv = reinterpret_cast<std::uint64_t>(&buf);
  param.priv_len = sizeof buf;
  param.type = KGSL_USER_MEM_TYPE_DMABUF;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_IMPORT, &param); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_IMPORT", fmt::format("dma-buf fd {}", fd), ret);
  }
  // The driver maps every dma-buf CPU-cached (kgsl.c _gpuobj_map_dma_buf).
  return describe_new_object(param.id, BoFlags{MemoryType::cached, false}, "IOCTL_KGSL_GPUOBJ_IMPORT");
}

int KgslKernel::export_dmabuf(const Bo& bo) {
  throw Error(Errc::unsupported, "KGSL export_dmabuf",
              fmt::format("object {}: KGSL cannot export memory it allocated as a dma-buf; only buffers "
                          "allocated from a dma-heap and imported can be shared",
                          bo.handle));
}

Bo KgslKernel::import_user_memory(void* ptr, std::uint64_t size) {
  kgsl_gpuobj_import_useraddr useraddr{};
  useraddr.virtaddr = reinterpret_cast<std::uint64_t>(ptr);
  kgsl_gpuobj_import param{};
  param.priv = reinterpret_cast<std::uint64_t>(&useraddr);
  param.priv_len = size;  // for user addresses, priv_len is the length of the memory
  param.type = KGSL_USER_MEM_TYPE_ADDR;
  // Process memory is ordinary cacheable memory.
  param.flags = std::uint64_t{KGSL_CACHEMODE_WRITEBACK} << KGSL_CACHEMODE_SHIFT;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPUOBJ_IMPORT, &param); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_IMPORT", fmt::format("user memory {} ({} bytes)", ptr, size), ret);
  }
  return describe_new_object(param.id, BoFlags{MemoryType::cached, false}, "IOCTL_KGSL_GPUOBJ_IMPORT");
}

std::uint64_t KgslKernel::submit(ContextId ctx, std::span<const IbRef> ibs, std::span<const BoUse> bos,
                                 std::span<const FenceWait> after) {
  // KGSL maps every object of the process in its pagetable for as long as it lives, so the
  // submission need not list the buffers it touches: the object list (KGSL_OBJLIST_MEMOBJ) only
  // feeds snapshots and profiling (kgsl_drawobj.c kgsl_drawobj_cmd_add_memlist). `bos` is unused.
  (void)bos;
  std::vector<kgsl_command_object> cmds;
  cmds.reserve(ibs.size());
  for (std::size_t i = 0; i < ibs.size(); ++i) {
    const IbRef& ib = ibs[i];
    const std::uint64_t bytes = std::uint64_t{ib.dwords} * 4;
    if (ib.bo == nullptr || ib.dwords == 0 || ib.offset % 4 != 0 || ib.offset > ib.bo->size ||
        bytes > ib.bo->size - ib.offset) {
      throw Error(Errc::invalid_argument, "KGSL submit",
                  fmt::format("{}: IB {} ({} dwords at offset {}) does not lie inside its buffer", context_detail(ctx),
                              i, ib.dwords, ib.offset));
    }
    kgsl_command_object cmd{};
    cmd.gpuaddr = (ib.bo->gpu + ib.offset).value();
    cmd.size = bytes;
    cmd.flags = KGSL_CMDLIST_IB;
    cmd.id = ib.bo->handle;
    cmds.push_back(cmd);
  }
  // Other contexts' fences become timestamp sync points: the dispatcher holds the command back
  // until they retire, and the ringbuffer runs other work meanwhile (kgsl_drawobj.c
  // drawobj_add_sync_timestamp; Turnip tu_knl_kgsl.cc kgsl_queue_submit does the same).
  std::vector<kgsl_cmd_syncpoint_timestamp> timestamps;
  std::vector<kgsl_command_syncpoint> syncs;
  timestamps.reserve(after.size());
  syncs.reserve(after.size());
  for (const FenceWait& wait : after) {
    if (wait.fence > UINT_MAX) {
      throw Error(Errc::invalid_argument, "KGSL submit",
                  fmt::format("{}: fence {} of context {} is no 32-bit KGSL timestamp", context_detail(ctx), wait.fence,
                              wait.context));
    }
    timestamps.push_back(kgsl_cmd_syncpoint_timestamp{wait.context, static_cast<unsigned>(wait.fence)});
  }
  for (const kgsl_cmd_syncpoint_timestamp& timestamp : timestamps) {
    syncs.push_back(kgsl_command_syncpoint{reinterpret_cast<std::uint64_t>(&timestamp), sizeof timestamp,
                                           KGSL_CMD_SYNCPOINT_TYPE_TIMESTAMP});
  }
  kgsl_gpu_command param{};
  param.cmdlist = reinterpret_cast<std::uint64_t>(cmds.data());
  param.cmdsize = cmds.empty() ? 0 : sizeof(kgsl_command_object);
  param.numcmds = static_cast<unsigned>(cmds.size());
  param.synclist = syncs.empty() ? 0 : reinterpret_cast<std::uint64_t>(syncs.data());
  param.syncsize = syncs.empty() ? 0 : sizeof(kgsl_command_syncpoint);
  param.numsyncs = static_cast<unsigned>(syncs.size());
  param.context_id = ctx;
  for (;;) {
    const int ret = sys_.ioctl(fd_, IOCTL_KGSL_GPU_COMMAND, &param);
    if (ret == 0) return param.timestamp;
    // -ETIMEDOUT: the context's queue stayed full for the driver's whole wait; nothing was
    // queued (adreno_dispatch.c _wait_for_room_in_context_queue fails before the command is
    // added), so asking again cannot run the IBs twice.
    if (ret == -ETIMEDOUT) continue;
    // -EPROTO is a success: the command was queued, and the driver only reports that this
    // context lived through a fault recovery (adreno_dispatch.c adreno_dispatcher_queue_cmds
    // returns it after queueing; kgsl.c kgsl_ioctl_gpu_command keeps the draw objects). The
    // helper copies nothing out on an error return, so the timestamp is read back; the queue
    // submits on its context from one thread, so the latest queued timestamp is this one.
    if (ret == -EPROTO) {
      note_reset(ctx, ResetStatus::innocent);
      return read_timestamp(ctx, KGSL_TIMESTAMP_QUEUED);
    }
    std::string detail = fmt::format("{}, {} IBs", context_detail(ctx), cmds.size());
    if (ret == -EDEADLK) detail += page_fault_report(ctx);
    throw_kernel_error("KGSL IOCTL_KGSL_GPU_COMMAND", detail, ret);
  }
}

std::uint32_t KgslKernel::read_timestamp(ContextId ctx, unsigned type) {
  kgsl_cmdstream_readtimestamp_ctxtid param{};
  param.context_id = ctx;
  param.type = type;
  if (int ret = sys_.ioctl(fd_, IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID, &param); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID",
                       fmt::format("{}, timestamp type {}", context_detail(ctx), type), ret);
  }
  return param.timestamp;
}

bool KgslKernel::wait(ContextId ctx, std::uint64_t fence, std::chrono::nanoseconds timeout) {
  if (fence > UINT_MAX) {
    throw Error(Errc::invalid_argument, "KGSL wait",
                fmt::format("{}: fence {} is no 32-bit KGSL timestamp", context_detail(ctx), fence));
  }
  const bool forever = timeout >= std::chrono::nanoseconds(std::chrono::hours(24 * 365));
  const auto deadline = forever ? std::chrono::steady_clock::time_point::max() : sys_.now() + timeout;
  kgsl_device_waittimestamp_ctxtid param{};
  param.context_id = ctx;
  param.timestamp = static_cast<unsigned>(fence);
  for (;;) {
    // KGSL waits in whole milliseconds and reads 0 as "forever": round up, never below 1 ms, and
    // let very long waits be forever. The timeout is relative, so an interrupted wait must not
    // be asked again as it was (the seam's ioctl would restart the whole timeout): it comes back
    // here and is asked with what is left until the deadline, as Turnip's wait_timestamp_safe
    // (tu_knl_kgsl.cc) does with a raw ioctl.
    const auto ms =
        forever ? std::int64_t{0} : std::chrono::ceil<std::chrono::milliseconds>(deadline - sys_.now()).count();
    param.timeout = forever || ms >= INT_MAX ? 0 : static_cast<unsigned>(std::max<std::int64_t>(ms, 1));
    const int ret = sys_.ioctl_once(fd_, IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, &param);
    if (ret == 0) return true;
    if (ret == -ETIMEDOUT) return false;
    if (ret == -EINTR || ret == -EAGAIN) {
      if (!forever && sys_.now() >= deadline) return false;
      continue;
    }
    // -EPROTO: the timestamp retired, but the context lived through a fault recovery (adreno.c
    // adreno_waittimestamp) — someone else's fault, as its own would have invalidated it.
    if (ret == -EPROTO) {
      note_reset(ctx, ResetStatus::innocent);
      return true;
    }
    // -EDEADLK: the context was invalidated by a GPU fault (adreno_drawctxt.c).
    std::string detail = fmt::format("{}, timestamp {}", context_detail(ctx), fence);
    if (ret == -EDEADLK) {
      note_reset(ctx, ResetStatus::guilty);
      detail += page_fault_report(ctx);
    }
    throw_kernel_error("KGSL IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID", detail, ret);
  }
}

std::string KgslKernel::page_fault_report(ContextId ctx) {
  {
    std::lock_guard lock(mutex_);
    if (fault_info_.count(ctx) == 0) return {};
  }
  // kgsl.c kgsl_ioctl_get_fault_report, in three steps: how many fault types there are; how
  // many faults of each type the context kept; then the reports themselves. This is an error
  // path: a step that fails leaves the report out.
  kgsl_fault_report param{};
  param.context_id = ctx;
  if (sys_.ioctl(fd_, IOCTL_KGSL_GET_FAULT_REPORT, &param) < 0 || param.faultnents == 0) return {};
  std::vector<kgsl_fault> types(param.faultnents);
  param.faultlist = reinterpret_cast<std::uint64_t>(types.data());
  param.faultsize = sizeof(kgsl_fault);
  if (sys_.ioctl(fd_, IOCTL_KGSL_GET_FAULT_REPORT, &param) < 0) return {};
  std::vector<kgsl_pagefault_report> page_faults;
  for (kgsl_fault& type : types) {
    if (type.type != KGSL_FAULT_TYPE_PAGEFAULT || type.count == 0) continue;
    page_faults.resize(type.count);
    type.fault = reinterpret_cast<std::uint64_t>(page_faults.data());
    type.size = sizeof(kgsl_pagefault_report);
  }
  if (page_faults.empty()) return "; the driver recorded no GPU page fault for it";
  if (sys_.ioctl(fd_, IOCTL_KGSL_GET_FAULT_REPORT, &param) < 0) return {};
  std::string text = fmt::format("; the driver recorded {} GPU page fault{} for it:", page_faults.size(),
                                 page_faults.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < page_faults.size() && i < kNamedPageFaults; ++i) {
    text += (i == 0 ? " " : ", ") + page_fault_text(page_faults[i]);
  }
  if (page_faults.size() > kNamedPageFaults) text += fmt::format(" and {} more", page_faults.size() - kNamedPageFaults);
  return text;
}

void KgslKernel::note_reset(ContextId ctx, ResetStatus status) {
  std::lock_guard lock(mutex_);
  ResetStatus& known = resets_[ctx];
  if (known != ResetStatus::guilty) known = status;
}

ResetStatus KgslKernel::reset_status(ContextId ctx) {
  std::uint32_t value = ctx;  // the context id in, its status out
  if (int ret = get_property(KGSL_PROP_GPU_RESET_STAT, &value, sizeof value); ret < 0) {
    throw_kernel_error("KGSL IOCTL_KGSL_DEVICE_GETPROPERTY", "KGSL_PROP_GPU_RESET_STAT of " + context_detail(ctx), ret);
  }
  switch (value) {
    case KGSL_CTX_STAT_NO_ERROR: break;
    case KGSL_CTX_STAT_GUILTY_CONTEXT_RESET_EXT: note_reset(ctx, ResetStatus::guilty); break;
    case KGSL_CTX_STAT_INNOCENT_CONTEXT_RESET_EXT: note_reset(ctx, ResetStatus::innocent); break;
    default: note_reset(ctx, ResetStatus::unknown); break;
  }
  std::lock_guard lock(mutex_);
  auto it = resets_.find(ctx);
  return it == resets_.end() ? ResetStatus::none : it->second;
}

std::unique_ptr<Kernel> open_kgsl_kernel(sys::Syscalls& sys, const std::string& path, bool is_virtual) {
  const int fd = sys.open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw_kernel_error("KGSL open", path, fd);
  auto kernel = std::make_unique<KgslKernel>(sys, fd, path, is_virtual);
  kernel->query_device();  // on failure, `kernel` closes the descriptor
  return kernel;
}

}  // namespace adreno
