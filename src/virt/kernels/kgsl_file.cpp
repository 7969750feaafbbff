#include "virt/kernels/kgsl_file.h"

#include "kgsl/kgsl_abi.h"
#include "virt/kernels/fault_injection.h"
#include "virt/kernels/memory_limit.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

namespace adreno::virt {
namespace {

// The per-process pagetable of a 64-bit process: GPUOBJ_ALLOC without USE_CPU_MAP takes its
// address from [KGSL_IOMMU_VA_BASE64, KGSL_IOMMU_VA_END64) (qualcomm-linux/kgsl kgsl_iommu.h,
// kgsl_iommu.c pagetable setup). Host CPU mappings never land there.
constexpr std::uint64_t kVaBase64 = 0x4000000000ull;
constexpr std::uint64_t kVaEnd64 = 0x8000000000ull;

// The kernel's -ENOTSUPP (include/linux/errno.h), which GPUOBJ_IMPORT leaks to userspace.
constexpr int kEnotsupp = 524;

// Limits of a GPU_COMMAND (kgsl.h KGSL_MAX_NUMIBS, KGSL_MAX_SYNCPOINTS) and of one IB: the CP
// takes at most 0xFFFFF dwords (adreno.c _verify_ib).
constexpr unsigned kMaxNumIbs = 2000;
constexpr unsigned kMaxSyncpoints = 32;
constexpr std::uint64_t kMaxIbDwords = 0xFFFFF;

// kgsl.c KGSL_MAX_ALIGN: alignment requests are capped at 32 MiB.
constexpr unsigned kMaxAlignLog2 = 25;

// kgsl_driver registers its char devices with alloc_chrdev_region (kgsl.c), so the major is
// dynamic; this stands in for it. kgsl-3d0 is minor 0, the first KGSL device.
constexpr unsigned kKgslMajor = 234;
constexpr unsigned kKgsl3d0Minor = 0;


std::uint64_t cachemode(std::uint64_t flags) { return (flags & KGSL_CACHEMODE_MASK) >> KGSL_CACHEMODE_SHIFT; }

std::uint64_t with_cachemode(std::uint64_t flags, std::uint64_t mode) {
  return (flags & ~std::uint64_t{KGSL_CACHEMODE_MASK}) | (mode << KGSL_CACHEMODE_SHIFT);
}

// kgsl.h timestamp_cmp: 32-bit timestamps wrap, so "later" means ahead by less than half the
// range (KGSL_TIMESTAMP_WINDOW).
int timestamp_cmp(std::uint32_t a, std::uint32_t b) {
  const auto diff = static_cast<std::int32_t>(a - b);
  return diff == 0 ? 0 : (diff > 0 ? 1 : -1);
}

// copy_struct_from_user: a shorter user struct is zero-extended, a longer one must be zero past
// the kernel's size (else -E2BIG); an unreadable pointer is -EFAULT.
template <typename T>
int copy_struct_from_user(T& out, const void* user, std::size_t user_size) {
  if (user == nullptr) return -EFAULT;
  out = T{};
  const auto* bytes = static_cast<const unsigned char*>(user);
  std::memcpy(&out, bytes, std::min(sizeof(T), user_size));
  for (std::size_t i = sizeof(T); i < user_size; ++i) {
    if (bytes[i] != 0) return -E2BIG;
  }
  return 0;
}

// kgsl_drawobj.c _verify_input_list: an empty list is all-zero; a half-described one is -EINVAL.
int verify_input_list(unsigned count, std::uint64_t ptr, unsigned size) {
  if (count == 0 && ptr == 0 && size == 0) return 0;
  if (count == 0 || ptr == 0 || size == 0) return -EINVAL;
  return 1;
}

const void* user_pointer(std::uint64_t address) { return reinterpret_cast<const void*>(address); }

}  // namespace

template <unsigned long Request, typename Param, int (KgslFile::*Handler)(Param&)>
int KgslFile::call(KgslFile& file, void* arg) {
  static_assert(_IOC_SIZE(Request) == sizeof(Param));
  if (arg == nullptr) return -EFAULT;
  Param param;
  std::memcpy(&param, arg, sizeof param);
  const int ret = (file.*Handler)(param);
  if (ret == 0 && (_IOC_DIR(Request) & _IOC_READ)) std::memcpy(arg, &param, sizeof param);
  return ret;
}

const KgslFile::IoctlEntry KgslFile::kIoctls[] = {
    {IOCTL_KGSL_DEVICE_GETPROPERTY,
     &call<IOCTL_KGSL_DEVICE_GETPROPERTY, kgsl_device_getproperty, &KgslFile::getproperty>},
    {IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID,
     &call<IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, kgsl_device_waittimestamp_ctxtid, &KgslFile::waittimestamp_ctxtid>},
    {IOCTL_KGSL_DRAWCTXT_CREATE, &call<IOCTL_KGSL_DRAWCTXT_CREATE, kgsl_drawctxt_create, &KgslFile::drawctxt_create>},
    {IOCTL_KGSL_DRAWCTXT_DESTROY, &call<IOCTL_KGSL_DRAWCTXT_DESTROY, kgsl_drawctxt_destroy, &KgslFile::drawctxt_destroy>},
    {IOCTL_KGSL_GPUOBJ_ALLOC, &call<IOCTL_KGSL_GPUOBJ_ALLOC, kgsl_gpuobj_alloc, &KgslFile::gpuobj_alloc>},
    {IOCTL_KGSL_GPUOBJ_FREE, &call<IOCTL_KGSL_GPUOBJ_FREE, kgsl_gpuobj_free, &KgslFile::gpuobj_free>},
    {IOCTL_KGSL_GPUOBJ_INFO, &call<IOCTL_KGSL_GPUOBJ_INFO, kgsl_gpuobj_info, &KgslFile::gpuobj_info>},
    {IOCTL_KGSL_GPUOBJ_IMPORT, &call<IOCTL_KGSL_GPUOBJ_IMPORT, kgsl_gpuobj_import, &KgslFile::gpuobj_import>},
    {IOCTL_KGSL_GPU_COMMAND, &call<IOCTL_KGSL_GPU_COMMAND, kgsl_gpu_command, &KgslFile::gpu_command>},
    {IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID,
     &call<IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID, kgsl_cmdstream_readtimestamp_ctxtid,
           &KgslFile::readtimestamp_ctxtid>},
    {IOCTL_KGSL_GET_FAULT_REPORT, &call<IOCTL_KGSL_GET_FAULT_REPORT, kgsl_fault_report, &KgslFile::get_fault_report>},
};

std::uint64_t KgslFile::page_size() const { return device_->config().page_size; }

std::uint64_t KgslFile::page_align(std::uint64_t size) const { return (size + page_size() - 1) & ~(page_size() - 1); }

KgslFile::KgslFile(std::shared_ptr<KgslDevice> device)
    : device_(std::move(device)),
      owner_(device_->new_owner()),
      memory_(std::make_shared<GpuMemory>(kVaBase64, kVaEnd64 - kVaBase64)) {}

KgslFile::~KgslFile() { device_->release(owner_); }

int KgslFile::ioctl(unsigned long request, void* arg) {
  for (const IoctlEntry& entry : kIoctls) {
    if (entry.request == request) return entry.call(*this, arg);
  }
  // Unknown commands end as -ENOIOCTLCMD, which the VFS turns into -ENOTTY.
  return -ENOTTY;
}

// --- properties (kgsl.c kgsl_ioctl_device_getproperty, adreno.c adreno_getproperty) ---

int KgslFile::getproperty(kgsl_device_getproperty& param) {
  switch (param.type) {
    case KGSL_PROP_DEVICE_INFO: {
      // adreno_prop_device_info: gpu_id is left 0 in this tree (userspace derives it from
      // chip_id); copy_prop copies min(sizebytes, sizeof) and checks nothing else.
      kgsl_devinfo info{};
      info.device_id = 1;
      info.chip_id = device_->config().model.chip_id;
      info.mmu_enabled = 1;
      info.gmem_sizebytes = device_->config().model.gmem_bytes;
      if (param.value == nullptr && param.sizebytes != 0) return -EFAULT;
      if (param.sizebytes != 0) std::memcpy(param.value, &info, std::min<std::size_t>(sizeof info, param.sizebytes));
      return 0;
    }
    case KGSL_PROP_GPU_RESET_STAT: {
      // kgsl_prop_gpu_reset_stat: exactly a u32 carrying the context id in, the status out.
      std::uint32_t id;
      if (param.sizebytes != sizeof id) return -EINVAL;
      if (param.value == nullptr) return -EFAULT;
      std::memcpy(&id, param.value, sizeof id);
      auto context = device_->find(owner_, id);
      if (!context) return -EINVAL;
      const std::uint32_t status = device_->take_reset_status(*context);
      std::memcpy(param.value, &status, sizeof status);
      return 0;
    }
    case KGSL_PROP_GPU_VA64_SIZE: {
      // kgsl_get_gpu_va64_size: exactly a u64.
      const std::uint64_t size = kVaEnd64 - kVaBase64;
      if (param.sizebytes != sizeof size) return -EINVAL;
      if (param.value == nullptr) return -EFAULT;
      std::memcpy(param.value, &size, sizeof size);
      return 0;
    }
    default:
      // adreno_getproperty: a property nobody handles.
      return -ENODEV;
  }
}

// --- draw contexts (adreno_drawctxt.c adreno_drawctxt_create, kgsl.c) ---

int KgslFile::drawctxt_create(kgsl_drawctxt_create& param) {
  std::uint32_t flags =
      param.flags & (KGSL_CONTEXT_PREAMBLE | KGSL_CONTEXT_NO_GMEM_ALLOC | KGSL_CONTEXT_PER_CONTEXT_TS |
                     KGSL_CONTEXT_USER_GENERATED_TS | KGSL_CONTEXT_NO_FAULT_TOLERANCE |
                     KGSL_CONTEXT_INVALIDATE_ON_FAULT | KGSL_CONTEXT_CTX_SWITCH | KGSL_CONTEXT_PRIORITY_MASK |
                     KGSL_CONTEXT_TYPE_MASK | KGSL_CONTEXT_PWR_CONSTRAINT | KGSL_CONTEXT_IFH_NOP |
                     KGSL_CONTEXT_SECURE | KGSL_CONTEXT_PREEMPT_STYLE_MASK | KGSL_CONTEXT_LPAC |
                     KGSL_CONTEXT_NO_SNAPSHOT | KGSL_CONTEXT_FAULT_INFO);
  // Legacy context switching is gone: PREAMBLE and NO_GMEM_ALLOC are mandatory.
  if (!(flags & KGSL_CONTEXT_PREAMBLE) || !(flags & KGSL_CONTEXT_NO_GMEM_ALLOC)) return -EINVAL;
  // The virtual MMU has no secure pagetable and the virtual a6xx no LPAC ringbuffer.
  if (flags & (KGSL_CONTEXT_SECURE | KGSL_CONTEXT_LPAC)) return -EOPNOTSUPP;
  // An unset priority becomes KGSL_CONTEXT_PRIORITY_MED (8); per-context timestamps are forced.
  if ((flags & KGSL_CONTEXT_PRIORITY_MASK) == KGSL_CONTEXT_PRIORITY_UNDEF) flags |= 8u << KGSL_CONTEXT_PRIORITY_SHIFT;
  flags |= KGSL_CONTEXT_PER_CONTEXT_TS;
  const int id = device_->create_context(owner_, flags, memory_);
  if (id < 0) return id;
  param.flags = flags;
  param.drawctxt_id = static_cast<unsigned>(id);
  return 0;
}

int KgslFile::drawctxt_destroy(kgsl_drawctxt_destroy& param) {
  return device_->destroy_context(owner_, param.drawctxt_id);
}

// --- memory (kgsl.c gpumem_alloc_entry, kgsl_ioctl_gpuobj_*, kgsl_sharedmem.c kgsl_memdesc_init) ---

int KgslFile::attach_entry(std::shared_ptr<Backing> backing, std::uint64_t size, std::uint64_t flags,
                           std::uint64_t align, std::uint32_t& id) {
  auto gpuaddr = memory_->map(backing, 0, size, !(flags & KGSL_MEMFLAGS_GPUREADONLY), align);
  if (!gpuaddr) return -ENOMEM;  // kgsl_mmu_get_gpuaddr found no room
  auto entry = std::shared_ptr<MemEntry>(new MemEntry{0, *gpuaddr, size, flags, std::move(backing), memory_});
  std::lock_guard lock(mutex_);
  // kgsl_mem_entry_attach_to_process: idr_alloc(mem_idr, 1, 0) — the lowest free id from 1.
  id = 1;
  for (const auto& [used, entry] : entries_) {
    if (used != id) break;
    ++id;
  }
  entry->id = id;
  entries_.emplace(id, std::move(entry));
  return 0;
}

std::shared_ptr<KgslFile::MemEntry> KgslFile::find_entry(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : it->second;
}

int KgslFile::gpuobj_alloc(kgsl_gpuobj_alloc& param) {
  // Virtual buffer objects (KGSL_MEMFLAGS_VBO, gpumem_alloc_vbo_entry) are not modelled.
  if (param.flags & KGSL_MEMFLAGS_VBO) return -EOPNOTSUPP;
  // Unknown flags are dropped silently, not refused.
  std::uint64_t flags = param.flags & (KGSL_MEMFLAGS_GPUREADONLY | KGSL_CACHEMODE_MASK | KGSL_MEMTYPE_MASK |
                                       KGSL_MEMALIGN_MASK | KGSL_MEMFLAGS_USE_CPU_MAP | KGSL_MEMFLAGS_SECURE |
                                       KGSL_MEMFLAGS_FORCE_32BIT | KGSL_MEMFLAGS_IOCOHERENT |
                                       KGSL_MEMFLAGS_GUARD_PAGE);
  if (flags & KGSL_MEMFLAGS_SECURE) return -EOPNOTSUPP;  // check_and_warn_secured: no secure MMU here
  // cap_alignment; kgsl_memdesc_init raises it to at least a page (ilog2(PAGE_SIZE)).
  unsigned align_log2 = static_cast<unsigned>((flags & KGSL_MEMALIGN_MASK) >> KGSL_MEMALIGN_SHIFT);
  align_log2 = std::clamp(align_log2, static_cast<unsigned>(std::countr_zero(page_size())), kMaxAlignLog2);
  flags = (flags & ~std::uint64_t{KGSL_MEMALIGN_MASK}) | (std::uint64_t{align_log2} << KGSL_MEMALIGN_SHIFT);
  // "For now only allow allocations up to 4G".
  if (param.size == 0 || param.size > UINT_MAX) return -EINVAL;
  // kgsl_filter_cachemode: arm64 has no write-through, WRITEBACK is reported instead.
  if (cachemode(flags) == KGSL_CACHEMODE_WRITETHROUGH) flags = with_cachemode(flags, KGSL_CACHEMODE_WRITEBACK);
  // kgsl_memdesc_init: the virtual MMU has neither SVM (CPU-mirrored GPU addresses) nor IO
  // coherence, so both flags are dropped as on a target without those features.
  flags &= ~(KGSL_MEMFLAGS_USE_CPU_MAP | KGSL_MEMFLAGS_IOCOHERENT);

  // kgsl_sharedmem.c kgsl_alloc_pages: PAGE_ALIGN(size).
  const std::uint64_t size = page_align(param.size);
  auto backing = allocate_pages(device_->config().memory_limit, size);
  if (!backing) return -ENOMEM;
  std::uint32_t id = 0;
  if (int ret = attach_entry(std::move(backing), size, flags, std::uint64_t{1} << align_log2, id); ret != 0) return ret;
  param.size = size;
  param.flags = flags;
  // kgsl_memdesc_footprint: a guard page makes the mmap footprint a page longer.
  param.mmapsize = (flags & KGSL_MEMFLAGS_GUARD_PAGE) ? size + page_size() : size;
  param.id = id;
  return 0;
}

int KgslFile::gpuobj_free(kgsl_gpuobj_free& param) {
  std::shared_ptr<MemEntry> entry;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(param.id);
    if (it == entries_.end()) return -EINVAL;  // kgsl_sharedmem_find_id found nothing
    // Deferred frees (KGSL_GPUOBJ_FREE_ON_EVENT) are not modelled.
    if (param.flags & KGSL_GPUOBJ_FREE_ON_EVENT) return -EOPNOTSUPP;
    entry = std::move(it->second);
    entries_.erase(it);
  }
  return 0;
}

int KgslFile::gpuobj_info(kgsl_gpuobj_info& param) {
  if (param.id == 0) return -EINVAL;
  auto entry = find_entry(param.id);
  if (!entry) return -EINVAL;
  param.gpuaddr = entry->gpuaddr;
  param.flags = entry->flags;
  param.size = entry->size;
  param.va_len = (entry->flags & KGSL_MEMFLAGS_GUARD_PAGE) ? entry->size + page_size() : entry->size;
  param.va_addr = 0;  // never reported: an entry may have several CPU mappings
  return 0;
}

int KgslFile::gpuobj_import(kgsl_gpuobj_import& param) {
  if (param.type != KGSL_USER_MEM_TYPE_ADDR && param.type != KGSL_USER_MEM_TYPE_DMABUF) return -kEnotsupp;
  if (param.flags & KGSL_MEMFLAGS_VBO) return -EINVAL;

  std::shared_ptr<Backing> backing;
  std::uint64_t flags = 0;
  if (param.type == KGSL_USER_MEM_TYPE_ADDR) {
    // _gpuobj_map_useraddr, kgsl_setup_useraddr, kgsl_setup_anon_useraddr.
    flags = param.flags & (KGSL_MEMFLAGS_GPUREADONLY | KGSL_CACHEMODE_MASK | KGSL_MEMFLAGS_USE_CPU_MAP |
                           KGSL_MEMTYPE_MASK | KGSL_MEMFLAGS_FORCE_32BIT | KGSL_MEMFLAGS_IOCOHERENT);
    flags &= ~(KGSL_MEMFLAGS_USE_CPU_MAP | KGSL_MEMFLAGS_IOCOHERENT);  // as in gpuobj_alloc
    kgsl_gpuobj_import_useraddr useraddr;
    if (param.priv == 0) return -EINVAL;  // a failed copy_from_user is -EINVAL here
    std::memcpy(&useraddr, user_pointer(param.priv), sizeof useraddr);
    if (useraddr.virtaddr == 0 || useraddr.virtaddr % page_size() != 0) return -EINVAL;
    if (param.priv_len == 0 || param.priv_len % page_size() != 0) return -EINVAL;
    backing = Backing::wrap_user(reinterpret_cast<void*>(useraddr.virtaddr), param.priv_len);
    flags |= KGSL_MEMFLAGS_USERMEM_ADDR;
  } else {
    // _gpuobj_map_dma_buf, kgsl_setup_dma_buf.
    flags = param.flags & (KGSL_MEMFLAGS_GPUREADONLY | KGSL_MEMTYPE_MASK | KGSL_MEMALIGN_MASK |
                           KGSL_MEMFLAGS_SECURE | KGSL_MEMFLAGS_FORCE_32BIT | KGSL_MEMFLAGS_GUARD_PAGE);
    if (flags & KGSL_MEMFLAGS_SECURE) return -kEnotsupp;
    kgsl_gpuobj_import_dma_buf buf;
    if (copy_struct_from_user(buf, user_pointer(param.priv), param.priv_len) != 0) return -EFAULT;
    if (buf.fd < 0) return -EINVAL;
    // dma_buf_get: a closed descriptor is -EBADF, one that is no dma-buf -EINVAL.
    backing = Backing::import_fd(buf.fd);
    if (!backing) return -errno;
    // dma-bufs are always CPU-cached.
    flags = with_cachemode(flags, KGSL_CACHEMODE_WRITEBACK) | KGSL_MEMFLAGS_USERMEM_ION;
  }
  const std::uint64_t size = backing->size();
  // kgsl_ioctl_gpuobj_import aligns imports of 1 MiB and 64 KiB or more to that size.
  const std::uint64_t align = size >= (1u << 20) ? (1u << 20) : size >= (1u << 16) ? (1u << 16) : page_size();
  std::uint32_t id = 0;
  if (int ret = attach_entry(std::move(backing), size, flags, align, id); ret != 0) return ret;
  param.flags = flags;
  param.id = id;
  return 0;
}

// --- submission and waiting (kgsl.c kgsl_ioctl_gpu_command, kgsl_drawobj.c, adreno_dispatch.c) ---

int KgslFile::gpu_command(kgsl_gpu_command& param) {
  // _process_command_input.
  if (param.numcmds > kMaxNumIbs || param.numobjs > kMaxNumIbs || param.numsyncs > kMaxSyncpoints) return -EINVAL;
  const bool marker = (param.flags & KGSL_CMDBATCH_MARKER) || param.numcmds == 0;
  auto context = device_->find(owner_, param.context_id);
  if (!context) return -EINVAL;
  // kgsl_drawobj_sync_add_synclist: timestamp sync points name any context of the device
  // (kgsl_context_get, no owner check) and hold the command in the dispatcher until that
  // timestamp retired; on its own context a sync point may not name a future timestamp, and on
  // any context kgsl_add_event refuses one never queued. Fence and timeline sync points are
  // valid requests this device does not model: refused rather than ignored.
  std::vector<Ring::Dependency> after;
  if (param.numsyncs != 0 || param.synclist != 0 || param.syncsize != 0) {
    if (verify_input_list(param.numsyncs, param.synclist, param.syncsize) <= 0) return -EINVAL;
    const auto* cursor = static_cast<const unsigned char*>(user_pointer(param.synclist));
    for (unsigned i = 0; i < param.numsyncs; ++i, cursor += param.syncsize) {
      kgsl_command_syncpoint sync;
      if (copy_struct_from_user(sync, cursor, param.syncsize) != 0) return -EFAULT;
      if (sync.type == KGSL_CMD_SYNCPOINT_TYPE_FENCE || sync.type == KGSL_CMD_SYNCPOINT_TYPE_TIMELINE) return -EOPNOTSUPP;
      if (sync.type != KGSL_CMD_SYNCPOINT_TYPE_TIMESTAMP) return -EINVAL;  // kgsl_drawobj_sync_add_sync
      kgsl_cmd_syncpoint_timestamp timestamp;
      if (copy_struct_from_user(timestamp, user_pointer(sync.priv), sync.size) != 0) return -EFAULT;
      auto other = device_->find_any(timestamp.context_id);
      if (!other) return -EINVAL;
      if (timestamp_cmp(timestamp.timestamp, static_cast<std::uint32_t>(other->ring->submitted())) > 0) return -EINVAL;
      after.push_back(Ring::Dependency{other->ring, timestamp.timestamp});
    }
  } else if (param.flags & KGSL_CMDBATCH_SYNC) {
    return -EINVAL;  // a sync-only command without sync points
  }

  std::vector<IbSpan> ibs;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ib_ranges;
  if (!marker) {
    // kgsl_drawobj_cmd_add_cmdlist: each object must carry one of the command-list flags.
    if (int ret = verify_input_list(param.numcmds, param.cmdlist, param.cmdsize); ret <= 0) return ret;
    const auto* cursor = static_cast<const unsigned char*>(user_pointer(param.cmdlist));
    for (unsigned i = 0; i < param.numcmds; ++i, cursor += param.cmdsize) {
      kgsl_command_object object;
      if (copy_struct_from_user(object, cursor, param.cmdsize) != 0) return -EFAULT;
      if (!(object.flags & (KGSL_CMDLIST_IB | KGSL_CMDLIST_CTXTSWITCH_PREAMBLE | KGSL_CMDLIST_IB_PREAMBLE))) {
        return -EINVAL;
      }
      ib_ranges.emplace_back(object.gpuaddr, object.size);
    }
    // kgsl_drawobj_cmd_add_memlist: each object must be a KGSL_OBJLIST_MEMOBJ; the list only
    // feeds snapshots and profiling, so beyond validation it changes nothing here.
    if (int ret = verify_input_list(param.numobjs, param.objlist, param.objsize); ret < 0) return ret;
    cursor = static_cast<const unsigned char*>(user_pointer(param.objlist));
    for (unsigned i = 0; i < param.numobjs; ++i, cursor += param.objsize) {
      kgsl_command_object object;
      if (copy_struct_from_user(object, cursor, param.objsize) != 0) return -EFAULT;
      if (!(object.flags & KGSL_OBJLIST_MEMOBJ)) return -EINVAL;
    }
  }
  // adreno_dispatcher_queue_cmds → kgsl_check_context_state: an invalidated context is -EDEADLK.
  if (context->ring->fault()) return -EDEADLK;
  // kgsl_ioctl_gpu_command queues a sync object (with sync points) and a command or marker
  // object (unless KGSL_CMDBATCH_SYNC), and they must fit in the context's draw queue.
  const bool has_syncs = !after.empty();
  const unsigned drawobjs = (has_syncs ? 1u : 0u) + ((param.flags & KGSL_CMDBATCH_SYNC) ? 0u : 1u);
  // adreno_verify_cmdobj → _verify_ib: the size must be 1..0xFFFFF dwords and the address a
  // dword-aligned range inside the process' pagetable. The driver does not look the address
  // up among the mem entries: an IB in a hole of the pagetable is accepted and page-faults.
  for (const auto& [gpuaddr, size] : ib_ranges) {
    if (size == 0 || (size >> 2) > kMaxIbDwords) return -EINVAL;
    const bool in_range = gpuaddr >= kVaBase64 && gpuaddr + size < kVaEnd64;
    if (!in_range || gpuaddr % 4 != 0) return -EINVAL;
    ibs.push_back(IbSpan{gpuaddr, static_cast<std::uint32_t>(size >> 2)});
  }
  if (int ret = device_->wait_for_room(*context, drawobjs); ret != 0) return ret;
  const std::uint64_t timestamp = context->ring->submit(
      std::move(ibs), {}, nullptr, next_injected_fault(device_->config().fault_injection), std::move(after));
  device_->queued(*context, timestamp, drawobjs);
  param.timestamp = static_cast<unsigned>(timestamp);
  // adreno_dispatcher_queue_cmds: once queued, a context that lived through a fault recovery
  // learns of it as -EPROTO (the flag is read and cleared); kgsl_ioctl_helper then copies
  // nothing back, so the caller does not see the timestamp.
  if (device_->take_recovered(*context)) return -EPROTO;
  return 0;
}

int KgslFile::readtimestamp_ctxtid(kgsl_cmdstream_readtimestamp_ctxtid& param) {
  // kgsl.c kgsl_ioctl_cmdstream_readtimestamp_ctxtid → kgsl_readtimestamp: an unknown context
  // is -EINVAL; QUEUED is the last timestamp handed out, RETIRED (and CONSUMED, which the
  // memstore tracks alongside) the last one done.
  auto context = device_->find(owner_, param.context_id);
  if (!context) return -EINVAL;
  switch (param.type) {
    case KGSL_TIMESTAMP_QUEUED: param.timestamp = static_cast<unsigned>(context->ring->submitted()); return 0;
    case KGSL_TIMESTAMP_CONSUMED:
    case KGSL_TIMESTAMP_RETIRED: param.timestamp = static_cast<unsigned>(context->ring->retired()); return 0;
    default: return -EINVAL;
  }
}

int KgslFile::waittimestamp_ctxtid(kgsl_device_waittimestamp_ctxtid& param) {
  auto context = device_->find(owner_, param.context_id);
  if (!context) return -EINVAL;  // kgsl_ioctl_device_waittimestamp_ctxtid
  Ring& ring = *context->ring;
  // adreno_drawctxt_wait: an invalidated context is -EDEADLK before anything else.
  if (ring.fault()) return -EDEADLK;
  // kgsl_add_event: a timestamp that was never queued is -EINVAL (unless user-generated).
  if (!(context->flags & KGSL_CONTEXT_USER_GENERATED_TS) &&
      timestamp_cmp(param.timestamp, static_cast<std::uint32_t>(ring.submitted())) > 0) {
    return -EINVAL;
  }
  // A timeout of 0 waits forever; a day stands in for that.
  const std::chrono::nanoseconds timeout = param.timeout == 0 ? std::chrono::nanoseconds(std::chrono::hours(24))
                                                               : std::chrono::milliseconds(param.timeout);
  const Ring::WaitResult result = ring.wait(param.timestamp, timeout);
  // adreno_waittimestamp: whatever the wait returned, an invalidated context is -EDEADLK.
  if (ring.fault()) return -EDEADLK;
  return result == Ring::WaitResult::timeout ? -ETIMEDOUT : 0;
}

// --- fault reports (kgsl.c kgsl_ioctl_get_fault_report) ---

int KgslFile::get_fault_report(kgsl_fault_report& param) {
  auto context = device_->find(owner_, param.context_id);
  if (!context) return -EINVAL;
  // Only an invalidated context of KGSL_CONTEXT_FAULT_INFO has a report to give.
  if (!(context->flags & KGSL_CONTEXT_FAULT_INFO) || !context->ring->fault()) return -EINVAL;
  if (param.faultlist == 0) {
    param.faultnents = KGSL_FAULT_TYPE_MAX;  // how many fault types there are
    return 0;
  }
  auto* list = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(param.faultlist));
  const std::size_t size = std::min<std::size_t>(sizeof(kgsl_fault), param.faultsize);
  const auto entry = [&](unsigned i) {
    kgsl_fault fault{};
    std::memcpy(&fault, list + std::size_t{i} * param.faultsize, size);
    return fault;
  };
  const std::vector<KgslPageFault> faults = device_->page_faults(*context);
  // Entries that all name no buffer ask for the count of each type (kgsl_update_fault_count),
  // written to the first entries, one per type that has faults.
  bool details = false;
  for (unsigned i = 0; i < param.faultnents && !details; ++i) details = entry(i).fault != 0;
  if (!details) {
    if (!faults.empty() && param.faultnents != 0) {
      kgsl_fault count{};
      count.type = KGSL_FAULT_TYPE_PAGEFAULT;
      count.count = static_cast<__u32>(faults.size());
      std::memcpy(list, &count, size);
    }
    return 0;
  }
  // Otherwise each type's entry says where its reports go (kgsl_update_fault_details).
  std::array<kgsl_fault, KGSL_FAULT_TYPE_MAX> by_type{};
  for (unsigned i = 0; i < param.faultnents; ++i) {
    const kgsl_fault fault = entry(i);
    if (fault.type >= KGSL_FAULT_TYPE_MAX) return -EINVAL;
    by_type[fault.type] = fault;
  }
  const kgsl_fault& wanted = by_type[KGSL_FAULT_TYPE_PAGEFAULT];
  const std::size_t report_size = std::min<std::size_t>(sizeof(kgsl_pagefault_report), wanted.size);
  for (std::size_t i = 0; i < faults.size() && i < wanted.count; ++i) {
    if (wanted.fault == 0) return -EFAULT;
    kgsl_pagefault_report report{};
    report.fault_addr = faults[i].address;
    report.fault_type = faults[i].type;
    std::memcpy(reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(wanted.fault)) + i * wanted.size, &report,
                report_size);
  }
  return 0;
}

// --- mmap (kgsl.c kgsl_mmap, get_mmap_entry) ---

void* KgslFile::mmap(std::size_t length, int prot, int flags, off_t offset, int& error) {
  // The offset names the entry in the kernel's pages: kgsl_mmap hands vma->vm_pgoff (the offset
  // >> PAGE_SHIFT) to get_mmap_entry, which looks it up as an id (kgsl_sharedmem_find_id).
  auto entry = find_entry(static_cast<std::uint32_t>(static_cast<std::uint64_t>(offset) / page_size()));
  if (!entry || offset % page_size() != 0) {
    error = EINVAL;
    return nullptr;
  }
  // get_mmap_entry: a dma-buf entry's memdesc has kgsl_dmabuf_ops, which has no vmflags or
  // vmfault, so it cannot be mapped through KGSL (-EINVAL); map the dma-buf itself instead.
  if ((entry->flags & KGSL_MEMFLAGS_USERMEM_MASK) == KGSL_MEMFLAGS_USERMEM_ION) {
    error = EINVAL;
    return nullptr;
  }
  // User memory is never mapped again through KGSL.
  if (entry->flags & KGSL_MEMFLAGS_USERMEM_ADDR) {
    error = EBUSY;
    return nullptr;
  }
  // The whole entry (or its footprint) is mapped, nothing else.
  const std::uint64_t footprint = (entry->flags & KGSL_MEMFLAGS_GUARD_PAGE) ? entry->size + page_size() : entry->size;
  if (length != entry->size && length != footprint) {
    error = ERANGE;
    return nullptr;
  }
  // A fresh host mapping of the entry's pages: its CPU address is unrelated to the GPU address.
  void* addr = ::mmap(nullptr, length, prot, flags, entry->backing->fd(), 0);
  if (addr == MAP_FAILED) {
    error = errno;
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  cpu_mappings_.emplace(addr, std::move(entry));
  return addr;
}

void KgslFile::munmapped(void* addr, std::size_t) {
  std::shared_ptr<MemEntry> entry;
  std::lock_guard lock(mutex_);
  auto it = cpu_mappings_.find(addr);
  if (it == cpu_mappings_.end()) return;
  entry = std::move(it->second);
  cpu_mappings_.erase(it);
}

void KgslFile::stat(struct stat& out) const {
  // /dev/kgsl-3d0 is a character device, world read-writable (Android ueventd.rc).
  out.st_mode = S_IFCHR | 0666;
  out.st_rdev = makedev(kKgslMajor, kKgsl3d0Minor);
}

std::vector<LiveObject> KgslFile::ledger() const {
  std::vector<LiveObject> objects;
  for (std::uint32_t id : device_->contexts_of(owner_)) {
    auto context = device_->find(owner_, id);
    objects.push_back(LiveObject{LiveObject::Kind::context, id, 0, context ? context->flags : 0u, 0,
                                 "draw context " + std::to_string(id)});
  }
  std::lock_guard lock(mutex_);
  char text[128];
  for (const auto& [id, entry] : entries_) {
    std::snprintf(text, sizeof text, "mem entry %u (%llu bytes at GPU 0x%llx)", id,
                  static_cast<unsigned long long>(entry->size), static_cast<unsigned long long>(entry->gpuaddr));
    objects.push_back(LiveObject{LiveObject::Kind::buffer, id, entry->size, entry->flags, entry->gpuaddr, text});
  }
  for (const auto& [addr, entry] : cpu_mappings_) {
    std::snprintf(text, sizeof text, "CPU mapping of mem entry %u at %p", entry->id, addr);
    objects.push_back(LiveObject{LiveObject::Kind::mapping, entry->id, entry->size, 0,
                                 reinterpret_cast<std::uintptr_t>(addr), text});
  }
  return objects;
}

}  // namespace adreno::virt
